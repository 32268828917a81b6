"""``bench-kernel report INPUT... -o report.html``: one self-contained HTML report."""

from __future__ import annotations

from pathlib import Path

import click

from bench_kernel.cli._common import check_output_path, db_option, dumps, write_output
from bench_kernel.errors import UsageError
from bench_kernel.results import (
    DEFAULT_THRESHOLD,
    check_threshold,
    ref_file,
    store_files,
)

__all__ = ["command", "SCHEMA_VERSION"]

#: The version of this command's --json document (docs/json.md): raise it when a field changes its
#: name, type or meaning; a new field documented there does not need it.
SCHEMA_VERSION = 1


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
    from bench_kernel.report import REPORT_FORMATS, render_report
    from bench_kernel.report_model import TraceInput, load_report

    if output_path.suffix.lower() not in REPORT_FORMATS:
        raise UsageError(f"-o {str(output_path)!r}: the report is HTML, so the file must end in "
                         f"{' or '.join(REPORT_FORMATS)} (got {output_path.suffix or 'no extension'!r}); "
                         f"for a PDF, open the HTML in a browser and print it")
    check_threshold(threshold)
    # Every input (a results file or a trace, by its path or as FILE:PROVIDER; a trace folder; the
    # database of a stored run) is refused as the output before anything is read.
    named = [Path(i) for i in inputs if Path(i).exists()] + [f for f in map(ref_file, inputs) if f is not None]
    check_output_path(output_path, named + store_files(db_path))
    model = load_report(inputs, top=top, db_path=db_path, threshold=threshold)
    loaded = model.inputs
    html = render_report(model, title=title)
    write_output(output_path, html)  # whole or not at all
    if as_json:
        click.echo(dumps({"schema_version": SCHEMA_VERSION, "output": str(output_path), "bytes": len(html.encode("utf-8")),
                          "inputs": [{"label": i.label, "source": i.source, "kind": "trace" if isinstance(i, TraceInput) else "results"}
                                     for i in loaded]}))
    else:
        click.echo(f"report: {output_path} ({len(html.encode('utf-8')) / 1024:.0f} KiB, "
                   f"{len(loaded)} input(s))", err=True)
