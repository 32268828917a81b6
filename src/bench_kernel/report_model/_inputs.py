"""What ``bench-kernel report`` reads: stored runs (ids, ``latest``), result files (``run --json``,
``sweep --json``) and traces.

Each INPUT becomes one typed record the report renders: :class:`ResultsInput` (a run's points as
the results store holds them: nothing is re-measured, re-placed or re-derived; a sweep's fastest
provider per point) or :class:`TraceInput` (a trace's inventory, categories, timeline, phases and
layers). A file is told apart by its first JSON key, without reading a whole trace twice.
"""

from __future__ import annotations

import gzip
import re
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Sequence

from bench_kernel.errors import BenchKernelError, InputError, TraceError
from bench_kernel.report_model._serve import PLAIN_RUN, ServeInput, looks_like_serve, serve_file, serve_stored

if TYPE_CHECKING:  # read only; the records, the store and the trace analyses load numpy
    from bench_kernel.records import PointResult, RunInfo
    from bench_kernel.results import Best
    from bench_kernel.trace import Inventory, LayerReport, PhaseReport, TimelineReport

__all__ = ["ResultsInput", "TraceInput", "load_inputs", "results_from_output", "TOP_KERNELS"]

#: Kernels listed per trace; the rest are summed in a note.
TOP_KERNELS = 25
#: First keys of what ``run --json`` / ``sweep --json`` write.
_RESULT_KEYS = ("results", "points", "run")
#: (Every command's --json now opens with its "schema_version": the key after it tells the kind.)
_FIRST_KEY = re.compile(rb'^\s*\{\s*(?:"schema_version"\s*:\s*\d+\s*,\s*)?"([^"]{1,64})"')
#: A stored run as an input: an id, latest, latest~N, each optionally with :PROVIDER.
_RUN_REF = re.compile(r"(\d+|latest(~\d+)?)(:.+)?")
_PEEK_BYTES = 1 << 16


@dataclass(frozen=True)
class ResultsInput:
    """Measured results from one source: a stored run, a results file, or one provider of either.

    ``points`` are the store's records (``bench_kernel.results.PointResult``: provider, params,
    status, error, the ``BenchResult`` with raw samples, the stored roofline).
    """

    label: str
    source: str
    points: tuple[PointResult, ...]
    #: the stored run of a sweep or a stored run, else None
    run: RunInfo | None = None
    #: when the results were made (ISO 8601), and what that date is: "run started" (a stored or
    #: sweep run), "file modified" (a ``run --json`` file carries no date), "measured" (just now)
    written_at: str | None = None
    dated_by: str = "file modified"
    #: set when the reference picked one provider (``12:torch``)
    provider: str | None = None
    #: a sweep's fastest provider per point, as ``sweep --best`` shows it
    best: tuple[Best, ...] = ()

    @property
    def is_sweep(self) -> bool:
        return self.run is not None and self.run.kind == "sweep"

    @property
    def env(self) -> dict[str, Any]:
        """Where it ran: the run's environment, else the first point's."""
        if self.run is not None and self.run.env:
            return dict(self.run.env)
        return dict(self.points[0].result.env) if self.points else {}


@dataclass(frozen=True)
class TraceInput:
    """One trace's analyses; an analysis that does not apply says why in ``missing``."""

    label: str
    source: str
    device: str | None
    kernel_count: int
    inventory: Inventory  # by name, top TOP_KERNELS
    categories: Inventory  # by category
    phases: PhaseReport | None = None
    layers: LayerReport | None = None
    timeline: TimelineReport | None = None  # busy/idle and why, per step
    #: analysis -> why it is not shown ("layers": "no repeating per-layer kernel sequence ...")
    missing: dict[str, str] = field(default_factory=dict)


def _results(label: str, source: str, run: Any, points: Any, written_at: str | None,
             dated_by: str, provider: str | None = None) -> ResultsInput:
    from bench_kernel.results import best_per_point

    started = run.created_at if run is not None and run.created_at else None
    points = tuple(points)
    best = tuple(best_per_point(points)) if run is not None and run.kind == "sweep" else ()
    return ResultsInput(label, source, points, run, started or written_at,
                        "run started" if started else dated_by, provider, best)


def results_from_output(data: Any, label: str, source: str, written_at: str | None = None,
                        dated_by: str = "file modified") -> ResultsInput:
    """A :class:`ResultsInput` from ``run --json`` / ``sweep --json`` data already in memory.

    Raises ``InputError`` naming ``label`` when ``data`` is not such output.
    """
    from bench_kernel.results import points_from_output

    run, points = points_from_output(data, label)
    return _results(label, source, run, points, written_at, dated_by)


