"""Kineto/Chrome traces: a fast loader, links (kernel <- launch <- op <- Python frame), and the
analyses behind ``inventory``, ``layers``, ``phases``, ``attribute`` and ``diff``.

Nothing here imports torch: traces are analysed on any machine.

For a kernel ``i`` of ``trace = load_trace(path)`` (kernels are in start-time order):
``trace.kernel(i)`` is a :class:`KernelRecord` with name, short name, category, times (µs),
grid/block, registers, shared memory, the graph-replay flag, its :class:`LaunchRecord` and its
:class:`OpRecord` (op name, input dims and dtypes when loaded with ``shapes=True``);
``trace.stack(i)`` is its Python call stack as :class:`Frame` objects, outermost first (loaded
from the file on first use, or up front with ``load_trace(path, stacks=True)``).
"""

from bench_kernel.trace._attribute import AttributedKernel, Attribution, attribute
from bench_kernel.trace._diff import DiffRow, TraceDiff, diff
from bench_kernel.trace._inventory import Inventory, InventoryRow, MemoryOpRow, inventory
from bench_kernel.trace._layers import LayerPosition, LayerReport, LeftOut, layers
from bench_kernel.trace._load import find_rank_files, load_trace
from bench_kernel.trace._phases import PhaseReport, PhaseSummary, phases
from bench_kernel.trace._records import Frame, KernelRecord, LaunchRecord, OpRecord, Step, parse_frame
from bench_kernel.trace._steps import find_steps, kernel_steps
from bench_kernel.trace._tables import StepRules, load_step_rules
from bench_kernel.trace._trace import Trace

__all__ = [
    "AttributedKernel",
    "Attribution",
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
    "PhaseReport",
    "PhaseSummary",
    "Step",
    "StepRules",
    "Trace",
    "TraceDiff",
    "attribute",
    "diff",
    "find_rank_files",
    "find_steps",
    "inventory",
    "kernel_steps",
    "layers",
    "load_step_rules",
    "load_trace",
    "parse_frame",
    "phases",
]
