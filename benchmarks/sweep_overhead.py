"""What a sweep costs beyond the timing it does: per point, on this machine.

Two modes:
  python benchmarks/sweep_overhead.py [--units 24] [-o FILE.md]
      CPU: the same cases timed by a plain ``bench_case`` loop and by ``sweep`` (with its store,
      the baseline check, claims and commits; inline and with 2 host workers). The difference
      per point is what the sweep machinery adds.
  python benchmarks/sweep_overhead.py --db PATH --run ID [--json FILE]
      Any stored run (e.g. the H200 GEMM sweep): per point, the wall time in the worker split
      into the timed loops (sum of the methods' wall_s) and the rest (factory, correctness
      check, warm-up, environment), and the run's wall time beyond its points (store commits,
      scheduling, worker start-up).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

import bench_kernel
from bench_kernel.measure import Case, bench_case
from bench_kernel.orchestrate import run_sweep
from bench_kernel.results import open_store

ROOT = Path(__file__).resolve().parent.parent
FAST = dict(methods=("host",), precision=0.5, max_time_s=0.02)
REPEATS = 3

SPEC = """
import torch
def _case(p):
    n = p["n"]
    return {"fn": torch.add, "make_inputs": lambda: (torch.ones(n), torch.ones(n)), "bytes": 12.0 * n}
