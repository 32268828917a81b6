"""Bring the GPU to its working clock before a case is timed: once per process, and again only
when the device has fallen back.

Why. An idle GPU with no CUDA context sits in a low-power state: the project's H200 read 345 MHz
before its first sweep, and that sweep's first point (torch.compile'd RMSNorm, tokens=1) read
2.167 us against 1.839 and 1.815 us in the next two runs, a false "faster" of 15%. A case's own
warm-up (``Runner.warmup``, until its time is stable) is too short to notice a clock still climbing.

When. The first measurement of a process holds a light load (back-to-back 1024^3 GEMMs: they keep
the device busy without reaching a power cap, whose swings never settle) until the SM clock
settles. After that, each measurement reads the clock once (NVML: ~2 us) and holds again only
when it reads more than :data:`FALLEN_FRACTION` below the working clock the last hold ended at:
the device idled back down, or the previous case left it power-capped. A first measurement that
reads the clock already within :data:`CLOCK_TOLERANCE` of the device's maximum has nothing to wait
for and skips the hold (a run right after another found the H100 at 1980 MHz and held 0.5 s for
nothing). Measured on the H200
(benchmarks/results/speed-h200-2026-12-02.md): with a CUDA context alive the clock stayed at 1980 MHz
through 5 s of idling, and it rose from a capped 1515 MHz back to 1980 MHz within 0.4 s of the
load lifting, so a ``bench()`` in a loop holds once, not per call.

Settled. The hold reads the clock once per :data:`WINDOW_S` window and ends when the last
:data:`SETTLE_WINDOWS` readings agree within :data:`CLOCK_TOLERANCE`. It does not wait for the
per-call time of the load to settle as well: the old rule did (four 100 ms windows within 1%),
and on the H200 the launch-bound GEMM's per-call time wandered 13-19 us from window to window at
a constant 1980 MHz, so the hold never settled and always cost its 5 s bound. Without a clock
reader (no NVML/amdsmi) nothing can be judged: a fixed :data:`FIXED_HOLD_S` hold once per
process, again after :data:`IDLE_REHOLD_S` without a measurement.

What was done is a record (``env["device_warmup"]`` of the run and of each result): ``action``
("held" or "skipped"), ``why``, ``held_s``, ``settled`` (None without a clock reader), the clocks.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from typing import Any, Callable, Sequence

from bench_kernel.measure._budget import calls_to_fill
from bench_kernel.measure._env import sm_clock_reader
from bench_kernel.measure._runner import Runner
from bench_kernel.measure._smi import monitor

__all__ = ["warm_up_device", "ensure_warm", "mark_busy", "warmup_decision", "clock_settled", "DEVICE_WARMUP_MAX_S"]

#: Hold the load at most this long (s): the H200's clock rose to its working value within 0.4 s.
DEVICE_WARMUP_MAX_S = 1.5
#: The clock is read once per window of this length (s) while holding.
WINDOW_S = 0.05
#: Settled: the last this many readings ...
SETTLE_WINDOWS = 3
#: ... agree within this fraction (max / min - 1).
CLOCK_TOLERANCE = 0.01
#: A clock below this fraction of the working clock seen means the device fell back: hold again.
FALLEN_FRACTION = 0.90
#: Without a clock reader: hold this long (s), once per process ...
FIXED_HOLD_S = 0.25
#: ... and again after this long (s) without a measurement.
IDLE_REHOLD_S = 30.0
#: The warm-up GEMM's size (n x n x n): a few us on current GPUs, far from a large GEMM's power draw.
_N = 1024


@dataclass
class _Seen:
    """What this process knows about one device."""

    #: the SM clock (MHz) the last hold ended at; None without a clock reader
    working_mhz: float | None = None
    #: perf_counter() when a measurement on it last ended (or the last hold)
    busy_at: float = 0.0


_SEEN: dict[int, _Seen] = {}
_LOCK = threading.Lock()


def clock_settled(readings: Sequence[float | None], n: int = SETTLE_WINDOWS,
                  tolerance: float = CLOCK_TOLERANCE) -> bool:
    """True when the last ``n`` clock readings (MHz) exist and agree within ``tolerance``."""
    last = list(readings[-n:])
    read = [r for r in last if r]  # None or 0: no reading
    if len(last) < n or len(read) < len(last):
        return False
    return max(read) / min(read) - 1 <= tolerance


def warmup_decision(seen: _Seen | None, clock_mhz: float | None, has_reader: bool, now_s: float,
                    max_mhz: float | None = None) -> tuple[bool, str]:
    """(hold?, why): the rule of the module docstring, as a pure function of what is known;
    ``max_mhz`` is the device's maximum SM clock (None: unknown)."""
    if seen is None:
        if clock_mhz and max_mhz and clock_mhz >= max_mhz * (1 - CLOCK_TOLERANCE):
            return False, (f"first measurement on this device in this process, and the SM clock already reads "
                           f"{clock_mhz:.0f} MHz, its maximum")
        return True, "first measurement on this device in this process"
    working = seen.working_mhz
    if not has_reader or working is None or clock_mhz is None:  # nothing to judge by: the idle time decides
        idle = now_s - seen.busy_at
        if idle > IDLE_REHOLD_S:
            return True, f"no SM clock reading, and the device idled {idle:.0f} s (over {IDLE_REHOLD_S:g} s)"
        return False, (f"no SM clock reading; the device was busy {idle:.1f} s ago (held again after "
                       f"{IDLE_REHOLD_S:g} s idle)")
    if clock_mhz < FALLEN_FRACTION * working:
        return True, (f"the SM clock fell to {clock_mhz:.0f} MHz, below {FALLEN_FRACTION:.0%} of the working "
                      f"clock {working:.0f} MHz")
    return False, f"the SM clock reads {clock_mhz:.0f} MHz, at the working clock ({working:.0f} MHz) of the last hold"


