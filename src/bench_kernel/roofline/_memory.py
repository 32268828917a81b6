"""Per-element and data-movement ops: elementwise, reductions, norms, softmax, copies, gathers,
routing. ``k`` FLOPs per element (the op table's column), bytes of one unfused pass.

Elementwise ops write the broadcast of their tensor inputs (in the widest input dtype, or ``bool``
for comparisons); an op whose name ends in ``_`` writes its first argument in place. Reductions
write one value per kept row. Gathers (``embedding``, ``index_select``, ``gather``) read the rows
they gather, not the whole table. ``kv_cache`` ops write their new keys and values into the cache,
not the cache. ``rotary`` reads the cos/sin rows of the positions it rotates.
"""

from __future__ import annotations

import math
from typing import Any

from bench_kernel.dtypes import bits
from bench_kernel.roofline._opargs import TensorArg, nbytes, touched_bytes
from bench_kernel.roofline._optable import scalar_type
from bench_kernel.roofline._work import FormulaError, OpCall, Work, broadcast, formula, work

__all__: list[str] = []


def _k(call: OpCall) -> float:
    return call.row.k or 0.0


def _widest(tensors: list[TensorArg], hint: str | None) -> str | None:
    """The result dtype of an elementwise op: the widest dtype among its non-scalar tensors."""
    full = [t for t in tensors if t.shape] or tensors
    dtypes = [t.dtype for t in full if t.dtype] or ([hint] if hint else [])
    if not dtypes:
        return None
    floats = [d for d in dtypes if d.startswith(("fp", "bf"))]
    return max(floats or dtypes, key=bits)


def _x(call: OpCall) -> TensorArg:
    t = call.tensor("x", required=False)
    if t is None:  # the row names no x: the first tensor argument
        ts = call.tensors()
        if not ts:
            raise FormulaError("no tensor argument recorded")
        t = ts[0][1]
    return t


@formula("pointwise")
def pointwise(call: OpCall) -> Work:
    ts = [a for a in call.args if isinstance(a, TensorArg)]
    if not ts:
        raise FormulaError("no tensor argument recorded")
    out_shape = broadcast(*(t.shape for t in ts))
    n = math.prod(out_shape)
    result = call.row.word("result")
    dtype = _widest(ts, call.dtype_hint)
    out_dtype = result or dtype
    flops = int(_k(call) * n)
    in_place = call.op.endswith("_") and not call.op.endswith("__")
    if in_place:  # writes its first argument: read it (with the others) and write it back
        first = ts[0]
        nb = call.io_bytes()
        nb = None if nb is None or call.dtype(first) is None else nb + (nbytes(first, call.dtype(first)) or 0)
    else:
        nb = call.io_bytes([(n, out_dtype)])
    return work(call, flops, nb, dtype)


def _reduced(shape: tuple[int, ...], dim: Any, keepdim: bool) -> int:
    """Elements of the result of reducing ``shape`` over ``dim`` (None or out of range: everything)."""
    nd = len(shape)
    dims = dim if isinstance(dim, list) else ([dim] if isinstance(dim, int) and not isinstance(dim, bool) else None)
    if not dims or any(not (-nd <= d < nd) for d in dims):
        return 1
    keep = {d % nd for d in dims}
    return math.prod(1 if i in keep else s for i, s in enumerate(shape)) if nd else 1


@formula("reduction")
def reduction(call: OpCall) -> Work:
    x = _x(call)
    out = _reduced(x.shape, call.scalar("dim"), call.scalar("keepdim", False) is True)
    out_dtype = call.row.word("result") or call.dtype(x)
    return work(call, int(_k(call) * x.numel), call.io_bytes([(out, out_dtype)]), call.dtype(x))


@formula("scan")
def scan(call: OpCall) -> Work:
    x = _x(call)
    return work(call, int(_k(call) * x.numel), call.io_bytes([(x.numel, call.dtype(x))]), call.dtype(x))


@formula("norm")
def norm(call: OpCall) -> Work:
    """Normalisations: ``k`` FLOPs per element of ``x``; a new output like ``x`` unless the row
    names ``out``/``inout`` arguments (custom kernels write into buffers they are given)."""
    x = _x(call)
    new = [] if call.row.positions("out") or call.row.positions("inout") else [(x.numel, call.dtype(x))]
    return work(call, int(_k(call) * x.numel), call.io_bytes(new), call.dtype(x))


@formula("softmax")
def softmax(call: OpCall) -> Work:
    x = _x(call)
    out_dtype = "fp32" if call.scalar("half_to_float") is True else call.dtype(x)
    return work(call, int(_k(call) * x.numel), call.io_bytes([(x.numel, out_dtype)]), call.dtype(x))


