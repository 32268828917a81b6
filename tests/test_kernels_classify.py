"""Category rules: every built-in rule is the first match for a real kernel name, rule files are
validated row by row, and user rules come before the built-in ones."""

from __future__ import annotations

import pytest

from bench_kernel.errors import InputError
from bench_kernel.kernels import CATEGORIES, decode, default_rules, load_rules
from bench_kernel.kernels._classify import _parse

# Rule id -> a real kernel name that this rule claims: from the H100/H200/B200/MI210/MI300 traces, or,
# for the few rules those traces do not exercise, as printed by Inductor, vLLM and ROCm's runtime.
RULE_EXAMPLES = {
    'nccl': 'ncclDevKernel_Generic(ncclDevKernelArgsStorage<4096ul>)',
    'tensile': 'Cijk_Ailk_Bjlk_BBS_BH_Bias_HAS_SAV_UserArgs_MT128x64x32_MI32x32x1_SN_LDSB0_AFC1_AFEM1_AFEM1_ASEM1_CLR1_CADS0_DTVA0_DTVB0_EPS0_FDSI0_GRPM1_GRVWA8_GRVWB8_GSUAMB_GLS0_ISA90a_IU1_K1_LBSPPA0_LBSPPB0_LBSPPM0_LPA0_LPB0_LPM0_LRVW4_LWPMn1_MIAV0_MIWT2_1_MO40_NTn1_NTA0_NTB0_NTC0_NTD0_NTM0_NEPBS2_NLCA1_NLCB1_ONLL1_PGR2_PLR1_PKA1_SIA3_SS1_SPO1_SRVW0_SSO0_SVW1_SK0_SKXCCM0_TLDS0_ULSGRO0_USL1_UIOFGRO0_USFGROn1_VSn1_VWA2_VWB1_WSGRA0_WSGRB0_WS64_WG64_4_1',
    'cublas': 'nvjet_tst_192x8_64x8_4x1_v_bz_TNT',
    'cutlass': 'void cutlass::Kernel2<cutlass_80_simt_sgemm_128x32_8x5_nn_align1>(cutlass_80_simt_sgemm_128x32_8x5_nn_align1::Params)',
    'flash_attn': 'void pytorch_flash::flash_fwd_kernel<pytorch_flash::Flash_fwd_kernel_traits<64, 128, 128, 4, false, false, cutlass::bfloat16_t, pytorch_flash::Flash_kernel_traits<64, 128, 128, 4, cutlass::bfloat16_t> >, false, true, false, false, false, true, false>(pytorch_flash::Flash_fwd_params)',
    'ck.moe': 'moe_ck2stages_gemm1_256x32x64x128_1x4_TypeCast_v1_Nswizzle0_Quant0_MulRoutedWeight0_gelu_B16_B16_B16',
    'ck.fmha': '_ZN7ck_tile6kentryILi2ENS_38FmhaBatchPrefillWithPagedKVCacheKernelINS_40BlockFmhaBatchPrefillPipelineQRKSVSAsyncINS_36BlockFmhaBatchPrefillPipelineProblemIDF16bDF16bDF16bffDF16bhfDF16bfDF16bNS_13TileFmhaShapeINS_8sequenceIJLi128ELi128ELi32ELi128ELi32ELi128EEEENS5_IJLi4ELi1ELi1EEEENS5_IJLi32ELi32ELi16EEEES7_S8_Lb1EEELb1ENS_17ComposedAttentionILj0ELb1EEENS_30SimplifiedGenericAttentionMaskILb1EEELb0ELi1ENS_26TileFmhaBatchPrefillTraitsILb1ELb1ELb1ELb1ELb0ELNS_22BlockAttentionBiasEnumE0ELb0ELb0ELb0ELNS_28BlockAttentionQuantScaleEnumE0ELin1ELb0ELb0ELi1ELNS_37BlockAttentionKVCacheMemoryLayoutEnumE1ELNS_36BlockAttentionKVCacheLookupTableEnumE1ELNS_33BlockAttentionKVCacheLoadModeEnumE0EEEEENS_53BlockFmhaBatchPrefillPipelineQRKSVSAsyncDefaultPolicyEEENS_17Default2DEpilogueINS_24Default2DEpilogueProblemIfDF16bLb1ELb1ELb1EEEvEEEEJNSS_21FmhaFwdGroupModeKargsEEEEvDpT1_',
    'ck.norm': '_ZN7ck_tile6kentryILi1ENS_12Rmsnorm2dFwdINS_27Rmsnorm2dFwdPipelineOnePassINS_27Rmsnorm2dFwdPipelineProblemIDF16bDF16bfDF16bDF16bDF16bffNS_19Generic2dBlockShapeINS_8sequenceIJLi1ELi3072EEEENS5_IJLi1ELi128EEEENS5_IJLi1ELi8EEEEEENS_18Rmsnorm2dFwdTraitsILb1ELb0ELb0ELb0ELNS_21Rmsnorm2dFusedAddEnumE1ELNS_23Rmsnorm2dFusedQuantEnumE0ELNS_22Rmsnorm2dSensitiveEnumE0EEEEENS_33Rmsnorm2dFwdPipelineDefaultPolicyEEENS_17Default2DEpilogueINS_24Default2DEpilogueProblemIfDF16bLb0ELb1ELb0EEEvEEEEJNSM_5KargsEEEEvDpT1_',
    'ck.gemm': 'a8w8_rowwise_256x16x64x512_16x16_1x1_32x8x1_32x8x1_1x16x1x16_4x4x1_1x1_intrawave_v3',
    'flashinfer.moe': 'void moe::dev::finalize::finalizeKernelVecLoad<moe::dev::finalize::KernelParams<cutlass::bfloat16_t, cutlass::bfloat16_t, 4, true> >(moe::dev::finalize::KernelParams<cutlass::bfloat16_t, cutlass::bfloat16_t, 4, true>)',
    'flashinfer.gemm': 'bmm_Bfloat16_MxE2m1MxE4m3_Fp32_t128x16x256u2_s3_et128x16_m128x16x32_cga1x1x1_16dp256b_rM_TN_transOut_schedP2x1x2x3_biasM_bN_tmaOpt_clmp_dynBatch_sm100f',
    'flashinfer.attention': 'fmhaSm100aKernel_QkvE4m3OBfloat16H64PagedKvCausalP16VarSeqQ128Kv128PersistentContext',
    'cudnn.sdpa': 'cudnn_generated_fort_native_sdpa_sm90_flash_fprop_wgmma_f16_knob_7_64x128x64_4x1x1_cga1x1x1_kernel0_0',
    'cudnn.layout': 'void cudnn::engines_precompiled::nchwToNhwcKernel<__nv_bfloat16, __nv_bfloat16, float, false, true, (cudnnKernelDataType_t)0>(cudnn::engines_precompiled::nchw2nhwc_params_t<float>, __nv_bfloat16 const*, __nv_bfloat16*)',
    'cudnn.reduction': 'void cudnn::fusion::lean_reduction_kernel<false, false, false>(void*, float*, float*, float*, float*, float const*, float*, float*, float*, float*, float*, unsigned int, unsigned int, unsigned int, unsigned int, unsigned int, unsigned int, unsigned int, unsigned int, unsigned int, unsigned int, unsigned int, unsigned int, unsigned int, unsigned int, unsigned int, unsigned int, unsigned int, unsigned int, unsigned int, unsigned int, bool)',
    'inductor.flex': 'triton_tem_fused_flex_attention_0',
    'inductor.template': 'triton_tem_fused_mm_0',
    'inductor.norm': 'triton_red_fused_add_mean_mul_pow_rsqrt_0',
    'inductor.softmax': 'triton_per_fused__softmax_3',
    'inductor.rope': 'triton_poi_fused_arange_cat_cos_div_exp_mul_sin_unsqueeze_0',
    'inductor.quant': 'triton_red_fused_abs_amax_transpose_view_32',
    'inductor.moe': 'triton_poi_fused_constant_pad_nd_moe_forward_0',
    'inductor.activation': 'triton_poi_fused_silu_29',
    'inductor.embedding': 'triton_poi_fused_embedding_2',
    'inductor.reduction': 'triton_per_fused__to_copy_addmm_mean_pow_view_7',
    'inductor.pointwise': 'triton_poi_fused_0',
    'triton.moe': '_topk_forward',
    'aten.fill': 'void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<int>, std::array<char*, 1ul> >(int, at::native::FillFunctor<int>, std::array<char*, 1ul>)',
    'aten.copy': 'void at::native::vectorized_elementwise_kernel<4, at::native::bfloat16_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda(float)#1}, std::array<char*, 2ul> >(int, at::native::bfloat16_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda(float)#1}, std::array<char*, 2ul>)',
    'aten.norm': 'void at::native::vectorized_elementwise_kernel<4, at::native::(anonymous namespace)::batch_norm_calc_invstd(at::Tensor const&, at::Tensor const&, double)::{lambda()#1}::operator()() const::{lambda()#2}::operator()() const::{lambda(float)#1}, std::array<char*, 2ul> >(int, at::native::(anonymous namespace)::batch_norm_calc_invstd(at::Tensor const&, at::Tensor const&, double)::{lambda()#1}::operator()() const::{lambda()#2}::operator()() const::{lambda(float)#1}, std::array<char*, 2ul>)',
    'aten.activation': 'void at::native::vectorized_elementwise_kernel<4, at::native::tanh_kernel_cuda(at::TensorIteratorBase&)::{lambda()#2}::operator()() const::{lambda()#4}::operator()() const::{lambda(c10::BFloat16)#1}, std::array<char*, 2ul> >(int, at::native::tanh_kernel_cuda(at::TensorIteratorBase&)::{lambda()#2}::operator()() const::{lambda()#4}::operator()() const::{lambda(c10::BFloat16)#1}, std::array<char*, 2ul>)',
    'aten.sampling': 'void at::native::reduce_kernel<512, 1, at::native::ReduceOp<int, at::native::ArgMaxOps<int>, unsigned int, long, 4> >(at::native::ReduceOp<int, at::native::ArgMaxOps<int>, unsigned int, long, 4>)',
    'aten.reduction': 'void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::MeanOps<float, float, float, float>, unsigned int, float, 4> >(at::native::ReduceOp<float, at::native::MeanOps<float, float, float, float>, unsigned int, float, 4>)',
    'aten.elementwise': 'void at::native::vectorized_elementwise_kernel<4, at::native::AbsFunctor<long>, std::array<char*, 2ul> >(int, at::native::AbsFunctor<long>, std::array<char*, 2ul>)',
    'communication': 'void (anonymous namespace)::multimem_all_reduce_kernel<c10::BFloat16, 16>(c10::BFloat16*, unsigned long, unsigned int**, unsigned long, unsigned long)',
    'memcpy.event': 'Memcpy DtoD (Device -> Device)',
    'memset.event': 'Memset (Device)',
    'kv_cache': '_copy_page_indices_kernel',
    'norm': 'MIOpenBatchNormBwdSpatial',
    'attention': 'attn_fwd',
    'rope': 'void rotary_embedding_kernel<c10::BFloat16, true>(long const*, c10::BFloat16*, c10::BFloat16*, c10::BFloat16 const*, int, long, long, long, int, int, int)',
    'softmax': 'void (anonymous namespace)::softmax_warp_forward<float, float, float, 9, false, false>(float*, float const*, int, int, int, bool const*, int, bool)',
    'quant': 'sage_quant_kernel',
    'moe': 'fused_moe_kernel',
    'sort': 'void at::native::radixSortKVInPlace<-2, -1, 128, 32, long, long, unsigned int>(at::cuda::detail::TensorInfo<long, unsigned int>, unsigned int, unsigned int, unsigned int, at::cuda::detail::TensorInfo<long, unsigned int>, unsigned int, bool)',
    # as nsys prints flashinfer's sampler (a name the shared traces do not hold)
    'sampling': 'void flashinfer::sampling::TopPSamplingFromProbKernel',
    # torch.topk as seen in h200/qwen2moe_eager_generate: there it is the MoE router's top-k, not sampling
    'topk': 'void at::native::sbtopk::gatherTopK<float, unsigned int, 2, false>(at::cuda::detail::TensorInfo<float const, unsigned int>, unsigned int, unsigned int, bool, unsigned int, unsigned int, at::cuda::detail::TensorInfo<float, unsigned int>, unsigned int, at::cuda::detail::TensorInfo<long, unsigned int>, unsigned int, float*)',
    'activation': '_ZN7sgl_hip10activation18act_and_mul_kernelI14__hip_bfloat16TnPFT_RKS3_EXadL_Z4siluIS2_ES3_S5_EEEEvPS3_PS4_i',
    'embedding': 'void at::native::(anonymous namespace)::indexSelectSmallIndex<c10::BFloat16, long, unsigned int, 2, 2, -2>(at::cuda::detail::TensorInfo<c10::BFloat16, unsigned int>, at::cuda::detail::TensorInfo<c10::BFloat16 const, unsigned int>, at::cuda::detail::TensorInfo<long const, unsigned int>, int, int, unsigned int, long)',
    'gemm': 'igemm_fwd_gtcx2_nhwc_bf16_bx0_ex1_bt64x64x64_wt16x16x16_ws1x1_wr2x2_ta1x8x2x1_1x8x1x32_tb1x8x2x1_1x8x1x32',
    'pooling': 'void at::native::(anonymous namespace)::max_pool_forward_nchw<c10::BFloat16>(int, c10::BFloat16 const*, long, long, long, int, int, int, int, int, int, int, int, int, int, c10::BFloat16*, long*)',
    'copy': 'Im2d2Col_v2',
    'fill': '__amd_rocclr_fillBufferAligned',
    'reduction.rocprim': 'void rocprim::ROCPRIM_400400_NS::detail::init_lookback_scan_state_kernel<rocprim::ROCPRIM_400400_NS::detail::lookback_scan_state<unsigned long, false, true>, rocprim::ROCPRIM_400400_NS::detail::block_id_wrapper<unsigned int, true> >(rocprim::ROCPRIM_400400_NS::detail::lookback_scan_state<unsigned long, false, true>, unsigned int, rocprim::ROCPRIM_400400_NS::detail::block_id_wrapper<unsigned int, true>, unsigned int, rocprim::ROCPRIM_400400_NS::detail::lookback_scan_state<unsigned long, false, true>::value_type*)',
    'reduction': 'reduce_segments',
    'elementwise': 'SubTensorOpWithScalar1d',
}


