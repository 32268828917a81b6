"""Composable Kernel: aiter's CK instance names (``_ck_instances``) and ``ck::``/``ck_tile::`` template kernels.

Instance names (``a8w8_blockscale_1x128x128_256x16x128x256_16x16_…``) are decoded with one grammar
per aiter generator, in :mod:`bench_kernel.kernels._ck_instances`. Note for ``a8w8_blockscale``:
after the block tile comes ``AK1xBK1``, then ``MPerXDLxNPerXDL``, then ``MXdlPerWavexNXdlPerWave``
(the seed's diagram skipped AK1/BK1).
"""

from __future__ import annotations

import re

from bench_kernel.kernels._ck_instances import decode_instance
from bench_kernel.kernels._cxx import parse_function, split_args, split_component, split_scope
from bench_kernel.kernels._model import Decoded
from bench_kernel.kernels._spans import Builder

__all__ = ["decode_ck"]

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
    instance = decode_instance(name)
    if instance is not None:
        return instance
    head = parse_function(readable).qualified if ("::" in readable) else ""
    if head.startswith(("ck::", "ck_tile::")):
        return _template(readable)
    return None
