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


def test_tiny_sets_that_all_fit_in_l2_are_one_set_and_say_they_stay_warm():
    r = plan_rotation(8, L2, budget_bytes=2**34)
    assert r.sets == 1 and r.total_bytes == 8  # 256 sets of 8 B all stay in L2: one set is the same
    assert not r.exceeds_l2
    assert "fit in L2" in r.note and "warm" in r.note


def test_sets_that_reach_past_l2_but_not_twice_rotate_and_say_they_stay_warm():
    r = plan_rotation(300 * 1024, L2, budget_bytes=2**34)  # 256 x 300 KiB = 75 MiB: past L2, not 2x
    assert r.sets == 256 and not r.exceeds_l2
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
    bf16 = compare(ref.to(torch.bfloat16), ref)  # bf16 rounding: ~3e-3 relative
    assert bf16.passed and 1e-3 < bf16.rel_error < 5e-3 and bf16.rtol == 1.6e-2 and bf16.dtype == "bf16"
    assert compare(ref.float(), ref).passed
    wrong = compare((ref * 1.05).to(torch.bfloat16), ref)
    assert not wrong.passed and wrong.rel_error == pytest.approx(0.05, rel=0.1)
    assert "relative error 0.05" in wrong.describe() and "bf16 tolerance rtol 0.016" in wrong.describe()
    assert wrong.max_abs_error == pytest.approx(float((ref * 0.05).abs().max()), rel=0.1)
    assert tolerance_for(torch.int32) == 0.0


def test_a_tanh_gelu_against_the_exact_one_needs_its_own_tolerance_and_says_its_error():
    # A tanh-GELU checked against exact GELU at fp32 errs by ~2e-4, over the 1e-4 default
    torch.manual_seed(0)
    x = torch.randn(4096)
    tanh, exact = torch.nn.functional.gelu(x, approximate="tanh"), torch.nn.functional.gelu(x)
    default = compare(tanh, exact)
    assert not default.passed and default.rtol == 1e-4 and 1e-4 < default.rel_error < 5e-4
    given = compare(tanh, exact, rtol=1e-3)
    assert given.passed and given.rel_error == pytest.approx(default.rel_error) and given.rtol == 1e-3
    # atol: an RMS allowance in the output's units lets the same error through
    rms_err = float(torch.linalg.vector_norm(tanh - exact)) / 4096 ** 0.5
    assert compare(tanh, exact, atol=1.01 * rms_err).passed
    assert not compare(tanh, exact, atol=0.2 * rms_err).passed  # with rtol 1e-4 * RMS(ref) ~ 0.5 rms_err: short
    assert given.to_dict()["rel_error"] == given.rel_error and given.to_dict()["rtol"] == 1e-3


def test_compare_reports_shape_nan_and_structure():
    a = torch.ones(3)
    assert "shape" in compare(torch.ones(4), a).describe()
    nan = torch.tensor([1.0, float("nan"), 1.0])
    assert "NaN" in compare(nan, a).describe()
    both = compare((a, {"k": a * 2}), (a, {"k": a * 2 * (1 + 1e-6)}))
    assert both.passed and both.where == "out[1]['k']"  # the value with the largest error
    assert "2 values" in compare((a, a), (a,)).describe()
    assert "!=" in compare(3, 4).describe() and not compare(3, 4).passed
    assert "infinities" in compare(torch.tensor([float("inf")]), torch.tensor([1.0])).describe()


@pytest.mark.parametrize("rel", [1e-6, 3e-4, 0.5])
def test_finite_values_get_the_errors_of_the_masked_path(rel):
    # Finite values take one read; the same values beside matching infinities and NaNs take the
    # masked path, which leaves those out: both must say the same error, and the same verdict.
    g = torch.Generator().manual_seed(7)
    ref = torch.randn(5000, generator=g)
    out = ref + rel * torch.randn(5000, generator=g)
    odd = torch.tensor([float("inf"), float("-inf"), float("nan")])
    quick = compare(out, ref)
    masked = compare(torch.cat([out, odd]), torch.cat([ref, odd]))
    assert quick.passed == masked.passed == (rel < 1e-4)
    assert quick.rel_error == pytest.approx(masked.rel_error, rel=1e-12)
    assert quick.max_abs_error == pytest.approx(masked.max_abs_error, rel=1e-12)
    assert quick.rel_error == pytest.approx(float((out.double() - ref.double()).norm() / ref.double().norm()),
                                            rel=1e-12)


