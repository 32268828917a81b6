"""Triton kernels: Inductor's generated names and other (hand-written) Triton kernels.

Inductor (torch/_inductor/codegen/triton.py and simd.py, ``get_kernel_name`` /
``get_fused_kernel_name``) names a kernel ``triton_{poi|red|per|tem|for}_fused_<ops>_<n>`` where
``<ops>`` are the *sorted* op names of the fused nodes joined by ``_`` (with
``descriptive_names="original_aten"``, the default) and ``<n>`` a per-graph counter. Since op
names contain ``_`` themselves, they are split back with the table of multi-word op names in
``data/inductor_ops.txt``.

Other Triton kernels carry their Python function name; kernels from aiter and triton_kernels add
the constexpr specialisation (``_gemm_…_BLOCK_SIZE_M_64_…``, ``_matmul_ogs_NNT_bf16xbf16xmxfp4_128x128x128x1``).
"""

from __future__ import annotations

import re

from bench_kernel.kernels._data import multiword_ops
from bench_kernel.kernels._model import Decoded
from bench_kernel.kernels._spans import Builder

__all__ = ["decode_inductor", "decode_triton", "split_ops"]

_KINDS = {"poi": "pointwise", "red": "reduction", "per": "persistent_reduction", "tem": "template",
          "for": "foreach", "mix": "mix_order_reduction"}
_INDUCTOR = re.compile(r"^triton_(?P<kind>poi|red|per|tem|for|mix)_(?:(?P<fused>fused)_?)?(?P<ops>.*?)_?(?P<index>\d+)$")
_OGS = re.compile(r"^_matmul_ogs_(?P<layout>[NT]{3})_(?P<types>[a-z0-9]+(?:x[a-z0-9]+)+?)_"
                  r"(?P<tile>\d+x\d+x\d+)x(?P<split>\d+)(?:_(?P<act>\w+))?$")
_KEYVAL = re.compile(r"(?<![A-Za-z0-9])(?P<key>[A-Z][A-Z0-9]*(?:_[A-Z][A-Z0-9]*)*)_(?P<val>-?\d+|True|False|None)(?=_|$)")
# Constexpr names as written in Triton kernels -> our normalised field names.
_KEY_FIELDS = {"BLOCK_SIZE_M": "tile_m", "BLOCK_SIZE_N": "tile_n", "BLOCK_SIZE_K": "tile_k",
               "BLOCK_M": "tile_m", "BLOCK_N": "tile_n", "BLOCK_K": "tile_k", "NUM_KSPLIT": "split_k",
               "SPLIT_K": "split_k", "GROUP_SIZE_M": "group_size_m", "GROUP_M": "group_size_m",
               "NUM_STAGES": "stages", "NUM_WARPS": "warps"}


def split_ops(text: str) -> list[str]:
    """Split Inductor's ``_``-joined op list (``_to_copy_add_native_layer_norm``) into op names.

    At each word the longest multi-word op that matches wins; otherwise the word is one op (a
    leading empty word means the op's own name starts with ``_``, as in ``_to_copy``).
    """
    words = text.split("_")
    table = multiword_ops()
    ops: list[str] = []
    i = 0
    while i < len(words):
        best, span = None, 0
        for cand in table.get(words[i], ()):
            cw = cand.split("_")
            if len(cw) > span and words[i:i + len(cw)] == cw:
                best, span = cand, len(cw)
        if best is None:
            if words[i] == "" and i + 1 < len(words) and words[i + 1]:
                best, span = "_" + words[i + 1], 2
            else:
                best, span = words[i], 1
        if best:
            ops.append(best)
        i += span
    return ops


def decode_inductor(name: str, readable: str) -> Decoded | None:
    """Decode an Inductor-generated Triton kernel name, or None when it is not one."""
    m = _INDUCTOR.match(name)
    if not m:
        return None
    b = Builder("inductor", name)
    b.set("kind", _KINDS[m["kind"]], start=7, end=m.end("kind"), label="kernel kind (poi/red/per/tem/for)")
    ops = split_ops(m["ops"]) if m["ops"] else []
    b.set("ops", ops, start=m.start("ops") if m["ops"] else m.start("index"),
          end=m.end("ops") if m["ops"] else m.start("index"), label="fused ops (sorted, from the FX graph)")
    b.set("index", int(m["index"]), start=m.start("index"), end=m.end("index"), label="kernel counter in the graph")
    return b.build(short=_inductor_short(m["kind"], ops, m["index"]) if len(name) > 80 else name)


# Ops that only reshape or re-view a tensor: the first to go when a name must be shortened.
_VIEW_OPS = {"view", "_unsafe_view", "unsqueeze", "squeeze", "transpose", "permute", "expand", "clone",
             "slice", "select", "split", "unbind", "as_strided", "reshape", "_to_copy", "alias", "t"}


def _inductor_short(kind: str, ops: list[str], index: str, limit: int = 80) -> str:
    kept = [o for o in ops if o not in _VIEW_OPS] or ops
    text = f"triton_{kind}_fused_{'_'.join(kept)}_{index}"
    while len(text) > limit and kept:
        kept = kept[:-1]
        text = f"triton_{kind}_fused_{'_'.join(kept + ['…'])}_{index}"
    return text


def decode_triton(name: str, readable: str) -> Decoded | None:
    """Decode a non-Inductor Triton kernel name, or None when the name does not look like one."""
    m = _OGS.match(name)
    if m:
        b = Builder("triton", name)
        b.set("kernel", "matmul_ogs")
        b.groups(m, (("layout", "layout", "A, B, C layouts"), ("types", "types", "A x B x weight types")), inferred=True)
        tm, tn, tk = (int(x) for x in m["tile"].split("x"))
        b.set(("tile_m", "tile_n", "tile_k"), (tm, tn, tk), start=m.start("tile"), end=m.end("tile"),
              label="BLOCK_M x BLOCK_N x BLOCK_K")
        b.groups(m, (("split", "split_k", "split-K"), ("act", "epilogue", "fused epilogue")))
        return b.build(short=name if len(name) <= 80 else None)
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
        return None
    pairs = list(_KEYVAL.finditer(name))
    looks_triton = name.startswith("_") or "triton" in name.lower() or len(pairs) >= 2
    if not looks_triton:
        return None
    b = Builder("triton", name)
    if len(pairs) < 2 and "triton" not in name.lower():
        b.notes.append("family inferred from the name's shape: a bare '_snake_case' name is how Triton "
                       "kernels (Python functions) appear")
    first = pairs[0].start() if len(pairs) >= 2 else len(name)
    kernel = name[:first].rstrip("_") or name
    b.set("kernel", kernel.lstrip("_") or kernel)
    if len(pairs) >= 2:
        for p in pairs:
            key, val = p["key"], p["val"]
            field = _KEY_FIELDS.get(key, key.lower())
            value = int(val) if val.lstrip("-").isdigit() else {"True": True, "False": False}.get(val, val)
            b.set(field, value, start=p.start(), end=p.end(), label=key)
    short = name if len(name) <= 80 else None
    if short is None and len(pairs) >= 2:
        tiles = [str(b.fields[k]) for k in ("tile_m", "tile_n", "tile_k") if k in b.fields]
        short = f"{kernel}[{'x'.join(tiles)}]" if tiles else kernel
    return b.build(short=short)
