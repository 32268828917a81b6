"""Markdown for a :class:`SourceTrace`, in the seed's shape, English or Chinese."""

from __future__ import annotations

import functools
import json
from importlib import resources
from typing import Any

from bench_kernel.errors import UsageError
from bench_kernel.dtypes import lookup
from bench_kernel.units import format_bytes, format_duration_us
from bench_kernel.source_trace._model import KernelSite, PathGroup, SourceFrame, SourceTrace

__all__ = ["render", "LANGS", "strings", "short_dtype"]

LANGS = ("en", "zh")


@functools.lru_cache(maxsize=1)
def _all_strings() -> dict[str, dict[str, str]]:
    data = json.loads(resources.files("bench_kernel.source_trace").joinpath("data/strings.json").read_text())
    keys = set(data["en"])
    for lang in LANGS:
        if set(data[lang]) != keys:
            raise ValueError(f"strings.json: '{lang}' keys differ from 'en': {sorted(set(data[lang]) ^ keys)}")
    return {lang: data[lang] for lang in LANGS}


def strings(lang: str) -> dict[str, str]:
    """The phrase table of ``lang``; a UsageError names the languages there are."""
    if lang not in LANGS:
        raise UsageError(f"unknown language {lang!r}; expected one of: {', '.join(LANGS)}")
    return _all_strings()[lang]


def _us(v: float | None) -> str:
    return "-" if v is None else format_duration_us(v)


def _pct(v: float | None) -> str:
    return "-" if v is None else f"{v * 100:.1f}%"


def short_dtype(name: Any) -> str:
    """``bf16`` for ``c10::BFloat16`` (a profiler's input type) or ``torch.bfloat16``; else as given."""
    return lookup(name) or str(name).removeprefix("torch.")


def _tuple(t: Any) -> str:
    return "(" + ", ".join(str(x) for x in t) + ")"


def _frame_link(f: SourceFrame) -> str:
    return f"[{f.function}]({f.link}:{f.line})"


def _shape_text(dims: Any, types: Any) -> str:
    parts = []
    for i, d in enumerate(dims or ()):
        if isinstance(d, (list, tuple)) and d:
            t = (types[i] if types and i < len(types) else "") or ""
            t = short_dtype(t) if t else ""
            parts.append(f"{_tuple(d)} {t}".strip())
    return ", ".join(parts)


def _tree(group: PathGroup, S: dict[str, str], api: str) -> list[str]:
    """Nested list of frames, merging shared prefixes, each kernel under its launching frame."""
    lines: list[str] = []
    printed: list = []
    for site in group.sites:
        stack = site.stack
        common = 0
        while common < min(len(printed), len(stack)) and printed[common] == stack[common].key:
            common += 1
        for depth in range(common, len(stack)):
            f = stack[depth]
            lines.append("  " * depth + f"- {_frame_link(f)}" + (f"  # {f.module}" if f.module else ""))
        printed = [f.key for f in stack]
        op = f" — `{site.op}`" if site.op else ""
        shapes = _shape_text(site.input_dims, site.input_types)
        lines.append("  " * len(stack) + f"- {S['kernel_arrow'].format(api=api)} `{site.short}`{op}"
                     + (f" ({shapes})" if shapes else ""))
    return lines


