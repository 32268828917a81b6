"""Decode a Kineto trace file into column tables (``_columns``): the loader's engine, used by
``load_trace`` and by ``Trace.ensure_stacks`` (which re-reads a file for its Python frames).

Speed and memory come from three choices (measured in ``benchmarks/results/trace-speed.md``):
msgspec decodes each event into a typed Struct that declares only the fields we use (every other
key is skipped without building objects); the events array is decoded chunk by chunk
(``_read.EventReader``) so one chunk's objects are alive at a time; and names are interned into
integer ids so the columns are plain numpy arrays.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from itertools import chain, compress, repeat
from operator import attrgetter
from pathlib import Path
from types import GenericAlias
from typing import Any

import msgspec
import numpy as np
from numpy.typing import DTypeLike

from bench_kernel.trace._checks import EventScreen, drop_duplicates
from bench_kernel.trace._columns import (
    AnnotationTable,
    CommTable,
    KernelTable,
    LaunchTable,
    MemopTable,
    OpTable,
    PythonTable,
)
from bench_kernel.trace._read import EventReader
from bench_kernel.trace._records import MODULE_PREFIX
from bench_kernel.trace._tables import arg_fields

__all__ = ["Tables", "read_tables"]

# Event categories -> our tables. ROCm traces use the CUDA names; Kineto before PyTorch 1.10 wrote
# capitalised ones ("Kernel", "Runtime", "Operator", "Memcpy", "Memset").
_RUNTIME_CATS = ("cuda_runtime", "cuda_driver", "Runtime")
_ANNOTATION_CATS = ("user_annotation", "gpu_user_annotation")
_MEMOP_CATS = {"gpu_memcpy": 0, "gpu_memset": 1, "Memcpy": 0, "Memset": 1}
# Lenient on purpose: real traces disagree on types (MI300 runtime events write "bytes": "128"), so
# every scalar is accepted here and coerced when the column is built; a bad value becomes -1.
_PY_TYPE = {"int": int | float | str | None, "int3": Any, "str": Any}
_NO_RAW = msgspec.Raw(b"")


def _event_type(shapes: bool) -> type:
    """The msgspec Struct for one event, built from the Kineto arg map (``data/kineto_args.tsv``)."""
    spec: list[tuple[str, object, object]] = []  # (field, type, msgspec.field) as defstruct takes them
    for f in arg_fields():
        if f.group == "shapes" and not shapes:
            continue
        if f.group == "shapes":  # kept as raw JSON text: decoded once per distinct value (_Builder.shape_values)
            spec.append((f.field, msgspec.Raw, msgspec.field(default=_NO_RAW, name=f.key)))
            continue
        typ = _PY_TYPE.get(f.type, Any)
        spec.append((f.field, typ, msgspec.field(default=None, name=f.key)))
    args = msgspec.defstruct("Args", spec, gc=False)
    return msgspec.defstruct("Event", [
        ("cat", str, ""),
        ("name", str, ""),
        ("ph", str, "X"),
        ("pid", int | str, -1),
        ("tid", int | str, -1),
        ("ts", float, 0.0),
        ("dur", float, math.nan),  # NaN = missing: _checks.EventScreen leaves such events out
        ("args", args, msgspec.field(default_factory=args)),
    ], gc=False)


# -- column builders ----------------------------------------------------------------------------
# Every per-event pass below is a C-level map/compress over attrgetter: at ~3.5 M events per GB a
# Python-level loop costs about 0.1 us per event and field, which was a third of the load time.
_get = {k: attrgetter(k) for k in ("cat", "name", "ts", "dur", "pid", "tid", "args")}


def _field(objs: list, key: str) -> list:
    return list(map(attrgetter(key), objs))


def _ints(values: list) -> np.ndarray:
    """An int64 column; values that are not integers (None, "abc") become -1, numeric strings are read."""
    missing = values.count(None)
    if missing == len(values):  # a field this kind of trace never writes (regs on ROCm, cid on CUDA)
        return np.full(len(values), -1, dtype=np.int64)
    if missing:
        values = [-1 if v is None else v for v in values]
    try:
        return np.fromiter(values, np.int64, len(values))
    except (TypeError, ValueError, OverflowError):
        return np.array([_int_or_missing(v) for v in values], dtype=np.int64)


def _int_or_missing(v: Any) -> int:
    if type(v) is str and v.strip().isdigit():
        v = int(v)
    elif type(v) is float and v.is_integer():
        v = int(v)
    return v if type(v) is int and -(2**63) <= v < 2**63 else -1


def _floats(objs: list, key: str) -> np.ndarray:
    return np.fromiter(map(_get[key], objs), np.float64, len(objs))


def _int3(values: list) -> np.ndarray:
    """An (n, 3) int64 column of grid/block dims; anything but a list of 3 ints becomes (-1, -1, -1)."""
    n = len(values)
    try:
        if values.count(None) == 0:
            return np.fromiter(chain.from_iterable(values), np.int64, 3 * n).reshape(n, 3)
    except (TypeError, ValueError, OverflowError):
        pass
    ok = [tuple(v) if isinstance(v, list) and len(v) == 3 and all(type(x) is int for x in v) else (-1, -1, -1)
          for v in values]
    return np.array(ok, dtype=np.int64).reshape(n, 3)


class _Builder:
    """Accumulates per-chunk column pieces and interns names (name -> int id)."""

    def __init__(self, shapes: bool, stacks: bool, links: bool = True) -> None:
        self.shapes, self.stacks = shapes, stacks
        self.wanted = set(_TABLE_OF.values()) if links else {"kernel", "memop"}
        self.names: dict[str, int] = {}
        self.parts: dict[str, dict[str, list]] = {k: {} for k in
                                                  ("kernel", "launch", "op", "annotation", "memop", "python", "comm")}
        self.counts: dict[str, int] = {}
        self.shape_cache: dict[bytes, Any] = {}
        self.screen = EventScreen()

    def intern(self, names: list) -> np.ndarray:
        """Ids of ``names`` (None -> -1), adding new names to the table."""
        table = self.names
        for n in dict.fromkeys(names):  # the unique names, in order: few per chunk
            if n is not None and n not in table:
                table[n] = len(table)
        return np.fromiter(map(table.get, names, repeat(-1)), np.int32, len(names))

    def shape_values(self, raws: list) -> np.ndarray:
        """An object column of recorded shapes/types/scalars (lists as tuples), from raw JSON.

        The same few values repeat across a trace's ops (every layer, every step): each distinct
        text is decoded once and its value shared, which keeps a 1 GB trace's shapes in memory and
        time bounded (decoding every op's lists one by one took ~5x the rest of the load).
        """
        cache = self.shape_cache
        out = np.empty(len(raws), dtype=object)
        values = []
        for r in map(bytes, raws):
            v = cache.get(r, cache)
            if v is cache:
                try:
                    v = _freeze(msgspec.json.decode(r)) if r else None
                except msgspec.DecodeError:
                    v = None
                cache[r] = v
            values.append(v)
        out[:] = values
        return out

    def put(self, table: str, **cols: Any) -> None:
        store = self.parts[table]
        for k, v in cols.items():
            store.setdefault(k, []).append(v)

    def common(self, evs: list) -> dict[str, np.ndarray]:
        screened = self.screen.durations  # the screen read these events' durations already
        dur = screened[1] if screened is not None and screened[0] is evs else _floats(evs, "dur")
        return {"name": self.intern(_field(evs, "name")), "start_us": _floats(evs, "ts"), "dur_us": dur}

    def absorb(self, events: list) -> None:
        # A plain loop beats numpy/compress bucketing here: one dict lookup and append per event.
        buckets: dict[str, list] = {}
        for e in events:
            b = buckets.get(e.cat)
            if b is None:
                b = buckets[e.cat] = []
            b.append(e)
        for cat, evs in buckets.items():
            self.counts[cat] = self.counts.get(cat, 0) + len(evs)
            table = _TABLE_OF.get(cat)
            if table in self.wanted:
                evs = evs if table == "python" else self.screen.screen(table, evs)
                if evs:
                    getattr(self, "_" + table)(evs, cat)
        # Keep no event of this chunk: their raw shapes view the reader's buffer, which is then freed
        # or reused at once instead of copied (the screen's last list once kept the buffer alive).
        self.screen.durations = None

    def _kernel(self, evs: list, cat: str) -> None:
        a = _field(evs, "args")
        self._comms(evs, a, on_kernel=True)
        self.put("kernel", **self.common(evs), stream=_ints(_field(a, "stream")),
                 device=_ints(_field(a, "device")), correlation=_ints(_field(a, "correlation")),
                 external_id=_ints(_field(a, "external_id")), grid=_int3(_field(a, "grid")),
                 block=_int3(_field(a, "block")), regs=_ints(_field(a, "regs")),
                 smem_bytes=_ints(_field(a, "smem_bytes")))

    def _launch(self, evs: list, cat: str) -> None:
        a = _field(evs, "args")
        kernel_names = [k if type(k) is str else None for k in _field(a, "kernel_name")]
        cbid, cid = _ints(_field(a, "cbid")), _ints(_field(a, "cid"))
        self.put("launch", **self.common(evs), pid=_ints(_field(evs, "pid")), tid=_ints(_field(evs, "tid")),
                 correlation=_ints(_field(a, "correlation")), external_id=_ints(_field(a, "external_id")),
                 api_id=np.where(cbid >= 0, cbid, cid), kernel_name=self.intern(kernel_names))

    def _op(self, evs: list, cat: str) -> None:
        a = _field(evs, "args")
        self._comms(evs, a, on_kernel=False)
        cols = dict(self.common(evs), pid=_ints(_field(evs, "pid")), tid=_ints(_field(evs, "tid")),
                    external_id=_ints(_field(a, "external_id")))
        if self.shapes:
            for key in ("input_dims", "input_types", "concrete_inputs", "input_strides"):
                cols[key] = self.shape_values(_field(a, key))
        self.put("op", **cols)

    def _comms(self, evs: list, a: list, on_kernel: bool) -> None:
        """Keep the few events that carry collective metadata (one C-level pass to find them)."""
        has = [c is not None for c in _field(a, "collective")]
        if not any(has):
            return
        evs, a = list(compress(evs, has)), list(compress(a, has))
        ranks = [r if r is None or type(r) is str else ", ".join(map(str, r)).join("[]") if isinstance(r, list)
                 else str(r) for r in _field(a, "pg_ranks")]
        strs = {k: self.intern([v if type(v) is str else None for v in _field(a, k)])
                for k in ("collective", "comm_dtype", "pg_name", "pg_desc")}
        self.put("comm", **self.common(evs), pid=_ints(_field(evs, "pid")), tid=_ints(_field(evs, "tid")),
                 on_kernel=np.full(len(evs), on_kernel), correlation=_ints(_field(a, "correlation")),
                 external_id=_ints(_field(a, "external_id")), in_msg_nelems=_ints(_field(a, "in_msg_nelems")),
                 out_msg_nelems=_ints(_field(a, "out_msg_nelems")), group_size=_ints(_field(a, "group_size")),
                 pg_ranks=self.intern(ranks), **strs)

    def _annotation(self, evs: list, cat: str) -> None:
        self.put("annotation", **self.common(evs), pid=_ints(_field(evs, "pid")), tid=_ints(_field(evs, "tid")),
                 gpu=np.full(len(evs), cat == "gpu_user_annotation"))

    def _memop(self, evs: list, cat: str) -> None:
        a = _field(evs, "args")
        self.put("memop", **self.common(evs), stream=_ints(_field(a, "stream")), device=_ints(_field(a, "device")),
                 correlation=_ints(_field(a, "correlation")), bytes=_ints(_field(a, "bytes")),
                 kind=np.full(len(evs), _MEMOP_CATS[cat], np.int8))

    def _python(self, evs: list, cat: str) -> None:
        if not self.stacks:
            # Module markers are few and find steps (model_module rule); the rest wait for stacks=True.
            names = _field(evs, "name")
            modules = {n for n in dict.fromkeys(names) if n.startswith(MODULE_PREFIX)}
            evs = list(compress(evs, map(modules.__contains__, names)))
        evs = self.screen.screen("python", evs)  # after the filter: most python events are not kept
        self.put("python", **self.common(evs), pid=_ints(_field(evs, "pid")), tid=_ints(_field(evs, "tid")))

    def column(self, table: str, key: str, dtype: DTypeLike, shape: tuple[int, ...] = ()) -> np.ndarray:
        pieces = self.parts[table].get(key)
        if not pieces:
            return np.zeros((0, *shape), dtype=dtype)
        return np.concatenate(pieces)


_TABLE_OF = {"kernel": "kernel", "Kernel": "kernel", "cpu_op": "op", "Operator": "op", "python_function": "python",
             **{c: "launch" for c in _RUNTIME_CATS}, **{c: "annotation" for c in _ANNOTATION_CATS},
             **{c: "memop" for c in _MEMOP_CATS}}


def _freeze(v: Any) -> Any:
    return tuple(_freeze(x) for x in v) if isinstance(v, list) else v


def _build(b: _Builder, cls: type, table: str, spec: dict[str, _ColumnSpec]) -> Any:
    cols = {k: b.column(table, k, dt, shape) for k, (dt, shape) in spec.items()}
    return cls(**cols)


_ColumnSpec = tuple[DTypeLike, tuple[int, ...]]  # a column's dtype and the shape of one row's value
_F: _ColumnSpec = (np.float64, ())
_I: _ColumnSpec = (np.int64, ())
_N: _ColumnSpec = (np.int32, ())
_BASE: dict[str, _ColumnSpec] = {"name": _N, "start_us": _F, "dur_us": _F}


@dataclass(frozen=True)
class Tables:
    """Everything one read of a trace file gives: interned names, one table per event kind, the
    counts and the document's metadata, and what was left out or repaired (one note each)."""

    names: list[str]
    kernels: KernelTable
    launches: LaunchTable
    ops: OpTable
    annotations: AnnotationTable
    memops: MemopTable
    python: PythonTable
    comms: CommTable
    event_counts: dict[str, int]
    event_total: int
    metadata: dict[str, Any]
    notes: tuple[str, ...]


def read_tables(file: Path, *, links: bool, shapes: bool, stacks: bool, block_bytes: int) -> Tables:
    """Read ``file`` once into :class:`Tables` (see ``load_trace`` for the options)."""
    # list[event] built as what that expression makes: the event type exists only at run time, and a
    # type checker reads list[...] as a type
    decoder = msgspec.json.Decoder(GenericAlias(list, (_event_type(shapes),)))
    reader = EventReader(file, decoder.decode, block_bytes=block_bytes)
    b = _Builder(shapes, stacks, links)
    for chunk in reader:
        b.absorb(chunk)
        del chunk  # free this chunk's event objects before the next one is decoded
    b.screen.finish()
    names = [""] * len(b.names)
    for n, i in b.names.items():
        names[i] = n
    kernels = _build(b, KernelTable, "kernel", dict(_BASE, stream=_I, device=_I, correlation=_I, external_id=_I,
                                                    grid=(np.int64, (3,)), block=(np.int64, (3,)), regs=_I,
                                                    smem_bytes=_I))
    launches = _build(b, LaunchTable, "launch", dict(_BASE, pid=_I, tid=_I, correlation=_I, external_id=_I,
                                                     api_id=_I, kernel_name=_N))
    op_spec: dict[str, _ColumnSpec] = dict(_BASE, pid=_I, tid=_I, external_id=_I)
    if shapes:
        op_spec.update(input_dims=(object, ()), input_types=(object, ()), concrete_inputs=(object, ()),
                       input_strides=(object, ()))
    ops = _build(b, OpTable, "op", op_spec)
    annotations = _build(b, AnnotationTable, "annotation", dict(_BASE, pid=_I, tid=_I, gpu=(np.bool_, ())))
    memops = _build(b, MemopTable, "memop", dict(_BASE, stream=_I, device=_I, correlation=_I, bytes=_I,
                                                 kind=(np.int8, ())))
    python = _build(b, PythonTable, "python", dict(_BASE, pid=_I, tid=_I))
    comms = _build(b, CommTable, "comm", dict(_BASE, pid=_I, tid=_I, on_kernel=(np.bool_, ()), correlation=_I,
                                              external_id=_I, collective=_N, in_msg_nelems=_I, out_msg_nelems=_I,
                                              group_size=_I, comm_dtype=_N, pg_name=_N, pg_desc=_N, pg_ranks=_N))
    kernels, b.screen.duplicates["kernel"] = drop_duplicates(kernels)
    memops, b.screen.duplicates["memcpy/memset"] = drop_duplicates(memops)
    notes = tuple(reader.notes) + ((b.screen.note,) if b.screen.note else ())
    return Tables(names, kernels, launches, ops, annotations, memops, python, comms, dict(b.counts), reader.count,
                  reader.metadata, notes)
