"""Read rocprofv3's kernel trace: the CSV files (``--output-format csv``) and the JSON (``json``).

rocprofv3 (ROCprofiler-SDK's tool, what AMD's ATOM/aiter stack profiles with) writes one CSV per
kind of record, named ``<pid>_kernel_trace.csv``, ``<pid>_hip_api_trace.csv``,
``<pid>_memory_copy_trace.csv`` and ``<pid>_marker_api_trace.csv`` (``generateCSV.cpp`` in
ROCm/rocprofiler-sdk). Given the kernel trace, the others with the same prefix beside it are read
too: HIP API calls are the launches (``Correlation_Id`` links a kernel to its call, as in Kineto),
memory copies are memcpy events and ROCTx ranges are annotations (``_foreign.range_kind``).

Columns by name, so both layouts seen in AMD's documentation read the same: the ROCm 6.2 one
(``Private_Segment_Size``, ``Group_Segment_Size``, integer ``Agent_Id``) and the ROCm 6.3+ one
(``Stream_Id``, ``LDS_Block_Size``, ``VGPR_Count``..., ``Agent_Id`` written ``"Agent 4"``).
``Grid_Size_*`` counts work-items (the HSA dispatch packet's grid); bench-kernel's ``grid`` counts
workgroups, as CUDA's grid and Kineto's ROCm traces do, so it is ``ceil(Grid_Size / Workgroup_Size)``.
The stream is ``Stream_Id`` (the HIP stream) where written, else ``Queue_Id``.

The JSON (``results.json``) holds the same records per process under ``rocprofiler-sdk-tool``
(schema: ``source/docs/rocprofv3-schema.json`` in ROCm/rocprofiler-sdk): kernel names come from
``kernel_symbols`` by ``kernel_id``, API names from ``strings.buffer_records[kind].operations``,
ROCTx messages from ``strings.marker_api`` by correlation id, devices from ``agents``.
The Perfetto (``.pftrace``) and OTF2 outputs are binary trace formats and are not read.
"""

from __future__ import annotations

import csv
import io
import re
from itertools import islice
from pathlib import Path
from typing import Any, Iterator, Sequence

import msgspec
import numpy as np

from bench_kernel.errors import TraceError
from bench_kernel.trace._foreign import ForeignTrace, TraceBuilder

__all__ = ["KERNEL_TRACE", "SIBLINGS", "read_rocprof_csv", "read_rocprof_json", "rocprof_csv_kind"]

SOURCE = "a rocprofv3 trace"
KERNEL_TRACE = "kernel_trace.csv"
#: Sibling files read with a kernel trace: (file name suffix, what it is, columns it must have).
SIBLINGS = {
    "hip_api_trace.csv": ("HIP API trace", ("Function", "Process_Id", "Thread_Id", "Correlation_Id",
                                            "Start_Timestamp", "End_Timestamp")),
    "memory_copy_trace.csv": ("memory copy trace", ("Direction", "Source_Agent_Id", "Destination_Agent_Id",
                                                    "Correlation_Id", "Start_Timestamp", "End_Timestamp")),
    "marker_api_trace.csv": ("ROCTx marker trace", ("Function", "Process_Id", "Thread_Id",
                                                    "Start_Timestamp", "End_Timestamp")),
}
_KERNEL_COLUMNS = ("Kernel_Name", "Start_Timestamp", "End_Timestamp")
_AGENT = re.compile(r"(?:Agent\s*)?(-?\d+)$", re.IGNORECASE)
_COPY = {"HOST_TO_DEVICE": "HtoD", "DEVICE_TO_HOST": "DtoH", "DEVICE_TO_DEVICE": "DtoD", "HOST_TO_HOST": "HtoH"}


def rocprof_csv_kind(header: list[str], name: str) -> str | None:
    """``kernel`` for a kernel trace's header row, a sibling's file suffix for a sibling's, else None.
    The HIP API and marker traces share one header, so the file name tells them apart."""
    cols = set(header)
    if "Kernel_Name" in cols and ("Start_Timestamp" in cols or "Kind" in cols):
        return "kernel"
    found = [s for s, (_, need) in SIBLINGS.items() if {"Start_Timestamp", "End_Timestamp", *need[:2]} <= cols]
    return next((s for s in found if name.endswith(s)), found[0] if found else None)


