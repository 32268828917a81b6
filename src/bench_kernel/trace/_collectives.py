"""Collectives: each NCCL/RCCL (or custom all-reduce) kernel with its collective, message size, dtype,
group size, and the algorithm and bus bandwidth nccl-tests would report for it.

Where the metadata comes from, best first (``CollectiveCall.metadata`` says which):
1. ``kernel``: the kernel event's own args (PyTorch >= ~2.4 copies ``Collective name``, ``In msg
   nelems``, ``Group size``, ``dtype``, ``Process Group Name`` onto NCCL kernels);
2. ``record_param_comms``: the CPU op PyTorch's c10d wraps around every collective, linked by the
   launch's ``External id``, else the one enclosing the launch on its thread;
3. ``op_shapes``: for an all-reduce, broadcast or reduce (input and output are one buffer) launched by
   a CPU op whose shapes were recorded and loaded (``load_trace(shapes=True)``), such as
   ``symm_mem::multimem_all_reduce_``: its first input's elements and dtype; the group size is unknown;
4. ``name``: only the collective (and dtype) decoded from the kernel name -- no message size, so no
   bandwidth. ``ncclDevKernel_Generic`` names nothing: its collective is ``unknown``.

Bandwidths follow nccl-tests (doc/PERFORMANCE.md): algbw = S / t, busbw = algbw x factor(n), with S,
the factor and n as described in ``data/collectives.tsv``. t is the kernel's duration on this rank,
which includes waiting for late peers: on one rank's trace a low busbw may be a straggler elsewhere,
not a slow link (the multi-rank report separates the two).
"""

from __future__ import annotations

import math

import numpy as np

from bench_kernel.dtypes import bits, lookup
from bench_kernel.records import CollectiveCall, CollectiveGroup, Collectives, MetadataSource
from bench_kernel.trace._intervals import IntervalForest
from bench_kernel.trace._tables import Collective, collectives
from bench_kernel.trace._trace import Trace

__all__ = ["CollectiveCall", "CollectiveGroup", "Collectives", "collective_calls", "communication_mask",
           "collective_of"]

#: The process-group key of collectives whose trace names none.
NO_GROUP = "?"


def collective_of(*names: str | None) -> Collective | None:
    """The first row of ``data/collectives.tsv`` matching the first name that any row matches."""
    for n in names:
        if not n:
            continue
        for c in collectives():
            if c.match.search(n):
                return c
    return None


def communication_mask(trace: Trace) -> np.ndarray:
    """Per kernel: True for communication (its category, or collective metadata on the kernel itself)."""
    mask = trace.kernel_categories() == "communication"
    C = trace.comms
    rows = np.flatnonzero(C.on_kernel)
    if len(rows):
        keys = set(zip(C.correlation[rows].tolist(), C.start_us[rows].tolist()))
        K = trace.kernels
        mask |= np.fromiter((k in keys for k in zip(K.correlation.tolist(), K.start_us.tolist())), bool, len(K))
    return mask


def _opt(v: int) -> int | None:
    return None if v < 0 else int(v)


class _Metadata:
    """Finds the comms row (``Trace.comms``) of a communication kernel."""

    def __init__(self, trace: Trace) -> None:
        self.t = trace
        C = trace.comms
        on_k = np.flatnonzero(C.on_kernel)
        self.by_kernel = {k: int(r) for k, r in zip(zip(C.correlation[on_k].tolist(), C.start_us[on_k].tolist()), on_k)}
        self.ops = np.flatnonzero(~C.on_kernel)
        self.by_ext = {int(C.external_id[r]): int(r) for r in self.ops if C.external_id[r] >= 0}
        self.forest = IntervalForest(C.pid[self.ops], C.tid[self.ops], C.start_us[self.ops], C.dur_us[self.ops])

    def row(self, i: int) -> tuple[int, MetadataSource]:
        t, K = self.t, self.t.kernels
        r = self.by_kernel.get((int(K.correlation[i]), float(K.start_us[i])))
        if r is not None:
            return r, "kernel"
        j = int(t.kernel_launch[i])
        if j >= 0 and t.links:
            L = t.launches
            for ext in (int(L.external_id[j]), int(K.external_id[i])):
                if ext in self.by_ext:
                    return self.by_ext[ext], "record_param_comms"
            k = self.forest.innermost(L.pid[j], L.tid[j], float(L.start_us[j]))
            if k >= 0:
                return int(self.ops[k]), "record_param_comms"
        elif int(K.external_id[i]) in self.by_ext:
            return self.by_ext[int(K.external_id[i])], "record_param_comms"
        return -1, "name"


def _group_sizes(trace: Trace) -> dict[str, int]:
    """Process group name -> size from the trace's ``distributedInfo.pg_config``."""
    info = trace.metadata.get("distributedInfo")
    out: dict[str, int] = {}
    if isinstance(info, dict) and isinstance(info.get("pg_config"), list):
        for pg in info["pg_config"]:
            if isinstance(pg, dict) and isinstance(pg.get("pg_size"), int):
                out[str(pg.get("pg_name"))] = pg["pg_size"]
    return out


#: Collectives whose input and output are the same size, so an op's input tensor gives the message.
_ONE_BUFFER = ("all_reduce", "broadcast", "reduce")


