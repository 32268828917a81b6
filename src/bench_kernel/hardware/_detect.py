"""Which device is this: the current GPU's peak-table row and its driver. torch is imported lazily."""

from __future__ import annotations

import re
from pathlib import Path

from bench_kernel.errors import DeviceError
from bench_kernel.gpu import import_torch, require_gpu
from bench_kernel.hardware._peaks import DeviceSpec, peak_table

__all__ = ["detect_device", "driver_version", "resolve_reported"]


def resolve_reported(reported_name: str, sm_count: int | None = None) -> DeviceSpec:
    """The table row for the name PyTorch reports, cross-checked against its SM/CU count.

    The count check catches a MIG slice or partitioned GPU (same name, a fraction of the SMs) and a
    SKU the table does not know: both would otherwise get a roof several times too high.
    """
    table = peak_table()
    spec = table.lookup(reported_name)
    if spec is None:
        close = table.close_names(reported_name)
        near = f"close matches: {', '.join(close)}; " if close else ""
        raise DeviceError(f"this GPU reports itself as {reported_name!r}, which is not in the peak table; "
                          f"{near}pass --device NAME to use a table row anyway, or add the device to "
                          f"bench_kernel/hardware/data/peaks.json")
    if sm_count is not None and sm_count != spec.sm_count:
        raise DeviceError(f"this GPU ({reported_name!r}) reports {sm_count} SMs/CUs but the peak table's "
                          f"{spec.name!r} has {spec.sm_count}: a MIG/partitioned slice or another SKU, whose "
                          f"peaks differ; pass --device NAME to use a table row anyway")
    return spec


def detect_device(index: int | None = None) -> DeviceSpec:
    """The peak-table row of the current (or ``index``-th) CUDA/HIP device.

    Raises DeviceError without torch, without a GPU, for a name the table does not know and for an
    SM/CU count that does not match the row (see :func:`resolve_reported`).
    """
    torch = require_gpu("detecting the device", "pass --device NAME to choose a row of the peak table "
                        "('bench-kernel devices' lists them)")
    idx = torch.cuda.current_device() if index is None else index
    props = torch.cuda.get_device_properties(idx)
    return resolve_reported(props.name, props.multi_processor_count)


_NVIDIA_PROC = Path("/proc/driver/nvidia/version")
_AMDGPU_SYS = Path("/sys/module/amdgpu/version")


def driver_version() -> str:
    """The GPU driver version, for cache keys: e.g. ``"nvidia-580.65.06"``.

    Read from the kernel module (no NVML dependency); falls back to the CUDA/HIP version torch was
    built with when the module file is not readable (containers sometimes hide it).
    """
    try:
        m = re.search(r"Kernel Module\s+(?:for \S+\s+)?([0-9][0-9.]*)", _NVIDIA_PROC.read_text())
        if m:
            return f"nvidia-{m.group(1)}"
    except OSError:
        pass
    try:
        text = _AMDGPU_SYS.read_text().strip()
        if text:
            return f"amdgpu-{text}"
    except OSError:
        pass
    torch = import_torch()
    if getattr(torch.version, "hip", None):
        return f"hip-{torch.version.hip}"
    return f"cuda-{torch.version.cuda}"
