"""aiter CK instance names: one test per generator, each name built with that generator's format.

Each ``_name_*`` below restates one aiter generator's ``kernelInstance.name`` (ROCm/aiter at
e4048607a5 unless noted; the file is named above each), fed with chosen field values; the decoded
fields must give those values back. The real names are copied from aiter's tuned-config CSVs (named
next to each), i.e. written by the generators themselves.
"""

from __future__ import annotations

import pytest

from bench_kernel.kernels import decode, render_tree


def _x(values) -> str:
    return "x".join(str(v) for v in values)


def _fields(name: str) -> dict:
    k = decode(name)
    assert k.family == "ck", name
    assert not any("not decoded" in n for n in k.notes), k.notes
    return k.to_dict()["fields"]


XDL_FIELDS = dict(block_size=256, m_per_block=64, n_per_block=128, k_per_block=256, m_per_xdl=16, n_per_xdl=32,
                  m_xdl_per_wave=2, n_xdl_per_wave=3, a_block_transfer=[16, 16, 1], b_block_transfer=[8, 32, 1],
                  c_block_transfer=[1, 32, 1, 8], c_scalar_per_vector=[8, 8, 1], c_shuffle_m_xdl_per_wave=1,
                  c_shuffle_n_xdl_per_wave=2, scheduler="interwave", pipeline="v3")


def _name_rowwise(prefix: str, f: dict) -> str:
    # csrc/ck_gemm_a8w8/gemm_a8w8_common.py, csrc/ck_batched_gemm_a8w8/batched_gemm_a8w8_common.py and
    # csrc/ck_batched_gemm_bf16/batched_gemm_bf16_common.py (kernelInstance.name): the same group order.
    return "_".join([prefix, _x([f["block_size"], f["m_per_block"], f["n_per_block"], f["k_per_block"]]),
                     _x([f["m_per_xdl"], f["n_per_xdl"]]), _x([f["m_xdl_per_wave"], f["n_xdl_per_wave"]]),
                     _x(f["a_block_transfer"]), _x(f["b_block_transfer"]), _x(f["c_block_transfer"]),
                     _x(f["c_scalar_per_vector"]), _x([f["c_shuffle_m_xdl_per_wave"], f["c_shuffle_n_xdl_per_wave"]]),
                     "Interwave".lower(), f"v{f['pipeline'][1:]}"])


@pytest.mark.parametrize("prefix", ["a8w8_rowwise", "a8w8_batched_rowwise", "bf16_batched"])
def test_rowwise_and_batched_generators(prefix):
    f = _fields(_name_rowwise(prefix, XDL_FIELDS))
    assert {k: f[k] for k in XDL_FIELDS} == XDL_FIELDS
    assert (f["kernel"], f["tile_m"], f["tile_n"], f["tile_k"]) == (prefix, 64, 128, 256)
    assert decode(_name_rowwise(prefix, XDL_FIELDS)).category == "gemm"


def test_bpreshuffle_generator():
    # csrc/ck_gemm_a8w8_bpreshuffle/gemm_a8w8_bpreshuffle_common.py: no wave map in the name, AK1 x BK1 first.
    f = dict(XDL_FIELDS, ak1=16, bk1=8)
    name = "_".join(["a8w8_bpreshuffle", _x([256, 64, 128, 256]), _x([16, 8]), _x([16, 32]), _x([16, 16, 1]),
                     _x([8, 32, 1]), _x([1, 32, 1, 8]), _x([8, 8, 1]), _x([1, 2]), "interwave", "v3"])
    got = _fields(name)
    expect = {k: v for k, v in f.items() if k not in ("m_xdl_per_wave", "n_xdl_per_wave")}
    assert {k: got[k] for k in expect} == expect
    assert "m_xdl_per_wave" not in got


def test_blockscale_bpreshuffle_generator():
    # csrc/ck_gemm_a8w8_blockscale_bpreshuffle/gemm_a8w8_blockscale_bpreshuffle_common.py
    name = "_".join(["a8w8_blockscale_bpreshuffle", _x([1, 128, 128]), _x([256, 16, 128, 256]), _x([16, 16]),
                     _x([16, 16]), _x([16, 16, 1]), _x([16, 16, 1]), _x([1, 16, 1, 16]), _x([8]), _x([1, 2]),
                     "intrawave", "v1"])
    f = _fields(name)
    assert (f["scale_block_m"], f["scale_block_n"], f["scale_block_k"]) == (1, 128, 128)
    assert (f["block_size"], f["tile_m"], f["tile_n"], f["tile_k"], f["ak1"], f["bk1"]) == (256, 16, 128, 256, 16, 16)
    assert (f["m_per_xdl"], f["n_per_xdl"], f["c_scalar_per_vector"], f["c_shuffle_n_xdl_per_wave"]) == (16, 16, [8], 2)
    assert (f["scheduler"], f["pipeline"]) == ("intrawave", "v1")


