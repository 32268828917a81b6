"""Counted work on the hierarchical roofline, the model checked against the counts, and the plot:
on counts the H200 recorded (``tests/data/counters/``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench_kernel.counters import read_counters
from bench_kernel.errors import UsageError
from bench_kernel.records import Calibration, CounterReport, MeasuredRoofline
from bench_kernel.roofline import check_model, place_measured

DATA = Path(__file__).parent / "data" / "counters"
SUITE = DATA / "ncu_raw_h200_suite.csv"
MIB = 1 << 20


def _case(name: str) -> CounterReport:
    return read_counters(SUITE, nvtx_range=f"bk_{name}")


def _calibration(l2_tbps: float | None) -> Calibration:
    return Calibration(device="H200", reported_name="NVIDIA H200", driver="test", torch_version="t",
                       measured_at="2026-11-30T05:28:36+00:00", dram_tbps=4.25, l2_tbps=l2_tbps,
                       matmul_tflops={"bf16": 808.3}, launch_events_us=3.68, launch_graph_node_us=0.53)


def test_gemm_points_per_level_and_its_bound():
    m = place_measured(_case("gemm_4096_bf16"), 180.0, device="H200", name="gemm", model_flops=2 * 4096**3,
                       model_bytes=3 * 4096 * 4096 * 2, calibration=False)
    dram = m.level("dram")
    assert dram.bytes == 148_159_488 + 27_973_632
    assert dram.intensity == pytest.approx(2 * 4096**3 / dram.bytes)
    assert (dram.ceiling_tbps, dram.ceiling_source) == (4.8, "spec")
    assert m.level("l1").ceiling_tbps == 33.45 and m.level("l2").ceiling_tbps is None
    assert m.dtype == "bf16" and m.compute_peak_tflops == 989.4 and m.bound == "compute"
    assert m.achieved_tflops == pytest.approx(2 * 4096**3 / 180e-6 / 1e12)
    assert any(n.text.startswith("no ceiling for l2") for n in m.notes)
    # re-reads: the tiles of A and B come from DRAM more than once
    (bytes_check,) = [c for c in m.checks if c.quantity == "bytes"]
    assert bytes_check.ratio == pytest.approx(dram.bytes / (3 * 4096 * 4096 * 2))
    assert bytes_check.note.startswith("counted bytes are 175% of the model: likely data re-read from DRAM")


def test_calibrated_l2_ceiling_is_used_and_labelled_measured():
    m = place_measured(_case("mul_256MB"), 125.0, device="H200", calibration=_calibration(10.97),
                       model_flops=1 << 26, model_bytes=2 * 256 * MIB)
    assert (m.level("l2").ceiling_tbps, m.level("l2").ceiling_source) == (10.97, "measured")
    assert m.bound == "dram" and m.level("dram").pct_of_ceiling == pytest.approx(
        100 * (268_451_072 + 242_630_144) / 125e-6 / 1e12 / 4.8)
    assert [c.note for c in m.checks] == [None, None]  # 95% of 2x256 MiB and one FMUL per element: within 25%


def test_padded_gemv_and_l2_resident_attention_are_named():
    gemv = place_measured(_case("gemv_bf16"), 35.0, device="H200", model_flops=2 * 8192 * 8192,
                          model_bytes=8192 * 8192 * 2, calibration=False)
    (flops,) = [c for c in gemv.checks if c.quantity == "flops"]
    assert flops.ratio == 8.0  # N=1 padded to the 8-wide tile of nvjet 64x8
    assert "masked or padded work" in flops.note
    sdpa = place_measured(_case("sdpa_causal"), 150.0, device="H200", model_flops=4 * 16 * 2048 * 2048 * 128 * 2,
                          model_bytes=4 * 4 * 16 * 2048 * 128 * 2, calibration=False)
    (nbytes,) = [c for c in sdpa.checks if c.quantity == "bytes"]
    assert "L2-resident data" in nbytes.note and "(only 18 MB of writes reached DRAM)" in nbytes.note


def test_tiny_kernels_blame_fixed_costs_not_the_model():
    m = place_measured(_case("tiny_add"), 2.0, device="H200", model_flops=1, model_bytes=12, calibration=False)
    notes = [c.note for c in m.checks]
    assert "under 1 MiB, the fixed traffic of any launch" in notes[0]
    assert "under a million FLOPs, the kernel's own bookkeeping" in notes[1]


def test_check_model_tolerance_edges():
    assert check_model("bytes", 100 * MIB, 125 * MIB, {}).note is None
    assert check_model("bytes", 100 * MIB, 126 * MIB, {}).note.startswith("counted bytes are 126% of the model")
    assert check_model("flops", None, 5e9, {}).ratio is None


def test_round_trip_and_refusals():
    m = place_measured(_case("rmsnorm"), 41.0, device="H200", model_flops=4 * 8192 * 4096,
                       model_bytes=2 * 8192 * 4096 * 2, calibration=False)
    assert MeasuredRoofline.from_dict(m.to_dict()).to_dict() == m.to_dict()
    with pytest.raises(UsageError, match="no counts to place: ncu is not on PATH"):
        place_measured(CounterReport("ncu", error="ncu is not on PATH"), 1.0, device="H200")
    with pytest.raises(UsageError, match="time_us must be > 0"):
        place_measured(_case("rmsnorm"), 0.0, device="H200")


def test_hierarchical_plot_draws_ceilings_points_and_models(tmp_path):
    pytest.importorskip("matplotlib")
    from bench_kernel.roofline import build_measured_figure, plot_measured

    points = {c: place_measured(_case(c), t, device="H200", name=c, model_flops=f, model_bytes=b,
                                calibration=_calibration(10.97))
              for c, t, f, b in (("gemm_4096_bf16", 180.0, 2 * 4096**3, 3 * 2 * 4096**2),
                                 ("mul_256MB", 125.0, 1 << 26, 2 * 256 * MIB))}
    fig = build_measured_figure(points)
    gids = {a.get_gid() for ax in fig.axes for a in ax.get_children() if a.get_gid()}
    assert {"ceiling-dram", "ceiling-l2", "ceiling-l1", "roof-bf16", "roof-fp32", "point-0-dram", "point-0-l2",
            "model-0", "point-1-l1", "model-1"} <= gids
    assert "point-0-l1" not in gids  # the GEMM's L1 bytes (TMA bypasses L1) are under 1% of its DRAM bytes
    assert "under 1% of the DRAM bytes, not shown: l1 of gemm_4096_bf16" in [t.get_text() for t in fig.texts]
    svg = plot_measured(points, tmp_path / "h.svg").read_text()
    assert 'id="ceiling-l2"' in svg and "L2 ceiling 10.97 TB/s (measured)" in svg
