"""Bring an idle GPU to its working clock before the first case is timed.

An idle GPU sits in a low-power state: the project's H200 read 345 MHz before its first sweep,
and that sweep's first point (torch.compile'd RMSNorm, tokens=1) read 2.167 us against 1.839 and
1.815 us in the next two runs: a false "faster" of 15% in two of three comparisons (issue 20). A
case's own warm-up (``Runner.warmup``, at most 0.5 s, until its time is stable) is too short to
notice a clock still climbing. So before the first case of a run (a sweep, ``run``, a pytest
session, a worker process) the device is held under a load -- back-to-back 1024^3 GEMMs, a few
microseconds each, which keep it busy and out of its idle state without driving it into a power
cap (a cap makes the clock swing and never settle) -- until the SM clock and the per-call time
settle (``_steady.settled``: four ~100 ms windows within 1%), or :data:`DEVICE_WARMUP_MAX_S`.
Without a clock reader (no NVML/amdsmi) the per-call time alone decides. What happened is stored
with the run's env (``device_warmup``: seconds held, clock before and after, settled or not).
"""

from __future__ import annotations

import time
from typing import Any

from bench_kernel.measure._env import sm_clock_reader
from bench_kernel.measure._runner import Runner
from bench_kernel.measure._steady import hold_until_settled

__all__ = ["warm_up_device", "DEVICE_WARMUP_MAX_S"]

#: Hold the warm-up load at most this long (s).
DEVICE_WARMUP_MAX_S = 5.0
#: The warm-up GEMM's size (n x n x n): a few us on current GPUs, far from a large GEMM's power draw.
_N = 1024


def warm_up_device(device_index: int = 0, max_s: float = DEVICE_WARMUP_MAX_S) -> dict[str, Any]:
    """Hold a load on GPU ``device_index`` until its clock settles (module docstring); a record
    of what happened (``held_s``, ``settled``, ``sm_clock_before_mhz``, ``sm_clock_after_mhz``)."""
    import torch

    read = sm_clock_reader(device_index)
    before = read() if read else None
    t0 = time.perf_counter()
    with torch.cuda.device(device_index):
        dtype = torch.bfloat16 if torch.cuda.is_bf16_supported() else torch.float32
        a = torch.randn(_N, _N, device=f"cuda:{device_index}", dtype=dtype)
        b = torch.randn(_N, _N, device=f"cuda:{device_index}", dtype=dtype)
        runner = Runner(lambda: a @ b, [None], "device warm-up", gpu=True, device_index=device_index)
        runner.warmup()
        settle = hold_until_settled(runner, read or (lambda: None), max_s=max_s)
    return {"held_s": round(time.perf_counter() - t0, 3), "settled": settle.settled,
            "sm_clock_before_mhz": before, "sm_clock_after_mhz": settle.clock_mhz}
