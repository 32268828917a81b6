"""Arguments shared by the trace commands (inventory, layers, phases, attribute, diff)."""

from __future__ import annotations

from pathlib import Path
from typing import Callable

import click

__all__ = ["trace_argument", "rank_option", "steps_option"]


def trace_argument(name: str = "trace") -> Callable:
    """A trace path: Kineto .json/.json.gz, an nsys SQLite export, a rocprofv3 kernel trace (CSV, JSON), or
    a directory of per-rank traces (checked by the loader)."""
    return click.argument(name, type=click.Path(path_type=Path), metavar=name.upper())


def rank_option(f: Callable) -> Callable:
    return click.option("--rank", type=click.IntRange(min=0), default=None,
                        help="Pick this rank's file from a directory of per-rank traces.")(f)


def steps_option(f: Callable) -> Callable:
    return click.option("--steps", "steps_file", type=click.Path(dir_okay=False, path_type=Path), default=None,
                        help="Step rules (JSON, the format of bench_kernel/trace/data/steps.json).")(f)
