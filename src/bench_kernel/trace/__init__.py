"""Kineto/Chrome traces: a fast loader, links (kernel <- launch <- op <- Python frame), and the
analyses behind ``inventory``, ``layers``, ``phases``, ``attribute``, ``diff`` and ``ops`` (per-op
performance from recorded shapes, with the roofline package's counting formulas).

Nothing here imports torch: traces are analysed on any machine. Times are microseconds.
``load_trace`` also reads Nsight Systems SQLite exports and rocprofv3 kernel traces (CSV, JSON) into
the same tables (``_formats.py`` tells them apart; ``_nsys.py``, ``_rocprof.py`` read them).

The per-kernel API (what the Source Trace builds on)::

    trace = load_trace("trace.json.gz", shapes=True)   # shapes: the ops' input dims and dtypes
    for i in trace.find_kernels("flash_fwd"):           # kernel indices, in start-time order
        k = trace.kernel(i, stack=True)                 # a KernelRecord
        k.name, k.short, k.category, k.dur_us, k.grid, k.block, k.regs, k.smem_bytes, k.graph_launched
        k.launch                                        # LaunchRecord: cudaLaunchKernel, hipGraphLaunch, ...
        k.op                                            # OpRecord: name, input_dims, input_types (or None)
        k.stack                                         # tuple[Frame(file, line, function)], outermost first

Python stacks are read lazily: ``trace.stack(i)`` re-reads the file once for the ``python_function``
events unless the trace was loaded with ``stacks=True``. Kernels replayed from a CUDA/HIP graph have
no op of their own (their launch is the graph launch); ``attribute(graph_trace, capture_trace)`` gives
them the op, module and stack of the launch that was captured.

Each analysis returns a record (``bench_kernel.records``) that names its trace and carries its load
notes. What a command prints with ``--json`` is that record with ``schema_version`` in front, and
``<command>_document(path, ...)`` returns it from the trace's path (``inventory_document``,
``timeline_document`` or ``ranks_document``, ``layers_document``, ``phases_document``, ``ops_document``,
``attribute_document``, ``diff_document``, ``sample_trace_document``).
"""

from bench_kernel.records import OpsReport, OpsRow, ShortKernelCount, Uncounted
from bench_kernel.trace._attribute import AttributedKernel, Attribution, attribute
from bench_kernel.trace._collectives import CollectiveCall, CollectiveGroup, Collectives, collective_calls
from bench_kernel.trace._diff import DiffRow, TraceDiff, diff
from bench_kernel.trace._documents import (
                                           Steps,
                                           attribute_document,
                                           diff_document,
                                           inventory_document,
                                           layers_document,
                                           ops_document,
                                           phases_document,
                                           ranks_document,
                                           sample_trace_document,
                                           timeline_document,
)
from bench_kernel.trace._inventory import Inventory, InventoryRow, MemoryOpRow, inventory
from bench_kernel.trace._launches import LaunchStats, QueueDepth
from bench_kernel.trace._layers import LayerPosition, LayerReport, LeftOut, layers
from bench_kernel.trace._load import find_rank_files, load_trace
from bench_kernel.trace._match import kernel_regex
from bench_kernel.trace._ops import ops
from bench_kernel.trace._phases import PhaseReport, PhaseSummary, annotated_tokens, phases
from bench_kernel.trace._ranks import CollectiveSkew, RankRow, RanksReport, rank_files, timeline_ranks
from bench_kernel.trace._records import MODULE_PREFIX, Frame, KernelRecord, LaunchRecord, OpRecord, Step, parse_frame
from bench_kernel.trace._sample import SAMPLE_TRACE_ABOUT, sample_trace
from bench_kernel.trace._steps import find_steps, kernel_steps
from bench_kernel.trace._tables import StepRules, load_step_rules
from bench_kernel.trace._timeline import Breakdown, StreamBusy, TimelineReport, timeline
from bench_kernel.trace._trace import Trace

__all__ = [
    "Steps",
    "attribute_document",
    "diff_document",
    "inventory_document",
    "layers_document",
    "ops_document",
    "phases_document",
    "ranks_document",
    "sample_trace_document",
    "timeline_document",
    "ShortKernelCount",
    "annotated_tokens",
    "MODULE_PREFIX",
    "SAMPLE_TRACE_ABOUT",
    "sample_trace",
    "AttributedKernel",
    "Attribution",
    "Breakdown",
    "CollectiveCall",
    "CollectiveGroup",
    "CollectiveSkew",
    "Collectives",
    "LaunchStats",
    "QueueDepth",
    "RankRow",
    "RanksReport",
    "StreamBusy",
    "TimelineReport",
    "collective_calls",
    "timeline",
    "timeline_ranks",
    "rank_files",
    "DiffRow",
    "Frame",
    "Inventory",
    "InventoryRow",
    "KernelRecord",
    "LaunchRecord",
    "LayerPosition",
    "LayerReport",
    "LeftOut",
    "MemoryOpRow",
    "OpRecord",
    "OpsReport",
    "OpsRow",
    "PhaseReport",
    "PhaseSummary",
    "Step",
    "StepRules",
    "Trace",
    "TraceDiff",
    "Uncounted",
    "attribute",
    "diff",
    "find_rank_files",
    "find_steps",
    "inventory",
    "kernel_regex",
    "kernel_steps",
    "layers",
    "load_step_rules",
    "load_trace",
    "ops",
    "parse_frame",
    "phases",
]
