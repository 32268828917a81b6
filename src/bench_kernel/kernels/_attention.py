"""Attention libraries: FlashAttention (``flash_attn``), FlashInfer and its TensorRT-LLM-gen kernels
(``flashinfer``), and cuDNN (``cudnn``, including its generated SDPA kernels)."""

from __future__ import annotations

import re

from bench_kernel.kernels._cxx import parse_function, split_args, split_component, split_scope
from bench_kernel.kernels._model import Decoded
from bench_kernel.kernels._spans import Builder, Spans, tokens

__all__ = ["decode_flash_attn", "decode_flashinfer", "decode_cudnn"]

# flash_fwd_kernel<Kernel_traits, Is_dropout, Is_causal, Is_local, Has_alibi, Is_even_MN, Is_even_K,
# Is_softcap, Return_softmax> and Flash_fwd_kernel_traits<kHeadDim, kBlockM, kBlockN, kNWarps, …>
# (Dao-AILab/flash-attention csrc/flash_attn/src/flash_fwd_launch_template.h, kernel_traits.h).
_FWD_FLAGS = ("dropout", "causal", "local", "alibi", "even_mn", "even_k", "softcap", "return_softmax")
_TRAITS = ("head_dim", "block_m", "block_n", "warps")


_FLASH_NS = re.compile(r"\b(?:pytorch_flash|flash)::|FlashAttn")
_FLASH_KERNEL = re.compile(r"flash_(?:fwd|bwd)_")
_WORD = re.compile(r"\w+")


def _word_has(text: str, head: re.Pattern[str], tail: str) -> bool:
    """True when one word of ``text`` holds ``head`` and, after it, ``tail`` (the regex ``head\\w*tail``).

    Written as a walk over words because the regex backtracks once per ``head`` in a word: quadratic
    in the word's length on a crafted name.
    """
    for w in _WORD.finditer(text):
        m = head.search(w.group())
        if m and w.group().find(tail, m.end()) >= 0:
            return True
    return False


def decode_flash_attn(name: str, readable: str) -> Decoded | None:
    """Decode a FlashAttention 2/3 kernel (``flash::`` or PyTorch's ``pytorch_flash::`` copy)."""
    if not (_FLASH_NS.search(readable) or _word_has(readable, _FLASH_KERNEL, "kernel")):
        return None
    fn = parse_function(readable)
    parts = split_scope(fn.qualified)
    kernel, targs, _ = split_component(parts[-1])
    b = Builder("flash_attn", fn.qualified)
    b.set("kernel", kernel)
    args = split_args(targs or "")
    if args and "traits" in args[0].lower():
        tparts = split_scope(args[0])
        _, tt, _ = split_component(tparts[-1])
        nums = [a for a in split_args(tt or "")][: len(_TRAITS)]
        if all(re.fullmatch(r"\d+", a) for a in nums) and len(nums) == len(_TRAITS):
            b.set(_TRAITS, [int(a) for a in nums])
    flags = [a for a in args[1:] if a in ("true", "false")]
    if kernel == "flash_fwd_kernel" and flags:
        b.set(_FWD_FLAGS[: len(flags)], [f == "true" for f in flags])
    short = f"flash::{kernel}"
    if "head_dim" in b.fields:
        short += f"<hd{b.fields['head_dim']}, {b.fields['block_m']}x{b.fields['block_n']}"
        short += ", causal>" if b.fields.get("causal") else ">"
    return b.build(short=short)


# fmhaSm100aKernel_QkvE4m3OBfloat16H64PagedKvCausalP16VarSeqQ128Kv128PersistentContext: the
# TensorRT-LLM-gen FMHA cubins FlashInfer ships. Read off names; no published grammar.
# The short name drops "Kernel" (fmhaSm100a_Qkv…): both forms are read.
_TRTLLM_FMHA = re.compile(r"^fmha(?P<arch>Sm\d+[a-z]?)(?:Kernel)?_(?P<body>\w+)$")
_BMM_TILE = re.compile(r"t(?P<tm>\d+)x(?P<tn>\d+)x(?P<tk>\d+)")
_BMM_STAGES = re.compile(r"s(?P<stages>\d+)")
_BMM_CLUSTER = re.compile(r"cga(?P<cluster>\d+x\d+x\d+)")
_BMM_LAYOUT = re.compile(r"(?P<layout>[TN]{2})")
_BMM_ARCH = re.compile(r"(?P<arch>sm\d+[a-z]?)$")
_WORDY = re.compile(r"\w+")


