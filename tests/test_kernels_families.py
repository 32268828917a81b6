"""Per-family decoding: the fields each family's grammar gives, with values."""

from __future__ import annotations

import inspect

import pytest

from bench_kernel.kernels import FAMILIES, decode, key_fields
from bench_kernel.kernels._decode import DECODERS
from bench_kernel.kernels._triton import split_ops


def fields(name: str) -> dict:
    return decode(name).to_dict()["fields"]


def test_every_family_has_a_decoder_and_other_is_last():
    assert FAMILIES[-1] == "other"
    assert sorted(f for f, _ in DECODERS) == sorted(FAMILIES[:-1])


def test_ck_blockscale_instance_follows_the_generator_grammar():
    f = fields("a8w8_blockscale_1x128x128_256x16x128x256_16x16_16x16_1x2_16x16x1_16x16x1_1x16x1x16_8_1x2_intrawave_v1")
    assert (f["ak1"], f["bk1"], f["m_per_xdl"], f["n_per_xdl"]) == (16, 16, 16, 16)
    assert (f["m_xdl_per_wave"], f["n_xdl_per_wave"]) == (1, 2)
    assert f["a_block_transfer"] == [16, 16, 1] and f["c_block_transfer"] == [1, 16, 1, 16]
    assert (f["c_shuffle_m_xdl_per_wave"], f["c_shuffle_n_xdl_per_wave"]) == (1, 2)
    assert (f["tile_m"], f["tile_n"], f["tile_k"]) == (16, 128, 256)


def test_ck_cktile_instance():
    f = fields("a8w8_cktile_128x128x64_2x2x1_32x32x16_intrawave_0x0x1_2")
    assert (f["tile_m"], f["tile_n"], f["tile_k"]) == (128, 128, 64)
    assert (f["m_warp"], f["n_warp"], f["m_warp_tile"]) == (2, 2, 32)
    assert f["scheduler"] == "intrawave" and f["block_per_cu"] == 2
    assert (f["tiled_mma_permute_n"], f["transpose_c"], f["use_persistent_kernel"]) == (False, False, True)


def test_ck_moe_stage2_without_activation():
    f = fields("moe_ck2stages_gemm2_256x64x128x128_1x4_MulABScaleExpertWeight_v3_Nswizzle1_per_tensor_MulRoutedWeight1")
    assert f["stage"] == 2 and f["nswizzle"] is True and f["mul_routed_weight"] is True
    assert f["quant"] == "per_tensor" and "activation" not in f and f["pipeline"] == "v3"


def test_ck_template_abscale_reads_the_v3_template_order():
    k = decode("void ck::kernel_gemm_xdl_cshuffle_v3<ck::GridwiseGemmMultiD_ABScale_xdl_cshuffle_v3<"
               "ck::tensor_layout::gemm::RowMajor, (ck::tensor_operation::device::GemmSpecialization)2, 256, 1, 128, "
               "128, 32, 64, 128, 16, 16, 32, 32, 1, 1, ck::Sequence<8, 32, 1>, (ck::BlockGemmPipelineScheduler)1, "
               "(ck::BlockGemmPipelineVersion)2>, true>(int)")
    f = k.to_dict()["fields"]
    assert (f["tile_m"], f["tile_n"], f["tile_k"], f["scale_block_n"]) == (32, 64, 128, 128)
    assert (f["scheduler"], f["pipeline"]) == ("interwave", "v3")
    assert k.short == "ck::kernel_gemm_xdl_cshuffle_v3<32x64x128>"


def test_tensile_layout_tile_and_isa():
    k = decode("Cijk_Alik_Bljk_BBS_BH_Bias_HA_S_SAV_UserArgs_MT256x224x64_MI16x16x1_SN_LDSB0_GRVWA8_ISA942_"
               "MIWT4_7_WS64_WG64_4_1")
    f = k.to_dict()["fields"]
    assert (f["layout"], f["tile_m"], f["tile_n"], f["tile_k"]) == ("TN", 256, 224, 64)
    assert (f["isa"], f["arch"], f["mi_wave_tile"], f["workgroup"]) == ("942", "gfx942", "4_7", "64_4_1")
    assert f["global_read_vector_width_a"] == 8 and f["types"] == "BBS_BH"
    assert k.short == "Cijk_TN_BBS_BH_MT256x224x64_MI16x16x1_ISA942"


