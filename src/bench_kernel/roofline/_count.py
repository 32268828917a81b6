"""FLOPs, minimal bytes and the dtype of one call of a torch callable, counted while it runs.

One dispatch mode sees every aten (and custom) op the call runs:

- FLOPs: the op's formula from the op table (``_formulas.op_work``, the same formulas ``ops``
  applies to traces). Only for an op the table has no formula for does ``torch.utils.flop_counter``
  count it (its GEMM and convolution formulas are right; its attention ones count causal attention
  in full and raise on grouped-query shapes, so ours replace them). :attr:`Counts.ops` says which
  formula counted each op.
- dtype: the dtype carrying most FLOPs (most bytes when nothing computes), from the ops that
  actually ran -- a zero-argument closure has no inputs to look at. An fp32 GEMM or convolution
  that torch lets run as TF32 counts as ``tf32``.
- Bytes -- the rule: for every op, the tensors it reads and writes, by storage. Each distinct view of
  a storage counts once as read and once as written, whatever the number of ops touching it, capped
  at the storage size: every input read once, every output written once, an intermediate written
  once and read once -- what an *unfused* run must move at least, with perfect caching between ops
  and none across the call. A fused kernel can beat it; compare it with this count of its unfused
  reference, and say so. View ops and ``no_traffic`` ops move nothing; a stride-0 dimension adds no
  bytes; in-place ops read and write their target, except ``write_only_self`` ops and ``out=``
  buffers, which are only written. Partial writes (``index_put_``) count the whole target.
- Triton kernels launch without the dispatcher: while counting, each launch's tensor arguments are
  recorded as read (``tl.load``) or written (``tl.store``) as the kernel's source says -- an
  estimate (:attr:`Counts.estimated`), since a kernel may read a tensor partly or several times.

Counting never changes the code under test: it runs under ``torch.compiler.set_stance("force_eager")``,
so a ``torch.compile``d function runs its eager twin for the count and keeps its compiled code (a
dispatch mode around a compiled function otherwise makes Dynamo fall back to eager for good).
"""

from __future__ import annotations

import contextlib
import json
import math
import sys
from collections import Counter
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from typing import Any, Callable, Iterator, Mapping

from bench_kernel.dtypes import lookup, peak_class
from bench_kernel.errors import InputError, UsageError
from bench_kernel.roofline._formulas import op_work
from bench_kernel.roofline._opargs import TensorArg
from bench_kernel.roofline._optable import op_table
from bench_kernel.roofline._work import Work

__all__ = ["Counts", "OpCount", "count", "op_tables"]

_GEMM_FORMULAS = {"gemm", "matmul", "linear", "grouped_gemm"}
_CONV_FORMULAS = {"conv", "conv_backward"}
#: Small integer tensors an attention op reads (cu_seqlens) are read back so lengths are exact.
_MAX_VALUES = 4097


@dataclass(frozen=True)
class OpCount:
    """One op name's share of a counted call."""

    op: str
    calls: int
    flops: int
    source: str
    """``bench-kernel`` (op table), ``torch.utils.flop_counter``, ``triton launch`` or ``none``."""
    formula: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"op": self.op, "calls": self.calls, "flops": self.flops, "source": self.source,
                "formula": self.formula}


@dataclass(frozen=True)
class Counts:
    """FLOPs, minimal bytes and dtype of one call (see the module docstring for the rules)."""

    flops: int
    bytes: int
    """``read_bytes + write_bytes``."""
    read_bytes: int
    write_bytes: int
    dtype: str | None = None
    """Canonical dtype carrying most FLOPs (most bytes when there are none); None when no tensor ran."""
    flops_by_dtype: Mapping[str, int] = field(default_factory=dict)
    ops: tuple[OpCount, ...] = ()
    notes: tuple[str, ...] = ()
    """Caveats of single ops (causal attention counted as half, variable lengths bounded, ...)."""
    causal: bool = False
    """Causal attention ran and was counted as the visible pairs only."""
    estimated: bool = False
    """Some FLOPs or bytes are estimates or bounds (Triton launches, unrecorded lengths)."""

    @property
    def triton_kernels(self) -> tuple[str, ...]:
        return tuple(o.op for o in self.ops if o.source == "triton launch")

    @property
    def uncounted(self) -> tuple[str, ...]:
        """Ops that ran with no FLOP formula (counted as 0 FLOPs)."""
        return tuple(o.op for o in self.ops if o.source == "none")

    def to_dict(self) -> dict[str, Any]:
        return {"flops": self.flops, "bytes": self.bytes, "read_bytes": self.read_bytes,
                "write_bytes": self.write_bytes, "dtype": self.dtype, "flops_by_dtype": dict(self.flops_by_dtype),
                "ops": [o.to_dict() for o in self.ops], "notes": list(self.notes), "causal": self.causal,
                "estimated": self.estimated}


