"""aiter's CK instance names: one grammar per generator, every field decoded.

aiter generates one CK (or ck_tile) GEMM instance per tuned configuration and names it by joining
groups with ``_`` and the numbers of a group with ``x`` (each generator's ``kernelInstance.name``).
The grammars below are read from those generators in ROCm/aiter (commit e4048607a5 unless noted);
the tests build one name per grammar from the generator's format and check every field.

A name is read token by token (``_``-separated): linear time whatever the input, and a group that
does not have its grammar's shape stops the decode there with a note, instead of a wrong field.
"""

from __future__ import annotations

import re
from typing import Callable

from bench_kernel.dtypes import lookup
from bench_kernel.kernels._model import Decoded
from bench_kernel.kernels._spans import Builder, ints, tokens

__all__ = ["decode_instance", "INSTANCE_PREFIXES"]

# A group: (field names, label, kind). Kinds:
#   "ints"     one int per field name ("256x16x64x512" -> block_size=256, m_per_block=16, ...)
#   "list"     the whole group as a list of ints under the one field name
#   "int"      one int
#   "digits"   one int whose decimal digits the generator joined with "x" (see a4w4 below)
#   "word"     the lower-case scheduler word ("intrawave"); "version": "v<N>" kept as "vN"
#   "flags"    ints or True/False, one per field; fields named *_is/bool-like are stored as bools
#   "ints2or3" two or three ints (a ck_tile warp tile whose K was dropped in some revisions)
_Group = tuple[tuple[str, ...], str, str]

_BLOCK: _Group = (("block_size", "m_per_block", "n_per_block", "k_per_block"),
                  "BlockSize x MPerBlock x NPerBlock x KPerBlock", "ints")
_SCALE: _Group = (("scale_block_m", "scale_block_n", "scale_block_k"), "ScaleBlockM x ScaleBlockN x ScaleBlockK", "ints")
_AK1: _Group = (("ak1", "bk1"), "AK1 x BK1 (K elements per vector load)", "ints")
_XDL: _Group = (("m_per_xdl", "n_per_xdl"), "MPerXDL x NPerXDL", "ints")
_WAVES: _Group = (("m_xdl_per_wave", "n_xdl_per_wave"), "MXdlPerWave x NXdlPerWave", "ints")
_A: _Group = (("a_block_transfer",), "ABlockTransfer thread cluster (K0 x M x K1)", "list")
_B: _Group = (("b_block_transfer",), "BBlockTransfer thread cluster (K0 x N x K1)", "list")
_C: _Group = (("c_block_transfer",), "CBlockTransfer cluster lengths", "list")
_SPV: _Group = (("c_scalar_per_vector",), "CBlockTransfer scalars per vector", "list")
_CSHUFFLE: _Group = (("c_shuffle_m_xdl_per_wave", "c_shuffle_n_xdl_per_wave"),
                     "CShuffle MXdlPerWave x NXdlPerWave per shuffle", "ints")
_SCHED: _Group = (("scheduler",), "loop scheduler", "word")
_PIPE: _Group = (("pipeline",), "block GEMM pipeline version", "version")
_TILE3: _Group = (("m_per_block", "n_per_block", "k_per_block"), "M x N x K block tile", "ints")
_WARPS3: _Group = (("m_warp", "n_warp", "k_warp"), "warps along M x N x K", "ints")
_WARP_TILE: _Group = (("m_warp_tile", "n_warp_tile", "k_warp_tile"), "warp tile M x N (x K)", "ints2or3")
_TILE_FLAGS: _Group = (("tiled_mma_permute_n", "transpose_c", "use_persistent_kernel"),
                       "TiledMMAPermuteN x TransposeC x UsePersistentKernel", "flags")
_BPC: _Group = (("block_per_cu",), "blocks per CU", "int")
_XDL_TAIL = (_A, _B, _C, _SPV, _CSHUFFLE, _SCHED, _PIPE)

