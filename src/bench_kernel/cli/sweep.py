"""``bench-kernel sweep SPEC.py[:name]``: a grid of shapes x providers, checked, timed, stored."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from bench_kernel.cli._common import (
    Output,
    command_line,
    db_files,
    db_option,
    emit,
    output_options,
    print_error,
    progress_hook,
)
from bench_kernel.cli._options import measure_options
from bench_kernel.errors import UsageError
from bench_kernel.plotfile import plot_path as check_plot_path
from bench_kernel.records import SWEEP_SCHEMA_VERSION
from bench_kernel.units import first_and_more

__all__ = ["command", "SCHEMA_VERSION"]

#: The version of this command's --json document (``bench_kernel.records.SweepOutput``).
SCHEMA_VERSION = SWEEP_SCHEMA_VERSION


def _inputs(kw: dict[str, Any]) -> list[Path | None]:
    """What ``-o`` and ``--plot`` may not overwrite: the spec's file and the results database."""
    from bench_kernel.sweeps import spec_file

    return [spec_file(kw["spec"]), *db_files(kw["db_path"])]


@click.command("sweep")
@click.argument("spec")
@db_option
@click.option("--resume", "resume", default=None, metavar="RUN",
              help="Finish stored run RUN (an id or 'latest') of this spec: only its missing points run.")
@click.option("--provider", "providers", multiple=True, metavar="NAME",
              help="Run only this provider (repeatable). Default: every provider of the spec.")
@click.option("--workers", type=int, default=None, metavar="N",
              help="Shard the points over N host worker processes (host method, no GPU visible).")
@click.option("--gpus", default=None, metavar="all|LIST",
              help="One worker process per GPU ('all' or e.g. 0,1), each pinned to its GPU.")
@click.option("--backend", type=click.Choice(["local", "ray"]), default="local", show_default=True,
              help="ray: run the points as Ray tasks (the [ray] extra).")
@click.option("--address", default=None, metavar="ADDR",
              help="Ray cluster address for --backend ray (default: start a local instance).")
@measure_options()
@click.option("--best", "show_best", is_flag=True,
              help="Also print the fastest provider per point, its margin and whether it is significant.")
@click.option("--plot", "plot_path", default=None, type=click.Path(dir_okay=False),
              help="Write a plot of time over --x AXIS, one line per provider (.png or .svg).")
@click.option("--x", "x_axis", default=None, metavar="AXIS", help="The axis of --plot's horizontal axis.")
@output_options(outputs={"plot_path": "--plot"},
                inputs=_inputs)
def command(spec: str, db_path: str | None, resume: str | None, providers: tuple[str, ...],
            workers: int | None, gpus: str | None, backend: str, address: str | None,
            options_given: dict[str, Any], show_best: bool, plot_path: str | None, x_axis: str | None,
            output: Output) -> int:
    """Sweep SPEC (path/to/spec.py[:name], default name 'sweep'): every provider at every point.

    The spec defines axes (their product is the points) and providers (point -> case). Each
    provider is checked against the baseline's output at each point before it is timed; each
    point is committed to the results database as it finishes (see 'bench-kernel history').
    On --resume the measuring options are the stored run's: give none, or the same values.
    """
    from rich.console import Console

    from bench_kernel.report import (
        ProgressBar,
        best_table,
        plot_sweep,
        sweep_table,
    )
    from bench_kernel.results import open_store
    from bench_kernel.sweeps import check_sharding, load_spec, parse_gpus, run_sweep

    # Every option is checked before anything is imported or measured: what is wrong on any machine
    # first (exit 2), then what this machine lacks (a GPU: exit 1), then the spec is imported.
    if (plot_path is None) != (x_axis is None):
        raise UsageError("--plot FILE and --x AXIS go together")
    if plot_path:
        check_plot_path(plot_path, "--plot")
    if address and backend != "ray":
        raise UsageError("--address is for --backend ray")
    check_sharding(workers, gpus, backend)
    gpu_list = parse_gpus(gpus) if gpus is not None else None
    loaded = load_spec(spec)
    if x_axis is not None and x_axis not in loaded.axes:
        raise UsageError(f"--x {x_axis!r} is not an axis of {loaded.target}; its axes: {', '.join(loaded.axes)}")
    err = Console(stderr=True)
    tell = progress_hook()
    with open_store(db_path) as store, ProgressBar(err) as bar:
        def progress(done: int, total: int, current: str) -> None:
            bar(done, total, current)
            tell(done, total, current)

        result = run_sweep(loaded, options=options_given, store=store, resume=resume, providers=providers or None,
                           workers=workers, gpus=gpu_list, backend=backend, address=address,
                           command=command_line(), progress=progress)
    tables = [sweep_table(result.run, result.points, result.best)]
    if show_best:
        tables.append(best_table(result.run, result.best, result.points))
    if plot_path and x_axis is not None:  # they go together (checked above)
        written = plot_sweep(result.run, result.points, x_axis, plot_path)
        err.print(f"plot: {written}", highlight=False, markup=False, soft_wrap=True)
    emit(output, data=result, tables=tables)
    if output.path is not None:  # the file is the output: say what went into it
        err.print(f"wrote {output.path}: {len(result.points)} point(s)", highlight=False, markup=False, soft_wrap=True)
    failed = [p for p in result.points if p.status in ("error", "mismatch")]
    if not failed:
        err.print(f"stored as run {result.run.id} in {store.path}", highlight=False, markup=False, soft_wrap=True)
    else:  # one line, which names the run
        shown = first_and_more([f"{p.label}: {p.status}" for p in failed], sep="; ")
        print_error(f"{len(failed)} point(s) failed or gave a wrong result ({shown}); "
                    f"the reasons are in the table notes and in run {result.run.id}")
        return 1
    return 0
