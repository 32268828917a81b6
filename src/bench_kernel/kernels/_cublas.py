"""cuBLAS / cuBLASLt kernels: ``sm90_xmma_*``, ``ampere_*`` (and other arch-prefixed), ``nvjet_*``,
``cublasLt::*`` and the gemv/dot helpers.

NVIDIA publishes no grammar for these names. Every field below is read off observed names and
is listed in ``inferred``; the layout letters follow BLAS (``tn`` = A transposed, B not).
"""

from __future__ import annotations

import re

from bench_kernel.kernels._cxx import parse_function, split_component, split_scope
from bench_kernel.kernels._model import Decoded
from bench_kernel.kernels._shorten import MAX_SHORT, shorten_cxx
from bench_kernel.kernels._spans import Builder

__all__ = ["decode_cublas"]

#: architecture nicknames used as prefixes of pre-Hopper cuBLAS kernels.
_ARCH_NAMES = {"maxwell": "sm50", "pascal": "sm60", "volta": "sm70", "turing": "sm75", "ampere": "sm80",
               "ada": "sm89", "hopper": "sm90", "blackwell": "sm100"}
_XMMA = re.compile(r"^(?P<arch>sm\d+[a-z]?)_xmma_(?P<op>[a-z]+)_(?P<types>[a-z0-9]+(?:_[a-z0-9]+)*?)_"
                   r"(?P<layout>[nt]{2})_(?P<c>[nt])_")
_LEGACY = re.compile(r"^(?P<archname>maxwell|pascal|volta|turing|ampere|ada|hopper|blackwell)_"
                     r"(?P<body>.+?)_(?P<layout>[nt]{2})$")
_NVJET = re.compile(r"^nvjet_(?:(?P<arch>sm\d+[a-z]?)_)?(?P<variant>[a-z]+)_(?P<tile>\d+x\d+)_(?P<kstage>\d+x\d+)_"
                    r"(?P<cluster>\d+x\d+)_(?P<rest>.*?)_?(?P<layout>[TN]{3})$")


def _xmma(name: str, m: re.Match[str]) -> Decoded:
    b = Builder("cublas", name)
    b.set("arch", m["arch"], start=m.start("arch"), end=m.end("arch"), label="target architecture", inferred=True)
    b.set("op", m["op"], start=m.start("op"), end=m.end("op"), label="operation", inferred=True)
    b.set("types", m["types"], start=m.start("types"), end=m.end("types"),
          label="A/B, C/compute, epilogue types", inferred=True)
    b.set("layout", m["layout"].upper(), start=m.start("layout"), end=m.end("layout"),
          label="A/B layout (t: transposed)", inferred=True)
    for key, field, label in (("tilesize", "tile", "CTA tile M x N x K"),
                              ("warpgroupsize", "warpgroups", "warp groups M x N x K"),
                              ("warpsize", "warps", "warps M x N x K")):
        t = re.search(rf"_{key}(\d+x\d+x\d+)", name)
        if t:
            if field == "tile":
                mm, nn, kk = (int(x) for x in t.group(1).split("x"))
                b.set(("tile_m", "tile_n", "tile_k"), (mm, nn, kk), start=t.start(1) - len(key),
                      end=t.end(1), label=label, inferred=True)
            else:
                b.set(field, t.group(1), start=t.start(1) - len(key), end=t.end(1), label=label, inferred=True)
    st = re.search(r"_stage(\d+)", name)
    if st:
        b.set("stages", int(st.group(1)), start=st.start() + 1, end=st.end(), label="pipeline stages", inferred=True)
    sk = re.search(r"_(segment_k|split_k|splitk)_(on|off)", name)
    if sk:
        b.set("split_k", sk.group(2) == "on", start=sk.start() + 1, end=sk.end(), label="split-K", inferred=True)
    short = name
    if len(short) > 80:
        short = re.sub(r"(?:_kernel)?(?:__\d+x)?_cublas$", "", short)
        for long_, abbrev in (("tilesize", "t"), ("warpgroupsize", "wg"), ("warpsize", "w"), ("_execute", ""),
                              ("segment_k", "segk")):
            short = short.replace(long_, abbrev)
    return b.build(short=short)