#: prefix -> (groups, source). Longest prefixes first where one prefix extends another.
GRAMMARS: dict[str, tuple[tuple[_Group, ...], str]] = {
    "a8w8_blockscale_bpreshuffle": (
        (_SCALE, _BLOCK, _AK1, _XDL) + _XDL_TAIL,
        "csrc/ck_gemm_a8w8_blockscale_bpreshuffle/gemm_a8w8_blockscale_bpreshuffle_common.py"),
    "a8w8_blockscale_cktile": (
        (_TILE3, _WARPS3, _WARP_TILE, _SCHED, _TILE_FLAGS, _BPC),
        "csrc/ck_gemm_a8w8_blockscale/gemm_a8w8_blockscale_cktile_instance.py (then '_aqrm' when AQRowMajor)"),
    "a8w8_bpreshuffle_cktile": (
        ((("transpose_c", "use_structured_sparsity", "tile_partitioner_group_num", "tile_partitioner_m01",
           "num_wave_groups", "double_smem_buffer", "pad_m", "pad_n", "pad_k", "block_per_cu"),
          "TransposeC x StructuredSparsity x TilePartitionerGroupNum x M01 x NumWaveGroups x "
          "DoubleSmemBuffer x PadM x PadN x PadK x BlockPerCu", "flags"),
         _TILE3, _WARPS3, _WARP_TILE, _SCHED),
        "csrc/cktile_gemm_a8w8_bpreshuffle/gemm_a8w8_bpreshuffle_cktile_common.py"),
    "a8w8_blockscale": (
        (_SCALE, _BLOCK, _AK1, _XDL, _WAVES) + _XDL_TAIL,
        "csrc/ck_gemm_a8w8_blockscale/gemm_a8w8_blockscale_instance.py"),
    "a8w8_bpreshuffle": (
        (_BLOCK, _AK1, _XDL) + _XDL_TAIL,
        "csrc/ck_gemm_a8w8_bpreshuffle/gemm_a8w8_bpreshuffle_common.py"),
    "a8w8_batched_rowwise": (
        (_BLOCK, _XDL, _WAVES) + _XDL_TAIL, "csrc/ck_batched_gemm_a8w8/batched_gemm_a8w8_common.py"),
    "a8w8_rowwise": ((_BLOCK, _XDL, _WAVES) + _XDL_TAIL, "csrc/ck_gemm_a8w8/gemm_a8w8_common.py"),
    # tileKernelInstance of csrc/ck_gemm_a8w8/gemm_a8w8_common.py on aiter's branches (0ce44b541b):
    # the warp tile is M x N there, M x N x K in earlier revisions.
    "a8w8_cktile": ((_TILE3, _WARPS3, _WARP_TILE, _SCHED, _TILE_FLAGS, _BPC),
                    "csrc/ck_gemm_a8w8/gemm_a8w8_common.py (tileKernelInstance, aiter 0ce44b541b)"),
    # CBLOCK_SPV is an int here and the generator writes ("x").join(str(SPV)): 8 -> "8", 16 -> "1x6".
    "a4w4_blockscale": (
        (_BLOCK, _AK1, _XDL, _A, _B, _C, (("c_scalar_per_vector",), "CBlockTransfer scalars per vector", "digits"),
         _CSHUFFLE, _SCHED, _PIPE),
        "csrc/ck_gemm_a4w4_blockscale/gemm_a4w4_blockscale_common.py"),
    "bf16_batched": ((_BLOCK, _XDL, _WAVES) + _XDL_TAIL, "csrc/ck_batched_gemm_bf16/batched_gemm_bf16_common.py"),
    "deepgemm": ((_BLOCK, (("m_per_xdl", "n_per_xdl", "k_per_xdl"), "wave tile M x N x K", "ints"), _WAVES),
                 "csrc/ck_deepgemm/deepgemm_common.py"),
}
INSTANCE_PREFIXES: tuple[str, ...] = tuple(sorted(GRAMMARS, key=len, reverse=True))
# Ops aiter names the same way but without a generator here: only the leading block group is read.
_GENERIC = re.compile(r"(?:a8w8|a4w4|bf16|a16w16)\w*")
_BOOL_FIELDS = {"tiled_mma_permute_n", "transpose_c", "use_persistent_kernel", "use_structured_sparsity",
                "double_smem_buffer", "pad_m", "pad_n", "pad_k"}
_INT = re.compile(r"\d+")


def _flag(text: str) -> int | None:
    if _INT.fullmatch(text):
        return int(text)
    return {"True": 1, "False": 0}.get(text)


