"""The state of the machine a result was measured on: versions, device, clocks, temperature.

NVML (``pynvml`` from nvidia-ml-py) gives clocks, temperature and throttle reasons where it is
installed; everything else comes from torch. Nothing here may fail a measurement: a missing
reading is recorded as absent.
"""

from __future__ import annotations

import functools
import platform
import sys
from pathlib import Path
from typing import Any, Callable

from bench_kernel.vcs import head_commit

__all__ = ["capture_env", "gpu_state", "sm_clock_reader", "throttle_note"]

#: A drop of the SM clock by more than this fraction during a measurement is flagged.
THROTTLE_DROP_FRACTION = 0.10


@functools.lru_cache(maxsize=1)
def _git_commit() -> str | None:
    # The commit of the code being measured is the user's cwd, not bench-kernel's install.
    return head_commit(Path.cwd(), short=True)


@functools.lru_cache(maxsize=4)
def _nvml_handle(index: int) -> Any:
    try:
        import pynvml

        pynvml.nvmlInit()
        return pynvml.nvmlDeviceGetHandleByIndex(index)
    except Exception:  # noqa: BLE001 - NVML absent, wrong driver, ROCm: no readings, no failure
        return None


def gpu_state(index: int = 0) -> dict[str, Any]:
    """SM and memory clocks (MHz), temperature (C), power (W) and throttle reasons, if readable."""
    handle = _nvml_handle(index)
    if handle is None:
        return {}
    import pynvml

    state: dict[str, Any] = {}
    readers = {
        "sm_clock_mhz": lambda: pynvml.nvmlDeviceGetClockInfo(handle, pynvml.NVML_CLOCK_SM),
        "mem_clock_mhz": lambda: pynvml.nvmlDeviceGetClockInfo(handle, pynvml.NVML_CLOCK_MEM),
        "max_sm_clock_mhz": lambda: pynvml.nvmlDeviceGetMaxClockInfo(handle, pynvml.NVML_CLOCK_SM),
        "temperature_c": lambda: pynvml.nvmlDeviceGetTemperature(handle, pynvml.NVML_TEMPERATURE_GPU),
        "power_w": lambda: pynvml.nvmlDeviceGetPowerUsage(handle) / 1000.0,
        "throttle_reasons": lambda: _throttle_reasons(pynvml, handle),
    }
    for key, read in readers.items():
        try:
            state[key] = read()
        except Exception:  # noqa: BLE001 - one unreadable counter must not hide the others
            pass
    return state


def sm_clock_reader(index: int = 0) -> Callable[[], float | None] | None:
    """A cheap reader of the current SM clock (MHz) for per-sample records; None without NVML."""
    handle = _nvml_handle(index)
    if handle is None:
        return None
    import pynvml

    def read() -> float | None:
        try:
            return float(pynvml.nvmlDeviceGetClockInfo(handle, pynvml.NVML_CLOCK_SM))
        except Exception:  # noqa: BLE001 - a failed reading is an absent one
            return None

    return read


def _throttle_reasons(pynvml: Any, handle: Any) -> list[str]:
    mask = pynvml.nvmlDeviceGetCurrentClocksEventReasons(handle) if hasattr(
        pynvml, "nvmlDeviceGetCurrentClocksEventReasons") else pynvml.nvmlDeviceGetCurrentClocksThrottleReasons(handle)
    names = {
        "nvmlClocksThrottleReasonSwPowerCap": "sw_power_cap",
        "nvmlClocksThrottleReasonHwSlowdown": "hw_slowdown",
        "nvmlClocksThrottleReasonSwThermalSlowdown": "sw_thermal",
        "nvmlClocksThrottleReasonHwThermalSlowdown": "hw_thermal",
        "nvmlClocksThrottleReasonHwPowerBrakeSlowdown": "hw_power_brake",
    }
    return [label for attr, label in names.items() if mask & getattr(pynvml, attr, 0)]


def throttle_note(before: dict[str, Any], after: dict[str, Any]) -> str | None:
    """A note when the SM clock fell by more than 10% between two readings, or NVML says why."""
    b, a = before.get("sm_clock_mhz"), after.get("sm_clock_mhz")
    reasons = sorted(set(after.get("throttle_reasons") or []) - {"sw_power_cap"})
    if b and a and a < b * (1 - THROTTLE_DROP_FRACTION):
        return f"clock throttling: SM clock fell from {b} to {a} MHz during the measurement" + (
            f" ({', '.join(reasons)})" if reasons else "")
    if reasons:
        return f"clock throttling reported by NVML: {', '.join(reasons)}"
    return None


def capture_env(device_index: int = 0) -> dict[str, Any]:
    """Versions and device properties; GPU fields only when a GPU is present."""
    env: dict[str, Any] = {
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "git_commit": _git_commit(),
    }
    try:
        import torch
    except ImportError:
        env["device"] = platform.processor() or platform.machine()
        env["backend"] = "cpu"
        return env
    env["torch"] = torch.__version__
    try:
        import triton

        env["triton"] = triton.__version__
    except ImportError:
        env["triton"] = None
    if not torch.cuda.is_available():
        env["device"] = platform.processor() or platform.machine()
        env["backend"] = "cpu"
        env["cpu_threads"] = torch.get_num_threads()
        return env
    from bench_kernel.hardware import driver_version  # one reader of the driver version

    props = torch.cuda.get_device_properties(device_index)
    env.update({
        "backend": "hip" if torch.version.hip else "cuda",
        "device": props.name,
        "device_index": device_index,
        "sm_count": props.multi_processor_count,
        "l2_bytes": int(getattr(props, "L2_cache_size", 0)) or None,
        "memory_bytes": int(props.total_memory),
        "compute_capability": f"{props.major}.{props.minor}",
        "cuda": torch.version.cuda,
        "hip": torch.version.hip,
        "driver": driver_version(),
    })
    return env
