"""Loading a TARGET and picking the one case a command works on (``--case NAME``)."""

from __future__ import annotations

from pathlib import Path

from bench_kernel.errors import UsageError
from bench_kernel.units import first_and_more

__all__ = ["one_case", "target_files"]


def target_files(target: str | None) -> list[Path]:
    """The file of a ``path/to/file.py:func`` or ``package.module:func`` TARGET (found without
    importing it), as an input that no output may overwrite."""
    from bench_kernel.measure import target_file

    found = target_file(target) if target else None
    return [found] if found is not None else []


def one_case(target: str, case_name: str | None):  # -> bench_kernel.measure.Case
    """The case of ``target`` named ``case_name``, or its only case; a UsageError lists the names."""
    from bench_kernel.measure import load_target

    cases = load_target(target)
    if case_name is not None:
        picked = [c for c in cases if c.label == case_name]
        if not picked:
            import difflib

            close = difflib.get_close_matches(case_name, [c.label for c in cases], n=3)
            hint = f"; did you mean {', '.join(map(repr, close))}?" if close else ""
            raise UsageError(f"no case named {case_name!r} among the {_names(cases)}{hint}")
        return picked[0]
    if len(cases) > 1:
        raise UsageError(f"{target} gives {_names(cases)}: pick one with --case NAME")
    return cases[0]


#: Case names shown in a message; the rest are counted (10,000 names once made a 69 KB line).
SHOWN_NAMES = 8


def _names(cases) -> str:
    """``3 cases (a, b, c)``, or ``10000 cases (a, b, c, d, e, f, g, h and 9992 more)``."""
    names = [c.label for c in cases]
    return f"{len(names)} cases ({first_and_more(names, SHOWN_NAMES)})"
