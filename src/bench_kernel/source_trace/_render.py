"""Markdown for a Source Trace document (``records.SourceTraceOutput``), in the seed's shape, English or Chinese.

Sections: Overview (sentences and a table), Structure (model scale: the module tree, repeats written
once), Paths (the distinct routes to the detailed kernels), one section per detailed kernel site,
and the end-to-end flow (``_flow``). Every phrase comes from ``data/strings.json``.
"""

from __future__ import annotations

from typing import Sequence

from bench_kernel.records import KernelSite, ModuleNode, SourceFrame, SourceLink, SourceTraceOutput
from bench_kernel.source_trace._flow import flow_lines
from bench_kernel.source_trace._links import frame_target
from bench_kernel.source_trace._text import count, kernels, pct, shape_text, strings, tuple_text, us
from bench_kernel.units import format_bytes

__all__ = ["render"]


class _Doc:
    """Rendering state: the document, its phrases, its link style."""

    def __init__(self, doc: SourceTraceOutput, lang: str) -> None:
        self.doc, self.S = doc, strings(lang)
        self.api = "HIP" if doc.backend == "hip" else "CUDA"
        self.c = self.S["colon"]

    def frame(self, f: SourceFrame) -> str:
        return f"[{f.function}]({frame_target(f.link, f.line, f.url, self.doc.link_style)})"

    def file(self, x: SourceLink, label: str | None = None) -> str:
        if x.link is None:
            return f"`{x.display}`"
        target = x.link if x.link.startswith("https://") else frame_target(x.link, x.line, None, self.doc.link_style)
        return f"[{label or x.display}]({target})"


def _tree(R: _Doc, sites: Sequence[KernelSite], skip: int) -> list[str]:
    """Nested list of frames (after the ``skip`` shared ones), each kernel under its launching frame."""
    lines: list[str] = []
    printed: list = []
    for site in sites:
        stack = site.stack[skip:]
        common = 0
        while common < min(len(printed), len(stack)) and printed[common] == stack[common].key:
            common += 1
        for depth in range(common, len(stack)):
            f = stack[depth]
            lines.append("  " * depth + f"- {R.frame(f)}" + (f"  # {f.module}" if f.module else ""))
        printed = [f.key for f in stack]
        op = f" — `{site.op}`" if site.op else ""
        shapes = shape_text(site.input_dims, site.input_types)
        times = f" ×{count(site.launches_per_call)}" if site.launches_per_call != 1 else ""
        lines.append("  " * len(stack) + f"- {R.S['kernel_arrow'].format(api=R.api)} `{site.short}`{times}{op}"
                     + (f" ({shapes})" if shapes else ""))
    return lines


def _source_line(R: _Doc, site: KernelSite) -> str:
    S, src = R.S, site.source
    launched = S["launched_by"].format(op=site.op) if site.op else ""
    if src is None or (src.kind == "library" and not src.links and src.note is None):
        return S["library"].format(family=site.family, op=site.op) if site.op else S["library_no_op"].format(family=site.family)
    if src.kind == "triton" and src.links:
        return f"{R.file(src.links[0], site.short)} (`@triton.jit`)"
    if src.kind == "inductor" and src.links:
        return f"{R.file(src.links[0], site.short)} ({S['inductor_generated']})"
    if src.kind == "aten":
        parts = [S["aten_" + x.role].format(file=R.file(x), symbol=x.symbol) for x in src.links]
        body = S["list_sep"].join(parts) + (f" (PyTorch {src.ref})" if src.links else "")
        return (body or S["not_mapped"]) + launched
    head = S["library"].format(family=site.family, op=site.op) if site.op else S["library_no_op"].format(family=site.family)
    parts = [S["in_library"].format(file=R.file(x)) if x.role == "library" else
             S["defined_at"].format(file=R.file(x), symbol=x.symbol) for x in src.links]
    if src.note:
        parts.append(S["not_mapped"] if src.note == "source not mapped" else src.note)
    return head + "; " + S["list_sep"].join(parts)


def _kernel_section(R: _Doc, site: KernelSite) -> list[str]:
    S, c = R.S, R.c
    L = [f"### {S['kernel_heading'].format(api=R.api, short=site.short)}", ""]
    L.append(f"- {S['source']}{c}{_source_line(R, site)}")
    launch = []
    if site.grid and site.block:
        launch.append(S["grid"].format(grid=tuple_text(site.grid), block=tuple_text(site.block)))
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
    L.append(f"- {S['time']}{c}" + S["per_call"].format(us=us(site.us_per_launch), share=pct(site.share),
                                                        count=count(site.launches_per_call)))
    if site.module_path and R.doc.scale == "model":
        L.append(f"- {S['module']}{c}`{' › '.join(site.module_path[-2:])}` ({site.module_type})")
    src = site.source
    if src is not None and src.origins:
        L.append(f"- {S['inductor_recorded']}{c}" + "; ".join(f"`{o}`" for o in src.origins))
    if src is not None and src.steps:
        L.append(f"- {S['steps']}{c.rstrip()}")
        L += [f"  {i}. {step}" for i, step in enumerate(src.steps, start=1)]
    L.append("")
    return L


def _shares(pairs: tuple[tuple[str, float], ...], code: bool = False) -> str:
    return ", ".join((f"`{k}`" if code else k) + f" {pct(v)}" for k, v in pairs)


