"""The ``kernel`` method: device-side durations from the PyTorch profiler (Kineto/CUPTI).

Each call runs inside ``record_function("bk::call")`` (each L2 flush inside ``"bk::flush"``).
A device activity (kernel, memcpy, memset) links to the CPU event that launched it through
Kineto's correlation (``linked_correlation_id``); the call range that contains that CPU event
owns it. A call's sample is the SUM of its activities' durations, which is what the device
spent on it whatever the gaps; the per-kernel breakdown comes from the same events, with each
kernel's launch configuration (grid, block, registers per thread, shared memory) from the event's
Kineto metadata where it has it: ``compare`` names a kernel relaunched with another configuration.
"""

from __future__ import annotations

import bisect
import contextlib
import json
import math
import os
import tempfile
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Iterable, Sequence

from bench_kernel.errors import MeasurementError
from bench_kernel.measure._budget import calls_to_fill
from bench_kernel.measure._inputs import L2Flusher
from bench_kernel.measure._method import Timed
from bench_kernel.measure._profiler_start import kineto_session, start_profiler
from bench_kernel.measure._runner import Runner
from bench_kernel.measure._stopping import StoppingRule, note_step
from bench_kernel.records import ActivityKind, KernelStat, Measurement, warning

if TYPE_CHECKING:
    from torch.autograd.profiler import profile

__all__ = ["KernelMethod", "DeviceActivity", "CpuEvent", "attribute", "breakdown", "launch_config", "launch_from_args",
           "launches_from_trace"]

CALL_MARK, FLUSH_MARK = "bk::call", "bk::flush"
#: Families whose kernels are classified by their loaded Triton source when it can be found
#: (a hand-written Triton kernel is named after its Python function: "other" by name).
_BY_SOURCE = ("triton", "inductor", "other")
#: Calls per profiler session: enough device time (us) that the session's cost is amortised.
SESSION_TARGET_US = 20_000.0
MIN_CALLS, MAX_CALLS = 10, 200
#: The first session of a round is this short (calls): a session costs ~4.4 ms plus ~0.1 ms a call
#: on an H200 (benchmarks/gpu/speed.py, micro), and a quiet kernel meets the precision in one.
FIRST_SESSION_CALLS = 20


@dataclass(frozen=True)
class CpuEvent:
    """A host-side profiler event: an op, an annotation or a runtime call (ns)."""

    id: int
    name: str
    start_ns: int
    end_ns: int


@dataclass(frozen=True)
class DeviceActivity:
    """A device-side activity and the id of the CPU event that launched it (ns)."""

    name: str
    kind: ActivityKind
    start_ns: int
    dur_ns: int
    linked_id: int
    #: (grid, block, registers per thread, shared memory bytes) from Kineto's metadata, where recorded
    launch: tuple[tuple[int, ...] | None, tuple[int, ...] | None, int | None, int | None] | None = None


#: Kineto's names of a kernel's launch arguments, as its traces write them (the trace loader's
#: table, ``trace/data/kineto_args.tsv``, maps the same keys for trace files).
_GRID, _BLOCK, _REGS, _SMEM = "grid", "block", "registers per thread", "shared memory"


def launch_config(metadata: str) -> tuple[tuple[int, ...] | None, tuple[int, ...] | None, int | None, int | None] | None:
    """The launch configuration in a device event's Kineto metadata (``"grid": [1, 1, 1], ...``,
    the fields of a JSON object without its braces), or None where it holds none or is not JSON."""
    if not metadata or _GRID not in metadata:
        return None
    try:
        args = json.loads("{" + metadata + "}") if not metadata.lstrip().startswith("{") else json.loads(metadata)
    except ValueError:
        return None
    return launch_from_args(args) if isinstance(args, dict) else None


Launch = tuple[tuple[int, ...] | None, tuple[int, ...] | None, int | None, int | None]


