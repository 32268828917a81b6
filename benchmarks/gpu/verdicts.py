"""Are verdicts on identical GPU re-runs noise? The GPU half of the verdict targets.

Run on a GPU from the repo root (about 7.5 minutes on an H200; it starts no part after --budget-s,
so the last part (D, then B) is the one left out on a slow day; parts run in the order A, C, B, D):

    OUT=out PYTHONPATH=src python3 benchmarks/gpu/verdicts.py --budget-s 450

The sweep is ``benchmarks/verdicts_rmsnorm.py`` (RMSNorm, hidden 4096, bf16, tokens 1/16/256/4096,
providers torch, manual, torch.compile), graph method, each sweep ``bench-kernel sweep`` in a fresh
process after an idle pause, one results database:
  A. 6 cold sweeps with the default rounds: 5 consecutive pairs compared (``compare_points``, what
     ``bench-kernel compare`` runs); every slower/faster is false (target: <= 1% of points),
     ``inconclusive`` counted apart. Each run's env says how the device warm-up found the GPU
     (``device_warmup``: clock before/after). The Inductor and Triton caches are empty before the
     first sweep and kept after (``$OUT/inductor-cache``, ``$OUT/triton-cache``), and the first two
     sweeps time ``kernel`` too: pair 1->2 is a freshly compiling first process against a warm
     cache, and its explanations say whether the kernels or the replay path moved.
  B. 2 sweeps of the manual provider with ``--steady --rounds 5``: the second with
     ``VERDICTS_SLOW=manual:10`` (manual runs its kernel twice on every 10th call: +10% of work);
     manual must be ``slower`` at every point (3 rounds missed the 14 us point: its floor was +/-11.2%).
  C. two sweeps with ``--rounds 1``, compared: their points take their noise from the store's
     history of them (part A's cold sweeps); and the same pair without history (the method's
     noise floor bounds the interval).
  D. an 8192^3 bf16 GEMM, ``run --steady --rounds 1`` with graph, events and kernel: the note that
     says why the methods disagree, with each method's SM clock (measured before: graph 1618-1634, events
     1485-1528, kernel 1366-1380 us).
Every changed point's explanation (``bench-kernel compare``'s one line: kernels, launch path,
machine, code) is in the report. Writes ``$OUT/verdicts-h200.md`` (-> benchmarks/results/
verdicts-h200.md), ``$OUT/verdicts-h200.json`` (every number), ``$OUT/results.db`` (every run, raw
samples) and ``$OUT/log.txt``; prints a summary last.
A part that fails is recorded as failed; the others still run and are written.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))  # the shared verdict rules, as sweep_gemm_report.py does

from common import child_env  # noqa: E402
from verdicts_rules import pair_verdicts  # noqa: E402

SPEC = str(ROOT / "benchmarks" / "verdicts_rmsnorm.py")
IDLE_S = 3.0  # before each sweep: the GPU drops towards its idle clock, as between two CI jobs
GEMM = """
import torch
def cases():
    # make_inputs: both graph and kernel then time a cold L2 (two 128 MiB operands per set), so their
    # note compares like with like; a closure over one pair left graph warm and the note silent.
    make = lambda: tuple(torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16) for _ in range(2))
    return [{"fn": lambda a, b: a @ b, "make_inputs": make, "name": "gemm8192", "flops": 2.0 * 8192 ** 3}]
