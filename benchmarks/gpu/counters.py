"""Hardware counters on an H200: the model's bytes and FLOPs against what ncu counts, on the
hierarchical roofline, and what the counting costs.

Run on a GPU with ncu, from the repo root (about 3-4 minutes; each case is timed, then counted in a
child process under ncu):

    OUT=out PYTHONPATH=src python3 benchmarks/gpu/counters.py

Writes ``$OUT/counters-h200.md`` (ready to become ``benchmarks/results/counters-h200.md``),
``$OUT/counters-h200.json`` (every raw number, rewritten after each case: a failing case loses only
itself), and the hierarchical roofline as ``$OUT/counters-h200.png`` and ``.svg``.

Cases (``benchmarks/gpu/counters_cases.py:suite``): tiny add, 4 MB and 256 MB ``mul_``, GEMV,
8192^3 bf16 GEMM, causal SDPA, RMSNorm; none states its work, so bench-kernel's model counts it.
The L2 ceiling is the project's committed H200 calibration (``benchmarks/results/calibrate-h200.json``,
11.5 TB/s L2 read, an upper estimate): NVIDIA publishes no L2 bandwidth.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import platform
import sys
import tempfile
import time
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "src"))

import bench_kernel  # noqa: E402
from bench_kernel.hardware import read_calibration, save_calibration  # noqa: E402

METHODS = ("graph", "events", "kernel")
#: The target for one collection of a case of <= 10 kernels on the H200.
TARGET_S = 10.0


def _use_committed_calibration() -> str:
    """Cache the project's H200 calibration in a private folder, so the measured L2 ceiling is there."""
    runs = json.loads((ROOT / "benchmarks" / "results" / "calibrate-h200.json").read_text())
    cache = tempfile.mkdtemp(prefix="bk-counters-cal-")
    os.environ["BENCH_KERNEL_CACHE_DIR"] = cache
    cal = read_calibration(json.dumps(runs[0]), origin="calibrate-h200.json")
    save_calibration(cal, Path(cache))
    return f"{cal.measured_at} (L2 {cal.l2_tbps:.2f} TB/s, DRAM {cal.dram_tbps:.2f} TB/s)"


def _record(r) -> dict:
    c, m = r.counters, r.measured_roofline
    out = {"name": r.name, "params": r.params, "time_us": r.time_us, "method": r.primary_method,
           "medians_us": {k: r.median_us(k) for k in r.measurements}, "model_flops": r.flops,
           "model_bytes": r.bytes, "kernels": [k.to_dict() for k in r.kernels], "notes": [n.text for n in r.notes],
           "counters": c.to_dict() if c else None, "measured_roofline": m.to_dict() if m else None,
           "roofline": r.roofline.to_dict() if r.roofline else None}
    return out


def _tool_line(results) -> str:
    for r in results:
        if r.counters is not None and r.counters.ok:
            c = r.counters
            return f"{c.tool} {c.tool_version} on {c.chip}, command: `{' '.join(c.command[:14])} ... <child>`"
    return "no case was counted"


def _markdown(results, failures, env, calibration, started) -> str:
    from bench_kernel.report import counted, counter_kernels_table, counters_table, to_markdown

    triples = counted(results)
    lines = [f"# Hardware counters on an {env.get('device', 'unknown GPU')}", "",
             f"- Date: {started}; device {env.get('device')}, driver {env.get('driver')}, torch {env.get('torch')}, "
             f"triton {env.get('triton')}, Python {platform.python_version()}",
             f"- Counter tool: {_tool_line(results)}",
             f"- L2 ceiling: the committed calibration of this project's H200, {calibration}",
             "- Script: `OUT=out PYTHONPATH=src python3 benchmarks/gpu/counters.py`; cases: "
             "`benchmarks/gpu/counters_cases.py:suite` (no case states its work: the model counts it)",
             "- Counts from ncu with `--cache-control all --clock-control none`, one call inside an NVTX range after "
             "3 warm-up calls; times from bench-kernel's methods (graph, else kernel).", ""]
    if triples:
        lines += [to_markdown(counters_table(triples)), "", to_markdown(counter_kernels_table(triples)), ""]
    lines += ["## What counting costs", "",
              "| case | kernels | ncu passes | collection wall time (s) | within 10 s |", "|---|---|---|---|---|"]
    for r in results:
        c = r.counters
        if c is None or not c.ok:
            continue
        passes = max((k.passes or 0) for k in c.kernels)
        lines.append(f"| {r.name} | {len(c.kernels)} | {passes:g} | {c.wall_s:.1f} | "
                     f"{'yes' if c.wall_s <= TARGET_S else 'no'} |")
    if failures:
        lines += ["", "## Cases that failed", ""] + [f"- {name}: {why}" for name, why in failures]
    return "\n".join(lines) + "\n"


def main() -> int:
    out = Path(os.environ.get("OUT", "out"))
    out.mkdir(parents=True, exist_ok=True)
    started = dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")
    calibration = _use_committed_calibration()
    cases = bench_kernel.load_target(f"{ROOT}/benchmarks/gpu/counters_cases.py:suite")
    results, failures, raw = [], [], {"started": started, "calibration": calibration, "cases": []}
    for case in cases:
        t0 = time.perf_counter()
        try:
            r = bench_kernel.bench(case, counters=True, methods=METHODS)
            results.append(r)
            raw["cases"].append({**_record(r), "case_wall_s": time.perf_counter() - t0})
            print(f"{case.label}: {r.time_us:.2f} us; counters "
                  f"{'ok' if r.counters.ok else r.counters.error} in {r.counters.wall_s or 0:.1f} s", flush=True)
        except Exception as e:  # noqa: BLE001 - one failing case must not lose the others
            failures.append((case.label, f"{type(e).__name__}: {e}"))
            raw["cases"].append({"name": case.label, "error": traceback.format_exc()})
            print(f"{case.label}: FAILED {type(e).__name__}: {e}", flush=True)
        (out / "counters-h200.json").write_text(json.dumps(raw, indent=1, default=str))
    env = results[0].env if results else {}
    raw["env"] = env
    (out / "counters-h200.json").write_text(json.dumps(raw, indent=1, default=str))
    try:
        (out / "counters-h200.md").write_text(_markdown(results, failures, env, calibration, started))
    except Exception as e:  # noqa: BLE001 - the JSON above already holds every number
        print(f"markdown failed: {type(e).__name__}: {e}")
    try:
        from bench_kernel.orchestrate import plot_results

        for suffix in (".png", ".svg"):
            plot_results(results, str(out / f"counters-h200{suffix}"))
    except Exception as e:  # noqa: BLE001
        print(f"plot failed: {type(e).__name__}: {e}")
    print("\nsummary (case: DRAM counted/model, FLOP counted/model, collection s):")
    for r in results:
        m = r.measured_roofline
        ratios = {c.quantity: c.ratio for c in m.checks} if m else {}
        fmt = lambda v: f"{v:.3f}" if v is not None else "-"  # noqa: E731
        print(f"  {r.name}: bytes {fmt(ratios.get('bytes'))}, flops {fmt(ratios.get('flops'))}, "
              f"{(r.counters.wall_s or 0) if r.counters else 0:.1f} s")
    print(f"{len(results)} counted, {len(failures)} failed; files in {out}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
