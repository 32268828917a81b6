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
from bench_kernel.records._result import BenchResult
from bench_kernel.records._roofline import MeasuredRoofline, RooflineResult

__all__ = ["DOCUMENTS", "OTHER_SHAPES", "CaseError", "RunOutput", "RooflineOutput", "RUN_SCHEMA_VERSION", "ROOFLINE_SCHEMA_VERSION",
           # the trace commands, decode and devices
           "DecodeOutput", "DevicesOutput", "DECODE_SCHEMA_VERSION", "DEVICES_SCHEMA_VERSION"]

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

DECODE_SCHEMA_VERSION = 1
DEVICES_SCHEMA_VERSION = 1


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
    "decode": DecodeOutput,
    "devices": DevicesOutput,
}
#: command -> when its ``--json`` is another document than its record in :data:`DOCUMENTS` (a tool
#: that validates output against that record's schema, as MCP does, must not promise it then).
OTHER_SHAPES: dict[str, str] = {
    "compare": "two serving runs compared give a serving comparison (`kind` `serve`, docs/serving.md)",
}
