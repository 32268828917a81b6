"""Roofline of a few torch ops on this GPU: counted FLOPs/bytes, graph and event times, table and plot.

Run on the GPU machine, from the repository root, after benchmarks/calibrate_report.py (whose
cached calibration becomes the measured roof):

    PYTHONPATH=src python3 benchmarks/roofline_report.py [--device NAME]

Writes ``$OUT/roofline-<device>.md``, ``.png``, ``.svg`` and ``.json`` ($OUT defaults to ./out).
``--smoke`` runs tiny shapes on the CPU with host timing: it checks this script, not a GPU.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time
from datetime import date
from pathlib import Path
from typing import Any, Callable

Case = tuple[Callable[..., Any], tuple[Any, ...]]


def make_cases(torch: Any, device: str, smoke: bool) -> dict[str, Case]:
    """Each case: a callable and its (bf16, random) inputs; sizes exceed a 50 MB L2 unless tiny."""
    F = torch.nn.functional

    def t(*shape: int) -> Any:
        return torch.randn(*shape, device=device, dtype=torch.bfloat16)

    n, seq, elems, rows = (256, 128, 1 << 16, 256) if smoke else (8192, 4096, 1 << 27, 1 << 15)
    return {
        f"gemm {n}^3": (torch.mm, (t(n, n), t(n, n))),
        f"gemm decode 16x{n}x{n}": (torch.mm, (t(16, n), t(n, n))),
        f"sdpa B4 H32 L{seq} D128": (F.scaled_dot_product_attention, (t(4, 32, seq, 128), t(4, 32, seq, 128),
                                                                     t(4, 32, seq, 128))),
        f"add {elems}": (torch.add, (t(elems), t(elems))),
        f"row sum {rows}x4096": (lambda x: x.sum(-1), (t(rows, 4096),)),
        "add 4096 (tiny)": (torch.add, (t(4096), t(4096))),
        f"copy {elems}": (lambda src, dst: dst.copy_(src), (t(elems), t(elems))),
    }


def _gpu_times_us(torch: Any, fn: Callable[[], Any]) -> tuple[float, float]:
    """(graph_us, events_us) per call: medians of graph replays / calls, and of event-bracketed calls."""
    from bench_kernel.gpu import time_each_us

    for _ in range(5):
        fn()
    torch.cuda.synchronize()
    events_us = statistics.median(time_each_us(fn, 30))
    calls = max(3, min(200, int(2000 / max(events_us, 1e-3))))  # ~2 ms per replay
    graph = torch.cuda.CUDAGraph()
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        fn()
    torch.cuda.current_stream().wait_stream(side)
    with torch.cuda.graph(graph):
        for _ in range(calls):
            fn()
    for _ in range(2):
        graph.replay()
    torch.cuda.synchronize()
    graph_us = statistics.median(time_each_us(graph.replay, 10)) / calls
    return graph_us, events_us


def _host_us(fn: Callable[[], Any]) -> float:
    fn()
    samples = []
    for _ in range(5):
        start = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - start) * 1e6)
    return statistics.median(samples)


def run(torch: Any, spec: Any, cal: Any, smoke: bool) -> list[Any]:
    """Count, time and place every case under the roofs; returns the RooflineResults."""
    from bench_kernel.roofline import analyze, count

    device = "cpu" if smoke else "cuda"
    results = []
    for name, (fn, args) in make_cases(torch, device, smoke).items():
        counts = count(fn, *args)
        call = lambda fn=fn, args=args: fn(*args)  # noqa: E731 - bind this case's fn and inputs
        if smoke:
            time_us, ev, gr = _host_us(call), None, None
        else:
            gr, ev = _gpu_times_us(torch, call)
            time_us = gr
        results.append(analyze(counts.flops, counts.bytes, time_us, device=spec, dtype="bf16", name=name,
                                events_us=ev, graph_us=gr, calibration=cal if cal is not None else False))
    return results


def render(results: list[Any], spec: Any, cal: Any, env: dict[str, str], stem: str, smoke: bool) -> str:
    """The Markdown result file."""
    mode = "SMOKE RUN (CPU, tiny shapes, host timing: not a measurement)" if smoke else "GPU"
    lines = [f"# Roofline of torch ops: {spec.name}, bf16 ({mode})", "",
             f"- Date: {date.today().isoformat()}",
             f"- Machine: {env['device_name']}, torch {env['torch']}, CUDA/HIP {env['runtime']}, "
             f"Python {env['python']}, {env['platform']}",
             "- Command: `PYTHONPATH=src python3 benchmarks/roofline_report.py`",
             "- Counts: `bench_kernel.count` (the op table's formulas + minimal bytes: inputs read once, outputs "
             "written once). Time: per call from a replayed CUDA graph of back-to-back calls (median "
             "of 10 replays); launch overhead = events time - graph time. Same inputs every call: warm "
             "cache, but every case except the tiny add moves far more than L2.",
             "- Roofs: spec = dense datasheet figures; measured = "
             + (f"calibration of {cal.measured_at} (driver {cal.driver})." if cal is not None
                else "none cached (run benchmarks/calibrate_report.py first)."), "",
             "| Case | GFLOP | MB | Time | Events | FLOP/B | TFLOP/s | TB/s | % spec roof | % measured roof | Bound |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"]
    for r in results:
        d = r.to_dict()
        ev = "-" if r.launch_source != "events-graph" else f"{r.time_us + r.launch_us:.4g} us"
        meas = "-" if r.measured is None else f"{r.measured.pct_of_roof:.1f}%"
        lines.append(f"| {r.name} | {r.flops / 1e9:.4g} | {r.bytes / 1e6:.4g} | {r.time_us:.4g} us | {ev} | "
                     f"{d['arithmetic_intensity']:.4g} | {r.achieved_tflops:.4g} | {r.achieved_tbps:.4g} | "
                     f"{r.pct_of_roof:.1f}% | {meas} | {r.bound} |")
    lines += ["", f"![roofline]({stem}.png)", "", f"Every figure of every case: `{stem}.json`.", ""]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--device", default=None, help="peak-table device (default: this GPU)")
    parser.add_argument("--out", default=None, help="output folder (default: $OUT, else ./out)")
    parser.add_argument("--smoke", action="store_true", help="tiny CPU run that checks the script only")
    args = parser.parse_args(argv)

    import torch

    from bench_kernel.errors import UsageError
    from bench_kernel.hardware import detect_device, get_device, load_calibration
    from bench_kernel.roofline import plot_roofline

    spec = get_device(args.device) if args.device else detect_device()
    cal = load_calibration(spec.name)
    results = run(torch, spec, cal, args.smoke)
    env = {"device_name": "CPU (smoke)" if args.smoke else torch.cuda.get_device_name(),
           "torch": torch.__version__, "runtime": str(torch.version.hip or torch.version.cuda),
           "python": platform.python_version(), "platform": platform.platform(terse=True)}
    out = Path(args.out or os.environ.get("OUT") or "out")
    out.mkdir(parents=True, exist_ok=True)
    stem = f"roofline-{spec.name.lower().replace(' ', '-')}"
    md = render(results, spec, cal, env, stem, args.smoke)
    try:
        for ext in ("png", "svg"):
            plot_roofline(results, spec, "bf16", out / f"{stem}.{ext}", measured=cal)
    except UsageError as e:  # no matplotlib on the GPU machine: keep the measurements anyway
        md += f"\nPlot not written: {e}\n"
        print(f"plot skipped: {e}", file=sys.stderr)
    (out / f"{stem}.md").write_text(md, encoding="utf-8")
    (out / f"{stem}.json").write_text(json.dumps([r.to_dict() for r in results], indent=1), encoding="utf-8")
    print(f"wrote {out / stem}.md, .png, .svg, .json", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
