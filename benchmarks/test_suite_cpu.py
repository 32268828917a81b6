"""How long the test suite takes on this machine, quiet and under a load of busy loops.

    .venv/bin/python benchmarks/test_suite_cpu.py --which full --load 8
    .venv/bin/python benchmarks/test_suite_cpu.py --which quick --load 0 --append

``--which full`` is the README's test command (``pytest -q -n 2``), ``quick`` the quick pass
(``-m 'not slow'``). ``--load N`` starts N busy shell loops for the length of the run (and ends
them, by their process ids). Prints one Markdown row: date, load average before and the mean and
peak seen during the run (other work on the machine counts too: it is the load the suite met), wall
and CPU time of the pytest process tree, and pytest's counts. ``--append`` adds the row to
benchmarks/results/test-suite-cpu.md.
"""

from __future__ import annotations

import argparse
import datetime
import os
import re
import signal
import subprocess
import sys
import threading
import time

from common import RESULTS, ROOT, machine

COMMANDS = {"full": ["-m", "pytest", "-q", "-n", "2"], "quick": ["-m", "pytest", "-q", "-n", "2", "-m", "not slow"]}
RESULT_FILE = RESULTS / "test-suite-cpu.md"


def _counts(output: str) -> str:
    lines = [ln for ln in output.splitlines() if re.search(r"\d+ (passed|failed)", ln)]
    return lines[-1].strip("= ") if lines else "no pytest summary line"


def run(which: str, load: int, log: str) -> str:
    before = os.getloadavg()[0]
    loops = [subprocess.Popen(["sh", "-c", "while :; do :; done"]) for _ in range(load)]
    seen: list[float] = []
    done = threading.Event()

    def sample() -> None:
        while not done.wait(5):
            seen.append(os.getloadavg()[0])

    sampler = threading.Thread(target=sample, daemon=True)
    try:
        time.sleep(20 if load else 0)  # let the load average see the loops before the suite starts
        sampler.start()
        t0 = time.perf_counter()
        proc = subprocess.Popen([sys.executable, *COMMANDS[which], "-p", "no:cacheprovider", "-rf"], cwd=ROOT,
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        out = proc.stdout.read() if proc.stdout else ""
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
        wall_s = time.perf_counter() - t0
        with open(log, "w") as fh:
            fh.write(out)
    finally:
        done.set()
        for p in loops:
            p.send_signal(signal.SIGKILL)
            p.wait()
    cpu_s = usage.ru_utime + usage.ru_stime
    mean = sum(seen) / len(seen) if seen else before
    peak = max(seen, default=before)
    date = datetime.datetime.now().strftime("%Y-%m-%d %H:%M")
    return (f"| {date} | {which} | {load} | {before:.1f} / {mean:.1f} / {peak:.1f} | {wall_s:.0f} s "
            f"({wall_s / 60:.1f} min) | {cpu_s:.0f} s | {_counts(out)} (exit {proc.returncode}) |")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--which", choices=sorted(COMMANDS), default="full")
    ap.add_argument("--load", type=int, default=0, help="busy loops to run beside the suite")
    ap.add_argument("--log", default=None, help="where pytest's output goes (default /tmp/test-suite-WHICH-LOAD.log)")
    ap.add_argument("--append", action="store_true", help=f"append the row to {RESULT_FILE.relative_to(ROOT)}")
    args = ap.parse_args(argv)
    row = run(args.which, args.load, args.log or f"/tmp/test-suite-{args.which}-{args.load}.log")
    print(machine())
    print(row)
    if args.append:
        with open(RESULT_FILE, "a") as fh:
            fh.write(row + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