def test_every_builtin_rule_has_a_real_example_and_claims_it():
    ids = [r.id for r in default_rules().rules]
    assert sorted(ids) == sorted(RULE_EXAMPLES), "add a real kernel name for each new rule"
    claimed = {rule_id: decode(name).rule for rule_id, name in RULE_EXAMPLES.items()}
    assert claimed == {rule_id: rule_id for rule_id in RULE_EXAMPLES}


def test_builtin_rules_cover_every_category_but_other():
    assert {r.category for r in default_rules().rules} == set(CATEGORIES) - {"other"}


def test_unmatched_name_is_other_with_no_rule():
    k = decode("compute_position_kernel")
    assert (k.family, k.category, k.rule) == ("other", "other", None)


def test_vllm_rope_is_rope_not_embedding():
    # "rotary_embedding_kernel" contains "embedding": the rope rule must come first.
    k = decode("void vllm::rotary_embedding_kernel<c10::BFloat16, true>(long const*, c10::BFloat16*, "
               "c10::BFloat16*, c10::BFloat16 const*, int, long, long, long, int, int, int)")
    assert (k.category, k.short) == ("rope", "vllm::rotary_embedding_kernel<bf16, true>")


def test_upsample_is_not_sampling():
    k = decode("void at::native::(anonymous namespace)::upsample_nearest2d_out_frame<c10::BFloat16, "
               "&at::native::nearest_neighbor_compute_source_index>(c10::BFloat16 const*, c10::BFloat16*, "
               "unsigned long, unsigned long, unsigned long, unsigned long, unsigned long, float, float)")
    assert k.category == "elementwise"


