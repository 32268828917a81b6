"""Results from ``--json`` files: what ``run --json`` and ``sweep --json`` write, read back as points."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from bench_kernel.errors import InputError
from bench_kernel.records import BenchResult, PointResult, RunInfo, status_of

__all__ = ["load_results_file", "points_from_output"]


def _bad(where: str, why: str) -> InputError:
    return InputError(f"{where!r} is not a bench-kernel results file ({why}); expected the --json "
                      f"output of 'bench-kernel run' or 'bench-kernel sweep'")


def points_from_output(data: Any, where: str) -> tuple[RunInfo | None, list[PointResult]]:
    """The run and points of ``run --json`` / ``sweep --json`` output already parsed (what a
    command is about to print, for ``-o x.html``); ``where`` names it in the InputError."""
    try:
        if isinstance(data, dict) and isinstance(data.get("points"), list):
            run = RunInfo.from_dict(data["run"]) if isinstance(data.get("run"), dict) else None
            return run, [PointResult.from_dict(d) for d in data["points"]]
        if isinstance(data, dict) and isinstance(data.get("results"), list):
            points = []
            for d in data["results"]:
                r = BenchResult.from_dict(d)
                points.append(PointResult(r.name, dict(r.params), status_of(r), r))
            return None, points
    except (KeyError, TypeError, ValueError, AttributeError) as e:
        raise _bad(where, f"{type(e).__name__}: {e}") from None
    raise _bad(where, "no 'results' or 'points' list")


def load_results_file(path: str | Path) -> tuple[RunInfo | None, list[PointResult]]:
    """The run (for a sweep file) and its points; a ``run --json`` file gives one point per case."""
    p = Path(path)
    if not p.is_file():
        raise InputError(f"results file {str(p)!r} does not exist")
    try:
        data: Any = json.loads(p.read_text(encoding="utf-8"))
    except UnicodeDecodeError:
        raise _bad(str(p), "not UTF-8 text") from None
    except json.JSONDecodeError as e:
        raise _bad(str(p), f"invalid JSON at line {e.lineno}: {e.msg}; truncated?") from None
    return points_from_output(data, str(p))