def test_cublas_fields_are_marked_inferred():
    k = decode("sm80_xmma_gemm_f32f32_f32f32_f32_nn_n_tilesize32x32x8_stage3_warpsize1x2x1_ffma_aligna4_alignc4_"
               "execute_kernel__5x_cublas")
    f = k.to_dict()["fields"]
    assert (f["arch"], f["layout"], f["tile_k"], f["stages"], f["warps"]) == ("sm80", "NN", 8, 3, "1x2x1")
    assert {"arch", "tile_m", "stages", "layout"} <= set(k.inferred)
    assert any("inferred" in n for n in k.notes)
    nv = decode("nvjet_sm90_tst_64x8_64x16_4x1_v_bz_splitK_TNT")
    assert nv.to_dict()["fields"]["split_k"] is True and nv.to_dict()["fields"]["arch"] == "sm90"


def test_cublas_helper_kernels():
    k = decode("void gemv2T_kernel_val<int, int, __nv_bfloat16, __nv_bfloat16, __nv_bfloat16, float, 128, 16, 4, 4, "
               "false, false, cublasGemvParamsEx<int, cublasGemvTensorStridedBatched<__nv_bfloat16 const> > >(int)")
    assert (k.family, k.category, k.fields["kernel"]) == ("cublas", "gemm", "gemv2T_kernel_val")


def test_cutlass_cudnn_wrapper_and_device_kernel():
    k = decode("void cutlass__5x_cudnn::Kernel<cutlass_tensorop_bf16_s16816fprop_optimized_bf16_256x64_32x4_nhwc_align8>"
               "(cutlass_tensorop_bf16_s16816fprop_optimized_bf16_256x64_32x4_nhwc_align8::Params)")
    f = k.to_dict()["fields"]
    assert (k.family, f["op"], f["layout"], f["tile_k"], f["stages"], f["library"]) == \
        ("cutlass", "fprop", "NHWC", 32, 4, "cudnn")
    d = decode("void cutlass::device_kernel<cutlass::gemm::kernel::GemmUniversal<cutlass::gemm::collective::"
               "CollectiveMma<cutlass::gemm::MainloopSm90TmaGmmaWarpSpecialized<4, cute::tuple<cute::C<2>, cute::C<1>, "
               "cute::C<1> > >, cute::tuple<cute::C<128>, cute::C<256>, cute::C<64> >, float> > >(int)")
    assert (d.family, d.fields["tile_m"], d.fields["tile_n"], d.fields["tile_k"]) == ("cutlass", 128, 256, 64)


@pytest.mark.parametrize("text, ops", [
    ("_to_copy_add_native_layer_norm_view", ["_to_copy", "add", "native_layer_norm", "view"]),
    ("__unsafe_view_mul_silu", ["_unsafe_view", "mul", "silu"]),  # "fused_" + "_unsafe_view"
    ("constant_pad_nd_moe_forward", ["constant_pad_nd", "moe_forward"]),
    ("add", ["add"]),
    ("", []),
])
def test_inductor_op_split(text, ops):
    assert split_ops(text.removeprefix("_") if text.startswith("__") else text) == ops


def test_inductor_kinds():
    assert fields("triton_red_fused_abs_amax_transpose_view_32")["kind"] == "reduction"
    assert fields("triton_tem_fused_mm_0") == {"kind": "template", "ops": ["mm"], "index": 0}
    assert decode("triton_tem_fused_mm_0").category == "gemm"


def test_bare_snake_case_names_are_triton_with_a_note():
    k = decode("_topk_forward")
    assert k.family == "triton" and any("family inferred" in n for n in k.notes)
    assert decode("attn_fwd").family == "other"  # no leading '_', no marker: not claimed


