"""What ``bench-kernel report`` reads: result files (``run --json``, ``sweep --json``) and traces.

Each INPUT becomes one record the page renders: :class:`ResultsInput` (the results as their
stable JSON, exactly what the file or the store holds: nothing is re-measured or re-placed) or
:class:`TraceInput` (a trace's inventory, phases and layers). A file is told apart by its first
JSON key, without reading a whole trace twice.
"""

from __future__ import annotations

import gzip
import json
import re
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable, Sequence

from bench_kernel.errors import BenchKernelError, InputError, TraceError

__all__ = ["ResultsInput", "TraceInput", "load_inputs", "results_from_output", "TOP_KERNELS"]

#: Kernels listed per trace; the rest are summed in a note.
TOP_KERNELS = 25
#: First keys of what ``run --json`` / ``sweep --json`` write.
_RESULT_KEYS = ("results", "points", "run")
_FIRST_KEY = re.compile(rb'^\s*\{\s*"([^"]{1,64})"')
_PEEK_BYTES = 1 << 16


@dataclass(frozen=True)
class ResultsInput:
    """Measured results from one source, as their JSON records.

    ``points``: one dict per (provider, point) with ``provider``, ``params``, ``status``
    (``ok``/``mismatch``/``unsupported``/``error``), ``error`` and ``result`` (a
    ``BenchResult.to_dict()``: medians, samples, kernels, roofline, env, notes).
    """

    label: str
    source: str
    points: tuple[dict[str, Any], ...]
    #: the stored run (``RunInfo.to_dict()``) when the source is a sweep or a stored run
    run: dict[str, Any] | None = None
    #: when the results were made (ISO 8601), and what that date is: "run started" (a stored or
    #: sweep run), "file modified" (a ``run --json`` file carries no date), "measured" (just now)
    written_at: str | None = None
    dated_by: str = "file modified"


@dataclass(frozen=True)
class TraceInput:
    """One trace's analyses; an analysis that does not apply says why in ``missing``."""

    label: str
    source: str
    device: str | None
    kernel_count: int
    inventory: Any  # bench_kernel.trace.Inventory, by name, top TOP_KERNELS
    categories: Any  # bench_kernel.trace.Inventory, by category
    phases: Any = None  # bench_kernel.trace.PhaseReport
    layers: Any = None  # bench_kernel.trace.LayerReport
    #: analysis -> why it is not shown ("layers": "no repeating per-layer kernel sequence ...")
    missing: dict[str, str] = field(default_factory=dict)


def _status(result: dict[str, Any]) -> str:
    if result.get("correct") is False:
        return "mismatch"
    return "ok" if result.get("time_us") is not None else "error"


def results_from_output(data: Any, label: str, source: str, written_at: str | None = None,
                        dated_by: str = "file modified") -> ResultsInput:
    """A :class:`ResultsInput` from ``run --json`` / ``sweep --json`` data already in memory.

    Raises ``InputError`` naming ``label`` when ``data`` is not such output.
    """
    def bad(why: str) -> InputError:
        return InputError(f"{label!r} is not a bench-kernel results file ({why}); expected the --json output "
                          f"of 'bench-kernel run' or 'bench-kernel sweep'")

    if not isinstance(data, dict):
        raise bad(f"a JSON {type(data).__name__}, not an object")
    if isinstance(data.get("points"), list):
        points = data["points"]
        if not all(isinstance(p, dict) and isinstance(p.get("result"), dict) and "provider" in p for p in points):
            raise bad("a point without 'provider' or 'result'")
        run = data.get("run") if isinstance(data.get("run"), dict) else None
        started = (run or {}).get("created_at")
        return ResultsInput(label, source, tuple(points), run, started or written_at,
                            "run started" if started else dated_by)
    if isinstance(data.get("results"), list):
        results = data["results"]
        if not all(isinstance(r, dict) and "name" in r and isinstance(r.get("measurements"), dict) for r in results):
            raise bad("a result without 'name' or 'measurements'")
        points = tuple({"provider": r["name"], "params": dict(r.get("params") or {}), "status": _status(r),
                        "error": None, "result": r} for r in results)
        return ResultsInput(label, source, points, None, written_at, dated_by)
    raise bad(f"no 'results' or 'points' list; its keys: {', '.join(map(str, list(data)[:6])) or 'none'}")


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
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except UnicodeDecodeError:
        raise InputError(f"{str(path)!r} is not a bench-kernel results file (not UTF-8 text)") from None
    except json.JSONDecodeError as e:
        raise InputError(f"{str(path)!r} is not a bench-kernel results file (invalid JSON at line {e.lineno}: "
                         f"{e.msg}; truncated?)") from None
    return results_from_output(data, path.name, str(path), _mtime(path))


def _trace(path: Path, top: int) -> TraceInput:
    from bench_kernel.trace import inventory, layers, load_trace, phases

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
    return TraceInput(path.name, str(path), t.device_name, t.kernel_count, inv, cats, ph, lay, missing)


def _load_file(path: Path, top: int) -> ResultsInput | TraceInput:
    if path.is_dir():
        return _trace(path, top)
    gz, head = _peek(path)
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
                open_run: Callable[[str], ResultsInput] | None = None) -> list[ResultsInput | TraceInput]:
    """Resolve each reference: an existing file or folder (results or trace), else a stored run
    through ``open_run`` (ids, ``latest``). ``InputError`` names the first that is neither."""
    out: list[ResultsInput | TraceInput] = []
    for ref in refs:
        path = Path(ref)
        if path.exists():
            out.append(_load_file(path, top))
        elif open_run is not None and re.fullmatch(r"\d+|latest(~\d+)?", ref):
            out.append(open_run(ref))
        else:
            raise InputError(f"report input {ref!r} does not exist (expected a --json results file, a trace, "
                             f"or a stored run id / 'latest')")
    return out