@dataclass(frozen=True)
class OpTables:
    no_traffic: frozenset[str]
    write_only_self: frozenset[str]


def _parse_op_tables(data: bytes, origin: str) -> OpTables:
    try:
        raw = json.loads(data)
        if raw.get("schema_version") != 1:
            raise ValueError(f"schema_version must be 1, got {raw.get('schema_version')!r}")
        lists = {key: raw[key] for key in ("no_traffic", "write_only_self")}
        for key, names in lists.items():
            if not (isinstance(names, list) and all(isinstance(n, str) and n for n in names)):
                raise ValueError(f"{key} must be a list of op names")
    except (ValueError, KeyError, TypeError, AttributeError) as e:
        raise InputError(f"{origin}: {e}") from None
    return OpTables(frozenset(lists["no_traffic"]), frozenset(lists["write_only_self"]))


@lru_cache(maxsize=1)
def op_tables() -> OpTables:
    """The packaged ``bench_kernel/roofline/data/ops.json``, parsed and validated once."""
    data = resources.files("bench_kernel.roofline").joinpath("data/ops.json").read_bytes()  # 3.10's joinpath: 1 arg
    return _parse_op_tables(data, "bench_kernel/roofline/data/ops.json")


def aten_packet(torch: Any, name: str) -> Any:
    """``torch.ops.aten.<name>``; InputError naming ops.json if torch has no such op."""
    try:
        return getattr(torch.ops.aten, name)
    except (AttributeError, RuntimeError):
        raise InputError(f"bench_kernel/roofline/data/ops.json: torch {torch.__version__} has no aten op "
                         f"{name!r}; fix or remove that entry") from None


def _tensors(tree: Any, torch: Any) -> list[Any]:
    from torch.utils._pytree import tree_leaves

    return [t for t in tree_leaves(tree) if isinstance(t, torch.Tensor)]


def _touched_bytes(t: Any) -> int:
    # A stride-0 dimension (broadcast / expand) revisits the same elements: it adds no bytes.
    if t.numel() == 0:
        return 0
    try:
        elems = math.prod(size for size, stride in zip(t.shape, t.stride()) if stride != 0)
    except (RuntimeError, NotImplementedError):  # sparse / opaque tensors have no strides
        elems = t.numel()
    return elems * t.element_size()


class _Ledger:
    """Distinct views per storage, for reads or for writes."""

    def __init__(self) -> None:
        self.views: dict[int, dict[tuple, int]] = {}
        self.capacity: dict[int, int] = {}
        self.dtype: dict[int, str] = {}
        self._alive: list[Any] = []  # keep storages alive: a freed storage's address could be reused

    def record(self, t: Any) -> None:
        try:
            storage = t.untyped_storage()
            key, capacity = storage._cdata, storage.nbytes()
            self._alive.append(storage)
        except (RuntimeError, NotImplementedError, AttributeError):  # sparse / opaque tensors
            key, capacity = id(t), _touched_bytes(t)
            self._alive.append(t)
        try:
            view = (t.storage_offset(), tuple(t.shape), tuple(t.stride()), t.element_size())
        except (RuntimeError, NotImplementedError):
            view = (0, tuple(t.shape), (), t.element_size())
        self.views.setdefault(key, {})[view] = _touched_bytes(t)
        self.capacity[key] = capacity
        self.dtype[key] = lookup(t.dtype) or "?"

    def total(self) -> int:
        return sum(min(sum(v.values()), self.capacity[k]) for k, v in self.views.items())

    def by_dtype(self) -> Counter[str]:
        out: Counter[str] = Counter()
        for k, v in self.views.items():
            out[self.dtype[k]] += min(sum(v.values()), self.capacity[k])
        return out


