"""Launch diagnostics for ``timeline``: how long the host takes per launch, how late kernels start
after their launch call, how deep the launch queue runs, and which kernels are cheaper than their
own launch.

- launch delay = kernel start - start of its launch call (``cudaLaunchKernel`` & co., kind ``kernel``
  in ``data/launch_apis.tsv``). Kernels replayed from a graph are left out: their launch is the graph
  launch, whose delay says nothing about each kernel.
- CPU per launch = the launch call's duration on the host.
- queue depth at time t = device events launched (their launch call had started) but not yet started.
- short kernels: kernels (kind ``kernel`` launches) that ran for less time than their launch call took:
  the host cannot keep the GPU busy with them, however fast it launches.
"""

from __future__ import annotations

import numpy as np

from bench_kernel.records import LaunchStats, QueueDepth
from bench_kernel.trace._spans import coverage

__all__ = ["LaunchStats", "QueueDepth", "launch_stats", "queue_depth_series"]


def _pct(x: np.ndarray, q: float) -> float | None:
    return float(np.percentile(x, q)) if len(x) else None


class _Queue:
    """The queue depth as a step function, with its running integral for window means."""

    def __init__(self, queued: np.ndarray, start: np.ndarray) -> None:
        self.t, self.d = coverage(queued, start)
        seg = np.diff(self.t) * self.d[:-1] if len(self.t) else np.zeros(0)
        self.area = np.concatenate(([0.0], np.cumsum(seg)))

    def _integral(self, x: np.ndarray) -> np.ndarray:
        if not len(self.t):
            return np.zeros(len(x))
        k = np.searchsorted(self.t, x, side="right") - 1
        kc = np.clip(k, 0, None)
        return np.where(k >= 0, self.area[kc] + self.d[kc] * (x - self.t[kc]), 0.0)

    def mean(self, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
        width = hi - lo
        area = self._integral(hi) - self._integral(lo)
        return np.divide(area, width, out=np.zeros(len(lo)), where=width > 0)

    def max(self, lo: float, hi: float) -> int:
        if not len(self.t):
            return 0
        # d[k] holds on [t[k], t[k+1]): the window sees the segment around lo and every change before hi.
        k = int(np.searchsorted(self.t, lo, side="right")) - 1
        b = int(np.searchsorted(self.t, hi, side="left"))
        seen = self.d[max(k, 0):b]
        top = int(seen.max()) if len(seen) else 0
        return max(top, 0) if k < 0 else top  # before the first change the depth is 0


def launch_stats(groups: list[np.ndarray], lo: np.ndarray, hi: np.ndarray, *, ev_start: np.ndarray,
                 ev_dur: np.ndarray, ev_queued: np.ndarray, ev_launch: np.ndarray, ev_kind: np.ndarray,
                 launch_start: np.ndarray, launch_dur: np.ndarray, kernel_kind: int, graph_kind: int
                 ) -> list[LaunchStats]:
    """One :class:`LaunchStats` per window; ``groups[k]`` are the device events launched in window k.

    ``ev_*`` are per device event (kernels and memory operations): start, duration, when it was queued
    (its launch call's start), its launch index (-1 none) and that launch's kind (-1 none).
    """
    queue = _Queue(ev_queued, ev_start)
    means = queue.mean(lo, hi)
    out = []
    for k, idx in enumerate(groups):
        kind = ev_kind[idx]
        own = idx[kind == kernel_kind]
        graph = idx[kind == graph_kind]
        lj = ev_launch[own]
        delay = ev_start[own] - launch_start[lj]
        cpu = launch_dur[lj]
        graphs = np.unique(ev_launch[graph])
        short = ev_dur[own] < cpu
        out.append(LaunchStats(
            kernel_launches=len(own), graph_launches=len(graphs), graph_kernels=len(graph),
            cpu_us_median=_pct(cpu, 50), cpu_us_total=float(cpu.sum() + launch_dur[graphs].sum()),
            delay_us_p50=_pct(delay, 50), delay_us_p90=_pct(delay, 90), delay_us_p99=_pct(delay, 99),
            delay_us_max=float(delay.max()) if len(delay) else None,
            queue_depth_mean=float(means[k]), queue_depth_max=queue.max(float(lo[k]), float(hi[k])),
            short_kernels=int(short.sum()), short_kernels_us=float(ev_dur[own][short].sum())))
    return out


def queue_depth_series(ev_queued: np.ndarray, ev_start: np.ndarray, lo: float, hi: float, base_us: float,
                       bins: int = 100) -> tuple[QueueDepth, ...]:
    """The queue depth over ``[lo, hi)`` in at most ``bins`` equal bins (mean and max per bin)."""
    if hi <= lo:
        return ()
    queue = _Queue(ev_queued, ev_start)
    edges = np.linspace(lo, hi, bins + 1)
    means = queue.mean(edges[:-1], edges[1:])
    return tuple(QueueDepth(float(a + base_us), float(m), queue.max(float(a), float(b)))
                 for a, b, m in zip(edges[:-1], edges[1:], means))
