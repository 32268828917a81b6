"""The serving benchmark behind ``bench-kernel serve``: load an OpenAI-compatible LLM server (or
launch one), measure TTFT/TPOT/ITL/ICL/E2E, throughput and goodput exactly as the README defines
them, and (``--profile``) bring its kernels into the picture through ``bench_kernel.trace``.

Uses ``results`` and ``trace``; nothing below imports it. Pieces: datasets (``load_dataset``), the
load schedule (``Load``), the streaming client and its SSE reader, the driver (``drive``), the
metrics (``serve_metrics``), server launch (``launched``), sweeps and profile capture.
"""

from bench_kernel.serve._bench import ProfileWindow, ServeOptions, ServeRun, benchmark
from bench_kernel.serve._client import ENDPOINTS, Endpoint
from bench_kernel.serve._compare import COMPARED, ServeComparison, ServeComparisonRow, compare_serve, metric_samples
from bench_kernel.serve._datasets import DATASETS, Dataset, load_dataset, range_bounds
from bench_kernel.serve._drive import Outcome, drive
from bench_kernel.serve._launch import LaunchedServer, launched, log_tail, url_from_command, wait_ready
from bench_kernel.serve._load import Load, arrivals
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
from bench_kernel.serve._profile import KernelView, kernel_view, rank_of, wait_for_traces
from bench_kernel.serve._records import Prompt, RequestRecord
from bench_kernel.serve._run import SCHEMA_VERSION, ServePoint, ServerInfo, connect, run_point
from bench_kernel.serve._sse import SSEDecoder, StreamError, StreamState
from bench_kernel.serve._sweep import SATURATED, attainment, auto_sweep, saturation, slo_search, sweep_loads

__all__ = [
    "CLIENT_BOUND_MS", "DATASETS", "ENDPOINTS", "GOODPUT_METRICS", "LATENCY_METRICS", "SCHEMA_VERSION", "STAT_KEYS",
    "Dataset", "Endpoint", "LaunchedServer", "Load", "Outcome", "Prompt", "RequestRecord", "SSEDecoder",
    "ServeMetrics", "ServePoint", "ServerInfo", "StreamError", "StreamState", "arrivals", "connect", "drive",
    "launched", "load_dataset", "log_tail", "parse_goodput", "range_bounds", "run_point", "serve_metrics", "stats",
    "url_from_command", "wait_ready", "ProfileWindow", "ServeOptions", "ServeRun", "benchmark", "KernelView",
    "kernel_view", "COMPARED", "ServeComparison", "ServeComparisonRow", "compare_serve", "metric_samples", "rank_of", "wait_for_traces", "SATURATED", "attainment", "auto_sweep", "saturation", "slo_search", "sweep_loads",
]