def _first(toks: list[tuple[str, int]], lo: int, hi: int, find) -> tuple[int, re.Match[str]] | None:
    """The first token in ``toks[lo:hi]`` for which ``find(token)`` matches, with that match."""
    for k in range(lo, hi):
        m = find(toks[k][0])
        if m:
            return k, m
    return None


def _put(spans: Spans, tok: tuple[str, int], m: re.Match[str]) -> None:
    for g in m.groupdict():
        spans.put(g, tok[1] + m.start(g), tok[1] + m.end(g))


def _trtllm_bmm(name: str) -> Spans | None:
    """Fields of ``bmm_<types>_t<M>x<N>x<K>…_s<stages>_…cga<cluster>…_<TN>_…sm<arch>``, or None.

    Read token by token: each field is the first later token of its shape. (As one regex, the
    grammar's wildcards between fields backtracked over every placement: cubic time on a crafted name.)
    """
    if not name.startswith("bmm_") or not _WORDY.fullmatch(name):
        return None
    toks = tokens(name)
    tile = _first(toks, 2, len(toks), _BMM_TILE.match)  # types (token 1 on) are not empty
    stages = tile and _first(toks, tile[0] + 1, len(toks) - 1, _BMM_STAGES.fullmatch)
    # The cluster may be absent: the short name (…_s3_TN_…) leaves it out.
    cluster = stages and _first(toks, stages[0] + 1, len(toks), _BMM_CLUSTER.search)
    layout = stages and _first(toks, (cluster or stages)[0] + 1, len(toks) - 1, _BMM_LAYOUT.fullmatch)
    arch = _BMM_ARCH.search(toks[-1][0])
    if not (tile and stages and layout and arch):
        return None
    m = Spans(name)
    m.put("types", toks[1][1], toks[tile[0]][1] - 1)
    for hit in (tile, stages, cluster, layout):
        if hit:
            _put(m, toks[hit[0]], hit[1])
    _put(m, toks[-1], arch)
    return m


_BMM_FIELDS = (("types", "types", "A, B, C types"), ("stages", "stages", "stages (after 's')"),
               ("cluster", "cluster", "cluster (after 'cga')"), ("layout", "layout", "A/B layout"),
               ("arch", "arch", "architecture"))


def decode_flashinfer(name: str, readable: str) -> Decoded | None:
    """Decode FlashInfer kernels, including the TensorRT-LLM-gen cubins it ships (fmha/bmm/MoE routing)."""
    m = _TRTLLM_FMHA.match(name)
    if m:
        b = Builder("flashinfer", name)
        b.set("kernel", "trtllm_gen_fmha")
        b.set("arch", m["arch"].lower(), start=m.start("arch"), end=m.end("arch"), label="architecture", inferred=True)
        body = m["body"]
        hd = re.search(r"H(\d+)", body)
        if hd:
            off = m.start("body")
            b.set("head_dim", int(hd.group(1)), start=off + hd.start(), end=off + hd.end(), label="head dim", inferred=True)
        b.set("causal", "Causal" in body, inferred=True)
        b.set("paged_kv", "PagedKv" in body, inferred=True)
        tiles = re.search(r"Q(\d+)Kv(\d+)", body)
        if tiles:
            b.set(("tile_q", "tile_kv"), (int(tiles.group(1)), int(tiles.group(2))), inferred=True)
        phase = re.search(r"(Context|Generation|SwapsMmaAb\w*)$", body)
        if phase:
            b.set("phase", phase.group(1).lower(), inferred=True)
        short = name
        for long_, abbrev in (("Kernel_", "_"), ("Bfloat16", "Bf16"), ("SlidingOrChunked", "Sliding"),
                              ("Persistent", "Pers"), ("VarSeq", "Var")):
            if len(short) > 80:
                short = short.replace(long_, abbrev)
        return b.build(short=short)
    bmm = _trtllm_bmm(name)
    if bmm:
        b = Builder("flashinfer", name)
        b.set("kernel", "trtllm_gen_bmm")
        b.groups(bmm, _BMM_FIELDS, inferred=True)
        b.tile(int(bmm.text("tm")), int(bmm.text("tn")), int(bmm.text("tk")))
        flags = "".join(f"_{f}" for f in ("swiGlu", "dynBatch") if f"_{f}" in name)
        short = (f"bmm_{bmm['types']}_t{bmm['tm']}x{bmm['tn']}x{bmm['tk']}_s{bmm['stages']}_{bmm['layout']}{flags}_"
                 f"{bmm['arch']}")
        return b.build(short=name if len(name) <= 80 else short)
    head = parse_function(readable).qualified
    # "moe::" alone: a short name keeps only the outermost namespace of moe::dev::routing::….
    if head.startswith(("flashinfer::", "moe::")):
        parts = split_scope(head)
        return Decoded("flashinfer", {"kernel": split_component(parts[-1])[0]})
    return None


