"""Calibrate this GPU a few times and write the result file: measured ceilings next to the spec.

Run on the GPU machine, from the repository root:

    PYTHONPATH=src python3 benchmarks/calibrate_report.py [--repeats 3] [--device NAME]

Writes ``$OUT/calibrate-<device>.md`` (the committed form, e.g. benchmarks/results/calibrate-h200.md)
and ``$OUT/calibrate-<device>.json`` (every run's record, per-repetition samples included);
``$OUT`` defaults to ./out. The last run also updates the user's calibration cache, so a following
``bench-kernel roofline`` / ``benchmarks/roofline_report.py`` uses it as the measured roof.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
from datetime import date
from pathlib import Path
from typing import Any


def _out_dir(arg: str | None) -> Path:
    out = Path(arg or os.environ.get("OUT") or "out")
    out.mkdir(parents=True, exist_ok=True)
    return out


def _figures(cal: Any) -> dict[str, float | None]:
    figs: dict[str, float | None] = {"dram_tbps": cal.dram_tbps, "l2_tbps": cal.l2_tbps}
    figs.update({f"matmul_{dt}_tflops": v for dt, v in cal.matmul_tflops.items()})
    figs.update({"launch_events_us": cal.launch_events_us, "launch_graph_node_us": cal.launch_graph_node_us})
    return figs


_LABELS = {"dram_tbps": "DRAM copy, read+write counted (TB/s)", "l2_tbps": "L2 read, working set = L2/4 (TB/s)",
           "launch_events_us": "launch: empty kernel between events (us)",
           "launch_graph_node_us": "launch: per node of a replayed CUDA graph (us)"}


def _spec_for(key: str, spec: Any) -> float | None:
    if key == "dram_tbps":
        return spec.memory_tbps
    if key.startswith("matmul_"):
        return spec.peak_tflops.get(key.split("_")[1])
    return None


# What was expected on an H200 before measuring (roughly): copy TB/s and the bf16 GEMM TFLOP/s range.
_EXPECTED = {"H200": {"dram_tbps": (4.0, 4.6), "matmul_bf16_tflops": (700.0, 800.0)}}


def _reading(runs: list[dict[str, float | None]], spec: Any) -> list[str]:
    """Factual comparisons, then context to check (stated as such, not as findings)."""
    out = []
    for key, label in (("dram_tbps", "DRAM copy"), ("matmul_bf16_tflops", "bf16 GEMM")):
        vals = [r[key] for r in runs if r.get(key) is not None]
        ref = _spec_for(key, spec)
        if not vals or not ref:
            continue
        med = statistics.median(vals)
        line = f"- {label}: {med:.4g} = {100 * med / ref:.1f}% of the {ref:g} spec figure"
        lo_hi = _EXPECTED.get(spec.name, {}).get(key)
        if lo_hi:
            inside = lo_hi[0] <= med <= lo_hi[1]
            line += f"; expected {lo_hi[0]:g}-{lo_hi[1]:g}: {'inside' if inside else 'OUTSIDE'} that range"
        out.append(line + ".")
    out += ["", "Context to check, not measured here: HBM copies usually sustain 85-93% of the HBM "
            "figure (refresh, read/write turnaround); Hopper's dense tensor peak assumes 1.83 GHz on "
            "all SMs, and a 700 W bf16 GEMM usually runs power-limited below it (watch "
            "`nvidia-smi -q -d CLOCK,POWER` during the GEMM to confirm)."]
    return out


def render(cals: list[Any], spec: Any, env: dict[str, str]) -> str:
    """The Markdown result file for the runs ``cals`` of one device."""
    runs = [_figures(c) for c in cals]
    keys = list(runs[0])
    lines = [f"# Calibration: {spec.name} ({cals[0].reported_name})", "",
             f"- Date: {date.today().isoformat()} (runs at {', '.join(c.measured_at for c in cals)})",
             f"- Machine: {cals[0].reported_name}, driver {cals[0].driver}, torch {env['torch']}, "
             f"CUDA/HIP {env['runtime']}, Python {env['python']}, {env['platform']}",
             f"- Command: `PYTHONPATH=src python3 benchmarks/calibrate_report.py --repeats {len(cals)}`",
             "- Method: medians of per-repetition CUDA-event timings after a warm-up, random data. "
             "DRAM: `dst.copy_(src)` of float32, 16x L2 (>= 1 GiB), read + write bytes counted. "
             "L2: one sum over rows of a stride-0 view of a buffer of L2/4 (reads only; SM-local L1 "
             "hits possible, so an upper estimate). GEMM: 8192^3, `torch.mm` (tf32: fp32 with "
             "matmul precision 'high'), fp8 `torch._scaled_mm` e4m3 with fast accumulation, "
             "200 ms warm-up. Launch: event/empty-kernel/event behind a backlog kernel; a CUDA "
             "graph of 500 empty kernels, per node.",
             "- Spec: the dense figures of `bench_kernel/hardware/peaks.json` (`bench-kernel devices "
             f"{spec.name}` lists their sources).", "",
             f"## Measured vs spec (median of {len(cals)} runs, [min - max])", "",
             "| Quantity | Measured | Spec (dense) | % of spec |", "|---|---:|---:|---:|"]
    for key in keys:
        vals = [r[key] for r in runs if r.get(key) is not None]
        if not vals:
            continue
        med = statistics.median(vals)
        ref = _spec_for(key, spec)
        label = _LABELS.get(key) or f"{key.split('_')[1]} GEMM 8192^3 (TFLOP/s)"
        pct = f"{100 * med / ref:.1f}%" if ref else "-"
        lines.append(f"| {label} | {med:.4g} [{min(vals):.4g} - {max(vals):.4g}] | "
                     f"{'-' if ref is None else f'{ref:g}'} | {pct} |")
    notes = sorted({n for c in cals for n in c.notes if not n.startswith("cached at")})
    if notes:
        lines += ["", "Notes from the runs:", *[f"- {n}" for n in notes]]
    lines += ["", "## Raw numbers (every run)", "",
              "| Run | " + " | ".join(keys) + " |", "|---|" + "---:|" * len(keys)]
    for i, r in enumerate(runs, 1):
        lines.append(f"| {i} | " + " | ".join("-" if r.get(k) is None else f"{r[k]:.6g}" for k in keys) + " |")
    lines += ["", f"Per-repetition samples: `calibrate-{spec.name.lower().replace(' ', '-')}.json` "
              "(the `raw` field of each run).", "", "## Reading it", "", *_reading(runs, spec), ""]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=3, help="calibrations to run (default 3)")
    parser.add_argument("--device", default=None, help="peak-table device (default: this GPU)")
    parser.add_argument("--out", default=None, help="output folder (default: $OUT, else ./out)")
    args = parser.parse_args(argv)

    import torch

    from bench_kernel.hardware import calibrate, get_device

    cals = [calibrate(args.device, save=(i == args.repeats - 1)) for i in range(args.repeats)]
    spec = get_device(cals[0].device)
    env = {"torch": torch.__version__, "runtime": str(torch.version.hip or torch.version.cuda),
           "python": platform.python_version(), "platform": platform.platform(terse=True)}
    out = _out_dir(args.out)
    stem = f"calibrate-{spec.name.lower().replace(' ', '-')}"
    (out / f"{stem}.md").write_text(render(cals, spec, env), encoding="utf-8")
    (out / f"{stem}.json").write_text(json.dumps([c.to_dict() for c in cals], indent=1), encoding="utf-8")
    print(f"wrote {out / stem}.md and .json", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