def _kernel_section(site: KernelSite, S: dict[str, str], api: str) -> list[str]:
    L = [f"### {S['kernel_heading'].format(api=api, short=site.short)}", ""]
    if site.source is not None:
        src = f"{_frame_link(site.source)} (`@triton.jit`)"
    elif site.op:
        src = S["library"].format(family=site.family, op=site.op)
    else:
        src = S["library_no_op"].format(family=site.family)
    c = S["colon"]
    L.append(f"- {S['source']}{c}{src}")
    launch = []
    if site.grid and site.block:
        launch.append(S["grid"].format(grid=_tuple(site.grid), block=_tuple(site.block)))
    if site.regs is not None:
        launch.append(S["regs"].format(regs=site.regs))
    if site.smem_bytes is not None:
        launch.append(S["smem"].format(smem=format_bytes(site.smem_bytes)))
    if launch:
        L.append(f"- {S['launch']}{c}" + S["list_sep"].join(launch))
    if site.fields:
        fields = ", ".join(f"`{k}`={v}" for k, v in site.fields.items())
        inferred = f" ({S['inferred']}{c}{', '.join(site.inferred)})" if site.inferred else ""
        L.append(f"- {S['fields']}{c}{fields}{inferred}")
    count = f"{site.count_per_call:g}"
    L.append(f"- {S['time']}{c}" + S["per_call"].format(us=_us(site.us_per_call), share=_pct(site.share), count=count))
    if site.steps:
        L.append(f"- {S['steps']}{c.rstrip()}")
        L += [f"  {i}. {step}" for i, step in enumerate(site.steps, start=1)]
    L.append("")
    return L


def _flow(doc: SourceTrace, S: dict[str, str]) -> list[str]:
    """An ASCII diagram: inputs -> each kernel in launch order (with its op's inputs) -> output."""
    boxes = []
    for site in sorted(doc.sites, key=lambda s: s.order):
        label = f"{site.short}" + (f"  [{site.op}]" if site.op else "")
        meta = f"{site.category}, {_us(site.us_per_call)}" + (f" ({_pct(site.share)})" if site.share is not None else "")
        boxes.append((label, meta, _shape_text(site.input_dims, site.input_types)))
    width = max([len(b[0]) for b in boxes] + [len(b[1]) for b in boxes] + [20]) + 2
    out = ["```"]
    if doc.inputs:
        out.append(f"{S['inputs']}: " + ", ".join(f"{k} {v}" for k, v in doc.inputs))
    prev_shapes = None
    for label, meta, shapes in boxes:
        out.append("    │" + (f"  {shapes}" if shapes and shapes != prev_shapes else ""))
        out.append("    ▼")
        out.append("┌" + "─" * width + "┐")
        out.append("│ " + label.ljust(width - 1) + "│")
        out.append("│ " + meta.ljust(width - 1) + "│")
        out.append("└" + "─" * width + "┘")
        prev_shapes = shapes or prev_shapes
    out.append("    │")
    out.append("    ▼")
    out.append(f"{S['output']}: {doc.output}" if doc.output else f"{S['output']}")
    out.append("```")
    return out


def _overview(doc: SourceTrace, S: dict[str, str]) -> str:
    n = len(doc.sites)
    n_k = S["kernel_word"] if n == 1 else S["kernels_word"].format(n=n)
    parts = ", ".join(f"`{s.short}` ({s.category}, {_pct(s.share)})" for s in sorted(doc.sites, key=lambda s: s.order))
    subject = doc.subject + ("(" + ", ".join(f"{k}: {v}" for k, v in doc.inputs) + ")" if doc.inputs else "")
    return S["sentence"].format(subject=subject, n_kernels=n_k, total=_us(doc.total_us), parts=parts)


def render(doc: SourceTrace, lang: str = "en") -> str:
    """The whole document as Markdown text."""
    S = strings(lang)
    api = "HIP" if doc.backend == "hip" else "CUDA"
    L = [f"# {S['title'].format(subject=doc.subject)}", "", f"## {S['overview']}", "", _overview(doc, S), ""]
    if doc.device:
        L += [S["device_line"].format(device=doc.device), ""]
    L += [f"> {n}" for n in doc.notes] + ([""] if doc.notes else [])
    for n, group in enumerate(doc.paths, start=1):
        L += [f"## {S['path'].format(n=n, title=group.title)}", ""]
        if any(s.stack for s in group.sites):
            L += _tree(group, S, api) + [""]
        elif any(s.graph_launched for s in group.sites):
            L += [f"> {S['no_stack']}", ""]
        for site in group.sites:
            L += _kernel_section(site, S, api)
    L += [f"## {S['flow']}", ""] + _flow(doc, S) + ["", f"<sub>{S['tool_line']}</sub>", ""]
    return "\n".join(L)
