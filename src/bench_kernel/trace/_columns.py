"""The loaded trace's column tables: one frozen dataclass of equal-length numpy columns per event
kind. The reader builds them (``_events``) and :class:`~bench_kernel.trace._trace.Trace` holds them;
both import them from here, so that neither imports the other (``_trace`` and ``_load`` once
imported each other).
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

import numpy as np

__all__ = ["KernelTable", "LaunchTable", "OpTable", "AnnotationTable", "MemopTable", "PythonTable", "CommTable"]


class _Table:
    """Equal-length numpy columns; ``name`` holds ids into ``Trace.names``."""

    def __len__(self) -> int:
        return len(self.name)  # type: ignore[attr-defined]

    def take(self, idx: np.ndarray) -> Any:
        """The rows ``idx`` (an index or boolean array) as a table of the same type."""
        return type(self)(**{f.name: (None if getattr(self, f.name) is None else getattr(self, f.name)[idx])
                             for f in fields(self)})  # type: ignore[arg-type]


@dataclass(frozen=True)
class _Timed(_Table):
    name: np.ndarray
    start_us: np.ndarray
    dur_us: np.ndarray


@dataclass(frozen=True)
class _OnDevice(_Timed):
    stream: np.ndarray
    device: np.ndarray
    correlation: np.ndarray


@dataclass(frozen=True)
class _OnHost(_Timed):
    pid: np.ndarray
    tid: np.ndarray


@dataclass(frozen=True)
class KernelTable(_OnDevice):
    """``kernel`` events. Missing integers are -1 (e.g. ``regs`` on ROCm)."""

    external_id: np.ndarray
    grid: np.ndarray
    """shape (n, 3)"""
    block: np.ndarray
    regs: np.ndarray
    smem_bytes: np.ndarray


@dataclass(frozen=True)
class MemopTable(_OnDevice):
    """``gpu_memcpy``/``gpu_memset`` events: device work that is not a kernel."""

    bytes: np.ndarray
    kind: np.ndarray
    """0 memcpy, 1 memset"""


@dataclass(frozen=True)
class LaunchTable(_OnHost):
    """``cuda_runtime``/``cuda_driver`` events (ROCm writes the same categories)."""

    correlation: np.ndarray
    external_id: np.ndarray
    api_id: np.ndarray
    kernel_name: np.ndarray
    """id of the kernel name ROCm records on the launch itself, -1 when absent."""


@dataclass(frozen=True)
class OpTable(_OnHost):
    """``cpu_op`` events; shapes only when loaded with ``shapes=True``."""

    external_id: np.ndarray
    input_dims: np.ndarray | None = None
    input_types: np.ndarray | None = None
    concrete_inputs: np.ndarray | None = None
    """``Concrete Inputs``: the scalar arguments as text (``"True"``, ``"0.125"``, ``"[1, -1]"``)."""
    input_strides: np.ndarray | None = None


@dataclass(frozen=True)
class AnnotationTable(_OnHost):
    """``user_annotation`` (host) and ``gpu_user_annotation`` (device) events."""

    gpu: np.ndarray


@dataclass(frozen=True)
class CommTable(_OnHost):
    """Events that carry collective metadata (``Collective name``, ``In msg nelems``, ...): the
    ``record_param_comms`` CPU ops and, in newer PyTorch, the NCCL kernels themselves. Missing
    integers are -1 and missing strings -1 ids."""

    on_kernel: np.ndarray
    """True for a kernel event (its ``correlation`` is the kernel's), False for a CPU op."""
    correlation: np.ndarray
    external_id: np.ndarray
    collective: np.ndarray
    in_msg_nelems: np.ndarray
    out_msg_nelems: np.ndarray
    group_size: np.ndarray
    comm_dtype: np.ndarray
    pg_name: np.ndarray
    pg_desc: np.ndarray
    pg_ranks: np.ndarray
    """Name ids; ``Process Group Ranks`` as written ("[0, 1]"), lists joined the same way."""


@dataclass(frozen=True)
class PythonTable(_OnHost):
    """``python_function`` events (only the ``nn.Module:`` markers unless loaded with stacks)."""