def launch_from_args(args: dict[str, object]) -> Launch | None:
    """The launch configuration in a kernel event's ``args`` (a trace file's, or its metadata read
    as JSON): (grid, block, registers per thread, shared memory bytes), None where it has none."""

    def dims(v: object) -> tuple[int, ...] | None:
        return tuple(int(x) for x in v) if isinstance(v, list) and all(isinstance(x, int) for x in v) else None

    def num(v: object) -> int | None:
        return int(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else None

    found = (dims(args.get(_GRID)), dims(args.get(_BLOCK)), num(args.get(_REGS)), num(args.get(_SMEM)))
    return found if any(x is not None for x in found) else None


def launches_from_trace(prof: Any) -> dict[str, Launch]:
    """Kernel name -> its most frequent launch configuration, read from the session's own trace file.

    Kineto's JSON export writes grid, block, registers and shared memory into every kernel's args,
    but a device event's ``metadata_json()`` holds none of them in some torch builds (torch 2.11
    on the H100: 29 kernels of a sweep, none with a configuration), so a session whose events
    carry none is saved once and read back. Empty where the session cannot be saved or read."""
    fd, path = tempfile.mkstemp(suffix=".json", prefix="bk-kernel-")
    os.close(fd)
    try:
        prof.kineto_results.save(path)
        with open(path, encoding="utf-8", errors="replace") as fh:
            data = json.load(fh)
    except Exception:  # noqa: BLE001 - a configuration is extra detail; the times do not depend on it
        return {}
    finally:
        with contextlib.suppress(OSError):
            os.unlink(path)
    seen: dict[str, Counter[Launch]] = defaultdict(Counter)
    for ev in data.get("traceEvents", []) if isinstance(data, dict) else []:
        if isinstance(ev, dict) and ev.get("cat") == "kernel" and isinstance(ev.get("args"), dict):
            found = launch_from_args(ev["args"])
            if found is not None:
                seen[str(ev.get("name"))][found] += 1
    return {name: c.most_common(1)[0][0] for name, c in seen.items()}


def _kind(name: str, activity_type: str) -> ActivityKind:
    t = activity_type.lower()
    if "memcpy" in t or name.startswith("Memcpy"):
        return "memcpy"
    if "memset" in t or name.startswith("Memset"):
        return "memset"
    return "kernel"


def _containing(spans: Sequence[tuple[int, int, int]], starts: Sequence[int], t: int) -> int | None:
    i = bisect.bisect_right(starts, t) - 1
    if i >= 0 and t <= spans[i][1]:
        return spans[i][2]
    return None


def attribute(cpu: Sequence[CpuEvent], device: Iterable[DeviceActivity]
              ) -> tuple[list[list[DeviceActivity]], int]:
    """Assign device activities to calls: (activities per call in call order, unlinked count).

    First by the device-side spans Kineto derives for each ``bk::call`` annotation (they cover
    the kernels launched inside it, Triton's direct launches included); else through the
    launching op (``linked_id``) and the host-side call range holding it. Activities of a
    ``bk::flush`` are ours and dropped; those that match nothing are counted, never guessed.
    """
    calls = sorted((e for e in cpu if e.name == CALL_MARK), key=lambda e: e.start_ns)
    call_index = {c.id: i for i, c in enumerate(calls)}
    host_calls = [(c.start_ns, c.end_ns, i) for i, c in enumerate(calls)]
    host_flush = sorted((e.start_ns, e.end_ns, -1) for e in cpu if e.name == FLUSH_MARK)
    dev_calls, dev_flush, acts = [], [], []
    for a in device:
        if a.name == CALL_MARK and a.linked_id in call_index:
            dev_calls.append((a.start_ns, a.start_ns + a.dur_ns, call_index[a.linked_id]))
        elif a.name == FLUSH_MARK:
            dev_flush.append((a.start_ns, a.start_ns + a.dur_ns, -1))
        elif a.name not in (CALL_MARK, FLUSH_MARK):
            acts.append(a)
    dev_calls.sort()
    dev_flush.sort()
    lookups = [(spans, [s[0] for s in spans]) for spans in (dev_calls, dev_flush, host_calls, host_flush)]
    by_id = {e.id: e for e in cpu}
    per_call: list[list[DeviceActivity]] = [[] for _ in calls]
    unlinked = 0
    for act in acts:
        owner = _containing(*lookups[0], act.start_ns)
        if owner is None and _containing(*lookups[1], act.start_ns) is not None:
            continue
        if owner is None:
            op = by_id.get(act.linked_id)
            if op is not None and _containing(*lookups[3], op.start_ns) is not None:
                continue
            owner = _containing(*lookups[2], op.start_ns) if op is not None else None
        if owner is None:
            unlinked += 1
        else:
            per_call[owner].append(act)
    return per_call, unlinked


def overlaps(acts: Sequence[DeviceActivity]) -> bool:
    """True when two activities of one call ran at the same time (several streams)."""
    spans = sorted((a.start_ns, a.start_ns + a.dur_ns) for a in acts)
    return any(b[0] < a[1] for a, b in zip(spans, spans[1:]))


def breakdown(per_call: Sequence[Sequence[DeviceActivity]]) -> list[KernelStat]:
    """Per distinct activity name: launches per call, us per call and share of the call's sum.

    The shares sum to 1 and the us-per-call figures to the mean per-call sum (asserted).
    """
    from bench_kernel.kernels import decode, distinct_shorts, triton_category

    n = len(per_call)
    if n == 0:
        return []
    count: dict[tuple[str, ActivityKind], int] = defaultdict(int)
    total_ns: dict[tuple[str, ActivityKind], int] = defaultdict(int)
    launches: dict[tuple[str, ActivityKind], Counter[Launch]] = defaultdict(Counter)
    for acts in per_call:
        for a in acts:
            count[(a.name, a.kind)] += 1
            total_ns[(a.name, a.kind)] += a.dur_ns
            if a.launch is not None:
                launches[(a.name, a.kind)][a.launch] += 1
    grand = sum(total_ns.values())
    shorts = distinct_shorts(name for name, kind in total_ns if kind == "kernel")  # unique within the table
    stats = []
    for key in sorted(total_ns, key=lambda k: -total_ns[k]):
        name, kind = key
        d = decode(name) if kind == "kernel" else None
        category: str = d.category if d else kind  # a Triton source's category is a plain str
        if d is not None and d.family in _BY_SOURCE:  # a Triton kernel's source says what it does
            category = triton_category(name, live=True)
        # the most frequent configuration of the kernel's launches (one, for a kernel of one shape)
        grid, block, regs, smem = launches[key].most_common(1)[0][0] if launches[key] else (None,) * 4
        stats.append(KernelStat(
            name=name, short=shorts[name] if d else name, category=category, kind=kind,
            count_per_call=count[key] / n, us_per_call=total_ns[key] / n / 1e3,
            share=total_ns[key] / grand if grand else 0.0, grid=grid, block=block, registers_per_thread=regs,
            shared_memory_bytes=smem))
    assert math.isclose(sum(s.us_per_call for s in stats), grand / n / 1e3, rel_tol=1e-9, abs_tol=1e-9)
    return stats


def _collect(prof: profile) -> tuple[list[CpuEvent], list[DeviceActivity]]:
    from torch.autograd import DeviceType

    results = prof.kineto_results
    assert results is not None  # the session's __exit__ sets them, and it has run
    cpu, dev = [], []
    for e in results.events():
        if e.device_type() == DeviceType.CPU:
            cpu.append(CpuEvent(e.correlation_id(), e.name(), e.start_ns(), e.end_ns()))
        else:
            name = e.name()
            # A device-side annotation span carries its host annotation's id as correlation_id.
            link = e.correlation_id() if name in (CALL_MARK, FLUSH_MARK) else e.linked_correlation_id()
            at = e.activity_type() if hasattr(e, "activity_type") else ""
            kind = _kind(name, str(at))
            meta = e.metadata_json() if kind == "kernel" and hasattr(e, "metadata_json") else ""
            dev.append(DeviceActivity(name, kind, e.start_ns(), e.duration_ns(), link, launch_config(meta)))
    return cpu, dev


class KernelMethod:
    """Per-call sum of device activity durations, and the per-kernel breakdown."""

    name = "kernel"

    def __init__(self, flusher: L2Flusher | None) -> None:
        self.flusher = flusher
        #: seconds this method spent opening the process's first profiler session (``_profiler_start``)
        self.waited_s = 0.0

    def run(self, runner: Runner, rule: StoppingRule) -> Timed:
        """Profile sessions of calls until ``rule`` is finished; the breakdown comes back with the times."""
        import torch
        from torch.autograd.profiler import record_function

        started = start_profiler()  # the process's first session: seconds, and no sample's business
        if started:
            self.waited_s += started
            rule.restart_clock()
        flusher = self.flusher
        cold = flusher is not None
        per_session = calls_to_fill(SESSION_TARGET_US, runner.est_us, lo=MIN_CALLS, hi=MAX_CALLS)
        all_calls: list[list[DeviceActivity]] = []
        from_trace: dict[str, Launch] | None = None  # read once, where the events carry no configuration
        unlinked_total = 0
        overlapped = False
        t0 = time.perf_counter()
        def loop() -> None:
            nonlocal unlinked_total, overlapped, from_trace
            while not rule.is_finished():
                n = rule.next_batch(per_session, first=min(per_session, FIRST_SESSION_CALLS))
                prof = kineto_session()
                prof.__enter__()
                try:
                    for _ in range(n):
                        if flusher is not None:
                            with record_function(FLUSH_MARK):
                                flusher.flush()
                        with record_function(CALL_MARK):
                            runner.call()
                    torch.cuda.synchronize(runner.device_index)
                finally:
                    prof.__exit__(None, None, None)
                cpu, dev = _collect(prof)
                bare = [a for a in dev if a.kind == "kernel" and a.launch is None]
                if bare and from_trace is None:
                    from_trace = launches_from_trace(prof)
                if bare and from_trace:
                    dev = [replace(a, launch=from_trace.get(a.name)) if a.kind == "kernel" and a.launch is None
                           else a for a in dev]
                per_call, unlinked = attribute(cpu, dev)
                unlinked_total += unlinked
                if not any(per_call):
                    raise MeasurementError(
                        f"the profiler saw no device activity for {runner.name!r} "
                        f"({len(dev)} device events, {unlinked} unlinked): does it launch GPU work?")
                overlapped = overlapped or any(overlaps(c) for c in per_call)
                all_calls.extend(per_call)
                batch = [sum(a.dur_ns for a in c) / 1e3 for c in per_call]
                rule.add(batch)
                note_step(rule, batch)  # the device timestamps' step (32 ns on an H200)

        runner.guarded("kernel profiling", loop)
        notes = []
        if unlinked_total:
            notes.append(warning("activities-unlinked", f"{unlinked_total} device activities could not be linked "
                                 "to a call and were left out", count=unlinked_total))
        if overlapped:
            notes.append(warning("kernels-overlapped", "kernels of one call overlapped on several streams: the sum "
                                 "exceeds the busy time"))
        measurement = Measurement.of("kernel", rule.samples, calls_per_sample=1, cache="cold" if cold else "warm",
                                  stop_reason=rule.reason, wall_s=time.perf_counter() - t0, notes=tuple(notes))
        return Timed(measurement, tuple(breakdown(all_calls)))