def test_triton_constexpr_names():
    f = fields("_gemm_a16_w16_kernel_BLOCK_SIZE_M_64_BLOCK_SIZE_N_128_BLOCK_SIZE_K_64_GROUP_SIZE_M_8_NUM_KSPLIT_2_"
               "EVEN_K_True")
    assert (f["tile_m"], f["tile_n"], f["tile_k"], f["group_size_m"], f["split_k"], f["even_k"]) == \
        (64, 128, 64, 8, 2, True)
    assert decode("_gemm_a16_w16_kernel_BLOCK_SIZE_M_64_BLOCK_SIZE_N_128").category == "gemm"


def test_flash_attn_traits_and_flags():
    k = decode("void flash::flash_fwd_kernel<Flash_fwd_kernel_traits<128, 64, 64, 4, false, false, "
               "cutlass::half_t>, true, false, false, false, true, true, false>(Flash_fwd_params)")
    f = k.to_dict()["fields"]
    assert (f["head_dim"], f["block_m"], f["warps"], f["dropout"], f["causal"]) == (128, 64, 4, True, False)
    assert k.short == "flash::flash_fwd_kernel<hd128, 64x64>"


def test_flashinfer_trtllm_fmha_and_routing():
    k = decode("fmhaSm100aKernel_QkvE4m3OBfloat16H64PagedKvSlidingOrChunkedCausalP16VarSeqQ128Kv128PersistentContext")
    f = k.to_dict()["fields"]
    assert (f["head_dim"], f["causal"], f["paged_kv"], f["tile_q"], f["phase"]) == (64, True, True, 128, "context")
    assert len(k.short) <= 80 and k.short.endswith("Context")


def test_nccl_suffix_is_not_reported_as_algorithm():
    k = decode("ncclDevKernel_AllReduce_RING_LL128_Sum_bf16(ncclDevKernelArgsStorage<4096ul>)")
    f = k.to_dict()["fields"]
    assert f["collective"] == "AllReduce" and f["reduce_op"] == "Sum" and f["dtype"] == "bf16"
    assert "algorithm" not in f and "protocol" not in f and f["name_suffix"] == "RING_LL128"
    assert any("not the one that ran" in n for n in k.notes)
    assert decode("ncclDevKernel_Generic(ncclDevKernelArgsStorage<4096ul>)").to_dict()["fields"] == \
        {"collective": "Generic"}


def test_aiter_asm_fmha():
    f = fields("aiter::fmha_fwd_hd128_bf16_causal_rtz")
    assert (f["head_dim"], f["dtype"], f["causal"], f["rounding"]) == (128, "bf16", True, "rtz")


def test_aten_reduce_and_multi_tensor_apply():
    k = decode("void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::ArgMaxOps<float>, "
               "unsigned int, long, 4, 4> >(at::native::ReduceOp<float, at::native::ArgMaxOps<float>, unsigned int, "
               "long, 4, 4>)")
    f = k.to_dict()["fields"]
    assert (f["op"], f["dtype"], f["threads"], f["output_vec_size"], k.category) == ("argmax", "fp32", 512, 1, "sampling")


def test_key_fields_summary():
    k = decode("nvjet_tst_144x128_64x6_2x1_v_bz_bias_TNN")
    assert key_fields(k) == "tile=144x128x64 layout=TNN stages=6 cluster=2x1 variant=tst"
    assert inspect.signature(key_fields).parameters["max_chars"].default == 60


def test_fields_are_read_only_and_hashable_records():
    k = decode("triton_poi_fused_mul_silu_0")
    with pytest.raises(TypeError):
        k.fields["kind"] = "x"  # type: ignore[index]
    assert isinstance(k.fields["ops"], tuple) and k.to_dict()["fields"]["ops"] == ["mul", "silu"]
    assert {k, decode("triton_poi_fused_mul_silu_0")} == {k}
    assert decode("triton_poi_fused_mul_silu_0") is k  # cached
