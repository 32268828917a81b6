"""``bench-kernel run [TARGET]``: benchmark a callable, or the built-in suite with no TARGET."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import click

from bench_kernel.cli._common import Output, command_line, db_option, emit, output_options, print_error
from bench_kernel.cli._options import measure_options
from bench_kernel.cli._target import target_files
from bench_kernel.cli._user_io import UserOutputToStderr
from bench_kernel.errors import BenchKernelError, OutputError, UsageError
from bench_kernel.results import store_files

__all__ = ["command", "SCHEMA_VERSION"]

#: The version of this command's --json document (docs/json.md): raise it when a field changes its
#: name, type or meaning; a new field documented there does not need it.
SCHEMA_VERSION = 1

#: Failed cases named one line each on stderr; the rest are counted in one more line (issue 24: one
#: failure among 10,000 cases printed a 69 KB line, and 5,000 failures 5,000 lines).
SHOWN_ERRORS = 3


@click.command("run")
@click.argument("target", required=False)
@measure_options()
@click.option("--plot", "plot_path", default=None, type=click.Path(dir_okay=False),
              help="Write the roofline plot to FILE (.png or .svg); implies --roofline.")
@click.option("--save", is_flag=True,
              help="Store the results as a run in the results database (see 'bench-kernel history').")
@db_option
@output_options(outputs={"plot_path": "--plot"},
                inputs=lambda kw: target_files(kw["target"]) + (store_files(kw["db_path"]) if kw["save"] else []))
def command(target: str | None, options_given: dict[str, Any], plot_path: str | None, save: bool,
            db_path: str | None, output: Output) -> int:
    """Benchmark TARGET (path/to/file.py:func or package.module:func).

    func() returns a zero-argument callable, a case (dict or object with fn, make_inputs,
    reference, flops, bytes, name, params) or a list of them. With no TARGET, runs the
    built-in suite (GEMM, GEMV, RMSNorm, softmax, add, copy) sized for this machine. What the
    target prints goes to stderr, so --json/--csv output stays parseable.
    """
    from rich.console import Console
    from rich.text import Text

    from bench_kernel.options import Options
    from bench_kernel.orchestrate import CaseRunner, plot_results
    from bench_kernel.report import counted, counter_kernels_table, counters_table, printable, results_table
    from bench_kernel.results import open_store

    # Wrong options fail before any case is loaded or timed, with nothing else printed.
    options = Options.build(**{**options_given, **({"roofline": True} if plot_path else {})})
    if plot_path is not None:
        if Path(plot_path).suffix.lower() not in (".png", ".svg"):
            raise UsageError(f"--plot {plot_path} must end in .png or .svg")
    if db_path and not save:
        raise UsageError("--db is where --save stores the run: add --save")
    source = target_files(target)
    err = Console(stderr=True, highlight=False)
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
        errors = [{"name": e.label, "params": e.params, "error": e.message} for e in so_far.errors]
        emit(output, data={"schema_version": SCHEMA_VERSION, "results": [r.to_dict() for r in results],
                           "errors": errors}, tables=tables)

    with UserOutputToStderr() as user_io, err.status("") as status:
        def stuck(so_far: Any, limit: Any) -> None:
            # A case stuck where no exception reaches it (C, a GPU wait): write what we have and leave.
            status.stop()
            user_io.restore()
            try:
                write(so_far)
            except (BenchKernelError, OSError) as e:
                print_error(e)
            done = (f"stopped the run after {len(so_far.results)} finished case(s), their results written"
                    if so_far.results or so_far.errors else "nothing was measured")
            print_error(f"{limit.subject} timed out after {limit.seconds:g} s in code that cannot be "
                        f"interrupted (a C call or a GPU wait); {done}")
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(1)

        runner.on_stuck = stuck
        runner.progress = lambda done, total, msg: status.update(Text(printable(f"[{done + 1}/{total}] {msg}")))
        outcome = runner.run_all(_load(runner, target, err))
    failed = [e.message if e.message.startswith(f"case {e.label!r}") else f"case {e.label!r}: {e.message}"
              for e in outcome.errors] + [f"case {r.name!r}: {r.notes[-1]}" for r in outcome.wrong]
    write(outcome)
    stored = (f"run {outcome.run.id} in {runner.store.path}" if outcome.run is not None and runner.store is not None
              else None)
    if not failed and stored:
        err.print(Text(f"stored as {printable(stored)}"), soft_wrap=True)
    for line in failed[:SHOWN_ERRORS]:
        print_error(line if stored is None or len(failed) > 1 else f"{line} (the run is stored as {stored})")
    if len(failed) > SHOWN_ERRORS:
        where = [f"{output.path} lists each under 'errors'" if output.fmt == "json" and output.path else
                 "--json lists each under 'errors'"] + ([f"they are stored in {stored}"] if stored else [])
        print_error(f"... and {len(failed) - SHOWN_ERRORS} more failed case(s), {len(failed)} in all; "
                    f"{'; '.join(where)}")
    elif len(failed) > 1 and stored:
        print_error(f"{len(failed)} case(s) failed; the run is stored as {stored}")
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
    return 1 if outcome.errors or outcome.wrong else 0


def _load(runner: Any, target: str | None, err: Any) -> list[Any]:
    """The target's cases (loaded within --timeout), or the built-in suite (small CPU versions
    without a GPU)."""
    from bench_kernel.gpu import has_gpu, import_torch
    from bench_kernel.measure import builtin_suite

    if target:
        return runner.load(target)
    import_torch("the built-in suite times torch ops")
    if not has_gpu():
        err.print("no GPU found: running small CPU versions of the suite with the host method")
    return builtin_suite()
