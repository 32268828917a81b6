"""diff: per-kernel and per-category deltas, new and vanished kernels, per-step normalisation."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench_kernel.trace import diff, load_trace

DATA = Path(__file__).parent / "data" / "trace"
DECODE_STEP_US = 1.5 + 3 * (2.0 + 5.0 + 7.0 + 1.0) + 4.0


def test_self_diff_is_zero():
    t = load_trace(DATA / "eager.json")
    d = diff(t, t)
    # A trace against itself reads "unchanged", not "changed" with a delta of 0
    assert d.per_step and d.delta_us == 0 and d.kernels and d.categories
    assert {r.status for r in d.kernels} == {r.status for r in d.categories} == {"unchanged"}
    assert all(r.delta_us == 0 and r.delta_pct == 0 for r in d.kernels)


def test_changes_are_sorted_by_impact_and_normalised_per_step(tmp_path):
    doc = json.loads((DATA / "eager.json").read_text())
    for e in doc["traceEvents"]:
        if e.get("cat") == "kernel" and e["name"] == "add_kernel":
            e["name"] = "fused_add_kernel"  # renamed: vanished in A's terms, new in B's
        elif e.get("cat") == "kernel" and e["name"] == "gemm_qkv_kernel":
            e["dur"] *= 2
    p = tmp_path / "b.json"
    p.write_text(json.dumps(doc))
    d = diff(load_trace(DATA / "eager.json"), load_trace(p))
    assert d.per_step and (d.steps_a, d.steps_b) == (3, 3)
    gemm = 5.0 * 3 * 12 / 3  # per step: 3 layers x 5 us x (10 + 1 + 1) / 3 steps
    assert [(r.key, r.status) for r in d.kernels[:1]] == [("gemm_qkv_kernel", "changed")]
    assert d.kernels[0].delta_us == pytest.approx(gemm) and d.kernels[0].delta_pct == pytest.approx(100.0)
    status = {r.key: r.status for r in d.kernels}
    assert status["fused_add_kernel"] == "new" and status["add_kernel"] == "vanished"
    assert status["rms_norm_kernel"] == "unchanged" and {r.status for r in d.kernels[3:]} == {"unchanged"}
    assert sum(r.delta_us for r in d.kernels) == pytest.approx(d.delta_us) == pytest.approx(gemm)
    assert d.total_us_a == pytest.approx(12 * DECODE_STEP_US / 3)


def test_without_steps_totals_are_raw():
    d = diff(load_trace(DATA / "ranks" / "trace_rank0.json"), load_trace(DATA / "ranks" / "trace_rank1.json"))
    assert not d.per_step and "nothing is normalised" in d.notes[0]
    assert [(r.key, r.status, r.delta_us) for r in d.kernels] == [("rank1_kernel", "new", 3.0),
                                                                  ("rank0_kernel", "vanished", -2.0)]
