"""What a host sweep of code that never imports torch costs as a command, paired with another checkout.

    PYTHONPATH=src python benchmarks/sweep_start_cpu.py --before /tmp/old/src [--pairs 3]

Runs ``bench-kernel sweep`` on a spec of pure-Python and NumPy providers (6 points; the NumPy
provider returns a list, as the Python baseline does, so that an older checkout, which cannot
check NumPy outputs, runs it too) three ways:
one round inline, the host method's default rounds (each round in a fresh worker process), and
``--workers 2`` with one round. Each way runs as ``python -m bench_kernel`` with this checkout's
``src`` (after) and with ``--before`` (another checkout's ``src``), in turn, A B A B, so the
machine's drift falls on both. Prints a Markdown table of wall and CPU seconds (the process tree's,
from ``os.wait4``), the median of the pairs, and every pair's raw numbers.
"""

from __future__ import annotations

import argparse
import datetime
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import ROOT, machine

SPEC = """
import numpy as np

def python(p):
    n = p["n"]
    return {"fn": lambda xs: [x + 1 for x in xs], "make_inputs": lambda: (list(range(n)),)}

def numpy(p):
    n = p["n"]
    return {"fn": lambda a: np.add(a, 1).tolist(), "make_inputs": lambda: (np.arange(n),)}

def sweep():
    return {"axes": {"n": [100, 1000, 10000]}, "providers": {"python": python, "numpy": numpy}}
"""

WAYS = {
    "one round, inline": ["--rounds", "1"],
    "default rounds (fresh processes)": [],
    "--workers 2, one round": ["--workers", "2", "--rounds", "1"],
}


def _once(src: str, spec: Path, extra: list[str], db: Path) -> tuple[float, float]:
    """(wall s, CPU s of the process tree) of one sweep command."""
    db.unlink(missing_ok=True)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = src
    t0 = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "bench_kernel", "sweep", str(spec), "-m", "host",
                             "--db", str(db), *extra], env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)
    err = proc.stderr.read() if proc.stderr else ""
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"sweep_start_cpu: the sweep failed with {src}: {err.strip()[-400:]}")
    return wall, usage.ru_utime + usage.ru_stime


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--before", required=True, help="another checkout's src folder (the baseline)")
    ap.add_argument("--pairs", type=int, default=3)
    args = ap.parse_args()
    after = str(ROOT / "src")
    rows, raw = [], []
    with tempfile.TemporaryDirectory() as tmp:
        spec = Path(tmp) / "spec.py"
        spec.write_text(SPEC)
        for way, extra in WAYS.items():
            pairs = []
            for _ in range(args.pairs):
                a = _once(after, spec, extra, Path(tmp) / "a.db")
                b = _once(args.before, spec, extra, Path(tmp) / "b.db")
                pairs.append((a, b))
            med = [statistics.median(p[i][j] for p in pairs) for i in (0, 1) for j in (0, 1)]
            rows.append(f"| {way} | {med[2]:.2f} s | {med[0]:.2f} s | {med[3]:.2f} s | {med[1]:.2f} s |")
            raw.append(f"- {way}: " + "; ".join(f"after {a[0]:.2f}/{a[1]:.2f}, before {b[0]:.2f}/{b[1]:.2f}"
                                                  for a, b in pairs))
    print(f"{datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC; {machine()}; "
          f"load average {os.getloadavg()[0]:.1f} at the end; median of {args.pairs} pairs\n")
    print("| sweep of 6 points | wall before | wall after | CPU before | CPU after |")
    print("|---|---:|---:|---:|---:|")
    print("\n".join(rows))
    print("\nEach pair (wall s / CPU s):\n")
    print("\n".join(raw))


if __name__ == "__main__":
    main()
