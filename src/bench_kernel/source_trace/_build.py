"""From launches to a :class:`SourceTrace`: sites, the scale of the document, what is detailed.

One op (a handful of distinct kernel sites) is documented in full, kernel by kernel. A model (more
than ``MODEL_SCALE_SITES`` sites) gets the module structure with repeats folded, the costliest
``MODEL_TOP`` sites in detail, and a flow of modules: the document stays about as long at 24
layers as at 2, only the counts change.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Literal, Sequence

from bench_kernel.errors import UsageError
from bench_kernel.kernels import decode, triton_source_category
from bench_kernel.records import KernelSite, ModuleNode, Overview, SourceFrame
from bench_kernel.source_trace._collect import Launch, SiteStats, collect, site_module_type
from bench_kernel.source_trace._group import common_prefix_len, group_paths
from bench_kernel.source_trace._links import LinkStyle
from bench_kernel.source_trace._model import SourceTrace
from bench_kernel.source_trace._sources import SourceContext, kernel_source

__all__ = ["build", "MODEL_SCALE_SITES", "MODEL_TOP", "FLOWS"]

#: More distinct (kernel, call site) pairs than this and the document is at model scale.
MODEL_SCALE_SITES = 12
#: At model scale, the sites that get a path and a kernel section unless ``top`` says otherwise.
MODEL_TOP = 8
#: Entries of the Overview's "top kernels" line.
OVERVIEW_TOP = 5
FLOWS = ("auto", "kernels", "modules")


def _site(stats: SiteStats, order: int, n_calls: int, grand_us: float) -> KernelSite:
    k = stats.first
    d = decode(k.name)
    family = d.family
    # A plain Triton kernel is named after its Python function ("add_kernel"): the name says
    # nothing, but its launch passes through Triton's runtime.
    if family == "other" and any("triton/runtime/" in (f.display or "") for f in stats.stack):
        family = "triton"
    us = stats.total_us / stats.launches
    return KernelSite(
        order=order, name=k.name, short=d.short, family=family, category=d.category, fields=dict(d.fields),
        inferred=tuple(d.inferred), launches_per_call=stats.launches / n_calls, us_per_launch=us,
        share=(stats.total_us / n_calls / grand_us) if grand_us else None, grid=k.grid, block=k.block,
        regs=k.regs, smem_bytes=k.smem_bytes, op=k.op.name if k.op is not None else None,
        input_dims=k.op.input_dims if k.op is not None else None,
        input_types=k.op.input_types if k.op is not None else None, stack=stats.stack,
        graph_launched=k.graph_launched, module_type=site_module_type(stats),
        module_path=tuple(mc.cls for mc in stats.modules))


def _shares(pairs: dict[str, float], total: float, top: int | None = None) -> tuple[tuple[str, float], ...]:
    ranked = sorted(pairs.items(), key=lambda kv: (-kv[1], kv[0]))
    return tuple((k, v / total if total else 0.0) for k, v in ranked[:top])


def _overview(sites: Sequence[KernelSite], structure: tuple[ModuleNode, ...]) -> Overview:
    total = sum(s.us_per_call or 0.0 for s in sites)
    by_kernel: dict[str, float] = defaultdict(float)
    by_cat: dict[str, float] = defaultdict(float)
    by_type: dict[str, float] = defaultdict(float)
    for s in sites:
        by_kernel[s.short] += s.us_per_call or 0.0
        by_cat[s.category] += s.us_per_call or 0.0
        by_type[s.module_type] += s.us_per_call or 0.0
    return Overview(kernels_per_call=sum(s.launches_per_call for s in sites), device_us_per_call=total,
                    distinct_sites=len(sites), top_kernels=_shares(by_kernel, total, OVERVIEW_TOP),
                    by_category=_shares(by_cat, total), by_module_type=_shares(by_type, total) if structure else ())


def build(subject: str, launches: Sequence[Launch], n_calls: int, *, root: Path, doc_dir: Path,
          device: str | None = None, backend: Literal["cuda", "hip"] = "cuda", keep_all_frames: bool = False, live: bool = False,
          inputs: tuple[tuple[str, str], ...] = (), output: str | None = None, notes: Sequence[str] = (),
          top: int | None = None, flow: str = "auto", link_style: LinkStyle = "path", torch_ref: str | None = None,
          selection: str | None = None) -> SourceTrace:
    """The document of ``launches`` (every selected kernel execution, over ``n_calls`` calls or steps).

    ``top``: detail only the N costliest sites (default: all at op scale, ``MODEL_TOP`` at model
    scale). ``flow``: ``auto`` (modules at model scale when the trace has module markers, else
    kernels), ``kernels`` or ``modules``. ``link_style``: ``path`` (``file:line``) or ``github``
    (``#L<line>``). ``torch_ref``: the PyTorch tag ATen links point at (default: the installed one).
    """
    if flow not in FLOWS:
        raise UsageError(f"--flow {flow!r}: choose one of {', '.join(FLOWS)}")
    if top is not None and top < 1:
        raise UsageError(f"--top {top}: must be at least 1")
    n_calls = max(n_calls, 1)
    stats, structure = collect(launches, n_calls, root=root, doc_dir=doc_dir, keep_all_frames=keep_all_frames)
    grand = sum(s.total_us for s in stats) / n_calls
    sites = [_site(s, i, n_calls, grand) for i, s in enumerate(stats)]
    scale: Literal["op", "model"] = "model" if len(sites) > MODEL_SCALE_SITES else "op"
    limit = top if top is not None else (MODEL_TOP if scale == "model" else None)
    ranked = sorted(sites, key=lambda s: (-(s.us_per_call or 0.0), s.order))
    chosen = {s.order for s in (ranked[:limit] if limit else ranked)}
    ctx = SourceContext(root=root, doc_dir=doc_dir, live=live, link_style=link_style, torch_ref=torch_ref)
    by_order = {s.order: st for s, st in zip(sites, stats)}
    sites = [s if s.order not in chosen else _with_source(s, by_order[s.order], ctx) for s in sites]
    detailed = [s for s in sites if s.order in chosen]
    if flow == "modules" and not structure:
        raise UsageError("--flow modules: no nn.Module markers around these kernels (record the trace with "
                         "with_modules=True, as 'bench-kernel profile' does)")
    # auto: modules at model scale when the trace has module markers, else kernels
    shown: Literal["kernels", "modules"] = (
        "modules" if flow == "modules" or (flow == "auto" and scale == "model" and structure) else "kernels")
    paths = group_paths(detailed)
    shared: tuple[SourceFrame, ...] = ()
    if scale == "model" and len(paths) > 1:
        stacks = [s.stack for s in detailed if s.stack]
        shared = tuple(stacks[0][:common_prefix_len(stacks)]) if stacks else ()
    return SourceTrace(subject=subject, kernels=tuple(sites), paths=paths, overview=_overview(sites, structure),
                       structure=structure, scale=scale, flow=shown, detailed=tuple(sorted(chosen)),
                       shared_chain=shared, device=device, backend=backend, inputs=inputs, output=output,
                       selection=selection, link_style=link_style, notes=tuple(notes))


def _with_source(site: KernelSite, stats: SiteStats, ctx: SourceContext) -> KernelSite:
    """``site`` with its source; a Triton or Inductor kernel is then filed by what its code does."""
    source = kernel_source(site, stats.first, ctx)
    category = site.category
    if source is not None and source.kind in ("triton", "inductor"):
        path = next((x.abs_path for x in source.links if x.role == "kernel" and x.abs_path), None)
        try:
            text = Path(path).read_text(encoding="utf-8", errors="replace") if path else None
        except OSError:
            text = None
        category = (triton_source_category(text, site.name) if text else None) or category
    return site.replace(source=source, category=category)
