"""The ``--json`` document of each command, as a record: what the CLI prints, what the API returns,
what an assistant gets over MCP. :data:`DOCUMENTS` names each command's document type; its JSON
Schema and ``docs/json.md`` are generated from these types (``_schema``).

A document's first field is ``schema_version``: raise a document's version when a field changes its
name, type or meaning; a new field is added without one (a reader ignores fields it does not know).
"""

from __future__ import annotations

from typing import Annotated, Any

from bench_kernel.records._base import Record, doc
from bench_kernel.records._comparison import CompareOutput
from bench_kernel.records._counters import CounterReport
from bench_kernel.records._devices import DeviceSpec
from bench_kernel.records._kernels import KernelName
from bench_kernel.records._layers import LayerReport, PhaseReport
from bench_kernel.records._ops import OpsReport
from bench_kernel.records._result import BenchResult
from bench_kernel.records._roofline import MeasuredRoofline, RooflineResult
from bench_kernel.records._timeline import RanksReport, TimelineReport
from bench_kernel.records._trace import Attribution, Inventory, TraceDiff

__all__ = ["DOCUMENTS", "OTHER_SHAPES", "CaseError", "RunOutput", "RooflineOutput", "RUN_SCHEMA_VERSION", "ROOFLINE_SCHEMA_VERSION",
           "OTHER_DOCUMENTS",
           # the trace commands, decode and devices
           "InventoryOutput", "TimelineOutput", "RanksOutput", "LayersOutput", "PhasesOutput", "OpsOutput",
           "AttributeOutput", "DiffOutput", "SampleTraceOutput", "DecodeOutput", "DevicesOutput",
           "INVENTORY_SCHEMA_VERSION", "TIMELINE_SCHEMA_VERSION", "LAYERS_SCHEMA_VERSION", "PHASES_SCHEMA_VERSION",
           "OPS_SCHEMA_VERSION", "ATTRIBUTE_SCHEMA_VERSION", "DIFF_SCHEMA_VERSION", "SAMPLE_TRACE_SCHEMA_VERSION",
           "DECODE_SCHEMA_VERSION", "DEVICES_SCHEMA_VERSION"]

#: 2: each result is a BenchResult of version 2 (notes are records).
RUN_SCHEMA_VERSION = 2
#: 2: the placement is under ``roofline`` (as in a BenchResult); notes are records; each roof names its source.
ROOFLINE_SCHEMA_VERSION = 2


class CaseError(Record, frozen=True):
    """A case that could not be measured."""

    name: Annotated[str, doc("the case's name")]
    params: Annotated[dict[str, Any], doc("the case's params")]
    error: Annotated[str, doc("the one-line reason (what stderr says for it)")]


class RunOutput(Record, frozen=True):
    """One result per case, in the order the cases ran; a case that failed has no result: it is in
    ``errors`` (stderr names the first three and counts the rest). Each result carries its own
    ``schema_version`` too: the record the results store and ``compare`` read back."""

    schema_version: Annotated[int, doc("this document's version")] = RUN_SCHEMA_VERSION
    results: Annotated[tuple[BenchResult, ...], doc("one per case that ran")] = ()
    errors: Annotated[tuple[CaseError, ...], doc("one per case that could not be measured, in the order they ran")] = ()


class RooflineOutput(Record, frozen=True, kw_only=True):
    """The placement of one measurement under the device's roofs (`roofline`: the spec roof's figures
    at its top level, the calibrated roof's under `measured`), and with ``--counters`` the counted
    work on the hierarchical roofline: the same three fields a BenchResult carries."""

    schema_version: Annotated[int, doc("this document's version")] = ROOFLINE_SCHEMA_VERSION
    roofline: Annotated[RooflineResult, doc("the placement")]
    counters: Annotated[CounterReport | None, doc("the counter file's counts (`--counters`); null without")] = None
    measured_roofline: Annotated[MeasuredRoofline | None, doc("the counted work on the DRAM/L2/L1 roofline (`--counters`); null without")] = None
    plot: Annotated[str | None, doc("the plot written (`--plot`); null without")] = None


# -- the trace commands, decode and devices ---------------------------------------------------
# A trace command's document is its analysis's record with ``schema_version`` in front: the record
# is keyword-only, so the one positional field a document adds comes first in its JSON.

INVENTORY_SCHEMA_VERSION = 1
#: Also the version of ``RanksOutput`` (a folder of rank files). Its ``per_rank`` timelines carry
#: their ``load_notes`` since the records (a new field).
TIMELINE_SCHEMA_VERSION = 1
LAYERS_SCHEMA_VERSION = 1
PHASES_SCHEMA_VERSION = 1
#: ``rest_rows`` and ``rest_us`` (what ``--top`` left out) are new fields since the records.
OPS_SCHEMA_VERSION = 1
ATTRIBUTE_SCHEMA_VERSION = 1
DIFF_SCHEMA_VERSION = 1
SAMPLE_TRACE_SCHEMA_VERSION = 1
DECODE_SCHEMA_VERSION = 1
DEVICES_SCHEMA_VERSION = 1


