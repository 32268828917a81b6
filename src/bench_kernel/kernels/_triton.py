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
from bench_kernel.kernels._spans import Builder, Spans, tokens

__all__ = ["decode_inductor", "decode_triton", "split_ops"]

_KINDS = {"poi": "pointwise", "red": "reduction", "per": "persistent_reduction", "tem": "template",
          "for": "foreach", "mix": "mix_order_reduction"}
_KINDS_RE = re.compile(r"triton_(poi|red|per|tem|for|mix)_")
_TYPES = re.compile(r"[a-z0-9]+")
_TILE_SPLIT = re.compile(r"(\d+x\d+x\d+)x(\d+)")
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_KEY_TOKEN = re.compile(r"[A-Z][A-Z0-9]*")
_VALUE_TOKEN = re.compile(r"-?\d+|True|False|None")
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
    m = _inductor_match(name)
    if not m:
        return None
    b = Builder("inductor", name)
    kind, index = m.text("kind"), m.text("index")
    b.set("kind", _KINDS[kind], start=7, end=m.end("kind"), label="kernel kind (poi/red/per/tem/for)")
    ops = split_ops(m.text("ops")) if m.text("ops") else []
    if ops:
        b.set("ops", ops, start=m.start("ops"), end=m.end("ops"), label="fused ops (sorted, from the FX graph)")
    else:
        b.fields["ops"] = []  # "triton_poi_fused_0": nothing to point at in the tree
    b.set("index", int(index), start=m.start("index"), end=m.end("index"), label="kernel counter in the graph")
    return b.build(short=_inductor_short(kind, ops, index) if len(name) > 80 else name)


def _inductor_match(name: str) -> Spans | None:
    """``triton_{kind}_[fused[_]]<ops>[_]<index>``: the regex ``^triton_(kind)_(?:fused_?)?(.*?)_?(\\d+)$``,
    taken apart with string operations (the lazy ``.*?`` before a digit run was quadratic in that run)."""
    head = _KINDS_RE.match(name)
    if head is None or "\n" in name:
        return None
    stem = name.rstrip("0123456789")
    if not 0 < len(name) - len(stem) <= 18 or len(stem) < head.end():
        return None
    m = Spans(name)
    m.put("kind", head.start(1), head.end(1))
    m.put("index", len(stem), len(name))
    ops_at = head.end()
    if name.startswith("fused", ops_at):
        ops_at += 5 + (name[ops_at + 5:ops_at + 6] == "_" and ops_at + 5 < len(stem))
    ops_end = len(stem) - 1 if stem.endswith("_") and len(stem) - 1 >= ops_at else len(stem)
    m.put("ops", ops_at, max(ops_at, ops_end))
    return m


# Ops that only reshape or re-view a tensor: the first to go when a name must be shortened.
_VIEW_OPS = {"view", "_unsafe_view", "unsqueeze", "squeeze", "transpose", "permute", "expand", "clone",
             "slice", "select", "split", "unbind", "as_strided", "reshape", "_to_copy", "alias", "t"}


def _inductor_short(kind: str, ops: list[str], index: str, limit: int = 80) -> str:
    kept = [o for o in ops if o not in _VIEW_OPS] or ops
    text = f"triton_{kind}_fused_{'_'.join(kept)}_{index}"
    if len(text) <= limit:
        return text
    # The longest run of leading ops that fits before "_…_<index>" (a running sum, not a re-join per op).
    room = limit - len(f"triton_{kind}_fused_…_{index}")
    n = used = 0
    while n < len(kept) and used + len(kept[n]) + 1 <= room:
        used += len(kept[n]) + 1
        n += 1
    return f"triton_{kind}_fused_{'_'.join(kept[:n] + ['…'])}_{index}"


