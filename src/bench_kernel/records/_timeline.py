"""The records of ``timeline`` (``bench_kernel.trace``): is the GPU busy and, when it is not, why,
per step and for the whole trace; the launches; the collectives; and a folder of per-rank traces
side by side. Times are microseconds on the trace's clock.

A window's wall time is busy + idle, and idle is host-bound + sync wait + launch gap + dependency
wait; compute + exposed communication + exposed memcpy = busy (TraceLens's identity). The analysis
asserts both.
"""

from __future__ import annotations

from typing import Annotated, Literal

from bench_kernel.records._base import Record, derive, doc
from bench_kernel.records._trace import LOAD_NOTES, RANK, TRACE_NAME, Phase

__all__ = ["StreamBusy", "LaunchStats", "Breakdown", "QueueDepth", "ShortKernelCount", "CollectiveCall",
           "CollectiveGroup", "Collectives", "MetadataSource", "TimelineReport", "RankRow", "CollectiveSkew",
           "StragglerBasis", "RanksReport"]


class StreamBusy(Record, frozen=True):
    """One device stream's busy time in a window."""

    device: Annotated[int, doc("device index")]
    stream: Annotated[int, doc("stream id")]
    busy_us: Annotated[float, doc("union of its kernels and memcpy/memset in the window")]
    kernels: Annotated[int, doc("kernels on it")]
    memory_ops: Annotated[int, doc("memcpy/memset on it")]


class LaunchStats(Record, frozen=True, kw_only=True):
    """The launches of the device work that ran in one window. A launch delay is a kernel's start −
    the start of its own launch call; kernels replayed from a graph have none."""

    kernel_launches: Annotated[int, doc("kernels started by their own launch call")]
    graph_launches: Annotated[int, doc("CUDA/HIP graph replays")]
    graph_kernels: Annotated[int, doc("kernels those replays ran")]
    cpu_us_median: Annotated[float | None, doc("host time of one kernel-launch call, median; null: no launch")]
    cpu_us_total: Annotated[float, doc("host time in kernel-launch and graph-launch calls")]
    delay_us_p50: Annotated[float | None, doc("launch delay (a kernel's start − its own launch call's start), "
                                              "median; null: no kernel launched by its own call")]
    delay_us_p90: Annotated[float | None, doc("launch delay, 90th percentile")]
    delay_us_p99: Annotated[float | None, doc("launch delay, 99th percentile")]
    delay_us_max: Annotated[float | None, doc("launch delay, longest")]
    queue_depth_mean: Annotated[float, doc("launched-but-not-started device work, time-weighted mean over the "
                                           "window")]
    queue_depth_max: Annotated[int, doc("the most launched-but-not-started at once")]
    short_kernels: Annotated[int, doc("kernels that ran for less time than their launch call took on the host: "
                                      "the host cannot keep the GPU busy with them")]
    short_kernels_us: Annotated[float, doc("their summed device time")]


class Breakdown(Record, frozen=True, kw_only=True):
    """Where the wall time of one window (the whole trace, or one step) went. A step's window runs
    from its host start to the later of its host end and the end of the last device work it
    launched."""

    label: Annotated[str, doc("`all`, or the step's name")]
    step: Annotated[int | None, doc("the step's index; null for `all`")]
    phase: Annotated[Phase | None, doc("the step's phase, where its annotation says")]
    start_us: Annotated[float, doc("start (trace clock)")]
    end_us: Annotated[float, doc("end: the later of the step's host end and its last device work")]
    wall_us: Annotated[float, doc("`end_us` − `start_us`")]
    busy_us: Annotated[float, doc("union of kernels and memcpy/memset on all streams")]
    idle_us: Annotated[float, doc("`wall_us` − `busy_us` = the four causes below")]
    host_bound_us: Annotated[float, doc("idle with nothing queued and no synchronisation in flight: the GPU "
                                        "waited for the host to launch")]
    sync_wait_us: Annotated[float, doc("idle while a synchronize or blocking copy was in flight")]
    launch_gap_us: Annotated[float, doc("queued idle stretches no longer than `--launch-gap-us`: the gaps "
                                        "between back-to-back kernels")]
    dependency_wait_us: Annotated[float, doc("queued work that waited longer with no synchronisation in flight "
                                             "(a stream waiting on an event)")]
    compute_us: Annotated[float, doc("busy time of compute kernels")]
    comm_us: Annotated[float, doc("busy time of communication kernels")]
    memcpy_us: Annotated[float, doc("busy time of memcpy/memset")]
    exposed_comm_us: Annotated[float, doc("communication not overlapped by compute")]
    exposed_memcpy_us: Annotated[float, doc("memcpy/memset overlapped by neither compute nor communication")]
    comm_overlap_pct: Annotated[float | None, doc("share of communication overlapped by compute, percent; null: "
                                                  "no communication")]
    memcpy_overlap_pct: Annotated[float | None, doc("share of memcpy/memset overlapped, percent; null: none")]
    streams: Annotated[tuple[StreamBusy, ...], doc("per stream, busiest first")]
    launches: Annotated[LaunchStats, doc("the launches of the window's device work")]
    sync_calls: Annotated[int, doc("blocking host calls (synchronise, blocking copy) that started in the "
                                   "window")]
    diagnosis: Annotated[str, doc("one line: is the GPU busy, and if not, why and what removes it")]
    busy_pct: Annotated[float, doc("100 × `busy_us` / `wall_us` (derived)")] = 0.0

    def __post_init__(self) -> None:
        derive(self, busy_pct=100.0 * self.busy_us / self.wall_us if self.wall_us > 0 else 0.0)


