"""Kineto/Chrome traces: a fast loader, links (kernel <- launch <- op <- Python frame), and the
analyses behind ``inventory``, ``layers``, ``phases``, ``attribute`` and ``diff``.

Nothing here imports torch: traces are analysed on any machine.
"""

from bench_kernel.trace._load import load_trace
from bench_kernel.trace._records import Frame, KernelRecord, LaunchRecord, OpRecord, Step, parse_frame
from bench_kernel.trace._tables import load_step_rules
from bench_kernel.trace._trace import Trace

__all__ = [
    "Frame",
    "KernelRecord",
    "LaunchRecord",
    "OpRecord",
    "Step",
    "Trace",
    "load_step_rules",
    "load_trace",
    "parse_frame",
]
