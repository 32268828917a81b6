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
                                             DECODE_SCHEMA_VERSION,
                                             DEVICES_SCHEMA_VERSION,
                                             DOCUMENTS,
                                             OTHER_SHAPES,
                                             ROOFLINE_SCHEMA_VERSION,
                                             RUN_SCHEMA_VERSION,
                                             CaseError,
                                             DecodeOutput,
                                             DevicesOutput,
                                             RooflineOutput,
                                             RunOutput,
)
from bench_kernel.records._kernels import CATEGORIES, FAMILIES, Category, Family, KernelName
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
    # the trace commands, decode and devices
    "KernelName", "Family", "Category", "FAMILIES", "CATEGORIES", "DecodeOutput", "DECODE_SCHEMA_VERSION",
    "DeviceSpec", "Vendor", "DevicesOutput", "DEVICES_SCHEMA_VERSION",
]