def _overview(R: _Doc) -> list[str]:
    doc, S, o = R.doc, R.S, R.doc.overview
    subject = doc.subject + ("(" + ", ".join(f"{k}: {v}" for k, v in doc.inputs) + ")" if doc.inputs else "")
    if doc.scale == "op":
        words = kernels(S, o.kernels_per_call)  # launches, not distinct sites: what the table says too
        parts = ", ".join(f"`{s.short}` ({s.category}, {pct(s.share)})" for s in doc.kernels)
        text = S["sentence"].format(subject=subject, n_kernels=words, total=us(doc.total_us), parts=parts)
    else:
        text = S["sentence_model"].format(subject=subject, n=count(o.kernels_per_call), sites=o.distinct_sites,
                                          total=us(o.device_us_per_call))
        if len(doc.detailed) < len(doc.kernels):
            text += " " + S["detail_note"].format(n=len(doc.detailed), total=len(doc.kernels))
    L = [text, "", "| | |", "|---|---|",
         f"| {S['row_kernels']} | {count(o.kernels_per_call)} ({S['sites_word'].format(n=o.distinct_sites)}) |",
         f"| {S['row_time']} | {us(o.device_us_per_call)} |",
         f"| {S['row_top']} | {_shares(o.top_kernels, code=True)} |",
         f"| {S['row_category']} | {_shares(o.by_category)} |"]
    if o.by_module_type:
        L.append(f"| {S['row_module_type']} | {_shares(o.by_module_type)} |")
    return L + [""]


def _node_line(R: _Doc, node: ModuleNode, in_repeat: bool) -> str:
    """``Cls (forward) × N — k kernels and t each (min, median, max)``; inside a repeated module
    the numbers are per instance, never summed over the repeats."""
    S = R.S
    name = f"`{node.cls}`" + (f" ({R.frame(node.forward)})" if node.forward is not None else "")
    lo, hi = node.per_parent
    if hi > 1:
        name += f" × {lo}" if lo == hi else f" × {lo}–{hi}"
    if hi > 1 or in_repeat:
        mn, med, mx = node.us_per_instance
        text = S["node_each"].format(kernels=kernels(S, node.kernels_per_instance), t=us(med))
        if hi > 1 and mx - mn > 0.01 * med:  # the repeats differ in time: say by how much
            text += " (" + S["spread"].format(min=us(mn), med=us(med), max=us(mx)) + ")"
    else:
        text = S["node_once"].format(kernels=kernels(S, node.kernels_per_call), t=us(node.us_per_call))
    return f"{name} — {text}"


def _structure(R: _Doc, nodes: tuple[ModuleNode, ...], depth: int = 0, in_repeat: bool = False) -> list[str]:
    """The module tree; consecutive sibling leaves of one class (q/k/v projections) share a line."""
    out: list[str] = []
    i = 0
    while i < len(nodes):
        node = nodes[i]
        j = i + 1
        if not node.children and not node.repeated:
            while j < len(nodes) and nodes[j].cls == node.cls and not nodes[j].children and not nodes[j].repeated:
                j += 1
        if j - i > 1:
            group = nodes[i:j]
            k = sum(n.kernels_per_instance if in_repeat else n.kernels_per_call for n in group)
            t = sum(n.us_per_instance[1] if in_repeat else n.us_per_call for n in group)
            key = "node_each" if in_repeat else "node_once"
            out.append("  " * depth + f"- `{node.cls}` {R.S['call_sites'].format(n=j - i)} — "
                       + R.S[key].format(kernels=kernels(R.S, k), t=us(t)))
        else:
            out.append("  " * depth + "- " + _node_line(R, node, in_repeat))
            out += _structure(R, node.children, depth + 1, in_repeat or node.repeated)
        i = j
    return out


def render(doc: SourceTraceOutput, lang: str = "en") -> str:
    """The whole document as Markdown text."""
    R = _Doc(doc, lang)
    S = R.S
    L = [f"# {S['title'].format(subject=doc.subject)}", "", f"## {S['overview']}", ""] + _overview(R)
    if doc.device:
        L += [S["device_line"].format(device=doc.device), ""]
    if doc.selection:
        L += [S["selection"].format(what=doc.selection), ""]
    L += [f"> {n}" for n in doc.notes] + ([""] if doc.notes else [])
    if doc.scale == "model" and doc.structure:
        L += [f"## {S['structure']}", ""] + _structure(R, doc.structure) + [""]
    skip = len(doc.shared_chain)
    if skip:
        L += [S["shared_chain"].format(chain=" → ".join(R.frame(f) for f in doc.shared_chain)), ""]
    by_order = {s.order: s for s in doc.kernels}
    for n, group in enumerate(doc.paths, start=1):
        L += [f"## {S['path'].format(n=n, title=group.title)}", ""]
        sites = [by_order[o] for o in group.kernels]
        if any(s.stack for s in sites):
            L += _tree(R, sites, skip) + [""]
        elif any(s.graph_launched for s in sites):
            L += [f"> {S['no_stack']}", ""]
        for site in sites:
            L += _kernel_section(R, site)
    L += [f"## {S['flow']}", ""] + flow_lines(doc, S) + ["", f"<sub>{S['tool_line']}</sub>", ""]
    return "\n".join(L)
