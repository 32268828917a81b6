"""A/B: trace commands of this checkout against another one, on the same ~1 GB trace.

    PYTHONPATH=src python benchmarks/trace_ab.py --baseline-src ../main/src [--size-mb 1000] [--repeat 3]
        [--commands inventory,timeline] [--out FILE]

Builds the big trace exactly as ``trace_speed.py`` does (copies of a real trace, never committed)
and runs both checkouts' ``inventory --json`` (and one ``--per-step`` each; other commands as
``--commands`` lists them) in alternation, so a busy machine slows both alike; wall and CPU time
and the child's peak RSS come from ``trace_speed.measure``. Used to check that a change to the
loader's hot path keeps its speed.
"""

from __future__ import annotations

import datetime as _dt
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from common import ROOT, machine, trace_parser
from trace_speed import OURS, build, kernel_total, measure, runs_of


def main(argv: list[str] | None = None) -> int:
    ap = trace_parser(__doc__, None)
    ap.add_argument("--baseline-src", type=Path, required=True, help="the other checkout's src/ folder")
    ap.add_argument("--commands", default="inventory", help="comma-separated trace commands (default inventory)")
    args = ap.parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix="bk-trace-ab-"))
    big = work / "big_trace.json"
    t0 = time.perf_counter()
    built = build(args.source, args.size_mb * 10**6, big)
    print(f"built {built['bytes'] / 1e9:.2f} GB, {built['events']:,} events in {time.perf_counter() - t0:.0f} s",
          flush=True)
    sides = {"baseline": args.baseline_src.resolve(), "this checkout": ROOT / "src"}
    runs: dict[tuple[str, str], list[dict]] = {}
    plan = [(c, [c, "--json"], args.repeat) for c in args.commands.split(",")]
    if "inventory" in args.commands.split(","):
        plan.append(("inventory --per-step", ["inventory", "--per-step", "--json"], 1))
    try:
        for what, cmd, n in plan:
            for _ in range(n):
                for side, src in sides.items():
                    env = dict(os.environ, PYTHONPATH=str(src))
                    r = measure([sys.executable, "-c", OURS, cmd[0], str(big), *cmd[1:]], env)
                    r["kernel_us"] = kernel_total(r["out"])
                    runs.setdefault((what, side), []).append(r)
                    print(f"{what} [{side}]: {r['wall_s']:.2f} s, {r['rss_mib']:.0f} MiB, rc {r['rc']}", flush=True)
    finally:
        shutil.rmtree(work)
    lines = [f"A/B on {_dt.date.today().isoformat()}, {machine()}; trace {built['bytes'] / 1e9:.3f} GB, "
             f"{built['events']:,} events; runs alternate between the two checkouts.", "",
             "| command | checkout | runs: wall s | runs: CPU s | runs: load avg | median wall s | peak RSS MiB "
             "| kernel total us |", "|---|---|---|---|---|---:|---:|---:|"]
    for (what, side), rs in runs.items():
        walls = [r["wall_s"] for r in rs]
        k = rs[0]["kernel_us"]
        lines.append(f"| {what} | {side} | {', '.join(f'{w:.2f}' for w in walls)} | {runs_of(rs, 'cpu_s', '.2f')} | "
                     f"{runs_of(rs, 'load', '.1f')} | {statistics.median(walls):.2f} | "
                     f"{max(r['rss_mib'] for r in rs):.0f} | {'' if k is None else f'{k:,.1f}'} |")
    text = "\n".join(lines) + "\n"
    print(text)
    if args.out:
        args.out.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