def test_blockscale_generator_has_ak1_then_xdl_then_wave_map():
    # csrc/ck_gemm_a8w8_blockscale/gemm_a8w8_blockscale_instance.py; a real name from
    # aiter/configs/a8w8_blockscale_tuned_gemm.csv.
    f = _fields("a8w8_blockscale_1x128x128_256x16x128x128_8x16_16x16_1x2_16x16x1_8x32x1_1x16x1x16_8_1x2_intrawave_v1")
    assert (f["ak1"], f["bk1"], f["m_per_xdl"], f["n_per_xdl"], f["m_xdl_per_wave"], f["n_xdl_per_wave"]) == \
        (8, 16, 16, 16, 1, 2)
    assert (f["a_block_transfer"], f["b_block_transfer"], f["c_block_transfer"]) == \
        ([16, 16, 1], [8, 32, 1], [1, 16, 1, 16])


def test_a4w4_generator_joins_the_digits_of_its_int_spv():
    # csrc/ck_gemm_a4w4_blockscale/gemm_a4w4_blockscale_common.py: CBLOCK_SPV is an int written as
    # ("x").join(str(CBLOCK_SPV)), so 8 -> "8" and 16 -> "1x6".
    def name(spv: int) -> str:
        return "_".join(["a4w4_blockscale", _x([256, 128, 128, 128]), _x([16, 16]), _x([16, 16]), _x([8, 32, 1]),
                         _x([8, 32, 1]), _x([1, 32, 1, 8]), ("x").join(str(spv)), _x([2, 2]), "intrawave", "v3"])

    assert name(16).split("_")[8] == "1x6"
    for spv in (8, 16):
        f = _fields(name(spv))
        assert f["c_scalar_per_vector"] == spv
        assert (f["c_shuffle_m_xdl_per_wave"], f["c_shuffle_n_xdl_per_wave"], f["pipeline"]) == (2, 2, "v3")
    # a real one: aiter/configs/a4w4_blockscale_tuned_gemm.csv
    assert _fields("a4w4_blockscale_256x128x384x128_16x16_16x16_8x32x1_8x32x1_1x32x1x8_8_2x2_intrawave_v3")["tile_n"] == 384


def test_blockscale_cktile_generator():
    # csrc/ck_gemm_a8w8_blockscale/gemm_a8w8_blockscale_cktile_instance.py (TileKernelInstance.name);
    # real names from aiter/configs/a8w8_blockscale_tuned_gemm.csv.
    f = _fields("a8w8_blockscale_cktile_192x256x128_4x2x1_16x16x128_intrawave_0x1x0_2_aqrm")
    assert (f["tile_m"], f["tile_n"], f["tile_k"], f["m_warp"], f["n_warp"], f["k_warp"]) == (192, 256, 128, 4, 2, 1)
    assert (f["m_warp_tile"], f["n_warp_tile"], f["k_warp_tile"], f["scheduler"]) == (16, 16, 128, "intrawave")
    assert (f["tiled_mma_permute_n"], f["transpose_c"], f["use_persistent_kernel"]) == (False, True, False)
    assert (f["block_per_cu"], f["aq_row_major"]) == (2, True)
    assert _fields("a8w8_blockscale_cktile_128x128x128_2x2x1_16x16x128_intrawave_0x1x0_1")["aq_row_major"] is False


def test_bpreshuffle_cktile_generator():
    # csrc/cktile_gemm_a8w8_bpreshuffle/gemm_a8w8_bpreshuffle_cktile_common.py; a real name from
    # aiter/configs/a8w8_bpreshuffle_tuned_gemm.csv.
    f = _fields("a8w8_bpreshuffle_cktile_0x0x8x4x1x0x0x0x0x1_112x192x256_1x4x1_16x16x128_default")
    assert (f["transpose_c"], f["use_structured_sparsity"], f["tile_partitioner_group_num"],
            f["tile_partitioner_m01"], f["num_wave_groups"], f["double_smem_buffer"]) == (False, False, 8, 4, 1, False)
    assert (f["pad_m"], f["pad_n"], f["pad_k"], f["block_per_cu"]) == (False, False, False, 1)
    assert (f["tile_m"], f["tile_n"], f["tile_k"], f["m_warp"], f["n_warp"]) == (112, 192, 256, 1, 4)
    assert (f["m_warp_tile"], f["k_warp_tile"], f["scheduler"]) == (16, 128, "default")


def test_deepgemm_generator():
    # csrc/ck_deepgemm/deepgemm_common.py
    f = _fields("_".join(["deepgemm", _x([256, 128, 64, 64]), _x([16, 16, 32]), _x([2, 2])]))
    assert (f["block_size"], f["tile_m"], f["tile_n"], f["tile_k"]) == (256, 128, 64, 64)
    assert (f["m_per_xdl"], f["n_per_xdl"], f["k_per_xdl"], f["m_xdl_per_wave"]) == (16, 16, 32, 2)
    assert decode("deepgemm_256x128x64x64_16x16x32_2x2").category == "gemm"


