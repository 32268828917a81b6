"""What every counting formula shares: the :class:`Work` it returns, the :class:`OpCall` it reads, and
the registry that holds one formula per kind.

The formulas themselves live above this module (``_gemm``, ``_attention``, ``_memory``); ``_formulas``
imports them all and dispatches (:func:`~bench_kernel.roofline._formulas.op_work`). Keeping the shared
part here is what lets those modules import it without importing each other.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Mapping, Sequence

from bench_kernel.roofline._opargs import UNKNOWN, TensorArg, nbytes, touched_bytes
from bench_kernel.roofline._optable import OpRow

__all__ = ["Work", "OpCall", "FormulaError", "formula", "registered", "broadcast", "work", "SOURCE"]

SOURCE = "bench-kernel"


@dataclass(frozen=True)
class Work:
    """The work of one op call."""

    op: str
    formula: str
    """The formula kind that counted it (``gemm``, ``attention``, ...; ``kernel_args`` for a
    Triton/Inductor kernel recorded as an op)."""
    flops: int | None
    """None when the recorded arguments cannot tell (``reason`` says why)."""
    bytes: int | None
    dtype: str | None
    """The dtype whose peak applies: the operands' for a GEMM or attention, the data's otherwise."""
    notes: tuple[str, ...] = ()
    reason: str | None = None
    causal: bool = False
    """Causal attention, counted as the visible (query, key) pairs only."""
    estimate: bool = False
    """An upper bound or estimate (variable lengths not recorded, bytes of a kernel's arguments)."""
    source: str = SOURCE
    """Whose formula: ``bench-kernel`` or ``torch.utils.flop_counter``."""

    def to_dict(self) -> dict[str, Any]:
        return {"op": self.op, "formula": self.formula, "flops": self.flops, "bytes": self.bytes,
                "dtype": self.dtype, "notes": list(self.notes), "reason": self.reason, "causal": self.causal,
                "estimate": self.estimate, "source": self.source}


class FormulaError(ValueError):
    """The recorded arguments do not fit the op's formula (the message says how)."""


@dataclass
class OpCall:
    """One op's arguments and its table row, with the lookups every formula needs."""

    op: str
    args: Sequence[Any]
    row: OpRow
    dtype_hint: str | None = None
    notes: list[str] = field(default_factory=list)
    context: Mapping[str, float] = field(default_factory=dict)
    """What the arguments do not hold but the trace around the call does (``_serving``: the step's
    attention lengths, the top-k of a MoE's routing); empty for a live call."""

    def value(self, role: str, default: Any = None) -> Any:
        """The argument at ``role``'s position; ``default`` when the row names none or it is absent."""
        i = self.row.pos(role)
        if i is None or i >= len(self.args) or self.args[i] is None:
            return default
        return self.args[i]

    def scalar(self, role: str, default: Any = None) -> Any:
        """A non-tensor argument (a number, a flag, a list of ints); ``default`` when not recorded."""
        v = self.value(role, default)
        if v is UNKNOWN or isinstance(v, TensorArg) or (isinstance(v, list) and not _int_list(v)):
            return default
        return v

    def tensor(self, role: str, required: bool = True) -> TensorArg | None:
        v = self.value(role)
        if isinstance(v, TensorArg):
            return v
        if required:
            raise FormulaError(f"argument {role!r} (position {self.row.pos(role)}) is not a recorded tensor")
        return None

    def dtype(self, t: TensorArg) -> str | None:
        return t.dtype or self.dtype_hint

    def tensors(self) -> list[tuple[int, TensorArg]]:
        """(position, tensor) of every tensor argument, tensor-list elements included."""
        out = []
        for i, a in enumerate(self.args):
            if isinstance(a, TensorArg):
                out.append((i, a))
            elif isinstance(a, list):
                out += [(i, t) for t in a if isinstance(t, TensorArg)]
        return out

    def io_bytes(self, new: Iterable[tuple[int, str | None]] = (), skip: Iterable[int] = ()) -> int | None:
        """Bytes of reading every tensor argument once and writing the outputs.

        ``new``: (elements, dtype) of outputs the op allocates. Arguments at the row's ``out``
        positions are written, not read; ``inout`` ones read and written; ``skip`` positions are
        counted by the formula itself. None when a dtype needed is unknown.
        """
        out_pos, inout = set(self.row.positions("out")), set(self.row.positions("inout"))
        skipped = set(skip)
        new = list(new)
        given = self._out_argument(new)
        if given is not None:  # an out= variant (mm.out): its output is the last argument, written only
            out_pos.add(given)
            new = new[1:]
        total = 0
        for i, t in self.tensors():
            if i in skipped:
                continue
            d = self.dtype(t)
            if d is None:
                return None
            if i not in out_pos:
                total += touched_bytes(t, d) or 0
            if i in out_pos or i in inout:
                total += nbytes(t, d) or 0
        for n, d in new:
            d = d or self.dtype_hint
            if d is None:
                return None
            total += nbytes(TensorArg((n,), d)) or 0
        return total


    def _out_argument(self, new: list[tuple[int, str | None]]) -> int | None:
        """Position of an ``out=`` tensor holding the first new output, if the call was an out variant.

        Traces record ``out=`` as one more argument after the op's own: a tensor past every position
        the row names, of as many elements as the output.
        """
        if not new or not self.args:
            return None
        last = len(self.args) - 1
        named = [p for v in self.row.args.values() if not isinstance(v, str)
                 for p in (v if isinstance(v, tuple) else (v,))]
        t = self.args[last]
        # Only rows that name their arguments can tell an extra one: an elementwise op has any number.
        if named and isinstance(t, TensorArg) and last > max(named) and t.numel == new[0][0]:
            return last
        return None


def _int_list(v: Any) -> bool:
    return isinstance(v, list) and all(isinstance(x, int) and not isinstance(x, bool) for x in v)


_FORMULAS: dict[str, Callable[[OpCall], Work]] = {}


def formula(kind: str) -> Callable[[Callable[[OpCall], Work]], Callable[[OpCall], Work]]:
    """Register the formula of ``kind`` (a ``formula`` value of the op table); one per kind."""
    def deco(fn: Callable[[OpCall], Work]) -> Callable[[OpCall], Work]:
        if kind in _FORMULAS:
            raise ValueError(f"formula {kind!r} registered twice")
        _FORMULAS[kind] = fn
        return fn
    return deco


def broadcast(*shapes: Sequence[int]) -> tuple[int, ...]:
    """NumPy/torch broadcasting of ``shapes``; FormulaError when they do not broadcast."""
    n = max((len(s) for s in shapes), default=0)
    out = []
    for dims in zip(*[(1,) * (n - len(s)) + tuple(s) for s in shapes]):
        sizes = {d for d in dims if d != 1}
        if len(sizes) > 1:
            raise FormulaError(f"shapes {[list(s) for s in shapes]} do not broadcast")
        out.append(sizes.pop() if sizes else 1)
    return tuple(out)


def work(call: OpCall, flops: int | None, nbytes_: int | None, dtype: str | None, **kw: Any) -> Work:
    """A :class:`Work` of ``call``, its notes attached; bytes None says why."""
    reason = kw.pop("reason", None)
    if nbytes_ is None and reason is None:
        reason = "the dtype of a tensor argument is not recorded (a tensor list): bytes not counted"
    return Work(call.op, call.row.formula, flops, nbytes_, dtype, tuple(call.notes), reason, **kw)


def registered(kind: str) -> Callable[[OpCall], Work]:
    """The formula registered under ``kind``; KeyError when none is (a module was not imported)."""
    return _FORMULAS[kind]
