"""From kernel launches (trace records with their Python stacks) to distinct kernel sites and modules.

Both entry points (a live call, a recorded trace) hand over the same thing: every selected launch
with the call (or step) it belongs to. A *site* is one kernel launched from one Python stack; the
repeated decoder layers of a model launch the same kernels from the same lines, so they fold into
one site whose count per call is the number of layers.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from bench_kernel.records import ModuleNode, SourceFrame
from bench_kernel.source_trace._frames import plumbing_rules, to_source_frames
from bench_kernel.source_trace._structure import ModuleCall, StructureBuilder, module_calls, module_type
from bench_kernel.source_trace._text import shape_text
from bench_kernel.trace import Frame, KernelRecord

__all__ = ["Launch", "SiteStats", "collect", "matches_module"]


@dataclass(frozen=True)
class Launch:
    """One kernel execution to document and the call (0-based) or step it belongs to."""

    record: KernelRecord
    """With ``stack`` filled (the raw frames, module markers included)."""
    call: int


@dataclass
class SiteStats:
    """What one distinct (kernel, call site) did over all documented calls."""

    first: KernelRecord
    stack: tuple[SourceFrame, ...]
    modules: tuple[ModuleCall, ...]
    order: int
    launches: int = 0
    total_us: float = 0.0


def matches_module(record: KernelRecord, name: str) -> bool:
    """True when ``record`` ran under a module whose class (``LlamaDecoderLayer``) or instance
    (``LlamaDecoderLayer_3``) is ``name``."""
    for f in record.stack or ():
        if f.is_module:
            text = f.function.split(":", 1)[1].strip()
            if name in (text, re.sub(r"_\d+$", "", text)):
                return True
    return False


def collect(launches: Sequence[Launch], n_calls: int, *, root: Path, doc_dir: Path,
            keep_all_frames: bool = False) -> tuple[list[SiteStats], tuple[ModuleNode, ...]]:
    """Distinct sites (in first-launch order) and the module tree of ``launches`` over ``n_calls``."""
    rules = plumbing_rules()
    drops = (lambda f, fn: False) if keep_all_frames else rules.drops
    frames_of: dict[tuple[Frame, ...], tuple[SourceFrame, ...]] = {}
    calls_of: dict[tuple[Frame, ...], tuple[ModuleCall, ...]] = {}
    forwards_of: dict[tuple[Frame, ...], tuple[SourceFrame | None, ...]] = {}
    sites: dict[tuple, SiteStats] = {}
    builder = StructureBuilder(n_calls)
    ordered = sorted(launches, key=lambda x: (x.call, x.record.index))
    for pos, launch in enumerate(ordered):
        r = launch.record
        raw = tuple(r.stack or ())
        if raw not in frames_of:
            frames_of[raw] = to_source_frames(raw, root=root, doc_dir=doc_dir, keep_all=keep_all_frames)
            calls_of[raw] = module_calls(raw, drops)
            forwards_of[raw] = tuple(_frame(mc.forward, root, doc_dir) for mc in calls_of[raw])
        stack = frames_of[raw]
        key = (r.name, tuple(f.key for f in stack))
        site = sites.get(key)
        if site is None:
            site = sites[key] = SiteStats(r, stack, calls_of[raw], pos)
        site.launches += 1
        site.total_us += r.dur_us
        shapes = shape_text(r.op.input_dims, r.op.input_types) if r.op is not None else ""
        builder.add(calls_of[raw], launch.call, pos, r.dur_us, forwards_of[raw], shapes)
    return sorted(sites.values(), key=lambda s: s.order), builder.nodes()


def _frame(f: Frame | None, root: Path, doc_dir: Path) -> SourceFrame | None:
    if f is None:
        return None
    out = to_source_frames([f], root=root, doc_dir=doc_dir, keep_all=True)
    return out[0] if out else None


def site_module_type(site: SiteStats) -> str:
    """The module type of a site's launches (``module_type`` of its module classes)."""
    return module_type(mc.cls for mc in site.modules)
