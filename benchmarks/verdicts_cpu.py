"""Are verdicts on identical re-runs noise? The CPU half of the verdict targets, on this machine.

    PYTHONPATH=src python benchmarks/verdicts_cpu.py [--pairs 10] [--rounds K] [--db DB] [-o FILE.md]

1. ``pairs + 1`` identical host-method sweeps of ``benchmarks/verdicts_rmsnorm.py`` (3 token counts
   x 2 providers), each ``bench-kernel sweep`` in a fresh process with the default rounds (or
   ``--rounds``), one results database; consecutive runs make ``pairs`` pairs, compared as
   ``bench-kernel compare`` compares them. Every ``slower``/``faster`` is false; ``inconclusive``
   (the data cannot tell) is counted apart: it is no false verdict, and no ``same`` either.
2. Two more sweeps with ``VERDICTS_SLOW=manual:1`` (the manual provider runs its kernel twice: 2x),
   each compared with the last identical one: ``manual`` must be ``slower`` at every point.
3. Other rules on the same stored rounds, for contrast (``verdicts_rules.py``): the round median
   instead of the minimum, a U test instead of the t-interval, and the rule before rounds (a
   bootstrap of one run's samples, on round 1 of each run).
4. Wall time against ``--rounds`` (1, 2 and 10 beside the default), and two one-round runs judged
   against each other: alone (the interval bounded by the host method's documented noise floor),
   and with the noise of the store's history of each point; and a one-round 3x slowdown
   (``VERDICTS_SLOW=manual:1:3``) against a one-round run, alone: a change beyond the floor is
   ``slower`` with one round a side.
The machine's load average is recorded before and after every sweep: other engineers share it.
Writes the Markdown (``-o``, default benchmarks/results/verdicts-cpu.md) and a JSON beside it.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from common import RESULTS, ROOT, child_env, machine
from verdicts_rules import judge, load, pair_verdicts

SPEC = str(ROOT / "benchmarks" / "verdicts_rmsnorm.py")


def loadavg() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


def sweep(db: str, rounds: int | None, slow: str | None = None) -> dict[str, Any]:
    """One sweep in a fresh process; its run id, wall time and the load around it."""
    env = child_env()
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


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pairs", type=int, default=10)
    ap.add_argument("--rounds", type=int, default=None, help="default: the host method's default")
    ap.add_argument("--db", default=None, help="keep every run in this database (default: a temporary one)")
    ap.add_argument("-o", "--out", default=str(RESULTS / "verdicts-cpu.md"))
    args = ap.parse_args(argv)
    from bench_kernel.options import Options

    db = args.db or str(Path(tempfile.mkdtemp(prefix="verdicts-cpu-")) / "results.db")
    t_start = time.time()
    runs = []
    for i in range(args.pairs + 1):
        runs.append(sweep(db, args.rounds))
        print(f"identical sweep {i + 1}/{args.pairs + 1}: {runs[-1]}", flush=True)
    slowed = [sweep(db, args.rounds, slow="manual:1") for _ in range(2)]
    print(f"slowed sweeps: {slowed}", flush=True)
    scaling = []
    for k in (1, 1, 2, 10):
        scaling.append(sweep(db, k))
        print(f"--rounds {k}: {scaling[-1]}", flush=True)
    # with the store's history, as `bench-kernel compare` judges them: the runs' spread bounds each interval
    pairs = [{"a": a["run"], "b": b["run"], "rows": pair_verdicts(db, a["run"], b["run"], history=True)}
             for a, b in zip(runs, runs[1:])]
    catch = [{"a": runs[-1]["run"], "b": s["run"], "rows": pair_verdicts(db, runs[-1]["run"], s["run"], history=True)}
             for s in slowed]
    one_slow = sweep(db, 1, slow="manual:1:3")
    print(f"one-round slowed sweep: {one_slow}", flush=True)
    one_a, one_b = (s["run"] for s in scaling if s["rounds"] == 1)
    one_alone = pair_verdicts(db, one_a, one_b)
    one_hist = pair_verdicts(db, one_a, one_b, history=True)
    one_caught = pair_verdicts(db, one_a, one_slow["run"])
    ids = [r["run"] for r in runs]
    k = runs[0]["rounds"]
    # the same rounds judged by other rules: consecutive identical pairs, and each slowed run against the last
    rules = {}
    data = load(db, ids + [s["run"] for s in slowed])
    for name, res in judge(data, ids, [s["run"] for s in slowed], "manual", k, draws=1, consecutive=True).items():
        rules[name] = {key: res[key] for key in ("false", "pairs", "caught", "slowed")}

    points = sum(len(p["rows"]) for p in pairs)
    false = sum(r["verdict"] in ("slower", "faster") for p in pairs for r in p["rows"])
    told = {v: sum(r["verdict"] == v for p in pairs for r in p["rows"]) for v in ("same", "inconclusive")}
    caught = [r for c in catch for r in c["rows"] if r["provider"] == "manual"]
    data_out = {"date": time.strftime("%Y-%m-%d %H:%M", time.gmtime(t_start)) + " UTC", "machine": machine(),
                "default_rounds": Options(methods=("host",)).rounds_for(False), "runs": runs, "pairs": pairs,
                "false": false, "points": points, **told, "slowed": slowed, "catch": catch, "rules": rules,
                "scaling": scaling + [one_slow],
                "one_round": {"a": one_a, "b": one_b, "alone": one_alone, "history": one_hist,
                              "slow": one_slow["run"], "caught": one_caught},
                "wall_s": round(time.time() - t_start)}
    out = Path(args.out)
    out.with_suffix(".json").write_text(json.dumps(data_out, indent=1, default=str))
    out.write_text(render(data_out))
    print(f"false verdicts: {false}/{points} (same {told['same']}, inconclusive {told['inconclusive']}); 2x caught at {sum(r['verdict'] == 'slower' for r in caught)}/"
          f"{len(caught)}; wrote {out}")
    return 0


def _floor(x: float | None) -> str:
    return "-" if x is None else f"±{x:.1%}"


def _ci(ci: list | None) -> str:
    return "-" if not ci or None in ci else f"{ci[0]:.3f}-{ci[1]:.3f}"


def _pt(r: dict) -> str:
    return f"{r['provider']} {' '.join(f'{k}={v}' for k, v in r['params'].items())}"


def render(d: dict[str, Any]) -> str:
    """The Markdown report of one benchmark run."""
    loads = [r["load_before"][0] for r in d["runs"] + d["slowed"] + d["scaling"]]
    lines = [f"# Verdicts on identical re-runs: CPU, host method ({d['date']})", "",
             f"Machine: {d['machine']}; shared with other engineers' jobs: 1-minute load average "
             f"{min(loads)}-{max(loads)} on {os.cpu_count()} cores over the run (each sweep's below). Spec: "
             f"`benchmarks/verdicts_rmsnorm.py` (RMSNorm, hidden 1024, fp32, tokens 1/16/64, providers torch and "
             f"manual, one intra-op thread). Script: `benchmarks/verdicts_cpu.py` ({d['wall_s']} s in all). Rounds "
             f"per point: {d['runs'][0]['rounds']} (the host default is {d['default_rounds']}), each round in a fresh "
             f"process, interleaved across the sweep.", "",
             "## Identical re-runs", "",
             f"**False verdicts: {d['false']} of {d['points']} point comparisons** over {len(d['pairs'])} pairs of "
             f"consecutive identical sweeps (target: at most 1%); counted apart, {d['same']} `same` (shown within "
             f"the 4% threshold) and {d['inconclusive']} `inconclusive` (the data cannot tell).", "",
             "| pair | load before A / B | verdicts | ratios | noise floors |", "|---|---|---|---|---|"]
    by_run = {r["run"]: r for r in d["runs"]}
    order = ", ".join(_pt(r) for r in d["pairs"][0]["rows"]) if d["pairs"] else ""
    for p in d["pairs"]:
        rows = p["rows"]
        lines.append(f"| {p['a']}->{p['b']} | {by_run[p['a']]['load_before'][0]} / {by_run[p['b']]['load_before'][0]} | "
                     + ", ".join(r["verdict"] for r in rows) + " | " + ", ".join(f"{r['ratio']:.3f}" for r in rows)
                     + " | " + ", ".join(_floor(r["noise_floor"]) for r in rows) + " |")
    lines += ["", f"Points in each row, in order: {order}.", ""]
    unsure = [r for p in d["pairs"] for r in p["rows"] if r["verdict"] == "inconclusive"]
    if unsure:
        needed = sorted(r["rounds_needed"] for r in unsure if r.get("rounds_needed"))
        lines += [f"The {len(unsure)} inconclusive points: rounds a side that would likely resolve them, from "
                  f"their measured noise: {', '.join(map(str, needed)) or 'none within 100'}"
                  + (f" ({len(unsure) - len(needed)} not within 100)" if len(needed) < len(unsure) else "") + ".", ""]
    lines += ["## A real 2x slowdown", ""]
    for c in d["catch"]:
        manual = [r for r in c["rows"] if r["provider"] == "manual"]
        lines += [f"`VERDICTS_SLOW=manual:1` (run {c['b']}) against run {c['a']}: manual `slower` at "
                  f"{sum(r['verdict'] == 'slower' for r in manual)} of {len(manual)} points.", "",
                  "| point | verdict | ratio | noise floor |", "|---|---|---|---|"]
        lines += [f"| {_pt(r)} | {r['verdict']} | {r['ratio']:.3f} | {_floor(r['noise_floor'])} |" for r in c["rows"]]
        lines.append("")
        lines += [f"- why {_pt(r)} is {r['verdict']}: {r['why']}" for r in c["rows"]
                  if r.get("why") and r["verdict"] in ("slower", "faster")]
        lines.append("")
    lines += ["## Other rules on the same rounds", "",
              "The same stored runs judged by `benchmarks/verdicts_rules.py`'s rules (consecutive identical pairs; "
              "each slowed run against the last identical one). `t-min` is the tool's rule on the host method.", "",
              "| rule | false verdicts | 2x caught |", "|---|---|---|"]
    for name, r in d["rules"].items():
        lines.append(f"| {name} | {r['false']} of {r['pairs']} | {r['caught']} of {r['slowed']} |")
    lines += ["", "## Wall time against --rounds", "", "| rounds | wall s | load before |", "|---|---|---|"]
    rows = sorted([(r["rounds"], r["wall_s"], r["load_before"][0]) for r in d["scaling"]]
                  + [(r["rounds"], r["wall_s"], r["load_before"][0]) for r in d["runs"]])
    lines += [f"| {k} | {w} | {ld} |" for k, w, ld in rows]
    one = d["one_round"]
    lines += ["", "## One round a side, noise from the store's history", "",
              f"Two `--rounds 1` runs, {one['b']} against {one['a']}: alone (no history given) the interval is "
              f"bounded by the host method's documented noise floor (±100%); with the store's history (each point's "
              f"round minima in the sweeps above: `bench-kernel compare` does this), the measured noise.", "",
              "| point | rounds | alone | with history | ratio | noise floor |", "|---|---|---|---|---|---|"]
    lines += [f"| {_pt(r)} | {r['rounds']} | {a['verdict']} | {r['verdict']} | {r['ratio']:.3f} | "
              f"{_floor(r['noise_floor'])} |" for a, r in zip(one["alone"], one["history"])]
    if one.get("caught"):
        manual = [r for r in one["caught"] if r["provider"] == "manual"]
        lines += ["", f"One round a side, a real 3x slowdown (run {one['slow']}, `VERDICTS_SLOW=manual:1:3`, against run "
                      f"{one['a']}), no history: manual `slower` at {sum(r['verdict'] == 'slower' for r in manual)} of "
                      f"{len(manual)} points.", "", "| point | verdict | ratio | CI | noise floor |", "|---|---|---|---|---|"]
        lines += [f"| {_pt(r)} | {r['verdict']} | {r['ratio']:.3f} | {_ci(r.get('ci'))} | "
                  f"{_floor(r['noise_floor'])} |" for r in one["caught"]]
    lines += ["", "## Raw", "", "Every run (id, wall s, load average before -> after, rounds):", ""]
    lines += [f"- run {r['run']}: {r['wall_s']} s, load {r['load_before']} -> {r['load_after']}, rounds "
              f"{r['rounds']}{', slow ' + r['slow'] if r['slow'] else ''}" for r in d["runs"] + d["slowed"] + d["scaling"]]
    lines += ["", "Every ratio and noise floor is in the JSON beside this file."]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(main())