def _hold(device_index: int, read: Callable[[], float | None] | None, max_s: float) -> dict[str, Any]:
    """Hold the light load until the clock settles (or ``max_s``); without ``read``, ``FIXED_HOLD_S``."""
    import torch

    t0 = time.perf_counter()
    readings: list[float | None] = []
    with torch.cuda.device(device_index):
        dtype = torch.bfloat16 if torch.cuda.is_bf16_supported() else torch.float32
        a = torch.randn(_N, _N, device=f"cuda:{device_index}", dtype=dtype)
        b = torch.randn(_N, _N, device=f"cuda:{device_index}", dtype=dtype)
        runner = Runner(lambda: a @ b, [None], "device warm-up", gpu=True, device_index=device_index)
        runner.warmup(max_s=0.1)
        calls = calls_to_fill(WINDOW_S * 1e6, runner.est_us, hi=100_000)
        limit = max_s if read is not None else FIXED_HOLD_S

        def hold() -> bool:
            while True:
                # A window lasts WINDOW_S by the clock on the wall, not by the load's estimated call
                # time: an estimate too high made three windows 88 ms on the H100.
                w0 = time.perf_counter()
                while True:
                    for _ in range(calls):
                        runner.call()
                    runner.sync()
                    if time.perf_counter() - w0 >= WINDOW_S:
                        break
                if read is not None:
                    readings.append(read())
                    if clock_settled(readings):
                        return True
                held = time.perf_counter() - t0
                if held >= limit or (held >= FIXED_HOLD_S and not any(readings)):  # a reader that reads nothing
                    return False

        ok = runner.guarded("device warm-up", hold)
    return {"held_s": round(time.perf_counter() - t0, 3), "settled": ok if read is not None else None,
            "windows": len(readings), "sm_clock_after_mhz": readings[-1] if readings else None}


def _max_clock_mhz(device_index: int) -> float | None:
    """The device's maximum SM clock (MHz) from NVML/amdsmi; None where neither reads it."""
    mon = monitor(device_index)
    value = mon.state(["max_sm_clock_mhz"]).get("max_sm_clock_mhz") if mon is not None else None
    return float(value) if value else None


def ensure_warm(device_index: int = 0, max_s: float = DEVICE_WARMUP_MAX_S,
                read_clock: Callable[[], float | None] | None = None,
                read_max_clock: Callable[[int], float | None] | None = None) -> dict[str, Any]:
    """Hold the load on GPU ``device_index`` if the module docstring's rule says so; the record of
    what was done: ``action`` ("held" | "skipped"), ``why``, ``held_s``, ``settled`` (True/False, None
    without a clock reader or when skipped), ``sm_clock_before_mhz``, ``sm_clock_after_mhz``.
    read_clock: the SM clock reader (default: NVML/amdsmi's, None where neither is installed).
    read_max_clock: the device's maximum SM clock (MHz) by device index (default: NVML/amdsmi's)."""
    read = read_clock if read_clock is not None else sm_clock_reader(device_index)
    with _LOCK:
        seen = _SEEN.get(device_index)
        before = read() if read else None
        now = time.perf_counter()
        top = (read_max_clock or _max_clock_mhz)(device_index) if seen is None and before else None
        hold, why = warmup_decision(seen, before, read is not None, now, top)
        if not hold:
            if seen is None:  # at its maximum already: that is the working clock
                _SEEN[device_index] = seen = _Seen(working_mhz=before)
            seen.busy_at = now
            return {"action": "skipped", "why": why, "held_s": 0.0, "settled": None,
                    "sm_clock_before_mhz": before, "sm_clock_after_mhz": before}
        done = _hold(device_index, read, max_s)
        _SEEN[device_index] = _Seen(working_mhz=done["sm_clock_after_mhz"], busy_at=time.perf_counter())
        return {"action": "held", "why": why, "held_s": done["held_s"], "settled": done["settled"],
                "sm_clock_before_mhz": before, "sm_clock_after_mhz": done["sm_clock_after_mhz"],
                "windows": done["windows"]}


def mark_busy(device_index: int = 0) -> None:
    """Note that a measurement on ``device_index`` just ended (the idle time without a clock reader
    is counted from here)."""
    with _LOCK:
        seen = _SEEN.get(device_index)
        if seen is not None:
            seen.busy_at = time.perf_counter()


def warm_up_device(device_index: int = 0, max_s: float = DEVICE_WARMUP_MAX_S) -> dict[str, Any]:
    """Hold the load on GPU ``device_index`` now, whatever was done before: :func:`ensure_warm`'s
    record with ``action`` "held" (a fresh start, e.g. a benchmark that idles the GPU on purpose)."""
    with _LOCK:
        _SEEN.pop(device_index, None)
    return ensure_warm(device_index, max_s, read_max_clock=lambda _index: None)  # no maximum: never skipped
