"""Composable Kernel: aiter's CK instance names and ``ck::``/``ck_tile::`` template kernels.

Instance names are built by aiter's generators by joining groups with ``_`` and the numbers of
a group with ``x``. The group orders below are read from those generators (ROCm/aiter):

- ``a8w8_rowwise_…``: csrc/ck_gemm_a8w8/gemm_a8w8_common.py (``kernelInstance.name``)
- ``a8w8_blockscale_…``: csrc/ck_gemm_a8w8_blockscale/gemm_a8w8_blockscale_instance.py — after
  the block tile comes ``AK1xBK1``, then ``MPerXDLxNPerXDL``, then ``MXdlPerWavexNXdlPerWave``
  (the seed's diagram skipped AK1/BK1).
- ``moe_ck2stages_gemm{1,2}_…``: csrc/ck_gemm_moe_2stages_codegen/gemm_moe_ck2stages_common.py
"""

from __future__ import annotations

import re

from bench_kernel.kernels._cxx import parse_function, split_args, split_component, split_scope
from bench_kernel.kernels._model import Decoded
from bench_kernel.kernels._spans import Builder, ints

__all__ = ["decode_ck"]

# One group per "_"-separated part after the prefix: (field names, label). "[]" = the whole group
# as a list of ints; "scheduler"/"pipeline" are the loop scheduler word and "v<N>".
_Group = tuple[tuple[str, ...], str]
_BLOCK: _Group = (("block_size", "m_per_block", "n_per_block", "k_per_block"),
                  "BlockSize x MPerBlock x NPerBlock x KPerBlock")
# Groups from MPerXDLxNPerXDL to the pipeline version, shared by the rowwise and blockscale grammars.
_FROM_XDL: tuple[_Group, ...] = (
    (("m_per_xdl", "n_per_xdl"), "MPerXDL x NPerXDL"),
    (("m_xdl_per_wave", "n_xdl_per_wave"), "MXdlPerWave x NXdlPerWave"),
    (("a_block_transfer",), "ABlockTransfer thread cluster (K0 x M x K1)"),
    (("b_block_transfer",), "BBlockTransfer thread cluster (K0 x N x K1)"),
    (("c_block_transfer",), "CBlockTransfer cluster lengths"),
    (("c_scalar_per_vector",), "CBlockTransfer scalars per vector"),
    (("c_shuffle_m_xdl_per_wave", "c_shuffle_n_xdl_per_wave"), "CShuffle MXdlPerWave x NXdlPerWave per shuffle"),
    (("scheduler",), "loop scheduler"),
    (("pipeline",), "block GEMM pipeline version"),
)
_GRAMMARS: dict[str, tuple[_Group, ...]] = {
    "a8w8_rowwise": (_BLOCK,) + _FROM_XDL,
    "a8w8_blockscale": (
        (("scale_block_m", "scale_block_n", "scale_block_k"), "ScaleBlockM x ScaleBlockN x ScaleBlockK"),
        _BLOCK,
        (("ak1", "bk1"), "AK1 x BK1 (K elements per vector load)"),
    ) + _FROM_XDL,
    # csrc/ck_gemm_a8w8/gemm_a8w8_common.py (``tileKernelInstance.name``): the ck_tile variant.
    "a8w8_cktile": (
        (("m_per_block", "n_per_block", "k_per_block"), "M x N x K block tile"),
        (("m_warp", "n_warp", "k_warp"), "warps along M x N x K"),
        (("m_warp_tile", "n_warp_tile", "k_warp_tile"), "warp tile M x N x K"),
        (("scheduler",), "loop scheduler"),
        (("flags",), "TiledMMAPermuteN x TransposeC x UsePersistentKernel"),
        (("block_per_cu",), "blocks per CU"),
    ),
}
_LIST_FIELDS = {"a_block_transfer", "b_block_transfer", "c_block_transfer", "c_scalar_per_vector", "flags",
                "block_per_cu"}
_INSTANCE = re.compile(r"^(a8w8_blockscale|a8w8_rowwise|a8w8_bpreshuffle|a8w8_cktile|a8w8|a4w4\w*?|"
                       r"bf16\w*?|a16w16\w*?|moe_ck2stages_gemm[12])_(?=\d)")
