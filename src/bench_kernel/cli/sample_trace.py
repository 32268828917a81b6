"""``bench-kernel sample-trace``: the path of the trace shipped with bench-kernel, to try every trace command on."""

from __future__ import annotations

import click

from bench_kernel.cli._common import Output, emit
from bench_kernel.records import SAMPLE_TRACE_SCHEMA_VERSION

__all__ = ["command", "SCHEMA_VERSION"]

#: The version of this command's --json document (``bench_kernel.records.SampleTraceOutput``).
SCHEMA_VERSION = SAMPLE_TRACE_SCHEMA_VERSION



@click.command("sample-trace")
@click.option("--json", "as_json", is_flag=True, help="Print the path and what the trace holds as JSON.")
def command(as_json: bool) -> None:
    """Print the path of a real H200 trace shipped with bench-kernel, to try the trace commands on.

    A 2-layer random-weight Llama, one forward per step: a prefill and three decodes (412
    kernels), recorded by 'bench-kernel profile'. For example:

    \b
        T="$(bench-kernel sample-trace)"
        bench-kernel timeline "$T"
        bench-kernel inventory "$T" --top 20
    """
    from bench_kernel.trace import sample_trace_document

    doc = sample_trace_document()
    # Only the path on stdout, so that $(bench-kernel sample-trace) is the path.
    emit(Output("json" if as_json else "table", None), data=doc, text=doc.path)