def _op_input(trace: Trace, i: int) -> tuple[int, str] | None:
    """(elements, dtype) of the first input of kernel ``i``'s CPU op, when its shapes were loaded."""
    k = int(trace.kernel_op[i]) if trace.links else -1
    o = trace.ops
    if k < 0 or o.input_dims is None or o.input_types is None:
        return None
    dims, types = o.input_dims[k], o.input_types[k]
    if not (isinstance(dims, tuple) and dims and isinstance(dims[0], tuple) and isinstance(types, tuple) and types
            and isinstance(types[0], str) and all(type(x) is int for x in dims[0])):
        return None
    return math.prod(dims[0]), types[0]


def _call(trace: Trace, i: int, r: int, source: MetadataSource, pg_sizes: dict[str, int], seq: int, pg: str) -> CollectiveCall:
    K, C = trace.kernels, trace.comms
    d = trace.decoded(int(K.name[i]))
    if r >= 0:
        name = trace.names[C.collective[r]] if C.collective[r] >= 0 else None
        coll = collective_of(name, d.fields.get("collective"), d.name)
        dtype = trace.names[C.comm_dtype[r]] if C.comm_dtype[r] >= 0 else None
        n_in, n_out, n = _opt(C.in_msg_nelems[r]), _opt(C.out_msg_nelems[r]), _opt(C.group_size[r])
    else:
        coll = collective_of(d.fields.get("collective"), d.name)
        dtype = d.fields.get("dtype") if isinstance(d.fields.get("dtype"), str) else None
        n_in = n_out = n = None
        if coll is not None and coll.name in _ONE_BUFFER:
            shaped = _op_input(trace, i)
            if shaped is not None:
                (n_in, dtype), source = shaped, "op_shapes"
                n_out = n_in
    n = n if n is not None else pg_sizes.get(pg)
    # Kineto writes c10 names (BFloat16, Long); the one vocabulary (bench_kernel.dtypes) says bf16, int64.
    # NCCL kernel-name spellings it does not know (f32) stay as written, with no size.
    known = lookup(dtype) if dtype else None
    dtype = known or dtype
    size = bits(known) // 8 if known and bits(known) >= 8 else None
    nelems = max((x for x in (n_in, n_out) if x is not None), default=None)
    msg = nelems * size if nelems is not None and size is not None else None
    dur = float(K.dur_us[i])
    algbw = msg / dur / 1e3 if msg is not None and dur > 0 else None  # bytes/us -> GB/s
    factor = coll.busbw_factor(n) if coll is not None and n is not None else None
    return CollectiveCall(i, d.short, coll.name if coll else "unknown", source, dtype, n_in, n_out, msg, n, pg, seq,
                          float(K.start_us[i]), dur, int(K.stream[i]), algbw,
                          algbw * factor if algbw is not None and factor is not None else None)


def collective_calls(trace: Trace) -> Collectives:
    """Every communication kernel of ``trace`` with its collective, size and bandwidths, and the sums."""
    idx = np.flatnonzero(communication_mask(trace))
    meta = _Metadata(trace)
    pg_sizes = _group_sizes(trace)
    C = trace.comms
    calls: list[CollectiveCall] = []
    seqs: dict[str, int] = {}
    for i in idx.tolist():  # kernels are in start order, so seq counts arrivals in order
        r, source = meta.row(i)
        pg = trace.names[C.pg_name[r]] if r >= 0 and C.pg_name[r] >= 0 else NO_GROUP
        seq = seqs.get(pg, 0)
        seqs[pg] = seq + 1
        calls.append(_call(trace, i, r, source, pg_sizes, seq, pg))
    notes = []
    unsized = sum(c.msg_bytes is None for c in calls)
    if unsized:
        notes.append(f"{unsized} of {len(calls)} communication kernels have no recorded message size (no "
                     f"record_param_comms or kernel metadata): no bandwidth for them")
    groups = _groups(calls)
    total = float(sum(c.dur_us for c in calls))
    assert math.isclose(sum(g.total_us for g in groups), total, rel_tol=1e-9, abs_tol=1e-6)
    return Collectives(total_us=total, total_bytes=int(sum(c.msg_bytes or 0 for c in calls)), notes=tuple(notes),
                       groups=groups, calls=tuple(calls))


def _groups(calls: list[CollectiveCall]) -> tuple[CollectiveGroup, ...]:
    by: dict[tuple, list[CollectiveCall]] = {}
    for c in calls:
        by.setdefault((c.collective, c.dtype, c.msg_bytes, c.group_size), []).append(c)
    out = []
    for (coll, dtype, msg, n), cs in by.items():
        durs = [c.dur_us for c in cs]
        total = float(sum(durs))
        algbw = msg * len(cs) / total / 1e3 if msg is not None and total > 0 else None
        ratio = cs[0].busbw_gbps / cs[0].algbw_gbps if cs[0].busbw_gbps is not None and cs[0].algbw_gbps else None
        out.append(CollectiveGroup(coll, dtype, msg, n, len(cs), total, total / len(cs), min(durs), max(durs), algbw,
                                   algbw * ratio if algbw is not None and ratio is not None else None))
    out.sort(key=lambda g: (-g.total_us, g.collective))
    return tuple(out)
