"""Which verdict rule survives a loaded machine? Candidate rules judged on stored sweeps.

    PYTHONPATH=src python benchmarks/verdicts_rules.py --db DB --identical 1,2,3 --slowed 4,5 [--k 3,5,10] [--by]

Every pair of ``--identical`` runs (the same code) and every (identical, slowed) pair of the same
spec is judged by each rule on K rounds drawn from each side's stored rounds (many draws for K
below the stored count, fixed seed). A rule's false rate is slower/faster on identical pairs (all
providers); its catch rate is "slower" for the slowed provider (``--provider``, default manual).

Rules, each with the 4% threshold on top:
  t-median / t-min  the tool's: a 99% t-interval of the log round times (round median / minimum)
  U-median / U-min  an exact two-sided Mann-Whitney U test at 1% on the round times, with the
                    Hodges-Lehmann ratio (benchstat's and Google Benchmark's kind of test)
  bootstrap-round1  the rule before rounds: a percentile bootstrap of the median ratio of ONE
                    round's samples (round 1 of each run), 95%, 2000 resamples
                    (``results.compare_samples``, the same code)
Writes nothing; prints one line per K and rule (and per point with ``--by``). ``pair_verdicts`` is
what the verdict benchmarks (``verdicts_cpu.py``, ``gpu/verdicts.py``) report per pair of runs.
"""

from __future__ import annotations

import argparse
import itertools
import math
import random
import statistics
import sys
from functools import lru_cache
from typing import Any

THRESHOLD = 0.04


def _verdict(log_ratio: float, significant: bool) -> str:
    r = math.exp(log_ratio)
    if significant and r > 1 + THRESHOLD:
        return "slower"
    if significant and r < 1 / (1 + THRESHOLD):
        return "faster"
    return "same"


def t_rule(a: list[float], b: list[float]) -> str:
    from bench_kernel.results import noise_from_rounds, t_quantile

    noise = noise_from_rounds(a, b)
    if noise is None:
        return "unknown"
    la, lb = [math.log(x) for x in a], [math.log(x) for x in b]
    d = statistics.fmean(lb) - statistics.fmean(la)
    half = t_quantile(0.99, noise.df) * noise.sd_log * math.sqrt(1 / len(a) + 1 / len(b))
    return _verdict(d, abs(d) > half)


@lru_cache(maxsize=None)
def _u_counts(m: int, n: int) -> tuple[tuple[int, int], ...]:
    """(U, arrangements) of the Mann-Whitney statistic for sample sizes m, n (no ties)."""
    if m == 0 or n == 0:
        return ((0, 1),)
    out: dict[int, int] = {}
    for u, c in _u_counts(m - 1, n):
        out[u + n] = out.get(u + n, 0) + c
    for u, c in _u_counts(m, n - 1):
        out[u] = out.get(u, 0) + c
    return tuple(sorted(out.items()))


def u_rule(a: list[float], b: list[float], alpha: float = 0.01) -> str:
    u = sum((x > y) + 0.5 * (x == y) for x in a for y in b)
    counts = _u_counts(len(a), len(b))
    total = sum(c for _, c in counts)
    p = 2 * min(sum(c for v, c in counts if v <= u), sum(c for v, c in counts if v >= u)) / total
    hl = statistics.median(math.log(y) - math.log(x) for x in a for y in b)
    return _verdict(hl, p <= alpha)


def bootstrap_rule(a: list[float], b: list[float]) -> str:
    from bench_kernel.results import compare_samples

    return compare_samples(a, b, THRESHOLD).verdict


RULES = {"t-median": (t_rule, "median"), "t-min": (t_rule, "min"), "U-median": (u_rule, "median"),
         "U-min": (u_rule, "min")}


def pair_verdicts(db: str, a: int, b: int, history: bool = False) -> list[dict[str, Any]]:
    """``compare_points`` of run ``b`` against run ``a`` (what ``bench-kernel compare a b`` shows),
    one row per point; ``history``: one-round points take the store's history of them."""
    from bench_kernel.results import PointSet, compare_points, open_store, store_history

    with open_store(db) as store:
        pa, pb = store.points(a), store.points(b)
        hist = (store_history(store, PointSet("A", store.run(a), tuple(pa)), PointSet("B", store.run(b), tuple(pb)))
                if history else None)
        rc = compare_points(pa, pb, history=hist)
    return [{"provider": r.provider, "params": r.params, "verdict": r.comparison.verdict,
             "ci": [r.comparison.ci_low, r.comparison.ci_high], "rounds_needed": r.comparison.rounds_needed,
             "noise_source": r.comparison.noise.source if r.comparison.noise else None,
             "why": r.explanation.summary if r.explanation else None,
             "clock_limited": r.comparison.clock_limited, "ratio": round(r.comparison.ratio, 4),
             "noise_floor": r.comparison.noise_floor, "rounds": f"{r.comparison.a_rounds}+{r.comparison.b_rounds}",
             "a_us": r.comparison.a_us, "b_us": r.comparison.b_us, "clocks": r.comparison.clock_text}
            for r in rc.rows]


