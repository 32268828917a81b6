"""CUTLASS kernels: 3.x ``cutlass3x_*`` and 2.x ``cutlass_*`` procedural names, the
``cutlass::Kernel*<NAME>`` wrappers around them, and 3.x ``cutlass::device_kernel<GemmUniversal<…>>``.

Procedural names follow cutlass_library (python/cutlass_library/gemm_operation.py,
``GemmOperation.procedural_name``): ``cutlass{3x}_sm{arch}_{opcode class}_{op}_{types}_{tile}
[_{cluster}]_{stages}_{layouts}_align{n}[_{kernel schedule}_{epilogue schedule}]``; in 2.x names the
threadblock group is ``{M}x{N}_{K}x{stages}`` and the op carries the MMA shape (``s16816gemm``).
"""

from __future__ import annotations

import re

from bench_kernel.kernels._cxx import matches, split_args
from bench_kernel.kernels._model import Decoded
from bench_kernel.kernels._spans import Builder, Spans, tokens

__all__ = ["decode_cutlass"]

# 3.x: read token by token. The tail from the tile on is fixed (tile, cluster, stages, layout,
# align); the op is token 3 and the types are what lies between. (As one regex with lazy op, types
# and schedule groups, ``(?:_\w+?)*$`` alone backtracked exponentially on a crafted name.)
_LOWER_ALNUM = re.compile(r"[a-z0-9]+")
_V3_OPS = ("gemm", "fprop", "dgrad", "wgrad")
_V3_TAIL = (re.compile(r"\d+x\d+x\d+"), re.compile(r"\d+x\d+x\d+"), re.compile(r"\d+"), re.compile(r"[nt]{3}"),
            re.compile(r"align\d+"))
_V3_ARCH = re.compile(r"\d+[a-z]?")
_V3_CLASS = re.compile(r"[a-z]+")
_WORDY = re.compile(r"\w*")


def _v3_op(tok: str) -> bool:
    """``[a-z0-9]*(gemm|fprop|dgrad|wgrad)`` or ``[a-z0-9]*conv[a-z0-9]*``, without the regex: its
    second branch backtracked once per "conv" in a token (quadratic; found by the regex scan test)."""
    return bool(_LOWER_ALNUM.fullmatch(tok)) and (tok.endswith(_V3_OPS) or "conv" in tok)


def _v3_match(target: str) -> Spans | None:
    """Fields of ``cutlass3x_sm<arch>_<class>_<op>_<types>_<tile>_<cluster>_<stages>_<layout>_align<n>[_<schedule>]``."""
    if not _WORDY.fullmatch(target):
        return None
    toks = tokens(target)
    if len(toks) < 5 + len(_V3_TAIL) or not toks[1][0].startswith("sm") or not _V3_ARCH.fullmatch(toks[1][0][2:]) \
            or not _V3_CLASS.fullmatch(toks[2][0]) or not _v3_op(toks[3][0]):
        return None
    t = next((k for k in range(5, len(toks) - len(_V3_TAIL) + 1)
              if all(rx.fullmatch(toks[k + i][0]) for i, rx in enumerate(_V3_TAIL))), None)
    if t is None:
        return None
    m = Spans(target)
    for group, (tok, at) in (("arch", (toks[1][0][2:], toks[1][1] + 2)), ("cls", toks[2]), ("op", toks[3]),
                             ("tile", toks[t]), ("cluster", toks[t + 1]), ("stages", toks[t + 2]),
                             ("layout", toks[t + 3]), ("align", (toks[t + 4][0][5:], toks[t + 4][1] + 5))):
        m.put(group, at, at + len(tok))
    m.put("types", toks[4][1], toks[t][1] - 1)
    rest_at = toks[t + 4][1] + len(toks[t + 4][0])
    m.put("rest", rest_at, len(target))
    return m


_V2 = re.compile(r"cutlass_(?:(?P<arch>\d+)_)?(?P<cls>simt|tensorop|wmma_tensorop|wmma)_(?P<ext>.+?)_"
                 r"(?P<tile>\d+x\d+)(?:_(?P<kst>\d+x\d+))?_(?P<layout>[a-z]+)_align(?P<align>\d+)$")
_WRAPPED = re.compile(r"^(?:void )?cutlass\w*::Kernel\d?<(?P<inner>cutlass\w+)>")
_OP = re.compile(r"(?:^|_)(?P<instr>[a-z]?\d*)(?P<op>gemm|fprop|dgrad|wgrad|conv\w*)")


