"""Joining counted launches (ncu's names, recorded on the H200) to the timed breakdown (Kineto's names)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench_kernel.counters import join, read_counters
from bench_kernel.records import KernelCounters

DATA = Path(__file__).parent / "data" / "counters"
SHARED = Path(__file__).resolve().parent.parent.parent / "shared" / "data" / "kernel_names" / "real_kernel_names.tsv"


def _kineto(prefix: str) -> str:
    """A real name the PyTorch profiler recorded (``../shared/data``), starting with ``prefix``."""
    if not SHARED.is_file():
        pytest.skip("../shared/data is not here")
    for line in SHARED.read_text().splitlines():
        name = line.split("\t")[0]
        if name.startswith(prefix):
            return name
    pytest.fail(f"no recorded name starts with {prefix!r}")


def _launch(case: str) -> KernelCounters:
    (k,) = read_counters(DATA / "ncu_raw_h200_suite.csv", nvtx_range=f"bk_{case}").kernels
    return k


def test_two_instantiations_of_one_kernel_go_to_their_own_rows():
    add = _kineto("void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>")
    mul = _kineto("void at::native::vectorized_elementwise_kernel<4, at::native::AUnaryFunctor<float, float, float, "
                  "at::native::binary_internal::MulFunctor<float> >")
    counted = [_launch("tiny_add"), _launch("mul_256MB")]
    rows, notes = join(counted, [(mul, 1.0), (add, 1.0)])  # the breakdown is ordered by time, not launch
    assert [(r.name, r.matched_by) for r in rows] == [(mul, "name"), (add, "name")]
    assert rows[0].counters.dram_read_bytes == 268_451_072 and rows[1].counters.dram_read_bytes == 5_632
    assert notes == []


def test_kineto_and_ncu_spell_the_layer_norm_differently_and_still_join():
    kineto = _kineto("void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<c10::BFloat16, float, "
                     "false>")
    (row,), notes = join([_launch("rmsnorm")], [(kineto, 1.0)])
    assert row.matched_by == "name" and row.counters.registers_per_thread == 27 and notes == []


def test_one_leftover_each_side_pairs_more_do_not_and_counts_that_differ_are_said():
    triton = _launch("triton_add")  # 'add_kernel'
    (row,), notes = join([triton], [("my_renamed_add", 1.0)])
    assert (row.matched_by, row.counters.dram_read_bytes) == ("order", 134_227_200)
    assert [n.text for n in notes] == ["joined as the only kernels left on each side, the names differ: "
                                       "'my_renamed_add' (timed) and 'add_kernel' (counted)"]
    rows, notes = join([triton, _launch("compiled_silu_mul")], [("x", 1.0), ("y", 1.0)])
    assert [r.matched_by for r in rows] == ["none", "none", "none", "none"]
    assert [r.launches_per_call for r in rows] == [1.0, 1.0, None, None]
    assert [n.text for n in notes] == ["no counts for x, y: the counter tool saw no such launch",
                                       "counted but not in the timed breakdown: add_kernel, triton_poi_fused_mul_silu_0"]
    (row,), notes = join([triton, triton], [("add_kernel", 1.0)])
    assert row.counters.launches == 2 and row.counters.dram_read_bytes == 2 * 134_227_200
    assert [n.text for n in notes] == ["add_kernel: 1 launches per timed call, 2 counted"]
