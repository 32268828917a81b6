"""What the stopping rule's bookkeeping costs: N one-sample adds with a check after each.

    PYTHONPATH=src python benchmarks/stopping_rule.py [--before COMMIT] [--sizes 10000 100000] [-o FILE.md]

A method adds samples in batches (up to 200 per add) and checks the rule after every batch; a host
method on a fast callable, or ``--steady`` with a long bound, adds one at a time for up to
``max_samples``. This times that worst case: ``rule.add([x]); rule.is_finished()`` N times, with a
precision no sample set meets (so every check does the full work), on lognormal samples. "after"
is the rule in this checkout (``measure/_stopping.py``); "before" is the same file at ``--before``
(default: the commit before the running order statistics), loaded from git. Each size is timed
``--repeat`` times (the before rule at the largest size once: it is quadratic). The machine's load
average is recorded beside each time: other jobs share it.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from common import RESULTS, ROOT, machine

#: The commit whose rule sorted every sample on each check.
BEFORE = "b1473c1"


def load_before(commit: str):
    """The ``StoppingRule`` class of ``measure/_stopping.py`` at ``commit``."""
    src = subprocess.run(["git", "-C", str(ROOT), "show", f"{commit}:src/bench_kernel/measure/_stopping.py"],
                         check=True, capture_output=True, text=True).stdout
    path = Path(tempfile.mkdtemp(prefix="stopping-before-")) / "_stopping_before.py"
    path.write_text(src)
    spec = importlib.util.spec_from_file_location("_stopping_before", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module.StoppingRule


def time_adds(rule_cls, n: int, seed: int = 0) -> float:
    """Seconds for ``n`` one-sample adds, each followed by ``is_finished()``."""
    values = np.random.default_rng(seed).lognormal(2.0, 0.3, n).tolist()
    rule = rule_cls(precision=1e-12, min_samples=10, max_samples=n, max_time_s=1e9)
    t0 = time.perf_counter()
    for v in values:
        rule.add([v])
        rule.is_finished()
    wall = time.perf_counter() - t0
    assert rule.reason == "max_samples", rule.reason
    return wall


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--before", default=BEFORE, help=f"the commit of the old rule (default {BEFORE})")
    ap.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("-o", "--out", default=str(RESULTS / "stopping-rule-cpu.md"))
    args = ap.parse_args(argv)
    from bench_kernel.measure import StoppingRule

    rules = {"before": load_before(args.before), "after": StoppingRule}
    rows = []
    for n in args.sizes:
        for name, cls in rules.items():
            reps = 1 if (name == "before" and n > min(args.sizes)) else args.repeat
            walls, loads = [], []
            for r in range(reps):
                loads.append(round(os.getloadavg()[0], 2))
                walls.append(time_adds(cls, n, seed=r))
                print(f"{name} n={n}: {walls[-1]:.3f} s (load {loads[-1]})", flush=True)
            rows.append({"rule": name, "n": n, "walls_s": walls, "loads": loads})
    Path(args.out).write_text(render(rows, args.before))
    print(f"wrote {args.out}")
    return 0


def render(rows: list[dict], before: str) -> str:
    date = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    lines = [f"# Stopping rule: N one-sample adds with a check after each ({date})", "",
             f"Machine: {machine()}. Script: `benchmarks/stopping_rule.py`. Samples lognormal; precision 1e-12 "
             f"(never met: every check does its full work). `before`: `measure/_stopping.py` at {before} (an "
             f"immutable `Samples` rebuilt on each add, every sample sorted on each check); `after`: this "
             f"checkout's running order statistics (three two-heap rank trackers: O(log n) per sample).", "",
             "| rule | adds | wall s (each run) | us per add+check | load average |", "|---|---:|---|---:|---|"]
    for r in rows:
        best = min(r["walls_s"])
        lines.append(f"| {r['rule']} | {r['n']:,} | {', '.join(f'{w:.3f}' for w in r['walls_s'])} | "
                     f"{best / r['n'] * 1e6:.2f} | {', '.join(map(str, r['loads']))} |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(main())
