"""The plain-words diagnosis of one ``timeline`` window: which cost dominates and what removes it.

Rules, in order (the first that holds speaks):
1. no device work: say so.
2. communication-bound: exposed communication (not overlapped by compute) is >= 25% of the wall
   time and larger than every idle cause.
3. GPU-bound: busy >= 90% of the wall time -- the kernels themselves are the cost.
4. otherwise the largest idle cause: host-bound (no work queued), sync-bound (the host waited in a
   synchronisation), launch-gap-bound (small gaps between back-to-back queued kernels) or
   dependency-bound (queued work waited long on an event).
"""

from __future__ import annotations

from bench_kernel.records import Breakdown
from bench_kernel.units import format_duration_us as fmt_us

__all__ = ["diagnose", "COMM_BOUND_SHARE", "GPU_BOUND_SHARE"]

COMM_BOUND_SHARE = 0.25
GPU_BOUND_SHARE = 0.90


def diagnose(w: Breakdown, *, graphs: str, sync_names: list[str], sync_calls: int) -> str:
    """One line for a window ``w`` (a ``timeline`` Breakdown); ``graphs`` is "CUDA" or "HIP"."""
    if w.wall_us <= 0 or w.busy_us <= 0:
        return "no device work in this window"
    busy = f"GPU busy {100 * w.busy_us / w.wall_us:.1f}% of {fmt_us(w.wall_us)}"
    idle = max((w.host_bound_us, "host"), (w.sync_wait_us, "sync"), (w.launch_gap_us, "gap"),
               (w.dependency_wait_us, "dependency"))
    if w.exposed_comm_us >= COMM_BOUND_SHARE * w.wall_us and w.exposed_comm_us > idle[0]:
        return (f"communication-bound: {100 * w.exposed_comm_us / w.wall_us:.1f}% of {fmt_us(w.wall_us)} is "
                f"communication not hidden behind compute ({fmt_us(w.comm_us)} in collectives, "
                f"{w.comm_overlap_pct:.0f}% overlapped); overlap collectives with compute or shrink them")
    if w.busy_us >= GPU_BOUND_SHARE * w.wall_us:
        return f"GPU-bound: {busy}; the kernels themselves are the cost: see 'bench-kernel inventory' for the longest"
    L = w.launches
    if idle[1] == "host":
        cpu = f" at a median {fmt_us(L.cpu_us_median)} of CPU each" if L.cpu_us_median is not None else ""
        text = (f"host-bound: {busy}; idle {fmt_us(w.host_bound_us)} with no work queued; "
                f"{L.kernel_launches:,} launches{cpu}")
        if L.graph_kernels > L.kernel_launches:
            return text + (f"; {L.graph_kernels:,} kernels already run from {L.graph_launches:,} {graphs}-graph "
                           f"replays: the host time is between replays (Python, sampling, scheduling)")
        return text + f"; {graphs} graphs or torch.compile would remove most of this"
    if idle[1] == "sync":
        names = ", ".join(sync_names) if sync_names else "blocking calls"
        calls = f"{sync_calls:,} synchronisation{'s' if sync_calls != 1 else ''}"
        return (f"sync-bound: {busy}; idle {fmt_us(w.sync_wait_us)} while the host waited in {calls} ({names}); "
                f"if it waits for a result, keep it on the device (no .item(), .cpu() or print in the loop)")
    if idle[1] == "dependency":
        return (f"dependency-bound: {busy}; idle {fmt_us(w.dependency_wait_us)} with work queued that did not start "
                f"and no synchronisation in flight: a stream waited on an event (another stream, a peer, or work "
                f"this trace does not show)")
    return (f"launch-gap-bound: {busy}; {fmt_us(w.launch_gap_us)} of gaps between back-to-back kernels that were "
            f"already queued ({L.kernel_launches + L.graph_kernels:,} kernels); fuse small kernels or replay a "
            f"{graphs} graph")
