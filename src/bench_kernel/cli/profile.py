"""``bench-kernel profile TARGET``: record a trace of a callable that every trace command can read."""

from __future__ import annotations

from pathlib import Path

import click

from bench_kernel.cli._common import Output, check_output_path, emit, to_stdout_bytes
from bench_kernel.cli._target import one_case, target_files
from bench_kernel.cli._user_io import UserOutputToStderr
from bench_kernel.records import PROFILE_SCHEMA_VERSION
from bench_kernel.report import Column, Table
from bench_kernel.units import format_duration_us

__all__ = ["command", "SCHEMA_VERSION"]

#: The version of this command's --json document (``bench_kernel.records.ProfileOutput``).
SCHEMA_VERSION = PROFILE_SCHEMA_VERSION

#: What a trace recorded without a GPU can and cannot do.
NO_GPU_NOTE = ("no GPU here: the trace holds CPU ops, shapes and Python stacks but no kernels, which "
               "inventory, timeline, layers, phases and diff need; `bench-kernel sample-trace` names a GPU "
               "trace to try them on")
#: The same on a GPU machine: the target ran on the CPU.
NO_KERNELS_NOTE = "no GPU kernels were recorded: the target ran on the CPU (its tensors are not on the GPU?)"


@click.command("profile")
@click.argument("target")
@click.option("--case", "case_name", default=None, help="TARGET returns several cases: profile this one.")
@click.option("--steps", type=int, default=5, show_default=True, help="Calls to record, one ProfilerStep each.")
@click.option("--warmup", type=int, default=1, show_default=True,
              help="Calls run under the profiler first but not recorded (JIT, autotune).")
@click.option("-o", "--output", "trace_path", type=click.Path(dir_okay=True, path_type=Path),
              default=Path("trace.json.gz"), show_default=True,
              help="Where to write the trace (.json.gz is gzipped; '-' is stdout, the summary then goes to "
                   "stderr). An existing file survives a failure.")
@click.option("--top", type=click.IntRange(min=1), default=10, show_default=True, help="Kernels in the summary.")
@click.option("--json", "as_json", is_flag=True, help="Print the summary as JSON.")
def command(target: str, case_name: str | None, steps: int, warmup: int, trace_path: Path, top: int,
            as_json: bool) -> None:
    """Run TARGET under the PyTorch profiler and write a Kineto trace with shapes, Python stacks,
    module markers and one ProfilerStep per call; print a summary and the costliest kernels.

    TARGET is as for 'run' (path/to/file.py:func or package.module:func). Then read the trace with
    inventory, timeline, layers, ops, source-trace --trace, ...
    """
    import tempfile

    from bench_kernel.gpu import has_gpu
    from bench_kernel.orchestrate import check_profile_options, profile_and_summarize

    # '-' or a name of this process's stdout: while the target runs, fd 1 points at stderr (what it
    # prints must not mix with the trace), so the trace is recorded aside and written out after.
    to_stdout = str(trace_path) == "-" or _is_stdout(trace_path)
    with tempfile.TemporaryDirectory(prefix="bench-kernel-") as folder:
        out = Path(folder) / "trace.json" if to_stdout else trace_path
        check_profile_options(steps=steps, warmup=warmup, output=out)  # before the target loads
        check_output_path(trace_path if not to_stdout else None, target_files(target))
        with UserOutputToStderr():  # what the target prints goes to stderr: stdout is the summary
            s = profile_and_summarize(one_case(target, case_name), steps=steps, warmup=warmup, output=out, top=top)
        if to_stdout:
            to_stdout_bytes(out.read_bytes())
    where = "stdout" if to_stdout else s.path
    notes = [s.diagnosis] if s.diagnosis else []
    empty = None
    if s.top is None:
        # Said here, by the command that made the trace, not later by every command that refuses it.
        empty = NO_GPU_NOTE if not has_gpu() else NO_KERNELS_NOTE
        title = f"{where}: {s.steps} steps recorded"
        if as_json and not to_stdout:
            click.echo(f"{title}: {empty}", err=True)
    else:
        title = (f"{where}: {s.steps} steps, {s.kernels_per_step:g} kernels and "
                 f"{format_duration_us(s.device_us_per_step)} of device time per step")
    rows = [r.to_dict() for r in s.top.kernels] if s.top is not None else []
    table = Table([Column("short", "Kernel"), Column("category", "Category"), Column("count", "Per step", "float"),
                   Column("total_us", "Time per step", "duration_us"), Column("pct", "Share", "pct")],
                  rows, title=title, notes=notes, empty=empty)
    if to_stdout:  # stdout holds the trace: the summary's first line, and its notes, go to stderr
        click.echo("\n".join([f"{title}: {empty}" if empty else title, *(f"note: {n}" for n in notes)]), err=True)
        return
    emit(Output("json" if as_json else "table", None), data=s, tables=table)


def _is_stdout(path: Path) -> bool:
    """Whether ``path`` names this process's stdout (``/dev/stdout``, ``/dev/fd/1``, its terminal)."""
    import os

    try:
        return os.path.samestat(os.stat(path), os.fstat(1))
    except (OSError, ValueError):
        return False
