"""Attention libraries: FlashAttention (``flash_attn``), FlashInfer and its TensorRT-LLM-gen kernels
(``flashinfer``), and cuDNN (``cudnn``, including its generated SDPA kernels)."""

from __future__ import annotations

import re

from bench_kernel.kernels._cxx import parse_function, split_args, split_component, split_scope
from bench_kernel.kernels._model import Decoded
from bench_kernel.kernels._spans import Builder

__all__ = ["decode_flash_attn", "decode_flashinfer", "decode_cudnn"]

# flash_fwd_kernel<Kernel_traits, Is_dropout, Is_causal, Is_local, Has_alibi, Is_even_MN, Is_even_K,
# Is_softcap, Return_softmax> and Flash_fwd_kernel_traits<kHeadDim, kBlockM, kBlockN, kNWarps, …>
# (Dao-AILab/flash-attention csrc/flash_attn/src/flash_fwd_launch_template.h, kernel_traits.h).
_FWD_FLAGS = ("dropout", "causal", "local", "alibi", "even_mn", "even_k", "softcap", "return_softmax")
_TRAITS = ("head_dim", "block_m", "block_n", "warps")


def decode_flash_attn(name: str, readable: str) -> Decoded | None:
    """Decode a FlashAttention 2/3 kernel (``flash::`` or PyTorch's ``pytorch_flash::`` copy)."""
    if not re.search(r"\b(?:pytorch_flash|flash)::|flash_(?:fwd|bwd)_\w*kernel|FlashAttn", readable):
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
_TRTLLM_FMHA = re.compile(r"^fmha(?P<arch>Sm\d+[a-z]?)Kernel_(?P<body>\w+)$")
_TRTLLM_BMM = re.compile(r"^bmm_(?P<types>.+?)_t(?P<tm>\d+)x(?P<tn>\d+)x(?P<tk>\d+)\w*?_s(?P<stages>\d+)_"
                         r"\w*?cga(?P<cluster>\d+x\d+x\d+)\w*?_(?P<layout>[TN]{2})_\w*?(?P<arch>sm\d+[a-z]?)$")


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
    m = _TRTLLM_BMM.match(name)
    if m:
        b = Builder("flashinfer", name)
        b.set("kernel", "trtllm_gen_bmm")
        b.groups(m, _BMM_FIELDS, inferred=True)
        b.tile(int(m["tm"]), int(m["tn"]), int(m["tk"]))
        flags = "".join(f"_{f}" for f in ("swiGlu", "dynBatch") if f"_{f}" in name)
        short = f"bmm_{m['types']}_t{m['tm']}x{m['tn']}x{m['tk']}_s{m['stages']}_{m['layout']}{flags}_{m['arch']}"
        return b.build(short=name if len(name) <= 80 else short)
    head = parse_function(readable).qualified
    if head.startswith(("flashinfer::", "moe::dev::")):
        parts = split_scope(head)
        return Decoded("flashinfer", {"kernel": split_component(parts[-1])[0]})
    return None


_CUDNN_SDPA = re.compile(r"^cudnn_generated_\w*?_sdpa_(?P<arch>sm\d+)_(?P<impl>\w+?)_(?P<dir>fprop|bprop)_"
                         r"(?P<mma>[a-z]+)_(?P<dtype>[a-z0-9]+)_knob_(?P<knob>\d+)_(?P<tile>\d+x\d+x\d+)_"
                         r"(?P<warps>\d+x\d+x\d+)_cga(?P<cluster>\d+x\d+x\d+)")


_CUDNN_SDPA_FIELDS = (("arch", "arch", "architecture"), ("dir", "direction", "fprop / bprop"),
                      ("mma", "mma", "MMA instruction family"), ("dtype", "dtype", "dtype"),
                      ("knob", "knob", "engine knob"), ("tile", "tile", "tile (Q x KV x D)"),
                      ("warps", "warps", "warps"), ("cluster", "cluster", "cluster (after 'cga')"))


def decode_cudnn(name: str, readable: str) -> Decoded | None:
    """Decode cuDNN kernels: generated SDPA/flash kernels and ``cudnn::`` helpers."""
    m = _CUDNN_SDPA.match(name)
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
