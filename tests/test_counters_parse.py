"""The counter parsers and formulas on output recorded by ncu on an H200 and by rocprofv3 on an MI300X
(``tests/data/counters/README.md`` says where each file comes from)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench_kernel.counters import (
    base_name,
    in_range,
    metric_table,
    parse_ncu_csv,
    parse_rocprof_csv,
    read_counters,
    signature,
    to_kernels,
)
from bench_kernel.counters._table import parse_table
from bench_kernel.errors import InputError
from bench_kernel.records import CounterReport, KernelCounters, info

DATA = Path(__file__).parent / "data" / "counters"
MIB = 1 << 20


def _suite() -> dict[str, KernelCounters]:
    launches = parse_ncu_csv((DATA / "ncu_raw_h200_suite.csv").read_text())
    kernels, _ = to_kernels(launches, metric_table("ncu"))
    return {launch.ranges[0].removeprefix("bk_"): k for launch, k in zip(launches, kernels)}


def test_raw_page_of_the_h200_suite_gives_each_case_its_launch():
    launches = parse_ncu_csv((DATA / "ncu_raw_h200_suite.csv").read_text())
    assert [launch.id for launch in launches] == list(range(11))
    assert [launch.ranges for launch in launches][:3] == [("bk_tiny_add",), ("bk_mul_4MB",), ("bk_mul_256MB",)]
    assert launches[9].name == "add_kernel" and launches[10].name == "triton_poi_fused_mul_silu_0"
    # thousands separators are read, not truncated at the first comma
    assert launches[2].values["dram__bytes_read.sum"] == 268_451_072


def test_streaming_mul_moves_twice_its_size_less_what_l2_still_holds():
    mul = _suite()["mul_256MB"]
    size = 256 * MIB
    assert mul.dram_read_bytes == 268_451_072 and mul.dram_write_bytes == 242_630_144
    assert 0.95 < mul.dram_bytes / (2 * size) < 1.0  # writes still dirty in L2 when the kernel ends
    assert mul.scalar_flops["fp32"] == 1 << 26  # one FMUL per element
    assert mul.tensor_flops["bf16"] == 0
    assert (mul.registers_per_thread, mul.passes) == (32, 16)
    assert mul.memory_sol_pct == pytest.approx(84.32) and mul.l2_hit_rate_pct == pytest.approx(50.17)


def test_tensor_flops_of_bf16_gemms_are_2mnk_and_padding_shows():
    suite = _suite()
    assert suite["gemm_4096_bf16"].tensor_flops["bf16"] == 2 * 4096**3
    assert suite["gemm_4096_bf16"].flops == 2 * 4096**3  # no CUDA-core FLOPs in the nvjet kernel
    # 320x128 tiles cover 8192 with 8320 rows: 1.5625% more tensor work than 2*8192^3
    assert suite["gemm_8192_bf16"].tensor_flops["bf16"] / (2 * 8192**3) == pytest.approx(8320 / 8192, rel=1e-4)


def test_cuda_core_flops_count_an_fma_twice():
    sgemm = _suite()["gemm_2048_fp32"]
    assert sgemm.scalar_flops["fp32"] == 2 * 8_589_934_592 + 4_194_304  # FFMA x 2 + FMUL (the alpha scale)
    assert sgemm.scalar_flops["fp32"] / (2 * 2048**3) == pytest.approx(1, rel=3e-4)
    assert not any(sgemm.tensor_flops.values())
    formulas = to_kernels(parse_ncu_csv((DATA / "ncu_raw_h200_suite.csv").read_text()), metric_table("ncu"))[1]
    assert formulas["scalar_flops.fp32"].startswith("2 x sm__sass_thread_inst_executed_op_ffma_pred_on.sum + ")


def test_imported_report_scales_units_back_to_bytes():
    (launch,) = parse_ncu_csv((DATA / "ncu_import_h200_rmsnorm.csv").read_text())
    assert launch.values["dram__bytes_read.sum"] == pytest.approx(67_666_432)  # printed as 67.666432 Mbyte
    assert launch.values["launch__registers_per_thread"] == 27
    live = _suite()["rmsnorm"]  # the same kernel in another run, printed in bytes
    assert launch.values["dram__bytes_read.sum"] / live.dram_read_bytes == pytest.approx(1, rel=1e-3)


def test_long_form_and_raw_page_give_the_same_fields():
    (long_form,) = parse_ncu_csv((DATA / "ncu_details_h200_gemm4096.csv").read_text())
    kernels, _ = to_kernels([long_form], metric_table("ncu"))
    assert long_form.ranges == ("bk_gemm_4096_bf16",)
    assert kernels[0].tensor_flops["bf16"] == 2 * 4096**3
    assert kernels[0].dram_read_bytes == 148_486_400


def test_ncu_spellings_of_one_kernel_share_base_name_and_signature():
    suite = parse_ncu_csv((DATA / "ncu_raw_h200_suite.csv").read_text())[2].name
    alone = parse_ncu_csv((DATA / "ncu_raw_h200_mul256.csv").read_text())[0].name
    assert suite != alone  # 'at::...binary_internal::MulFunctor' vs 'MulFunctor'
    assert base_name(suite) == base_name(alone) == "vectorized_elementwise_kernel"
    assert signature(suite) == signature(alone) == \
        "vectorized_elementwise_kernel<4,AUnaryFunctor<float,float,float,MulFunctor<float>>,array<char*,2>>"


def test_without_nvtx_every_launch_is_there_and_no_range_selects_any():
    launches = parse_ncu_csv((DATA / "ncu_raw_h200_no_nvtx.csv").read_text())
    names = [base_name(launch.name) for launch in launches]
    assert names.count("vectorized_elementwise_kernel") == 4 and names.count("vectorized_layer_norm_kernel") == 4
    assert in_range(launches, "bk_rmsnorm") == []
    with pytest.raises(InputError, match="no kernel launch in the NVTX range 'bk_rmsnorm'"):
        read_counters(DATA / "ncu_raw_h200_no_nvtx.csv", nvtx_range="bk_rmsnorm")


def test_no_kernels_profiled_is_an_empty_list_not_an_error():
    assert parse_ncu_csv((DATA / "ncu_no_kernels_h200.txt").read_text()) == []


def test_truncated_or_foreign_output_is_refused_with_the_reason():
    text = (DATA / "ncu_raw_h200_suite.csv").read_text()
    with pytest.raises(InputError, match="truncated"):
        parse_ncu_csv(text[: text.rindex('"nvjet') + 40], "cut.csv")
    with pytest.raises(InputError, match="ERR_NVGPUCTRPERM"):
        parse_ncu_csv("==PROF== Connected to process 7\n==ERROR== ERR_NVGPUCTRPERM - The user does not have "
                      "permission to access NVIDIA GPU Performance Counters on the target device 0.\n", "x")
    with pytest.raises(InputError, match="no column 'dispatch_id'"):
        parse_rocprof_csv((DATA / "ncu_raw_h200_mul256.csv").read_text(), "x")


def test_rocprofv3_mi300x_copy_by_amds_formulas():
    launches = parse_rocprof_csv((DATA / "rocprofv3_mi300x_vcopy.csv").read_text())
    assert [launch.id for launch in launches] == [1, 2, 3]
    kernels, formulas = to_kernels(launches, metric_table("rocprofv3"))
    first = kernels[0]
    # gfx942 FETCH_SIZE from the raw TCC counters: 128*65536 + 64*(65757-65536) bytes
    assert first.dram_read_bytes == 128 * 65536 + 64 * (65757 - 65536)
    assert first.dram_read_bytes / (8 * MIB) == pytest.approx(1, rel=2e-3)
    assert first.dram_write_bytes == 8 * MIB  # 131,072 64-byte write requests
    assert first.l2_hit_rate_pct == pytest.approx(100 * 68496 / (68496 + 131200))
    assert first.registers_per_thread == 4 and first.flops == 0
    assert formulas["dram_read_bytes"] == "64 x TCC_BUBBLE_sum + 64 x TCC_EA0_RDREQ_sum - 32 x TCC_EA0_RDREQ_32B_sum"


def test_rocprofv3_own_column_spelling():
    launches = parse_rocprof_csv((DATA / "rocprofv3_sdk_docs_sq_waves.csv").read_text())
    assert [launch.id for launch in launches] == sorted(launch.id for launch in launches)
    assert launches[0].values == {"SQ_WAVES": 16384.0, "VGPR_Count": 8.0}
    report = read_counters(DATA / "rocprofv3_sdk_docs_sq_waves.csv")
    assert report.tool == "rocprofv3" and report.kernels[0].registers_per_thread == 8
    assert report.kernels[0].dram_bytes is None  # SQ_WAVES alone says nothing about bytes


def test_every_row_of_both_tables_loads_and_names_a_source():
    ncu = metric_table("ncu")
    assert "sm__ops_path_tensor_op_hgmma_src_bf16_dst_fp32.sum" in ncu.requested("gh100")
    assert not any("ops_path" in m for m in ncu.requested("ga100"))  # gh100 names only
    assert "profiler__replayer_passes" not in ncu.requested("gh100")  # read when printed, never asked for
    amd = metric_table("rocprofv3")
    assert amd.requested("gfx942")[:2] == ["FETCH_SIZE", "WRITE_SIZE"]
    assert "TCC_BUBBLE_sum" not in amd.requested("gfx942")  # variant 2 reads files, is not requested


def test_table_rules_are_enforced():
    def row(**kw):
        base = dict(field="l2_hit_rate_pct", variant="1", part="num", counter="A", factor="1", chips="all",
                    source="s")
        return {**base, **kw}

    with pytest.raises(InputError, match="a ratio needs num and den rows"):
        parse_table([row(), row(part="sum", counter="B")], "ncu", "t.tsv")
    with pytest.raises(InputError, match="per-launch property"):
        parse_table([row(part="sum"), row(part="sum", counter="B")], "ncu", "t.tsv")
    from bench_kernel.counters._table import _check
    with pytest.raises(InputError, match="unknown field 'dram_bytes'"):
        _check(row(field="dram_bytes"), "t.tsv:3")
    with pytest.raises(InputError, match="finite, non-zero"):
        _check(row(factor="0"), "t.tsv:3")


def test_combine_sums_counts_and_averages_properties_and_round_trips():
    a = KernelCounters("k", dram_read_bytes=10, scalar_flops={"fp32": 4}, registers_per_thread=32, memory_sol_pct=80)
    b = KernelCounters("k", launches=3, dram_read_bytes=30, scalar_flops={"fp32": 6}, tensor_flops={"bf16": 100},
                       registers_per_thread=32, memory_sol_pct=40)
    both = KernelCounters.combine("k", [a, b])
    assert (both.launches, both.dram_read_bytes, both.dram_write_bytes) == (4, 40, None)
    assert both.flops_by_precision() == {"fp32": 10, "bf16": 100}
    assert both.memory_sol_pct == pytest.approx((80 + 3 * 40) / 4)  # weighted by launches
    report = CounterReport("ncu", kernels=(a, b), chip="gh100", wall_s=3.5, notes=(info("n", "n"),))
    again = CounterReport.from_dict(report.to_dict())
    assert again.to_dict() == report.to_dict()
    assert report.to_dict()["total"]["flops"] == 110
    assert CounterReport("ncu", error="no ncu").to_dict()["ok"] is False
