"""``load_trace``: find the trace file (a path, or a rank's file in a directory of per-rank traces),
read it into column tables (``_events``; Nsight Systems and rocprofv3 files through ``_formats``) and
wrap them in a :class:`~bench_kernel.trace.Trace`.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from bench_kernel.errors import TraceError
from bench_kernel.trace._events import read_tables
from bench_kernel.trace._formats import read_other_format
from bench_kernel.trace._read import BLOCK_BYTES, check_block_bytes
from bench_kernel.trace._source import Source
from bench_kernel.trace._trace import Trace

__all__ = ["load_trace", "find_rank_files"]

_TRACE_SUFFIXES = (".json", ".json.gz")
_RANK_IN_NAME = re.compile(r"rank[-_]?(\d+)", re.IGNORECASE)
_RANK_IN_HEAD = re.compile(rb'"distributedInfo"\s*:\s*\{[^{}\[\]]*?"rank"\s*:\s*(\d+)')


def _rank_of(path: Path) -> int | None:
    """The trace's rank: ``distributedInfo.rank`` near the top of the file, else ``rank<N>`` in its name.

    A pipe or FIFO is not read ahead (that would consume it): its rank comes from the name here and
    from its metadata once loaded (:func:`_metadata_rank`).
    """
    if not path.is_file():
        m = _RANK_IN_NAME.search(path.name)
        return int(m.group(1)) if m else None
    src = Source(path)
    try:
        head = src.read(1 << 20)
    finally:
        src.close()
    in_head = _RANK_IN_HEAD.search(head)
    if in_head:
        return int(in_head.group(1))
    m = _RANK_IN_NAME.search(path.name)
    return int(m.group(1)) if m else None


def _metadata_rank(metadata: dict[str, Any]) -> int | None:
    info = metadata.get("distributedInfo")
    rank = info.get("rank") if isinstance(info, dict) else None
    return rank if type(rank) is int and rank >= 0 else None


def find_rank_files(directory: Path) -> dict[int | None, list[Path]]:
    """Trace files (``*.json``, ``*.json.gz``) in ``directory`` grouped by rank (None: unknown)."""
    out: dict[int | None, list[Path]] = {}
    for p in sorted(directory.iterdir()):
        if p.is_file() and p.name.endswith(_TRACE_SUFFIXES):
            out.setdefault(_rank_of(p), []).append(p)
    return out


def _resolve(path: Path, rank: int | None) -> tuple[Path, int | None]:
    if not path.exists():
        raise TraceError(f"trace file not found: {path}")
    if path.is_dir():
        by_rank = find_rank_files(path)
        files = [p for ps in by_rank.values() for p in ps]
        found = ", ".join(str(r) for r in sorted(r for r in by_rank if r is not None)) or "none"
        if not files:
            raise TraceError(f"{path} holds no trace files (*.json, *.json.gz)")
        if rank is None:
            if len(files) == 1:
                return files[0], _rank_of(files[0])
            raise TraceError(f"{path} holds {len(files)} traces (ranks: {found}); pick one with --rank N")
        picked = by_rank.get(rank, [])
        if not picked:
            raise TraceError(f"no trace for rank {rank} in {path}; ranks found: {found}")
        if len(picked) > 1:
            raise TraceError(f"{len(picked)} traces claim rank {rank} in {path}: "
                             f"{', '.join(p.name for p in picked)}; pass one file instead")
        return picked[0], rank
    file_rank = _rank_of(path)
    if rank is not None and file_rank is not None and file_rank != rank:
        raise TraceError(f"{path} is the trace of rank {file_rank}, not {rank}; pass the directory of "
                         f"per-rank traces or drop --rank")
    return path, file_rank


def load_trace(path: str | Path, rank: int | None = None, *, links: bool = True, shapes: bool = False,
               stacks: bool = False, block_bytes: int = BLOCK_BYTES) -> Trace:
    """Load a Kineto/Chrome trace (``.json`` or ``.json.gz``, or a directory of per-rank traces), an
    Nsight Systems SQLite export or a rocprofv3 kernel trace (CSV or JSON), told apart by content.

    ``rank`` picks a file of a directory (from ``distributedInfo.rank`` or ``rank<N>`` in the file
    name). ``links=False`` keeps only device events (kernels, memcpy/memset): the fastest load, enough
    for an inventory, but without launches, ops, steps or stacks. ``shapes`` also decodes the CPU ops'
    ``Input Dims``/``Input type``; ``stacks`` keeps every ``python_function`` event so ``Trace.stack()``
    needs no second read of the file (both imply ``links``). ``block_bytes`` is the decoded chunk size.
    Times in the returned trace are microseconds. Raises :class:`~bench_kernel.errors.TraceError` on a
    missing, truncated or malformed file, or a rank that is not there. ``path`` may be a pipe or FIFO
    (read once, forward). Events that would make a total wrong (negative or missing ``dur``, ``B``/``E``
    pairs, exact duplicates) are left out or repaired and ``Trace.load_notes`` says so (``_checks``).
    A ``block_bytes`` outside 1 byte .. 256 MiB is a :class:`~bench_kernel.errors.UsageError`.
    """
    check_block_bytes(block_bytes)
    links = links or shapes or stacks  # shapes live on CPU ops and stacks on host frames: both are links
    file, file_rank = _resolve(Path(path), rank)
    if (other := read_other_format(file, links=links, shapes=shapes, stacks=stacks)) is not None:
        return other  # an Nsight Systems export or a rocprofv3 trace (_formats.py)
    t = read_tables(file, links=links, shapes=shapes, stacks=stacks, block_bytes=block_bytes)
    if file_rank is None:
        file_rank = _metadata_rank(t.metadata)
        if rank is not None and file_rank is not None and file_rank != rank:
            raise TraceError(f"{file} is the trace of rank {file_rank}, not {rank}; drop --rank")
    return Trace(path=file, rank=file_rank, metadata=t.metadata, names=t.names, kernels=t.kernels,
                 launches=t.launches, ops=t.ops, annotations=t.annotations, memops=t.memops, python=t.python,
                 comms=t.comms, event_counts=t.event_counts, event_total=t.event_total, links=links, shapes=shapes,
                 stacks=stacks, load_notes=t.notes)
