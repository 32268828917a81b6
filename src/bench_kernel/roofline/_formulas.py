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

Each formula lives in one of ``_formulas`` (GEMM, convolution), ``_attention`` and ``_memory``
(per-element and data-movement ops); :func:`formula` registers it under its kind.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Iterable, Sequence

from bench_kernel.roofline._opargs import UNKNOWN, TensorArg, nbytes, touched_bytes
from bench_kernel.roofline._optable import OpRow, op_table, scalar_type

__all__ = ["Work", "OpCall", "op_work", "formula", "broadcast", "FormulaError"]

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


def op_work(op: str, args: Sequence[Any], *, dtype_hint: str | None = None) -> Work | None:
    """FLOPs and minimal bytes of one call of ``op`` (``aten::mm``) on ``args`` (``_opargs`` form).

    None when no formula applies to ``op``. Arguments that do not fit the formula (a hostile or
    malformed trace) give a :class:`Work` with ``flops``/``bytes`` None and the reason, never an
    exception. ``dtype_hint`` stands in for dtypes a trace does not record (tensor lists).
    """
    row = op_table().get(op)
    if row is None:
        from bench_kernel.kernels import decode

        if "::" not in op and decode(op).family in ("inductor", "triton"):
            return _kernel_args_work(op, args)
        return None
    call = OpCall(op, args, row, dtype_hint)
    try:
        return _FORMULAS[row.formula](call)
    except (FormulaError, TypeError, ValueError, IndexError, ZeroDivisionError, OverflowError) as e:
        return Work(op, row.formula, None, None, None, (), f"the recorded arguments do not fit the {row.formula} "
                    f"formula: {e}")


# -- GEMMs ---------------------------------------------------------------------------------------

def _gemm(call: OpCall, a: TensorArg, b: TensorArg, skip: Sequence[int] = ()) -> Work:
    if len(a.shape) < 2 or len(b.shape) < 2:
        raise FormulaError(f"a GEMM needs matrices, got shapes {list(a.shape)} and {list(b.shape)}")
    (m, k), (k2, n) = a.shape[-2:], b.shape[-2:]
    if k != k2:
        raise FormulaError(f"inner dimensions differ: {list(a.shape)} x {list(b.shape)}")
    batch = math.prod(broadcast(a.shape[:-2], b.shape[:-2]))
    out_dtype = scalar_type(call.scalar("out_dtype")) or call.dtype(a)
    return work(call, 2 * batch * m * n * k, call.io_bytes([(batch * m * n, out_dtype)], skip), call.dtype(a))


@formula("gemm")
def gemm(call: OpCall) -> Work:
    return _gemm(call, call.tensor("a"), call.tensor("b"))  # type: ignore[arg-type]


@formula("matmul")
def matmul(call: OpCall) -> Work:
    """``torch.matmul``: a 1-D operand is a vector (a row on the left, a column on the right)."""
    a, b = call.tensor("a"), call.tensor("b")
    assert a is not None and b is not None
    va, vb = len(a.shape) == 1, len(b.shape) == 1
    a2 = replace(a, shape=(1,) + a.shape, strides=None) if va else a
    b2 = replace(b, shape=b.shape + (1,), strides=None) if vb else b
    return _gemm(call, a2, b2)


@formula("linear")
def linear(call: OpCall) -> Work:
    """``x @ w.T + bias`` with ``x`` of any rank and ``w`` as ``[out_features, in_features]``."""
    x, w = call.tensor("x"), call.tensor("w")
    assert x is not None and w is not None
    if not x.shape or w.shape[-1] != x.shape[-1] or len(w.shape) > 2:
        raise FormulaError(f"linear needs x[..., K] and w[N, K], got {list(x.shape)} and {list(w.shape)}")
    rows, k = math.prod(x.shape[:-1]), x.shape[-1]
    n = w.shape[0] if len(w.shape) == 2 else 1
    return work(call, 2 * rows * n * k, call.io_bytes([(rows * n, call.dtype(x))]), call.dtype(x))


@formula("grouped_gemm")
def grouped_gemm(call: OpCall) -> Work:
    """``torch._grouped_mm``: 2-D x 3-D (ragged rows of ``a``, one expert matrix per group), 3-D x
    3-D (a batch), 2-D x 2-D (ragged K: one output per group), 3-D x 2-D (ragged columns of ``b``)."""
    a, b = call.tensor("a"), call.tensor("b")
    assert a is not None and b is not None
    out_dtype = scalar_type(call.scalar("out_dtype")) or call.dtype(a)
    offs = call.tensor("offs", required=False)
    shapes = (len(a.shape), len(b.shape))
    if shapes == (3, 3):
        return _gemm(call, a, b)
    if shapes == (2, 3):
        (m, k), (_, k2, n) = a.shape, b.shape
        flops, out = 2 * m * k * n, m * n
    elif shapes == (2, 2):
        (m, k), (k2, n) = a.shape, b.shape
        groups = offs.shape[0] if offs is not None and offs.shape else 1
        flops, out = 2 * m * k * n, groups * m * n
    elif shapes == (3, 2):
        (_, m, k), (k2, n) = a.shape, b.shape
        flops, out = 2 * m * k * n, m * n
    else:
        raise FormulaError(f"grouped GEMM of {len(a.shape)}-D x {len(b.shape)}-D operands")
    if k != k2:
        raise FormulaError(f"inner dimensions differ: {list(a.shape)} x {list(b.shape)}")
    return work(call, flops, call.io_bytes([(out, out_dtype)]), call.dtype(a))


