"""Speed and memory of ``bench-kernel timeline`` on a ~1 GB trace, and on a directory of rank files.

    PYTHONPATH=src python benchmarks/timeline_speed.py [--size-mb 1000] [--repeat 3]
        [--source ../shared/data/traces/h200__llama_eager_generate.json.gz]
        [--out benchmarks/results/trace-speed.md]

Builds the big trace exactly as ``trace_speed.py`` does (copies of a real trace with shifted times and
ids; never committed), then runs in a subprocess, each measured with wall time and peak RSS from GNU
``/usr/bin/time -f %M``. Not ``os.wait4`` on our own child: Linux counts the pages a forked child
shares with its parent before ``exec`` in its ``ru_maxrss``, so a parent holding 600 MB made a 350 MB
command read 618 MB. ``time`` forks from its own small image. For a command that starts worker
processes it reports the largest single process of the tree -- what "memory bounded per process"
promises. Runs:
- ``timeline BIG --json``                       one rank, every host event loaded (launches, syncs);
- ``timeline DIR --json --workers 2``           two ranks of half the size each, read in parallel.
The report is appended to ``--out`` as a "timeline" section (an earlier one is replaced), so the
inventory table written by ``trace_speed.py`` stays. Targets: <= 20 s and <= 1 GB RSS.
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import RESULTS, ROOT, load_average, machine, trace_parser
from trace_speed import OURS, build, runs_of

TIME = "/usr/bin/time"


def measure(cmd: list[str], env: dict) -> dict:
    """Run ``cmd`` under GNU time: wall seconds, peak RSS (MiB), exit code, stdout, stderr's tail."""
    load = load_average()  # the 1-minute load when the run starts: other jobs on the shared machine
    with tempfile.TemporaryDirectory() as tmp:
        rss_file = Path(tmp) / "rss"
        t0 = time.perf_counter()
        p = subprocess.run([TIME, "-o", str(rss_file), "-f", "%M %U %S", *cmd], env=env, capture_output=True, text=True)
        wall = time.perf_counter() - t0
        rss_kib, user, system = map(float, rss_file.read_text().split()[-3:])
    return {"wall_s": wall, "cpu_s": user + system, "load": load, "rss_mib": rss_kib / 1024, "rc": p.returncode,
            "out": p.stdout,
            "err": p.stderr[-400:]}

HEADER = "## timeline"


def _summary(out: str) -> str:
    try:
        d = json.loads(out)
    except json.JSONDecodeError:
        return out.strip().splitlines()[-1][:80] if out.strip() else ""
    if "overall" in d:
        o = d["overall"]
        return f"busy {o['busy_us']:,.1f} us of {o['wall_us']:,.1f} us, {len(d['steps'])} steps"
    return f"{len(d['ranks'])} ranks, straggler {d['straggler']}"


def main(argv: list[str] | None = None) -> int:
    ap = trace_parser(__doc__, RESULTS / "trace-speed.md")
    args = ap.parse_args(argv)
    if not Path(TIME).exists():
        ap.error(f"{TIME} (GNU time) is needed to read each command's own peak RSS")

    work = Path(tempfile.mkdtemp(prefix="bk-timeline-speed-"))
    try:
        big = work / "big_trace.json"
        t0 = time.perf_counter()
        built = build(args.source, args.size_mb * 10**6, big)
        ranks = work / "ranks"
        ranks.mkdir()
        halves = [build(args.source, args.size_mb * 10**6 // 2, ranks / f"trace_rank{r}.json") for r in (0, 1)]
        for r in (0, 1):  # build() writes rank 0 into distributedInfo; the second file is rank 1
            p = ranks / f"trace_rank{r}.json"
            head = p.read_bytes()[:4096].replace(b'"rank": 0', f'"rank": {r}'.encode(), 1)
            with open(p, "r+b") as f:
                f.write(head)
        build_s = time.perf_counter() - t0
        print(f"built {built['bytes'] / 1e9:.2f} GB ({built['events']:,} events) and 2 x "
              f"{halves[0]['bytes'] / 1e9:.2f} GB in {build_s:.0f} s", flush=True)
        env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
        tools = [("bench-kernel timeline (1 rank)", [sys.executable, "-c", OURS, "timeline", str(big), "--json"],
                  args.repeat),
                 ("bench-kernel timeline (2 ranks, --workers 2)",
                  [sys.executable, "-c", OURS, "timeline", str(ranks), "--json", "--workers", "2"], 1)]
        runs: dict[str, list[dict]] = {}
        for name, cmd, n in tools:
            for i in range(n):
                r = measure(cmd, env)
                r["summary"] = _summary(r["out"]) if r["rc"] == 0 else r["err"].strip()[-120:]
                runs.setdefault(name, []).append(r)
                print(f"{name} run {i + 1}: {r['wall_s']:.2f} s, {r['rss_mib']:.0f} MiB, rc {r['rc']}", flush=True)
    finally:
        shutil.rmtree(work)
    section = _report(args, built, halves[0], runs)
    text = args.out.read_text() if args.out.exists() else ""
    if HEADER in text:
        text = text[: text.index(HEADER)].rstrip() + "\n"
    args.out.write_text(text + "\n" + section)
    print(section)
    return 0


def _report(args, built: dict, half: dict, runs: dict[str, list[dict]]) -> str:
    lines = [f"{HEADER} ({_dt.date.today().isoformat()})", "",
             f"- Machine: {machine()}",
             f"- One rank: {built['bytes'] / 1e9:.3f} GB, {built['events']:,} events ({built['copies']} copies of "
             f"`{args.source.name}`); two ranks: 2 x {half['bytes'] / 1e9:.3f} GB. Built as in `trace_speed.py`, "
             f"not committed.",
             "- Command: `PYTHONPATH=src python benchmarks/timeline_speed.py` (peak RSS = the largest single "
             "process, from `/usr/bin/time -f %M`; see the script's docstring for why not `os.wait4`).", "",
             "| command | runs: wall s | runs: CPU s (user+sys) | runs: load avg | runs: peak RSS MiB | median wall s "
             "| max peak RSS MiB | exit | output |", "|---|---|---|---|---|---:|---:|---|---|"]
    for name, rs in runs.items():
        walls, cpu, rss = [r["wall_s"] for r in rs], [r["cpu_s"] for r in rs], [r["rss_mib"] for r in rs]
        lines.append(f"| {name} | {', '.join(f'{w:.2f}' for w in walls)} | {', '.join(f'{c:.2f}' for c in cpu)} | "
                     f"{runs_of(rs, 'load', '.1f')} | "
                     f"{', '.join(f'{m:.0f}' for m in rss)} | {statistics.median(walls):.2f} | {max(rss):.0f} | "
                     f"{','.join(str(r['rc']) for r in rs)} | {rs[0]['summary']} |")
    one = runs["bench-kernel timeline (1 rank)"]
    wall, peak = statistics.median(r["wall_s"] for r in one), max(r["rss_mib"] for r in one)
    lines += ["", f"The 2-core machine is shared with other jobs (load average {os.getloadavg()[0]:.1f} at the end), so "
              "wall times of one command vary; CPU seconds (all processes of the command) vary less. With two "
              "workers the 2-rank run uses both cores, so its wall time is the one most hurt by other jobs.", "",
              "Targets:",
              f"- timeline wall <= 20 s: median {wall:.2f} s -> {'met' if wall <= 20 else 'NOT met'}",
              f"- timeline peak RSS <= 1 GB: max {peak:.0f} MiB -> {'met' if peak <= 1024 else 'NOT met'}"]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(main())
