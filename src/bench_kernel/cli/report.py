"""``bench-kernel report INPUT... -o report.html``: one self-contained HTML report."""

from __future__ import annotations

from pathlib import Path

import click

from bench_kernel.cli._common import check_output_path, db_option, dumps
from bench_kernel.records import REPORT_SCHEMA_VERSION
from bench_kernel.results import (
    DEFAULT_THRESHOLD,
    check_threshold,
    ref_file,
    store_files,
)

__all__ = ["command", "SCHEMA_VERSION"]

#: The version of this command's --json document (``bench_kernel.records.ReportOutput``).
SCHEMA_VERSION = REPORT_SCHEMA_VERSION


@click.command("report")
@click.argument("inputs", nargs=-1, required=True, metavar="INPUT...")
@click.option("-o", "--output", "output_path", required=True, type=click.Path(path_type=Path),
              help="The HTML file to write (.html or .htm).")
@click.option("--title", default=None, help="The report's title (default: 'bench-kernel report').")
@click.option("--top", type=click.IntRange(min=1), default=25, show_default=True,
              help="Kernels listed per trace (the longest by total time).")
@click.option("--threshold", type=float, default=DEFAULT_THRESHOLD, show_default=True,
              help="Comparison: a ratio within this fraction of 1 is 'same' even when significant.")
@db_option
@click.option("--json", "as_json", is_flag=True, help="Print what was written (path, size, inputs) as JSON.")
def command(inputs: tuple[str, ...], output_path: Path, title: str | None, top: int, threshold: float,
            db_path: str | None, as_json: bool) -> None:
    """Write a self-contained HTML report of INPUT...: stored runs (12, latest, latest~1, 12:torch),
    --json result files of run or sweep, and traces (Kineto, Nsight Systems SQLite, rocprofv3).

    Sections, as the inputs allow: a summary (device, driver, versions, date, commit, what to
    distrust), the results table (click a header to sort), sweep and roofline plots (inline SVG),
    each later results input compared with the first (medians, B/A with its 95% CI, verdicts in
    colour, as 'bench-kernel compare'), the per-kernel breakdown of each case, and per trace its
    timeline (GPU busy and why, with a chart), kernel inventory, phases and layers. The file needs no network to view: send it, attach it,
    print it to PDF.
    """
    from bench_kernel.report import check_report_path, write_report

    check_report_path(output_path)
    check_threshold(threshold)
    # Every input (a results file or a trace, by its path or as FILE:PROVIDER; a trace folder; the
    # database of a stored run) is refused as the output before anything is read.
    named = [Path(i) for i in inputs if Path(i).exists()] + [f for f in map(ref_file, inputs) if f is not None]
    check_output_path(output_path, named + store_files(db_path))
    doc = write_report(inputs, output_path, title=title, top=top, db_path=db_path, threshold=threshold)
    if as_json:
        click.echo(dumps(doc))
    else:
        click.echo(f"report: {doc.output} ({doc.bytes / 1024:.0f} KiB, {len(doc.inputs)} input(s))", err=True)
