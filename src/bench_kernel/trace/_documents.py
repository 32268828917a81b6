"""The ``--json`` document of each trace command, from the trace's path: load what the analysis
needs (links, shapes, stacks: each costs load time), analyse, and put ``schema_version`` in front.
What the command prints and its MCP tool returns; a caller with a trace already loaded calls the
analysis itself (``inventory(trace)``, ...) and gets the same record without the version.

``steps`` is the step rules: None for the packaged ``data/steps.json``, a file in its format, or
rules already loaded (``load_step_rules``). ``rank`` picks a file of a folder of per-rank traces.
"""

from __future__ import annotations

from pathlib import Path
from typing import TypeVar

import msgspec

from bench_kernel.records import (
                                  AttributeOutput,
                                  DiffOutput,
                                  InventoryOutput,
                                  LayersOutput,
                                  OpsOutput,
                                  PhasesOutput,
                                  RanksOutput,
                                  Record,
                                  SampleTraceOutput,
                                  TimelineOutput,
)
from bench_kernel.trace._attribute import attribute
from bench_kernel.trace._diff import diff
from bench_kernel.trace._inventory import inventory
from bench_kernel.trace._layers import layers
from bench_kernel.trace._load import load_trace
from bench_kernel.trace._ops import ops
from bench_kernel.trace._phases import phases
from bench_kernel.trace._ranks import timeline_ranks
from bench_kernel.trace._sample import SAMPLE_TRACE_ABOUT, sample_trace
from bench_kernel.trace._tables import StepRules, load_step_rules
from bench_kernel.trace._timeline import LAUNCH_GAP_MAX_US, timeline

__all__ = ["inventory_document", "timeline_document", "ranks_document", "layers_document", "phases_document",
           "ops_document", "attribute_document", "diff_document", "sample_trace_document", "Steps"]

#: Step rules as a document function takes them (module docstring).
Steps = StepRules | str | Path | None
D = TypeVar("D", bound=Record)


def _rules(steps: Steps) -> StepRules | None:
    # Read before the trace: a bad rules file fails at once, not after a large trace is loaded.
    return steps if steps is None or isinstance(steps, StepRules) else load_step_rules(steps)


def _document(kind: type[D], analysis: Record) -> D:
    """``analysis`` as the document ``kind`` that extends its record with ``schema_version``."""
    return kind(**msgspec.structs.asdict(analysis))


def inventory_document(path: str | Path, *, by: str = "name", top: int | None = None, per_step: bool = False,
                       rank: int | None = None, steps: Steps = None) -> InventoryOutput:
    """What ``inventory --json`` prints: count and total/avg/min/max microseconds per kernel name,
    category or family (``by``), the ``top`` longest (:func:`inventory`), per step with ``per_step``."""
    rules = _rules(steps)
    # Without per_step only device events are needed: the fast load (no launches, ops or stacks).
    t = load_trace(path, rank, links=per_step)
    return _document(InventoryOutput, inventory(t, by=by, top=top, per_step=per_step, rules=rules))


def timeline_document(path: str | Path, *, rank: int | None = None, steps: Steps = None, shapes: bool = False,
                      launch_gap_max_us: float = LAUNCH_GAP_MAX_US) -> TimelineOutput:
    """What ``timeline --json`` prints for one trace (:func:`timeline`). ``shapes``: read the ops'
    input shapes to size collectives that record no size (slower); ``launch_gap_max_us``: the
    longest queued idle stretch still called a launch gap, microseconds."""
    rules = _rules(steps)
    t = load_trace(path, rank, shapes=shapes)
    return _document(TimelineOutput, timeline(t, rules=rules, launch_gap_max_us=launch_gap_max_us))


def ranks_document(directory: str | Path, *, steps: Steps = None, workers: int | None = None, shapes: bool = False,
                   launch_gap_max_us: float = LAUNCH_GAP_MAX_US) -> RanksOutput:
    """What ``timeline --json`` prints for a folder of per-rank traces (:func:`timeline_ranks`):
    ``workers`` processes (default one per CPU), the other options as :func:`timeline_document`."""
    return _document(RanksOutput, timeline_ranks(directory, rules=_rules(steps), workers=workers, shapes=shapes,
                                                 launch_gap_max_us=launch_gap_max_us))


def layers_document(path: str | Path, *, anchor: str | None = None, step: str | None = None,
                    rank: int | None = None, steps: Steps = None) -> LayersOutput:
    """What ``layers --json`` prints: the per-layer kernel sequence (:func:`layers`) around
    ``anchor`` (a regex; found when None), of the steps of phase ``step`` only when given."""
    rules = _rules(steps)
    # Shapes tell prefill from decode when no annotation does; only step needs them.
    t = load_trace(path, rank, shapes=step is not None)
    return _document(LayersOutput, layers(t, anchor=anchor, step=step, rules=rules))


def phases_document(path: str | Path, *, rank: int | None = None, steps: Steps = None) -> PhasesOutput:
    """What ``phases --json`` prints: the steps split into prefill and decode (:func:`phases`)."""
    rules = _rules(steps)
    return _document(PhasesOutput, phases(load_trace(path, rank, shapes=True), rules=rules))


def ops_document(path: str | Path, *, device: str | None = None, by: str = "op", capture: str | Path | None = None,
                 context_len: int | None = None, moe_intermediate: int | None = None, top: int | None = None,
                 rank: int | None = None) -> OpsOutput:
    """What ``ops --json`` prints: per-op rates against the roof (:func:`ops`), the ``top`` rows
    with the most kernel time; ``capture`` is the path of a graph trace's capture."""
    if device is not None:
        from bench_kernel.hardware import get_device

        get_device(device)  # a wrong name fails before a large trace is read
    t = load_trace(path, rank, shapes=True)
    cap = load_trace(capture, shapes=True) if capture is not None else None
    return _document(OpsOutput, ops(t, device=device, by=by, capture=cap, context_len=context_len,
                                    moe_intermediate=moe_intermediate, top=top))


def attribute_document(graph_path: str | Path, capture_path: str | Path, *, rank: int | None = None
                       ) -> AttributeOutput:
    """What ``attribute --json`` prints: the graph trace's replayed kernels given the op, module
    and stack of the capture (or eager) trace at ``capture_path`` (:func:`attribute`)."""
    graph = load_trace(graph_path, rank)
    reference = load_trace(capture_path, rank, stacks=True)
    return _document(AttributeOutput, attribute(graph, reference))


def diff_document(path_a: str | Path, path_b: str | Path, *, rank: int | None = None, steps: Steps = None
                  ) -> DiffOutput:
    """What ``diff --json`` prints: what changed from trace A to trace B (:func:`diff`)."""
    rules = _rules(steps)
    a, b = load_trace(path_a, rank), load_trace(path_b, rank)
    return _document(DiffOutput, diff(a, b, rules=rules))


def sample_trace_document() -> SampleTraceOutput:
    """What ``sample-trace --json`` prints: the sample trace's path and what it holds."""
    return SampleTraceOutput(path=str(sample_trace()), about=SAMPLE_TRACE_ABOUT)