@formula("args")
def args(call: OpCall) -> Work:
    """A fused custom kernel: ``k`` FLOPs per element of its ``x`` argument(s); bytes from the
    argument roles (``out`` written, ``inout`` read and written, the rest read)."""
    xs = [call.args[i] for i in call.row.positions("x") if i < len(call.args)] or [_x(call)]
    xs = [t for t in xs if isinstance(t, TensorArg)]
    if not xs:
        raise FormulaError("its input argument is not a recorded tensor")
    return work(call, int(_k(call) * sum(t.numel for t in xs)), call.io_bytes(), call.dtype(xs[0]))


@formula("copy")
def copy(call: OpCall) -> Work:
    src = call.tensor("src")
    assert src is not None
    dst = call.tensor("dst", required=False)
    if dst is not None:  # copy_(dst, src): reads src (broadcast once), writes all of dst
        d = call.dtype(dst)
        rb = touched_bytes(src, call.dtype(src))
        wb = nbytes(dst, d)
        return work(call, 0, None if rb is None or wb is None else rb + wb, d)
    out_dtype = scalar_type(call.scalar("dtype")) or call.dtype(src)
    return work(call, 0, call.io_bytes([(src.numel, out_dtype)]), out_dtype)


@formula("fill")
def fill(call: OpCall) -> Work:
    dst = call.tensor("dst", required=False)
    if dst is not None:
        return work(call, 0, nbytes(dst, call.dtype(dst)), call.dtype(dst))
    size = call.scalar("size")
    if not (isinstance(size, list) and all(isinstance(s, int) and s >= 0 for s in size)):
        raise FormulaError("its size is not recorded")
    dtype = scalar_type(call.scalar("dtype")) or "fp32"  # torch's default dtype when none is given
    return work(call, 0, nbytes(TensorArg(tuple(size), dtype)), dtype)


@formula("cat")
def cat(call: OpCall) -> Work:
    parts = call.value("list")
    if not isinstance(parts, list) or not parts or not all(isinstance(t, TensorArg) for t in parts):
        raise FormulaError("its tensor list is not recorded")
    recorded = next((t.dtype for t in parts if t.dtype), None)
    dtype = recorded or call.dtype_hint  # a hint sizes the elements; it is not shown as the dtype
    if dtype is None:
        return work(call, 0, None, None, reason="a tensor list's dtype is not recorded: bytes not counted")
    total = sum(t.numel for t in parts)
    read = sum(touched_bytes(t, dtype) or 0 for t in parts)
    return work(call, 0, read + (nbytes(TensorArg((total,), dtype)) or 0), recorded)


def _rows(call: OpCall, table: TensorArg, index: TensorArg, out_elems: int) -> Work:
    d = call.dtype(table)
    idx = touched_bytes(index, call.dtype(index) or "int64")
    moved = nbytes(TensorArg((out_elems,), d)) if d else None
    nb = None if moved is None or idx is None else idx + 2 * moved  # read the rows, write them out
    return work(call, 0, nb, d)


@formula("embedding")
def embedding(call: OpCall) -> Work:
    table, index = call.tensor("table"), call.tensor("index")
    assert table is not None and index is not None
    return _rows(call, table, index, index.numel * math.prod(table.shape[1:]))


@formula("index_select")
def index_select(call: OpCall) -> Work:
    table, index = call.tensor("table"), call.tensor("index")
    assert table is not None and index is not None
    dim = call.scalar("dim", 0)
    nd = len(table.shape)
    if not (isinstance(dim, int) and -nd <= dim < nd):
        raise FormulaError(f"dim {dim!r} out of range for shape {list(table.shape)}")
    rest = math.prod(s for i, s in enumerate(table.shape) if i != dim % nd)
    return _rows(call, table, index, index.numel * rest)


@formula("gather")
def gather(call: OpCall) -> Work:
    table, index = call.tensor("table"), call.tensor("index")
    assert table is not None and index is not None
    return _rows(call, table, index, index.numel)


@formula("index")
def index(call: OpCall) -> Work:
    """Advanced indexing ``x[i, j]``: 0 FLOPs; reads the indices and the rows they pick. The
    index tensors are a list of optional tensors, which traces do not record; a boolean mask picks
    a number of elements only the data knows."""
    table, indices = call.tensor("table"), call.value("index")
    assert table is not None
    if not isinstance(indices, list) or not indices:
        return work(call, 0, None, call.dtype(table), reason="its index tensors (a list of optional tensors) are "
                    "not recorded: bytes not counted")
    if any(t.dtype in ("bool", "uint8") for t in indices):
        return work(call, 0, None, call.dtype(table), reason="a boolean mask selects as many elements as the data "
                    "says: bytes not counted")
    picked = math.prod(broadcast(*(t.shape for t in indices)))
    return _rows(call, table, TensorArg((sum(t.numel for t in indices),), "int64"),
                 picked * math.prod(table.shape[len(indices):]))


