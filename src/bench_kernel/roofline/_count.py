"""FLOPs and minimal bytes of one call of a torch callable, counted while it runs.

FLOPs: ``torch.utils.flop_counter.FlopCounterMode`` (matmul, conv, attention) plus the rules of
``ops.json`` for what it leaves out (the CPU SDPA op, pointwise arithmetic, sums).

Bytes -- the rule: a dispatch mode records, for every aten op, the tensors it reads and writes, by
storage. Each distinct view of a storage counts once as read and once as written, whatever the
number of ops touching it, capped at the storage size. So every input is read once, every output
written once, and an intermediate produced and consumed inside the call is written once and read
once: what an *unfused* run must move at least, with perfect caching between ops and none across
the call. A fused kernel can beat it (its intermediates never reach memory); compare such a kernel
with the count of the unfused reference, and say so. View ops and ops in ``no_traffic`` move
nothing; a stride-0 (broadcast) dimension adds no bytes; in-place ops read and write their target,
except ``write_only_self`` ops (``zero_``, ``copy_``, ...) and ``out=`` buffers, which are only
written. Partial writes (``index_put_``, ``scatter_``) count the whole target: an over-estimate.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Any, Callable

from bench_kernel.errors import InputError

__all__ = ["Counts", "count", "op_tables"]

_RULE_KINDS = ("output", "input", "attention")


@dataclass(frozen=True)
class Counts:
    """FLOPs and minimal bytes of one call (see the module docstring for the byte rule)."""

    flops: int
    bytes: int
    """``read_bytes + write_bytes``."""
    read_bytes: int
    write_bytes: int

    def to_dict(self) -> dict[str, int]:
        return {"flops": self.flops, "bytes": self.bytes, "read_bytes": self.read_bytes,
                "write_bytes": self.write_bytes}


@dataclass(frozen=True)
class OpTables:
    no_traffic: frozenset[str]
    write_only_self: frozenset[str]
    flop_rules: dict[str, tuple[str, int]]


def _parse_op_tables(data: bytes, origin: str) -> OpTables:
    try:
        raw = json.loads(data)
        if raw.get("schema_version") != 1:
            raise ValueError(f"schema_version must be 1, got {raw.get('schema_version')!r}")
        lists = {key: raw[key] for key in ("no_traffic", "write_only_self")}
        for key, names in lists.items():
            if not (isinstance(names, list) and all(isinstance(n, str) and n for n in names)):
                raise ValueError(f"{key} must be a list of op names")
        rules: dict[str, tuple[str, int]] = {}
        for op, rule in raw["flop_rules"].items():
            if not (isinstance(rule, list) and len(rule) == 2 and rule[0] in _RULE_KINDS
                    and isinstance(rule[1], int) and rule[1] > 0):
                raise ValueError(f"flop_rules[{op!r}] = {rule!r}: expected [kind, k] with kind in "
                                 f"{_RULE_KINDS} and k a positive integer")
            rules[op] = (rule[0], rule[1])
    except (ValueError, KeyError, TypeError, AttributeError) as e:
        raise InputError(f"{origin}: {e}") from None
    return OpTables(frozenset(lists["no_traffic"]), frozenset(lists["write_only_self"]), rules)


@lru_cache(maxsize=1)
def op_tables() -> OpTables:
    """The packaged ``bench_kernel/roofline/data/ops.json``, parsed and validated once."""
    data = resources.files("bench_kernel.roofline").joinpath("data", "ops.json").read_bytes()
    return _parse_op_tables(data, "bench_kernel/roofline/data/ops.json")


def aten_packet(torch: Any, name: str) -> Any:
    """``torch.ops.aten.<name>``; InputError naming ops.json if torch has no such op."""
    try:
        return getattr(torch.ops.aten, name)
    except (AttributeError, RuntimeError):
        raise InputError(f"bench_kernel/roofline/data/ops.json: torch {torch.__version__} has no aten op "
                         f"{name!r}; fix or remove that entry") from None


def _numel(shape: Any) -> int:
    if isinstance(shape, (list, tuple)) and shape and not isinstance(shape[0], int):
        shape = shape[0]  # a multi-output op: the first output
    return math.prod(shape) if shape is not None else 0


def _flop_formula(kind: str, k: int) -> Callable[..., int]:
    # Called by FlopCounterMode with every tensor replaced by its shape (shape_wrapper).
    if kind == "output":
        return lambda *args, out_shape=None, **kw: k * _numel(out_shape)
    if kind == "input":
        return lambda *args, out_shape=None, **kw: k * _numel(args[0])

    def attention(q: Any, key: Any, v: Any, *args: Any, out_shape: Any = None, **kw: Any) -> int:
        b, h, lq, d_qk = q
        return k * 2 * b * h * lq * key[-2] * (d_qk + v[-1])
    return attention


def _custom_flop_mapping(torch: Any) -> dict[Any, Callable[..., int]]:
    from torch.utils.flop_counter import flop_registry

    mapping = {}
    for name, (kind, k) in op_tables().flop_rules.items():
        packet = aten_packet(torch, name)
        if packet not in flop_registry:  # torch's own formula wins
            mapping[packet] = _flop_formula(kind, k)
    return mapping


def _tensors(tree: Any, torch: Any) -> list[Any]:
    from torch.utils._pytree import tree_leaves

    return [t for t in tree_leaves(tree) if isinstance(t, torch.Tensor)]


def _touched_bytes(t: Any) -> int:
    # A stride-0 dimension (broadcast / expand) revisits the same elements: it adds no bytes.
    if t.numel() == 0:
        return 0
    elems = math.prod(size for size, stride in zip(t.shape, t.stride()) if stride != 0)
    return elems * t.element_size()


class _Ledger:
    """Distinct views per storage, for reads or for writes."""

    def __init__(self) -> None:
        self.views: dict[int, dict[tuple, int]] = {}
        self.capacity: dict[int, int] = {}
        self._alive: list[Any] = []  # keep storages alive: a freed storage's address could be reused

    def record(self, t: Any) -> None:
        try:
            storage = t.untyped_storage()
            key, capacity = storage._cdata, storage.nbytes()
            self._alive.append(storage)
        except (RuntimeError, NotImplementedError, AttributeError):  # sparse / opaque tensors
            key, capacity = id(t), _touched_bytes(t)
            self._alive.append(t)
        view = (t.storage_offset(), tuple(t.shape), tuple(t.stride()), t.element_size())
        self.views.setdefault(key, {})[view] = _touched_bytes(t)
        self.capacity[key] = capacity

    def total(self) -> int:
        return sum(min(sum(v.values()), self.capacity[k]) for k, v in self.views.items())


def _byte_counter(torch: Any) -> Any:
    from torch.utils._python_dispatch import TorchDispatchMode

    tables = op_tables()

    class ByteCounter(TorchDispatchMode):
        def __init__(self) -> None:
            super().__init__()
            self.reads, self.writes = _Ledger(), _Ledger()

        def __torch_dispatch__(self, func: Any, types: Any, args: tuple = (), kwargs: dict | None = None) -> Any:
            kwargs = kwargs or {}
            out = func(*args, **kwargs)
            name = func._overloadpacket.__name__
            if func.is_view or name in tables.no_traffic:
                return out
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

    return ByteCounter()


def count(fn: Callable[..., Any], *inputs: Any, **kwargs: Any) -> Counts:
    """Run ``fn(*inputs, **kwargs)`` once and count its FLOPs and minimal bytes (module docstring).

    Runs on whatever device the inputs live on; pass ``device="meta"`` tensors to count shapes too
    large to run (nothing is computed or allocated). Counts are for that one call.
    """
    import torch
    from torch.utils.flop_counter import FlopCounterMode

    flop_mode = FlopCounterMode(display=False, custom_mapping=_custom_flop_mapping(torch))
    byte_mode = _byte_counter(torch)
    # The byte counter is entered last so it sees each op before FlopCounterMode may decompose it:
    # bytes are those of the op as the device runs it, not of its decomposition.
    with flop_mode, byte_mode:
        fn(*inputs, **kwargs)
    reads, writes = byte_mode.reads.total(), byte_mode.writes.total()
    return Counts(flops=int(flop_mode.get_total_flops()), bytes=reads + writes,
                  read_bytes=reads, write_bytes=writes)
