"""Results above their roof are judged: the likely causes are named, in the order they are checked."""

from __future__ import annotations

from _hardware_helpers import make_calibration
from bench_kernel.hardware import get_device
from bench_kernel.report import format_value
from bench_kernel.roofline import analyze, over_roof

H200 = get_device("H200")
GEMM = 2 * 8192**3  # 8192^3 bf16 GEMM: 1.1e12 FLOPs
GEMM_BYTES = 3 * 2 * 8192**2


def test_the_1188_percent_closure_is_a_wrong_dtype():
    # The H200 finding: lambda: a @ b in bf16 at ~800 TFLOP/s, judged against the fp32 roof.
    r = analyze(GEMM, GEMM_BYTES, GEMM / 800e6, device=H200, dtype="fp32", calibration=False)
    assert 1180 < r.pct_of_roof < 1200
    note = over_roof(r, H200, dtype_source="default", flops_source="given")
    assert note.startswith("(!) above the roof: 1196% of the fp32 spec roof (compute-bound); likely: wrong dtype: "
                           "judged as fp32 (taken from the default, not from the ops) at 66.9 TFLOP/s, but 800 "
                           "TFLOP/s fits under the bf16 peak (989.4)")
    assert "FLOPs over-counted: the case states them" in note


def test_an_fp32_gemm_on_tf32_tensor_cores_says_so():
    r = analyze(GEMM, GEMM_BYTES, GEMM / 400e6, device=H200, dtype="fp32", calibration=False)
    note = over_roof(r, H200, dtype_source="ops", flops_source="counted")
    assert "fits under the tf32 peak (494.7): fp32 GEMMs run as TF32 when torch allows it" in note
    assert "FLOPs over-counted" not in note  # counted FLOPs, not an upper bound


def test_causal_attention_stated_at_full_cost():
    flops = 4 * 8 * 32 * 4096 * 4096 * 128  # stated at full cost; the kernel does half
    r = analyze(flops, 1e9, flops / 1100e6, device=H200, dtype="bf16", calibration=False)
    note = over_roof(r, H200, dtype_source="ops", flops_source="given", causal=True)
    assert "FLOPs over-counted: the case states them and causal attention ran: a causal mask halves the work" in note
    assert "sparse or causal work: the kernel skips work the count includes" in note


def test_memory_bound_above_the_roof_from_cache():
    r = analyze(0, 64e6, 64e6 / 9e6, device=H200, dtype="bf16", calibration=False)  # 9 TB/s: L2, not HBM
    warm = over_roof(r, H200, dtype_source="ops", bytes_source="counted", warm_cache=True)
    assert "(memory-bound); likely: served from cache: the inputs were warm in L2, not read from DRAM" in warm
    cold = over_roof(r, H200, dtype_source="ops", bytes_source="given")
    assert "likely: bytes over-counted: the case states them; served from cache: data reused from L2" in cold


def test_the_calibrated_roof_is_quoted_when_there_is_one():
    cal = make_calibration(matmul_tflops={"bf16": 1100.0})  # a GPU faster than its datasheet
    r = analyze(GEMM, GEMM_BYTES, GEMM / 1050e6, device=H200, dtype="bf16", calibration=cal)
    note = over_roof(r, H200, dtype_source="ops", flops_source="counted")
    assert note.endswith("roof too low for this SKU/clock: the peak table gives H200 989.4 TFLOP/s bf16, 4.8 TB/s; "
                         "against this GPU's calibrated roof it is 95%")


def test_at_or_under_the_roof_nothing_is_said_and_the_cell_is_unmarked():
    r = analyze(GEMM, GEMM_BYTES, GEMM / 700e6, device=H200, dtype="bf16", calibration=False)
    assert over_roof(r, H200) is None
    assert format_value(r.pct_of_roof, "roof_pct") == "70.7%"
    assert format_value(1188.04, "roof_pct") == "1188.0% (!)"