def _v3(name: str, m: Spans, off: int) -> Decoded:
    b = Builder("cutlass", name)
    b.set("version", 3)
    b.set("arch", f"sm{m['arch']}", start=off + m.start("arch") - 2, end=off + m.end("arch"), label="SM architecture")
    b.set("opcode_class", m["cls"], start=off + m.start("cls"), end=off + m.end("cls"), label="opcode class")
    b.set("op", m["op"], start=off + m.start("op"), end=off + m.end("op"), label="operation")
    b.set("types", m["types"], start=off + m.start("types"), end=off + m.end("types"), label="A, B, accumulator, C, D types")
    tm, tn, tk = (int(x) for x in m.text("tile").split("x"))
    b.set(("tile_m", "tile_n", "tile_k"), (tm, tn, tk), start=off + m.start("tile"), end=off + m.end("tile"),
          label="CTA tile M x N x K")
    b.set("cluster", m["cluster"], start=off + m.start("cluster"), end=off + m.end("cluster"), label="cluster shape")
    b.set("stages", int(m.text("stages")), start=off + m.start("stages"), end=off + m.end("stages"),
          label="pipeline stages (0: chosen by the builder)")
    b.set("layout", m.text("layout").upper(), start=off + m.start("layout"), end=off + m.end("layout"),
          label="A, B, C layouts (t: transposed)")
    b.set("align", int(m.text("align")), start=off + m.start("align") - 5, end=off + m.end("align"),
          label="alignment (elements)")
    rest = m.text("rest")
    if rest:
        b.set("schedule", rest.strip("_"), start=off + m.start("rest") + 1, end=off + m.end("rest"),
              label="kernel and epilogue schedule")
    short = name if len(name) <= 80 else (f"cutlass3x_sm{m['arch']}_{m['op']}_{m['types']}_{m['tile']}_{m['cluster']}_"
                                          f"{m['stages']}_{m['layout']}_align{m['align']}")
    return b.build(short=short)


def _v2(name: str, m: re.Match[str], off: int) -> Decoded:
    b = Builder("cutlass", name)
    b.set("version", 2)
    if m["arch"]:
        b.set("arch", f"sm{m['arch']}", start=off + m.start("arch"), end=off + m.end("arch"), label="SM architecture")
    b.set("opcode_class", m["cls"], start=off + m.start("cls"), end=off + m.end("cls"), label="opcode class")
    op = _OP.search(m["ext"])
    if op:
        b.set("op", op["op"], start=off + m.start("ext") + op.start("op"), end=off + m.start("ext") + op.end("op"),
              label="operation (with MMA shape prefix)")
        if op["instr"]:
            b.set("instruction", op["instr"])
    b.set("types", m["ext"])
    tm, tn = (int(x) for x in m["tile"].split("x"))
    b.set(("tile_m", "tile_n"), (tm, tn), start=off + m.start("tile"), end=off + m.end("tile"), label="CTA tile M x N")
    if m["kst"]:
        tk, st = (int(x) for x in m["kst"].split("x"))
        b.set(("tile_k", "stages"), (tk, st), start=off + m.start("kst"), end=off + m.end("kst"),
              label="K tile x pipeline stages")
    b.set("layout", m["layout"].upper(), start=off + m.start("layout"), end=off + m.end("layout"),
          label="A, B layouts (t: transposed) or tensor layout")
    b.set("align", int(m["align"]), start=off + m.start("align") - 5, end=off + m.end("align"),
          label="alignment (elements)")
    return b.build(short=name if len(name) <= 80 else None)


_SCOPED = re.compile(r"::(\w+)<")
_WORD = re.compile(r"\w+")


def _mainloop(readable: str) -> str | None:
    """The first ``Mainloop…`` or ``Kernel…WarpSpecialized…`` word part (the regex
    ``Mainloop\\w+|Kernel\\w*WarpSpecialized\\w*``, walked word by word to stay linear)."""
    for w in _WORD.finditer(readable):
        word = w.group()
        i, k = word.find("Mainloop"), word.find("Kernel")
        if 0 <= i and len(word) > i + 8 and (k < 0 or i <= k or "WarpSpecialized" not in word[k:]):
            return word[i:]
        if 0 <= k and word.find("WarpSpecialized", k + 6) >= 0:
            return word[k:]
    return None


def _device_kernel(readable: str) -> Decoded:
    b = Builder("cutlass")
    b.set("version", 3)
    b.set("kernel", next((w for w in _SCOPED.findall(readable)
                          if w == "GemmUniversal" or w.startswith("Conv") or "Kernel" in w[1:]), "device_kernel"))
    mainloop = _mainloop(readable)
    if mainloop:
        b.set("mainloop", mainloop)
    mma = readable.find("CollectiveMma<")
    if mma >= 0:
        mm = matches(readable)
        close = mm.get(mma + len("CollectiveMma"))
        if close is not None:
            args = split_args(readable[mma + len("CollectiveMma<"):close])
            # CollectiveMma<DispatchPolicy, TileShape, …> (cutlass/gemm/collective/collective_mma.hpp)
            if len(args) > 1:
                dims = re.findall(r"cute::C<(\d+)>", args[1])
                if len(dims) == 3:
                    b.tile(*(int(d) for d in dims))
    short = f"cutlass::device_kernel<{b.fields['kernel']}"
    short += f", {b.fields['mainloop']}>" if "mainloop" in b.fields else ">"
    return b.build(short=short if len(short) <= 80 else None)


def decode_cutlass(name: str, readable: str) -> Decoded | None:
    """Decode a CUTLASS kernel name, or None when it is not one."""
    target, off = name, 0
    w = _WRAPPED.match(readable)
    if w:
        target, off = w["inner"], 0
    if target.startswith("cutlass3x_"):
        m3 = _v3_match(target)
        return _v3(target, m3, off) if m3 else Decoded("cutlass", {"version": 3})
    if target.startswith("cutlass_"):
        m = _V2.match(target)
        if m:
            d = _v2(target, m, off)
            if "cudnn" in readable.split("<", 1)[0]:
                d.fields["library"] = "cudnn"
            return d
        return Decoded("cutlass", {"version": 2})
    if readable.startswith(("void cutlass::device_kernel<", "cutlass::device_kernel<")) or \
            readable.startswith("cutlass::device_kernel"):
        return _device_kernel(readable)
    return None