HEADER = "id\tcategory\tfamily\ton\tpattern\n"


def _rules_file(tmp_path, body: str):
    p = tmp_path / "rules.tsv"
    p.write_text(HEADER + body, encoding="utf-8")
    return p


def test_user_rules_are_tried_before_the_builtin_ones(tmp_path):
    p = _rules_file(tmp_path, "mine.silu\tother\tinductor\tops\t\\bsilu\\b\n"
                              "mine.sage\tattention\t*\tkernel\t^sage_quant\n")
    rules = load_rules(p)
    k = decode("triton_poi_fused_mul_silu_0", rules)
    assert (k.category, k.rule) == ("other", "mine.silu")
    assert decode("sage_quant_kernel", p).category == "attention"  # a path works too
    assert decode("triton_poi_fused_mul_silu_0").category == "activation"  # defaults untouched
    only = load_rules(p, extend_defaults=False)
    assert decode("nvjet_tst_192x8_64x8_4x1_v_bz_TNT", only).category == "other"
    assert decode("nvjet_tst_192x8_64x8_4x1_v_bz_TNT", rules).category == "gemm"


@pytest.mark.parametrize("body, message", [
    ("x\tattension\t*\tkernel\tattn\n", "rules.tsv:2: category 'attension' is unknown"),
    ("x\tgemm\tcublaz\tkernel\tgemm\n", "rules.tsv:2: family 'cublaz' is unknown"),
    ("x\tgemm\t*\tkernel\tgemm[\n", "rules.tsv:2: pattern 'gemm[' is not a valid regular expression"),
    ("x\tgemm\t*\tkernel\n", "rules.tsv:2: 4 tab-separated cells, expected 5"),
    ("x\tgemm\t*\tkernel\tgemm\nx\tnorm\t*\tkernel\tnorm\n", "rules.tsv:3: id 'x' is already used at"),
    ("x\tgemm\t*\tKernel Name\tgemm\n", "rules.tsv:2: on 'Kernel Name' must be"),
    ("x\tgemm\t*\tkernel\t\n", "rules.tsv:2: pattern is empty"),
])
def test_bad_rule_rows_are_named(tmp_path, body, message):
    with pytest.raises(InputError) as info:
        load_rules(_rules_file(tmp_path, body))
    assert message in str(info.value)


def test_missing_header_and_missing_file_are_clear(tmp_path):
    p = tmp_path / "rules.tsv"
    p.write_text("x\tgemm\t*\tkernel\tgemm\n")
    with pytest.raises(InputError, match="header is"):
        load_rules(p)
    with pytest.raises(InputError, match="does not exist"):
        load_rules(tmp_path / "nope.tsv")
    with pytest.raises(InputError, match="no header line"):
        _parse("# only a comment\n", "empty.tsv")


