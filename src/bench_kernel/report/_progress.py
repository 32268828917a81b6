"""A progress bar for long commands (sweeps): points done/total, ETA, the current point, on stderr."""

from __future__ import annotations

from typing import Any

__all__ = ["ProgressBar"]


class ProgressBar:
    """``with ProgressBar(console) as bar: ... bar(done, total, current)``.

    Drawn only where ``console`` is a terminal (a log file gets the final table, not hundreds
    of redraws). The current point's label is user data: it is shown as text, never as markup.
    """

    def __init__(self, console: Any, what: str = "points") -> None:
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
        self._task: Any = None

    def __enter__(self) -> "ProgressBar":
        self._progress.__enter__()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._progress.__exit__(*exc)

    def __call__(self, done: int, total: int, current: str) -> None:
        if self._task is None:
            self._task = self._progress.add_task("", total=total, completed=done, current=current)
        else:
            self._progress.update(self._task, total=total, completed=done, current=current)