_MOE = re.compile(r"^moe_ck2stages_gemm(?P<stage>[12])_(?P<tile>\d+x\d+x\d+x\d+)_(?P<waves>\d+x\d+)_"
                  r"(?P<op>[A-Za-z]\w*?)_v(?P<pipe>\d+)_Nswizzle(?P<swz>[01])_(?P<quant>[A-Za-z_]+?\d*)_"
                  r"MulRoutedWeight(?P<mrw>[01])(?:_(?P<act>silu|gelu))?(?:_(?P<types>.*))?$")


def _instance(name: str, prefix: str) -> Decoded:
    b = Builder("ck", name)
    b.set("kernel", prefix)
    grammar = _GRAMMARS.get(prefix)
    pos = len(prefix) + 1
    groups = name[pos:].split("_")
    if grammar is None:
        # Other aiter CK instances: only the leading BlockSize x M x N x K group is read.
        nums = ints(groups[0]) if groups else None
        if nums and len(nums) == 4:
            b.set(("block_size", "m_per_block", "n_per_block", "k_per_block"), nums, start=pos,
                  end=pos + len(groups[0]), label="BlockSize x MPerBlock x NPerBlock x KPerBlock")
            b.tile(*nums[1:])
        return b.build(short=name)
    for (fields, label), group in zip(grammar, groups):
        end = pos + len(group)
        if fields == ("scheduler",):
            b.set("scheduler", group.lower(), start=pos, end=end, label=label)
        elif fields == ("pipeline",):
            b.set("pipeline", group.lower(), start=pos, end=end, label=label)
        else:
            nums = ints(group)
            if nums is None:
                break
            if fields[0] in _LIST_FIELDS:
                value = nums[0] if fields[0] == "block_per_cu" else nums
                b.set(fields[0], value, start=pos, end=end, label=label)
            elif len(nums) == len(fields):
                b.set(fields, nums, start=pos, end=end, label=label)
            else:
                break
        pos = end + 1
    f = b.fields
    if "m_per_block" in f:
        b.tile(f["m_per_block"], f["n_per_block"], f["k_per_block"])
    short = name
    if len(name) > 80 and groups:
        # Keep what tells instances apart at a glance: the block tile and the pipeline.
        tail = "_".join(g for g in groups[-2:] if not g[:1].isdigit())
        short = f"{prefix}_{groups[0]}_…" + (f"_{tail}" if tail else "")
    return b.build(short=short)


def _moe(name: str) -> Decoded | None:
    m = _MOE.match(name)
    if not m:
        return None
    b = Builder("ck", name)
    b.set("kernel", "moe_ck2stages")
    b.set("stage", int(m["stage"]), start=m.start("stage"), end=m.end("stage"), label="MoE stage (1: gate/up, 2: down)")
    tile = [int(x) for x in m["tile"].split("x")]
    b.set(("block_size", "m_per_block", "n_per_block", "k_per_block"), tile, start=m.start("tile"),
          end=m.end("tile"), label="BlockSize x MPerBlock x NPerBlock x KPerBlock")
    b.tile(*tile[1:])
    b.set(("m_waves", "n_waves"), [int(x) for x in m["waves"].split("x")], start=m.start("waves"),
          end=m.end("waves"), label="MWaves x NWaves")
    b.set("cde_element_op", m["op"], start=m.start("op"), end=m.end("op"), label="epilogue element-wise op")
    b.set("pipeline", f"v{m['pipe']}", start=m.start("pipe") - 1, end=m.end("pipe"), label="GEMM pipeline version")
    b.set("nswizzle", m["swz"] == "1", start=m.start("swz") - 8, end=m.end("swz"), label="N swizzle")
    b.set("quant", m["quant"], start=m.start("quant"), end=m.end("quant"), label="quantisation type")
    b.set("mul_routed_weight", m["mrw"] == "1", start=m.start("mrw") - 15, end=m.end("mrw"),
          label="multiply by the routed expert weight")
    if m["act"]:
        b.set("activation", m["act"], start=m.start("act"), end=m.end("act"), label="activation (stage 1)")
    if m["types"]:
        # Later generators append the A, B and output dtypes; the order is read off names, not the source.
        parts = m["types"].split("_")
        if len(parts) == 3:
            b.set(("a_dtype", "b_dtype", "out_dtype"), [p.lower() for p in parts], start=m.start("types"),
                  end=m.end("types"), label="A, B, output dtypes", inferred=True)
    short = name if len(name) <= 80 else (f"moe_ck2stages_gemm{m['stage']}_{m['tile']}_{m['waves']}_{m['op']}_v{m['pipe']}"
                                          + (f"_{m['act']}" if m["act"] else ""))
    return b.build(short=short)