def _group_values(group: _Group, text: str) -> list | None:
    """The field values of one group, or None when ``text`` does not have the group's shape."""
    fields, _, kind = group
    if kind == "word":
        return [text.lower()] if text.isalpha() else None
    if kind == "version":
        return [text] if text[:1] == "v" and _INT.fullmatch(text[1:]) else None
    if kind == "flags":
        values = [_flag(t) for t in text.split("x")]
        if len(values) != len(fields) or any(v is None for v in values):
            return None
        return [bool(v) if f in _BOOL_FIELDS else v for f, v in zip(fields, values)]
    nums = ints(text)
    if nums is None:
        return None
    if kind == "list":
        return [nums]
    if kind == "digits":
        return [int("".join(str(n) for n in nums))]
    if kind == "int":
        return nums if len(nums) == 1 else None
    if kind == "ints2or3":
        return nums if len(nums) in (2, 3) else None
    return nums if len(nums) == len(fields) else None


def _grammar(name: str, prefix: str, groups: tuple[_Group, ...], source: str) -> Decoded:
    b = Builder("ck", name)
    b.set("kernel", prefix)
    toks = tokens(name[len(prefix) + 1:], offset=len(prefix) + 1)
    done = 0
    for group, (text, at) in zip(groups, toks):
        values = _group_values(group, text)
        if values is None:
            break
        fields, label, _ = group
        b.set(fields[: len(values)], values, start=at, end=at + len(text), label=label)
        done += 1
    extra = toks[done:]
    if prefix == "a8w8_blockscale_cktile" and done == len(groups) and [t for t, _ in extra] == ["aqrm"]:
        b.set("aq_row_major", True, start=extra[0][1], end=extra[0][1] + 4, label="A scales read row-major (AQRowMajor)")
        extra = []
    elif done == len(groups) and prefix == "a8w8_blockscale_cktile":
        b.fields["aq_row_major"] = False
    if done < len(groups) or extra:
        left = "_".join(t for t, _ in extra)
        b.notes.append(f"{prefix}: decoded {done} of {len(groups)} groups of the generator's grammar ({source}); "
                       f"not decoded: {left!r}")
    if "m_per_block" in b.fields and "n_per_block" in b.fields:
        b.tile(b.fields["m_per_block"], b.fields["n_per_block"], b.fields.get("k_per_block"))
    short = name
    if len(name) > 80 and toks:
        # Keep what tells instances apart at a glance: the block tile and the pipeline.
        tail = "_".join(t for t, _ in toks[-2:] if not t[:1].isdigit())
        short = f"{prefix}_{toks[0][0]}_…" + (f"_{tail}" if tail else "")
    return b.build(short=short)


def _generic(name: str, prefix: str) -> Decoded:
    """An aiter instance name without a known generator: the leading BlockSize x M x N x K group."""
    b = Builder("ck", name)
    b.set("kernel", prefix)
    pos = len(prefix) + 1
    first = name[pos:].split("_", 1)[0]
    nums = ints(first)
    if nums and len(nums) == 4:
        b.set(_BLOCK[0], nums, start=pos, end=pos + len(first), label=_BLOCK[1])
        b.tile(*nums[1:])
    b.notes.append(f"{prefix}: no aiter generator grammar known for this prefix; only the leading block group "
                   "is decoded")
    return b.build(short=name)


# -- the MoE 2-stage GEMMs --------------------------------------------------------------------
# csrc/ck_gemm_moe_2stages_codegen/gemm_moe_ck2stages_common.py (kernelInstanceGEMM1/2.name):
#   moe_ck2stages_gemm{1,2}_{Block}x{M}x{N}x{K}_{MWaves}x{NWaves}_{CDEElementOp}_v{ver}_Nswizzle{0|1}_
#   Quant{QuantType}_MulRoutedWeight{0|1}[_{act}]_{A}_{B}_{C}   (act on stage 1 only; since aiter d6ea3cc7b9)
# Before d6ea3cc7b9 (e.g. db69dad037) the quant type was its name and no dtypes followed:
#   ..._Nswizzle{0|1}_{per_tensor|per_token|...}_MulRoutedWeight{0|1}[_{silu|gelu}]
# QuantType values: csrc/include/aiter_enum.h (enum class QuantType).
_QUANT_TYPES = ("no", "per_tensor", "per_token", "per_1x32", "per_1x128", "per_128x128", "per_256x128",
                "per_1024x128")
