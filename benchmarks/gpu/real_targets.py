"""The real-user suite (examples/real/) with ``--roofline`` on a GPU, and its invariants, into OUT.

    PYTHONPATH=src python3 benchmarks/gpu/real_targets.py OUT

For each target, each case is benched three times in this process: without the roofline (kernel
method), with it (graph, events, kernel: what ``run --roofline`` does) and without it again. Written:

- ``OUT/real-targets-h200.md``: the ``run --roofline`` table of each target (the CLI's renderer),
  then one line per case with the invariants: the same kernel list in all three runs, counted (no
  case lost to counting), % of roof <= 100, the graph method's outcome;
- ``OUT/real-targets-h200.json``: every result (``BenchResult.to_dict``) and the invariants;
- ``OUT/ops-hf-llama-h200.md``: ``bench-kernel ops`` on a trace of the HF Llama forward recorded
  here with shapes (per-op TFLOP/s on a live H200 trace).

Without a GPU it records which targets could not load and why (the CPU path), and exits 0.
"""

from __future__ import annotations

import json
import platform
import sys
import time
import traceback
from datetime import date
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
TARGETS = ["compiled.py:cases", "triton_matmul.py:cases", "scaled_mm.py:cases", "sdpa.py:cases",
           "hf_decoder.py:cases", "graph_unsafe.py:cases"]
OPTIONS = dict(max_time_s=0.3, precision=0.02)


def _names(result) -> list[str]:
    return sorted({k.name for k in result.kernels if k.kind == "kernel"})


def _bench_target(target: str, gpu: bool) -> tuple[list, list[dict], str | None]:
    from bench_kernel.errors import BenchKernelError
    from bench_kernel.measure import load_target
    from bench_kernel.options import Options
    from bench_kernel.orchestrate import bench_case

    try:
        cases = load_target(str(ROOT / "examples" / "real" / target))
    except BenchKernelError as e:
        return [], [], str(e)
    if not gpu:
        return [], [], "no GPU: the suite needs CUDA"
    results, checks = [], []
    for case in cases:
        t0 = time.perf_counter()
        try:
            before = bench_case(case, Options(methods=("kernel",), **OPTIONS))
            placed = bench_case(case, Options(roofline=True, **OPTIONS))
            after = bench_case(case, Options(methods=("kernel",), **OPTIONS))
        except BenchKernelError as e:
            checks.append({"case": case.label, "error": str(e)})
            continue
        rl = placed.roofline
        graph = placed.measurements.get("graph")
        checks.append({
            "case": case.label, "wall_s": round(time.perf_counter() - t0, 1),
            "same_kernels": _names(before) == _names(placed) == _names(after),
            "kernels": _names(placed),
            "counted": rl is not None and not any(n.code == "counting-failed" for n in placed.notes),
            "pct_of_roof": rl.pct_of_roof if rl else None, "dtype": rl.dtype if rl else None,
            "under_roof": rl is not None and rl.pct_of_roof <= 100.0,
            "graph": "ok" if graph is not None and graph.ok else (graph.error if graph is not None else "not run"),
        })
        results.append(placed)
    return results, checks, None


def _ops_of_hf_llama(out: Path) -> str:
    """``ops`` on a trace of the HF Llama forward, recorded here with shapes."""
    import torch

    from bench_kernel.measure import load_target
    from bench_kernel.report import ops_table, to_markdown
    from bench_kernel.trace import load_trace, ops

    case = next(c for c in load_target(str(ROOT / "examples" / "real" / "hf_decoder.py:cases"))
                if c.label == "hf_llama_forward")
    (ids,) = case.make_inputs()
    for _ in range(3):
        case.fn(ids)
    torch.cuda.synchronize()
    path = out / "hf_llama_forward_trace.json"
    with torch.profiler.profile(record_shapes=True) as prof:
        case.fn(ids)
        torch.cuda.synchronize()
    prof.export_chrome_trace(str(path))
    report = ops(load_trace(path, shapes=True))
    path.unlink()  # the table is the result; the trace stays out of the results
    return to_markdown(ops_table(report))


def _write(out: Path, md: list[str], raw: dict) -> None:
    """Written after every target: a device call cut short keeps what was measured."""
    (out / "real-targets-h200.md").write_text("\n".join(md) + "\n")
    (out / "real-targets-h200.json").write_text(json.dumps(raw, indent=1, default=str) + "\n")


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    out = Path(args[0] if args else "out")
    out.mkdir(parents=True, exist_ok=True)
    from bench_kernel.gpu import has_gpu
    from bench_kernel.report import results_table, to_markdown

    gpu = has_gpu()
    device = "no GPU"
    if gpu:
        import torch

        device = torch.cuda.get_device_name()
    md = [f"# The real-user suite with --roofline ({date.today().isoformat()})", "",
          f"- Device: {device}; Python {platform.python_version()}; command: "
          "`PYTHONPATH=src python3 benchmarks/gpu/real_targets.py OUT` (via `benchmarks/gpu/real_targets.sh`)",
          "- Each case benched three times in one process: without the roofline (kernel method), with it "
          "(graph, events, kernel), without it again; the invariants compare the three.", ""]
    raw: dict = {"device": device, "targets": {}}
    for target in TARGETS:
        t0 = time.perf_counter()
        try:
            results, checks, skipped = _bench_target(target, gpu)
        except Exception as e:  # noqa: BLE001 - one target's crash must not lose the others' results
            results, checks, skipped = [], [], f"crashed: {type(e).__name__}: {e}"
            traceback.print_exc()
        print(f"{target}: {time.perf_counter() - t0:.0f} s {skipped or ''}", flush=True)
        raw["targets"][target] = {"skipped": skipped, "checks": checks, "results": [r.to_dict() for r in results]}
        md += [f"## {target}", ""]
        if skipped:
            md += [f"not run: {skipped}", ""]
            _write(out, md, raw)
            continue
        if results:
            md += [to_markdown(results_table(results))]
        md += ["| case | same kernels (3 runs) | counted | dtype | % roof | <= 100% | graph |", "|---|---|---|---|---:|---|---|"]
        for c in checks:
            if "error" in c:
                md.append(f"| {c['case']} | error: {c['error']} | | | | | |")
                continue
            pct = f"{c['pct_of_roof']:.1f}%" if c["pct_of_roof"] is not None else "-"
            md.append(f"| {c['case']} | {'yes' if c['same_kernels'] else 'NO'} | {'yes' if c['counted'] else 'NO'} | "
                      f"{c['dtype']} | {pct} | {'yes' if c['under_roof'] else 'NO'} | {c['graph']} |")
        md.append("")
        _write(out, md, raw)
    if gpu:
        try:
            (out / "ops-hf-llama-h200.md").write_text(_ops_of_hf_llama(out))
        except Exception as e:  # noqa: BLE001
            (out / "ops-hf-llama-h200.md").write_text(f"ops on the HF Llama trace failed: {type(e).__name__}: {e}\n")
    print((out / "real-targets-h200.md").read_text())
    return 0


if __name__ == "__main__":
    sys.exit(main())
