"""The loaded trace: column tables plus the links kernel <- launch <- CPU op <- Python frames.

Links are computed on first use and cached, so ``inventory`` pays only for what it reads:
- kernel -> launch: the runtime/driver event with the same ``correlation`` (one id per launch;
  every kernel of a graph replay carries the id of its ``cudaGraphLaunch``/``hipGraphLaunch``);
- launch -> CPU op: the op with the launch's ``External id`` (else the kernel's), else the innermost
  ``cpu_op`` on the launch's thread whose interval contains the launch;
- launch -> Python stack: every ``python_function`` event on the launch's thread containing it.
"""

from __future__ import annotations

import re
from functools import cached_property
from pathlib import Path
from typing import Any, Iterator

import numpy as np

from bench_kernel.errors import TraceError
from bench_kernel.kernels import KernelName, decode, distinct_shorts
from bench_kernel.trace._columns import (
    AnnotationTable,
    CommTable,
    KernelTable,
    LaunchTable,
    MemopTable,
    OpTable,
    PythonTable,
)
from bench_kernel.trace._events import read_tables
from bench_kernel.trace._intervals import IntervalForest
from bench_kernel.trace._read import BLOCK_BYTES
from bench_kernel.trace._records import MODULE_PREFIX, Frame, KernelRecord, LaunchRecord, OpRecord, parse_frame
from bench_kernel.trace._tables import LAUNCH_KINDS, launch_apis, launch_kinds
from bench_kernel.userregex import UserRegex, user_regex

__all__ = ["Trace", "KernelTable", "LaunchTable", "OpTable", "AnnotationTable", "MemopTable", "PythonTable",
           "CommTable", "load_notes"]


def _opt(v: int) -> int | None:
    return None if v < 0 else int(v)


class _Lookup:
    """Find rows by an integer key (correlation, External id); -1 keys never match."""

    def __init__(self, keys: np.ndarray) -> None:
        self._order = np.argsort(keys, kind="stable")
        self._sorted = keys[self._order]

    def find(self, queries: np.ndarray) -> np.ndarray:
        """For each query, the index of the last row with that key, or -1."""
        if not len(self._order):
            return np.full(len(queries), -1, dtype=np.int64)
        pos = np.searchsorted(self._sorted, queries, side="right") - 1
        pos_c = np.clip(pos, 0, None)
        ok = (pos >= 0) & (queries >= 0) & (self._sorted[pos_c] == queries)
        return np.where(ok, self._order[pos_c], -1)