def _legacy(name: str, m: re.Match[str]) -> Decoded:
    b = Builder("cublas", name)
    b.set("arch", _ARCH_NAMES[m["archname"]], start=0, end=m.end("archname"), label="architecture", inferred=True)
    body, off = m["body"], m.start("body")
    tile = re.search(r"_(\d+)x(\d+)(?=_)", "_" + body + "_")
    if tile:
        b.set(("tile_m", "tile_n"), (int(tile.group(1)), int(tile.group(2))), start=off + tile.start() ,
              end=off + tile.end() - 1, label="CTA tile M x N", inferred=True)
    st = re.search(r"stages_(\d+)x(\d+)", body)
    if st:
        b.set(("tile_k", "stages"), (int(st.group(1)), int(st.group(2))), start=off + st.start(),
              end=off + st.end(), label="K tile x stages", inferred=True)
    instr = re.search(r"([a-z]\d{3,6})gemm", body)
    if instr:
        b.set("instruction", instr.group(1), inferred=True)
    b.set("layout", m["layout"].upper(), start=m.start("layout"), end=m.end("layout"),
          label="A/B layout (t: transposed)", inferred=True)
    return b.build(short=None if len(name) > 80 else name)


# nvjet's trailing flag tokens: token -> (field, value, label).
_NVJET_FLAGS: dict[str, tuple[str, bool | str, str]] = {
    "v": ("raster", "vertical", "raster order: vertical"), "h": ("raster", "horizontal", "raster order: horizontal"),
    "bz": ("beta_zero", True, "beta == 0 epilogue"), "bias": ("bias", True, "bias epilogue"),
    "splitK": ("split_k", True, "split-K"), "2cta": ("cta_pair", True, "2-CTA MMA"),
}


def _nvjet(name: str, m: re.Match[str]) -> Decoded:
    b = Builder("cublas", name)
    b.set("kernel", "nvjet")
    if m["arch"]:
        b.set("arch", m["arch"], start=m.start("arch"), end=m.end("arch"), label="architecture", inferred=True)
    b.set("variant", m["variant"], start=m.start("variant"), end=m.end("variant"), label="kernel variant", inferred=True)
    tm, tn = (int(x) for x in m["tile"].split("x"))
    b.set(("tile_m", "tile_n"), (tm, tn), start=m.start("tile"), end=m.end("tile"), label="CTA tile M x N", inferred=True)
    tk, stages = (int(x) for x in m["kstage"].split("x"))
    b.set(("tile_k", "stages"), (tk, stages), start=m.start("kstage"), end=m.end("kstage"),
          label="K tile x pipeline stages", inferred=True)
    b.set("cluster", m["cluster"], start=m.start("cluster"), end=m.end("cluster"), label="thread-block cluster", inferred=True)
    rest = m["rest"].split("_") if m["rest"] else []
    pos = m.start("rest")
    for tok in rest:
        flag = _NVJET_FLAGS.get(tok)
        if flag is not None:
            field, value, label = flag
            b.set(field, value, start=pos, end=pos + len(tok), label=label, inferred=True)
        pos += len(tok) + 1
    b.fields.setdefault("bias", False)
    b.set("layout", m["layout"], start=m.start("layout"), end=m.end("layout"),
          label="A, B, D layout (T: transposed)", inferred=True)
    return b.build(short=name if len(name) <= 80 else None)


def decode_cublas(name: str, readable: str) -> Decoded | None:
    """Decode a cuBLAS/cuBLASLt kernel name, or None when it is not one."""
    m = _XMMA.match(name)
    if m:
        return _xmma(name, m)
    if name.startswith("nvjet_"):
        m = _NVJET.match(name)
        return _nvjet(name, m) if m else Decoded("cublas", {"kernel": "nvjet"})
    m = _LEGACY.match(name)
    if m and "gemm" in m["body"]:
        return _legacy(name, m)
    if "cublas" in readable:
        fn = parse_function(readable)
        kernel = split_component(split_scope(fn.qualified)[-1])[0]
        short = shorten_cxx(readable)
        if "cublas" not in short:
            # The helpers (gemv2T_kernel_val, dot_kernel, internal::gemvx::kernel) say "cublas" only in
            # an argument the short name drops: keep the library in front, so the short name decodes
            # to this family again.
            short = "cublas::" + shorten_cxx(readable, MAX_SHORT - len("cublas::"))
        return Decoded("cublas", {"kernel": kernel}, short=short)
    return None