# Stage-1 activations: ACT_OP_NAME of the same file ({0: gelu, 1: silu, 3: swiglu}).
_ACTS = ("gelu", "silu", "swiglu")
# Element types: the typedefs of csrc/ck_gemm_moe_2stages_codegen/gemm_moe_ck2stages.h.
_MOE_DTYPES = {"B16": "ck::bhalf_t", "F16": "ck::half_t", "F8": "ck::f8_t", "I8": "int8_t", "F32": "float",
               "I32": "int32_t", "FP4X2": "fp4x2", "I4": "ck::pk_i4_t"}
_MOE_HEAD = re.compile(r"moe_ck2stages_gemm([12])")


def _moe_dtype(letters: str) -> str:
    return lookup(_MOE_DTYPES.get(letters.upper(), letters)) or letters.lower()


def _moe(name: str) -> Decoded | None:
    toks = tokens(name)
    head = _MOE_HEAD.fullmatch("_".join(t for t, _ in toks[:3]))
    if head is None or len(toks) < 10:
        return None
    b = Builder("ck", name)
    b.set("kernel", "moe_ck2stages")
    stage_at = toks[2][1] + 4
    b.set("stage", int(head.group(1)), start=stage_at, end=stage_at + 1, label="MoE stage (1: gate/up, 2: down)")
    body = toks[3:]
    tile, waves = ints(body[0][0]), ints(body[1][0])
    if tile is None or len(tile) != 4 or waves is None or len(waves) != 2:
        return None
    b.set(_BLOCK[0], tile, start=body[0][1], end=body[0][1] + len(body[0][0]), label=_BLOCK[1])
    b.tile(*tile[1:])
    b.set(("m_waves", "n_waves"), waves, start=body[1][1], end=body[1][1] + len(body[1][0]), label="MWaves x NWaves")
    (op, op_at), (ver, ver_at), (swz, swz_at) = body[2], body[3], body[4]
    if not (op[:1].isalpha() and op.isalnum() and ver[:1] == "v" and ver[1:].isdigit()
            and re.fullmatch(r"Nswizzle[01]", swz)):
        return None
    b.set("cde_element_op", op, start=op_at, end=op_at + len(op), label="epilogue element-wise op")
    b.set("pipeline", ver, start=ver_at, end=ver_at + len(ver), label="GEMM pipeline version")
    b.set("nswizzle", swz.endswith("1"), start=swz_at, end=swz_at + len(swz), label="N swizzle")
    mrw = next((i for i in range(5, len(body)) if re.fullmatch(r"MulRoutedWeight[01]", body[i][0])), None)
    if mrw is None or mrw == 5:
        return None
    quant = "_".join(t for t, _ in body[5:mrw])
    q_at, q_end = body[5][1], body[mrw - 1][1] + len(body[mrw - 1][0])
    qnum = re.fullmatch(r"Quant(\d+)", quant)
    if qnum:
        n = int(qnum.group(1))
        b.set(("quant_type", "quant"), (n, _QUANT_TYPES[n] if n < len(_QUANT_TYPES) else f"quant{n}"),
              start=q_at, end=q_end, label="quantisation (aiter QuantType)")
    else:
        b.set("quant", quant.lower(), start=q_at, end=q_end, label="quantisation type")
    b.set("mul_routed_weight", body[mrw][0].endswith("1"), start=body[mrw][1], end=body[mrw][1] + len(body[mrw][0]),
          label="multiply by the routed expert weight")
    rest = body[mrw + 1:]
    if rest and rest[0][0] in _ACTS:
        act, act_at = rest[0]
        b.set("activation", act, start=act_at, end=act_at + len(act), label="activation (stage 1)")
        rest = rest[1:]
    if len(rest) == 3 and all(t.isalnum() for t, _ in rest):
        b.set(("a_dtype", "b_dtype", "out_dtype"), [_moe_dtype(t) for t, _ in rest], start=rest[0][1],
              end=rest[2][1] + len(rest[2][0]), label="A, B, output element types")
    elif rest:
        b.notes.append("moe_ck2stages: not decoded: " + repr("_".join(t for t, _ in rest)))
    short = name if len(name) <= 80 else "_".join(
        [f"moe_ck2stages_gemm{head.group(1)}", body[0][0], body[1][0], op, ver] +
        ([b.fields["activation"]] if "activation" in b.fields else []))
    return b.build(short=short)


