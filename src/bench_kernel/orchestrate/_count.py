"""The work of one call (FLOPs, bytes) and its dtype, for placing a result under its roofs.

``bench_kernel.roofline.count`` runs the callable once on a fresh input set, AFTER timing, on its
eager twin (a ``torch.compile``d function keeps its compiled code), so counting never changes the
code that was timed. It runs even when the case states its FLOPs and bytes: the dtype comes from the
ops that ran (a closure ``lambda: a @ b`` has no inputs to look at; judging its bf16 GEMM against
the fp32 roof printed 1188%). Stated counts win over counted ones; a counting failure is a note,
never a lost case.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, replace
from typing import Any

from bench_kernel.errors import BenchKernelError
from bench_kernel.measure import Case, call_with, guard, iter_tensors
from bench_kernel.records import Note, info, warning
from bench_kernel.units import first_and_more

__all__ = ["CaseWork", "count_work", "infer_dtype"]

#: Stated and counted FLOPs further apart than this factor get a note.
DISAGREE_FACTOR = 1.25


@dataclass(frozen=True)
class CaseWork:
    """What the roofline of one case is judged with, and where each part came from."""

    case: Case
    """The case with FLOPs/bytes filled in where it did not state them."""
    dtype: str
    dtype_source: str
    """``params`` (the case's ``params["dtype"]``), ``ops`` (the dtype carrying most of the counted
    FLOPs or bytes), ``inputs`` (the heaviest floating input) or ``default`` (fp32)."""
    flops_source: str | None
    """``given``, ``counted`` or None (unknown)."""
    bytes_source: str | None
    counts: Any = None
    """The ``bench_kernel.roofline.Counts`` of the counting pass, None when it did not run or failed."""
    notes: tuple[Note, ...] = ()

    @property
    def causal(self) -> bool:
        return bool(self.counts is not None and self.counts.causal)

    @property
    def estimated(self) -> bool:
        return bool(self.counts is not None and self.counts.estimated and self.bytes_source == "counted")


def infer_dtype(case: Case, inputs: Any, counted: str | None = None) -> tuple[str, str]:
    """(dtype, source): the case's ``params["dtype"]``, else the dtype the counted ops ran in, else
    the floating dtype holding most input bytes, else fp32."""
    if case.params.get("dtype"):
        return str(case.params["dtype"]), "params"
    if counted:
        return counted, "ops"
    weight: Counter[str] = Counter()
    for t in iter_tensors(inputs):
        if t.dtype.is_floating_point:
            weight[str(t.dtype)] += t.numel() * t.element_size()
    return (weight.most_common(1)[0][0], "inputs") if weight else ("fp32", "default")


def _formula_note(counts: Any) -> str:
    """Which formula counted which op: ours, torch's, none (the promise to say which was used)."""
    by_source: dict[str, list[str]] = {}
    for o in counts.ops:
        if o.flops or o.source == "torch.utils.flop_counter":
            by_source.setdefault(o.source, []).append(f"{o.op} x{o.calls}" if o.calls > 1 else o.op)
    parts = [f"{src}: {', '.join(ops[:6])}{' ...' if len(ops) > 6 else ''}" for src, ops in by_source.items()]
    return f"FLOPs counted: {counts.flops:.4g} ({'; '.join(parts) or 'no op with FLOPs ran'})"


def _uncounted_note(counts: Any) -> str | None:
    ops = counts.uncounted
    if not ops:
        return None
    shown = first_and_more(ops, 8)
    return f"no FLOP formula for {shown} (counted as 0 FLOPs)"


def count_work(case: Case, inputs: Any) -> CaseWork:
    """Count one call of ``case`` on ``inputs`` and decide its FLOPs, bytes and dtype (module docstring)."""
    if case.params.get("dtype") and case.flops is not None and case.bytes is not None:
        return CaseWork(case, str(case.params["dtype"]), "params", "given", "given")
    from bench_kernel.roofline import count

    notes: list[Note] = []
    counts = None
    try:
        counts = guard(case.label, "counting", lambda: call_with(lambda *a, **k: count(case.fn, *a, **k), inputs))
    except BenchKernelError as e:
        notes.append(warning("counting-failed", f"counting failed, FLOPs/bytes not counted (the case was timed "
                             f"anyway): {e}"))
    dtype, dtype_source = infer_dtype(case, inputs, counts.dtype if counts is not None else None)
    if dtype_source in ("inputs", "default"):
        notes.append(info("dtype-assumed", f"dtype {dtype} taken from the "
                          f"{'inputs' if dtype_source == 'inputs' else 'default'}: no counted op said which dtype "
                          f"the work runs in", dtype=dtype, source=dtype_source))
    flops, nbytes = case.flops, case.bytes
    flops_source = "given" if flops is not None else None
    bytes_source = "given" if nbytes is not None else None
    if counts is not None:
        notes.append(info("flops-counted", _formula_note(counts)))
        uncounted = _uncounted_note(counts)
        notes += [warning("flops-uncounted", uncounted)] if uncounted else []
        notes += [info("counted", n) for n in counts.notes]
        if flops is None:
            flops, flops_source = float(counts.flops), "counted"
        elif counts.flops and not (1 / DISAGREE_FACTOR <= flops / counts.flops <= DISAGREE_FACTOR):
            notes.append(warning("flops-disagree", f"the case states {flops:.4g} FLOPs; its ops count "
                                 f"{counts.flops:.4g}", stated_flops=flops, counted_flops=float(counts.flops)))
        if nbytes is None and counts.bytes:  # 0 counted (a view, plain Python) stays None: ``place`` says so
            # (a case that STATES 0 bytes is refused; a count of 0 must not be blamed on the user)
            nbytes, bytes_source = float(counts.bytes), "counted"
            notes.append(info("bytes-counted", f"bytes counted as each distinct tensor read once and written once: "
                              f"{counts.bytes:.4g}" + (" (partly estimated: Triton launches)" if counts.triton_kernels
                                                      else ""), bytes=float(counts.bytes)))
    return CaseWork(replace(case, flops=flops, bytes=nbytes), dtype, dtype_source, flops_source, bytes_source,
                    counts, tuple(notes))
