"""Every record bench-kernel makes, each written once as a frozen ``msgspec.Struct``.

A record's fields are its JSON: encoded and decoded (with checks) by msgspec, described by the JSON
Schema of each ``--json`` document (:func:`schema`), from which ``docs/json.md`` is generated. Choices
are ``Literal`` types (methods, cache states, verdicts, kinds). Derived figures (medians, ratios) are
fields recomputed from what they derive from whenever a record is made or read.

This package sits low in the layers, below every package that makes records (``measure``,
``roofline``, ``counters``, ``results``, ...): those build them, and any package above can read
them typed. It imports numpy (statistics) but never torch.
"""

from bench_kernel.records._base import (
                                             Record,
                                             derive,
                                             doc,
                                             finite,
                                             from_builtins,
                                             to_builtins,
)
from bench_kernel.records._calibration import CALIBRATION_SCHEMA_VERSION, Calibration
from bench_kernel.records._comparison import (
                                             COMPARE_SCHEMA_VERSION,
                                             FAIL_ON,
                                             VERDICTS,
                                             Best,
                                             CompareOutput,
                                             Comparison,
                                             Explanation,
                                             FailOn,
                                             KernelDelta,
                                             MatchedPoint,
                                             Noise,
                                             NoiseFloors,
                                             NoiseSource,
                                             Reason,
                                             Unmatched,
                                             Verdict,
)
from bench_kernel.records._counters import (
                                             ADDITIVE,
                                             FLOP_KINDS,
                                             PRECISIONS,
                                             PROPERTIES,
                                             CounterReport,
                                             CounterTool,
                                             JoinedKernel,
                                             KernelCounters,
)
from bench_kernel.records._documents import (
                                             DOCUMENTS,
                                             HISTORY_SCHEMA_VERSION,
                                             OTHER_SHAPES,
                                             PROFILE_SCHEMA_VERSION,
                                             REPORT_SCHEMA_VERSION,
                                             ROOFLINE_SCHEMA_VERSION,
                                             RUN_SCHEMA_VERSION,
                                             SERVE_SCHEMA_VERSION,
                                             SOURCE_TRACE_SCHEMA_VERSION,
                                             SWEEP_SCHEMA_VERSION,
                                             CaseError,
                                             HistoryOutput,
                                             HistoryPoint,
                                             ProfileOutput,
                                             ReportInput,
                                             ReportOutput,
                                             RooflineOutput,
                                             RunOutput,
                                             ServeOutput,
                                             SourceTraceOutput,
                                             SweepOutput,
)
from bench_kernel.records._measurement import (
                                             CPU_WAIT_SHARE,
                                             ROUND_STATISTICS,
                                             ActivityKind,
                                             Cache,
                                             Check,
                                             KernelStat,
                                             MeasuredBy,
                                             Measurement,
                                             Method,
                                             RoundStatistic,
                                             StopReason,
                                             waited_for_cpu,
)
from bench_kernel.records._notes import (
                                             NOTE_KINDS,
                                             Note,
                                             NoteKind,
                                             info,
                                             notes_from,
                                             warning,
)
from bench_kernel.records._points import (
                                             POINT_STATUSES,
                                             PointResult,
                                             PointStatus,
                                             RunInfo,
                                             RunKind,
                                             RunStatus,
                                             params_key,
                                             params_text,
                                             point_label,
                                             status_of,
)
from bench_kernel.records._result import (
                                             PRIMARY_ORDER,
                                             RESULT_SCHEMA_VERSION,
                                             BenchResult,
                                             upgrade_result,
)
from bench_kernel.records._roofline import (
                                             ROOF_SOURCES,
                                             Bound,
                                             LaunchSource,
                                             Level,
                                             LevelPoint,
                                             MeasuredRoofline,
                                             ModelCheck,
                                             Roof,
                                             RoofAnalysis,
                                             RooflineResult,
)
from bench_kernel.records._samples import MIN_SAMPLES_FOR_CI, Samples, median_ci95_ranks
from bench_kernel.records._schema import markdown_sections, schema, version
from bench_kernel.records._serve import (
                                             N_OUT_SOURCES,
                                             STATUSES,
                                             ClientHealth,
                                             Goodput,
                                             LatencyStats,
                                             Load,
                                             NOutSource,
                                             RampStrategy,
                                             RequestCounts,
                                             RequestRecord,
                                             RequestStatus,
                                             ServePoint,
                                             ServerInfo,
                                             Tail,
                                             Throughput,
                                             WarmupCounts,
                                             upgrade_point,
)
from bench_kernel.records._serve_extra import (
                                             GpuTelemetry,
                                             GroupSplit,
                                             ServerMetrics,
                                             Slice,
                                             Slices,
                                             TurnRow,
                                             ViewRow,
)
from bench_kernel.records._serve_run import KernelView, ProfileWindow, Repeats, RepeatStat
from bench_kernel.records._source_trace import (
                                             KernelSite,
                                             KernelSource,
                                             LinkRole,
                                             ModuleNode,
                                             Overview,
                                             PathGroup,
                                             SourceFrame,
                                             SourceKind,
                                             SourceLink,
)

