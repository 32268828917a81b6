"""Rotation sizing, input-set handling and the output check (CPU tensors)."""

from __future__ import annotations

import pytest
import torch

from bench_kernel.measure._check import compare, tolerance_for
from bench_kernel.measure._inputs import call_with, plan_rotation, tensor_bytes

MiB = 2**20
L2 = 60 * MiB  # an H200


def test_rotation_keeps_three_l2_between_reuses():
    r = plan_rotation(4 * MiB, L2, budget_bytes=2**34)
    assert r.sets == 1 + 45  # 45 other sets x 4 MiB = 180 MiB = 3 x L2
    assert (r.sets - 1) * 4 * MiB >= 3 * L2
    assert r.exceeds_l2 and r.note is None


def test_large_sets_still_rotate_at_least_twice():
    # One 128 MiB set is twice L2, yet reusing it back to back leaves much of it in L2.
    r = plan_rotation(128 * MiB, L2, budget_bytes=2**34)
    assert r.sets == 3 and r.total_bytes == 384 * MiB and r.exceeds_l2


def test_tiny_sets_hit_the_cap_and_say_they_stay_warm():
    r = plan_rotation(8, L2, budget_bytes=2**34)
    assert r.sets == 256
    assert not r.exceeds_l2
    assert "256-set cap" in r.note and "warm" in r.note


def test_memory_budget_limits_rotation():
    r = plan_rotation(512 * MiB, 1024 * MiB, budget_bytes=1024 * MiB)
    assert r.sets == 2
    assert "memory budget" in r.note


def test_no_tensors_no_rotation():
    r = plan_rotation(0, L2, budget_bytes=2**30)
    assert r.sets == 1 and "no tensors" in r.note


def test_tensor_bytes_counts_each_storage_once():
    x = torch.zeros(1000, dtype=torch.float32)
    y = torch.zeros(10, dtype=torch.bfloat16)
    assert tensor_bytes((x, x[:10], {"y": y}, [x.view(10, 100)], 3)) == 4000 + 20


def test_call_with_spreads_tuples_and_dicts():
    f = lambda a=0, b=0: (a, b)  # noqa: E731
    assert call_with(f, (1, 2)) == (1, 2)
    assert call_with(f, [1, 2]) == (1, 2)
    assert call_with(f, {"b": 5}) == (0, 5)
    assert call_with(f, 7) == (7, 0)
    assert call_with(f, None) == (0, 0)


def test_compare_passes_within_dtype_tolerance_and_fails_beyond():
    torch.manual_seed(0)
    ref = torch.randn(256, 256, dtype=torch.float64)
    assert compare(ref.to(torch.bfloat16), ref) is None  # bf16 rounding: ~3e-3 relative
    assert compare(ref.float(), ref) is None
    wrong = compare((ref * 1.05).to(torch.bfloat16), ref)
    assert wrong is not None and "relative error" in wrong and "bfloat16" in wrong
    assert tolerance_for(torch.int32) == 0.0


def test_compare_reports_shape_nan_and_structure():
    a = torch.ones(3)
    assert "shape" in compare(torch.ones(4), a)
    nan = torch.tensor([1.0, float("nan"), 1.0])
    assert "NaN" in compare(nan, a)
    assert compare((a, {"k": a}), (a, {"k": a})) is None
    assert "2 values" in compare((a, a), (a,))
    assert "!=" in compare(3, 4)
    assert "infinities" in compare(torch.tensor([float("inf")]), torch.tensor([1.0]))


@pytest.mark.parametrize("dtype", [torch.int64, torch.bool])
def test_compare_is_exact_for_integers(dtype):
    a = torch.tensor([1, 0, 1], dtype=dtype)
    b = torch.tensor([1, 1, 1], dtype=dtype)
    assert compare(a, a.clone()) is None
    assert compare(a, b) is not None
