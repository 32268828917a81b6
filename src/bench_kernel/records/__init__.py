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
from bench_kernel.records._devices import DeviceSpec, Vendor
from bench_kernel.records._documents import (
                                             ATTRIBUTE_SCHEMA_VERSION,
                                             DECODE_SCHEMA_VERSION,
                                             DEVICES_SCHEMA_VERSION,
                                             DIFF_SCHEMA_VERSION,
                                             DOCUMENTS,
                                             INVENTORY_SCHEMA_VERSION,
                                             LAYERS_SCHEMA_VERSION,
                                             OPS_SCHEMA_VERSION,
                                             OTHER_DOCUMENTS,
                                             OTHER_SHAPES,
                                             PHASES_SCHEMA_VERSION,
                                             ROOFLINE_SCHEMA_VERSION,
                                             RUN_SCHEMA_VERSION,
                                             SAMPLE_TRACE_SCHEMA_VERSION,
                                             TIMELINE_SCHEMA_VERSION,
                                             AttributeOutput,
                                             CaseError,
                                             DecodeOutput,
                                             DevicesOutput,
                                             DiffOutput,
                                             InventoryOutput,
                                             LayersOutput,
                                             OpsOutput,
                                             PhasesOutput,
                                             RanksOutput,
                                             RooflineOutput,
                                             RunOutput,
                                             SampleTraceOutput,
                                             TimelineOutput,
)
from bench_kernel.records._kernels import CATEGORIES, FAMILIES, Category, Family, KernelName
from bench_kernel.records._layers import (
                                             LayerPosition,
                                             LayerReport,
                                             LeftOut,
                                             OutsideSteps,
                                             PhaseMethod,
                                             PhaseReport,
                                             PhaseStep,
                                             PhaseSummary,
                                             StepPhase,
                                             TopKernel,
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
from bench_kernel.records._ops import OpsBy, OpsReport, OpsRow, TimeBase, Uncounted
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
from bench_kernel.records._timeline import (
                                             Breakdown,
                                             CollectiveCall,
                                             CollectiveGroup,
                                             Collectives,
                                             CollectiveSkew,
                                             LaunchStats,
                                             MetadataSource,
                                             QueueDepth,
                                             RankRow,
                                             RanksReport,
                                             ShortKernelCount,
                                             StragglerBasis,
                                             StreamBusy,
                                             TimelineReport,
)
from bench_kernel.records._trace import (
                                             MODULE_PREFIX,
                                             UNSURE_BELOW,
                                             AttributedKernel,
                                             Attribution,
                                             CountTime,
                                             DiffRow,
                                             DiffStatus,
                                             Frame,
                                             GroupBy,
                                             Inventory,
                                             InventoryRow,
                                             MemoryOpRow,
                                             Phase,
                                             Step,
                                             TraceDiff,
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
    "OTHER_DOCUMENTS",
    # the trace commands, decode and devices
    "KernelName", "Family", "Category", "FAMILIES", "CATEGORIES", "DecodeOutput", "DECODE_SCHEMA_VERSION",
    "DeviceSpec", "Vendor", "DevicesOutput", "DEVICES_SCHEMA_VERSION",
    "MODULE_PREFIX", "Frame", "Phase", "Step", "SampleTraceOutput", "SAMPLE_TRACE_SCHEMA_VERSION",
    "Inventory", "InventoryRow", "CountTime", "MemoryOpRow", "GroupBy", "InventoryOutput", "INVENTORY_SCHEMA_VERSION",
    "TraceDiff", "DiffRow", "DiffStatus", "DiffOutput", "DIFF_SCHEMA_VERSION",
    "Attribution", "AttributedKernel", "UNSURE_BELOW", "AttributeOutput", "ATTRIBUTE_SCHEMA_VERSION",
    "LayerReport", "LayerPosition", "LeftOut", "StepPhase", "LayersOutput", "LAYERS_SCHEMA_VERSION",
    "PhaseReport", "PhaseSummary", "PhaseStep", "PhaseMethod", "TopKernel", "OutsideSteps", "PhasesOutput",
    "PHASES_SCHEMA_VERSION",
    "OpsReport", "OpsRow", "Uncounted", "OpsBy", "TimeBase", "OpsOutput", "OPS_SCHEMA_VERSION",
    "TimelineReport", "Breakdown", "StreamBusy", "LaunchStats", "QueueDepth", "ShortKernelCount", "Collectives",
    "CollectiveGroup", "CollectiveCall", "MetadataSource", "TimelineOutput", "TIMELINE_SCHEMA_VERSION",
    "RanksReport", "RankRow", "CollectiveSkew", "StragglerBasis", "RanksOutput",
]
