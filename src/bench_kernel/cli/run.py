"""``bench-kernel run [TARGET]``: benchmark a callable, or the built-in suite with no TARGET."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import click

from bench_kernel.cli._common import (Output, check_output_path, command_line, db_option, emit, output_options,
                                      print_error)
from bench_kernel.cli._numbers import Number
from bench_kernel.cli._target import target_files
from bench_kernel.cli._user_io import UserOutputToStderr
from bench_kernel.errors import BenchKernelError, DeviceError, OutputError, UsageError

__all__ = ["command"]


def _target_files(kwargs: dict[str, Any]) -> list[Path]:
    return target_files(kwargs.get("target"))


def _check_plot_path(plot_path: str | None, inputs: list[Path]) -> None:
    if plot_path is None:
        return
    check_output_path(Path(plot_path), inputs, option="--plot")
    if Path(plot_path).suffix.lower() not in (".png", ".svg"):
        raise UsageError(f"--plot {plot_path} must end in .png or .svg")


@click.command("run")
@click.argument("target", required=False)
@click.option("-m", "--method", "methods", multiple=True,
              type=click.Choice(["graph", "events", "kernel", "host"]),
              help="Timing method (repeatable). Default: graph, events, kernel (host without a GPU).")
@click.option("--cache", type=click.Choice(["cold", "warm"]), default="cold", show_default=True,
              help="cold: flush L2 / rotate inputs beyond L2; warm: reuse one input set.")
@click.option("--precision", type=Number(min=0, min_open=True), default=0.01, show_default=True,
              help="Stop when the median's 95% CI is within this relative half-width.")
@click.option("--max-time", "max_time_s", type=Number(min=0, min_open=True), default=0.5, show_default=True,
              help="Sampling time bound per method, seconds.")
@click.option("--timeout", "timeout_s", type=Number(min=0, allow_inf=True), default=300.0, show_default=True,
              help="Stop a case that runs longer than this (seconds; 0 = no limit) and go on with the next.")
@click.option("--steady", is_flag=True,
              help="Hold the load until the SM clock and the per-call time settle before sampling "
                   "(power-capped GPUs: repeatable numbers at the sustained clock).")
@click.option("--device-index", type=click.IntRange(min=0), default=0, show_default=True, help="GPU index.")
@click.option("--roofline", "with_roofline", is_flag=True,
              help="Place each case under the device's roofs (counts FLOPs/bytes the case omits).")
@click.option("--device", "device_name", default=None,
              help="Peak-table device for --roofline (default: this GPU; see 'bench-kernel devices').")
@click.option("--plot", "plot_path", default=None, type=click.Path(dir_okay=False),
              help="Write the roofline plot to FILE (.png or .svg); implies --roofline.")
@click.option("--save", is_flag=True,
              help="Store the results as a run in the results database (see 'bench-kernel history').")
@db_option
@output_options(inputs=_target_files)
def command(target: str | None, methods: tuple[str, ...], cache: str, precision: float,
            max_time_s: float, timeout_s: float, steady: bool, device_index: int, with_roofline: bool,
            device_name: str | None, plot_path: str | None, save: bool, db_path: str | None,
            output: Output) -> int:
    """Benchmark TARGET (path/to/file.py:func or package.module:func).

    func() returns a zero-argument callable, a case (dict or object with fn, make_inputs,
    reference, flops, bytes, name, params) or a list of them. With no TARGET, runs the
    built-in suite (GEMM, GEMV, RMSNorm, softmax, add, copy) sized for this machine. What the
    target prints goes to stderr, so --json/--csv output stays parseable.
    """
    from rich.console import Console
    from rich.text import Text

    from bench_kernel.gpu import has_gpu, import_torch
    from bench_kernel.measure import (DEFAULT_METHODS, TimeLimit, builtin_suite, capture_env, load_target,
                                      validate_options)
    from bench_kernel.orchestrate import bench_case, plot_results, resolve_device
    from bench_kernel.report import printable, results_table
    from bench_kernel.results import Recorder, open_store

    # Wrong options fail before any case is loaded or timed, with nothing else printed.
    validate_options(methods or DEFAULT_METHODS, cache, precision, max_time_s)
    inputs = _target_files({"target": target})
    _check_plot_path(plot_path, inputs + ([output.path] if output.path else []))
    if with_roofline or plot_path is not None:
        resolve_device(device_name, has_gpu())
    if db_path and not save:
        raise UsageError("--db is where --save stores the run: add --save")
    # The database is opened (or refused) before anything is loaded or measured.
    store = open_store(db_path) if save else None
    if store is not None:
        click.get_current_context().call_on_close(store.close)
    err = Console(stderr=True, highlight=False)
    results: list[Any] = []
    failed = 0

    def write_results() -> None:
        emit(output, data={"results": [r.to_dict() for r in results]}, tables=results_table(results))

    with UserOutputToStderr() as user_io:
        if target:
            cases = load_target(target)
        else:
            import_torch("the built-in suite times torch ops")
            cases = builtin_suite()
            if not has_gpu():
                err.print("no GPU found: running small CPU versions of the suite with the host method")
        env = capture_env(device_index)  # torch's and triton's first import (seconds) is no case's time
        saver = None
        if store is not None:
            config = {"methods": list(methods or DEFAULT_METHODS), "cache": cache, "precision": precision,
                      "max_time_s": max_time_s, "roofline": with_roofline or plot_path is not None,
                      "timeout_s": timeout_s, "steady": steady}
            saver = Recorder(store, name=target or "builtin-suite", config=config, env=env,
                             command=command_line(), source=(target or "").rpartition(":")[0] or None,
                             total=len(cases))
        with err.status("") as status:
            def stuck(limit: Any) -> None:
                # The case is stuck where no exception reaches it (C, a GPU wait): keep what we have.
                status.stop()
                user_io.restore()
                try:
                    write_results()
                except (BenchKernelError, OSError) as e:
                    print_error(e)
                if saver:
                    try:  # from this thread sqlite may refuse: the stored run then stays 'running'
                        saver.finish("interrupted")
                    except Exception:  # noqa: BLE001 - the results above are what must not be lost
                        pass
                print_error(f"case {limit.label!r} timed out after {limit.seconds:g} s in code that cannot be "
                            f"interrupted (a C call or a GPU wait); stopped the run after {len(results)} "
                            f"finished case(s), their results written")
                sys.stdout.flush()
                sys.stderr.flush()
                os._exit(1)

            for case in cases:
                def progress(msg: str) -> None:
                    status.update(Text(printable(f"[{len(results) + failed + 1}/{len(cases)}] {msg}")))
                try:
                    with TimeLimit(timeout_s, case.label, on_stuck=stuck):
                        results.append(bench_case(case, methods=methods or DEFAULT_METHODS, cache=cache,
                                                  precision=precision, max_time_s=max_time_s,
                                                  device_index=device_index, progress=progress,
                                                  roofline=with_roofline or plot_path is not None,
                                                  device=device_name, timeout_s=None, steady=steady))
                    if saver:
                        saver.save(results[-1])
                except (UsageError, DeviceError):
                    if saver:
                        saver.finish("failed")
                    raise  # the options are wrong, not the case: one line, not one per case
                except BenchKernelError as e:
                    if saver:
                        saver.save_error(case.label, case.params, str(e))
                    if len(cases) == 1:
                        if saver:
                            saver.finish("done")
                        raise
                    failed += 1
                    msg = str(e)
                    print_error(msg if msg.startswith(f"case {case.label!r}") else f"case {case.label!r}: {msg}")
                except KeyboardInterrupt:
                    if saver:
                        saver.finish("interrupted")
                    raise
    wrong = [r for r in results if r.correct is False]
    for r in wrong:
        print_error(f"case {r.name!r}: {r.notes[-1]}")
    write_results()
    if saver:
        run = saver.finish("done")
        err.print(Text(f"stored as run {run.id} in {printable(store.path)}"), soft_wrap=True)
    # The plot comes last: a plot that cannot be drawn must not cost the results just written.
    if plot_path and results:
        try:
            for written in plot_results(results, plot_path):
                err.print(Text(f"roofline plot: {printable(written)}"))
        except BenchKernelError as e:
            print_error(f"--plot {plot_path}: {e}")
            return 1
        except OSError as e:
            print_error(OutputError(f"cannot write the plot {plot_path}: {e.strerror or e}"))
            return 1
    return 1 if failed or wrong else 0
