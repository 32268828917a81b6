"""``bench-kernel source-trace``: the Source Trace document of a callable or of a recorded trace."""

from __future__ import annotations

from pathlib import Path

import click

from bench_kernel.cli._common import dumps
from bench_kernel.errors import UsageError

__all__ = ["command"]


@click.command("source-trace")
@click.argument("target", required=False)
@click.option("--trace", "trace_path", type=click.Path(dir_okay=True, path_type=Path), default=None,
              help="Document kernels of a recorded Kineto trace (with Python stacks) instead.")
@click.option("--kernel", default=None, help="With --trace: regex over kernel names (raw or short).")
@click.option("--step", type=int, default=None, help="With --trace: only this 0-based step.")
@click.option("--rank", type=int, default=None, help="With --trace on a directory: the rank's file.")
@click.option("--case", "case_name", default=None, help="TARGET returns several cases: document this one.")
@click.option("--lang", type=click.Choice(["en", "zh"]), default="en", show_default=True)
@click.option("--root", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="User code is shown relative to DIR (default: the current directory).")
@click.option("--all-frames", is_flag=True, help="Keep dispatch plumbing frames (nn.Module._call_impl, ...).")
@click.option("-o", "--output", "output_path", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Write the Markdown to FILE (links are made relative to its folder).")
@click.option("--json", "as_json", is_flag=True, help="Print the document's data as JSON.")
def command(target: str | None, trace_path: Path | None, kernel: str | None, step: int | None,
            rank: int | None, case_name: str | None, lang: str, root: Path | None, all_frames: bool,
            output_path: Path | None, as_json: bool) -> int:
    """Write how a Python call reaches each of its GPU kernels, file:line by file:line.

    TARGET (path/to/file.py:func or package.module:func, as for 'run') is run under the PyTorch
    profiler with Python stacks; or --trace TRACE documents kernels picked by --kernel/--step.
    """
    from bench_kernel.source_trace import document_call, document_trace, strings

    strings(lang)
    if (target is None) == (trace_path is None):
        raise UsageError("give exactly one of TARGET or --trace TRACE")
    if target is None:
        doc = document_trace(trace_path, kernel=kernel, step=step, rank=rank, root=root, doc_path=output_path,
                             keep_all_frames=all_frames)
    else:
        if kernel is not None or step is not None or rank is not None:
            raise UsageError("--kernel, --step and --rank go with --trace, not with TARGET")
        from bench_kernel.measure import load_target

        cases = load_target(target)
        if case_name is not None:
            cases = [c for c in cases if c.label == case_name] or _no_case(case_name, cases)
        elif len(cases) > 1:
            raise UsageError(f"{target} gives {len(cases)} cases ({', '.join(c.label for c in cases)}): pick one with --case NAME")
        case = cases[0]
        doc = document_call(case.fn, make_inputs=case.make_inputs, name=case.label, root=root,
                            doc_path=output_path, keep_all_frames=all_frames)
    text = dumps(doc.to_dict()) + "\n" if as_json else doc.to_markdown(lang)
    if output_path:
        output_path.write_text(text, encoding="utf-8")
    else:
        click.echo(text, nl=False)
    return 0


def _no_case(name: str, cases: list) -> list:
    raise UsageError(f"no case named {name!r}; cases: {', '.join(c.label for c in cases)}")
