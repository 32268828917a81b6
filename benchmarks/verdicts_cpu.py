"""Are verdicts on identical re-runs noise? The CPU half of issue 20's targets, on this machine.

    python benchmarks/verdicts_cpu.py [--pairs 10] [--rounds K] [-o benchmarks/results/verdicts-cpu.md]

1. ``pairs + 1`` identical host-method sweeps of ``benchmarks/verdicts_rmsnorm.py`` (3 token counts
   x 2 providers), each ``bench-kernel sweep`` in a fresh process with the default rounds (or
   ``--rounds``), one results database; consecutive runs make ``pairs`` pairs, compared with
   ``compare_points`` (what ``bench-kernel compare`` runs). Every ``slower``/``faster`` is false.
2. One more sweep with ``VERDICTS_SLOW=manual:1`` (the manual provider runs its kernel twice: 2x),
   compared with the last identical one: ``manual`` must be ``slower`` at every point.
3. The rules the tool used before rounds, on the same data, for contrast: a percentile bootstrap of
   the ratio of medians on round 1 of each run, 4% threshold (the pre-issue-20 ``compare``).
4. Wall time against ``--rounds`` (1, 2, and 10 on top of the default), and a one-round pair judged
   with the noise of the store's history (``store_history``).
The machine's load average is recorded before and after every sweep: other engineers share it.
Writes the Markdown (``-o``) and a JSON beside it with every number.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
SPEC = str(ROOT / "benchmarks" / "verdicts_rmsnorm.py")


def loadavg() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


def sweep(db: str, rounds: int | None, slow: str | None = None) -> dict[str, Any]:
    """One sweep in a fresh process; its run id, wall time and the load around it."""
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    env.pop("VERDICTS_SLOW", None)
    if slow:
        env["VERDICTS_SLOW"] = slow
    cmd = [sys.executable, "-m", "bench_kernel", "sweep", SPEC, "--db", db, "--json", "-o", os.devnull]
    cmd += ["--rounds", str(rounds)] if rounds else []
    before, t0 = loadavg(), time.perf_counter()
    r = subprocess.run(cmd, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    if r.returncode != 0:
        raise SystemExit(f"sweep failed ({r.returncode}): {r.stderr.strip().splitlines()[-1:]}")
    from bench_kernel.results import open_store

    with open_store(db) as store:
        run = store.run("latest")
    return {"run": run.id, "wall_s": round(wall, 1), "load_before": before, "load_after": loadavg(),
            "rounds": run.config.get("rounds"), "slow": slow}


def verdicts(db: str, a: int, b: int, history: bool = False) -> list[dict[str, Any]]:
    """compare_points of run b against run a: one row per point."""
    from bench_kernel.results import PointSet, compare_points, open_store, store_history

    with open_store(db) as store:
        pa, pb = store.points(a), store.points(b)
        hist = store_history(store, PointSet("A", store.run(a), tuple(pa)), PointSet("B", store.run(b), tuple(pb))) \
            if history else None
        rc = compare_points(pa, pb, history=hist)
    return [{"provider": r.provider, "params": r.params, "verdict": r.comparison.verdict,
             "ratio": round(r.comparison.ratio, 4), "noise_floor": r.comparison.noise_floor,
             "rounds": f"{r.comparison.a_rounds}+{r.comparison.b_rounds}"} for r in rc.rows]


def bootstrap_verdict(a: list[float], b: list[float], threshold: float = 0.04) -> str:
    """The pre-rounds rule: percentile bootstrap of median(B)/median(A), 2000 resamples, seed 0."""
    import numpy as np

    rng = np.random.default_rng(0)
    av, bv = np.asarray(a), np.asarray(b)
    ra = np.median(bv[rng.integers(0, len(bv), (2000, len(bv)))], axis=1) / np.median(
        av[rng.integers(0, len(av), (2000, len(av)))], axis=1)
    lo, hi = np.quantile(ra, [0.025, 0.975])
    r = float(np.median(bv) / np.median(av))
    if lo > 1 and r > 1 + threshold:
        return "slower"
    if hi < 1 and r < 1 / (1 + threshold):
        return "faster"
    return "same"


def old_rule(db: str, a: int, b: int) -> list[str]:
    """The pre-rounds verdicts on round 1 of each run."""
    from bench_kernel.results import open_store

    with open_store(db) as store:
        pa = {p.key: p for p in store.points(a)}
        pb = {p.key: p for p in store.points(b)}
    out = []
    for k, p in pa.items():
        ma, mb = p.result.measurements["host"], pb[k].result.measurements["host"]
        out.append(bootstrap_verdict(list(ma.round_samples[0].values_us), list(mb.round_samples[0].values_us)))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pairs", type=int, default=10)
    ap.add_argument("--rounds", type=int, default=None, help="default: the host method's default")
    ap.add_argument("--db", default=None, help="keep every run in this database (default: a temporary one)")
    ap.add_argument("-o", "--out", default=str(ROOT / "benchmarks" / "results" / "verdicts-cpu.md"))
    args = ap.parse_args(argv)
    sys.path.insert(0, str(ROOT / "src"))
    from bench_kernel.options import Options

    db = args.db or str(Path(tempfile.mkdtemp(prefix="verdicts-cpu-")) / "results.db")
    t_start = time.time()
    runs = []
    for i in range(args.pairs + 1):
        runs.append(sweep(db, args.rounds))
        print(f"identical sweep {i + 1}/{args.pairs + 1}: {runs[-1]}", flush=True)
    pairs = []
    for a, b in zip(runs, runs[1:]):
        rows = verdicts(db, a["run"], b["run"])
        pairs.append({"a": a["run"], "b": b["run"], "rows": rows, "old": old_rule(db, a["run"], b["run"])})
    slowed = sweep(db, args.rounds, slow="manual:1")
    print(f"slowed sweep: {slowed}", flush=True)
    catch = verdicts(db, runs[-1]["run"], slowed["run"])
    scaling = []
    for k in (1, 2, 10):
        scaling.append(sweep(db, k))
        print(f"--rounds {k}: {scaling[-1]}", flush=True)
    one_round = [s for s in scaling if s["rounds"] == 1][0]
    one_hist = verdicts(db, runs[-1]["run"], one_round["run"], history=True)

    points = sum(len(p["rows"]) for p in pairs)
    false = sum(r["verdict"] in ("slower", "faster") for p in pairs for r in p["rows"])
    old_false = sum(v in ("slower", "faster") for p in pairs for v in p["old"])
    caught = [r for r in catch if r["provider"] == "manual"]
    data = {"date": time.strftime("%Y-%m-%d %H:%M", time.gmtime(t_start)) + " UTC", "machine": platform.platform(),
            "cpus": os.cpu_count(), "python": platform.python_version(),
            "default_rounds": Options(methods=("host",)).rounds_for(False), "runs": runs, "pairs": pairs,
            "false": false, "points": points, "old_false": old_false, "slowed": slowed, "catch": catch,
            "scaling": scaling, "one_round_history": one_hist, "wall_s": round(time.time() - t_start)}
    out = Path(args.out)
    out.with_suffix(".json").write_text(json.dumps(data, indent=1, default=str))
    out.write_text(render(data))
    print(f"false verdicts: {false}/{points} (pre-rounds rule: {old_false}/{points}); 2x caught at "
          f"{sum(r['verdict'] == 'slower' for r in caught)}/{len(caught)}; wrote {out}")
    return 0


def render(d: dict[str, Any]) -> str:
    """The Markdown report of one benchmark run."""
    lines = [f"# Verdicts on identical re-runs: CPU, host method ({d['date']})", "",
             f"Machine: {d['machine']}, {d['cpus']} CPUs shared with other engineers' jobs (load average "
             f"before/after each sweep below), Python {d['python']}. Spec: `benchmarks/verdicts_rmsnorm.py` "
             f"(RMSNorm, hidden 1024, fp32, tokens 1/16/256, providers torch and manual, one intra-op thread). "
             f"Script: `benchmarks/verdicts_cpu.py` ({d['wall_s']} s in all). Rounds per point: "
             f"{d['runs'][0]['rounds']} (the host default is {d['default_rounds']}), each round in a fresh process.",
             "", "## Identical re-runs", "",
             f"**False verdicts: {d['false']} of {d['points']} point comparisons** over {len(d['pairs'])} pairs "
             f"of consecutive identical sweeps (target: at most 1%). The rule before rounds (a bootstrap of one "
             f"run's samples, on round 1 of the same runs): {d['old_false']} of {d['points']}.", "",
             "| pair | load before A / B | verdicts (torch, manual at tokens 1/16/256) | ratios | noise floors | before rounds |",
             "|---|---|---|---|---|---|"]
    by_run = {r["run"]: r for r in d["runs"]}
    for p in d["pairs"]:
        rows = p["rows"]
        lines.append(f"| {p['a']}->{p['b']} | {by_run[p['a']]['load_before'][0]} / {by_run[p['b']]['load_before'][0]} | "
                     + ", ".join(r["verdict"] for r in rows) + " | "
                     + ", ".join(f"{r['ratio']:.3f}" for r in rows) + " | "
                     + ", ".join("-" if r["noise_floor"] is None else f"±{r['noise_floor']:.1%}" for r in rows)
                     + " | " + ", ".join(p["old"]) + " |")
    caught = [r for r in d["catch"] if r["provider"] == "manual"]
    lines += ["", "## A real 2x slowdown", "",
              f"`VERDICTS_SLOW=manual:1` (run {d['slowed']['run']}) against run {d['runs'][-1]['run']}: manual caught "
              f"`slower` at {sum(r['verdict'] == 'slower' for r in caught)} of {len(caught)} points.", "",
              "| provider | params | verdict | ratio | noise floor |", "|---|---|---|---|---|"]
    lines += [f"| {r['provider']} | {r['params']} | {r['verdict']} | {r['ratio']:.3f} | "
              f"{'-' if r['noise_floor'] is None else format(r['noise_floor'], '.1%')} |" for r in d["catch"]]
    lines += ["", "## Wall time against --rounds", "", "| rounds | wall s | load before |", "|---|---|---|"]
    rows = sorted([(r["rounds"], r["wall_s"], r["load_before"][0]) for r in d["scaling"]]
                  + [(d["runs"][0]["rounds"], d["runs"][0]["wall_s"], d["runs"][0]["load_before"][0])])
    lines += [f"| {k} | {w} | {ld} |" for k, w, ld in rows]
    lines += ["", "## One round a side, noise from the store's history", "",
              "The `--rounds 1` run against the last identical run: the noise of each point comes from the "
              "stored earlier runs of it.", "", "| provider | params | rounds | verdict | ratio | noise floor |",
              "|---|---|---|---|---|---|"]
    lines += [f"| {r['provider']} | {r['params']} | {r['rounds']} | {r['verdict']} | {r['ratio']:.3f} | "
              f"{'-' if r['noise_floor'] is None else format(r['noise_floor'], '.1%')} |" for r in d["one_round_history"]]
    lines += ["", "## Raw", "", "Every run (id, wall s, load average before/after, rounds):", ""]
    lines += [f"- run {r['run']}: {r['wall_s']} s, load {r['load_before']} -> {r['load_after']}, rounds "
              f"{r['rounds']}{', slow ' + r['slow'] if r['slow'] else ''}"
              for r in d["runs"] + [d["slowed"]] + d["scaling"]]
    lines += ["", "Every ratio and noise floor is in the JSON beside this file."]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(main())