class QueueDepth(Record, frozen=True):
    """The launch queue depth over one time bin of the whole trace."""

    start_us: Annotated[float, doc("start of the bin (trace clock)")]
    mean: Annotated[float, doc("launched-but-not-started device work, time-weighted mean in the bin")]
    max: Annotated[int, doc("the most at once in the bin")]


class ShortKernelCount(Record, frozen=True):
    """A kernel often shorter than its own launch call."""

    short: Annotated[str, doc("kernel short name")]
    count: Annotated[int, doc("executions shorter than their launch call")]


MetadataSource = Literal["kernel", "record_param_comms", "op_shapes", "name"]


class CollectiveCall(Record, frozen=True):
    """One communication kernel, with the bandwidths nccl-tests would report for it. Its time
    includes waiting for late peers: a low busbw on one rank may be a straggler elsewhere."""

    kernel_index: Annotated[int, doc("the kernel's index in the trace (start-time order)")]
    short: Annotated[str, doc("its short name")]
    collective: Annotated[str, doc("`all_reduce`, `all_gather`, `reduce_scatter`, ... (`data/collectives.tsv`), "
                                   "or `unknown`")]
    metadata: Annotated[MetadataSource, doc(
        "where its size and group came from, best first: the kernel event's own args, the profiler's "
        "`record_param_comms` op around its launch, the input shapes of the op that launched it, or only its "
        "name (no size)")]
    dtype: Annotated[str | None, doc("element type (`bf16`, ...; as the trace wrote it when unknown)")]
    in_nelems: Annotated[int | None, doc("input elements")]
    out_nelems: Annotated[int | None, doc("output elements")]
    msg_bytes: Annotated[int | None, doc("message size S of nccl-tests: the larger of input and output, bytes")]
    group_size: Annotated[int | None, doc("ranks in the group")]
    process_group: Annotated[str, doc("the process group's name (`?` when not recorded)")]
    seq: Annotated[int, doc("its position among this trace's collectives of the same process group, from 0: "
                            "the key that matches it across ranks")]
    start_us: Annotated[float, doc("start (trace clock)")]
    dur_us: Annotated[float, doc("duration")]
    stream: Annotated[int, doc("stream id")]
    algbw_gbps: Annotated[float | None, doc("algorithm bandwidth S / t, GB/s (1e9 bytes/s)")]
    busbw_gbps: Annotated[float | None, doc("bus bandwidth: algbw × the collective's factor for its group size "
                                            "(nccl-tests)")]


class CollectiveGroup(Record, frozen=True):
    """Calls of one collective with one dtype, message size and group size, summed."""

    collective: Annotated[str, doc("`all_reduce`, `all_gather`, ...")]
    dtype: Annotated[str | None, doc("element type")]
    msg_bytes: Annotated[int | None, doc("message size, bytes")]
    group_size: Annotated[int | None, doc("ranks in the group")]
    count: Annotated[int, doc("calls")]
    total_us: Annotated[float, doc("summed duration")]
    mean_us: Annotated[float, doc("mean duration")]
    min_us: Annotated[float, doc("shortest")]
    max_us: Annotated[float, doc("longest")]
    algbw_gbps: Annotated[float | None, doc("total bytes over total time, GB/s (nccl-tests' algbw)")]
    busbw_gbps: Annotated[float | None, doc("bus bandwidth (nccl-tests' busbw)")]


class Collectives(Record, frozen=True, kw_only=True):
    """Every communication kernel of a trace, per call and summed."""

    total_us: Annotated[float, doc("device time of all collectives")]
    total_bytes: Annotated[int, doc("message bytes of the calls whose size is known")]
    notes: Annotated[tuple[str, ...], doc("what could not be sized")] = ()
    groups: Annotated[tuple[CollectiveGroup, ...], doc("by collective, dtype, size and group size, longest "
                                                       "total first; their totals sum to `total_us`")] = ()
    calls: Annotated[tuple[CollectiveCall, ...], doc("every call, in start order")] = ()


