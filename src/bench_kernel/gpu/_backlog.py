"""A backlog kernel: keep the device busy while the host enqueues the timed calls.

``torch.cuda._sleep(cycles)`` spins one thread for a number of clock cycles; it touches no
memory, so it does not disturb the cache state the timed call starts from. The cycles-per-us
rate is measured once per process because the SM clock differs between devices and boosts.
"""

from __future__ import annotations

import functools

__all__ = ["sleep_us", "cycles_per_us"]


@functools.lru_cache(maxsize=8)
def cycles_per_us(device_index: int = 0) -> float:
    """The rate of ``torch.cuda._sleep`` on this device, in cycles per microsecond."""
    import torch

    with torch.cuda.device(device_index):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        torch.cuda._sleep(100_000)  # let the clock ramp up before the timed spin
        cycles = 2_000_000
        start.record()
        torch.cuda._sleep(cycles)
        end.record()
        end.synchronize()
        us = start.elapsed_time(end) * 1e3
    return cycles / us if us > 0 else 1000.0


def sleep_us(us: float, device_index: int = 0) -> None:
    """Enqueue a spin of about ``us`` microseconds on the current stream."""
    import torch

    if us > 0:
        torch.cuda._sleep(int(us * cycles_per_us(device_index)))
