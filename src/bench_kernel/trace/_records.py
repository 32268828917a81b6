"""Record types for one trace event of each level: kernel, launch, CPU op, Python frame, step.

Times are microseconds (``*_us``), as Kineto writes them. Records are frozen and serialise with
``to_dict()``; the trace keeps columns, and builds a record only when one is asked for.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from typing import Any

__all__ = ["Frame", "LaunchRecord", "OpRecord", "KernelRecord", "Step", "parse_frame", "MODULE_PREFIX"]

#: How the profiler names the frame of an nn.Module call (``with_modules``): "nn.Module: LlamaMLP_0".
MODULE_PREFIX = "nn.Module: "

# Kineto names a Python frame "path/to/file.py(123): function"; C functions and module markers
# ("<built-in method ...>", "nn.Module: Linear_0") have no file and line.
# DOTALL: "(?P<function>.*)$" then always reaches the end, so the lazy file group stops at the first
# "(<line>): " in O(1) per candidate. Without it a newline in a frame name failed every candidate
# after scanning to the newline: quadratic in a crafted name.
_FRAME = re.compile(r"^(?P<file>.+?)\((?P<line>\d{1,9})\): (?P<function>.*)$", re.DOTALL)


@dataclass(frozen=True)
class Frame:
    """One Python frame of a call stack."""

    file: str | None
    """Source file as the profiler recorded it (``None`` for built-ins and module markers)."""
    line: int | None
    """1-based line number, or ``None``."""
    function: str
    """Function name; for module markers the whole text, e.g. ``nn.Module: LlamaMLP_0``."""

    @property
    def is_module(self) -> bool:
        """True for the ``nn.Module: X`` markers the profiler adds with ``with_modules``."""
        return self.file is None and self.function.startswith(MODULE_PREFIX)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


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
        return asdict(self)


@dataclass(frozen=True)
class Step:
    """One iteration of the workload (an engine step, a profiler step, a model forward)."""

    index: int
    name: str
    start_us: float
    end_us: float
    """Host-side interval: a kernel belongs to the step whose interval contains its launch."""
    phase: str | None
    """prefill | decode | mixed, from the annotation or from ``phases``; ``None`` when unknown."""
    source: str
    """The step rule that found it (``vllm``, ``sglang``, ``profiler_step``, ``model_module``, ...)."""
    fields: dict[str, str]
    """Named groups of the rule's regex (batch size, token count, ...)."""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)
