"""One counting formula per op: FLOPs and minimal bytes from shapes and dtypes, nothing else.

:func:`op_work` is what both ``run --roofline`` (the ops a live call dispatches) and ``ops`` (the
ops a trace recorded) call. The formulas are pure functions of an op's arguments in the neutral
form of ``_opargs`` -- torch is never imported here -- chosen by the op table
(``data/op_formulas.tsv``). Conventions, stated once:

- a multiply-add is 2 FLOPs (``2*M*N*K`` per GEMM); a bias add or a scale is not counted;
- attention is ``2*B*Hq*Lq*Lk*(Dqk + Dv)``: the query's heads, so grouped-query attention (fewer
  K/V heads) counts right; causal attention counts the visible (query, key) pairs, which is half when
  ``Lq == Lk`` -- the convention of FlashAttention's benchmarks;
- bytes are what one unfused execution of the op must move at least: each input read once (a
  broadcast dimension once), each output written once; a gather reads the rows it gathers.

Each formula lives in one of ``_gemm`` (GEMM, convolution), ``_attention``, ``_memory``
(per-element and data-movement ops) and ``_serving`` (an LLM engine's paged attention and fused MoE,
counted with what the trace around the call recorded), registered under its kind by ``_work.formula``; this module
imports them all and dispatches.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

# Imported for their registrations: each formula module registers its kinds with ``_work.formula``.
from bench_kernel.roofline import _attention, _gemm, _memory, _serving  # noqa: F401
from bench_kernel.roofline._opargs import TensorArg, touched_bytes
from bench_kernel.roofline._optable import op_table
from bench_kernel.roofline._work import FormulaError, OpCall, Work, registered

__all__ = ["op_work", "formula_kind", "formula_context", "formula_source"]


def _kernel_args_work(op: str, args: Sequence[Any]) -> Work:
    # Inductor (and other Triton launchers) record each kernel launch as an op carrying the
    # kernel's arguments: every tensor is read or written at least once, which of them is not said.
    tensors = [a for a in args if isinstance(a, TensorArg)]
    known = [touched_bytes(t) for t in tensors]
    total = sum(b for b in known if b is not None) if all(b is not None for b in known) else None
    dtypes = [t.dtype for t in tensors if t.dtype and t.dtype[:2] in ("bf", "fp")]
    return Work(op, "kernel_args", None, total, max(set(dtypes), key=dtypes.count) if dtypes else None,
                ("bytes estimated as each tensor argument of the kernel moved once (which are read or written "
                 "is not recorded); FLOPs not counted",), "a Triton kernel: FLOPs are not recorded", estimate=True)


def op_work(op: str, args: Sequence[Any], *, dtype_hint: str | None = None,
            context: Mapping[str, float] | None = None) -> Work | None:
    """FLOPs and minimal bytes of one call of ``op`` (``aten::mm``) on ``args`` (``_opargs`` form).

    None when no formula applies to ``op``. Arguments that do not fit the formula (a hostile or
    malformed trace) give a :class:`Work` with ``flops``/``bytes`` None and the reason, never an
    exception. ``dtype_hint`` stands in for dtypes a trace does not record (tensor lists);
    ``context`` holds what a serving op's arguments lack (``_serving``'s keys: the step's attention
    lengths, a MoE's top-k), as the trace around the call recorded it.
    """
    row = op_table().get(op)
    if row is None:
        from bench_kernel.kernels import decode

        if "::" not in op and decode(op).family in ("inductor", "triton"):
            return _kernel_args_work(op, args)
        return None
    call = OpCall(op, args, row, dtype_hint, context=context or {})
    try:
        return registered(row.formula)(call)
    except (FormulaError, TypeError, ValueError, IndexError, ZeroDivisionError, OverflowError) as e:
        return Work(op, row.formula, None, None, None, (), f"the recorded arguments do not fit the {row.formula} "
                    f"formula: {e}")


def formula_kind(op: str) -> str | None:
    """The formula kind the op table gives ``op`` (``gemm``, ``paged_attention``, ...), or None."""
    row = op_table().get(op)
    return row.formula if row is not None else None


def formula_context(op: str) -> str | None:
    """What the trace around a call of ``op`` must supply (``OpCall.context``): ``attention`` (the
    step's lengths: a paged attention), ``moe`` (a fused MoE's routing), or None."""
    row = op_table().get(op)
    if row is None:
        return None
    if row.formula == "paged_attention" or (row.formula == "attention" and row.word("paged") == "yes"):
        return "attention"
    return "moe" if row.formula == "fused_moe" else None


def formula_source(op: str) -> str | None:
    """Where an engine op's kernel is (the op table's ``source``), or None for PyTorch's ops."""
    row = op_table().get(op)
    return row.source or None if row is not None else None
