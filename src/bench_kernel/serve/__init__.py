"""The serving benchmark behind ``bench-kernel serve``: load an OpenAI-compatible LLM server (or
launch one), measure TTFT/TPOT/ITL/ICL/E2E, throughput and goodput exactly as docs/serving.md defines
them, and (``--profile``) bring its kernels into the picture through ``bench_kernel.trace``.

Uses ``results`` and ``trace``; nothing below imports it. Pieces: datasets (``load_dataset``), the
load schedule (``Load``), the streaming client and its SSE reader, the driver (``drive``), the
metrics (``serve_metrics``), server launch (``launched``), sweeps and profile capture; the server's
own view (``/metrics`` scraped: ``Scraper``, ``server_view``), GPU telemetry (``Sampler``), time
slices and per-turn/per-prefix breakdowns, workloads (``prefix_repetition``, ``mooncake``, multi-turn
ShareGPT), repeats (``--num-runs``) and the options record (``ServeOptions``, ``SERVE_FIELDS``).

What it returns are records of ``bench_kernel.records`` (``ServeOutput``, the ``serve --json``
document, its ``ServePoint``s, ``RequestRecord``s, ``Load``, ...), re-exported here for its callers.
"""

from bench_kernel.records import (
                                         GpuTelemetry,
                                         GroupSplit,
                                         KernelView,
                                         Load,
                                         ProfileWindow,
                                         Repeats,
                                         RepeatStat,
                                         RequestRecord,
                                         ServeOutput,
                                         ServePoint,
                                         ServerInfo,
                                         ServerMetrics,
                                         Slice,
                                         Slices,
                                         TurnRow,
                                         ViewRow,
)
from bench_kernel.serve._bench import DEFAULT_WARMUP, benchmark
from bench_kernel.serve._breakdown import cold_start, group_split, time_slices, turn_rows
from bench_kernel.serve._client import ENDPOINTS, Endpoint
from bench_kernel.serve._compare import (
                                         COMPARED,
                                         ServeComparison,
                                         ServeComparisonRow,
                                         compare_serve,
                                         metric_samples,
                                         verdict,
)
from bench_kernel.serve._datasets import DATASETS, Dataset, load_dataset, range_bounds
from bench_kernel.serve._drive import Outcome, drive
from bench_kernel.serve._launch import LaunchedServer, launched, log_tail, url_from_command, wait_ready
from bench_kernel.serve._load import arrivals
from bench_kernel.serve._metrics import (
                                         CLIENT_BOUND_MS,
                                         GOODPUT_METRICS,
                                         LATENCY_METRICS,
                                         STAT_KEYS,
                                         ServeMetrics,
                                         parse_goodput,
                                         serve_metrics,
                                         stats,
)
from bench_kernel.serve._options import SERVE_FIELDS, ServeField, ServeOptions, field_choices, field_help
from bench_kernel.serve._profile import kernel_view, rank_of, wait_for_traces
from bench_kernel.serve._prometheus import Family, histogram_quantile, parse_exposition, point_summary
from bench_kernel.serve._records import Prompt
from bench_kernel.serve._repeats import repeat_summary
from bench_kernel.serve._run import build_point, connect, run_point
from bench_kernel.serve._scrape import Scraper, probe_metrics
from bench_kernel.serve._server_view import server_view, summarize_scrapes
from bench_kernel.serve._sse import SSEDecoder, StreamError, StreamState
from bench_kernel.serve._sweep import SATURATED, attainment, auto_sweep, saturation, slo_search, sweep_loads
from bench_kernel.serve._telemetry import Sampler, open_gpus, telemetry_summary
from bench_kernel.serve._workloads import MOONCAKE_BLOCK

__all__ = [
    "CLIENT_BOUND_MS", "DATASETS", "ENDPOINTS", "GOODPUT_METRICS", "LATENCY_METRICS", "STAT_KEYS",
    "Dataset", "Endpoint", "LaunchedServer", "Load", "Outcome", "Prompt", "RequestRecord", "SSEDecoder",
    "ServeMetrics", "ServePoint", "ServerInfo", "StreamError", "StreamState", "arrivals", "connect", "drive",
    "launched", "load_dataset", "log_tail", "parse_goodput", "range_bounds", "run_point", "serve_metrics", "stats",
    "url_from_command", "wait_ready", "build_point", "ProfileWindow", "ServeOptions", "ServeOutput", "benchmark", "KernelView",
    "kernel_view", "COMPARED", "ServeComparison", "ServeComparisonRow", "compare_serve", "metric_samples", "rank_of",
    "wait_for_traces", "SATURATED", "attainment", "auto_sweep", "saturation", "slo_search", "sweep_loads", "verdict",
    "DEFAULT_WARMUP", "GroupSplit", "Slice", "Slices", "TurnRow", "cold_start", "group_split", "time_slices", "turn_rows",
    "SERVE_FIELDS", "ServeField", "field_choices", "field_help", "Family", "histogram_quantile", "parse_exposition", "point_summary",
    "RepeatStat", "Repeats", "repeat_summary", "Scraper", "probe_metrics", "ServerMetrics", "ViewRow", "server_view",
    "summarize_scrapes", "GpuTelemetry", "Sampler", "open_gpus", "telemetry_summary", "MOONCAKE_BLOCK",
]
