"""The measuring options ``run`` and ``sweep`` share, generated from ``bench_kernel.options.OPTION_FIELDS``.

As asv's ``common_args.py``: one definition of each option (flag, type, help, default), so the
commands cannot drift from each other or from the Python API. Every option's click default is None
("not given"): a command gets only what the user typed, as ``options_given``, and builds its
:class:`~bench_kernel.options.Options` from it (``sweep --resume`` must tell a value given from a
default, to refuse mixing two ways of measuring in one run).
"""

from __future__ import annotations

import math
from typing import Any, Callable, Iterable

import click

from bench_kernel.cli._numbers import Number
from bench_kernel.options import OPTION_FIELDS, OptionField

__all__ = ["measure_options", "shown_default"]


def shown_default(f: OptionField) -> str | None:
    """The default as the help text shows it, or None when there is nothing to show."""
    d = f.default
    if f.default_text is not None:
        return f.default_text
    if f.kind == "methods":
        return f"{', '.join(d)} (host without a GPU)"
    if f.kind == "flag" or d is None:
        return None
    if f.kind == "limit" and (d is None or d == math.inf):
        return "no limit"
    return f"{d:g}" if isinstance(d, float) else str(d)


def _click_option(f: OptionField) -> Callable:
    default = shown_default(f)
    text = f.help + (f" Default: {default}." if default else "")
    names = [f.short, f.flag] if f.short else [f.flag]
    if f.kind == "methods":
        return click.option(*names, f.name, multiple=True, type=click.Choice(list(f.choices)), help=text)
    if f.kind == "flag":
        return click.option(*names, f.name, is_flag=True, default=False, help=text)
    types: dict[str, Any] = {
        "choice": click.Choice(list(f.choices)),
        "number": Number(min=0, min_open=True),
        "limit": Number(min=0, allow_inf=True),
        "index": click.IntRange(min=0),
        "count": click.IntRange(min=1),
        "text": str,
    }
    return click.option(*names, f.name, type=types[f.kind], default=None, help=text)


def measure_options(fields: Iterable[str] | None = None) -> Callable:
    """Add the measuring options (all, or those named in ``fields``) to a command; it receives
    ``options_given``: the fields the user gave, by :class:`Options` field name."""
    chosen = [f for f in OPTION_FIELDS if fields is None or f.name in set(fields)]

    def deco(command: Callable) -> Callable:
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            given: dict[str, Any] = {}
            for f in chosen:
                value = kwargs.pop(f.name)
                if f.kind == "methods":
                    value = tuple(value) or None
                elif f.kind == "flag":
                    value = True if value else None  # a flag left out is not a value given
                if value is not None:
                    given[f.name] = value
            return command(*args, options_given=given, **kwargs)

        wrapper.__name__ = command.__name__
        wrapper.__doc__ = command.__doc__
        # options that decorators beneath this one attached to ``command`` stay on the command
        wrapper.__click_params__ = list(getattr(command, "__click_params__", []))  # type: ignore[attr-defined]
        for f in reversed(chosen):
            wrapper = _click_option(f)(wrapper)
        return wrapper

    return deco
