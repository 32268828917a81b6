"""What the readers of other profilers' outputs share: the trace they return, the columns they build,
how they name annotation ranges, and the one-line refusal when a format lacks what a command needs.

Nsight Systems (``_nsys.py``) and rocprofv3 (``_rocprof.py``) are read into the same column tables as
a Kineto trace, so every analysis runs unchanged. What maps where:

- kernels, memcpy/memset and the host API calls that launched them (one correlation id links a
  kernel to its launch, as in Kineto);
- annotation ranges (NVTX, ROCTx) are user annotations, where the step rules (``ProfilerStep#N``,
  engine steps, a ``--steps`` file) find them; by their text, ``nn.Module: X`` ranges are also
  module markers (the python table, as Kineto's ``with_modules`` writes them) and ranges named like
  an operator (``aten::mm``, what ``torch.autograd.profiler.emit_nvtx`` pushes; ``Class::method``)
  are also CPU ops, the innermost one around a launch being its op.

emit_nvtx appends ``, seq = N``, ``, op_id = N``, ``, sizes = [...]`` and ``, input_op_ids = [...]``
to an op's name (``getNvtxStr`` in PyTorch's ``torch/csrc/profiler/util.cpp``); that suffix is cut
so ``aten::linear, seq = 3, sizes = [[2, 64], [64, 64]]`` is the op ``aten::linear``, and a
``record_function("ProfilerStep#2")`` range is the step ``ProfilerStep#2``. The sizes carry no
dtypes, so they are not kept as shapes (``ops`` needs both).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from bench_kernel.errors import TraceError
from bench_kernel.trace._records import MODULE_PREFIX, Frame
from bench_kernel.trace._trace import (
    AnnotationTable,
    CommTable,
    KernelTable,
    LaunchTable,
    MemopTable,
    OpTable,
    PythonTable,
    Trace,
)

__all__ = ["ForeignTrace", "TraceBuilder", "range_kind", "require_data", "split_global_tid"]

#: What a command may need that a format does not record -> (what it is, how to get a trace that has it).
_NEEDS = {
    "shapes": ("the input shapes and dtypes of each op",
               "record a Kineto trace with torch.profiler.profile(record_shapes=True) (bench-kernel profile does)"),
    "stacks": ("the Python stack of each launch",
               "record a Kineto trace with torch.profiler.profile(with_stack=True) (bench-kernel profile does)"),
}

# emit_nvtx's suffixes, in the order getNvtxStr writes them; the first one found must start a
# suffix that runs to the end of the text, else the text is a user's name that contains ", seq = ".
_SUFFIX_START = re.compile(r", (?:seq = \d|op_id = \d|sizes = \[|input_op_ids = \[)")
_SUFFIX = re.compile(r"(?:, seq = \d+)?(?:, op_id = \d+)?(?:, sizes = \[[\[\]\d, ]*\])?(?:, input_op_ids = \[.*\])?",
                     re.DOTALL)
# The lookbehind keeps a search linear (one start per word; tests/hostile/test_kernel_names.py).
_OP_NAME = re.compile(r"(?<![\w.])[A-Za-z_][\w.]*::[\w.]+")


def range_kind(text: str) -> tuple[str, str]:
    """(``module`` | ``op`` | ``annotation``, name) of an NVTX/ROCTx range's text (module docstring)."""
    m = _SUFFIX_START.search(text)
    if m is not None and _SUFFIX.fullmatch(text, m.start()):
        text = text[:m.start()]
    if text.startswith(MODULE_PREFIX):
        return "module", text
    if _OP_NAME.fullmatch(text):
        return "op", text
    return "annotation", text