# Template-argument order of ck::GridwiseGemm*_xdl_cshuffle_v3 after the GemmSpecialization
# (ck/tensor_operation/gpu/grid/gridwise_gemm_xdl_cshuffle_v3.hpp; aiter's
# gemm_a8w8_blockscale_common.cuh instantiates the ABScale variant with the scale blocks first).
_V3_FIELDS = ("block_size", "m_per_block", "n_per_block", "k_per_block", "ak1", "bk1",
              "m_per_xdl", "n_per_xdl", "m_xdl_per_wave", "n_xdl_per_wave")
_SCHEDULERS = {0: "intrawave", 1: "interwave"}
_ENUM = re.compile(r"^\(ck::(\w+)\)(\d+)$")


def _template(readable: str) -> Decoded:
    fn = parse_function(readable)
    parts = split_scope(fn.qualified)
    kernel, targs, _ = split_component(parts[-1])
    b = Builder("ck")
    b.set("kernel", kernel)
    namespace = split_component(parts[0])[0]
    if namespace == "ck_tile" and targs:
        # ck_tile::kentry<N, Kernel<…>>: the kernel is the second argument.
        args = split_args(targs)
        if len(args) > 1:
            inner_parts = split_scope(args[1])
            inner = split_component(inner_parts[-1])[0]
            b.set("kernel", inner)
            return b.build(short=f"ck_tile::{inner}")
    args = split_args(targs or "")
    gridwise = next((a for a in args if "Gridwise" in a), None)
    if gridwise is not None:
        gparts = split_scope(gridwise)
        gname, gtargs, _ = split_component(gparts[-1])
        b.set("gridwise", gname)
        gargs = split_args(gtargs or "")
        spec = next((i for i, a in enumerate(gargs) if "GemmSpecialization)" in a), None)
        if spec is not None and gname.endswith("_v3"):
            nums = []
            scale = "ABScale" in gname
            for a in gargs[spec + 1:]:
                if not re.fullmatch(r"\d+", a):
                    break
                nums.append(int(a))
            if scale and len(nums) >= 4:
                b.set(("scale_block_m", "scale_block_n", "scale_block_k"), nums[1:4])
                nums = nums[:1] + nums[4:]
            if len(nums) >= len(_V3_FIELDS):
                b.set(_V3_FIELDS, nums[: len(_V3_FIELDS)])
                b.tile(nums[1], nums[2], nums[3])
        for a in gargs:
            m = _ENUM.match(a)
            if m and m.group(1) == "BlockGemmPipelineScheduler":
                b.set("scheduler", _SCHEDULERS.get(int(m.group(2)), m.group(2)))
            elif m and m.group(1) == "BlockGemmPipelineVersion":
                b.set("pipeline", f"v{int(m.group(2)) + 1}")  # the enum is 0-based: v1 == 0
    f = b.fields
    inner = "x".join(str(f[k]) for k in ("tile_m", "tile_n", "tile_k") if k in f) or "…"
    return b.build(short=f"{namespace}::{kernel}<{inner}>")


def decode_ck(name: str, readable: str) -> Decoded | None:
    """Decode a CK kernel name, or None when it is not one."""
    m = _INSTANCE.match(name)
    if m:
        if m.group(1).startswith("moe_ck2stages"):
            return _moe(name) or Decoded("ck", {"kernel": "moe_ck2stages"}, short=None)
        return _instance(name, m.group(1))
    head = parse_function(readable).qualified if ("::" in readable) else ""
    if head.startswith(("ck::", "ck_tile::")):
        return _template(readable)
    return None