def _neutral(value: Any, torch: Any, with_values: bool) -> Any:
    """An argument in the formulas' neutral form (``_opargs``)."""
    if isinstance(value, torch.Tensor):
        try:
            strides = tuple(value.stride())
        except (RuntimeError, NotImplementedError):
            strides = None
        values = None
        if (with_values and value.dim() == 1 and not value.dtype.is_floating_point and value.numel() <= _MAX_VALUES
                and value.device.type != "meta"):
            values = tuple(int(x) for x in value.tolist())
        return TensorArg(tuple(int(s) for s in value.shape), lookup(value.dtype), strides, values)
    if isinstance(value, (list, tuple)):
        if any(isinstance(v, torch.Tensor) for v in value):
            return [_neutral(v, torch, with_values) for v in value if isinstance(v, torch.Tensor)]
        return [_neutral(v, torch, with_values) for v in value]
    if isinstance(value, torch.dtype):
        return lookup(value)
    if isinstance(value, (bool, int, float, str)) or value is None:
        return value
    if isinstance(value, (torch.SymInt, torch.SymFloat)):
        return int(value) if isinstance(value, torch.SymInt) else float(value)
    return None  # devices, layouts, memory formats: nothing a formula reads


def _schema_args(func: Any, args: tuple, kwargs: dict, torch: Any, with_values: bool) -> tuple[Any, ...]:
    """Every schema argument in order (keyword-only ones too): the order traces record them in."""
    out = []
    for i, a in enumerate(func._schema.arguments):
        if i < len(args) and not a.kwarg_only:
            v = args[i]
        elif a.name in kwargs:
            v = kwargs[a.name]
        else:
            v = a.default_value if a.has_default_value() else None
        out.append(_neutral(v, torch, with_values))
    return tuple(out)


class _Tally:
    """What the counter learned, op by op."""

    def __init__(self) -> None:
        self.flops_by_dtype: Counter[str] = Counter()
        self.per_op: dict[str, list[Any]] = {}  # op -> [calls, flops, source, formula]
        self.notes: dict[str, None] = {}
        self.causal = False
        self.estimated = False

    def add(self, op: str, flops: int, source: str, formula: str | None, dtype: str | None) -> None:
        entry = self.per_op.setdefault(op, [0, 0, source, formula])
        entry[0] += 1
        entry[1] += flops
        if flops and dtype:
            self.flops_by_dtype[dtype] += flops

    def note(self, text: str) -> None:
        self.notes.setdefault(text, None)


def _tf32(work: Work, func_args: tuple, torch: Any) -> str | None:
    """``tf32`` for an fp32 GEMM/convolution on a GPU that torch lets run on TF32 tensor cores."""
    if work.dtype != "fp32" or not any(getattr(t, "is_cuda", False) for t in _tensors(func_args, torch)):
        return work.dtype
    if work.formula in _GEMM_FORMULAS and torch.backends.cuda.matmul.allow_tf32:
        return "tf32"
    if work.formula in _CONV_FORMULAS and torch.backends.cudnn.allow_tf32:
        return "tf32"
    return work.dtype


def _count_flops(func: Any, args: tuple, kwargs: dict, out: Any, torch: Any, tally: _Tally) -> None:
    packet = func._overloadpacket
    op = f"{func.namespace}::{packet.__name__}"
    row = op_table().get(op)
    with_values = row is not None and row.formula.startswith("attention")
    work = op_work(op, _schema_args(func, args, kwargs, torch, with_values))
    if work is not None and work.flops is not None:
        tally.add(op, work.flops, "bench-kernel", work.formula, _tf32(work, (args, kwargs), torch))
        for n in work.notes:
            tally.note(f"{op}: {n}")
        tally.causal |= work.causal
        tally.estimated |= work.estimate
        return
    from torch.utils.flop_counter import flop_registry

    if packet in flop_registry:
        try:
            flops = int(flop_registry[packet](*args, **kwargs, out_val=out))
        except Exception as e:  # noqa: BLE001 - torch's formula may assert on shapes it does not know
            tally.add(op, 0, "none", None, None)
            tally.note(f"{op}: not counted: torch.utils.flop_counter raised {type(e).__name__}: {e}")
            return
        dtype = next((lookup(t.dtype) for t in _tensors((args, kwargs), torch) if t.is_floating_point()), None)
        tally.add(op, flops, "torch.utils.flop_counter", None, dtype)
        return
    tally.add(op, 0, "none", work.formula if work else None, None)
    if work is not None and work.reason:
        tally.note(f"{op}: FLOPs not counted: {work.reason}")


def _dynamo_loaded() -> bool:
    """Whether this process imported ``torch._dynamo`` (``torch.compile`` does): only then can
    anything be compiled, and only then is its import already paid."""
    return "torch._dynamo" in sys.modules