def _peek(path: Path) -> tuple[bool, bytes]:
    """(gzip-compressed?, the first bytes of the JSON text); a cut gzip gives what decoded."""
    with path.open("rb") as fh:
        head = fh.read(_PEEK_BYTES)
    if head[:2] != b"\x1f\x8b":
        return False, head
    out = b""
    try:
        with gzip.open(path, "rb") as gz:
            while len(out) < _PEEK_BYTES:
                chunk = gz.read(_PEEK_BYTES - len(out))
                if not chunk:
                    break
                out += chunk
    except (OSError, EOFError):  # truncated or corrupt: the trace loader says which
        pass
    return True, out


def _mtime(path: Path) -> str:
    return datetime.fromtimestamp(path.stat().st_mtime, tz=timezone.utc).isoformat(timespec="seconds")


def _results_file(path: Path) -> ResultsInput:
    from bench_kernel.results import load_results_file

    run, points = load_results_file(path)
    return _results(path.name, str(path), run, points, _mtime(path), "file modified")


def _stored(ref: str, open_db: Callable[[], Any]) -> ResultsInput:
    """``ref`` through the results store (``12``, ``latest~1``, ``12:torch``, ``file.json:torch``)."""
    from bench_kernel.results import resolve_ref

    side = resolve_ref(ref, open_db)
    source = f"{ref} in {open_db().path}" if _RUN_REF.fullmatch(ref) else ref
    return _results(side.label, source, side.run, side.points, None, "file modified", side.provider)


def _trace(path: Path, top: int) -> TraceInput:
    from bench_kernel.trace import inventory, layers, load_trace, phases, timeline

    t = load_trace(path, shapes=True)
    missing: dict[str, str] = {}

    def attempt(name: str, fn: Callable[[], Any]) -> Any:
        # One analysis that does not apply (no steps, no repeating layer) must not cost the others.
        try:
            return fn()
        except BenchKernelError as e:
            missing[name] = str(e).replace(f"{t.path}: ", "")
            return None

    inv = inventory(t, by="name", top=top)
    cats = inventory(t, by="category")
    ph = attempt("phases", lambda: phases(t))
    if ph is not None and ph.method == "none":
        missing["phases"] = "no steps found (no ProfilerStep or step annotations)"
        ph = None
    lay = attempt("layers", lambda: layers(t))
    tl = attempt("timeline", lambda: timeline(t))
    return TraceInput(path.name, str(path), t.device_name, t.kernel_count, inv, cats, ph, lay, tl, missing)


def _load_file(path: Path, top: int) -> ResultsInput | TraceInput | ServeInput:
    if path.is_dir():
        return _trace(path, top)
    gz, head = _peek(path)
    if not gz and looks_like_serve(head):  # bench-kernel serve --json
        return serve_file(path)
    first = _FIRST_KEY.match(head)
    if first and first.group(1).decode("ascii", "replace") in _RESULT_KEYS and not gz:
        return _results_file(path)
    try:
        return _trace(path, top)
    except TraceError as e:
        if gz or b'"traceEvents"' in head:
            raise  # a trace, and the loader says what is wrong with it (truncated, ...)
        raise InputError(f"{str(path)!r} is neither a bench-kernel results file (the --json output of run or "
                         f"sweep) nor a Kineto trace: {e}") from None


def load_inputs(refs: Sequence[str], *, top: int = TOP_KERNELS,
                db_path: str | None = None) -> list[ResultsInput | TraceInput | ServeInput]:
    """Resolve each reference: an existing file or folder (results or trace), else a stored run
    in the results database ``db_path`` (opened only if a reference needs it): an id,
    ``latest``, ``latest~N``, optionally ``:PROVIDER``. ``InputError`` names the first that is
    none of these; ``StoreError`` a run that is not stored."""
    opened: list[Any] = []

    def open_db() -> Any:
        if not opened:
            from bench_kernel.results import open_store

            opened.append(open_store(db_path, create=False))
        return opened[0]

    out: list[ResultsInput | TraceInput | ServeInput] = []
    try:
        for ref in refs:
            path = Path(ref)
            head = ref.rpartition(":")[0]
            if path.exists():
                out.append(_load_file(path, top))
            elif PLAIN_RUN.fullmatch(ref) and (served := serve_stored(open_db(), ref)) is not None:
                out.append(served)
            elif _RUN_REF.fullmatch(ref) or (head and Path(head).is_file()):
                out.append(_stored(ref, open_db))
            else:
                raise InputError(f"report input {ref!r} does not exist (expected a --json results file, a trace, "
                                 f"or a stored run: an id, 'latest' or 'latest~N', optionally ':PROVIDER')")
    finally:
        for store in opened:
            store.close()
    return out