"""


class Budget:
    def __init__(self, seconds: float) -> None:
        self.t0, self.seconds = time.perf_counter(), seconds

    @property
    def left(self) -> float:
        return self.seconds - (time.perf_counter() - self.t0)


def _run(cmd: list[str], log: Path, timeout_s: float, env_extra: dict[str, str] | None = None) -> tuple[int, float]:
    env = child_env(PYTHONUNBUFFERED="1")
    env.pop("VERDICTS_SLOW", None)
    env.update(env_extra or {})
    t0 = time.perf_counter()
    with log.open("a") as fh:
        fh.write(f"\n=== {' '.join(cmd)} {env_extra or ''} ({time.strftime('%T')})\n")
        fh.flush()
        try:
            rc = subprocess.run(cmd, env=env, stdout=fh, stderr=fh, timeout=max(timeout_s, 1)).returncode
        except subprocess.TimeoutExpired:
            rc = 124
    return rc, time.perf_counter() - t0


#: the compile caches of every sweep: empty before the first, kept after (part A's pair 1->2)
CACHES = {"TORCHINDUCTOR_CACHE_DIR": "inductor-cache", "TRITON_CACHE_DIR": "triton-cache"}


def sweep(db: str, log: Path, budget: Budget, *args: str, slow: str | None = None, cap_s: float = 150,
          methods: tuple[str, ...] = ("graph",)) -> dict:
    time.sleep(IDLE_S)
    cmd = [sys.executable, "-m", "bench_kernel", "sweep", SPEC, "--db", db, *[x for m in methods for x in ("-m", m)],
           *args]
    extra = {k: str(Path(db).parent / v) for k, v in CACHES.items()}
    extra.update({"VERDICTS_SLOW": slow} if slow else {})
    rc, wall = _run(cmd, log, min(cap_s, budget.left), extra)
    from bench_kernel.results import open_store

    with open_store(db) as store:
        runs = store.runs(limit=1)
    run = runs[0] if runs else None
    return {"run": run.id if run else None, "rc": rc, "wall_s": round(wall, 1), "args": list(args), "slow": slow,
            "rounds": run.config.get("rounds") if run else None, "status": run.status if run else None,
            "device_warmup": run.env.get("device_warmup") if run else None,
            "smi": run.env.get("smi") if run else None}


def _rows(db: str | None, a: int, b: int, history: bool = False) -> list[dict[str, Any]]:
    return [{**r, "tokens": r["params"].get("tokens")} for r in pair_verdicts(db, a, b, history)]


def _launch_configs(db: str, run: int) -> dict[str, Any]:
    """How many of ``run``'s kernels carry a launch configuration (grid/block/registers/smem from
    Kineto's metadata), and one of them: the kernel method stores them where the profiler has them."""
    from bench_kernel.results import launch_text, open_store

    with open_store(db) as store:
        kernels = [k for p in store.points(run) for k in p.result.kernels if k.kind == "kernel"]
    with_grid = [k for k in kernels if k.grid is not None]
    return {"kernels": len(kernels), "with_launch_config": len(with_grid),
            "example": f"{with_grid[0].short}: {launch_text(with_grid[0])}" if with_grid else None}