def _name_moe(stage: int, op: str, quant: int, mrw: bool, act: str | None, dtypes: tuple[str, str, str]) -> str:
    # csrc/ck_gemm_moe_2stages_codegen/gemm_moe_ck2stages_common.py (kernelInstanceGEMM1/2.name)
    parts = [f"moe_ck2stages_gemm{stage}", _x([256, 32, 64, 128]), _x([1, 4]), op, "v3", "Nswizzle" + str(int(True)),
             "Quant" + str(quant), "MulRoutedWeight" + str(int(mrw))]
    return "_".join(parts + ([act] if act else []) + [d.upper() for d in dtypes])


def test_moe_two_stage_generators():
    f = _fields(_name_moe(1, "MulABScaleShuffled", 3, False, "swiglu", ("fp4x2", "fp4x2", "b16")))
    assert (f["stage"], f["block_size"], f["tile_m"], f["tile_n"], f["tile_k"], f["m_waves"], f["n_waves"]) == \
        (1, 256, 32, 64, 128, 1, 4)
    assert (f["cde_element_op"], f["pipeline"], f["nswizzle"], f["quant_type"], f["quant"]) == \
        ("MulABScaleShuffled", "v3", True, 3, "per_1x32")
    assert (f["mul_routed_weight"], f["activation"], f["a_dtype"], f["b_dtype"], f["out_dtype"]) == \
        (False, "swiglu", "fp4x2", "fp4x2", "bf16")
    g = _fields(_name_moe(2, "MulABScaleExpertWeightA8W8blkscale", 4, True, None, ("F8", "F8", "B16")))
    assert (g["stage"], g["quant"], g["mul_routed_weight"], g["a_dtype"], g["out_dtype"]) == \
        (2, "per_1x128", True, "fp8", "bf16")
    assert "activation" not in g
    assert decode(_name_moe(2, "TypeCast", 2, True, None, ("F8", "F8", "B16"))).category == "moe"


def test_moe_before_aiter_d6ea3cc7b9_named_the_quant_type():
    # gemm_moe_ck2stages_common.py at aiter db69dad037: "..._Nswizzle1_per_tensor_MulRoutedWeight1", no dtypes.
    f = _fields("moe_ck2stages_gemm2_256x64x128x128_1x4_MulABScaleExpertWeight_v3_Nswizzle1_per_tensor_MulRoutedWeight1")
    assert (f["quant"], f["nswizzle"], f["mul_routed_weight"], f["pipeline"]) == ("per_tensor", True, True, "v3")
    assert "quant_type" not in f and "activation" not in f


def test_moe_cktile_two_stage_generator():
    # csrc/ck_tile_gemm_moe_2stages/moe_cktile2stages_common.py: empty parts are dropped from the name.
    f = _fields("moe_cktile2stages_gemm1_256x32x64x256_1x4_16x16x32_2perCU_per_tensor_MulRoutedWeight_silu")
    assert (f["stage"], f["tile_m"], f["tile_n"], f["tile_k"], f["m_xdl_per_wave"], f["n_xdl_per_wave"]) == \
        (1, 32, 64, 256, 1, 4)
    assert (f["m_warp_tile"], f["k_warp_tile"], f["block_per_cu"], f["quant"]) == (16, 32, 2, "per_tensor")
    assert (f["mul_routed_weight"], f["has_bias"], f["activation"], f["split_k"]) == (True, False, "silu", False)
    g = _fields("moe_cktile2stages_gemm2_256x32x64x256_1x4_16x16x32_1perCU_1x32_HasBias_SplitK")
    assert (g["stage"], g["quant"], g["has_bias"], g["split_k"], g["mul_routed_weight"]) == (2, "1x32", True, True, False)
    assert decode("moe_cktile2stages_gemm2_256x32x64x256_1x4_16x16x32_1perCU_1x32_HasBias_SplitK").category == "moe"


def test_a_group_off_the_grammar_stops_the_decode_with_a_note():
    k = decode("a8w8_rowwise_256x16x64x512_16x16_1x1_32x8x1_banana_1x16x1x16_4x4x1_1x1_intrawave_v3")
    assert (k.family, k.category, k.fields["b_block_transfer"] if "b_block_transfer" in k.fields else None) == \
        ("ck", "gemm", None)
    assert k.fields["a_block_transfer"] == (32, 8, 1)
    assert any("decoded 4 of 10 groups" in n and "'banana_1x16x1x16_4x4x1_1x1_intrawave_v3'" in n for n in k.notes)


def test_every_decoded_group_is_drawn_in_the_tree():
    name = _name_rowwise("bf16_batched", XDL_FIELDS)
    tree = render_tree(decode(name)).splitlines()
    assert tree[0] == name and len(tree) == 1 + 10  # one line per group
    assert tree[-1].endswith("BlockSize x MPerBlock x NPerBlock x KPerBlock: block_size=256, m_per_block=64, "
                             "n_per_block=128, k_per_block=256")