class Trace:
    """One rank's Kineto trace as columns, with lazily computed links and records.

    Kernels are ordered by start time; a kernel's *index* is its position in that order.
    """

    def __init__(self, *, path: Path, rank: int | None, metadata: dict[str, Any], names: list[str],
                 kernels: KernelTable, launches: LaunchTable, ops: OpTable, annotations: AnnotationTable,
                 memops: MemopTable, python: PythonTable, comms: CommTable, event_counts: dict[str, int],
                 event_total: int, links: bool, shapes: bool, stacks: bool,
                 load_notes: tuple[str, ...] = ()) -> None:
        order = np.argsort(kernels.start_us, kind="stable")
        self.path = path
        self.rank = rank
        #: Top-level keys of the trace other than traceEvents (deviceProperties, distributedInfo, ...).
        self.metadata = metadata
        #: Interned strings: every ``name`` column holds ids into this list.
        self.names = names
        self.kernels: KernelTable = kernels.take(order)
        self.launches = launches
        self.ops = ops
        self.annotations = annotations
        self.memops = memops.take(np.argsort(memops.start_us, kind="stable"))
        self.python = python
        #: Collective metadata (record_param_comms ops, NCCL kernels), in file order.
        self.comms = comms
        #: Events per ``cat`` as read from the file.
        self.event_counts = event_counts
        self.event_total = event_total
        #: False when loaded with ``links=False``: only kernels and memory operations were kept.
        self.links = links
        self.shapes = shapes
        self.stacks = stacks
        self._decoded: dict[int, KernelName] = {}
        #: What the loader left out, repaired or could not keep, one line each; every trace command
        #: shows these with its notes: unsaid, such events made totals silently wrong.
        self.load_notes = load_notes

    def __repr__(self) -> str:
        return f"Trace({str(self.path)!r}, kernels={len(self.kernels)}, events={self.event_total})"

    # -- names ------------------------------------------------------------------------------
    @property
    def kernel_count(self) -> int:
        return len(self.kernels)

    def decoded(self, name_id: int) -> KernelName:
        """``bench_kernel.kernels.decode`` of a name id (cached per trace), its ``short`` made distinct
        among the trace's kernels: names that share a short name get the fields that tell them apart
        (``bench_kernel.kernels.distinct_shorts``), so no table of one trace shows two
        kernels under one name."""
        d = self._decoded.get(name_id)
        if d is None:
            name = self.names[name_id]
            d = decode(name)
            short = self._distinct_shorts.get(name, d.short)
            if short != d.short:
                d = d.replace(short=short)
            self._decoded[name_id] = d
        return d

    @cached_property
    def _distinct_shorts(self) -> dict[str, str]:
        return distinct_shorts(self.names[i] for i in np.unique(self.kernels.name).tolist())

    @property
    def device_name(self) -> str | None:
        props = self.metadata.get("deviceProperties")
        if isinstance(props, list) and props and isinstance(props[0], dict):
            return props[0].get("name") or None
        return None

    # -- links ------------------------------------------------------------------------------
    @cached_property
    def backend(self) -> str:
        """``"hip"`` when the trace's launch APIs are ROCm's (``data/launch_apis.tsv``), else ``"cuda"``."""
        apis = launch_apis()
        used = {self.names[i] for i in np.unique(self.launches.name).tolist()} if len(self.launches) else set()
        return "hip" if any(apis.get(n, ("", ""))[1] == "hip" for n in used) else "cuda"

    @cached_property
    def launch_kind(self) -> np.ndarray:
        """Per launch: index into :data:`LAUNCH_KINDS`, or -1 for API calls not in the table."""
        table = launch_kinds()
        by_name = np.array([LAUNCH_KINDS.index(table[n]) if n in table else -1 for n in self.names] or [-1],
                           dtype=np.int8)
        return by_name[self.launches.name] if len(self.launches) else np.zeros(0, np.int8)

    @cached_property
    def kernel_launch(self) -> np.ndarray:
        """Per kernel: index of its launch event (same ``correlation``), or -1."""
        return _Lookup(self.launches.correlation).find(self.kernels.correlation)

    @cached_property
    def memop_launch(self) -> np.ndarray:
        """Per memcpy/memset: index of the host call that started it (same ``correlation``), or -1."""
        return _Lookup(self.launches.correlation).find(self.memops.correlation)

    @cached_property
    def graph_launched(self) -> np.ndarray:
        """Per kernel: True when it was replayed from a CUDA/HIP graph."""
        li = self.kernel_launch
        graph = LAUNCH_KINDS.index("graph")
        kinds = self.launch_kind[np.clip(li, 0, None)] if len(self.launches) else np.full(len(li), -1)
        return (li >= 0) & (kinds == graph)

    @cached_property
    def host_time_us(self) -> np.ndarray:
        """Per kernel: when the host launched it (its launch's start), else the kernel's own start."""
        li = self.kernel_launch
        if not len(self.launches):
            return self.kernels.start_us.copy()
        return np.where(li >= 0, self.launches.start_us[np.clip(li, 0, None)], self.kernels.start_us)

    @cached_property
    def _op_forest(self) -> IntervalForest:
        o = self.ops
        return IntervalForest(o.pid, o.tid, o.start_us, o.dur_us)

    @cached_property
    def kernel_op(self) -> np.ndarray:
        """Per kernel: index of the CPU op that launched it, or -1."""
        li = self.kernel_launch
        has = li >= 0
        lidx = np.clip(li, 0, None)
        ext = self.kernels.external_id.copy()
        if len(self.launches):
            ext = np.where(has & (self.launches.external_id[lidx] >= 0), self.launches.external_id[lidx], ext)
        out = self._ops_by_ext.find(ext)
        for i in np.flatnonzero((out < 0) & has):
            out[i] = self._enclosing_op(int(li[i]))
        return out

    @cached_property
    def _ops_by_ext(self) -> _Lookup:
        return _Lookup(self.ops.external_id)

    def _enclosing_op(self, j: int) -> int:
        L = self.launches
        return self._op_forest.innermost(L.pid[j], L.tid[j], float(L.start_us[j]))

    def launch_op(self, j: int) -> int:
        """Index of the CPU op of launch ``j`` (by ``External id``, else the enclosing op), or -1."""
        ext = int(self.launches.external_id[j])
        if ext >= 0:
            k = int(self._ops_by_ext.find(np.array([ext]))[0])
            if k >= 0:
                return k
        return self._enclosing_op(j)

    def launch_stack(self, j: int) -> tuple[Frame, ...]:
        """Python frames around launch ``j``, outermost first (loads stacks if needed)."""
        self.ensure_stacks()
        L = self.launches
        chain = self._py_forest.chain(L.pid[j], L.tid[j], float(L.start_us[j]))
        return tuple(parse_frame(self.names[self.python.name[k]]) for k in chain)

    def ensure_stacks(self) -> None:
        """Load every ``python_function`` event (re-reading the file once) if not loaded yet."""
        if self.stacks:
            return
        if not self.path.is_file():
            raise TraceError(f"{self.path} is not a regular file (a pipe?) and cannot be read twice; its Python "
                             "stacks are read in the first pass only when asked for (load_trace(..., stacks=True)), "
                             "or save the trace to a file first")
        full = read_tables(self.path, links=True, shapes=False, stacks=True, block_bytes=BLOCK_BYTES)
        remap = np.array([self._intern(n) for n in full.names] or [0], dtype=np.int32)
        py = full.python
        self.python = PythonTable(name=remap[py.name], start_us=py.start_us, dur_us=py.dur_us, pid=py.pid, tid=py.tid)
        self.stacks = True
        for cached in ("_py_forest", "_modules"):
            self.__dict__.pop(cached, None)

    def _intern(self, name: str) -> int:
        index = self.__dict__.setdefault("_name_index", {n: i for i, n in enumerate(self.names)})
        i = index.get(name)
        if i is None:
            i = index[name] = len(self.names)
            self.names.append(name)
        return i

    @cached_property
    def _py_forest(self) -> IntervalForest:
        p = self.python
        return IntervalForest(p.pid, p.tid, p.start_us, p.dur_us)

    # -- records ----------------------------------------------------------------------------
    def launch(self, j: int) -> LaunchRecord:
        """The launch event at index ``j`` of :attr:`launches`."""
        L = self.launches
        kind = int(self.launch_kind[j])
        kn = int(L.kernel_name[j])
        return LaunchRecord(self.names[L.name[j]], LAUNCH_KINDS[kind] if kind >= 0 else "unknown",
                            float(L.start_us[j]), float(L.dur_us[j]), int(L.pid[j]), int(L.tid[j]),
                            int(L.correlation[j]), _opt(L.external_id[j]), _opt(L.api_id[j]),
                            self.names[kn] if kn >= 0 else None)

    def op(self, k: int) -> OpRecord:
        """The CPU op at index ``k`` of :attr:`ops` (shapes only if loaded with ``shapes=True``)."""
        o = self.ops
        dims, types, concrete, strides = (None if col is None else col[k] for col in (
            o.input_dims, o.input_types, o.concrete_inputs, o.input_strides))
        return OpRecord(self.names[o.name[k]], float(o.start_us[k]), float(o.dur_us[k]), int(o.pid[k]),
                        int(o.tid[k]), _opt(o.external_id[k]), dims, types, concrete, strides)

    @cached_property
    def _modules(self) -> tuple[IntervalForest, np.ndarray]:
        """The forest of ``nn.Module:`` markers, and their rows in :attr:`python`."""
        p = self.python
        is_module = np.array([n.startswith(MODULE_PREFIX) for n in self.names] or [False], dtype=bool)
        rows = np.flatnonzero(is_module[p.name]) if len(p) else np.zeros(0, np.int64)
        return IntervalForest(p.pid[rows], p.tid[rows], p.start_us[rows], p.dur_us[rows]), rows

    def module_chain(self, i: int) -> tuple[int, ...]:
        """Ids (rows of :attr:`python`) of the ``nn.Module`` calls around kernel ``i``'s launch,
        outermost first; ``()`` without a launch or without module markers in the trace."""
        j = int(self.kernel_launch[i])
        if j < 0 or not self.links:
            return ()
        forest, rows = self._modules
        L = self.launches
        return tuple(int(rows[k]) for k in forest.chain(L.pid[j], L.tid[j], float(L.start_us[j])))

    def stack(self, i: int) -> tuple[Frame, ...]:
        """Python frames around kernel ``i``'s launch, outermost first (loads stacks if needed)."""
        j = int(self.kernel_launch[i])
        return self.launch_stack(j) if j >= 0 else ()

    def kernel(self, i: int, *, stack: bool = False) -> KernelRecord:
        """Kernel ``i`` (in start-time order) with its launch, op and, if asked, its Python stack."""
        K = self.kernels
        d = self.decoded(int(K.name[i]))
        j, k = int(self.kernel_launch[i]), int(self.kernel_op[i])
        grid = tuple(int(x) for x in K.grid[i]) if K.grid[i][0] >= 0 else None
        block = tuple(int(x) for x in K.block[i]) if K.block[i][0] >= 0 else None
        return KernelRecord(
            index=i, name=d.name, short=d.short, family=d.family, category=d.category,
            start_us=float(K.start_us[i]), dur_us=float(K.dur_us[i]), stream=int(K.stream[i]),
            device=int(K.device[i]), correlation=int(K.correlation[i]), grid=grid, block=block,  # type: ignore[arg-type]
            regs=_opt(K.regs[i]), smem_bytes=_opt(K.smem_bytes[i]), graph_launched=bool(self.graph_launched[i]),
            launch=self.launch(j) if j >= 0 else None, op=self.op(k) if k >= 0 else None,
            stack=self.stack(i) if stack else None)

    def find_kernels(self, pattern: str | re.Pattern[str] | UserRegex) -> np.ndarray:
        """Indices (start-time order) of the kernels whose raw or short name matches the regex ``pattern``
        (the one matching rule, ``_match.py``). A string is a user's regex: time-bounded
        (``bench_kernel.userregex``); a bad or runaway one raises :class:`~bench_kernel.errors.UsageError`."""
        from bench_kernel.trace._match import matching_kernel_names

        rx = user_regex(pattern, "find_kernels pattern") if isinstance(pattern, str) else pattern
        return np.flatnonzero(np.isin(self.kernels.name, matching_kernel_names(self, rx)))

    def iter_kernels(self, *, stack: bool = False) -> Iterator[KernelRecord]:
        """Every kernel as a :class:`KernelRecord`, in start-time order."""
        for i in range(len(self.kernels)):
            yield self.kernel(i, stack=stack)

    def kernel_categories(self) -> np.ndarray:
        """Per kernel: its category (from ``bench_kernel.kernels.decode``) as an object array."""
        ids = self.kernels.name
        uniq, inv = np.unique(ids, return_inverse=True)
        names: list[str] = [self.decoded(int(u)).category for u in uniq]
        cats = np.array(names or [""], dtype=object)
        return cats[inv] if len(ids) else np.zeros(0, dtype=object)


def load_notes(*traces: Trace) -> tuple[str, ...]:
    """What the loader left out or repaired in each trace (``Trace.load_notes``), named by file when
    there are several: every analysis carries these, so its tables and its JSON say them."""
    many = len(traces) > 1
    return tuple(f"{t.path.name}: {n}" if many else n for t in traces for n in t.load_notes)
