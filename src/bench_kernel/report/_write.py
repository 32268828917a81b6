"""Writing what was rendered: one file, whole or not at all, and the HTML report of some inputs
(``write_report``: what ``bench-kernel report`` does, returning the document its ``--json`` prints)."""

from __future__ import annotations

import errno
import os
from pathlib import Path
from typing import TYPE_CHECKING, Sequence

from bench_kernel.errors import OutputError, UsageError

if TYPE_CHECKING:
    from bench_kernel.records import ReportOutput

__all__ = ["check_report_path", "os_error_text", "write_output", "write_report"]


def os_error_text(e: OSError) -> str:
    """What an OSError says, in a few words (``No space left on device``)."""
    return e.strerror or str(e) or errno.errorcode.get(e.errno or 0, "I/O error")


def write_output(path: Path, body: str | bytes) -> None:
    """Write ``body`` to ``path`` so that a failure never leaves a half-written or emptied file
    (``bench_kernel.atomic.write_atomic``: a temporary file renamed over a regular ``path``; a
    character device or a pipe written as a stream, never replaced). Any OSError becomes one
    OutputError line."""
    from bench_kernel.atomic import is_stream, write_atomic

    try:
        stream = is_stream(path)
    except OSError as e:  # a block device, a directory, a socket: never written
        raise OutputError(f"cannot write {path}: {os_error_text(e)}") from None
    existed = path.exists()
    try:
        write_atomic(path, body)
    except OSError as e:
        # A device or a pipe is written in place: there is no old file to keep or lose.
        kept = "" if stream else f" ({path} was left as it was)" if existed else " (nothing was written)"
        raise OutputError(f"cannot write {path}: {os_error_text(e)}{kept}") from None


def check_report_path(output: str | os.PathLike[str]) -> Path:
    """``output`` as a path, or UsageError when it does not end in one of ``REPORT_FORMATS``."""
    from bench_kernel.report._report import REPORT_FORMATS

    path = Path(output)
    if path.suffix.lower() not in REPORT_FORMATS:
        raise UsageError(f"-o {str(path)!r}: the report is HTML, so the file must end in "
                         f"{' or '.join(REPORT_FORMATS)} (got {path.suffix or 'no extension'!r}); "
                         f"for a PDF, open the HTML in a browser and print it")
    return path


def write_report(refs: Sequence[str], output: str | os.PathLike[str], *, title: str | None = None,
                 top: int | None = None, db_path: str | None = None, threshold: float | None = None) -> ReportOutput:
    """Write the self-contained HTML report of ``refs`` to ``output`` (``.html`` or ``.htm``).

    refs: stored runs (``12``, ``latest``, ``latest~1``, ``12:torch``), ``--json`` result files of
        run or sweep, serving runs, and traces, as ``report_model.load_inputs`` reads them.
    title: the page's title (default ``bench-kernel report``); top: kernels listed per trace (default
        ``report_model.TOP_KERNELS``); db_path: the results database stored runs are read from;
        threshold: of each comparison, a ratio within this fraction of 1 is ``same`` (default 4%).
    Returns what was written (the file, its size in bytes, its inputs): ``report --json``. Raises
    UsageError for another suffix, and whatever loading an input raises (one line each).
    """
    from bench_kernel.records import ReportInput, ReportOutput
    from bench_kernel.report._report import render_report
    from bench_kernel.report_model import TOP_KERNELS, ServeInput, TraceInput, load_report
    from bench_kernel.results import DEFAULT_THRESHOLD

    path = check_report_path(output)
    model = load_report(refs, top=TOP_KERNELS if top is None else top, db_path=db_path,
                        threshold=DEFAULT_THRESHOLD if threshold is None else threshold)
    html = render_report(model, title=title)
    write_output(path, html)
    inputs = tuple(ReportInput(label=i.label, source=i.source,
                               kind="trace" if isinstance(i, TraceInput) else "serve" if isinstance(i, ServeInput)
                               else "results")
                   for i in model.inputs)
    return ReportOutput(output=str(path), bytes=len(html.encode("utf-8")), inputs=inputs)