def _counter_mode(torch: Any, tally: _Tally) -> Any:
    from torch.utils._python_dispatch import TorchDispatchMode

    tables = op_tables()

    class Counter_(TorchDispatchMode):
        @classmethod
        def _should_skip_dynamo(cls) -> bool:
            # torch wraps a mode's __torch_dispatch__ in torch._disable_dynamo, whose first call
            # imports torch._dynamo and torch._inductor: 1.7 s of counting a one-element add on a
            # 2-core CPU machine. Only a process that loaded Dynamo can compile inside the mode.
            return _dynamo_loaded()

        def __init__(self) -> None:
            super().__init__()
            self.reads, self.writes = _Ledger(), _Ledger()

        def __torch_dispatch__(self, func: Any, types: Any, args: tuple = (), kwargs: dict | None = None) -> Any:
            kwargs = kwargs or {}
            out = func(*args, **kwargs)
            name = func._overloadpacket.__name__
            if func.is_view or name in tables.no_traffic:
                return out
            _count_flops(func, args, kwargs, out, torch, tally)
            schema = func._schema
            written = _tensors(out, torch)
            not_read: set[int] = set()
            for i, arg in enumerate(schema.arguments):
                if arg.alias_info is None or not arg.alias_info.is_write:
                    continue
                value = kwargs.get(arg.name) if arg.kwarg_only or i >= len(args) else args[i]
                targets = _tensors(value, torch)
                if not schema.returns:  # mutates in place and returns nothing (_foreach_*_)
                    written += targets
                if arg.kwarg_only or (i == 0 and name in tables.write_only_self):
                    not_read |= {id(t) for t in targets}  # out= buffers, overwritten targets
            for t in _tensors((args, kwargs), torch):
                if id(t) not in not_read:
                    self.reads.record(t)
            for t in written:
                self.writes.record(t)
            return out

    return Counter_()


@contextlib.contextmanager
def _eager_twin(torch: Any) -> Iterator[None]:
    """Run ``torch.compile``d code eagerly for the count, leaving its compiled code in place.

    Only where something can be compiled: ``torch.compiler.set_stance`` imports ``torch._dynamo``
    and ``torch._inductor`` (1.7 s on a 2-core CPU machine, 6.5 s in a fresh clone's test run, for
    counting a one-element add), while ``torch.compile`` imports ``torch._dynamo`` itself, so a
    process without it holds no compiled code to keep safe."""
    if not _dynamo_loaded():
        yield
        return
    set_stance = getattr(getattr(torch, "compiler", None), "set_stance", None)
    if set_stance is None:  # torch < 2.6: no stance; nothing compiled can be kept safe
        yield
        return
    with set_stance("force_eager"):
        yield


def _dominant(tally: _Tally, reads: _Ledger, writes: _Ledger) -> str | None:
    """The dtype carrying most FLOPs, else most bytes; one with a peak rate wins over one without."""
    computing = [d for d, _ in tally.flops_by_dtype.most_common() if _has_peak(d)]
    if computing:
        return computing[0]
    moved = reads.by_dtype() + writes.by_dtype()
    with_peak = [d for d, _ in moved.most_common() if _has_peak(d)]
    return with_peak[0] if with_peak else (moved.most_common(1)[0][0] if moved else None)


def _has_peak(dtype: str) -> bool:
    try:
        peak_class(dtype)
        return True
    except UsageError:
        return False


def count(fn: Callable[..., Any], *inputs: Any, **kwargs: Any) -> Counts:
    """Run ``fn(*inputs, **kwargs)`` once and count its FLOPs, minimal bytes and dtype (module docstring).

    Runs on whatever device the inputs live on; pass ``device="meta"`` tensors to count shapes too
    large to run (nothing is computed or allocated). Counts are for that one call. A
    ``torch.compile``d ``fn`` is counted on its eager twin and keeps its compiled code.
    """
    import torch

    from bench_kernel.roofline._triton_launch import record_triton_launches

    tally = _Tally()
    mode = _counter_mode(torch, tally)
    with _eager_twin(torch), record_triton_launches(mode.reads, mode.writes, tally), mode:
        fn(*inputs, **kwargs)
    reads, writes = mode.reads.total(), mode.writes.total()
    ops = tuple(OpCount(op, e[0], e[1], e[2], e[3]) for op, e in tally.per_op.items())
    return Counts(flops=sum(o.flops for o in ops), bytes=reads + writes, read_bytes=reads, write_bytes=writes,
                  dtype=_dominant(tally, mode.reads, mode.writes), flops_by_dtype=dict(tally.flops_by_dtype),
                  ops=ops, notes=tuple(tally.notes), causal=tally.causal, estimated=tally.estimated)
