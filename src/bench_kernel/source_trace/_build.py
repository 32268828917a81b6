"""From kernel records (the trace loader's ``KernelRecord``s) to a :class:`SourceTrace`."""

from __future__ import annotations

from pathlib import Path
from typing import Sequence

from bench_kernel.kernels import decode
from bench_kernel.trace import Frame, KernelRecord
from bench_kernel.source_trace._frames import to_source_frames
from bench_kernel.source_trace._group import group_paths
from bench_kernel.source_trace._model import KernelSite, SourceFrame, SourceTrace
from bench_kernel.source_trace._triton import find_jit_source, outline

__all__ = ["build"]

_TRITON_FAMILIES = ("triton", "inductor")


def _source(name: str, family: str, stack_files: Sequence[str | None], root: Path, doc_dir: Path,
            live: bool) -> tuple[SourceFrame | None, tuple[str, ...]]:
    if family not in _TRITON_FAMILIES:
        return None, ()
    found = find_jit_source(name, stack_files, live=live)
    if found is None:
        return None, ()
    file, line = found
    frames = to_source_frames([Frame(file, line, name)], root=root, doc_dir=doc_dir, keep_all=True)
    return (frames[0] if frames else None), outline(file, line)


def build(subject: str, kernels: Sequence[tuple[KernelRecord, float, float]], *, root: Path, doc_dir: Path,
          device: str | None = None, backend: str = "cuda", keep_all_frames: bool = False,
          live: bool = False, inputs: tuple[tuple[str, str], ...] = (), output: str | None = None,
          notes: Sequence[str] = ()) -> SourceTrace:
    """A document with one site per ``(record, us_per_call, count_per_call)``, in launch order.

    ``record``: the trace loader's ``KernelRecord`` (``stack`` filled for the frames to show).
    Shares are of the sum of ``us_per_call x count_per_call`` over the sites.
    """
    total = sum(us * n for _, us, n in kernels)
    sites = []
    for pos, (k, us, n) in enumerate(kernels):
        d = decode(k.name)
        family = d.family
        # A plain Triton kernel is named after its Python function ("add_kernel"): the name says
        # nothing, but its launch passes through Triton's runtime.
        if family == "other" and any("triton/runtime/" in (f.file or "") for f in k.stack or ()):
            family = "triton"
        stack = to_source_frames(k.stack or (), root=root, doc_dir=doc_dir, keep_all=keep_all_frames)
        files = [f.abs_path for f in stack][::-1]
        src, steps = _source(k.name, family, files, root, doc_dir, live)
        op = k.op
        sites.append(KernelSite(
            order=pos, name=k.name, short=d.short, family=family, category=d.category,
            fields=dict(d.fields), inferred=tuple(d.inferred),
            count_per_call=n, us_per_call=us, share=(us * n / total) if total else None,
            grid=k.grid, block=k.block, regs=k.regs, smem_bytes=k.smem_bytes,
            op=op.name if op is not None else None,
            input_dims=op.input_dims if op is not None else None,
            input_types=op.input_types if op is not None else None,
            stack=stack, graph_launched=k.graph_launched,
            source=src, steps=steps))
    sites_t = tuple(sites)
    return SourceTrace(subject=subject, sites=sites_t, paths=group_paths(sites_t), device=device,
                       backend=backend, inputs=inputs, output=output, notes=tuple(notes))