def _ogs_match(name: str) -> Spans | None:
    """``_matmul_ogs_<NNT>_<AxBxW types>_<M>x<N>x<K>x<split>[_<epilogue>]`` by tokens (the regex's
    ``[a-z0-9]+(?:x[a-z0-9]+)+?`` nests two quantifiers over overlapping classes: exponential)."""
    if not name.startswith("_matmul_ogs_"):
        return None
    parts = tokens(name[12:], offset=12)
    if len(parts) < 3:
        return None
    (layout, l_at), (types, t_at), (tile, tile_at) = parts[0], parts[1], parts[2]
    act = name[parts[3][1]:] if len(parts) > 3 else None
    ts = _TILE_SPLIT.fullmatch(tile)
    if not (re.fullmatch(r"[NT]{3}", layout) and _TYPES.fullmatch(types) and "x" in types[1:-1] and ts
            and (act is None or re.fullmatch(r"\w+", act))):
        return None
    m = Spans(name)
    m.put("layout", l_at, l_at + 3)
    m.put("types", t_at, t_at + len(types))
    m.put("tile", tile_at, tile_at + ts.end(1))
    m.put("split", tile_at + ts.start(2), tile_at + ts.end(2))
    if act is not None:
        m.put("act", parts[3][1], len(name))
    return m


def _key_values(name: str) -> list[tuple[str, str, int, int]]:
    """Triton constexpr pairs ``KEY_VALUE`` in a name: (key, value, start, end) per pair.

    A key is a run of upper-case tokens (``BLOCK_SIZE_M``), the value the token right after it
    (``-?\\d+``, ``True``, ``False``, ``None``). This is the regex
    ``(?<![A-Za-z0-9])([A-Z][A-Z0-9]*(?:_[A-Z][A-Z0-9]*)*)_(-?\\d+|True|False|None)(?=_|$)`` as a walk
    over tokens: the regex retried its key run from every token of the run (``"A_" * 32000``: 23 s).
    """
    out: list[tuple[str, str, int, int]] = []
    run: list[tuple[str, int]] = []
    for tok, at in tokens(name):
        if _KEY_TOKEN.fullmatch(tok):
            run.append((tok, at))
            continue
        if run and _VALUE_TOKEN.fullmatch(tok):
            out.append(("_".join(t for t, _ in run), tok, run[0][1], at + len(tok)))
        run = []
    return out


def decode_triton(name: str, readable: str) -> Decoded | None:
    """Decode a non-Inductor Triton kernel name, or None when the name does not look like one."""
    m = _ogs_match(name)
    if m:
        b = Builder("triton", name)
        b.set("kernel", "matmul_ogs")
        b.groups(m, (("layout", "layout", "A, B, C layouts"), ("types", "types", "A x B x weight types")), inferred=True)
        tm, tn, tk = (int(x) for x in m.text("tile").split("x"))
        b.set(("tile_m", "tile_n", "tile_k"), (tm, tn, tk), start=m.start("tile"), end=m.end("tile"),
              label="BLOCK_M x BLOCK_N x BLOCK_K")
        b.groups(m, (("split", "split_k", "split-K"), ("act", "epilogue", "fused epilogue")))
        return b.build(short=name if len(name) <= 80 else None)
    if not _IDENT.fullmatch(name) or name.startswith("_Z"):  # "_Z…" is a mangled C++ name, not Python
        return None
    pairs = _key_values(name)
    looks_triton = name.startswith("_") or "triton" in name.lower() or len(pairs) >= 2
    if not looks_triton:
        return None
    b = Builder("triton", name)
    if len(pairs) < 2 and "triton" not in name.lower():
        b.notes.append("family inferred from the name's shape: a bare '_snake_case' name is how Triton "
                       "kernels (Python functions) appear")
    first = pairs[0][2] if len(pairs) >= 2 else len(name)
    kernel = name[:first].rstrip("_") or name
    b.set("kernel", kernel.lstrip("_") or kernel)
    if len(pairs) >= 2:
        for key, val, start, end in pairs:
            field = _KEY_FIELDS.get(key, key.lower())
            value = int(val) if val.lstrip("-").isdigit() else {"True": True, "False": False}.get(val, val)
            b.set(field, value, start=start, end=end, label=key)
    short = name if len(name) <= 80 else None
    if short is None and len(pairs) >= 2:
        tiles = [str(b.fields[k]) for k in ("tile_m", "tile_n", "tile_k") if k in b.fields]
        short = f"{kernel}[{'x'.join(tiles)}]" if tiles else kernel
    return b.build(short=short)
