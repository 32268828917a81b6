"""The end-to-end flow diagram: kernel boxes for one op, module boxes for a model.

Module granularity cuts the module tree where it stops saying something new: a module is opened
while it has child modules and is not itself repeated; a repeated module (``× N``) is one box, its
children named inside it. Kernels launched by an opened module outside its children get a box of
their own. Each box holds its kernel count and device time per call; the arrow into a box carries
the input shapes of its first kernel's op.
"""

from __future__ import annotations

from bench_kernel.records import ModuleNode, SourceTraceOutput
from bench_kernel.source_trace._text import count, kernels, pct, shape_text, us

__all__ = ["flow_lines"]

#: A module is opened down to at most this depth; deeper structure stays inside its box.
MAX_OPEN_DEPTH = 3


def _module_boxes(doc: SourceTraceOutput, S: dict[str, str]) -> list[tuple[str, str, str, int]]:
    """(label, meta, shapes, first launch order) per box, in launch order."""
    total = doc.overview.device_us_per_call or 0.0
    boxes: list[tuple[str, str, str, int]] = []

    def meta(k: float, t: float) -> str:
        return S["box_meta"].format(kernels=kernels(S, k), t=us(t), share=pct(t / total if total else None))

    def visit(node: ModuleNode) -> None:
        opened = node.children and not node.repeated and node.depth < MAX_OPEN_DEPTH
        if not opened:
            label = node.cls
            if node.repeated:
                lo, hi = node.per_parent
                label += f" × {lo}" if lo == hi else f" × {lo}–{hi}"
            inner = list(dict.fromkeys(c.cls for c in node.children))
            if inner:
                label += "  [" + " → ".join(inner[:4]) + (" …" if len(inner) > 4 else "") + "]"
            boxes.append((label, meta(node.kernels_per_call, node.us_per_call), node.shapes, node.first_order))
            return
        own_k = node.kernels_per_call - sum(c.kernels_per_call for c in node.children)
        own_t = node.us_per_call - sum(c.us_per_call for c in node.children)
        if own_k > 1e-9:
            # kernels the module launched itself (masks, positions): placed before its first child
            boxes.append((S["own_kernels"].format(cls=node.cls), meta(own_k, own_t), node.shapes, node.first_order))
        for child in node.children:
            visit(child)

    for root in doc.structure:
        visit(root)
    kernels_in_modules = sum(r.kernels_per_call for r in doc.structure)
    outside = [s for s in doc.kernels if not s.module_path]
    if outside and doc.overview.kernels_per_call - kernels_in_modules > 1e-9:
        k = sum(s.launches_per_call for s in outside)
        t = sum(s.us_per_call or 0.0 for s in outside)
        boxes.append((S["no_module"], meta(k, t), shape_text(outside[0].input_dims, outside[0].input_types),
                      outside[0].order))
    return sorted(boxes, key=lambda b: b[3])


def _kernel_boxes(doc: SourceTraceOutput) -> list[tuple[str, str, str, int]]:
    chosen = set(doc.detailed)
    out = []
    for site in doc.kernels:
        if site.order not in chosen:
            continue
        label = site.short + (f" ×{count(site.launches_per_call)}" if site.launches_per_call != 1 else "") \
            + (f"  [{site.op}]" if site.op else "")
        meta = f"{site.category}, {us(site.us_per_launch)}" + (f" ({pct(site.share)})" if site.share is not None else "")
        out.append((label, meta, shape_text(site.input_dims, site.input_types), site.order))
    return out


def flow_lines(doc: SourceTraceOutput, S: dict[str, str]) -> list[str]:
    """The diagram as a fenced block: inputs -> boxes in launch order -> output."""
    boxes = _module_boxes(doc, S) if doc.flow == "modules" else _kernel_boxes(doc)
    width = max([len(b[0]) for b in boxes] + [len(b[1]) for b in boxes] + [20]) + 2
    out = ["```"]
    if doc.inputs:
        out.append(f"{S['inputs']}: " + ", ".join(f"{k} {v}" for k, v in doc.inputs))
    prev_shapes = None
    for label, meta, shapes, _ in boxes:
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
