"""Grouping kernels into paths (sub-flows) by the first frame where their stacks differ."""

from __future__ import annotations

from typing import Sequence

from bench_kernel.records import KernelSite, PathGroup

__all__ = ["group_paths", "common_prefix_len"]

#: Frames that launch kernels for everyone: never a path's title.
_MACHINERY = ("triton/runtime/", "triton/backends/", "torch/_ops.py", "torch/_compile.py")


def common_prefix_len(stacks: Sequence[Sequence]) -> int:
    """Length of the longest frame prefix (by file, line, function) shared by every stack."""
    if not stacks:
        return 0
    n = min(len(s) for s in stacks)
    for i in range(n):
        key = stacks[0][i].key
        if any(s[i].key != key for s in stacks[1:]):
            return i
    return n


def group_paths(sites: Sequence[KernelSite]) -> tuple[PathGroup, ...]:
    """Paths in launch order; each titled by the function of the frame where it diverges.

    Kernels whose stack ends at the shared prefix (launched by the common frame itself) form
    their own path, titled by their op.
    """
    with_stack = [s for s in sites if s.stack]
    depth = common_prefix_len([s.stack for s in with_stack]) if len(with_stack) > 1 else None
    groups: dict[object, list[KernelSite]] = {}
    for s in sorted(sites, key=lambda s: s.order):
        if depth is None or not s.stack:
            key: object = ("all",) if s.stack else ("nostack", s.order)
        elif len(s.stack) > depth:
            key = s.stack[depth].key
        else:
            key = ("leaf", s.op or s.short)
        groups.setdefault(key, []).append(s)
    paths = []
    for members in groups.values():
        first = members[0]
        stacks = [m.stack for m in members if m.stack]
        if stacks:
            # the deepest frame every member passes through says what this sub-flow is, unless
            # it is launch machinery (Triton's JIT runner and driver), which every kernel shares
            shared = stacks[0][:max(common_prefix_len(stacks), 1)]
            named = [f for f in shared if not any(m in f.display for m in _MACHINERY)] or list(shared)
            deepest = named[-1]
            title = f"`{deepest.module}.{deepest.function}`" if deepest.module else f"`{deepest.function}`"
        else:
            title = f"`{first.short}`"
        cats = list(dict.fromkeys(m.category for m in members))
        paths.append(PathGroup(f"{title} ({', '.join(cats)})", tuple(m.order for m in members)))
    return tuple(paths)
