"""Host samples that waited for a CPU: read from the kernel, kept in the record, left out of the time.

On a loaded 2-core machine torch's two intra-op threads made a 64x64 matmul read 8.8 ms per call
against 4.6 us with one thread, and a 1M-element clone 4.9 ms against 166 us for its samples that
ran through (benchmarks/results/busy-cpu.md). The wait is measured, not guessed: these tests build
records and fake readings to check what is done with it, and load one core for real to check
that the reading sees it.
"""

from __future__ import annotations

import multiprocessing
import os
import time

import pytest
import torch

import bench_kernel
from _cpu_hogs import pinned_spin, spin
from bench_kernel.errors import UsageError
from bench_kernel.measure import StoppingRule, _cpuwait, _host, _suite, merge_measurements, suite_options
from bench_kernel.measure._cpuwait import CpuClock, CpuReading, Load, cpu_wait_note
from bench_kernel.measure._host import HostMethod
from bench_kernel.measure._runner import Runner
from bench_kernel.options import Options
from bench_kernel.records import Measurement


def test_samples_that_waited_stay_in_the_record_but_not_in_the_time():
    m = Measurement.of("host", (10.0, 11.0, 500.0, 10.5, 900.0), cpu_wait_us=(0.0, 0.2, 480.0, 0.0, 1100.0),
                       cpu_us=(10.0, 11.0, 20.0, 10.5, 30.0))
    assert m.samples_us == (10.0, 11.0, 500.0, 10.5, 900.0)  # nothing lost
    assert (m.n, m.disturbed, m.median_us, m.min_us) == (3, 2, 10.5, 10.0)
    assert m.samples.values_us == (10.0, 11.0, 10.5)
    # read back, the same samples are left out: the statistic is derived, never stored
    back = Measurement.from_dict(m.to_dict())
    assert (back.median_us, back.disturbed) == (10.5, 2)
    # 5% of the sample's own time is the line: 0.5 us of wait on 10 us is kept, 0.6 us is not
    edge = Measurement.of("host", (10.0, 10.0), cpu_wait_us=(0.5, 0.6))
    assert (edge.n, edge.disturbed) == (1, 1)
    # without readings nothing is judged (a GPU method, a machine without schedstat, an old record)
    assert Measurement.of("host", (10.0, 900.0)).median_us == 455.0


def test_a_round_where_every_sample_waited_has_no_time_to_give():
    m = Measurement.of("host", (10.0, 10.2, 900.0, 950.0), cpu_wait_us=(0.0, 0.0, 800.0, 900.0), round_sizes=(2, 2))
    assert m.round_medians_us == (10.1, None)  # the disturbed round is not a 90x slower round
    assert m.median_us is None  # a comparison refuses it (samples_problem), never weighs it


def test_waits_must_be_aligned_with_the_samples():
    with pytest.raises(ValueError, match="cpu_wait_us holds 1 values for 2 samples"):
        Measurement.of("host", (1.0, 2.0), cpu_wait_us=(0.0,))
    with pytest.raises(ValueError, match="cpu_us holds 3 values for 2 samples"):
        Measurement.of("host", (1.0, 2.0), cpu_us=(0.0, 0.0, 0.0))


def test_rounds_are_joined_with_their_waits_in_step():
    a = Measurement.of("host", (10.0, 700.0), cpu_wait_us=(0.0, 650.0), cpu_us=(10.0, 12.0))
    b = Measurement.of("host", (11.0, 12.0))  # a round without readings: judged as undisturbed
    joined = merge_measurements([a, b])
    assert joined.samples_us == (10.0, 700.0, 11.0, 12.0) and joined.round_sizes == (2, 2)
    assert joined.cpu_wait_us == (0.0, 650.0, 0.0, 0.0) and joined.cpu_us == (10.0, 12.0, 0.0, 0.0)
    assert (joined.n, joined.disturbed, joined.round_medians_us) == (3, 1, (10.0, 11.5))


