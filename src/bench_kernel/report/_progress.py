"""A progress bar for long commands (sweeps): points done/total, ETA, the current point, on stderr."""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable

if TYPE_CHECKING:  # rich is imported when a bar is drawn, not when this module is
    from types import TracebackType

    from rich.console import Console
    from rich.progress import TaskID

__all__ = ["ProgressBar", "ProgressLines"]


class ProgressBar:
    """``with ProgressBar(console) as bar: ... bar(done, total, current)``.

    Drawn only where ``console`` is a terminal (a log file gets the final table, not hundreds
    of redraws, and a :class:`ProgressLines` line now and then). The current point's label is user data: it is shown as text, never as markup.
    """

    def __init__(self, console: Console, what: str = "points") -> None:
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )

        self._progress = Progress(
            BarColumn(), MofNCompleteColumn(), TextColumn(what), TimeElapsedColumn(),
            TextColumn("ETA"), TimeRemainingColumn(), TextColumn("{task.fields[current]}", markup=False),
            console=console, transient=True, disable=not console.is_terminal)
        self._task: TaskID | None = None
        self._lines = ProgressLines(console, what)

    def __enter__(self) -> "ProgressBar":
        self._progress.__enter__()
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self._progress.__exit__(exc_type, exc, tb)

    def __call__(self, done: int, total: int, current: str) -> None:
        self._lines(done, total, current)  # off a terminal: a line now and then
        if self._task is None:
            self._task = self._progress.add_task("", total=total, completed=done, current=current)
        else:
            self._progress.update(self._task, total=total, completed=done, current=current)


#: Off a terminal nothing is redrawn: the first progress line comes after this long (s), so a short
#: command prints none ...
FIRST_LINE_S = 10.0
#: ... and the next ones at most this often (s), so a long one says it is alive without flooding a log.
EVERY_S = 30.0
#: ``BENCH_KERNEL_PROGRESS=0`` turns the lines off (a log that must hold only the result and its errors).
PROGRESS_ENV = "BENCH_KERNEL_PROGRESS"


class ProgressLines:
    """Progress for a log or a pipe, where a bar is not drawn: ``12 of 40 cases done after 1m 05s;
    now: gemm: host, round 2 of 5``, first after :data:`FIRST_LINE_S`, then every :data:`EVERY_S`.

    Before it, ``run -o results.xlsx`` ran 111 s with nothing on stderr off a terminal. ``clock``
    is the time in seconds (``time.monotonic``; a test's fake). Off with ``BENCH_KERNEL_PROGRESS=0``.
    """

    def __init__(self, console: Console, what: str = "cases", clock: Callable[[], float] | None = None) -> None:
        import os
        import time

        self._off = os.environ.get(PROGRESS_ENV) == "0"
        self._console, self._what = console, what
        self._clock = clock or time.monotonic
        self._t0 = self._clock()
        self._next = self._t0 + FIRST_LINE_S

    def __call__(self, done: int, total: int | None, current: str) -> None:
        now = self._clock()
        if self._off or now < self._next or self._console.is_terminal:
            return
        self._next = now + EVERY_S
        from rich.text import Text

        from bench_kernel.report._text import printable

        elapsed = int(now - self._t0)
        of = f" of {total}" if total is not None else ""
        self._console.print(Text(printable(f"{done}{of} {self._what} done after {elapsed // 60}m {elapsed % 60:02d}s; "
                                           f"now: {current}")), soft_wrap=True, highlight=False)
