"""The report as data, computed below the renderers: inputs loaded (stored runs, result files,
traces), their analyses run (inventory, categories, timeline, phases, layers; a sweep's fastest
provider per point), each later results input compared with the first, and every note classed as
information or warning. ``report`` renders a :class:`ReportModel` and computes nothing.

It sits above ``sweeps`` (and beside any later producer of results, such as serving runs) so that
it may read what every one of them stores; only ``report`` and the shells above it import it.

``load_report(refs, top=, db_path=, threshold=) -> ReportModel`` is ``build_report(load_inputs(refs))``;
``report_for_output(command, data, written_at)`` the model of a command's own ``--json`` data.
``ServeInput``: a serving run (``bench-kernel serve --json`` or ``--save``), ``ReportModel.serves``.
"""

from bench_kernel.report_model._inputs import (
    TOP_KERNELS,
    ResultsInput,
    TraceInput,
    load_inputs,
    results_from_output,
)
from bench_kernel.report_model._model import (
    InputComparison,
    ReportModel,
    build_report,
    load_report,
    report_for_output,
)
from bench_kernel.report_model._serve import ServeInput

__all__ = [
    "TOP_KERNELS", "InputComparison", "ReportModel", "ResultsInput", "TraceInput", "build_report",
    "load_inputs", "load_report", "report_for_output", "results_from_output", "ServeInput",
]