def _agent(v: str) -> int:
    m = _AGENT.match(v.strip())
    return int(m.group(1)) if m else -1


def _csv_rows(path: Path, need: tuple[str, ...], what: str) -> tuple[list[str], Iterator[list[list[str]]]]:
    """The header and the data rows, in chunks, of a rocprofv3 CSV, checked: the columns ``need``,
    every row whole (a cut last line is a truncated file)."""
    fh = io.open(path, newline="", encoding="utf-8", errors="replace")
    reader = csv.reader(fh)
    header = next(reader, None)
    if header is None:
        fh.close()
        raise TraceError(f"{path}: the file is empty; a rocprofv3 {what} starts with its header row")
    missing = [c for c in need if c not in header]
    if missing:
        fh.close()
        raise TraceError(f"{path}: this rocprofv3 {what} has no column {', '.join(missing)} (its columns: "
                         f"{', '.join(header[:12])}{' ...' if len(header) > 12 else ''})")
    width = len(header)

    def chunks() -> Iterator[list[list[str]]]:
        with fh:
            while chunk := [r for r in islice(reader, _CHUNK) if r]:
                if any(len(r) != width for r in chunk):
                    bad = next(r for r in chunk if len(r) != width)
                    raise TraceError(f"{path}: line {reader.line_num - len(chunk) + chunk.index(bad) + 1} has "
                                     f"{len(bad)} of the header's {width} fields: the file is truncated or damaged")
                yield chunk
    return header, chunks()


class _Csv:
    """The wanted columns of a rocprofv3 CSV: text columns as lists (equal strings shared), integer
    columns as int64 arrays. A value that is not an integer is -1 in an optional column and an
    error naming its line in a required one (``Start_Timestamp``, ``End_Timestamp``, ids)."""

    def __init__(self, path: Path, what: str, need: tuple[str, ...], text: tuple[str, ...] = (),
                 ints: tuple[str, ...] = ()) -> None:
        header, chunks = _csv_rows(path, need, what)
        self.path, self.required = path, set(need)
        t_idx = [(c, header.index(c)) for c in text if c in header]
        i_idx = [(c, header.index(c)) for c in ints if c in header]
        self.text: dict[str, list[str]] = {c: [] for c, _ in t_idx}
        parts: dict[str, list[np.ndarray]] = {c: [] for c, _ in i_idx}
        shared: dict[str, str] = {}
        self.n = 0
        for chunk in chunks:
            columns = list(zip(*chunk))  # one C-level transpose instead of a list per wanted column
            for c, i in t_idx:
                self.text[c].extend(map(shared.setdefault, columns[i], columns[i]))
            for c, i in i_idx:
                parts[c].append(self._parse(c, columns[i], self.n))
            self.n += len(chunk)
        self._ints = {c: np.concatenate(p) if p else np.zeros(0, np.int64) for c, p in parts.items()}

    def _parse(self, col: str, values: Sequence[str], offset: int) -> np.ndarray:
        try:
            return np.fromiter(map(int, values), np.int64, len(values))
        except (ValueError, OverflowError):
            pass
        out = np.array([_int_or(v) for v in values], dtype=np.int64)
        bad = np.flatnonzero(out == _BAD)
        if len(bad) and col in self.required:
            k = int(bad[0])
            raise TraceError(f"{self.path}: line {offset + k + 2}: {col} {values[k]!r} is not an integer")
        out[bad] = -1
        return out

    def ints(self, col: str) -> np.ndarray:
        """The column, or -1s when the file has no such column."""
        got = self._ints.get(col)
        return got if got is not None else np.full(self.n, -1, dtype=np.int64)

    def agents(self, col: str) -> np.ndarray:
        """Agent ids from "Agent 4" (ROCm 6.3+) or "4" (before); -1 when absent."""
        values = self.text.get(col)
        if values is None:
            return np.full(self.n, -1, dtype=np.int64)
        ids = {v: _agent(v) for v in set(values)}
        return np.fromiter(map(ids.__getitem__, values), np.int64, len(values))

    def dims(self, prefix: str) -> np.ndarray:
        return np.stack([self.ints(f"{prefix}_{a}") for a in "XYZ"], axis=1)