def split_global_tid(gtid: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(pid, tid) of Nsight Systems' serialized global thread ids: bits 24-47 and 0-23 ("Serialized
    process and thread identifiers" in the Nsight Systems export documentation)."""
    g = gtid.astype(np.int64)
    return (g >> 24) & 0xFFFFFF, g & 0xFFFFFF


class ForeignTrace(Trace):
    """A trace read from another profiler's output: the same tables, plus what the format lacks.

    Python stacks are never there: asking for one (``stack``, ``launch_stack``) raises one line
    naming the format and the fix instead of returning an empty stack.
    """

    def __init__(self, *, source: str, lacks: Iterable[str], backend: str, **tables: Any) -> None:
        super().__init__(**tables)
        #: The format, as a message names it ("an Nsight Systems export").
        self.source = source
        #: What the format does not record: keys of ``_NEEDS`` ("shapes", "stacks").
        self.lacks = frozenset(lacks)
        self._backend = backend

    @property
    def backend(self) -> str:
        """``cuda`` or ``hip``: from the format itself (a kernel trace without API calls has no launches)."""
        return self._backend

    def missing(self, what: str, command: str) -> str:
        needs, fix = _NEEDS[what]
        return f"{self.path.name}: {command} needs {needs}, and {self.source} does not record it: {fix}"

    def ensure_stacks(self) -> None:
        raise TraceError(self.missing("stacks", "a source trace or a graph attribution"))

    def launch_stack(self, j: int) -> tuple[Frame, ...]:
        self.ensure_stacks()
        return ()

    def stack(self, i: int) -> tuple[Frame, ...]:
        self.ensure_stacks()
        return ()


def require_data(trace: Trace, what: str, command: str) -> None:
    """Raise :class:`TraceError` (one line: the command, what it needs, the fix) when ``trace`` is of
    a format that does not record ``what`` (``shapes`` or ``stacks``)."""
    if isinstance(trace, ForeignTrace) and what in trace.lacks:
        raise TraceError(trace.missing(what, command))


def _i64(values: Any) -> np.ndarray:
    """An int64 column; missing values (None, '', non-numbers) become -1."""
    try:
        return np.asarray(values, dtype=np.int64).reshape(-1)
    except (TypeError, ValueError, OverflowError):
        return np.array([_int_or_missing(v) for v in values], dtype=np.int64)


def _int_or_missing(v: Any) -> int:
    if isinstance(v, str):
        v = v.strip()
        return int(v) if v.lstrip("-").isdigit() else -1
    if isinstance(v, float) and v.is_integer():
        return int(v)
    return v if isinstance(v, int) and not isinstance(v, bool) and -(2**63) <= v < 2**63 else -1


#: Row names: one string per row, or (codes, code -> string) as nsys' StringIds ids.
Names = Sequence[str | None] | tuple[np.ndarray, Mapping[int, str]]


class TraceBuilder:
    """Columns of one trace, filled table by table from integer-nanosecond intervals.

    Times are converted to microseconds once, here (``dur_us`` from the integer difference, so a
    duration is exact). Rows whose end precedes their start are left out and counted in ``notes``.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self.names: dict[str, int] = {}
        self.parts: dict[str, dict[str, list[np.ndarray]]] = {}
        self.counts: dict[str, int] = {}
        self.notes: list[str] = []

    def ids(self, names: Sequence[str | None]) -> np.ndarray:
        table = self.names
        for n in dict.fromkeys(names):
            if n is not None and n not in table:
                table[n] = len(table)
        return np.fromiter((table.get(n, -1) if n is not None else -1 for n in names), np.int32, len(names))

    def _timed(self, table: str, category: str, names: Names, start_ns: Any, end_ns: Any,
               cols: dict[str, Any], count: bool = True) -> None:
        start, end = _i64(start_ns), _i64(end_ns)
        ok = (end >= start) & (start >= 0)
        if count:
            self.counts[category] = self.counts.get(category, 0) + len(start)
        if count and not ok.all():
            self.notes.append(f"{int((~ok).sum())} {category} rows without a valid start and end left out")
        keep = np.flatnonzero(ok)
        if isinstance(names, tuple):  # (codes, strings): each distinct code is looked up and interned once
            codes, strings = names
            uniq, inverse = np.unique(np.asarray(codes, np.int64)[keep], return_inverse=True)
            named = self.ids([strings.get(u, f"<name #{u}>") for u in uniq.tolist()])[inverse.reshape(-1)]
        else:
            named = self.ids([names[i] for i in keep.tolist()])
        store = self.parts.setdefault(table, {})
        store.setdefault("name", []).append(named)
        store.setdefault("start_us", []).append(start[keep] / 1e3)
        store.setdefault("dur_us", []).append((end[keep] - start[keep]) / 1e3)
        for k, v in cols.items():
            arr = np.asarray(v) if k in ("grid", "block", "gpu", "kind") else _i64(v)
            store.setdefault(k, []).append(arr[keep])

    def kernels(self, names: Names, start_ns: Any, end_ns: Any, *, stream: Any, device: Any,
                correlation: Any, grid: np.ndarray, block: np.ndarray, regs: Any, smem_bytes: Any,
                category: str = "kernel") -> None:
        """One row per kernel execution; ``grid``/``block`` are (n, 3) arrays (-1 where unknown)."""
        self._timed("kernel", category, names, start_ns, end_ns, dict(
            stream=stream, device=device, correlation=correlation, external_id=np.full(len(start_ns), -1),
            grid=np.asarray(grid, np.int64).reshape(-1, 3), block=np.asarray(block, np.int64).reshape(-1, 3),
            regs=regs, smem_bytes=smem_bytes))

    def memops(self, names: Names, start_ns: Any, end_ns: Any, *, stream: Any, device: Any,
               correlation: Any, nbytes: Any, memset: bool) -> None:
        self._timed("memop", "gpu_memset" if memset else "gpu_memcpy", names, start_ns, end_ns, dict(
            stream=stream, device=device, correlation=correlation, bytes=nbytes,
            kind=np.full(len(start_ns), 1 if memset else 0, np.int8)))

    def launches(self, names: Names, start_ns: Any, end_ns: Any, *, pid: Any, tid: Any,
                 correlation: Any, category: str) -> None:
        n = len(start_ns)
        self._timed("launch", category, names, start_ns, end_ns, dict(
            pid=pid, tid=tid, correlation=correlation, external_id=np.full(n, -1), api_id=np.full(n, -1),
            kernel_name=np.full(n, -1)))

    def ranges(self, texts: Sequence[str], start_ns: Any, end_ns: Any, *, pid: Any, tid: Any, category: str) -> None:
        """Annotation ranges: all of them annotations, module markers and CPU ops also in their tables
        (:func:`range_kind`)."""
        kinds = [range_kind(t) for t in texts]
        pid, tid = _i64(pid), _i64(tid)
        start, end = _i64(start_ns), _i64(end_ns)
        for kind, table in (("annotation", "annotation"), ("op", "op"), ("module", "python")):
            # Every range is an annotation (a step rule may match any of them), ops and modules also
            # go to their own tables, where the links look for them.
            rows = [i for i, (k, _) in enumerate(kinds) if k == kind or table == "annotation"]
            if not rows:
                continue
            cols: dict[str, Any] = dict(pid=pid[rows], tid=tid[rows])
            if table == "annotation":
                cols["gpu"] = np.zeros(len(rows), bool)
            elif table == "op":
                cols["external_id"] = np.full(len(rows), -1)
            self._timed(table, category, [kinds[i][1] for i in rows], start[rows], end[rows], cols,
                        count=table == "annotation")

    def _column(self, table: str, key: str, dtype: Any, width: int = 0) -> np.ndarray:
        pieces = self.parts.get(table, {}).get(key)
        if not pieces:
            return np.zeros((0, width) if width else 0, dtype=dtype)
        return np.concatenate(pieces).astype(dtype, copy=False)

    def _table(self, cls: type, table: str, **spec: tuple) -> Any:
        base = dict(name=(np.int32,), start_us=(np.float64,), dur_us=(np.float64,))
        return cls(**{k: self._column(table, k, *s) for k, s in {**base, **spec}.items()})

    def build(self, *, source: str, lacks: Iterable[str], backend: str, metadata: dict[str, Any], links: bool,
              shapes: bool, stacks: bool, notes: Iterable[str] = ()) -> ForeignTrace:
        """The :class:`ForeignTrace` of everything added (``stacks`` is recorded as False: none exist)."""
        i, b = (np.int64,), (np.bool_,)
        kernels = self._table(KernelTable, "kernel", stream=i, device=i, correlation=i, external_id=i,
                              grid=(np.int64, 3), block=(np.int64, 3), regs=i, smem_bytes=i)
        memops = self._table(MemopTable, "memop", stream=i, device=i, correlation=i, bytes=i, kind=(np.int8,))
        launches = self._table(LaunchTable, "launch", pid=i, tid=i, correlation=i, external_id=i, api_id=i,
                               kernel_name=(np.int32,))
        ops = self._table(OpTable, "op", pid=i, tid=i, external_id=i)
        annotations = self._table(AnnotationTable, "annotation", pid=i, tid=i, gpu=b)
        python = self._table(PythonTable, "python", pid=i, tid=i)
        comm_spec = dict(pid=i, tid=i, on_kernel=b, correlation=i, external_id=i, collective=(np.int32,),
                         in_msg_nelems=i, out_msg_nelems=i, group_size=i, comm_dtype=(np.int32,),
                         pg_name=(np.int32,), pg_desc=(np.int32,), pg_ranks=(np.int32,))
        comms = self._table(CommTable, "comm", **comm_spec)
        names = [""] * len(self.names)
        for n, k in self.names.items():
            names[k] = n
        return ForeignTrace(source=source, lacks=lacks, backend=backend, path=self.path, rank=None,
                            metadata=metadata, names=names, kernels=kernels, launches=launches, ops=ops,
                            annotations=annotations, memops=memops, python=python, comms=comms,
                            event_counts=dict(self.counts), event_total=sum(self.counts.values()),
                            links=links, shapes=shapes, stacks=False,
                            load_notes=tuple(dict.fromkeys([*self.notes, *notes])))