# cudnn_generated_<…>_sdpa_<arch>_<impl>_<fprop|bprop>_<mma>_<dtype>_knob_<n>_<tile>_<warps>_cga<cluster>…,
# read token by token from the first "sdpa" and the first direction after it.
_SDPA_TAIL = (("mma", re.compile(r"(?P<mma>[a-z]+)")), ("dtype", re.compile(r"(?P<dtype>[a-z0-9]+)")),
              ("", re.compile(r"knob")), ("knob", re.compile(r"(?P<knob>\d+)")),
              ("tile", re.compile(r"(?P<tile>\d+x\d+x\d+)")), ("warps", re.compile(r"(?P<warps>\d+x\d+x\d+)")))
_SDPA_CLUSTER = re.compile(r"cga(?P<cluster>\d+x\d+x\d+)")


def _cudnn_sdpa(name: str) -> Spans | None:
    if not name.startswith("cudnn_generated_"):
        return None
    toks = tokens(name)
    s = next((k for k in range(3, len(toks)) if toks[k][0] == "sdpa"), None)
    if s is None or s + 3 >= len(toks) or not re.fullmatch(r"sm\d+", toks[s + 1][0]):
        return None
    d = next((k for k in range(s + 3, len(toks)) if toks[k][0] in ("fprop", "bprop")), None)
    if d is None or d + len(_SDPA_TAIL) + 1 >= len(toks):
        return None
    m = Spans(name)
    m.put("arch", toks[s + 1][1], toks[s + 1][1] + len(toks[s + 1][0]))
    m.put("impl", toks[s + 2][1], toks[d][1] - 1)
    m.put("dir", toks[d][1], toks[d][1] + len(toks[d][0]))
    for k, (_, rx) in enumerate(_SDPA_TAIL, start=d + 1):
        found = rx.fullmatch(toks[k][0])
        if not found:
            return None
        _put(m, toks[k], found)
    cga = _SDPA_CLUSTER.match(toks[d + len(_SDPA_TAIL) + 1][0])
    if not cga or not _WORDY.fullmatch(name[:toks[s + 2][1]]) or not _WORDY.fullmatch(m["impl"] or ""):
        return None
    _put(m, toks[d + len(_SDPA_TAIL) + 1], cga)
    return m


_CUDNN_SDPA_FIELDS = (("arch", "arch", "architecture"), ("dir", "direction", "fprop / bprop"),
                      ("mma", "mma", "MMA instruction family"), ("dtype", "dtype", "dtype"),
                      ("knob", "knob", "engine knob"), ("tile", "tile", "tile (Q x KV x D)"),
                      ("warps", "warps", "warps"), ("cluster", "cluster", "cluster (after 'cga')"))


def decode_cudnn(name: str, readable: str) -> Decoded | None:
    """Decode cuDNN kernels: generated SDPA/flash kernels and ``cudnn::`` helpers."""
    m = _cudnn_sdpa(name)
    if m:
        b = Builder("cudnn", name)
        b.set("kernel", "sdpa")
        b.groups(m, _CUDNN_SDPA_FIELDS, inferred=True)
        b.set("direction", "forward" if m["dir"] == "fprop" else "backward")
        short = f"cudnn_sdpa_{m['arch']}_{m['impl']}_{m['dir']}_{m['mma']}_{m['dtype']}_knob{m['knob']}_{m['tile']}_{m['warps']}"
        return b.build(short=name if len(name) <= 80 else short)
    if name.startswith("cudnn") or re.search(r"\bcudnn::", readable.split("(")[0]):
        head = parse_function(readable).qualified
        kernel = split_component(split_scope(head)[-1])[0] if "::" in head else name
        return Decoded("cudnn", {"kernel": kernel})
    return None
