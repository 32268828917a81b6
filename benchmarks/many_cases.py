"""A target of 10,000 trivial cases through ``bench-kernel run``: wall time, what is not timing, peak memory.

    python benchmarks/many_cases.py [--cases 10000] [--repeat 3] [--src DIR ...] [-o FILE.md]

Each ``--src`` is a ``src`` folder of a bench-kernel checkout (default: this one); with two (``main``'s
and this branch's) the runs alternate, so a loaded shared machine weighs on both alike. Per run:
``run T:cases -m host --precision 0.5 --max-time 0.001 --json -o out.json`` in a fresh process; the
timed loops are the sum of every measurement's ``wall_s`` in the output; "not timing" is the rest
of the wall time, start-up included (a one-case run measures start-up alone); peak RSS is the
process's ``ru_maxrss`` from ``os.wait4``.
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

from common import RESULTS, ROOT, load_average, machine

TARGET = "def cases(n={n}):\n    return [{{'name': f'case_{{i}}', 'fn': (lambda: None)}} for i in range(n)]\n"
ARGS = ["-m", "host", "--precision", "0.5", "--max-time", "0.001", "--json"]


def commit(src: Path) -> str:
    """The short commit of the checkout ``src`` belongs to (``+`` when its tree has changes)."""
    git = ["git", "-C", str(src.parent)]
    head = subprocess.run([*git, "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    dirty = subprocess.run([*git, "status", "--porcelain", "--", "src"], capture_output=True, text=True).stdout.strip()
    return (head or "?") + ("+" if dirty else "")


def one_run(src: Path, target: Path, out: Path) -> dict:
    """One ``bench-kernel run`` in a fresh process, with ``src`` first on the path."""
    env = {**os.environ, "PYTHONPATH": str(src), "BENCH_KERNEL_DB": str(out.with_suffix(".db"))}
    t0 = time.perf_counter()
    p = subprocess.Popen([sys.executable, "-m", "bench_kernel", "run", f"{target}:cases", *ARGS, "-o", str(out)],
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    _, status, usage = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t0
    stderr = p.stderr.read().decode(errors="replace") if p.stderr else ""
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"run failed under {src}: {stderr.strip()[-500:]}")
    results = json.loads(out.read_text())["results"]
    timed = sum(m["wall_s"] or 0.0 for r in results for m in r["measurements"].values())
    return {"wall_s": wall, "timed_s": timed, "cases": len(results), "peak_rss_mib": usage.ru_maxrss / 1024,
            "json_mib": out.stat().st_size / 2**20}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cases", type=int, default=10_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--src", type=Path, action="append", help="a checkout's src folder (repeatable)")
    ap.add_argument("-o", "--out", type=Path, default=RESULTS / "many-cases.md")
    args = ap.parse_args(argv)
    srcs = [p.resolve() for p in (args.src or [ROOT / "src"])]
    runs: dict[str, list[dict]] = {str(s): [] for s in srcs}
    startup: dict[str, list[float]] = {str(s): [] for s in srcs}
    loads = []
    with tempfile.TemporaryDirectory() as tmp:
        many, one = Path(tmp) / "many.py", Path(tmp) / "one.py"
        many.write_text(TARGET.format(n=args.cases))
        one.write_text(TARGET.format(n=1))
        for i in range(args.repeat):
            for s in srcs:
                loads.append(load_average())
                startup[str(s)].append(one_run(s, one, Path(tmp) / f"one{i}.json")["wall_s"])
                runs[str(s)].append(one_run(s, many, Path(tmp) / f"many{i}.json"))
                r = runs[str(s)][-1]
                print(f"{s}: {r['wall_s']:.1f} s, timed {r['timed_s']:.1f} s, peak {r['peak_rss_mib']:.0f} MiB",
                      flush=True)
    rows = []
    for s in srcs:
        rs, start = runs[str(s)], statistics.median(startup[str(s)])
        wall = statistics.median(r["wall_s"] for r in rs)
        rest = statistics.median((r["wall_s"] - r["timed_s"] - start) / r["cases"] * 1e3 for r in rs)
        rows.append((s, wall, statistics.median(r["timed_s"] for r in rs), start, rest,
                     statistics.median(r["peak_rss_mib"] for r in rs), rs[0]["json_mib"]))
    lines = [
        "# A target of many trivial cases through `bench-kernel run`", "",
        f"Date {time.strftime('%Y-%m-%d')}, {machine()}; load average {min(loads):.1f}-{max(loads):.1f} during "
        f"the runs (other jobs share the 2 cores: absolute times are noisy, the runs alternate). Made by "
        f"`python benchmarks/many_cases.py {' '.join(argv if argv is not None else sys.argv[1:])}`.", "",
        f"{args.cases:,} cases of `lambda: None`, `run T:cases {' '.join(ARGS)} -o out.json`, in a fresh process, "
        f"median of {args.repeat} runs. *Timed* is the sum of every measurement's `wall_s` (the sampling the "
        f"options ask for); *start-up* a one-case run's wall time; *not timing, per case* = (wall - timed - "
        f"start-up) / cases: warm-up, the time limit, bookkeeping and writing the output.", "",
        "| source (commit) | wall | timed | start-up | not timing, per case | peak RSS | JSON |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for s, wall, timed, start, rest, rss, js in rows:
        lines.append(f"| `{s}` ({commit(s)}) | {wall:.1f} s | {timed:.1f} s | {start:.1f} s | {rest:.2f} ms | {rss:.0f} MiB "
                     f"| {js:.1f} MiB |")
    lines += ["", "What is left of a trivial case is what the options ask for: the warm-up (until two batches agree "
              "within 5%) and the sampling (`--max-time`); with the defaults a case that never reaches 1% "
              "precision samples for 0.5 s per method, by design. The per-case rest was a thread started per "
              "case for its time limit (one watchdog serves them all now), and the JSON was built twice "
              "(a dumps/loads round trip, one pass now).",
              "", "Raw runs:", "", "```json", json.dumps({"startup_s": startup, "runs": runs}, indent=1), "```", ""]
    args.out.write_text("\n".join(lines))
    print("\n".join(lines[-(len(rows) + 8):]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