def test_left_out_samples_count_towards_the_bounds_not_the_precision():
    now = [0.0]
    rule = StoppingRule(precision=0.5, min_samples=2, max_time_s=1.0, clock=lambda: now[0])
    rule.add([100.0] * 5, left_out=True)
    assert not rule.is_finished() and rule.samples.n == 0 and rule.left_out == 5
    now[0] = 1.5  # past the bound with nothing that ran through: one more chance, up to twice the bound
    assert not rule.is_finished()
    now[0] = 2.0
    assert rule.is_finished() and rule.reason == "time"  # still nothing: it ends there
    kept = StoppingRule(precision=1e-9, min_samples=2, max_time_s=1.0, clock=lambda: now[0])
    kept.add([100.0], left_out=True)
    kept.add([10.0])
    now[0] = 3.0
    assert kept.is_finished() and kept.reason == "time"  # a sample ran through: the bound is the bound
    short = StoppingRule(precision=0.5, min_samples=2, max_time_s=0.005, clock=lambda: now[0])
    short.add([100.0], left_out=True)
    now[0] += 0.24  # 48 bounds of a 5 ms round, but under the 250 ms the grace gives any round
    assert not short.is_finished()
    now[0] += 0.02
    assert short.is_finished() and short.reason == "time"
    capped = StoppingRule(precision=1e-9, min_samples=2, max_samples=4)
    capped.add([1.0, 2.0])
    capped.add([9.0, 9.0], left_out=True)
    assert capped.is_finished() and capped.reason == "max_samples"


class _FakeClock:
    """Readings where the samples listed in ``waited`` (0-based) waited 2 ms for a CPU."""

    def __init__(self, waited: set[int]) -> None:
        self.waited, self.reads = waited, 0

    def read(self) -> CpuReading:
        sample, end = divmod(self.reads, 2)
        self.reads += 1
        done = sum(1 for i in range(sample + end) if i in self.waited)
        return CpuReading({"1": done * 2_000_000}, self.reads * 1000)

    def close(self) -> None:
        pass

    def __enter__(self) -> "_FakeClock":
        return self

    def __exit__(self, *exc: object) -> None:
        pass


def _host_run(monkeypatch: pytest.MonkeyPatch, waited: set[int] | None, samples: int) -> Measurement:
    clock = _FakeClock(set(range(samples)) if waited is None else waited)
    monkeypatch.setattr(_host, "CpuClock", lambda: clock)
    monkeypatch.setattr(_host, "machine_load", lambda: Load(3.9, 2))
    monkeypatch.setattr(_host, "torch_threads", lambda: 2)
    runner = Runner(lambda: None, [None], "noop", gpu=False, est_us=1000.0)
    return HostMethod("warm").run(runner, StoppingRule(precision=1e-9, min_samples=samples, max_samples=samples)).measurement


def test_the_host_method_refuses_when_no_sample_ran_through(monkeypatch):
    m = _host_run(monkeypatch, None, 6)
    assert not m.ok and m.median_us is None and len(m.samples_us) == 6 and m.disturbed == 6
    assert m.error.startswith("every one of the 6 samples waited for a CPU for ")
    assert "of the time: machine load 3.9 on 2 cores, torch using 2 threads; no sample ran through, so no time " \
           "is given: fewer threads (--threads 1) or a quieter machine" in m.error


def test_the_host_method_times_the_samples_that_ran_through(monkeypatch):
    m = _host_run(monkeypatch, {1, 3}, 6)
    assert m.ok and (m.n, m.disturbed) == (4, 2) and len(m.cpu_wait_us) == len(m.cpu_us) == 6
    assert [w > 0 for w in m.cpu_wait_us] == [False, True, False, True, False, False]


