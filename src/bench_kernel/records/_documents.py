"""The ``--json`` document of each command, as a record: what the CLI prints, what the API returns,
what an assistant gets over MCP. :data:`DOCUMENTS` names each command's document type; its JSON
Schema and ``docs/json.md`` are generated from these types (``_schema``).

A document's first field is ``schema_version``: raise a document's version when a field changes its
name, type or meaning; a new field is added without one (a reader ignores fields it does not know).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from msgspec import UNSET, UnsetType

from bench_kernel.records._base import Record, derive, doc, from_builtins
from bench_kernel.records._calibration import Calibration
from bench_kernel.records._comparison import Best, CompareOutput
from bench_kernel.records._counters import CounterReport
from bench_kernel.records._devices import DeviceSpec
from bench_kernel.records._kernels import KernelName
from bench_kernel.records._layers import LayerReport, PhaseReport
from bench_kernel.records._notes import Note, notes_from
from bench_kernel.records._ops import OpsReport
from bench_kernel.records._points import PointResult, RunInfo
from bench_kernel.records._result import BenchResult
from bench_kernel.records._roofline import MeasuredRoofline, RooflineResult
from bench_kernel.records._serve import (
    SERVE_SCHEMA_VERSION,
    ClientHealth,
    Goodput,
    LatencyStats,
    Load,
    RequestCounts,
    ServePoint,
    ServerInfo,
    Throughput,
    upgrade_point,
)
from bench_kernel.records._serve_extra import GpuTelemetry, GroupSplit, ServerMetrics, Slices, TurnRow
from bench_kernel.records._serve_run import ProfileWindow, Repeats
from bench_kernel.records._source_trace import KernelSite, ModuleNode, Overview, PathGroup, SourceFrame
from bench_kernel.records._timeline import RanksReport, TimelineReport
from bench_kernel.records._trace import Attribution, Inventory, TraceDiff

__all__ = ["DOCUMENTS", "OTHER_SHAPES", "CaseError", "RunOutput", "RooflineOutput", "RUN_SCHEMA_VERSION", "ROOFLINE_SCHEMA_VERSION", "SweepOutput", "HistoryOutput", "HistoryPoint", "SWEEP_SCHEMA_VERSION", "HISTORY_SCHEMA_VERSION", "ReportInput", "ReportOutput", "REPORT_SCHEMA_VERSION", "SourceTraceOutput", "SOURCE_TRACE_SCHEMA_VERSION", "ProfileOutput", "PROFILE_SCHEMA_VERSION", "ServeOutput", "SERVE_SCHEMA_VERSION", "OTHER_DOCUMENTS", "InventoryOutput", "TimelineOutput", "RanksOutput", "LayersOutput", "PhasesOutput", "OpsOutput", "AttributeOutput", "DiffOutput", "SampleTraceOutput", "DecodeOutput", "DevicesOutput", "INVENTORY_SCHEMA_VERSION", "TIMELINE_SCHEMA_VERSION", "LAYERS_SCHEMA_VERSION", "PHASES_SCHEMA_VERSION", "OPS_SCHEMA_VERSION", "ATTRIBUTE_SCHEMA_VERSION", "DIFF_SCHEMA_VERSION", "SAMPLE_TRACE_SCHEMA_VERSION", "DECODE_SCHEMA_VERSION", "DEVICES_SCHEMA_VERSION"]

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


# -- sweep, history, calibrate, profile, source-trace, report, serve ------------------------------

#: 2: results of BenchResult schema 2 (notes are records).
SWEEP_SCHEMA_VERSION = 2
HISTORY_SCHEMA_VERSION = 1
SOURCE_TRACE_SCHEMA_VERSION = 1
PROFILE_SCHEMA_VERSION = 1
#: serve's is SERVE_SCHEMA_VERSION (records/_serve.py): a stored point carries it too.
#: 2: a serving run among the inputs is of `kind` `serve` (version 1 called it `results`).
REPORT_SCHEMA_VERSION = 2


class SweepOutput(Record, frozen=True, kw_only=True):
    """A finished (or interrupted) sweep: its run record, every point in sweep order, and the fastest
    provider per point."""

    schema_version: Annotated[int, doc("this document's version")] = SWEEP_SCHEMA_VERSION
    run: Annotated[RunInfo, doc("the stored run (`id` null when no store was given)")]
    points: Annotated[tuple[PointResult, ...], doc("one per provider and point, in sweep order")] = ()
    best: Annotated[tuple[Best, ...], doc("the fastest provider per point that has a measured one (what `--best` shows)")] = ()


class HistoryPoint(Record, frozen=True):
    """One stored point and the run it belongs to."""

    run: Annotated[RunInfo, doc("the run the point belongs to")]
    point: Annotated[PointResult, doc("the point")]


class HistoryOutput(Record, frozen=True, kw_only=True):
    """Without `--name`: the stored runs (`db`, `runs`). With `--name PATTERN`: every stored point of
    the matching cases or providers, with its run (`pattern`, `where`, `points`)."""

    schema_version: Annotated[int, doc("this document's version")] = HISTORY_SCHEMA_VERSION
    db: Annotated[str | UnsetType, doc("the results database (without `--name`)")] = UNSET
    runs: Annotated[tuple[RunInfo, ...] | UnsetType, doc("the stored runs, newest first (without `--name`)")] = UNSET
    pattern: Annotated[str | UnsetType, doc("`--name`: a glob of case or provider names")] = UNSET
    where: Annotated[dict[str, str] | UnsetType, doc("`--where` filters, axis -> value (with `--name`)")] = UNSET
    points: Annotated[tuple[HistoryPoint, ...] | UnsetType, doc("the matching points, oldest run first (with `--name`)")] = UNSET


class ReportInput(Record, frozen=True):
    """One input of a report, in the order given."""

    label: Annotated[str, doc("the name the report gives it")]
    source: Annotated[str, doc("where it came from (a run in a database, a file)")]
    kind: Annotated[Literal["results", "trace", "serve"], doc("`results` (a stored run or a results file), `trace` or `serve` (a serving run)")]


class ReportOutput(Record, frozen=True, kw_only=True):
    """What was written; the report itself is the HTML file. Version 2: a serving run among the inputs
    is of `kind` `serve` (version 1 called it `results`)."""

    schema_version: Annotated[int, doc("this document's version")] = REPORT_SCHEMA_VERSION
    output: Annotated[str, doc("the HTML file")]
    bytes: Annotated[int, doc("its size, bytes")]
    inputs: Annotated[tuple[ReportInput, ...], doc("its inputs, in order")] = ()


class SourceTraceOutput(Record, frozen=True, kw_only=True):
    """How one Python call reaches each of its GPU kernels: the data of the Markdown document
    (`--json` instead of the document). `kernels` are every distinct (kernel, call site) of the
    documented selection; `paths` and the kernel sections cover the `detailed` ones (all at op scale,
    the costliest at model scale)."""

    schema_version: Annotated[int, doc("this document's version")] = SOURCE_TRACE_SCHEMA_VERSION
    subject: Annotated[str, doc("the call or module documented")]
    device: Annotated[str | None, doc("the device")] = None
    backend: Annotated[Literal["cuda", "hip"], doc("`cuda` or `hip`")] = "cuda"
    scale: Annotated[Literal["op", "model"], doc("`op` (every kernel in detail, a kernel flow) or `model` (structure, top sites, module flow)")] = "op"
    flow: Annotated[Literal["kernels", "modules"], doc("the granularity of the flow diagram: `kernels` or `modules`")] = "kernels"
    total_us: Annotated[float | None, doc("derived: device time per call, summed over the kernels; null when none has a time")] = None
    inputs: Annotated[tuple[tuple[str, str], ...], doc("the call's inputs: [name, shape and dtype], when known")] = ()
    output: Annotated[str | None, doc("its output")] = None
    selection: Annotated[str | None, doc("what `--kernel`, `--module`, `--top` selected, in words")] = None
    overview: Annotated[Overview, doc("the Overview table")]
    structure: Annotated[tuple[ModuleNode, ...], doc("the module tree (model scale, with module markers)")] = ()
    detailed: Annotated[tuple[int, ...], doc("the sites documented in detail (their `order`)")] = ()
    paths: Annotated[tuple[PathGroup, ...], doc("the call paths and the sites on each")] = ()
    kernels: Annotated[tuple[KernelSite, ...], doc("every kernel call site, in launch order")] = ()
    notes: Annotated[tuple[str, ...], doc("what to know")] = ()
    shared_chain: Annotated[tuple[SourceFrame, ...], doc("at model scale, the frames every detailed path starts with, written once")] = ()
    link_style: Annotated[Literal["path", "github"], doc("how links are written: `path` (`file:line`) or `github` (`#L<line>`)")] = "path"

    def __post_init__(self) -> None:
        times = [k.us_per_call for k in self.kernels if k.us_per_call is not None]
        derive(self, total_us=sum(times) if times else None)


class ProfileOutput(Record, frozen=True, kw_only=True):
    """What a recorded trace holds, per step: the summary `bench-kernel profile` prints (the trace
    itself is the file at `path`)."""

    schema_version: Annotated[int, doc("this document's version")] = PROFILE_SCHEMA_VERSION
    path: Annotated[str, doc("the trace written")]
    steps: Annotated[int, doc("steps recorded (one ProfilerStep per call)")]
    events: Annotated[int, doc("events in the trace")]
    kernels_per_step: Annotated[float, doc("kernel launches per step (0 without a GPU: CPU ops only)")]
    device_us_per_step: Annotated[float, doc("summed kernel durations per step")]
    top: Annotated[Inventory | None, doc("the per-step inventory of the costliest kernels (`--top`): what `inventory --per-step --top N --json` prints, naming the trace written; null when no kernel was recorded")]
    diagnosis: Annotated[str | None, doc("the timeline's one line on the whole recording (is the GPU busy, and if not, why); null without kernels")]


#: The fields of one load point that a one-point run writes at its top level.
_POINT_FIELDS = ("load", "started_at", "duration_s", "metrics", "throughput", "goodput", "requests", "client",
                 "repeat", "server_metrics", "gpu_telemetry", "slices", "turns", "prefix_groups")


class ServeOutput(Record, frozen=True, kw_only=True, tag_field="kind", tag="serve"):
    """A serving benchmark: the server, what was asked, every load point, and the profiled window.
    One load point (no `--sweep`, no list of rates or concurrencies): its fields at the top level and
    no `points`. A sweep (`list`, `auto`, `slo`): its points in `points`, none at the top level. The
    first field is `kind` (`serve`), which tells a serving run from other JSON; `schema_version` is
    the second. Version 2: notes are `Note` records, not strings."""

    schema_version: Annotated[int, doc("this document's version (and each point's)")] = SERVE_SCHEMA_VERSION
    status: Annotated[Literal["complete", "partial", "interrupted"], doc("`complete`; `interrupted` (Ctrl-C) or `partial` (a point stopped early, a server that died): the run was cut short")] = "complete"
    aborted: Annotated[str | None, doc("why the run stopped early; null when it ran to its end")] = None
    load: Annotated[Load | UnsetType, doc("one point: the load offered")] = UNSET
    started_at: Annotated[float | UnsetType, doc("one point: when it started (Unix time, s)")] = UNSET
    duration_s: Annotated[float | UnsetType, doc("one point: first due time -> last byte received, s")] = UNSET
    metrics: Annotated[dict[str, LatencyStats] | UnsetType, doc("one point: by metric, `ttft_ms`, `ttfvo_ms`, `tpot_ms`, `itl_ms`, `icl_ms`, `e2el_ms`")] = UNSET
    throughput: Annotated[Throughput | UnsetType, doc("one point: what the server delivered")] = UNSET
    goodput: Annotated[Goodput | UnsetType, doc("one point: requests that met `--goodput`'s targets")] = UNSET
    requests: Annotated[RequestCounts | UnsetType, doc("one point: how the requests ended, and every request")] = UNSET
    client: Annotated[ClientHealth | UnsetType, doc("one point: whether the client kept up")] = UNSET
    notes: Annotated[tuple[Note, ...], doc("what to know (warnings) and how it was made (info): the run's, and one point's own")] = ()
    repeat: Annotated[int | UnsetType, doc("one point: which run of its load this is (`--num-runs` above 1)")] = UNSET
    server_metrics: Annotated[ServerMetrics | UnsetType, doc("one point: the server's `/metrics` over it, when it answered")] = UNSET
    gpu_telemetry: Annotated[tuple[GpuTelemetry, ...] | UnsetType, doc("one point: a local server's GPUs over it, when NVML/amdsmi found them")] = UNSET
    slices: Annotated[Slices | UnsetType, doc("one point: in time slices (`--slice-duration`)")] = UNSET
    turns: Annotated[tuple[TurnRow, ...] | UnsetType, doc("one point: per turn of the conversations (`--multi-turn`)")] = UNSET
    prefix_groups: Annotated[GroupSplit | UnsetType, doc("one point: each shared prefix's first request against its later ones")] = UNSET
    server: Annotated[ServerInfo, doc("the server measured")]
    config: Annotated[dict[str, Any], doc("what was asked: every option of the command but the headers (`ServeOptions`: url, model, dataset, loads, goodput, profile, ...)")] = {}
    dataset: Annotated[str, doc("the prompts: dataset, count, lengths")]
    sweep: Annotated[Literal["list", "auto", "slo"] | None, doc("`list`, `auto` or `slo` for a sweep; null for one point")] = None
    slo_request_rate: Annotated[float | None | UnsetType, doc("the highest rate that met the targets (`--slo`; null: even one request at a time did not)")] = UNSET
    profile: Annotated[ProfileWindow | UnsetType, doc("the profiled window (`--profile`)")] = UNSET
    repeats: Annotated[tuple[Repeats, ...] | UnsetType, doc("per load run more than once (`--num-runs`): each metric across its runs")] = UNSET
    points: Annotated[tuple[ServePoint, ...] | UnsetType, doc("a sweep: one per load point and run, in the order run")] = UNSET

    @property
    def all_points(self) -> tuple[ServePoint, ...]:
        """Every load point, in the order run: a sweep's ``points``, or the one point at the top level."""
        if self.points is not UNSET:
            return self.points
        if self.load is UNSET or self.started_at is UNSET or self.duration_s is UNSET or self.metrics is UNSET \
                or self.throughput is UNSET or self.goodput is UNSET or self.requests is UNSET or self.client is UNSET:
            return ()
        return (ServePoint(aborted=self.aborted, load=self.load, started_at=self.started_at,
                           duration_s=self.duration_s, metrics=self.metrics, throughput=self.throughput,
                           goodput=self.goodput, requests=self.requests, client=self.client, notes=self.notes,
                           repeat=self.repeat, server_metrics=self.server_metrics, gpu_telemetry=self.gpu_telemetry,
                           slices=self.slices, turns=self.turns, prefix_groups=self.prefix_groups),)

    def nothing_completed(self) -> str | None:
        """Why the run is a failure although it ran to its end: a point where every request failed."""
        dead = [p for p in self.all_points if p.requests.completed == 0 and p.requests.failed]
        if not dead:
            return None
        kinds = ", ".join(f"{k} ({n})" for k, n in dead[0].requests.failures.items())
        first = next((r.error for r in dead[0].records if r.error), "")
        return f"no request completed at {dead[0].load.describe()}: {kinds}; first: {first}"

    @classmethod
    def from_dict(cls, data: Any) -> ServeOutput:
        """A serving run as ``serve --json`` printed it, as a stored run is read back, or as an older
        version wrote it (its points upgraded as :func:`~bench_kernel.records.upgrade_point` says).
        ValueError (msgspec's ValidationError) naming the first field that is wrong."""
        if not isinstance(data, dict):
            return from_builtins(data, cls)
        d = {k: v for k, v in data.items() if k != "kind"}
        if d.get("schema_version", 1) != SERVE_SCHEMA_VERSION:
            d = upgrade_point(d)
            if isinstance(d.get("server"), dict):
                d["server"] = {**d["server"], "notes": [n.to_dict() for n in notes_from(d["server"].get("notes") or ())]}
        # A stored run is rebuilt from its run row, which may not know every field: what the page
        # would show as unknown.
        d["server"] = d.get("server") or {"url": "?", "model": "?"}
        d["dataset"] = d.get("dataset") or "?"
        d["config"] = d.get("config") or {}
        if isinstance(d.get("points"), list):
            d["points"] = [upgrade_point(p) if isinstance(p, dict) else p for p in d["points"]]
        if isinstance(d.get("profile"), dict) and isinstance(d["profile"].get("point"), dict):
            d["profile"] = {**d["profile"], "point": upgrade_point(d["profile"]["point"])}
        return from_builtins(d, cls)


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


#: command -> the type of its ``--json`` document: every command that takes ``--json`` is here
#: (tests/test_json_docs.py holds this to the CLI).
DOCUMENTS: dict[str, type[Record]] = {
    "run": RunOutput,
    "roofline": RooflineOutput,
    "compare": CompareOutput,
    "sweep": SweepOutput,
    "history": HistoryOutput,
    "calibrate": Calibration,
    "report": ReportOutput,
    "source-trace": SourceTraceOutput,
    "profile": ProfileOutput,
    "serve": ServeOutput,
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
