"""The state of the machine a result was measured on: versions, device, clocks, temperature.

NVML (``pynvml`` from nvidia-ml-py) or amdsmi gives clocks, temperature and throttle reasons where
installed (``_smi``: which device, and how it was found); everything else comes from torch. Nothing
here may fail a measurement: a missing reading is recorded as absent.
"""

from __future__ import annotations

import functools
import importlib.util
import platform
import re
import sys
from pathlib import Path
from typing import Any, Callable

from bench_kernel.gpu import has_gpu, no_gpu_driver
from bench_kernel.measure._smi import monitor
from bench_kernel.records import Note, warning
from bench_kernel.vcs import head_commit

__all__ = ["capture_env", "gpu_state", "sm_clock_reader", "throttle_note", "triton_version"]

#: A drop of the SM clock by more than this fraction during a measurement is flagged.
THROTTLE_DROP_FRACTION = 0.10


@functools.lru_cache(maxsize=1)
def _git_commit() -> str | None:
    # The commit of the code being measured is the user's cwd, not bench-kernel's install.
    return head_commit(Path.cwd(), short=True)


#: What a measurement reads again after timing (``gpu_state(after=True)``): what moves while it runs
#: and what the throttling note and the report read; the rest (the memory and maximum clocks, the
#: power) was read before it.
AFTER_KEYS = ("sm_clock_mhz", "temperature_c", "throttle_reasons")


def gpu_state(index: int = 0, *, after: bool = False) -> dict[str, Any]:
    """SM and memory clocks (MHz), temperature (C), power (W) and throttle reasons, where readable
    (NVML on NVIDIA, amdsmi on AMD; the device found by its PCI address: ``_smi``); with ``after``
    only :data:`AFTER_KEYS` (half the calls: the state after a measurement)."""
    mon = monitor(index)
    return mon.state(AFTER_KEYS if after else None) if mon is not None else {}


def sm_clock_reader(index: int = 0) -> Callable[[], float | None] | None:
    """A cheap reader of the current SM clock (MHz) for per-sample records; None without NVML/amdsmi."""
    mon = monitor(index)
    return mon.sm_clock if mon is not None else None


def throttle_note(before: dict[str, Any], after: dict[str, Any]) -> Note | None:
    """A note when the SM clock fell by more than 10% between two readings, or NVML says why."""
    b, a = before.get("sm_clock_mhz"), after.get("sm_clock_mhz")
    reasons = sorted(set(after.get("throttle_reasons") or []) - {"sw_power_cap"})
    if b and a and a < b * (1 - THROTTLE_DROP_FRACTION):
        return warning("clock-throttled", f"clock throttling: SM clock fell from {b} to {a} MHz during the "
                       f"measurement" + (f" ({', '.join(reasons)})" if reasons else ""),
                       sm_clock_before_mhz=b, sm_clock_after_mhz=a, reasons=reasons)
    if reasons:
        return warning("clock-throttled", f"clock throttling reported by NVML: {', '.join(reasons)}", reasons=reasons)
    return None


def _version_in_source(package: str, file: str) -> str | None:
    """``__version__`` as ``package``'s ``file`` assigns it, read without importing the package
    (None: not installed, or the file computes it)."""
    try:
        spec = importlib.util.find_spec(package)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    try:
        text = (Path(next(iter(spec.submodule_search_locations))) / file).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    found = re.search(r"""^__version__\s*=\s*['"]([^'"]+)['"]""", text, re.M)
    return found.group(1) if found else None


def triton_version() -> str | None:
    """The installed triton's version (None: not installed), read from its ``__init__.py`` without
    importing it: its import (the compiler and its backends) is loading time that a run of torch ops
    never needs."""
    loaded = sys.modules.get("triton")
    if loaded is not None:
        return str(getattr(loaded, "__version__", None))
    found = _version_in_source("triton", "__init__.py")
    if found:
        return found
    try:
        if importlib.util.find_spec("triton") is None:
            return None
    except (ImportError, ValueError):
        return None
    try:  # a triton whose version is computed: ask it
        import triton
    except Exception:  # noqa: BLE001 - a broken triton is no reason to fail a measurement
        return None
    return str(getattr(triton, "__version__", None))


def capture_env(device_index: int = 0) -> dict[str, Any]:
    """Versions and device properties; GPU fields only when a GPU is present."""
    env: dict[str, Any] = {
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "git_commit": _git_commit(),
    }
    cpu = {"device": platform.processor() or platform.machine(), "backend": "cpu"}
    if "torch" not in sys.modules and no_gpu_driver():
        # No GPU can be here, and nothing has loaded torch: importing it (2-7 s, in every sweep
        # worker and fresh round process) would only read its version, which its version.py gives
        # (what torch.__version__ reports). cpu_threads then comes from the host method, which
        # records the count it ran with whenever the measured code loaded torch.
        version = _version_in_source("torch", "version.py")
        return {**env, **cpu, **({"torch": version, "triton": triton_version()} if version else {})}
    try:
        import torch
    except ImportError:
        return {**env, **cpu}
    env["torch"] = str(torch.__version__)
    env["triton"] = triton_version()
    if not has_gpu():
        return {**env, **cpu, "cpu_threads": torch.get_num_threads()}
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
    mon = monitor(device_index)
    if mon is not None:
        env["smi"] = {"backend": mon.backend, "lookup": mon.lookup}
    return env
