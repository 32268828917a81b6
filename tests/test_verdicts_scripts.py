"""The verdict benchmarks' own pieces, without running a sweep: the candidate rules of
``benchmarks/verdicts_rules.py`` on known rounds, and the GPU script's report on a results record."""

from __future__ import annotations

import importlib.util
import sys
from math import comb
from pathlib import Path

BENCH = Path(__file__).resolve().parent.parent / "benchmarks"


def _load(name: str, path: Path):
    sys.path.insert(0, str(BENCH))  # the scripts import their neighbours (common, verdicts_rules)
    try:
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module
    finally:
        sys.path.remove(str(BENCH))


rules = _load("verdicts_rules", BENCH / "verdicts_rules.py")


def test_the_exact_u_distribution_counts_every_arrangement():
    for m, n in [(3, 3), (5, 5), (4, 6)]:
        counts = dict(rules._u_counts(m, n))
        assert sum(counts.values()) == comb(m + n, m)
        assert counts[0] == counts[m * n] == 1  # complete separation, either way, is one arrangement


def test_the_u_rule_needs_five_rounds_a_side_to_call_anything_at_1_percent():
    a3, b3 = [10.0, 10.1, 10.2], [20.0, 20.1, 20.2]
    assert rules.u_rule(a3, b3) == "same"  # p = 2 / C(6, 3) = 0.1 at best
    a5, b5 = [10.0, 10.1, 10.2, 10.3, 10.4], [20.0, 20.1, 20.2, 20.3, 20.4]
    assert rules.u_rule(a5, b5) == "slower" and rules.u_rule(b5, a5) == "faster"  # p = 2 / 252
    assert rules.u_rule(a5, [x * 1.02 for x in a5]) == "same"  # below the threshold


def test_the_t_rule_is_the_tools_and_the_bootstrap_rule_is_the_old_one():
    a, b = [10.0, 10.2, 9.9], [20.0, 20.3, 19.8]
    assert rules.t_rule(a, b) == "slower" and rules.t_rule([10.0], [20.0]) == "unknown"
    import numpy as np

    rng = np.random.default_rng(0)
    one_run, other_run = (rng.normal(100, 1, 60)).tolist(), (rng.normal(103, 1, 60) * 1.05).tolist()
    assert rules.bootstrap_rule(one_run, other_run) == "slower"  # one run's samples: certain, and wrong if noise


def test_the_gpu_scripts_report_counts_what_it_was_given(monkeypatch):
    monkeypatch.setenv("PYTHONPATH", str(BENCH.parent / "src"))
    gpu = _load("verdicts_gpu", BENCH / "gpu" / "verdicts.py")
    row = {"provider": "manual", "tokens": 16, "verdict": "same", "clock_limited": False, "ratio": 1.01,
           "noise_floor": 0.02, "rounds": "3+3"}
    d = {"date": "today", "wall_s": 300,
         "cold": {"runs": [{"run": 1, "rounds": 3, "wall_s": 40, "device_warmup": {"sm_clock_before_mhz": 345,
                                                                                 "sm_clock_after_mhz": 1980,
                                                                                 "held_s": 1.2},
                            "smi": {"lookup": "pci 00000000:06:00.0"}}],
                  "pairs": [{"a": 1, "b": 2, "rows": [row, {**row, "verdict": "faster", "provider": "compiled"}]}]},
         "steady": {"base": {"run": 7, "wall_s": 50}, "slowed": {"run": 8, "wall_s": 52}, "rounds": 5,
                    "rows": [{**row, "verdict": "slower", "ratio": 1.1,
                              "why": "nothing both sides recorded differs but the time"}]},
         "one_round": {"skipped": "out of budget (20 s left)"}, "methods": {"failed": "RuntimeError: no GPU"}}
    text = gpu.render(d)
    assert "**False verdicts: 1 of 2 point comparisons** over 1 pairs" in text
    assert "| 1 | 3 | 40 | 345 -> 1980 MHz, 1.2 s | pci 00000000:06:00.0 |" in text
    assert "| manual | 16 | slower | 1.1000 | ±2.0% |" in text and "out of budget" in text
    assert "- B manual tokens=16: slower: nothing both sides recorded differs but the time" in text
    assert "manual `slower` at 1 of 1 points" in text
    assert gpu.summary(d).splitlines()[:2] == [
        "cold pairs: 1, false verdicts 1/2 points (0 marked (clock)), inconclusive 0",
        "steady +10% (5 rounds): manual slower at 1/1"]


def test_the_gpu_scripts_store_readers_on_a_stored_run(tmp_path, monkeypatch):
    # what the script reads back after its sweeps, on a store made here: launch configs and pair rows
    monkeypatch.setenv("PYTHONPATH", str(BENCH.parent / "src"))
    gpu = _load("verdicts_gpu", BENCH / "gpu" / "verdicts.py")
    from _results_helpers import rounds_measurement, rounds_point
    from bench_kernel.records import KernelStat
    from bench_kernel.results import open_store

    k = KernelStat(name="triton_red_fused_0", short="triton_red_fused_0", category="norm", kind="kernel",
                   count_per_call=1.0, us_per_call=2.0, share=1.0, grid=(64, 1, 1), block=(256, 1, 1),
                   registers_per_thread=32, shared_memory_bytes=0)
    db = tmp_path / "results.db"
    with open_store(db) as store:
        for i, factor in enumerate((1.0, 2.0)):
            run = store.start_run(kind="sweep", name="rms", config={"providers": ["compiled"]}, env={})
            p = rounds_point("compiled", {"tokens": 1}, rounds_measurement(i, 3, median_us=2.0 * factor, between=0.003))
            store.save_result(run.id, p.result.replace(kernels=(k,)))
            store.finish_run(run.id)
    assert gpu._launch_configs(str(db), 1) == {"kernels": 1, "with_launch_config": 1,
                                              "example": "triton_red_fused_0: grid 64x1x1 block 256x1x1 regs 32 smem 0"}
    (row,) = gpu._rows(str(db), 1, 2)
    assert (row["provider"], row["tokens"], row["verdict"], row["noise_source"]) == ("compiled", 1, "slower", "rounds")
    assert row["why"].startswith("nothing both sides recorded differs but the time")