def load(db: str, runs: list[int], method: str = "host") -> dict[tuple[int, str, str], dict]:
    """(run, provider, point label) -> round medians, round minima and round 1's samples."""
    from bench_kernel.results import open_store

    out = {}
    with open_store(db) as store:
        for run in runs:
            for p in store.points(run):
                m = p.result.measurements.get(method)
                if p.status != "ok" or m is None:
                    continue
                rounds = m.round_samples
                out[(run, p.provider, " ".join(f"{k}={v}" for k, v in p.params.items()))] = {
                    "median": list(m.round_medians_us), "min": [s.min_us for s in rounds],
                    "round1": list(rounds[0].values_us)}
    return out


def judge(data: dict, identical: list[int], slowed: list[int], provider: str, k: int, draws: int,
          seed: int = 0, consecutive: bool = False) -> dict[str, dict]:
    """Per rule: false and caught counts, overall and per point label. ``consecutive``: identical
    runs paired as consecutive runs, each slowed run against the last identical one (as the
    benchmarks pair them); else every pair of identical runs, every (identical, slowed) pair."""
    rng = random.Random(seed)
    points = sorted({(p, label) for (_, p, label) in data})
    out: dict[str, dict] = {}
    for name, (fn, stat) in [*RULES.items(), ("bootstrap-round1", (bootstrap_rule, "round1"))]:
        res = {"false": 0, "pairs": 0, "caught": 0, "slowed": 0, "by": {}}
        if consecutive:
            pairs = [(a, b, False) for a, b in zip(identical, identical[1:])] + [(identical[-1], b, True) for b in slowed]
        else:
            pairs = [(a, b, False) for a, b in itertools.combinations(identical, 2)] + [
                (a, b, True) for a in identical for b in slowed]
        for a, b, is_slowed in pairs:
            for prov, label in points:
                if is_slowed and prov != provider:
                    continue
                if (a, prov, label) not in data or (b, prov, label) not in data:
                    continue
                va, vb = data[(a, prov, label)][stat], data[(b, prov, label)][stat]
                n = 1 if stat == "round1" or k >= min(len(va), len(vb)) else draws
                for _ in range(n):
                    sa, sb = (va, vb) if stat == "round1" else (rng.sample(va, min(k, len(va))), rng.sample(vb, min(k, len(vb))))
                    v = fn(sa, sb)
                    by = res["by"].setdefault(label, {"false": 0, "pairs": 0, "caught": 0, "slowed": 0})
                    if is_slowed:
                        res["caught"] += v == "slower"
                        res["slowed"] += 1
                        by["caught"] += v == "slower"
                        by["slowed"] += 1
                    else:
                        res["false"] += v in ("slower", "faster")
                        res["pairs"] += 1
                        by["false"] += v in ("slower", "faster")
                        by["pairs"] += 1
        out[name] = res
    return out


def _rate(x: int, n: int) -> str:
    return f"{x / n:.1%}" if n else "-"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--db", required=True)
    ap.add_argument("--identical", required=True, help="run ids of identical sweeps, comma-separated")
    ap.add_argument("--slowed", default="", help="run ids of sweeps with one provider slowed")
    ap.add_argument("--provider", default="manual", help="the slowed provider")
    ap.add_argument("--k", default="3,5,10", help="rounds per side to judge on")
    ap.add_argument("--draws", type=int, default=30, help="random draws of K rounds per pair (K below the stored count)")
    ap.add_argument("--by", action="store_true", help="also per point")
    args = ap.parse_args(argv)
    identical = [int(x) for x in args.identical.split(",")]
    slowed = [int(x) for x in args.slowed.split(",") if x]
    data = load(args.db, identical + slowed)
    for k in (int(x) for x in args.k.split(",")):
        res = judge(data, identical, slowed, args.provider, k, args.draws)
        for name, r in res.items():
            line = (f"K={k} {name:17} false {_rate(r['false'], r['pairs'])} of {r['pairs']}, caught "
                    f"{_rate(r['caught'], r['slowed'])} of {r['slowed']}")
            if args.by:
                line += "; " + "; ".join(f"{lbl}: false {_rate(v['false'], v['pairs'])}, caught "
                                         f"{_rate(v['caught'], v['slowed'])}" for lbl, v in r["by"].items())
            print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