# -- convolution ---------------------------------------------------------------------------------

def _per_dim(value: Any, n: int, name: str, default: int) -> tuple[int, ...]:
    if value is None:
        return (default,) * n
    if value is UNKNOWN:
        raise FormulaError(f"its {name} is not recorded (the trace has no Concrete Inputs)")
    vals = [value] if isinstance(value, int) else list(value)
    if not all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in vals) or len(vals) not in (1, n):
        raise FormulaError(f"{name} {value!r} is not {n} non-negative integers")
    return tuple(vals * n if len(vals) == 1 else vals)


def _conv_flops(x: TensorArg, w: TensorArg, out_spatial: Sequence[int], transposed: bool) -> int:
    kernel = math.prod(w.shape[2:])
    if transposed:  # each input element scatters into C_out/groups x kernel outputs
        return 2 * x.shape[0] * math.prod(x.shape[2:]) * w.shape[0] * w.shape[1] * kernel
    return 2 * x.shape[0] * math.prod(out_spatial) * w.shape[0] * w.shape[1] * kernel


@formula("conv")
def conv(call: OpCall) -> Work:
    x, w = call.tensor("x"), call.tensor("w")
    assert x is not None and w is not None
    nsp = len(x.shape) - 2
    if nsp < 1 or len(w.shape) != len(x.shape):
        raise FormulaError(f"convolution of input {list(x.shape)} with weight {list(w.shape)}")
    stride = _per_dim(call.value("stride"), nsp, "stride", 1)
    pad = _per_dim(call.value("padding"), nsp, "padding", 0)
    dil = _per_dim(call.value("dilation"), nsp, "dilation", 1)
    transposed = call.scalar("transposed", False) is True
    groups = call.scalar("groups", 1)
    if transposed:
        opad = _per_dim(call.value("output_padding"), nsp, "output_padding", 0)
        out_sp = [(i - 1) * s - 2 * p + d * (k - 1) + op + 1
                  for i, s, p, d, k, op in zip(x.shape[2:], stride, pad, dil, w.shape[2:], opad)]
        c_out = w.shape[1] * (groups if isinstance(groups, int) and groups > 0 else 1)
    else:
        out_sp = [(i + 2 * p - d * (k - 1) - 1) // s + 1 for i, s, p, d, k in zip(x.shape[2:], stride, pad, dil,
                                                                                  w.shape[2:])]
        c_out = w.shape[0]
    if any(o <= 0 for o in out_sp) or 0 in stride:
        raise FormulaError(f"no output: input {list(x.shape)}, weight {list(w.shape)}, stride {list(stride)}")
    out = x.shape[0] * c_out * math.prod(out_sp)
    return work(call, _conv_flops(x, w, out_sp, transposed), call.io_bytes([(out, call.dtype(x))]), call.dtype(x))


@formula("conv_backward")
def conv_backward(call: OpCall) -> Work:
    """Input and weight gradients each cost one forward convolution (``output_mask`` says which run)."""
    grad, x, w = call.tensor("grad"), call.tensor("x"), call.tensor("w")
    assert grad is not None and x is not None and w is not None
    mask = call.value("mask")
    if not (isinstance(mask, list) and len(mask) == 3 and all(isinstance(m, bool) for m in mask)):
        mask = [True, True, False]
        call.notes.append("output_mask not recorded: both the input and the weight gradient counted")
    transposed = call.scalar("transposed", False) is True
    fwd_x, fwd_out = (grad, x) if transposed else (x, grad)
    fwd = _conv_flops(fwd_x, w, fwd_out.shape[2:], False)
    new = [(x.numel, call.dtype(x))] * mask[0] + [(w.numel, call.dtype(w))] * mask[1]
    new += [(w.shape[1] if transposed else w.shape[0], call.dtype(w))] * mask[2]
    return work(call, fwd * (int(mask[0]) + int(mask[1])), call.io_bytes(new), call.dtype(x))


def _register_rest() -> None:
    # The other kinds register themselves on import; imported here so op_work sees every kind.
    from bench_kernel.roofline import _attention, _memory  # noqa: F401


_register_rest()
