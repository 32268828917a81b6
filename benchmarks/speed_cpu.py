"""What a measurement costs on the CPU beyond the timing it asked for: this checkout against another.

    PYTHONPATH=src python benchmarks/speed_cpu.py [--before-src PATH/src] [--repeat 3] [-o FILE.md]

For each checkout (``after``: this one; ``before``: ``--before-src``, e.g. a ``git worktree`` of an
older commit), each in fresh processes:
  1. ``bench-kernel run`` on the built-in suite (6 small CPU cases, host method), ``--repeat`` times:
     the process's wall, and per case the result's wall beyond the time its method sampled (the
     measurements' ``wall_s``). Target: <= 0.3 s per case beyond the timing.
  2. ``bench()`` ten times in a loop in one process (a 4096-element add): each call's wall and its
     timing.
The machine's load average is recorded with each: other jobs share it. Writes the Markdown (``-o``,
default benchmarks/results/speed-cpu.md) and a JSON beside it.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import RESULTS, ROOT, machine

LOOP = r"""
import json, sys, time
import torch
import bench_kernel
x = (torch.randn(4096), torch.randn(4096))
out = []
for _ in range(10):
    t0 = time.perf_counter()
    r = bench_kernel.bench(torch.add, make_inputs=lambda: x)
    wall = time.perf_counter() - t0
    out.append({"wall_s": wall, "timing_s": sum(m.wall_s for m in r.measurements.values()),
                "rounds": {k: m.rounds for k, m in r.measurements.items()}})
print(json.dumps(out))
"""


def _env(src: str) -> dict[str, str]:
    rest = os.environ.get("PYTHONPATH")
    return {**os.environ, "PYTHONPATH": src + (os.pathsep + rest if rest else ""), "CUDA_VISIBLE_DEVICES": ""}


def run_suite(src: str) -> dict:
    out = Path(tempfile.mkdtemp(prefix="speed-cpu-")) / "run.json"
    load = os.getloadavg()[0]
    t0 = time.perf_counter()
    p = subprocess.run([sys.executable, "-m", "bench_kernel", "run", "--json", "-o", str(out)], env=_env(src),
                       capture_output=True, text=True, timeout=300)
    wall = time.perf_counter() - t0
    if p.returncode != 0:
        raise SystemExit(f"bench-kernel run failed ({p.returncode}): {p.stderr[-500:]}")
    cases = []
    for r in json.loads(out.read_text())["results"]:
        timing = sum(m["wall_s"] for m in r["measurements"].values())
        cases.append({"name": r["name"], "wall_s": r.get("wall_s"), "timing_s": round(timing, 4),
                      "beyond_s": round(r["wall_s"] - timing, 4) if r.get("wall_s") else None,
                      "rounds": {k: m.get("rounds") for k, m in r["measurements"].items()}})
    return {"wall_s": round(wall, 2), "load": round(load, 2), "cases": cases}


def run_loop(src: str) -> dict:
    load = os.getloadavg()[0]
    p = subprocess.run([sys.executable, "-c", LOOP], env=_env(src), capture_output=True, text=True, timeout=300)
    if p.returncode != 0:
        raise SystemExit(f"the bench() loop failed: {p.stderr[-500:]}")
    return {"load": round(load, 2), "calls": json.loads(p.stdout.strip().splitlines()[-1])}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--before-src", default=None, help="the src/ folder of the checkout to compare with")
    ap.add_argument("--before-name", default="b1473c1", help="what --before-src is, for the text")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("-o", "--out", default=str(RESULTS / "speed-cpu.md"))
    args = ap.parse_args(argv)
    sources = {"after": str(ROOT / "src")}
    if args.before_src:
        sources = {"before": args.before_src, **sources}
    data: dict = {"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "machine": machine(), "runs": {},
                  "before": args.before_name if args.before_src else None}
    for _ in range(args.repeat):  # alternating, so a change in the machine's load reaches both
        for name, src in sources.items():
            data["runs"].setdefault(name, {"suite": [], "loop": []})
            data["runs"][name]["suite"].append(run_suite(src))
            print(name, "suite", data["runs"][name]["suite"][-1]["wall_s"], flush=True)
    for name, src in sources.items():
        data["runs"][name]["loop"].append(run_loop(src))
        print(name, "loop", [round(c["wall_s"], 3) for c in data["runs"][name]["loop"][-1]["calls"]], flush=True)
    out = Path(args.out)
    out.with_suffix(".json").write_text(json.dumps(data, indent=1))
    out.write_text(render(data))
    print(f"wrote {out}")
    return 0


def render(d: dict) -> str:
    med = statistics.median
    L = [f"# What a measurement costs on the CPU ({d['date']})", "",
         f"Machine: {d['machine']}; shared with other jobs (load averages below). Script: "
         f"`benchmarks/speed_cpu.py`; every number in the JSON beside this file. `before` is {d.get('before')} "
         f"(the code before this work), `after` this checkout. Target: <= 0.3 s per case beyond the timing.", "",
         "## `bench-kernel run` (built-in suite, 6 CPU cases, host method), fresh process each", "",
         "| code | process wall s (each run) | beyond the timing, s per case (median; max) | timing s per case (median) | load |",
         "|---|---|---|---|---|"]
    for name, r in d["runs"].items():
        beyond = [c["beyond_s"] for s in r["suite"] for c in s["cases"] if c["beyond_s"] is not None]
        timing = [c["timing_s"] for s in r["suite"] for c in s["cases"]]
        b = f"{med(beyond):.3f}; {max(beyond):.3f}" if beyond else "not recorded (no per-result wall_s)"
        L.append(f"| {name} | {', '.join(str(s['wall_s']) for s in r['suite'])} | {b} | {med(timing):.3f} | "
                 f"{', '.join(str(s['load']) for s in r['suite'])} |")
    L += [""]
    L += ["## `bench()` ten times in a loop (4096-element add, one process)", "",
          "| code | wall s per call, in order | timing s per call (median) | load |", "|---|---|---|---|"]
    for name, r in d["runs"].items():
        for lp in r["loop"]:
            walls = ", ".join(f"{c['wall_s']:.3f}" for c in lp["calls"])
            L.append(f"| {name} | {walls} | "
                     f"{med(c['timing_s'] for c in lp['calls']):.3f} | {lp['load']} |")
    return "\n".join(L) + "\n"


if __name__ == "__main__":
    sys.exit(main())