@formula("topk")
def topk(call: OpCall) -> Work:
    """``k`` comparisons per input element; writes values and int64 indices."""
    x = _x(call)
    kk, dim = call.scalar("k"), call.scalar("dim", -1)
    nd = len(x.shape)
    if not (isinstance(kk, int) and kk >= 0 and isinstance(dim, int) and -nd <= dim < max(nd, 1)):
        raise FormulaError(f"k {kk!r} / dim {dim!r} not recorded or out of range")
    out = x.numel // max(x.shape[dim], 1) * kk if nd else kk
    return work(call, int(_k(call) * x.numel), call.io_bytes([(out, call.dtype(x)), (out, "int64")]),
                call.dtype(x))


@formula("sort")
def sort(call: OpCall) -> Work:
    """``n log2 n`` comparisons per sorted row; writes values and int64 indices."""
    x = _x(call)
    dim = call.scalar("dim", -1)
    nd = len(x.shape)
    dim = dim if isinstance(dim, int) and not isinstance(dim, bool) and -nd <= dim < max(nd, 1) else -1
    n = x.shape[dim] if nd else 1
    flops = int(x.numel * math.log2(n)) if n > 1 else 0
    return work(call, flops, call.io_bytes([(x.numel, call.dtype(x)), (x.numel, "int64")]), call.dtype(x))


@formula("kv_cache")
def kv_cache(call: OpCall) -> Work:
    """New keys and values written into a cache: read them (and the slot map), write as many."""
    srcs = [call.args[i] for i in call.row.positions("src") if i < len(call.args)]
    caches = [call.args[i] for i in call.row.positions("cache") if i < len(call.args)]
    if not all(isinstance(t, TensorArg) for t in srcs + caches) or len(srcs) != len(caches):
        raise FormulaError("keys, values and caches not recorded as tensors")
    written = [nbytes(s, c.dtype or call.dtype(s)) for s, c in zip(srcs, caches)]
    rest = call.io_bytes(skip=call.row.positions("cache"))
    nb = None if rest is None or None in written else rest + sum(written)  # type: ignore[arg-type]
    return work(call, 0, nb, call.dtype(srcs[0]))


@formula("rotary")
def rotary(call: OpCall) -> Work:
    """``rotary_embedding(positions, query!, key!, head_size, cos_sin_cache, is_neox)``: rotates the
    query and key in place, reading one cache row per position."""
    positions, cache = call.args[0], call.args[4] if len(call.args) > 4 else None
    qk = [t for t in call.args[1:3] if isinstance(t, TensorArg)]
    if not isinstance(positions, TensorArg) or not isinstance(cache, TensorArg) or not qk:
        raise FormulaError("positions, query and cos/sin cache not recorded as tensors")
    moved = [nbytes(t, call.dtype(t)) for t in qk]
    rows = nbytes(TensorArg((positions.numel * cache.shape[-1],), call.dtype(cache)))
    pos = nbytes(positions, positions.dtype or "int64")
    if None in moved or rows is None or pos is None:
        return work(call, None, None, None)
    return work(call, int(_k(call) * sum(t.numel for t in qk)), 2 * sum(moved) + rows + pos,  # type: ignore[arg-type]
                call.dtype(qk[0]))


@formula("scatter")
def scatter(call: OpCall) -> Work:
    """``scatter_add(self, dim, index, src)`` / ``index_add(self, dim, index, source)``: reads the
    index and the source, reads and writes as many elements of the target; 1 FLOP per added element."""
    target, index, src = (call.args[i] if i < len(call.args) else None for i in (0, 2, 3))
    if not all(isinstance(t, TensorArg) for t in (target, index, src)):
        raise FormulaError("target, index and source not recorded as tensors")
    d = call.dtype(target)  # type: ignore[arg-type]
    parts = [touched_bytes(index, index.dtype or "int64"), touched_bytes(src, call.dtype(src)),  # type: ignore
             nbytes(src, d), nbytes(src, d)]  # type: ignore[arg-type]
    in_place = call.op.endswith("_")
    if not in_place and d is not None:  # the out-of-place form copies the target first
        parts += [nbytes(target, d), nbytes(target, d)]  # type: ignore[arg-type]
    nb = None if None in parts else sum(parts)  # type: ignore[arg-type]
    return work(call, src.numel, nb, d)  # type: ignore[union-attr]


@formula("none")
def none(call: OpCall) -> Work:
    return work(call, None, None, None, reason=f"not countable from its arguments: {call.row.note}")
