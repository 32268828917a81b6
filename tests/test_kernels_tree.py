"""--tree: golden pictures, one name per family with positional fields (reviewed by hand)."""

from __future__ import annotations

import pytest

from bench_kernel.kernels import decode, render_tree, tree_layout

GOLDEN = {
    'ck': ('a8w8_blockscale_1x128x128_256x16x128x256_16x16_16x16_1x2_16x16x1_16x16x1_1x16x1x16_8_1x2_intrawave_v1',
        'a8w8_blockscale_1x128x128_256x16x128x256_16x16_16x16_1x2_16x16x1_16x16x1_1x16x1x16_8_1x2_intrawave_v1\n'
        '                │         │              │     │     │   │       │       │         │ │   │         └─ block GEMM pipeline version: pipeline=v1\n'
        '                │         │              │     │     │   │       │       │         │ │   └─ loop scheduler: scheduler=intrawave\n'
        '                │         │              │     │     │   │       │       │         │ └─ CShuffle MXdlPerWave x NXdlPerWave per shuffle: c_shuffle_m_xdl_per_wave=1, c_shuffle_n_xdl_per_wave=2\n'
        '                │         │              │     │     │   │       │       │         └─ CBlockTransfer scalars per vector: c_scalar_per_vector=[8]\n'
        '                │         │              │     │     │   │       │       └─ CBlockTransfer cluster lengths: c_block_transfer=[1, 16, 1, 16]\n'
        '                │         │              │     │     │   │       └─ BBlockTransfer thread cluster (K0 x N x K1): b_block_transfer=[16, 16, 1]\n'
        '                │         │              │     │     │   └─ ABlockTransfer thread cluster (K0 x M x K1): a_block_transfer=[16, 16, 1]\n'
        '                │         │              │     │     └─ MXdlPerWave x NXdlPerWave: m_xdl_per_wave=1, n_xdl_per_wave=2\n'
        '                │         │              │     └─ MPerXDL x NPerXDL: m_per_xdl=16, n_per_xdl=16\n'
        '                │         │              └─ AK1 x BK1 (K elements per vector load): ak1=16, bk1=16\n'
        '                │         └─ BlockSize x MPerBlock x NPerBlock x KPerBlock: block_size=256, m_per_block=16, n_per_block=128, k_per_block=256\n'
        '                └─ ScaleBlockM x ScaleBlockN x ScaleBlockK: scale_block_m=1, scale_block_n=128, scale_block_k=128'),
    'tensile': ('Cijk_Ailk_Bjlk_BBS_BH_Bias_HAS_SAV_UserArgs_MT128x64x32_MI32x32x1_SN_ISA90a_WS64_WG64_4_1',
        'Cijk_Ailk_Bjlk_BBS_BH_Bias_HAS_SAV_UserArgs_MT128x64x32_MI32x32x1_SN_ISA90a_WS64_WG64_4_1\n'
        '     │         │                            │           │            │      │    └─ WorkGroup threads (M_N_K): workgroup=64_4_1\n'
        '     │         │                            │           │            │      └─ WavefrontSize: wavefront_size=64\n'
        '     │         │                            │           │            └─ ISA the kernel was built for (gfx<isa>): isa=90a\n'
        '     │         │                            │           └─ MatrixInstruction (MFMA shape): matrix_instruction=32x32x1\n'
        '     │         │                            └─ MacroTile M x N x DepthU (tile_m x tile_n x tile_k): macro_tile=128x64x32\n'
        '     │         └─ data-type letters (A/B, compute, D): types=BBS_BH\n'
        '     └─ A/B index order -> layout (N: not transposed): layout=NT'),
    'cublas': ('nvjet_tst_144x128_64x6_2x1_v_bz_bias_TNN',
        'nvjet_tst_144x128_64x6_2x1_v_bz_bias_TNN\n'
        '      │   │       │    │   │ │  │    └─ A, B, D layout (T: transposed) (inferred): layout=TNN\n'
        '      │   │       │    │   │ │  └─ bias epilogue (inferred): bias=true\n'
        '      │   │       │    │   │ └─ beta == 0 epilogue (inferred): beta_zero=true\n'
        '      │   │       │    │   └─ raster order: vertical (inferred): raster=vertical\n'
        '      │   │       │    └─ thread-block cluster (inferred): cluster=2x1\n'
        '      │   │       └─ K tile x pipeline stages (inferred): tile_k=64, stages=6\n'
        '      │   └─ CTA tile M x N (inferred): tile_m=144, tile_n=128\n'
        '      └─ kernel variant (inferred): variant=tst'),
    'cutlass': ('cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_128x64_64x6_tn_align8',
        'cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_128x64_64x6_tn_align8\n'
        '        │  │                   │              │      │    │  └─ alignment (elements): align=8\n'
        '        │  │                   │              │      │    └─ A, B layouts (t: transposed) or tensor layout: layout=TN\n'
        '        │  │                   │              │      └─ K tile x pipeline stages: tile_k=64, stages=6\n'
        '        │  │                   │              └─ CTA tile M x N: tile_m=128, tile_n=64\n'
        '        │  │                   └─ operation (with MMA shape prefix): op=gemm\n'
        '        │  └─ opcode class: opcode_class=tensorop\n'
        '        └─ SM architecture: arch=sm80'),
    'inductor': ('triton_poi_fused_mul_silu_0',
        'triton_poi_fused_mul_silu_0\n'
        '       │         │        └─ kernel counter in the graph: index=0\n'
        '       │         └─ fused ops (sorted, from the FX graph): ops=[mul, silu]\n'
        '       └─ kernel kind (poi/red/per/tem/for): kind=pointwise'),
    'triton': ('_matmul_ogs_NNT_bf16xbf16xmxfp4_128x128x128x1_swiglu',
        '_matmul_ogs_NNT_bf16xbf16xmxfp4_128x128x128x1_swiglu\n'
        '            │   │               │           │ └─ fused epilogue: epilogue=swiglu\n'
        '            │   │               │           └─ split-K: split_k=1\n'
        '            │   │               └─ BLOCK_M x BLOCK_N x BLOCK_K: tile_m=128, tile_n=128, tile_k=128\n'
        '            │   └─ A x B x weight types (inferred): types=bf16xbf16xmxfp4\n'
        '            └─ A, B, C layouts (inferred): layout=NNT'),
    'flashinfer': ('fmhaSm100aKernel_QkvE4m3OBfloat16H64PagedKvCausalP16VarSeqQ128Kv128PersistentContext',
        'fmhaSm100aKernel_QkvE4m3OBfloat16H64PagedKvCausalP16VarSeqQ128Kv128PersistentContext\n'
        '    │                            └─ head dim (inferred): head_dim=64\n'
        '    └─ architecture (inferred): arch=sm100a'),
    'cudnn': ('cudnn_generated_fort_native_sdpa_sm90_flash_fprop_wgmma_f16_knob_7_64x128x64_4x1x1_cga1x1x1_kernel0_0',
        'cudnn_generated_fort_native_sdpa_sm90_flash_fprop_wgmma_f16_knob_7_64x128x64_4x1x1_cga1x1x1_kernel0_0\n'
        "                                 │          │     │     │        │ │         │        └─ cluster (after 'cga') (inferred): cluster=1x1x1\n"
        '                                 │          │     │     │        │ │         └─ warps (inferred): warps=4x1x1\n'
        '                                 │          │     │     │        │ └─ tile (Q x KV x D) (inferred): tile=64x128x64\n'
        '                                 │          │     │     │        └─ engine knob (inferred): knob=7\n'
        '                                 │          │     │     └─ dtype (inferred): dtype=f16\n'
        '                                 │          │     └─ MMA instruction family (inferred): mma=wgmma\n'
        '                                 │          └─ fprop / bprop (inferred): direction=forward\n'
        '                                 └─ architecture (inferred): arch=sm90'),
    'aiter': ('aiter::fmha_fwd_hd128_bf16_rtz',
        'aiter::fmha_fwd_hd128_bf16_rtz\n'
        '       │        └─ head dim: head_dim=128\n'
        '       └─ ASM kernel: kernel=fmha_fwd'),
    'nccl': ('ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)',
        'ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)\n'
        '              │         └─ kernel variant label: NOT the algorithm/protocol that ran (NCCL >= 2.19): name_suffix=RING_LL\n'
        '              └─ collective: collective=AllGather'),
}


@pytest.mark.parametrize("family", sorted(GOLDEN))
def test_tree_matches_golden(family):
    name, picture = GOLDEN[family]
    k = decode(name)
    assert k.family == family
    assert render_tree(k) == picture


def test_every_labelled_column_points_at_the_field_it_names():
    # The seed's error was a label on the wrong group: check each span's text against its values.
    k = decode(GOLDEN["ck"][0])
    text, spans = tree_layout(k)
    by_fields = {s.fields: text[s.start:s.end] for s in spans}
    assert by_fields[("ak1", "bk1")] == "16x16"
    assert by_fields[("m_per_xdl", "n_per_xdl")] == "16x16"
    assert by_fields[("m_xdl_per_wave", "n_xdl_per_wave")] == "1x2"
    assert by_fields[("block_size", "m_per_block", "n_per_block", "k_per_block")] == "256x16x128x256"


def test_families_without_positional_fields_say_so():
    k = decode("void at::native::vectorized_elementwise_kernel<8, at::native::CUDAFunctor_add<c10::BFloat16>, "
               "std::array<char*, 3ul> >(int, at::native::CUDAFunctor_add<c10::BFloat16>, std::array<char*, 3ul>)")
    assert render_tree(k).endswith("(no positional fields for family 'aten')")