__all__ = [
    "Record", "derive", "doc", "finite", "from_builtins", "to_builtins",
    "Note", "NoteKind", "NOTE_KINDS", "info", "warning", "notes_from",
    "Samples", "median_ci95_ranks", "MIN_SAMPLES_FOR_CI",
    "Measurement", "KernelStat", "Check", "Method", "MeasuredBy", "Cache", "StopReason", "RoundStatistic",
    "ROUND_STATISTICS", "ActivityKind", "CPU_WAIT_SHARE", "waited_for_cpu",
    "Roof", "RoofAnalysis", "RooflineResult", "LevelPoint", "ModelCheck", "MeasuredRoofline", "Bound",
    "LaunchSource", "Level", "ROOF_SOURCES",
    "KernelCounters", "JoinedKernel", "CounterReport", "CounterTool", "ADDITIVE", "PROPERTIES", "FLOP_KINDS",
    "PRECISIONS",
    "BenchResult", "RESULT_SCHEMA_VERSION", "PRIMARY_ORDER", "upgrade_result",
    "RunInfo", "PointResult", "POINT_STATUSES", "PointStatus", "RunKind", "RunStatus", "params_key", "params_text",
    "point_label", "status_of",
    "DOCUMENTS", "OTHER_SHAPES", "CaseError", "RunOutput", "RooflineOutput", "RUN_SCHEMA_VERSION", "ROOFLINE_SCHEMA_VERSION",
    "schema", "markdown_sections", "version",
    "Verdict", "VERDICTS", "Noise", "NoiseSource", "Comparison", "KernelDelta", "Reason", "Explanation", "MatchedPoint",
    "Unmatched", "NoiseFloors", "CompareOutput", "Best", "COMPARE_SCHEMA_VERSION", "FailOn", "FAIL_ON",
    # sweep, history, calibrate, profile, source-trace, report, serve
    "SweepOutput", "SWEEP_SCHEMA_VERSION", "HistoryOutput", "HistoryPoint", "HISTORY_SCHEMA_VERSION",
    "Calibration", "CALIBRATION_SCHEMA_VERSION", "ReportOutput", "ReportInput", "REPORT_SCHEMA_VERSION",
    "SourceTraceOutput", "SOURCE_TRACE_SCHEMA_VERSION", "ProfileOutput", "PROFILE_SCHEMA_VERSION", "SourceFrame", "SourceLink", "KernelSource", "KernelSite",
    "PathGroup", "ModuleNode", "Overview", "LinkRole", "SourceKind",
    "ServeOutput", "SERVE_SCHEMA_VERSION", "ServePoint", "ServerInfo", "RequestRecord", "Load", "LatencyStats",
    "Tail", "Throughput", "Goodput", "WarmupCounts", "RequestCounts", "ClientHealth", "STATUSES", "N_OUT_SOURCES",
    "RequestStatus", "NOutSource", "RampStrategy", "upgrade_point", "ServerMetrics", "ViewRow", "GpuTelemetry",
    "Slice", "Slices", "TurnRow", "GroupSplit", "RepeatStat", "Repeats", "KernelView", "ProfileWindow",
]
