"""``bench-kernel source-trace``: the Source Trace document of a callable or of a recorded trace."""

from __future__ import annotations

from pathlib import Path
from typing import TypedDict

import click

from bench_kernel.cli._common import check_output_path, dumps, to_stdout, write_output
from bench_kernel.cli._target import one_case, target_files
from bench_kernel.cli._user_io import UserOutputToStderr
from bench_kernel.errors import BenchKernelError, UsageError
from bench_kernel.records import SOURCE_TRACE_SCHEMA_VERSION

__all__ = ["command", "SCHEMA_VERSION"]

#: The version of this command's --json document (``bench_kernel.records.SourceTraceOutput``).
SCHEMA_VERSION = SOURCE_TRACE_SCHEMA_VERSION


class _DocOptions(TypedDict):
    """The keywords that document_trace and document_call share, as the options give them."""

    kernel: str | None
    module: str | None
    top: int | None
    flow: str
    link_style: str
    torch_ref: str | None
    root: Path | None
    doc_path: Path | None
    keep_all_frames: bool


@click.command("source-trace")
@click.argument("target", required=False)
@click.option("--trace", "trace_path", type=click.Path(dir_okay=True, path_type=Path), default=None,
              help="Document kernels of a recorded Kineto trace (with Python stacks) instead.")
@click.option("--kernel", default=None, help="Only kernels whose name (raw or short) matches this regex.")
@click.option("--module", default=None,
              help="Only what runs under this nn.Module class (LlamaAttention) or instance (LlamaDecoderLayer_3).")
@click.option("--top", type=click.IntRange(min=1), default=None,
              help="Trace only the N costliest kernel call sites in detail (default: all for one op, 8 for a model).")
@click.option("--flow", type=click.Choice(["auto", "kernels", "modules"]), default="auto", show_default=True,
              help="Granularity of the flow diagram (auto: modules for a model, kernels for one op).")
@click.option("--step", type=click.IntRange(min=0), default=None, help="With --trace: only this 0-based step.")
@click.option("--rank", type=click.IntRange(min=0), default=None, help="With --trace on a directory: the rank's file.")
@click.option("--case", "case_name", default=None, help="TARGET returns several cases: document this one.")
@click.option("--lang", type=click.Choice(["en", "zh"]), default="en", show_default=True)
@click.option("--link-style", type=click.Choice(["path", "github"]), default="path", show_default=True,
              help="Links as path:line, or GitHub's #L<line> (installed packages link to their tag).")
@click.option("--torch-ref", default=None,
              help="Tag ATen source links point at (default: the installed torch's, e.g. v2.13.0).")
@click.option("--root", type=click.Path(exists=True, file_okay=False, path_type=Path), default=None,
              help="User code is shown relative to DIR (default: the current directory).")
@click.option("--all-frames", is_flag=True, help="Keep dispatch plumbing frames (nn.Module._call_impl, ...).")
@click.option("-o", "--output", "output_path", type=click.Path(dir_okay=False, allow_dash=True, path_type=Path),
              default=None, help="Write the Markdown to FILE ('-' is stdout; links are made relative to its folder).")
@click.option("--json", "as_json", is_flag=True, help="Print the document's data as JSON.")
def command(target: str | None, trace_path: Path | None, kernel: str | None, module: str | None, top: int | None,
            flow: str, step: int | None, rank: int | None, case_name: str | None, lang: str, link_style: str,
            torch_ref: str | None, root: Path | None, all_frames: bool, output_path: Path | None,
            as_json: bool) -> int:
    """Write how a Python call reaches each of its GPU kernels, file:line by file:line.

    TARGET (path/to/file.py:func or package.module:func, as for 'run') is run under the PyTorch
    profiler with Python stacks and module markers; or --trace TRACE documents a recorded trace
    (pick a step with --step). A model's document folds repeated layers into one "× N" entry.
    """
    from bench_kernel.report import printable
    from bench_kernel.source_trace import (
        check_call,
        document_call,
        document_trace,
        strings,
    )

    strings(lang)
    if (target is None) == (trace_path is None):
        raise UsageError("give exactly one of TARGET or --trace TRACE")
    if output_path is not None and str(output_path) == "-":
        output_path = None
    check_output_path(output_path, ([trace_path] if trace_path else []) + target_files(target))
    options = _DocOptions(kernel=kernel, module=module, top=top, flow=flow, link_style=link_style, torch_ref=torch_ref,
                          root=root, doc_path=output_path, keep_all_frames=all_frames)
    if target is None:
        assert trace_path is not None  # exactly one of the two (checked above)
        doc = document_trace(trace_path, step=step, rank=rank, **options)
    else:
        if step is not None or rank is not None:
            raise UsageError("--step and --rank go with --trace, not with TARGET")
        # What is wrong on any machine first (exit 2): the options, then the target's cases (--case);
        # what this machine lacks (no GPU, exit 1) after.
        check_call(kernel=kernel, link_style=link_style, gpu=False)
        with UserOutputToStderr():  # what the target prints goes to stderr: stdout is the document
            try:
                case = one_case(target, case_name)
            except UsageError:
                raise
            except BenchKernelError:
                check_call(gpu=True)  # a target that cannot load here for want of a GPU: say that
                raise
            check_call(gpu=True)
            doc = document_call(case.fn, make_inputs=case.make_inputs, name=case.label, **options)
    # Names in the document are data: control characters are shown escaped, never sent to a terminal.
    text = dumps(doc) + "\n" if as_json else printable(doc.to_markdown(lang), keep="\n\t")
    if output_path:
        write_output(output_path, text)  # whole or not at all: a failed write keeps the old document
    else:
        to_stdout(text)
    return 0
