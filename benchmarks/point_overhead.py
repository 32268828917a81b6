"""What one measured point costs beyond its timed loop, on the CPU: this checkout against a commit.

    .venv/bin/python benchmarks/point_overhead.py --before COMMIT [--pairs 3] [-o FILE.md]

24 small points (``torch.add`` at 12 sizes, half of them checked against a reference), the host
method, one round of 0.02 s: the shape of a sweep's points, where what ``measure_case`` does around
its timing (the check, the inputs, the warm-up, the records) shows. Each point's wall time less its
methods' ``wall_s``, median over 4 passes of the 24. ``--before`` runs the same in a fresh process
on ``src`` at COMMIT (``git archive``); before and after alternate, ``--pairs`` times.
"""

from __future__ import annotations

import argparse
import datetime
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from common import ROOT, machine

CHILD = r"""
import time, torch
from bench_kernel.measure import Case, capture_env
from bench_kernel.measure._measure import measure_case
from bench_kernel.options import Options
opts = Options(methods=("host",), precision=0.5, max_time_s=0.02, rounds=1)
env = capture_env(0)
cases = []
for i in range(6, 18):
    make = lambda n=2 ** i: (torch.ones(n), torch.ones(n))
    cases += [Case(fn=torch.add, make_inputs=make, name=f"a{i}"),
              Case(fn=torch.add, make_inputs=make, reference=torch.add, name=f"b{i}")]
for c in cases:
    measure_case(c, opts, env=env)  # first calls: allocator, dispatcher
beyond = []
for _ in range(4):
    for c in cases:
        t0 = time.perf_counter()
        r = measure_case(c, opts, env=env)
        beyond.append(time.perf_counter() - t0 - sum(m.wall_s for m in r.measurements.values()))
beyond.sort()
print(f"{beyond[len(beyond) // 2] * 1e3:.3f} {beyond[len(beyond) // 4] * 1e3:.3f} {beyond[3 * len(beyond) // 4] * 1e3:.3f}")
"""


def _run(src: Path) -> tuple[float, float, float]:
    env = dict(os.environ, PYTHONPATH=str(src))
    out = subprocess.run([sys.executable, "-c", CHILD], env=env, capture_output=True, text=True, check=True)
    med, q1, q3 = (float(x) for x in out.stdout.split())
    return med, q1, q3


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--before", required=True, help="the commit to compare with")
    ap.add_argument("--pairs", type=int, default=3)
    ap.add_argument("-o", "--out", type=Path, help="write the Markdown here (default: print it)")
    args = ap.parse_args()
    head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout.strip()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        archive = subprocess.run(["git", "archive", args.before, "src"], cwd=ROOT, capture_output=True, check=True).stdout
        subprocess.run(["tar", "-x", "-C", tmp], input=archive, check=True)
        for i in range(args.pairs):
            for name, src in (("before", Path(tmp) / "src"), ("after", ROOT / "src")):
                med, q1, q3 = _run(src)
                rows.append(f"| {i + 1} | {name} | {med:.2f} | {q1:.2f}-{q3:.2f} | {os.getloadavg()[0]:.1f} |")
    text = "\n".join([
        f"# What a point costs beyond its timed loop, on the CPU ({datetime.datetime.now(datetime.UTC):%Y-%m-%d %H:%M} UTC)",
        "", f"Machine: {machine()}. Script: `benchmarks/point_overhead.py --before {args.before}`; after is {head} "
        "(plus any uncommitted change). 24 points of `torch.add`, host method, one 0.02 s round, half checked "
        "against a reference; per point, ms: its wall less its methods' `wall_s`, over 4 passes.", "",
        "| pair | code | median ms | quartiles ms | load |", "|---:|---|---:|---|---:|", *rows, ""])
    if args.out:
        args.out.write_text(text, encoding="utf-8")
    else:
        print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
