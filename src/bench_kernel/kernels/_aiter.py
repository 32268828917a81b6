"""aiter's own kernels: hand-written ASM kernels (``aiter::fmha_fwd_hd128_bf16_rtz``) and HIP kernels
in the ``aiter::`` namespace (often mangled in ROCm traces). CK-based aiter kernels are ``ck``."""

from __future__ import annotations

import re

from bench_kernel.kernels._cxx import parse_function, split_component, split_scope
from bench_kernel.kernels._model import Decoded
from bench_kernel.kernels._spans import Builder

__all__ = ["decode_aiter"]

_WORD = re.compile(r"\w+")
_ASM_FMHA = re.compile(r"^(?:aiter::)?(?P<kernel>fmha_(?:v3_)?(?:fwd|bwd)\w*?)_hd(?P<hd>\d+)(?:_(?P<rest>\w+))?$")


def decode_aiter(name: str, readable: str) -> Decoded | None:
    """Decode an aiter ASM or HIP kernel name, or None when it is not one."""
    bare = name[len("aiter::"):] if name.startswith("aiter::") else name
    # Word characters only: then the optional "_<rest>$" tail either matches at once or the "_hd<n>"
    # is not followed by "_", so the lazy kernel group costs O(1) per "_hd" and the match is linear.
    m = _ASM_FMHA.match(bare) if name.startswith("aiter::") and _WORD.fullmatch(bare) else None
    if m:
        b = Builder("aiter", name)
        off = len(name) - len(bare)
        b.set("kernel", m["kernel"], start=off + m.start("kernel"), end=off + m.end("kernel"), label="ASM kernel")
        b.set("head_dim", int(m["hd"]), start=off + m.start("hd") - 2, end=off + m.end("hd"), label="head dim")
        rest = (m["rest"] or "").split("_")
        dtype = next((r for r in rest if r in ("bf16", "fp16", "fp8", "f16")), None)
        if dtype:
            b.set("dtype", dtype)
        b.set("causal", "causal" in rest)
        if "rtz" in rest or "rtne" in rest or "rtna" in rest:
            b.set("rounding", next(r for r in rest if r.startswith("rt")))
        return b.build(short=name)
    head = parse_function(readable).qualified
    if head.startswith("aiter::") or name.startswith("aiter::"):
        kernel = split_component(split_scope(head)[-1])[0]
        return Decoded("aiter", {"kernel": kernel})
    return None
