"""Whether a host sample waited for a CPU: this process's run-queue wait and CPU time, and the load.

On a machine shared with other work, a wall-clock sample times the scheduler as much as the callable.
A 1M-element ``clone`` on a 2-core machine with three busy processes read 726 us per call with torch's
2 intra-op threads, against ~124 us on the quiet machine: each call's parallel region waits until
both of its threads are scheduled. Linux counts, per thread, the time it spent runnable but not
running: the second field of ``/proc/<pid>/task/<tid>/schedstat``, in ns (the kernel's
``Documentation/scheduler/sched-stats.rst``). Summed over this process's threads around one sample,
it says how long the sample waited for a CPU: near 0 on a quiet machine, 125% of the wall time
there. The process CPU time (``CLOCK_PROCESS_CPUTIME_ID``) is read with it.

:class:`CpuClock` keeps one descriptor per thread open and re-reads it with ``pread`` (~5 us for
four threads), where opening the files anew each time cost ~35 us: the readings frame each sample,
outside its timed interval. Where ``/proc`` has no schedstat (macOS, a kernel without
``CONFIG_SCHED_INFO``), nothing is read and no sample is judged.
"""

from __future__ import annotations

import math
import os
import sys
import threading
import time
from dataclasses import dataclass

from bench_kernel.records import CPU_WAIT_SHARE, Measurement, Note, warning

__all__ = ["CpuClock", "CpuReading", "Load", "machine_load", "torch_threads", "fitting_threads", "wait_text",
           "cpu_wait_note"]

_TASKS = "/proc/self/task"


@dataclass(frozen=True)
class CpuReading:
    """One reading: each live thread's run-queue wait so far (tid -> ns) and the process CPU time (ns)."""

    waits_ns: dict[str, int]
    cpu_ns: int

    def wait_since(self, before: "CpuReading") -> int:
        """The run-queue wait (ns) of this process's threads since ``before``. A thread born in
        between counts from its start; one that ended in between is lost (its file is gone)."""
        return sum(max(w - before.waits_ns.get(t, 0), 0) for t, w in self.waits_ns.items())


class CpuClock:
    """Reads this process's threads' run-queue wait and the process CPU time; ``available`` is
    False where the kernel does not expose schedstat (then :meth:`read` returns None)."""

    def __init__(self) -> None:
        self._fds: dict[str, int] = {}
        self.available = os.path.exists(f"{_TASKS}/{threading.get_native_id()}/schedstat")

    def read(self) -> CpuReading | None:
        if not self.available:
            return None
        waits: dict[str, int] = {}
        try:
            tids = os.listdir(_TASKS)
        except OSError:
            return None
        for tid in tids:
            fd = self._fds.get(tid)
            try:
                if fd is None:
                    fd = self._fds[tid] = os.open(f"{_TASKS}/{tid}/schedstat", os.O_RDONLY)
                waits[tid] = int(os.pread(fd, 128, 0).split()[1])
            except (OSError, IndexError, ValueError):  # the thread ended between listdir and read
                if fd is not None:
                    self._forget(tid)
        for tid in [t for t in self._fds if t not in waits]:
            self._forget(tid)
        return CpuReading(waits, time.process_time_ns())

    def _forget(self, tid: str) -> None:
        fd = self._fds.pop(tid, None)
        if fd is not None:
            try:
                os.close(fd)
            except OSError:
                pass

    def close(self) -> None:
        for tid in list(self._fds):
            self._forget(tid)

    def __enter__(self) -> "CpuClock":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


@dataclass(frozen=True)
class Load:
    """The machine's load: the 1-minute load average over the cores this process may run on."""

    load_1m: float | None
    cores: int

    @property
    def free_cores(self) -> int:
        """Cores the load leaves free, at least 1 (a load above the core count leaves none, but one
        thread still runs)."""
        if self.load_1m is None:
            return self.cores
        return max(1, min(self.cores, int(self.cores - self.load_1m + 0.5)))


def machine_load() -> Load:
    """The load average now and the cores this process may use (its affinity, else the count)."""
    try:
        load: float | None = os.getloadavg()[0]
    except (OSError, AttributeError):
        load = None
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cores = os.cpu_count() or 1
    return Load(load, max(cores, 1))


def torch_threads() -> int | None:
    """torch's intra-op threads, when torch is loaded (never imported here)."""
    torch = sys.modules.get("torch")
    try:
        return int(torch.get_num_threads()) if torch is not None else None
    except Exception:  # noqa: BLE001 - a half-imported torch: the count is simply unknown
        return None


def fitting_threads(load: Load, default: int | None) -> int:
    """How many intra-op threads fit the free cores: ``load.free_cores``, never more than torch's
    own ``default`` (its count of physical cores)."""
    free = load.free_cores
    return min(free, default) if default else free


def wait_text(share: float, load: Load, threads: int | None) -> str:
    """``waited for a CPU for 125% of the time: machine load 3.9 on 2 cores, torch using 2 threads``
    (``share``: the summed wait of the threads over the wall time; above 1 with several threads)."""
    where = f"machine load {load.load_1m:.1f} on {load.cores} cores" if load.load_1m is not None \
        else f"{load.cores} cores"
    using = f", torch using {threads} thread{'s' if threads != 1 else ''}" if threads else ""
    return f"waited for a CPU for {share:.0%} of the time: {where}{using}"


def cpu_wait_note(m: Measurement, load: Load, threads: int | None) -> Note | None:
    """A warning when host samples waited for a CPU: how much, on what load, with how many threads,
    and how many samples the time leaves out; None when neither the wait nor the samples left out
    are a real share (5%) of the time or of the samples."""
    if not m.ok or not m.cpu_wait_us:
        return None
    walls = [v for v in m.samples_us if v is not None and math.isfinite(v)]
    share = sum(m.cpu_wait_us) / sum(walls) if walls and sum(walls) > 0 else 0.0
    total = len(m.samples_us)
    # A stray sample that waited on a quiet machine is no news; a real share of the time or of the
    # samples is (both at the cut that judges one sample).
    if share < CPU_WAIT_SHARE and m.disturbed < CPU_WAIT_SHARE * total:
        return None
    fewer = f"; --threads {load.free_cores} fits the free cores" if threads and threads > load.free_cores else ""
    return warning("cpu-waited", f"host: {wait_text(share, load, threads)}; the {m.disturbed} of {total} samples "
                   f"that waited are left out of the time{fewer}", method="host", wait_share=share,
                   disturbed=m.disturbed, samples=total, load_1m=load.load_1m, cores=load.cores, threads=threads)
