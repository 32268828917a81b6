"""Will a recording fit in memory? Measured per step on a short probe, projected, refused with one line.

``profile --steps 99999999999999999999`` kept every step in memory until the process hit its 5.7 GB
address-space cap and died with SIGABRT after 72 s, saying nothing. Where the memory goes,
measured on the CPU for a one-op step with Python stacks (``tests``' ``torch.add``, 4,000 steps): the
profiler grows by ~2 KB per step WHILE recording, then by ~70 KB per step when it stops and turns its
buffers into results. So the growth seen during a recording says little about its peak: the only
reliable number is a whole short recording's cost, stopped, per step. It is read as the heap bytes
in use (glibc's ``mallinfo2``): the resident size cannot see it, as a new recording reuses what the
last one freed. Two probes (2 and 6 steps) separate the per-step cost from a recording's fixed cost
(measured: 828 KiB fixed, 70 KiB per step; one 4-step probe alone says 277 KiB per step).
:func:`check_fits` compares the per-step cost, times the steps asked for, with what this process may
still take: the smaller of the system's free memory (``MemAvailable``), its cgroup's (``memory.max``)
and its address space (``RLIMIT_AS``).

Linux with glibc only (``/proc``, ``mallinfo2``); elsewhere nothing is checked.
"""

from __future__ import annotations

import ctypes
import resource
from pathlib import Path

from bench_kernel.errors import MeasurementError

__all__ = ["heap_bytes", "free_bytes", "check_fits"]

#: A recording may take this share of the memory left: the rest is for writing the trace out and
#: for reading it back (``profile``'s summary), and for everything else on the machine.
SHARE = 0.5


def _status(field: str) -> int | None:
    """A ``/proc/self/status`` field in bytes (``VmRSS``, ``VmSize``), or None."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


class _MallInfo2(ctypes.Structure):
    _fields_ = [(n, ctypes.c_size_t) for n in ("arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks",
                                                 "fsmblks", "uordblks", "fordblks", "keepcost")]


def _mallinfo2() -> object | None:
    try:
        fn = ctypes.CDLL(None).mallinfo2  # glibc >= 2.33
    except (OSError, AttributeError):
        return None
    fn.restype = _MallInfo2
    return fn


_MALLINFO2 = _mallinfo2()


def heap_bytes() -> int | None:
    """Bytes of C heap in use by this process (``malloc``'d, ``mmap``'d chunks included), or None
    without glibc's ``mallinfo2``."""
    if _MALLINFO2 is None:
        return None
    info = _MALLINFO2()  # type: ignore[operator]
    return int(info.uordblks + info.hblkhd)


def _read_int(path: str) -> int | None:
    try:
        text = Path(path).read_text().split()[0]
    except (OSError, IndexError):
        return None
    return int(text) if text.isdigit() else None


def free_bytes() -> tuple[int, str] | None:
    """(bytes this process may still take, what bounds it), or None when nothing tells."""
    found: list[tuple[int, str]] = []
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemAvailable:"):
                found.append((int(line.split()[1]) * 1024, "free memory"))
    except (OSError, ValueError, IndexError):
        pass
    cg_max, cg_now = _read_int("/sys/fs/cgroup/memory.max"), _read_int("/sys/fs/cgroup/memory.current")
    if cg_max is not None and cg_now is not None:
        found.append((max(0, cg_max - cg_now), "its cgroup's memory.max"))
    soft, _ = resource.getrlimit(resource.RLIMIT_AS)
    size = _status("VmSize")
    if soft != resource.RLIM_INFINITY and size is not None:
        found.append((max(0, soft - size), "its address space (RLIMIT_AS)"))
    return min(found) if found else None


def _size(n: float) -> str:
    return f"{n / 2**30:.1f} GiB" if n >= 2**30 else f"{n / 2**20:.0f} MiB" if n >= 2**20 else f"{n / 2**10:.0f} KiB"


def check_fits(per_step_bytes: float, steps: int, *, what: str = "recording",
               fix: str = "record fewer --steps") -> None:
    """MeasurementError when ``steps`` steps of ``per_step_bytes`` each would take more than
    :data:`SHARE` of the memory this process may still take."""
    free = free_bytes()
    if free is None or per_step_bytes <= 0:
        return
    budget, bound = SHARE * free[0], free[1]
    need = per_step_bytes * steps
    if need > budget:
        fits = max(1, int(budget / per_step_bytes))
        raise MeasurementError(
            f"{what} {steps} steps would take about {_size(need)} of memory ({_size(per_step_bytes)} per step, "
            f"measured on two short recordings), more than half of the {_size(free[0])} left ({bound}); at most about "
            f"{fits} steps fit here: {fix}")