def part(name: str, results: dict, fn) -> None:
    """Run one part; a failure is recorded, never fatal to the others."""
    try:
        results[name] = fn()
    except Exception as e:  # noqa: BLE001 - recorded in the report
        results[name] = {"failed": f"{type(e).__name__}: {e}"}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--budget-s", type=float, default=450.0, help="start no part after this many seconds")
    ap.add_argument("--cold", type=int, default=6, help="cold sweeps in part A (pairs = this - 1)")
    ap.add_argument("--steady-rounds", type=int, default=5, help="rounds of part B's sweeps")
    ap.add_argument("--parts", default="cold,one_round,steady,methods",
                    help="which parts to run (one_round reads cold's runs from the same database)")
    args = ap.parse_args(argv)
    out = Path(os.environ.get("OUT", "out"))
    out.mkdir(parents=True, exist_ok=True)
    db, log = str(out / "results.db"), out / "log.txt"
    budget = Budget(args.budget_s)
    results: dict[str, Any] = {"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "budget_s": args.budget_s}

    def cold() -> dict:
        runs = []
        for _ in range(args.cold):
            if budget.left < 40:
                break
            # the first two with the kernel method too: the first process's explanation needs both sides' kernels
            runs.append(sweep(db, log, budget, "--max-time", "0.2",
                              methods=("graph", "kernel") if len(runs) < 2 else ("graph",)))
        done = [r for r in runs if r["status"] == "done"]
        # with the store's history, as `bench-kernel compare` judges them: the runs' spread bounds each interval
        pairs = [{"a": a["run"], "b": b["run"], "rows": _rows(db, a["run"], b["run"], history=True)}
                 for a, b in zip(done, done[1:])]
        return {"runs": runs, "pairs": pairs, "launch_config": _launch_configs(db, done[0]["run"]) if done else None}

    def steady() -> dict:
        base = sweep(db, log, budget, "--steady", "--provider", "manual", "--rounds", str(args.steady_rounds))
        slow = sweep(db, log, budget, "--steady", "--provider", "manual", "--rounds", str(args.steady_rounds),
                     slow="manual:10")
        rows = _rows(db, base["run"], slow["run"], history=True) if base["status"] == slow["status"] == "done" else []
        return {"base": base, "slowed": slow, "rows": rows, "rounds": args.steady_rounds}

    def one_round() -> dict:
        # two one-round sweeps: the store's history (part A's cold sweeps) gives each point its noise
        first = sweep(db, log, budget, "--max-time", "0.2", "--rounds", "1")
        one = sweep(db, log, budget, "--max-time", "0.2", "--rounds", "1")
        ok = first["status"] == one["status"] == "done"
        rows = _rows(db, first["run"], one["run"], history=True) if ok else []
        alone = _rows(db, first["run"], one["run"]) if ok else []  # the floor bounds it: one round has no noise
        return {"run": one, "against": first["run"], "rows": rows, "alone": alone}

    def methods() -> dict:
        target = out / "gemm_target.py"
        target.write_text(GEMM)
        rc, wall = _run([sys.executable, "-m", "bench_kernel", "run", f"{target}:cases", "--steady", "--rounds", "1",
                         "--json", "-o", str(out / "gemm.json")], log, min(120, budget.left))
        data = json.loads((out / "gemm.json").read_text()) if (out / "gemm.json").exists() else {}
        target.unlink(missing_ok=True)
        r = (data.get("results") or [{}])[0]
        ms = r.get("measurements") or {}
        return {"rc": rc, "wall_s": round(wall, 1), "notes": r.get("notes"),
                "medians_us": {k: m.get("median_us") for k, m in ms.items()},
                "round_medians_us": {k: m.get("round_medians_us") for k, m in ms.items()},
                "clock_median_mhz": {k: _median([c for c in m.get("sm_clock_mhz") or [] if c]) for k, m in ms.items()}}

    # C is cheap and reads A's history, so it runs right after A; D last
    for name, fn, need_s in (("cold", cold, 60), ("one_round", one_round, 35), ("steady", steady, 90),
                             ("methods", methods, 40)):
        if name not in args.parts.split(","):
            continue
        if budget.left < need_s:
            results[name] = {"skipped": f"out of budget ({budget.left:.0f} s left)"}
            continue
        part(name, results, fn)
    (out / "gemm.json").unlink(missing_ok=True)
    results["wall_s"] = round(args.budget_s - budget.left)
    (out / "verdicts-h200.json").write_text(json.dumps(results, indent=1, default=str))
    (out / "verdicts-h200.md").write_text(render(results))
    print(summary(results))
    return 0


def _median(xs: list[float]) -> float | None:
    xs = sorted(xs)
    return xs[len(xs) // 2] if xs else None


def _floor(x: float | None) -> str:
    return "-" if x is None else f"±{x:.1%}"


def _whys(rows: list[tuple[str, dict]]) -> list[str]:
    """One line per changed point: what ``compare`` says changed."""
    said = [f"- {where} {r['provider']} tokens={r['tokens']}: {r['verdict']}: {r['why']}" for where, r in rows
            if r.get("why") and r["verdict"] in ("slower", "faster")]
    return ["", "What changed, per changed point (`compare`'s explanation):", "", *said] if said else []


def summary(d: dict) -> str:
    lines = []
    cold = d.get("cold", {})
    if "pairs" in cold:
        rows = [r for p in cold["pairs"] for r in p["rows"]]
        false = sum(r["verdict"] in ("slower", "faster") for r in rows)
        lines.append(f"cold pairs: {len(cold['pairs'])}, false verdicts {false}/{len(rows)} points "
                     f"({sum(r['clock_limited'] for r in rows)} marked (clock)), inconclusive "
                     f"{sum(r['verdict'] == 'inconclusive' for r in rows)}")
        if cold.get("launch_config"):
            lines.append(f"launch configs: {cold['launch_config']}")
    else:
        lines.append(f"cold pairs: {cold}")
    st = d.get("steady", {})
    if "rows" in st:
        manual = [r for r in st["rows"] if r["provider"] == "manual"]
        lines.append(f"steady +10% ({st.get('rounds')} rounds): manual slower at "
                     f"{sum(r['verdict'] == 'slower' for r in manual)}/{len(manual)}")
    else:
        lines.append(f"steady: {st}")
    one = d.get("one_round", {})
    if "rows" in one:
        lines.append("one round + history: " + ", ".join(f"{r['provider']}@{r['tokens']} {r['verdict']}" for r in one["rows"]))
    m = d.get("methods", {})
    if "notes" in m:
        note = next((n["text"] for n in m["notes"] or [] if n["code"] == "methods-disagree"), "no disagreement note")
        lines.append(f"gemm: {m['medians_us']}; {note[:160]}")
    lines.append(f"wall {d.get('wall_s')} s")
    return "\n".join(lines)


def render(d: dict) -> str:
    out = [f"# Verdicts on identical re-runs: GPU ({d['date']})", "",
           "Script: `benchmarks/gpu/verdicts.py`; spec `benchmarks/verdicts_rmsnorm.py` (RMSNorm, hidden 4096, bf16, "
           "tokens 1/16/256/4096; torch, manual, torch.compile), graph method, each sweep in a fresh process after "
           f"a {IDLE_S:g} s idle pause. {d.get('wall_s')} s in all.", ""]
    cold = d.get("cold", {})
    out += ["## A. Cold sweeps, consecutive pairs", ""]
    if "pairs" in cold:
        rows = [r for p in cold["pairs"] for r in p["rows"]]
        false = sum(r["verdict"] in ("slower", "faster") for r in rows)
        unsure = sum(r["verdict"] == "inconclusive" for r in rows)
        out += [f"**False verdicts: {false} of {len(rows)} point comparisons** over {len(cold['pairs'])} pairs "
                f"(target <= 1%); counted apart, {sum(r['verdict'] == 'same' for r in rows)} `same` and {unsure} "
                f"`inconclusive`. Run 1 compiled with empty Inductor/Triton caches, later runs reused them; runs 1-2 "
                f"timed `kernel` too.", "", "| run | rounds | wall s | warm-up: clock before -> after, held s | lookup |",
                "|---|---|---|---|---|"]
        for r in cold["runs"]:
            w = r.get("device_warmup") or {}
            out.append(f"| {r['run']} | {r['rounds']} | {r['wall_s']} | {w.get('sm_clock_before_mhz')} -> "
                       f"{w.get('sm_clock_after_mhz')} MHz, {w.get('held_s')} s | {(r.get('smi') or {}).get('lookup')} |")
        out += ["", "| pair | provider | tokens | verdict | ratio | noise floor |", "|---|---|---|---|---|---|"]
        for p in cold["pairs"]:
            out += [f"| {p['a']}->{p['b']} | {r['provider']} | {r['tokens']} | {r['verdict']}"
                    f"{' (clock)' if r['clock_limited'] else ''} | {r['ratio']:.4f} | {_floor(r['noise_floor'])} |"
                    for r in p["rows"]]
        out += _whys([(f"{p['a']}->{p['b']}", r) for p in cold["pairs"] for r in p["rows"]])
        first = next((p for p in cold["pairs"]), None)
        if first:
            out += ["", f"First process (pair {first['a']}->{first['b']}: empty compile caches against kept ones), "
                        "every point's verdict and explanation:", ""]
            out += [f"- {r['provider']} tokens={r['tokens']}: {r['verdict']} {r['ratio']:.4f}"
                    + (f": {r['why']}" if r.get("why") else "") for r in first["rows"]]
        out += ["", f"Launch configurations stored by the kernel method (run 1): {cold.get('launch_config')}"]
    else:
        out.append(f"{cold}")
    st = d.get("steady", {})
    out += ["", "## B. A real +10% under --steady", ""]
    if "rows" in st:
        manual = [r for r in st["rows"] if r["provider"] == "manual"]
        out += [f"Run {st['slowed']['run']} (`VERDICTS_SLOW=manual:10`) against run {st['base']['run']}, "
                f"{st.get('rounds')} rounds each, {st['base']['wall_s']} s and {st['slowed']['wall_s']} s: manual "
                f"`slower` at {sum(r['verdict'] == 'slower' for r in manual)} of {len(manual)} points.", "",
                "| provider | tokens | verdict | ratio | noise floor |", "|---|---|---|---|---|"]
        out += [f"| {r['provider']} | {r['tokens']} | {r['verdict']} | {r['ratio']:.4f} | {_floor(r['noise_floor'])} |"
                for r in st["rows"]]
        out += _whys([("B", r) for r in st["rows"]])
    else:
        out.append(f"{st}")
    one = d.get("one_round", {})
    out += ["", "## C. One round, noise from the store's history", ""]
    if "rows" in one:
        alone = {(r["provider"], r["tokens"]): r for r in one.get("alone") or []}
        out += [f"`--rounds 1` (run {one['run']['run']}, {one['run']['wall_s']} s) against run {one['against']}: "
                f"with the store's history, and without (the graph method's noise floor bounds the interval).", "",
                "| provider | tokens | rounds | verdict | ratio | noise floor | without history |",
                "|---|---|---|---|---|---|---|"]
        out += [f"| {r['provider']} | {r['tokens']} | {r['rounds']} | {r['verdict']} | {r['ratio']:.4f} | "
                f"{_floor(r['noise_floor'])} | {(alone.get((r['provider'], r['tokens'])) or {}).get('verdict', '-')} |"
                for r in one["rows"]]
    else:
        out.append(f"{one}")
    m = d.get("methods", {})
    out += ["", "## D. Methods that disagree (8192^3 bf16 GEMM, --steady)", "", f"```\n{json.dumps(m, indent=1)}\n```"]
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    sys.exit(main())