_BAD = np.iinfo(np.int64).min
_CHUNK = 1 << 16


def _int_or(v: str) -> int:
    v = v.strip()
    if not v:
        return -1
    try:
        return int(v)
    except ValueError:
        return _BAD


def _workgroups(grid_items: np.ndarray, block: np.ndarray) -> np.ndarray:
    """Workgroups per axis from work-items per axis (-1 where either is unknown)."""
    ok = (grid_items >= 0) & (block > 0)
    return np.where(ok, -(-grid_items // np.where(block > 0, block, 1)), -1)


_DIMS = tuple(f"{d}_{a}" for d in ("Workgroup_Size", "Grid_Size") for a in "XYZ")


def _csv_kernels(path: Path, b: TraceBuilder) -> None:
    t = _Csv(path, "kernel trace", _KERNEL_COLUMNS, text=("Kernel_Name", "Agent_Id"),
             ints=("Start_Timestamp", "End_Timestamp", "Stream_Id", "Queue_Id", "Correlation_Id", "LDS_Block_Size",
                   "Group_Segment_Size", *_DIMS))
    block = t.dims("Workgroup_Size")
    stream = t.ints("Stream_Id" if "Stream_Id" in t._ints else "Queue_Id")
    smem = t.ints("LDS_Block_Size" if "LDS_Block_Size" in t._ints else "Group_Segment_Size")
    b.kernels(t.text["Kernel_Name"], t.ints("Start_Timestamp"), t.ints("End_Timestamp"), stream=stream,
              device=t.agents("Agent_Id"), correlation=t.ints("Correlation_Id"),
              grid=_workgroups(t.dims("Grid_Size"), block), block=block, regs=np.full(t.n, -1), smem_bytes=smem)


def _csv_siblings(path: Path, b: TraceBuilder) -> list[str]:
    prefix = path.name[: -len(KERNEL_TRACE)]
    found = []
    for suffix, (what, need) in SIBLINGS.items():
        p = path.with_name(prefix + suffix)
        if not p.is_file():
            continue
        found.append(p.name)
        t = _Csv(p, what, need, text=("Function", "Direction", "Source_Agent_Id", "Destination_Agent_Id"),
                 ints=("Start_Timestamp", "End_Timestamp", "Process_Id", "Thread_Id", "Correlation_Id",
                       "Stream_Id", "Bytes"))
        start, end = t.ints("Start_Timestamp"), t.ints("End_Timestamp")
        if suffix == "hip_api_trace.csv":
            b.launches(t.text["Function"], start, end, pid=t.ints("Process_Id"), tid=t.ints("Thread_Id"),
                       correlation=t.ints("Correlation_Id"), category="cuda_runtime")
        elif suffix == "memory_copy_trace.csv":
            direction = [d.removeprefix("MEMORY_COPY_") for d in t.text["Direction"]]
            b.memops([f"Memcpy {_COPY.get(d, d)}" for d in direction], start, end, stream=t.ints("Stream_Id"),
                     device=np.where(np.array(direction) == "DEVICE_TO_HOST", t.agents("Source_Agent_Id"),
                                     t.agents("Destination_Agent_Id")),
                     correlation=t.ints("Correlation_Id"), nbytes=t.ints("Bytes"), memset=False)
        else:
            ranged = np.flatnonzero(end > start)  # equal ends: roctxMark, an instant
            b.ranges([t.text["Function"][i] for i in ranged.tolist()], start[ranged], end[ranged],
                     pid=t.ints("Process_Id")[ranged], tid=t.ints("Thread_Id")[ranged], category="roctx")
    return found


def read_rocprof_csv(path: Path, *, links: bool, shapes: bool, stacks: bool) -> ForeignTrace:
    """The trace of a rocprofv3 ``*kernel_trace.csv`` and, with ``links``, the CSVs beside it."""
    b = TraceBuilder(path)
    _csv_kernels(path, b)
    if not b.counts.get("kernel"):
        raise TraceError(f"{path}: this rocprofv3 kernel trace holds no dispatches (only its header)")
    notes = []
    if links:
        found = _csv_siblings(path, b)
        if not found:
            notes.append(f"only the kernel trace was read (no {path.name[:-len(KERNEL_TRACE)]}hip_api_trace.csv "
                         f"beside it): no launches, so no launch delays, host-bound time or steps; profile with "
                         f"rocprofv3 --kernel-trace --hip-trace --marker-trace")
    return b.build(source=SOURCE, lacks=("shapes", "stacks"), backend="hip", metadata={"format": "rocprofv3-csv"},
                   links=links, shapes=shapes, stacks=stacks, notes=notes)


# -- JSON ---------------------------------------------------------------------------------------
# Only the fields read are declared: msgspec skips the rest (agents' capability flags, counters...).
class _Handle(msgspec.Struct, frozen=True):
    handle: int = -1


class _Corr(msgspec.Struct, frozen=True):
    internal: int = -1


class _Dims(msgspec.Struct, frozen=True):
    x: int = -1
    y: int = -1
    z: int = -1


class _DispatchInfo(msgspec.Struct, frozen=True):
    agent_id: _Handle = _Handle()
    queue_id: _Handle = _Handle()
    kernel_id: int = -1
    group_segment_size: int = -1
    workgroup_size: _Dims = _Dims()
    grid_size: _Dims = _Dims()


class _Record(msgspec.Struct, frozen=True):
    start_timestamp: int
    end_timestamp: int
    kind: int = -1
    operation: int = -1
    thread_id: int = -1
    correlation_id: _Corr = _Corr()
    stream_id: _Handle | None = None
    dispatch_info: _DispatchInfo | None = None
    src_agent_id: _Handle = _Handle()
    dst_agent_id: _Handle = _Handle()
    bytes: int = -1


class _Buffers(msgspec.Struct, frozen=True):
    kernel_dispatch: list[_Record] = []
    hip_api: list[_Record] = []
    memory_copy: list[_Record] = []
    marker_api: list[_Record] = []


class _KindNames(msgspec.Struct, frozen=True):
    kind: str = ""
    operations: list[str] = []


class _Pair(msgspec.Struct, frozen=True):
    key: int
    value: str


class _Strings(msgspec.Struct, frozen=True):
    buffer_records: list[_KindNames] = []
    marker_api: list[_Pair] = []


class _Symbol(msgspec.Struct, frozen=True):
    kernel_id: int = -1
    formatted_kernel_name: str = ""
    demangled_kernel_name: str = ""
    kernel_name: str = ""


class _Agent(msgspec.Struct, frozen=True):
    id: _Handle = _Handle()
    type: int = -1
    node_id: int = -1
    name: str = ""
    product_name: str = ""


class _Meta(msgspec.Struct, frozen=True):
    pid: int = -1


class _Process(msgspec.Struct, frozen=True):
    metadata: _Meta = _Meta()
    agents: list[_Agent] = []
    strings: _Strings = _Strings()
    kernel_symbols: list[_Symbol] | dict[str, _Symbol] = []
    buffer_records: _Buffers = _Buffers()


class _Document(msgspec.Struct, frozen=True):
    processes: list[_Process] = msgspec.field(name="rocprofiler-sdk-tool")


_GPU_AGENT = 2  # ROCPROFILER_AGENT_TYPE_GPU


def _op_name(p: _Process, r: _Record) -> str:
    kinds = p.strings.buffer_records
    if 0 <= r.kind < len(kinds) and 0 <= r.operation < len(kinds[r.kind].operations):
        return kinds[r.kind].operations[r.operation]
    return f"<operation {r.kind}.{r.operation}>"


def _json_process(p: _Process, b: TraceBuilder, links: bool) -> None:
    syms = p.kernel_symbols.values() if isinstance(p.kernel_symbols, dict) else p.kernel_symbols
    names = {s.kernel_id: s.formatted_kernel_name or s.demangled_kernel_name or s.kernel_name for s in syms}
    node = {a.id.handle: a.node_id for a in p.agents}
    ks = [k for k in p.buffer_records.kernel_dispatch if k.dispatch_info is not None]
    info = [d for k in p.buffer_records.kernel_dispatch if (d := k.dispatch_info) is not None]  # ks's, in order
    block = np.array([(d.workgroup_size.x, d.workgroup_size.y, d.workgroup_size.z) for d in info],
                     dtype=np.int64).reshape(-1, 3)
    items = np.array([(d.grid_size.x, d.grid_size.y, d.grid_size.z) for d in info], dtype=np.int64).reshape(-1, 3)
    b.kernels([names.get(d.kernel_id, f"<kernel_id {d.kernel_id}>") for d in info],
              [k.start_timestamp for k in ks], [k.end_timestamp for k in ks],
              stream=[k.stream_id.handle if k.stream_id is not None else d.queue_id.handle for k, d in zip(ks, info)],
              device=[node.get(d.agent_id.handle, d.agent_id.handle) for d in info],
              correlation=[k.correlation_id.internal for k in ks], grid=_workgroups(items, block), block=block,
              regs=[-1] * len(ks), smem_bytes=[d.group_segment_size for d in info])
    if not links:
        return
    pid = p.metadata.pid
    api = p.buffer_records.hip_api
    b.launches([_op_name(p, r) for r in api], [r.start_timestamp for r in api], [r.end_timestamp for r in api],
               pid=[pid] * len(api), tid=[r.thread_id for r in api],
               correlation=[r.correlation_id.internal for r in api], category="cuda_runtime")
    cp = p.buffer_records.memory_copy
    direction = [_op_name(p, r).removeprefix("MEMORY_COPY_") for r in cp]
    b.memops([f"Memcpy {_COPY.get(d, d)}" for d in direction], [r.start_timestamp for r in cp],
             [r.end_timestamp for r in cp], stream=[r.stream_id.handle if r.stream_id else -1 for r in cp],
             device=[node.get((r.src_agent_id if d == "DEVICE_TO_HOST" else r.dst_agent_id).handle, -1)
                     for r, d in zip(cp, direction)],
             correlation=[r.correlation_id.internal for r in cp], nbytes=[r.bytes for r in cp], memset=False)
    msg = {kv.key: kv.value for kv in p.strings.marker_api}
    mk = [r for r in p.buffer_records.marker_api if r.end_timestamp > r.start_timestamp]
    b.ranges([msg.get(r.correlation_id.internal, _op_name(p, r)) for r in mk], [r.start_timestamp for r in mk],
             [r.end_timestamp for r in mk], pid=[pid] * len(mk), tid=[r.thread_id for r in mk], category="roctx")


def read_rocprof_json(path: Path, data: bytes, *, links: bool, shapes: bool, stacks: bool) -> ForeignTrace:
    """The trace of a rocprofv3 JSON output (``data``: the file's bytes); every process in it."""
    try:
        doc = msgspec.json.decode(data, type=_Document)
    except msgspec.ValidationError as e:  # a DecodeError too: caught first
        raise TraceError(f"{path}: not the JSON rocprofv3 writes: {e}") from None
    except msgspec.DecodeError as e:
        what = "truncated" if "truncated" in str(e).lower() else "not valid JSON"
        raise TraceError(f"{path}: this rocprofv3 JSON is {what} ({e})") from None
    b = TraceBuilder(path)
    gpus: list[dict[str, Any]] = []
    for p in doc.processes:
        _json_process(p, b, links)
        gpus += [{"id": a.node_id, "name": a.product_name or a.name} for a in p.agents if a.type == _GPU_AGENT]
    if not b.counts.get("kernel"):
        raise TraceError(f"{path}: this rocprofv3 JSON holds no kernel dispatches (buffer_records.kernel_dispatch "
                         f"is empty): profile with rocprofv3 --kernel-trace")
    meta: dict[str, Any] = {"format": "rocprofv3-json"}
    if gpus:
        meta["deviceProperties"] = gpus
    notes = []
    if len(doc.processes) > 1:
        notes.append(f"{len(doc.processes)} processes in one file: analysed together as one trace")
    return b.build(source=SOURCE, lacks=("shapes", "stacks"), backend="hip", metadata=meta, links=links,
                   shapes=shapes, stacks=stacks, notes=notes)