def test_a_nan_or_an_infinity_against_a_finite_reference_is_named_with_its_count():
    ref = torch.ones(6)
    out = ref.clone()
    out[[1, 4]] = float("nan")
    assert compare(out, ref).reason == "2 NaN values where the reference has none"
    out[[1, 4]] = float("inf")
    assert compare(out, ref).reason == "infinities differ from the reference"


@pytest.mark.parametrize("dtype", [torch.int64, torch.bool])
def test_compare_is_exact_for_integers(dtype):
    a = torch.tensor([1, 0, 1], dtype=dtype)
    b = torch.tensor([1, 1, 1], dtype=dtype)
    assert compare(a, a.clone()).passed
    assert not compare(a, b).passed


@pytest.mark.parametrize("case", ["float32 close", "float16 5% off", "shape", "nan", "inf", "int exact", "int off",
                                  "inf where the reference has inf", "empty"])
def test_numpy_outputs_get_the_verdict_and_error_their_tensors_get(case):
    # `!=` of two arrays has no truth value: a NumPy provider's check once raised ValueError.
    import warnings

    import numpy as np

    rng = np.random.default_rng(0)
    ref = rng.standard_normal(64).astype(np.float32)
    out, r = {
        "float32 close": (ref * (1 + 1e-6), ref),
        "float16 5% off": ((ref * 1.05).astype(np.float16), ref),
        "shape": (ref[:8], ref),
        "nan": (np.where(np.arange(64) < 2, np.nan, ref).astype(np.float32), ref),
        "inf": (np.where(np.arange(64) < 2, np.inf, ref).astype(np.float32), ref),
        "int exact": (np.arange(5), np.arange(5)),
        "int off": (np.arange(5) + (np.arange(5) == 3), np.arange(5)),
        "inf where the reference has inf": (np.array([np.inf, 1.0]), np.array([np.inf, 1.0])),
        "empty": (np.zeros(0, np.float32), np.zeros(0, np.float32)),
    }[case]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no RuntimeWarning from inf - inf
        got = compare(out, r)
    want = compare(torch.from_numpy(np.ascontiguousarray(out)), torch.from_numpy(np.ascontiguousarray(r)))
    assert (got.passed, got.reason, got.dtype, got.rtol) == (want.passed, want.reason, want.dtype, want.rtol)
    assert got.rel_error == (None if want.rel_error is None else pytest.approx(want.rel_error, rel=1e-9, abs=1e-15))
    assert got.passed is (case in ("float32 close", "int exact", "inf where the reference has inf", "empty"))


def test_a_numpy_output_against_a_list_or_a_tensor_names_both_types():
    import numpy as np

    assert compare(np.ones(1), [1.0]).reason == "output is ndarray, reference is float"
    # NumPy scalars are numbers: a Python baseline fed NumPy inputs returns them.
    assert compare(np.float32(1.5), 1.5).passed and not compare(np.float32(1.5), np.float32(2.5)).passed
    assert compare([3, 4], [np.int64(3), np.int64(4)]).passed and not compare(3, np.int64(4)).passed
    assert compare(np.float32(0.1), 0.1).passed  # float32's rounding of 0.1 is within the numbers' 1e-6
    assert compare(np.ones(2), torch.ones(2)).reason == "output is ndarray, reference is Tensor"


def test_numpy_arrays_without_a_number_dtype_are_equal_or_not():
    # Strings, dates, objects and records have no error to measure; converting them to float64 raised
    # ValueError, and the check blamed the case.
    import numpy as np

    same = [np.array(["a", "b"]), np.array(["2020-01-01"], dtype="datetime64[D]"),
            np.array([1, None, "x"], dtype=object), np.zeros(2, dtype=[("a", "f4")])]
    for a in same:
        got = compare(a, a.copy())
        assert (got.passed, got.rel_error, got.rtol) == (True, 0.0, 0.0), a.dtype
    off = compare(np.array(["a", "b"]), np.array(["a", "c"]))
    assert (off.passed, off.reason) == (False, "<U1 values differ from the reference's (<U1)")
    assert compare(np.array(["1"]), np.array([1])).reason == "<U1 values differ from the reference's (int64)"
