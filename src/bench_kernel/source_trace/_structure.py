"""Repeated structure from the profiler's ``nn.Module`` markers: decoder layers, experts, blocks.

A module *call site* is a module class called from one line: the 8 decoder layers of a model are
one call site (the ``for layer in self.layers`` line), ``q_proj`` and ``k_proj`` are two. Each site
becomes one :class:`ModuleNode`; its instances (``LlamaDecoderLayer_0`` ... ``_7``, told apart by
the marker's instance suffix within a call) are counted, not repeated: the document writes the
site once with "× N" and the spread of its instances' device time. Nothing here knows a model:
the markers and the stacks are the only input.
"""

from __future__ import annotations

import functools
import re
import statistics
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Iterable, Sequence

from bench_kernel.datafile import read_package_tsv
from bench_kernel.errors import InputError
from bench_kernel.records import ModuleNode, SourceFrame
from bench_kernel.trace import MODULE_PREFIX, Frame

__all__ = ["ModuleCall", "module_calls", "module_type", "StructureBuilder", "MODULE_TYPES"]

_INSTANCE = re.compile(r"_(\d+)$")


@dataclass(frozen=True)
class ModuleCall:
    """One ``nn.Module: Cls_3`` marker in a stack: the class, the instance and where it was called."""

    cls: str
    instance: str
    """The marker's text after ``nn.Module: `` (``LlamaDecoderLayer_3``): one module object."""
    caller: tuple[str | None, int | None, str]
    """The last file frame before the marker: the line that called the module."""
    forward: Frame | None
    """The first frame after the marker that is not dispatch plumbing: the module's forward."""


def module_calls(frames: Sequence[Frame], drops) -> tuple[ModuleCall, ...]:
    """The module markers of a stack, outermost first. ``drops(file, function)``: plumbing frames."""
    out: list[ModuleCall] = []
    caller: tuple[str | None, int | None, str] = (None, None, "")
    pending: tuple[str, str, tuple] | None = None
    for f in frames:
        if f.is_module:
            if pending is not None:
                out.append(ModuleCall(*pending, forward=None))
            text = f.function[len(MODULE_PREFIX):].strip()
            pending = (_INSTANCE.sub("", text), text, caller)
        elif f.file and f.line:
            if pending is not None and not drops(f.file, f.function):
                out.append(ModuleCall(*pending, forward=f))
                pending = None
            caller = (f.file, f.line, f.function)
    if pending is not None:
        out.append(ModuleCall(*pending, forward=None))
    return tuple(out)


@functools.lru_cache(maxsize=1)
def MODULE_TYPES() -> tuple[tuple[re.Pattern[str], str], ...]:
    """The ordered rules of ``data/module_types.tsv``: (regex over a class name, module type)."""
    def check(row: dict[str, str], where: str) -> None:
        try:
            re.compile(row["pattern"])
        except re.error as e:
            raise InputError(f"{where}: bad pattern {row['pattern']!r}: {e}") from e
        if not row["type"]:
            raise InputError(f"{where}: empty type")

    rows = read_package_tsv("bench_kernel.source_trace", "module_types.tsv", ("pattern", "type"), check)
    return tuple((re.compile(r["pattern"]), r["type"]) for r in rows)


def module_type(classes: Iterable[str]) -> str:
    """The type of the OUTERMOST module class a rule names (an expert MLP inside a MoE block is
    ``moe``; a ``Linear`` inside an attention block is ``attention``), else ``other``."""
    rules = MODULE_TYPES()
    for cls in classes:
        for rx, kind in rules:
            if rx.search(cls):
                return kind
    return "other"


@dataclass
class _Acc:
    cls: str
    depth: int
    parent: tuple | None
    forward: SourceFrame | None = None
    first_order: int = 1 << 60
    shapes: str = ""
    kernels: dict[tuple, int] = field(default_factory=lambda: defaultdict(int))
    """instance id -> kernels launched under it"""
    us: dict[tuple, float] = field(default_factory=lambda: defaultdict(float))
    under: dict[tuple, set] = field(default_factory=lambda: defaultdict(set))
    """parent instance id -> this node's instance ids under it"""


class StructureBuilder:
    """Accumulates launches into module call sites; :meth:`nodes` builds the tree."""

    def __init__(self, n_calls: int) -> None:
        self.n_calls = max(n_calls, 1)
        self._acc: dict[tuple, _Acc] = {}

    def add(self, calls: Sequence[ModuleCall], call: int, order: int, dur_us: float,
            forwards: Sequence[SourceFrame | None], shapes: str) -> None:
        """One kernel launch of call ``call`` under the module calls ``calls`` (outermost first)."""
        key: tuple = ()
        inst: tuple = (call,)
        parent_inst: tuple = inst
        for depth, (mc, fwd) in enumerate(zip(calls, forwards)):
            parent = key or None
            key = key + ((mc.cls, mc.caller),)
            inst = inst + (mc.instance,)
            acc = self._acc.get(key)
            if acc is None:
                acc = self._acc[key] = _Acc(mc.cls, depth, parent, forward=fwd)
            if order < acc.first_order:
                acc.first_order, acc.shapes = order, shapes
            acc.kernels[inst] += 1
            acc.us[inst] += dur_us
            acc.under[parent_inst].add(inst)
            parent_inst = inst

    def nodes(self) -> tuple[ModuleNode, ...]:
        """The module tree: roots in launch order, children in launch order."""
        children: dict[tuple | None, list[tuple]] = defaultdict(list)
        for key, acc in self._acc.items():
            children[acc.parent].append(key)
        types: dict[tuple, str] = {}

        def build(key: tuple, parent_type: str | None) -> ModuleNode:
            acc = self._acc[key]
            own = module_type([acc.cls])
            kind = parent_type if parent_type not in (None, "other") else own
            types[key] = kind
            counts = [len(v) for v in acc.under.values()]
            parent = self._acc.get(acc.parent) if acc.parent else None
            if parent is not None:  # parent instances where this site never ran count as 0
                counts += [0] * (len(parent.kernels) - len(acc.under))
            per_inst = sorted(acc.us.values())
            n_inst = len(per_inst)
            kids = sorted(children.get(key, []), key=lambda k: self._acc[k].first_order)
            return ModuleNode(
                cls=acc.cls, depth=acc.depth, forward=acc.forward, per_parent=(min(counts), max(counts)),
                instances_per_call=n_inst / self.n_calls,
                kernels_per_instance=sum(acc.kernels.values()) / n_inst,
                us_per_instance=(per_inst[0], statistics.median(per_inst), per_inst[-1]),
                kernels_per_call=sum(acc.kernels.values()) / self.n_calls,
                us_per_call=sum(per_inst) / self.n_calls, module_type=kind, first_order=acc.first_order,
                shapes=acc.shapes, children=tuple(build(k, kind) for k in kids))

        roots = sorted(children.get(None, []), key=lambda k: self._acc[k].first_order)
        return tuple(build(k, None) for k in roots)
