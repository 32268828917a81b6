"""Record types for one trace event of each level: kernel, launch, CPU op, Python frame, step.

Times are microseconds (``*_us``), as Kineto writes them. Records are frozen and serialise with
``to_dict()``; the trace keeps columns, and builds a record only when one is asked for. A frame and
a step are in documents (``attribute``, ``phases``): they are ``bench_kernel.records``' records.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from typing import Any

from bench_kernel.records import MODULE_PREFIX, Frame, Step

__all__ = ["Frame", "LaunchRecord", "OpRecord", "KernelRecord", "Step", "parse_frame", "MODULE_PREFIX"]

# Kineto names a Python frame "path/to/file.py(123): function"; C functions and module markers
# ("<built-in method ...>", "nn.Module: Linear_0") have no file and line.
# DOTALL: "(?P<function>.*)$" then always reaches the end, so the lazy file group stops at the first
# "(<line>): " in O(1) per candidate. Without it a newline in a frame name failed every candidate
# after scanning to the newline: quadratic in a crafted name.
_FRAME = re.compile(r"^(?P<file>.+?)\((?P<line>\d{1,9})\): (?P<function>.*)$", re.DOTALL)


def parse_frame(text: str) -> Frame:
    """Parse a ``python_function`` event name such as ``model.py(42): forward`` into a :class:`Frame`."""
    m = _FRAME.match(text)
    if m is None:
        return Frame(None, None, text)
    return Frame(m.group("file"), int(m.group("line")), m.group("function"))


@dataclass(frozen=True)
class LaunchRecord:
    """The host API call that started a kernel (``cudaLaunchKernel``, ``hipGraphLaunch``, ...)."""

    name: str
    kind: str
    """From ``data/launch_apis.tsv``: kernel | graph | memcpy | memset | sync | capture_* | unknown."""
    start_us: float
    dur_us: float
    pid: int
    tid: int
    correlation: int
    external_id: int | None
    api_id: int | None
    """CUDA ``cbid`` or ROCm ``cid``: the runtime's own id of the API function."""
    kernel_name: str | None
    """The kernel name the launch event itself carries (ROCm records it; CUDA does not)."""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class OpRecord:
    """The CPU operator (``cpu_op`` event, e.g. ``aten::mm``) that launched a kernel."""

    name: str
    start_us: float
    dur_us: float
    pid: int
    tid: int
    external_id: int | None
    input_dims: tuple | None
    """``Input Dims`` as recorded (with ``record_shapes``), or ``None`` when not recorded/loaded."""
    input_types: tuple | None
    """``Input type`` (dtypes such as ``c10::BFloat16``), or ``None``."""
    concrete_inputs: tuple | None = None
    """``Concrete Inputs``: scalar arguments as text (``"True"``, ``"0.125"``), or ``None``."""
    input_strides: tuple | None = None
    """``Input Strides``, or ``None``."""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class KernelRecord:
    """One kernel execution on the device, with its links back to the host."""

    index: int
    """Position in the trace's kernels, ordered by start time."""
    name: str
    short: str
    family: str
    category: str
    start_us: float
    dur_us: float
    stream: int
    device: int
    correlation: int
    grid: tuple[int, int, int] | None
    block: tuple[int, int, int] | None
    regs: int | None
    """Registers per thread (CUDA traces only)."""
    smem_bytes: int | None
    """Shared memory per block, bytes (CUDA traces only)."""
    graph_launched: bool
    """Replayed from a CUDA/HIP graph (its launch is ``cudaGraphLaunch``/``hipGraphLaunch``)."""
    launch: LaunchRecord | None
    op: OpRecord | None
    stack: tuple[Frame, ...] | None = None
    """Python frames, outermost first; ``None`` when stacks were not asked for, ``()`` when none
    contain the launch. Use ``Trace.stack(i)`` to get it on demand."""

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["stack"] = None if self.stack is None else [f.to_dict() for f in self.stack]
        return d