# csrc/ck_tile_gemm_moe_2stages/moe_cktile2stages_common.py (kernelInstance.name), empty parts dropped:
#   moe_cktile2stages_gemm{1,2}_{Block}x{M}x{N}x{K}_{WaveMapM}x{WaveMapN}_{WaveTileM}x{N}x{K}_{n}perCU_
#   {QuantType}[_MulRoutedWeight][_HasBias][_{act} (stage 1)][_SplitK]
_TILE_MOE_HEAD = re.compile(r"moe_cktile2stages_gemm([12])")
_TILE_MOE_ACTS = ("no", "silu", "gelu", "swiglu")


def _moe_tile(name: str) -> Decoded | None:
    toks = tokens(name)
    head = _TILE_MOE_HEAD.fullmatch("_".join(t for t, _ in toks[:3]))
    if head is None or len(toks) < 8:
        return None
    body = toks[3:]
    tile, waves, wtile = ints(body[0][0]), ints(body[1][0]), ints(body[2][0])
    per_cu = re.fullmatch(r"(\d+)perCU", body[3][0])
    if not (tile and len(tile) == 4 and waves and len(waves) == 2 and wtile and len(wtile) == 3 and per_cu):
        return None
    b = Builder("ck", name)
    b.set("kernel", "moe_cktile2stages")
    stage_at = toks[2][1] + 4
    b.set("stage", int(head.group(1)), start=stage_at, end=stage_at + 1, label="MoE stage (1: gate/up, 2: down)")
    b.set(_BLOCK[0], tile, start=body[0][1], end=body[0][1] + len(body[0][0]), label=_BLOCK[1])
    b.tile(*tile[1:])
    b.set(("m_xdl_per_wave", "n_xdl_per_wave"), waves, start=body[1][1], end=body[1][1] + len(body[1][0]),
          label="wave map M x N")
    b.set(("m_warp_tile", "n_warp_tile", "k_warp_tile"), wtile, start=body[2][1], end=body[2][1] + len(body[2][0]),
          label="wave tile M x N x K")
    b.set("block_per_cu", int(per_cu.group(1)), start=body[3][1], end=body[3][1] + len(body[3][0]),
          label="blocks per CU")
    rest = [t for t, _ in body[4:]]
    flags = {"MulRoutedWeight": "mul_routed_weight", "HasBias": "has_bias", "SplitK": "split_k"}
    # The quant type (it may hold "_", e.g. per_tensor) runs up to the first flag or activation.
    q = next((i for i, t in enumerate(rest) if t in flags or t in _TILE_MOE_ACTS), len(rest))
    if q == 0:
        return None
    b.set("quant", "_".join(rest[:q]), start=body[4][1], end=body[4 + q - 1][1] + len(rest[q - 1]),
          label="quantisation type")
    for f in flags.values():
        b.fields[f] = False
    for t, at in body[4 + q:]:
        if t in flags:
            b.set(flags[t], True, start=at, end=at + len(t), label=t)
        elif t in _TILE_MOE_ACTS:
            b.set("activation", t, start=at, end=at + len(t), label="activation (stage 1)")
        else:
            b.notes.append(f"moe_cktile2stages: not decoded: {t!r}")
    return b.build(short=name if len(name) <= 80 else None)


_SPECIAL: tuple[tuple[str, Callable[[str], Decoded | None]], ...] = (
    ("moe_ck2stages_gemm", _moe), ("moe_cktile2stages_gemm", _moe_tile))


def decode_instance(name: str) -> Decoded | None:
    """Decode an aiter CK instance name, or None when ``name`` is not one."""
    for prefix, parse in _SPECIAL:
        if name.startswith(prefix):
            return parse(name) or Decoded("ck", {"kernel": prefix[:-5]})
    for prefix in INSTANCE_PREFIXES:
        if name.startswith(prefix + "_") and name[len(prefix) + 1:len(prefix) + 2].isdigit():
            groups, source = GRAMMARS[prefix]
            return _grammar(name, prefix, groups, source)
    cut = re.search(r"_\d", name)
    if cut and _GENERIC.fullmatch(name[:cut.start()]):
        return _generic(name, name[:cut.start()])
    return None
