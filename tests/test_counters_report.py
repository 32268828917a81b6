"""Counted work in the tables, the JSON (written and read back) and the HTML report, from H200 counts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from _report_helpers import gpu_result
from bench_kernel.counters import join, read_counters
from bench_kernel.records import BenchResult, CounterReport, KernelStat
from bench_kernel.report import (
    counted,
    counter_kernels_table,
    counters_table,
    to_markdown,
)
from bench_kernel.roofline import place_measured

DATA = Path(__file__).parent / "data" / "counters"
GEMM = ("void cutlass::Kernel2<cutlass_80_simt_sgemm_256x128_8x4_nn_align1>(cutlass_80_simt_sgemm_256x128_8x4_nn_"
        "align1::Params)")


def _counted(name: str, case: str, time_us: float, flops: float, nbytes: float, kernel: str) -> BenchResult:
    report = read_counters(DATA / "ncu_raw_h200_suite.csv", nvtx_range=f"bk_{case}")
    joined, notes = join(report.kernels, [(kernel, 1.0)])
    report = report.replace(joined=tuple(joined), notes=report.notes + tuple(notes), tool_version="2025.3.1", chip="gh100",
                     wall_s=9.5)
    r = gpu_result(name, {"n": 2048}, time_us, flops=flops, bytes=nbytes,
                   kernels=(KernelStat(kernel, "sgemm", "gemm", "kernel", 1.0, time_us, 1.0),))
    placed = place_measured(report, r.time_us, device="H200", name=name, model_flops=flops, model_bytes=nbytes,
                            calibration=False)
    return r.replace(counters=report, measured_roofline=placed)


def _results() -> list[BenchResult]:
    sgemm = _counted("sgemm", "gemm_2048_fp32", 330.0, 2.0 * 2048**3, 3 * 4 * 2048**2, GEMM)
    missing = gpu_result("no_ncu", {}, 10.0, bytes=1e6).replace(
                      counters=CounterReport("ncu", error="ncu is not on PATH"))
    return [sgemm, missing]


def test_counters_table_puts_model_and_counts_side_by_side():
    table = counters_table(counted(_results()))
    row, failed = table.rows
    assert row["case"] == "sgemm" and row["dram_bytes"] == 16_851_200 + 1_386_752
    assert row["bytes_ratio"] == pytest.approx((16_851_200 + 1_386_752) / (3 * 4 * 2048**2))
    assert row["gflop"] == pytest.approx(17.184063488) and row["flops_ratio"] == pytest.approx(1.00024, rel=1e-5)
    assert row["tensor_pct"] == 0 and row["bound"] == "compute" and row["wall_s"] == 9.5
    assert failed == {"case": "no_ncu", "bound": "not counted"}
    text = to_markdown(table)
    assert "times from bench-kernel's methods, never from the counter tool's replays" in text
    assert "no_ncu: ncu is not on PATH" in text
    assert "sgemm: 1 launch(es) counted by ncu 2025.3.1 on gh100" in text


def test_a_report_that_counted_no_kernel_and_names_no_error_is_not_counted():
    # Its total is None (no kernel to sum): the table says so instead of failing on the missing total.
    empty = gpu_result("empty", {}, 10.0).replace(counters=CounterReport("ncu"))
    table = counters_table(counted([empty]))
    assert table.rows == [{"case": "empty", "bound": "not counted"}]
    assert "empty: no kernel was counted" in table.notes


def test_kernel_table_joins_the_timed_kernel():
    (row,) = counter_kernels_table(counted(_results())).rows
    assert row["kernel"] == "cutlass_80_simt_sgemm_256x128_8x4_nn_align1" and row["name"] == GEMM
    assert row["matched_by"] == "name" and row["registers"] == 202 and row["per_call"] == 1.0


def test_json_keeps_counts_and_placement_through_a_file(tmp_path):
    from bench_kernel.results import load_results_file

    path = tmp_path / "run.json"
    path.write_text(json.dumps({"results": [r.to_dict() for r in _results()]}))
    _, points = load_results_file(path)
    back = points[0].to_dict()["result"]
    assert back["counters"]["total"]["flops"] == 17_184_063_488
    assert back["counters"]["time_source"].startswith("none: counts only")
    assert back["measured_roofline"]["levels"][0]["level"] == "dram"
    assert back["measured_roofline"]["time_method"] == "graph"
    assert points[1].result.counters.error == "ncu is not on PATH"


def test_html_report_has_the_counters_section_and_plot(tmp_path):
    pytest.importorskip("matplotlib")
    from bench_kernel.report import render_report
    from bench_kernel.report_model import load_report

    path = tmp_path / "run.json"
    path.write_text(json.dumps({"results": [r.to_dict() for r in _results()]}))
    page = render_report(load_report([str(path)]), generated_at="2026-12-02T00:00:00+00:00")
    assert 'id="counters"' in page and "Hardware counters: the model against the counts" in page
    assert 'data-plot="hierarchical-roofline"' in page and 'id="hroof-ceiling-dram"' in page
    assert "no_ncu: ncu is not on PATH" in page