class TimelineReport(Record, frozen=True, kw_only=True):
    """Busy/idle and why, per step and for the whole trace, the launches and the collectives of one
    rank's trace."""

    trace: Annotated[str, doc(TRACE_NAME)]
    rank: Annotated[int | None, doc(RANK + " (in a folder of rank files: the rank its file was taken for)")] = None
    device: Annotated[str | None, doc("the device the trace names (its `deviceProperties`)")] = None
    overall: Annotated[Breakdown, doc("the device span: first device event to last")]
    step_rule: Annotated[str | None, doc("the step rule that found the steps (`profiler_step`, `vllm`, ...; "
                                         "`data/steps.json`); null without steps")] = None
    steps: Annotated[tuple[Breakdown, ...], doc("one per step")] = ()
    collectives: Annotated[Collectives, doc("the communication kernels")]
    queue_depth: Annotated[tuple[QueueDepth, ...], doc("launched-but-not-started device work over the whole "
                                                       "trace, in up to 100 equal bins")] = ()
    short_kernel_names: Annotated[tuple[ShortKernelCount, ...], doc(
        "the kernels most often shorter than their own launch call (at most five)")] = ()
    notes: Annotated[tuple[str, ...], doc("what to know (clocks that disagree, overlapping steps, ...)")] = ()
    load_notes: Annotated[tuple[str, ...], doc(LOAD_NOTES)] = ()


# -- a folder of per-rank traces ------------------------------------------------------------------


class RankRow(Record, frozen=True, kw_only=True):
    """One rank, side by side with the others."""

    rank: Annotated[int, doc("the rank")]
    trace: Annotated[str, doc("its trace file")]
    wall_us: Annotated[float, doc("its device span")]
    busy_us: Annotated[float, doc("busy time")]
    idle_us: Annotated[float, doc("idle time")]
    exposed_comm_us: Annotated[float, doc("communication not overlapped by compute")]
    comm_us: Annotated[float, doc("communication time")]
    steps: Annotated[int, doc("steps found")]
    step_median_us: Annotated[float | None, doc("median wall time of its steps; null without steps")]
    waited_us: Annotated[float, doc("summed time its collectives started before the last rank arrived: "
                                    "waiting for peers")]
    last_arrivals: Annotated[int, doc("matched collectives it arrived at last")]
    diagnosis: Annotated[str, doc("its timeline's one line on the whole trace")]


class CollectiveSkew(Record, frozen=True, kw_only=True):
    """One collective matched across ranks, by process group and position in it."""

    process_group: Annotated[str, doc("the process group")]
    seq: Annotated[int, doc("its position among the group's collectives")]
    collective: Annotated[str, doc("`all_reduce`, ...")]
    msg_bytes: Annotated[int | None, doc("message size, bytes")]
    ranks: Annotated[int, doc("ranks that took part")]
    first_rank: Annotated[int, doc("the first to arrive (kernel start)")]
    last_rank: Annotated[int, doc("the last to arrive: the one the others waited for")]
    skew_us: Annotated[float, doc("last arrival − first arrival")]
    transfer_us: Annotated[float, doc("the shortest kernel duration over the ranks: the transfer once all had "
                                      "arrived")]


StragglerBasis = Literal["collective arrivals", "step time", "busy time"]


class RanksReport(Record, frozen=True, kw_only=True):
    """Every rank of a folder of per-rank traces side by side, the straggler, and each collective's
    skew across ranks. Times of ranks on different hosts are only as comparable as their clocks."""

    directory: Annotated[str, doc("the folder of rank files")]
    straggler: Annotated[int | None, doc("the rank the others wait for; null when the ranks agree within 1% "
                                         "(or there is one rank)")] = None
    straggler_by_us: Annotated[float | None, doc("by how much: the median skew of the collectives it arrived "
                                                 "last at, else its step or busy time minus the others' "
                                                 "median")] = None
    straggler_basis: Annotated[StragglerBasis | None, doc(
        "what the straggler was judged from; null for a single rank")] = None
    ranks: Annotated[tuple[RankRow, ...], doc("one per rank")]
    collectives: Annotated[tuple[CollectiveSkew, ...], doc("matched collectives, largest skew first")] = ()
    notes: Annotated[tuple[str, ...], doc("what to know (collectives in one rank only, different step counts, "
                                          "...)")] = ()
    per_rank: Annotated[tuple[TimelineReport, ...], doc("each rank's own timeline")] = ()
