"""Host timings on a busy CPU: the time with the samples that waited for a CPU left out, against the
time of every sample, on this machine as it is and with busy processes added.

    PYTHONPATH=src python benchmarks/busy_cpu.py [--busy 3] [--repeat 2] [-o FILE.md]

For each load (``quiet``: the machine as other jobs leave it; ``loaded``: ``--busy`` processes
spinning on top), each torch intra-op thread count (1, and torch's own count) and each op (a clone
of 1M fp32, a 64x64 fp32 matmul), ``bench()`` times the op with the host method and the default
rounds, in a fresh process (its own thread pool). Each result holds every sample with its run-queue
wait, so one record gives both numbers:

- before: the median of the rounds' medians over every sample, as bench-kernel computed it before
  samples carried their wait (the same samples; the loop that takes them is unchanged but for the
  two readings around each sample);
- after: the same statistic over the samples that did not wait for a CPU, or the refusal when none
  ran through.

Writes the Markdown (``-o``, default benchmarks/results/busy-cpu.md) and a JSON beside it.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from common import RESULTS, child_env, machine

OPS = {
    "clone 1M fp32": "fn, make = torch.clone, (lambda: (torch.randn(2**20),))",
    "matmul 64x64 fp32": "fn, make = torch.matmul, (lambda: (torch.randn(64, 64), torch.randn(64, 64)))",
}

CHILD = """
import json, sys, torch
import bench_kernel
{op}
r = bench_kernel.bench(fn, make_inputs=make, methods=("host",), threads={threads}, name="op")
print(json.dumps(r.to_dict()))
"""


def _spin() -> None:
    while True:
        pass


def loadavg() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


def before_after(m: dict[str, Any]) -> dict[str, Any]:
    """The statistic over every sample (before) and over those that ran through (after)."""
    from bench_kernel.records import Measurement

    every = Measurement.of("host", tuple(m["samples_us"]), round_sizes=tuple(m["round_sizes"]))
    waits, walls = m["cpu_wait_us"], m["samples_us"]
    return {"before_us": every.median_us, "after_us": m["median_us"], "error": m["error"],
            "samples": len(walls), "left_out": m["disturbed"],
            "wait_share": sum(waits) / sum(walls) if waits else None,
            "cpu_share": sum(m["cpu_us"]) / sum(walls) if m["cpu_us"] else None,
            "min_us": every.min_us, "rounds": len(m["round_sizes"]) or 1}


def measure(op: str, threads: int) -> dict[str, Any]:
    code = CHILD.format(op=OPS[op], threads=threads)
    before, t0 = loadavg(), time.perf_counter()
    r = subprocess.run([sys.executable, "-c", code], env=child_env(), capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit(f"child failed: {r.stderr.strip()[-500:]}")
    result = json.loads(r.stdout.strip().splitlines()[-1])
    host = result["measurements"]["host"]
    return {"op": op, "threads": threads, "load_before": before, "load_after": loadavg(),
            "wall_s": round(time.perf_counter() - t0, 1), **before_after(host),
            "notes": [n["text"] for n in result["notes"] if n["code"] in ("cpu-waited", "method-failed")]}


def _fmt(us: float | None) -> str:
    from bench_kernel.units import format_duration_us

    return "—" if us is None else format_duration_us(us)


def write_md(rows: list[dict[str, Any]], meta: dict[str, Any], out: Path) -> None:
    lines = [f"# Host timings on a busy CPU ({meta['date']})", "",
             f"Machine: {meta['machine']}; torch {meta['torch']} (its own intra-op thread count: "
             f"{meta['torch_threads']}). Script: `benchmarks/busy_cpu.py --busy {meta['busy']} --repeat "
             f"{meta['repeat']}` ({meta['wall_s']:.0f} s in all). Each row is one `bench()` in a fresh process, host "
             "method, default rounds (5) and precision; *before* is the median of the rounds' medians over every "
             "sample (what bench-kernel reported before samples carried their wait), *after* the same over the "
             "samples whose threads did not wait for a CPU beyond 5% of their time (— where none ran through: "
             "the method refuses). The 1-minute load average is read before and after each row; *quiet* is the "
             "machine as other engineers' jobs left it, *loaded* the same with "
             f"{meta['busy']} spinning processes added.", "",
             "| load | op | threads | load avg before / after | before | after | left out | wait / wall | CPU / wall | fastest sample |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        share = f"{r['wait_share']:.0%}" if r["wait_share"] is not None else "—"
        cpu = f"{r['cpu_share']:.0%}" if r["cpu_share"] is not None else "—"
        lines.append(f"| {r['load']} | {r['op']} | {r['threads']} | {r['load_before'][0]} / {r['load_after'][0]} | "
                     f"{_fmt(r['before_us'])} | {_fmt(r['after_us'])} | {r['left_out']} of {r['samples']} | {share} | "
                     f"{cpu} | {_fmt(r['min_us'])} |")
    lines += ["", "## What it says", ""] + meta["summary"] + ["", "## Refusals and notes as printed", ""]
    for r in rows:
        for n in r["notes"]:
            lines.append(f"- {r['load']}, {r['op']}, {r['threads']} thread(s): {n}")
    out.write_text("\n".join(lines) + "\n")


def summarise(rows: list[dict[str, Any]]) -> list[str]:
    out = []
    for op in OPS:
        for threads in sorted({r["threads"] for r in rows}):
            for load in ("quiet", "loaded"):
                rs = [r for r in rows if (r["op"], r["threads"], r["load"]) == (op, threads, load)]
                if not rs:
                    continue
                before = [r["before_us"] for r in rs if r["before_us"] is not None]
                after = [r["after_us"] for r in rs if r["after_us"] is not None]
                refused = sum(1 for r in rs if r["after_us"] is None)
                out.append(f"- {op}, {threads} thread(s), {load}: before {', '.join(_fmt(x) for x in before)}; "
                           f"after {', '.join(_fmt(x) for x in after) or 'none'}"
                           + (f"; refused {refused} of {len(rs)}" if refused else "")
                           + (f" (median wait {statistics.median(r['wait_share'] for r in rs):.0%} of the wall)"
                              if all(r["wait_share"] is not None for r in rs) else ""))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--busy", type=int, default=3, help="spinning processes added for the loaded rows")
    ap.add_argument("--repeat", type=int, default=2, help="runs of each (load, op, threads)")
    ap.add_argument("-o", "--out", type=Path, default=RESULTS / "busy-cpu.md")
    args = ap.parse_args(argv)
    import torch

    t0 = time.perf_counter()
    counts = sorted({1, torch.get_num_threads()})
    rows: list[dict[str, Any]] = []
    for load in ("quiet", "loaded"):
        hogs = []
        if load == "loaded":
            hogs = [multiprocessing.Process(target=_spin, daemon=True) for _ in range(args.busy)]
            for h in hogs:
                h.start()
            time.sleep(5)  # the load average starts to see them
        try:
            for _ in range(args.repeat):
                for op in OPS:
                    for threads in counts:
                        rows.append({"load": load, **measure(op, threads)})
                        print(rows[-1]["load"], op, threads, rows[-1]["before_us"], rows[-1]["after_us"], file=sys.stderr)
        finally:
            for h in hogs:
                h.terminate()
                h.join()
    meta = {"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "machine": machine(),
            "torch": torch.__version__, "torch_threads": torch.get_num_threads(), "busy": args.busy,
            "repeat": args.repeat, "wall_s": time.perf_counter() - t0}
    meta["summary"] = summarise(rows)
    write_md(rows, meta, args.out)
    args.out.with_suffix(".json").write_text(json.dumps({"meta": meta, "rows": rows}, indent=1) + "\n")
    print(f"wrote {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
