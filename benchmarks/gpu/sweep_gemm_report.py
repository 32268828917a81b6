"""Write the GEMM sweep results (and the --gpus all run with --multi) from the results database.

    python benchmarks/gpu/sweep_gemm_report.py --db DB --first 1 --second 2 --slow 3 \
        [--multi 4] [--exit same=0 strict=0 slow=1 reverse=0 multi=0] --out DIR

Writes DIR/sweep-gemm.md (the sweep table and the fastest provider per point of the first run,
the wall time of every run, ``compare`` first->second (must be "same", or "(clock)" where the
lower SM clock explains a difference; ``strict`` is its exit with --strict-clocks), second->slow (must
catch the slowed provider) and back, the sweep's own overhead, and with --multi the --gpus run:
which GPU ran each point, its compare against the first run and the wall-time speed-up) and
DIR/sweep-gemm.json (every figure above, raw). ``benchmarks/gpu/sweep_gemm.sh`` runs it.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

from sweep_overhead import analyse  # noqa: E402

from bench_kernel.report import best_table, comparison_table, sweep_table, to_markdown  # noqa: E402
from bench_kernel.results import best_per_point, compare_points, open_store  # noqa: E402


def _compare(store, a: int, b: int):
    return compare_points(store.points(a), store.points(b), a_label=f"run {a}", b_label=f"run {b}")


def build(db: str, first: int, second: int, slow: int, multi: int | None, exits: dict[str, str]) -> tuple[str, dict]:
    with open_store(db) as store:
        runs = {i: store.run(i) for i in (first, second, slow, multi) if i is not None}
        points = {i: store.points(i) for i in runs}
        comparisons = {"same": _compare(store, first, second), "slow": _compare(store, second, slow),
                       "reverse": _compare(store, slow, second)}
        if multi is not None:
            comparisons["multi"] = _compare(store, first, multi)
    r1 = runs[first]
    env = r1.env
    overhead = analyse(db, str(first))
    lines = [f"# GEMM sweep on {env.get('device')}: torch.matmul vs a Triton matmul with three tile configs", "",
             f"Date {r1.created_at[:10]}; {env.get('device')}, driver {env.get('driver')}, CUDA {env.get('cuda')}, "
             f"torch {env.get('torch')}, triton {env.get('triton')}; bench-kernel commit {env.get('git_commit')}. "
             f"Made by `bash benchmarks/gpu/sweep_gemm.sh` (command of run {first}: "
             f"`{' '.join(r1.command)}`).", ""]
    lines += [to_markdown(sweep_table(r1, points[first], best_per_point(points[first]))), ""]
    lines += [to_markdown(best_table(r1, best_per_point(points[first]), points[first])), ""]
    lines += ["## Runs", "", "| run | what | points | wall s |", "|---:|---|---:|---:|"]
    what = {first: "the sweep", second: "the same sweep again", slow: "sweep_gemm_slowed.py: torch with a spin of 10% of each call after it",
            multi: "--gpus all"}
    for i, r in runs.items():
        lines.append(f"| {i} | {what[i]} | {r.n_points}/{r.total_points} | {r.wall_s:.1f} |")
    lines.append("")
    titles = {"same": f"Run {first} -> run {second} (identical: must be 'same', or marked '(clock)' where the "
                      f"lower SM clock explains it, exit 0)",
              "slow": f"Run {second} -> run {slow} (torch slowed by ~10%: must say slower, exit 1)",
              "reverse": f"Run {slow} -> run {second} (the way back: faster, exit 0)",
              "multi": f"Run {first} (one GPU) -> run {multi} (--gpus all): must be all 'same'"}
    for key, rc in comparisons.items():
        code = exits.get(key)
        lines += [f"## {titles[key]}", "", f"`bench-kernel compare` exit status: {code}" if code is not None else "",
                  "", to_markdown(comparison_table(rc)), ""]
        if key == "same" and exits.get("strict") is not None:
            lines += [f"With `--strict-clocks` (a clock-limited slowdown counts): exit status {exits['strict']}; "
                      f"{len(rc.clock_limited)} point(s) marked (clock).", ""]
    lines += ["## The sweep's own overhead", "",
              f"Per point of run {first}: {overhead['mean_point_wall_s']:.3f} s wall in the worker, of which "
              f"{overhead['mean_timed_loops_s']:.3f} s in the timed loops and "
              f"{overhead['mean_in_point_overhead_s']:.3f} s around them (warm-up, correctness check against "
              f"the baseline, Triton compilation on first use, environment); "
              f"{overhead['run_wall_beyond_points_per_point_s']:.3f} s per point beyond the points "
              f"(store commits, scheduling).", ""]
    data = {"runs": {i: r.to_dict() for i, r in runs.items()}, "overhead": overhead, "exit_status": exits,
            "compare": {k: rc.output().to_dict() for k, rc in comparisons.items()},
            "best": [b.to_dict() for b in best_per_point(points[first])]}
    if multi is not None:
        rm = runs[multi]
        by_gpu: dict[str, list[str]] = {}
        for p in points[multi]:
            by_gpu.setdefault(p.worker or "?", []).append(p.label)
        speedup = r1.wall_s / rm.wall_s if rm.wall_s else None
        lines += ["## --gpus all", "",
                  f"Wall time: one GPU {r1.wall_s:.1f} s, --gpus all {rm.wall_s:.1f} s: speed-up "
                  f"{speedup:.2f}x on {len(by_gpu)} GPUs (target >= 1.8x on 2).", ""]
        lines += [f"- {gpu}: {len(labels)} points: {', '.join(labels)}" for gpu, labels in sorted(by_gpu.items())]
        lines.append("")
        data["multi"] = {"wall_speedup": speedup, "points_by_gpu": by_gpu}
    return "\n".join(lines), data


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--db", required=True)
    ap.add_argument("--first", type=int, default=1)
    ap.add_argument("--second", type=int, default=2)
    ap.add_argument("--slow", type=int, default=3)
    ap.add_argument("--multi", type=int, default=None)
    ap.add_argument("--exit", nargs="*", default=[], help="compare exit statuses as key=code")
    ap.add_argument("--out", required=True)
    args = ap.parse_args(argv)
    exits = dict(e.split("=", 1) for e in args.exit)
    text, data = build(args.db, args.first, args.second, args.slow, args.multi, exits)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "sweep-gemm.md").write_text(text)
    (out / "sweep-gemm.json").write_text(json.dumps(data, indent=1, default=str))
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