def sweep():
    return {"axes": {"n": [2 ** i for i in range(6, 6 + UNITS // 2)]}, "providers": {"a": _case, "b": _case}}
"""


def analyse(db: str, run_ref: str) -> dict:
    """Overhead figures of one stored run (all times in seconds per point unless named)."""
    with open_store(db) as store:
        run = store.run(run_ref)
        points = store.points(run)
    timed = [sum(m.wall_s for m in p.result.measurements.values()) for p in points]
    walls = [p.wall_s or 0.0 for p in points]
    n = len(points)
    return {
        "run": run.id, "name": run.name, "device": run.device, "points": n, "run_wall_s": run.wall_s,
        "workers": sorted({p.worker for p in points if p.worker}),
        "mean_point_wall_s": statistics.fmean(walls) if n else None,
        "mean_timed_loops_s": statistics.fmean(timed) if n else None,
        "mean_in_point_overhead_s": statistics.fmean(w - t for w, t in zip(walls, timed)) if n else None,
        # with workers the points overlap, so the orchestration share is only meaningful inline
        "run_wall_beyond_points_per_point_s": ((run.wall_s or 0.0) - sum(walls)) / n if n else None,
    }


def _measure(units: int) -> dict:
    tmp = Path(tempfile.mkdtemp(prefix="sweep-overhead-"))
    spec_file = tmp / "spec.py"
    spec_file.write_text(SPEC.replace("UNITS", str(units)))
    spec = bench_kernel.load_spec(str(spec_file))
    points = spec.points()

    def plain() -> None:  # the same cases, with the same reference check the sweep adds
        for p in points:
            for name in spec.providers:
                case = Case(**spec.providers[name](p))
                if name != spec.baseline:
                    case = dataclasses.replace(case, reference=spec.providers[spec.baseline](p)["fn"])
                bench_case(case, **FAST)

    # Alternate plain and sweep, REPEATS times each, and keep the fastest of each: the machine
    # is shared, and interference only ever adds time.
    walls: dict[str, list[float]] = {"plain_loop": [], "inline": []}
    for i in range(REPEATS):
        t0 = time.perf_counter()
        plain()
        walls["plain_loop"].append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        res = run_sweep(spec, store=tmp / f"inline{i}.db", **FAST)
        walls["inline"].append(time.perf_counter() - t0)
    out = {"units": units, "repeats": REPEATS, "walls_s": walls,
           "plain_loop_s": min(walls["plain_loop"]), "inline_s": min(walls["inline"]),
           "inline_analysis": analyse(str(tmp / f"inline{REPEATS - 1}.db"), str(res.run.id))}
    t0 = time.perf_counter()
    res = run_sweep(spec, store=tmp / "workers2.db", workers=2, **FAST)
    out["workers2_s"] = time.perf_counter() - t0
    out["workers2_analysis"] = analyse(str(tmp / "workers2.db"), str(res.run.id))
    # The store alone: claim + commit of one point (what each point pays in SQLite), N times.
    r = res.points[0].result
    with open_store(tmp / "store.db") as store:
        run = store.start_run(kind="sweep", name="bench", config={}, env={})
        t0 = time.perf_counter()
        for i in range(200):
            store.claim_point(run.id, "x", {"i": i})
            store.save_result(run.id, dataclasses.replace(r, name="x", params={"i": i}))
        out["store_claim_and_commit_ms"] = (time.perf_counter() - t0) / 200 * 1e3
    out["sample_point_json_bytes"] = len(json.dumps(res.points[0].to_dict()))
    return out


def _markdown(m: dict) -> str:
    u = m["units"]
    inline, workers = m["inline_analysis"], m["workers2_analysis"]
    per = lambda s: f"{s / u * 1e3:.1f} ms"  # noqa: E731
    lines = [
        "# Sweep overhead on the CPU (host method)",
        "",
        f"Date {time.strftime('%Y-%m-%d')}, {platform.platform()}, {os.cpu_count()} cores (shared with other jobs: "
        f"absolute times are noisy, the differences are the point), Python {platform.python_version()}, "
        f"bench-kernel {bench_kernel.__version__}. Made by `python benchmarks/sweep_overhead.py`.",
        "",
        f"{u} points (torch.add, 12 sizes x 2 providers, the second checked against the first), "
        f"`-m host --precision 0.5 --max-time 0.02` so the timed loops are short and the overhead shows.",
        "",
        "| how | wall total | per point |",
        "|---|---:|---:|",
        f"| plain `bench_case` loop (same cases, same reference check) | {m['plain_loop_s']:.2f} s | {per(m['plain_loop_s'])} |",
        f"| `sweep`, inline, with its store | {m['inline_s']:.2f} s | {per(m['inline_s'])} |",
        f"| `sweep --workers 2`, with its store (includes starting 2 workers) | {m['workers2_s']:.2f} s | {per(m['workers2_s'])} |",
        "",
        f"- sweep minus the plain loop (fastest of {m['repeats']} alternating repeats each): "
        f"**{(m['inline_s'] - m['plain_loop_s']) / u * 1e3:.1f} ms per point** "
        f"(factory calls, claim + commit, records; noise of the shared machine included).",
        f"- store alone: claim + commit of one point = {m['store_claim_and_commit_ms']:.2f} ms "
        f"(two transactions in WAL mode; only the result's commit is fsynced); a stored point with its raw samples is "
        f"{m['sample_point_json_bytes']:,} bytes of JSON.",
        f"- inside each point (inline): {inline['mean_point_wall_s'] * 1e3:.1f} ms wall, of which "
        f"{inline['mean_timed_loops_s'] * 1e3:.1f} ms in the timed loops and "
        f"{inline['mean_in_point_overhead_s'] * 1e3:.1f} ms around them (warm-up to a stable time, the "
        f"correctness check, environment capture: bench()'s own work, not the sweep's).",
        f"- run wall beyond its points (inline): {inline['run_wall_beyond_points_per_point_s'] * 1e3:.1f} ms per point.",
        f"- with 2 workers: workers {', '.join(workers['workers'])}; points overlap, so wall per point is "
        f"not additive.",
        "",
        "Raw numbers:",
        "",
        "```json",
        json.dumps(m, indent=2, default=str),
        "```",
        "",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--units", type=int, default=24)
    ap.add_argument("-o", "--output", default=str(ROOT / "benchmarks" / "results" / "sweep-overhead-cpu.md"))
    ap.add_argument("--db")
    ap.add_argument("--run")
    ap.add_argument("--json", dest="json_out")
    args = ap.parse_args(argv)
    if args.db:
        data = analyse(args.db, args.run or "latest")
        text = json.dumps(data, indent=2)
        if args.json_out:
            Path(args.json_out).write_text(text + "\n")
        print(text)
        return 0
    m = _measure(args.units)
    Path(args.output).write_text(_markdown(m))
    print(_markdown(m))
    return 0


if __name__ == "__main__":
    sys.exit(main())
