"""The work of one call (FLOPs, bytes) and its dtype, for cases that do not state them.

Given counts win; missing ones come from ``bench_kernel.roofline.count`` on a fresh input set,
AFTER timing, so counting (which runs the callable under a dispatch mode) can never change the
code that was timed (a ``torch.compile``d function falls back to eager under such a mode).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from typing import Any

from bench_kernel.measure import Case, call_with, guard, iter_tensors

__all__ = ["count_work", "infer_dtype"]


def infer_dtype(case: Case, inputs: Any) -> str:
    """The case's ``params["dtype"]``, else the floating dtype holding most input bytes."""
    if case.params.get("dtype"):
        return str(case.params["dtype"])
    weight: Counter[str] = Counter()
    for t in iter_tensors(inputs):
        if t.dtype.is_floating_point:
            weight[str(t.dtype)] += t.numel() * t.element_size()
    return weight.most_common(1)[0][0] if weight else "fp32"


def count_work(case: Case, inputs: Any) -> tuple[Case, list[str]]:
    """``case`` with FLOPs/bytes filled in by counting one call on ``inputs`` where not given,
    and the notes that say so."""
    if case.flops is not None and case.bytes is not None:
        return case, []
    from bench_kernel.roofline import count

    counts = guard(case.label, "counting", lambda: call_with(lambda *a, **k: count(case.fn, *a, **k), inputs))
    notes = []
    flops, nbytes = case.flops, case.bytes
    if flops is None:
        flops = float(counts.flops)
        notes.append(f"FLOPs counted by torch's FlopCounterMode: {counts.flops:.4g}")
    if nbytes is None:
        nbytes = float(counts.bytes)
        notes.append(f"bytes counted as each distinct tensor read once and written once: {counts.bytes:.4g}")
    return replace(case, flops=flops, bytes=nbytes), notes
