"""``bench-kernel run [TARGET]``: benchmark a callable, or the built-in suite with no TARGET."""

from __future__ import annotations

import click

from bench_kernel.cli._common import Output, command_line, db_option, emit, output_options, print_error
from bench_kernel.errors import BenchKernelError, DeviceError, UsageError

__all__ = ["command"]


@click.command("run")
@click.argument("target", required=False)
@click.option("-m", "--method", "methods", multiple=True,
              type=click.Choice(["graph", "events", "kernel", "host"]),
              help="Timing method (repeatable). Default: graph, events, kernel (host without a GPU).")
@click.option("--cache", type=click.Choice(["cold", "warm"]), default="cold", show_default=True,
              help="cold: flush L2 / rotate inputs beyond L2; warm: reuse one input set.")
@click.option("--precision", type=float, default=0.01, show_default=True,
              help="Stop when the median's 95% CI is within this relative half-width.")
@click.option("--max-time", "max_time_s", type=float, default=0.5, show_default=True,
              help="Sampling time bound per method, seconds.")
@click.option("--device-index", type=int, default=0, show_default=True, help="GPU index.")
@click.option("--roofline", "with_roofline", is_flag=True,
              help="Place each case under the device's roofs (counts FLOPs/bytes the case omits).")
@click.option("--device", "device_name", default=None,
              help="Peak-table device for --roofline (default: this GPU; see 'bench-kernel devices').")
@click.option("--plot", "plot_path", default=None, type=click.Path(dir_okay=False),
              help="Write the roofline plot to FILE (.png or .svg); implies --roofline.")
@click.option("--save", is_flag=True,
              help="Store the results as a run in the results database (see 'bench-kernel history').")
@db_option
@output_options()
def command(target: str | None, methods: tuple[str, ...], cache: str, precision: float,
            max_time_s: float, device_index: int, with_roofline: bool, device_name: str | None,
            plot_path: str | None, save: bool, db_path: str | None, output: Output) -> int:
    """Benchmark TARGET (path/to/file.py:func or package.module:func).

    func() returns a zero-argument callable, a case (dict or object with fn, make_inputs,
    reference, flops, bytes, name, params) or a list of them. With no TARGET, runs the
    built-in suite (GEMM, GEMV, RMSNorm, softmax, add, copy) sized for this machine.
    """
    from rich.console import Console

    from bench_kernel.gpu import has_gpu, import_torch
    from bench_kernel.measure import DEFAULT_METHODS, builtin_suite, load_target, validate_options
    from bench_kernel.orchestrate import bench_case, plot_results, resolve_device
    from bench_kernel.measure import capture_env
    from bench_kernel.report import results_table
    from bench_kernel.results import Recorder, open_store

    # Wrong options fail before any case is loaded or timed, with nothing else printed.
    validate_options(methods or DEFAULT_METHODS, cache, precision, max_time_s)
    if with_roofline or plot_path is not None:
        resolve_device(device_name, has_gpu())
    if db_path and not save:
        raise UsageError("--db is where --save stores the run: add --save")
    # The database is opened (or refused) before anything is loaded or measured.
    store = open_store(db_path) if save else None
    if store is not None:
        click.get_current_context().call_on_close(store.close)
    err = Console(stderr=True)
    if target:
        cases = load_target(target)
    else:
        import_torch("the built-in suite times torch ops")
        cases = builtin_suite()
        if not has_gpu():
            err.print("no GPU found: running small CPU versions of the suite with the host method")
    saver = None
    if store is not None:
        config = {"methods": list(methods or DEFAULT_METHODS), "cache": cache, "precision": precision,
                  "max_time_s": max_time_s, "roofline": with_roofline or plot_path is not None}
        saver = Recorder(store, name=target or "builtin-suite", config=config, env=capture_env(device_index),
                         command=command_line(), source=(target or "").rpartition(":")[0] or None,
                         total=len(cases))
    results, failed = [], 0
    with err.status("") as status:
        for case in cases:
            def progress(msg: str) -> None:
                status.update(f"[{len(results) + failed + 1}/{len(cases)}] {msg}")
            try:
                results.append(bench_case(case, methods=methods or DEFAULT_METHODS, cache=cache,
                                          precision=precision, max_time_s=max_time_s,
                                          device_index=device_index, progress=progress,
                                          roofline=with_roofline or plot_path is not None,
                                          device=device_name))
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
                print_error(f"case {case.label!r}: {e}")
            except KeyboardInterrupt:
                if saver:
                    saver.finish("interrupted")
                raise
    wrong = [r for r in results if r.correct is False]
    for r in wrong:
        print_error(f"case {r.name!r}: {r.notes[-1]}")
    if plot_path and results:
        for written in plot_results(results, plot_path):
            err.print(f"roofline plot: {written}", highlight=False)
    emit(output, data={"results": [r.to_dict() for r in results]}, tables=results_table(results))
    if saver:
        run = saver.finish("done")
        err.print(f"stored as run {run.id} in {store.path}", highlight=False, markup=False, soft_wrap=True)
    return 1 if failed or wrong else 0
