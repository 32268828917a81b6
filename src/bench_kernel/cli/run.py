"""``bench-kernel run [TARGET]``: benchmark a callable, or the built-in suite with no TARGET."""

from __future__ import annotations

import os
import sys
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
from bench_kernel.cli._target import target_files
from bench_kernel.cli._user_io import UserOutputToStderr
from bench_kernel.errors import BenchKernelError, OutputError, UsageError
from bench_kernel.plotfile import plot_path as check_plot_path
from bench_kernel.records import RUN_SCHEMA_VERSION

__all__ = ["command", "SCHEMA_VERSION"]

#: The version of this command's --json document (``bench_kernel.records.RunOutput``).
SCHEMA_VERSION = RUN_SCHEMA_VERSION

@click.command("run")
@click.argument("target", required=False)
@measure_options()
@click.option("--plot", "plot_path", default=None, type=click.Path(dir_okay=False),
              help="Write the roofline plot to FILE (.png or .svg); implies --roofline.")
@click.option("--save", is_flag=True,
              help="Store the results as a run in the results database (see 'bench-kernel history').")
@db_option
@output_options(outputs={"plot_path": "--plot"},
                inputs=lambda kw: target_files(kw["target"]) + (db_files(kw["db_path"]) if kw["save"] else []))
def command(target: str | None, options_given: dict[str, Any], plot_path: str | None, save: bool,
            db_path: str | None, output: Output) -> int:
    """Benchmark TARGET (path/to/file.py:func or package.module:func).

    func() returns a zero-argument callable, a case (dict or object with fn, make_inputs,
    reference, flops, bytes, name, params) or a list of them. With no TARGET, runs the
    built-in suite (GEMM, GEMV, RMSNorm, softmax, add, copy) sized for this machine. What the
    target prints goes to stderr, so --json/--csv output stays parseable.
    """
    import time

    from rich.console import Console
    from rich.text import Text

    from bench_kernel.options import Options
    from bench_kernel.orchestrate import CaseRunner, RunCost, plot_results
    from bench_kernel.report import (
        ProgressLines,
        cost_line,
        counted,
        counter_kernels_table,
        counters_table,
        printable,
        results_table,
    )

    t_start = time.perf_counter()
    from bench_kernel.results import open_store

    # Wrong options fail before any case is loaded or timed, with nothing else printed.
    options = Options.build(**{**options_given, **({"roofline": True} if plot_path else {})})
    if plot_path is not None:
        check_plot_path(plot_path, "--plot")
    if db_path and not save:
        raise UsageError("--db is where --save stores the run: add --save")
    source = target_files(target)
    err = Console(stderr=True, highlight=False)
    suite_line = None
    if target is None:  # the built-in suite fits its CPU threads to the free cores
        from bench_kernel.gpu import import_torch
        from bench_kernel.measure import suite_options

        import_torch("the built-in suite times torch ops")
        options, suite_line = suite_options(options)
    runner = CaseRunner(options, name=target or "builtin-suite", command=command_line(),  # checks --device
                        source=source[0] if source else None)
    if save:  # the database is opened (or refused) before anything is loaded or measured
        runner.store = open_store(db_path)
        click.get_current_context().call_on_close(runner.store.close)

    def write(so_far: Any) -> None:
        results = so_far.results
        triples = counted(results)  # run --counters: the model against the counts, per case and per kernel
        tables = [results_table(results)]
        tables += [counters_table(triples), counter_kernels_table(triples)] if triples else []
        emit(output, data=so_far.document(), tables=tables)

    with UserOutputToStderr() as user_io, err.status("") as status:
        def stuck(so_far: Any, limit: Any) -> None:
            # A case stuck where no exception reaches it (C, a GPU wait): write what we have and leave.
            status.stop()
            user_io.restore()
            try:
                write(so_far)
            except (BenchKernelError, OSError) as e:
                print_error(e)
            print_error(so_far.stuck_line(limit))
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(1)

        runner.on_stuck = stuck
        lines = ProgressLines(err, "cases")  # off a terminal, where the status line is not drawn
        tell = progress_hook()

        def progress(done: int, total: int | None, msg: str) -> None:
            status.update(Text(printable(f"[{done + 1}/{total}] {msg}")))
            lines(done, total, msg)
            tell(done, total, msg)

        runner.progress = progress
        cases = _load(runner, target, err, suite_line)
        load_s = time.perf_counter() - t_start
        outcome = runner.run_all(cases)
    write(outcome)
    if output.path is not None:  # the file is the output: say what went into it
        # failed: the cases that raised, and those whose result a reference refused or no method timed
        n, failed = len(outcome.results), len(outcome.failures())
        err.print(Text(printable(f"wrote {output.path}: {n} result(s)" + (f", {failed} failed case(s)" if failed else ""))),
                  soft_wrap=True)
    stored = (f"run {outcome.run.id} in {runner.store.path}" if outcome.run is not None and runner.store is not None
              else None)
    if output.fmt == "table" and output.path is None:  # the table's footer: what the run cost, where it went
        click.echo(cost_line(RunCost.of(outcome.results, runner.env, time.perf_counter() - t_start, load_s)))
    if not outcome.exit_code and stored:
        err.print(Text(f"stored as {printable(stored)}"), soft_wrap=True)
    listed = f"{output.path}" if output.fmt == "json" and output.path else "--json"
    for line in outcome.failure_lines(stored=stored, listed=listed):
        print_error(line)
    # The plot comes last: a plot that cannot be drawn must not cost the results just written.
    if plot_path and outcome.results:
        try:
            for written in plot_results(outcome.results, plot_path):
                err.print(Text(f"roofline plot: {printable(written)}"))
        except BenchKernelError as e:
            print_error(f"--plot {plot_path}: {e}")
            return 1
        except OSError as e:
            print_error(OutputError(f"cannot write the plot {plot_path}: {e.strerror or e}"))
            return 1
    return outcome.exit_code


def _load(runner: Any, target: str | None, err: Any, threads_line: str | None) -> list[Any]:
    """The target's cases (loaded within --timeout), or the built-in suite (small CPU versions
    without a GPU, with the threads ``threads_line`` names)."""
    from rich.text import Text

    from bench_kernel.gpu import has_gpu
    from bench_kernel.measure import builtin_suite

    if target:
        return runner.load(target)
    if not has_gpu():
        with_threads = f", {threads_line}" if threads_line else ""
        err.print(Text(f"no GPU found: running small CPU versions of the suite with the host method{with_threads}"),
                  soft_wrap=True)
    return builtin_suite()
