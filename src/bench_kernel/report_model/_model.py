"""The report as data: its inputs, loaded and analysed, and each later results input compared with
the first -- everything ``report`` renders, computed before rendering starts.

``report`` turns a :class:`ReportModel` into HTML and computes nothing (not a comparison, not a
best provider, not a trace analysis): the bookkeeping/render split of ``torch.utils.benchmark``'s
``Compare``, one layer apart.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

from bench_kernel.errors import InputError
from bench_kernel.report_model._inputs import TOP_KERNELS, ResultsInput, TraceInput, load_inputs, results_from_output
from bench_kernel.report_model._serve import ServeInput
from bench_kernel.results import DEFAULT_THRESHOLD, ResultsComparison

__all__ = ["InputComparison", "ReportModel", "build_report", "load_report", "report_for_output"]


@dataclass(frozen=True)
class InputComparison:
    """One later results input (B) against the first (A), point by point (``compare``'s statistics)."""

    a: ResultsInput
    b: ResultsInput
    comparison: ResultsComparison


@dataclass(frozen=True)
class ReportModel:
    """What one report shows: the inputs in the order given and the comparisons among them."""

    inputs: tuple[ResultsInput | TraceInput | ServeInput, ...]
    #: of each comparison: a ratio within this fraction of 1 is "same" (0.04 = 4%)
    threshold: float
    comparisons: tuple[InputComparison, ...] = ()

    @property
    def results(self) -> list[ResultsInput]:
        return [i for i in self.inputs if isinstance(i, ResultsInput)]

    @property
    def traces(self) -> list[TraceInput]:
        return [i for i in self.inputs if isinstance(i, TraceInput)]

    @property
    def serves(self) -> list[ServeInput]:
        """Serving runs (``bench-kernel serve``): drawn in sections of their own."""
        return [i for i in self.inputs if isinstance(i, ServeInput)]


def build_report(inputs: Sequence[ResultsInput | TraceInput | ServeInput], *, threshold: float = DEFAULT_THRESHOLD) -> ReportModel:
    """The model of ``inputs`` (see :func:`load_inputs`): each results input after the first is
    compared with the first (``bench_kernel.results.compare_points``; two single-provider
    references, ``12:torch 13:triton``, are matched on the point alone).

    threshold: the comparisons' (``results.DEFAULT_THRESHOLD``: 4%); UsageError outside [0, 1).
    """
    from bench_kernel.results import check_threshold, compare_points

    threshold = check_threshold(threshold)
    results = [i for i in inputs if isinstance(i, ResultsInput)]
    compared = []
    if results:
        a = results[0]
        for b in results[1:]:
            by_provider = not (a.provider and b.provider)
            rc = compare_points(a.points, b.points, threshold=threshold, by_provider=by_provider,
                                a_label=a.label, b_label=b.label)
            compared.append(InputComparison(a, b, rc))
    return ReportModel(tuple(inputs), threshold, tuple(compared))


def load_report(refs: Sequence[str], *, top: int = TOP_KERNELS, db_path: str | None = None,
                threshold: float = DEFAULT_THRESHOLD) -> ReportModel:
    """``build_report(load_inputs(refs, top=, db_path=), threshold=)``: what ``bench-kernel report`` shows."""
    return build_report(load_inputs(refs, top=top, db_path=db_path), threshold=threshold)


def report_for_output(command: str, data: Any, written_at: str | None = None) -> ReportModel | None:
    """The model of what a table command just printed as ``data`` (``run -o x.html``, ``sweep
    -o x.html``): its measured results, dated ``written_at`` (ISO 8601; default now); None when
    ``data`` holds no results (``inventory``)."""
    if written_at is None:
        from datetime import datetime, timezone

        written_at = datetime.now(timezone.utc).isoformat(timespec="seconds")
    if isinstance(data, dict) and data.get("kind") == "serve":  # bench-kernel serve -o x.html
        return build_report([ServeInput("bench-kernel serve", command, data)])
    if not (isinstance(data, dict) and (isinstance(data.get("results"), list) or isinstance(data.get("points"), list))):
        return None
    try:
        inp = results_from_output(data, command, command, written_at, dated_by="measured")
    except InputError:  # not results after all: the command's tables are the page
        return None
    return build_report([inp])