def test_the_note_says_how_long_on_what_load_with_how_many_threads():
    m = Measurement.of("host", (100.0, 100.0, 300.0, 300.0), cpu_wait_us=(0.0, 0.0, 300.0, 300.0))
    note = cpu_wait_note(m, Load(3.94, 2), 2)
    assert note.kind == "warning" and note.code == "cpu-waited"
    assert note.text == ("host: waited for a CPU for 75% of the time: machine load 3.9 on 2 cores, torch using 2 "
                         "threads; the 2 of 4 samples that waited are left out of the time; --threads 1 fits the "
                         "free cores")
    assert note.data["disturbed"] == 2 and note.data["wait_share"] == 0.75
    quiet = Measurement.of("host", (100.0, 101.0), cpu_wait_us=(0.1, 0.0))
    assert cpu_wait_note(quiet, Load(0.1, 2), 2) is None  # no real share of the time: nothing to say
    stray = Measurement.of("host", (100.0,) * 99 + (104.0,), cpu_wait_us=(0.0,) * 99 + (100.0,))
    assert stray.disturbed == 1 and cpu_wait_note(stray, Load(1.0, 2), 1) is None  # 1% of the samples, 1% of the time


def test_the_free_cores_decide_the_fitting_threads():
    assert [Load(x, 2).free_cores for x in (0.0, 0.6, 1.2, 3.9, 16.0)] == [2, 1, 1, 1, 1]
    assert Load(None, 8).free_cores == 8
    assert _cpuwait.fitting_threads(Load(0.0, 8), 4) == 4  # never above torch's own count


@pytest.mark.multiprocess
@pytest.mark.skipif(not CpuClock().available, reason="no /proc/<pid>/task/*/schedstat here")
def test_the_reading_sees_a_wait_for_a_shared_core():
    # Two spinning processes on this process's one core: it gets about a third of it, and its
    # thread waits the rest of the time. Pinned, the share does not depend on the machine's load.
    core = min(os.sched_getaffinity(0))
    before_affinity = os.sched_getaffinity(0)
    ctx = multiprocessing.get_context("spawn")
    ready, stop = [ctx.Event() for _ in range(2)], ctx.Event()
    hogs = [ctx.Process(target=pinned_spin, args=(core, r, stop), daemon=True) for r in ready]
    for h in hogs:
        h.start()
    try:
        # Measured only once both spin on the core: a fixed half-second wait for the spawned children
        # was too short beside the other xdist worker, and the reading then saw one hog or none.
        assert all(r.wait(timeout=120) for r in ready), "the spinning processes did not start"
        os.sched_setaffinity(0, {core})
        with CpuClock() as clock:
            a, t0 = clock.read(), time.perf_counter()
            spin(0.4)
            b, wall_ns = clock.read(), (time.perf_counter() - t0) * 1e9
        assert b.wait_since(a) > 0.2 * wall_ns
        assert 0 < b.cpu_ns - a.cpu_ns < 0.8 * wall_ns
    finally:
        os.sched_setaffinity(0, before_affinity)
        stop.set()
        for h in hogs:
            h.join(timeout=10)
            if h.is_alive():
                h.terminate()
                h.join()


def test_threads_is_an_option_checked_once():
    assert Options(threads=3).threads == 3
    for bad in (0, -1, 2.5, True, 10**6):
        with pytest.raises(UsageError, match="threads must be a whole number from 1 to 4096"):
            Options(threads=bad)


def test_threads_are_set_while_measuring_recorded_and_put_back():
    before = torch.get_num_threads()
    r = bench_kernel.bench(torch.add, make_inputs=lambda: (torch.ones(64), torch.ones(64)), methods=("host",),
                           max_time_s=0.02, precision=0.5, rounds=1, threads=2)
    assert r.env["cpu_threads"] == 2 and torch.get_num_threads() == before


def test_the_builtin_suite_fits_its_threads_to_the_free_cores(monkeypatch):
    monkeypatch.setattr(_suite, "has_gpu", lambda: False)
    monkeypatch.setattr(_suite, "machine_load", lambda: Load(3.9, 2))
    monkeypatch.setattr(torch, "get_num_threads", lambda: 2)
    options, line = suite_options(Options())
    assert options.threads == 1
    assert line == "1 torch thread (machine load 3.9 on 2 cores leaves 1 free; torch's own count is 2; --threads N to choose)"
    given, none = suite_options(Options(threads=2))  # a count the user gave is theirs
    assert (given.threads, none) == (2, None)
