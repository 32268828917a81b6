"""From kernel records (the trace loader's ``KernelRecord``s) to a :class:`SourceTrace`."""

from __future__ import annotations

from pathlib import Path
from statistics import fmean
from typing import Any, Sequence

from bench_kernel.kernels import decode
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

    class _F:  # the shape to_source_frames reads
        def __init__(self) -> None:
            self.file, self.line, self.function = file, line, name

    frames = to_source_frames([_F()], root=root, doc_dir=doc_dir, keep_all=True)
    return (frames[0] if frames else None), outline(file, line)


def build(subject: str, calls: Sequence[Sequence[Any]], *, root: Path, doc_dir: Path,
          device: str | None = None, backend: str = "cuda", keep_all_frames: bool = False,
          live: bool = False, inputs: tuple[tuple[str, str], ...] = (), output: str | None = None,
          notes: Sequence[str] = ()) -> SourceTrace:
    """One site per kernel launch of the first call; times are the mean over ``calls``.

    ``calls``: per call, its kernel records in launch order (the first call's carry stacks).
    A launch of another call counts toward a site when it has the same position and name.
    """
    first = list(calls[0])
    total_per_call = [sum(k.dur_us for k in c) for c in calls]
    mean_total = fmean(total_per_call) if total_per_call else 0.0
    sites = []
    for pos, k in enumerate(first):
        durs = [c[pos].dur_us for c in calls if len(c) > pos and c[pos].name == k.name]
        us = fmean(durs)
        d = decode(k.name)
        stack = to_source_frames(k.stack or (), root=root, doc_dir=doc_dir, keep_all=keep_all_frames)
        files = [f.abs_path for f in stack] + [getattr(f, "file", None) for f in (k.stack or ())]
        src, steps = _source(k.name, d.family, files[::-1], root, doc_dir, live)
        op = k.op
        sites.append(KernelSite(
            order=pos, name=k.name, short=d.short, family=d.family, category=d.category,
            fields=dict(d.fields), inferred=tuple(getattr(d, "inferred", ()) or ()),
            us_per_call=us, share=(us / mean_total) if mean_total else None,
            grid=k.grid, block=k.block, regs=k.regs, smem_bytes=k.smem_bytes,
            occupancy_pct=getattr(k, "occupancy_pct", None),
            op=op.name if op is not None else None,
            input_dims=getattr(op, "input_dims", None), input_types=getattr(op, "input_types", None),
            stack=stack, graph_launched=bool(getattr(k, "graph_launched", False)),
            source=src, steps=steps))
    sites_t = tuple(sites)
    return SourceTrace(subject=subject, sites=sites_t, paths=group_paths(sites_t), device=device,
                       backend=backend, inputs=inputs, output=output, notes=tuple(notes))
