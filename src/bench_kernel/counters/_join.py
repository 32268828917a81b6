"""From a tool's launches to the counts of the timed call, joined to bench-kernel's per-kernel breakdown.

Names differ between the tools for one kernel: the PyTorch profiler (Kineto) prints the full
demangled name, ncu a simplified one whose namespaces and parameters vary with its version
(``void at::native::vectorized_elementwise_kernel<4, at::native::AUnaryFunctor<...>>(int, ...)`` in a
trace, ``void at::vectorized_elementwise_kernel<4, at::AUnaryFunctor<...>>(int, T2, T3)`` or
``void vectorized_elementwise_kernel<4, AUnaryFunctor<...>>(int, T2, T3)`` from ncu 2025.3). Both keep
the kernel function's own identifier and template arguments, which is what the join compares
(:func:`signature`, then :func:`base_name`); one launch left over on each side is then paired, as the
only candidates (the breakdown is ordered by time, not by launch, so more cannot be paired safely).
"""

from __future__ import annotations

import re
from typing import Iterable, Sequence

from bench_kernel.counters._ncu import Launch
from bench_kernel.counters._table import MetricTable
from bench_kernel.records import JoinedKernel, KernelCounters, Note, warning

__all__ = ["base_name", "signature", "in_range", "to_kernels", "join"]

_ANONYMOUS = re.compile(r"\(anonymous namespace\)|<unnamed>|\bunnamed>")
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def base_name(name: str) -> str:
    """The kernel function's identifier: ``vectorized_elementwise_kernel`` for any spelling above,
    ``Kernel2`` for ``void cutlass::Kernel2<...>(T1::Params)``, the name itself for ``add_kernel``.

    Itanium-mangled names (``ncu --print-kernel-base mangled``, AMD code objects) are demangled first.
    """
    from bench_kernel.kernels import demangle

    text = demangle(name).readable if name.strip().startswith("_Z") else name
    text = _ANONYMOUS.sub("", text.strip())
    if text.startswith("void "):
        text = text[5:]
    cut = min((i for i in (text.find("<"), text.find("(")) if i >= 0), default=len(text))
    head = text[:cut].strip()
    idents = _IDENT.findall(head.split("::")[-1]) if head else []
    return idents[-1] if idents else text


def signature(name: str) -> str:
    """:func:`base_name` plus the template arguments, spelled alike across tools: namespaces, spaces
    and integer suffixes dropped, ``true``/``false`` as ``1``/``0``. Tells apart two instantiations of
    one kernel function in one call (``vectorized_elementwise_kernel`` of a mul and of an add)."""
    from bench_kernel.kernels import demangle

    text = demangle(name).readable if name.strip().startswith("_Z") else name
    text = _ANONYMOUS.sub("", text)
    start = text.find("<")
    if start < 0:
        return base_name(name)
    depth, end = 0, len(text)
    for i in range(start, len(text)):
        depth += {"<": 1, ">": -1}.get(text[i], 0)
        if depth == 0:
            end = i + 1
            break
    args = re.sub(r"[A-Za-z_][A-Za-z0-9_]*::", "", text[start:end]).replace(" ", "")
    args = re.sub(r"\b(\d+)(?:ul|ull|u|l|ll)\b", r"\1", args)
    args = re.sub(r"\btrue\b", "1", re.sub(r"\bfalse\b", "0", args))
    return base_name(name) + args


def in_range(launches: Sequence[Launch], range_name: str) -> list[Launch]:
    """The launches made inside the NVTX push/pop range ``range_name`` (at any depth)."""
    return [launch for launch in launches if range_name in launch.ranges]


def to_kernels(launches: Iterable[Launch], table: MetricTable) -> tuple[list[KernelCounters], dict[str, str]]:
    """Each launch's counts by ``table``'s formulas, and the formula used for each field."""
    kernels, used = [], {}
    for launch in launches:
        fields, formulas = table.evaluate(launch.values)
        kernels.append(KernelCounters.from_fields(launch.name, fields))
        used.update(formulas)
    return kernels, used


def join(kernels: Sequence[KernelCounters], breakdown: Sequence[tuple[str, float]]
         ) -> tuple[tuple[JoinedKernel, ...], list[Note]]:
    """Join the call's launches (``kernels``, launch order) to the breakdown ``(name, launches per call)``.

    Returns one row per breakdown kernel (its launches summed), then one per kernel the breakdown does
    not have; and notes for every launch-count mismatch, the pairing of two different names and every
    kernel left without a partner.
    """
    groups: dict[str, list[KernelCounters]] = {}
    for k in kernels:
        groups.setdefault(signature(k.name), []).append(k)
    rows: list[JoinedKernel | None] = [None] * len(breakdown)
    notes: list[Note] = []
    # First the same function and template arguments, then the same function among what is left.
    for key in (signature, base_name):
        for i, (name, per_call) in enumerate(breakdown):
            if rows[i] is not None:
                continue
            found = next((s for s in groups if key(s) == key(name)), None)  # a signature's signature is itself
            if found is None:
                continue
            group = groups.pop(found)
            rows[i] = JoinedKernel(name, per_call, KernelCounters.combine(name, group), "name")
            if round(per_call) != len(group):
                notes.append(warning("counters-launches-differ", f"{base_name(name)}: {per_call:g} launches per timed "
                                     f"call, {len(group)} counted", kernel=base_name(name)))
    left_ours = [i for i, r in enumerate(rows) if r is None]
    left_theirs = [(base_name(s), g) for s, g in groups.items()]
    # The breakdown is ordered by time, not launch: only a single leftover on each side pairs safely.
    if len(left_ours) == 1 and len(left_theirs) == 1:
        for i, (theirs, group) in zip(left_ours, left_theirs):
            name, per_call = breakdown[i]
            rows[i] = JoinedKernel(name, per_call, KernelCounters.combine(name, group), "order")
            notes.append(warning("counters-joined-by-order", f"joined as the only kernels left on each side, the "
                                 f"names differ: {base_name(name)!r} (timed) and {theirs!r} (counted)"))
        left_theirs = []
    out = [r if r is not None else JoinedKernel(breakdown[i][0], breakdown[i][1], None, "none")
           for i, r in enumerate(rows)]
    out += [JoinedKernel(group[0].name, None, KernelCounters.combine(group[0].name, group), "none")
            for _, group in left_theirs]
    missing = [base_name(breakdown[i][0]) for i in left_ours if out[i].counters is None]
    if missing:
        notes.append(warning("counters-missing", f"no counts for {', '.join(missing)}: the counter tool saw no such "
                             "launch", kernels=missing))
    if left_theirs:
        notes.append(warning("counters-extra", f"counted but not in the timed breakdown: "
                             f"{', '.join(n for n, _ in left_theirs)}"))
    return tuple(out), notes
