"""The ``host`` method: wall clock around batches of calls, synchronised at the end.

The only method without a GPU, and on a GPU the cost a Python caller sees, launch included.
Each sample also records how long this process's threads waited for a CPU while it ran, and the
process CPU time (``_cpuwait``): a sample that waited is kept in the record but left out of the
statistic (``records.waited_for_cpu``), and when every sample waited the method refuses to give a
time rather than give the scheduler's.
"""

from __future__ import annotations

import time

from bench_kernel.measure._budget import calls_to_fill
from bench_kernel.measure._cpuwait import CpuClock, machine_load, torch_threads, wait_text
from bench_kernel.measure._method import Timed
from bench_kernel.measure._runner import Runner
from bench_kernel.measure._stopping import StoppingRule
from bench_kernel.records import Measurement, waited_for_cpu

__all__ = ["HostMethod"]

#: One sample lasts at least this long (us), so timer resolution and call jitter average out.
SAMPLE_TARGET_US = 1000.0


class HostMethod:
    """Per-call wall time: ``perf_counter`` around ``calls_per_sample`` calls plus one sync.

    cache: the L2 state the input rotation gives the calls (``"cold"`` when the sets exceed L2).
    """

    name = "host"

    def __init__(self, cache: str) -> None:
        self.cache = cache

    def run(self, runner: Runner, rule: StoppingRule) -> Timed:
        """Sample until ``rule`` is finished; samples that waited for a CPU are added to it as left out."""
        cps = calls_to_fill(SAMPLE_TARGET_US, runner.est_us, hi=100_000)
        t_start = time.perf_counter()
        walls: list[float] = []
        waits: list[float] = []
        cpus: list[float] = []

        def loop(cpu: CpuClock) -> None:
            while not rule.is_finished():
                before = cpu.read()
                t0 = time.perf_counter()
                for _ in range(cps):
                    runner.call()
                runner.sync()
                t1 = time.perf_counter()
                after = cpu.read()
                wall = (t1 - t0) / cps * 1e6
                walls.append(wall)
                if before is None or after is None:
                    rule.add([wall])
                    continue
                wait = after.wait_since(before) / cps / 1e3
                waits.append(wait)
                cpus.append((after.cpu_ns - before.cpu_ns) / cps / 1e3)
                rule.add([wall], left_out=waited_for_cpu(wall, wait))

        with CpuClock() as cpu:
            runner.guarded("host timing", lambda: loop(cpu))
        wall_s = time.perf_counter() - t_start
        if len(waits) != len(walls):  # schedstat vanished mid-way (it does not): judge nothing
            waits, cpus = [], []
        fields = dict(calls_per_sample=cps, cache=self.cache, stop_reason=rule.reason, wall_s=wall_s,
                      cpu_wait_us=tuple(waits), cpu_us=tuple(cpus))
        if walls and rule.n == 0:
            share = sum(waits) / sum(walls) if sum(walls) > 0 else 0.0
            return Timed(Measurement.of("host", tuple(walls), **fields, error=(
                f"every one of the {len(walls)} samples {wait_text(share, machine_load(), torch_threads())}; "
                f"no sample ran through, so no time is given: fewer threads (--threads 1) or a quieter machine")))
        return Timed(Measurement.of("host", tuple(walls), **fields))