class InventoryOutput(Inventory, frozen=True):
    """Count and time per kernel name (or category, or family) of one trace; memcpy/memset apart."""

    schema_version: Annotated[int, doc("this document's version")] = INVENTORY_SCHEMA_VERSION


class TimelineOutput(TimelineReport, frozen=True):
    """One trace's timeline: is the GPU busy, and if not, why, per step and overall; launch delays;
    exposed communication. A folder of rank files gives `RanksOutput` instead."""

    schema_version: Annotated[int, doc("this document's version")] = TIMELINE_SCHEMA_VERSION


class RanksOutput(RanksReport, frozen=True):
    """A folder of per-rank traces (`timeline DIR`): the ranks side by side, the straggler, the skew
    of each collective, and every rank's own timeline."""

    schema_version: Annotated[int, doc("this document's version")] = TIMELINE_SCHEMA_VERSION


class LayersOutput(LayerReport, frozen=True):
    """The repeating per-layer kernel sequence of one trace, with per-position times."""

    schema_version: Annotated[int, doc("this document's version")] = LAYERS_SCHEMA_VERSION


class PhasesOutput(PhaseReport, frozen=True):
    """One trace's steps split into prefill and decode, with each phase's kernel time."""

    schema_version: Annotated[int, doc("this document's version")] = PHASES_SCHEMA_VERSION


class OpsOutput(OpsReport, frozen=True):
    """Per-op FLOPs, bytes, TFLOP/s, TB/s, % of roof and bound of one trace, from its recorded shapes."""

    schema_version: Annotated[int, doc("this document's version")] = OPS_SCHEMA_VERSION


class AttributeOutput(Attribution, frozen=True):
    """Graph-replayed kernels given the op, module and Python stack of their capture."""

    schema_version: Annotated[int, doc("this document's version")] = ATTRIBUTE_SCHEMA_VERSION


class DiffOutput(TraceDiff, frozen=True):
    """What changed from trace A to trace B, per category and per kernel, by time impact."""

    schema_version: Annotated[int, doc("this document's version")] = DIFF_SCHEMA_VERSION


class SampleTraceOutput(Record, frozen=True, kw_only=True):
    """The trace shipped with bench-kernel, to try every trace command on."""

    schema_version: Annotated[int, doc("this document's version")] = SAMPLE_TRACE_SCHEMA_VERSION
    path: Annotated[str, doc("the sample trace's path")]
    about: Annotated[str, doc("what it holds")]


class DecodeOutput(Record, frozen=True):
    """Each kernel name given, decoded: its family, short name, category and the fields its family's
    grammar encodes."""

    schema_version: Annotated[int, doc("this document's version")] = DECODE_SCHEMA_VERSION
    kernels: Annotated[tuple[KernelName, ...], doc("one per name, in the order given")] = ()


class DevicesOutput(Record, frozen=True):
    """Devices of the peak table, every figure with its source. Compute figures are dense peaks
    (sparse datasheet figures halved)."""

    schema_version: Annotated[int, doc("this document's version")] = DEVICES_SCHEMA_VERSION
    devices: Annotated[tuple[DeviceSpec, ...], doc("every device of the peak table, in table order; or the "
                                                   "ones named, in the order named")] = ()


#: command -> the type of its ``--json`` document. A command not yet here is documented by hand
#: in docs/json.md.
DOCUMENTS: dict[str, type[Record]] = {
    "run": RunOutput,
    "roofline": RooflineOutput,
    "compare": CompareOutput,
    # the trace commands, decode and devices
    "inventory": InventoryOutput,
    "timeline": TimelineOutput,
    "layers": LayersOutput,
    "phases": PhasesOutput,
    "ops": OpsOutput,
    "attribute": AttributeOutput,
    "diff": DiffOutput,
    "sample-trace": SampleTraceOutput,
    "decode": DecodeOutput,
    "devices": DevicesOutput,
}
#: command -> when its ``--json`` is another document than its record in :data:`DOCUMENTS` (a tool
#: that validates output against that record's schema, as MCP does, must not promise it then).
OTHER_SHAPES: dict[str, str] = {
    "compare": "two serving runs compared give a serving comparison (`kind` `serve`, docs/serving.md)",
    "timeline": "a folder of rank files gives `RanksOutput` (in :data:`OTHER_DOCUMENTS`)",
}
#: command -> the other records its ``--json`` may be, told apart by their fields: they are
#: documented in the command's section and its schema is any one of them.
OTHER_DOCUMENTS: dict[str, tuple[type[Record], ...]] = {
    "timeline": (RanksOutput,),
}
