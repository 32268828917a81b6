"""Rounds: one case timed K times, and the K results joined into one.

Within one round the samples are close in time, so their scatter says nothing about what moves
between two runs: another tenant's load, the clock a power-capped GPU settles at, a process's
memory layout. Two runs of identical code then differ by more than any within-run interval shows
(issue 20: false "faster"/"slower" at 3 to 6 of 6 points on a loaded 2-core machine). A round is
one full measurement of the case; K of them, spread over time (a sweep interleaves them across
its points, and on the host method runs each in a fresh process), show that noise, and
``bench_kernel.results`` tests a difference against it.

Joining keeps every sample: a method's samples are the rounds' samples in order, with
``round_sizes`` saying where each round ends (its median is the median of the round medians);
a method that failed in some rounds keeps the rounds that measured and says which failed.
"""

from __future__ import annotations

from typing import Any, Sequence

from bench_kernel.options import METHODS
from bench_kernel.records import BenchResult, Measurement, warning

__all__ = ["merge_measurements", "merge_results"]


def _sizes(m: Measurement) -> tuple[int, ...]:
    return m.round_sizes or ((len(m.samples_us),) if m.samples_us else ())


def merge_measurements(parts: Sequence[Measurement]) -> Measurement:
    """One method's rounds (in order) as one :class:`Measurement`; the first round's settings.

    Clocks stay aligned with the samples: a round without readings contributes None per sample
    (none at all when no round has any). So do the CPU waits and times of host samples: a round
    without them contributes 0 per sample (not judged, as a record without any), and every sample
    is kept, those that waited for a CPU included, so that the joined record leaves out the same
    samples its rounds did. Failed rounds add no samples and leave a note; when every
    round failed, the first error stands.
    """
    if not parts:
        raise ValueError("merge_measurements needs at least one round")
    ok = [m for m in parts if m.ok]
    first = parts[0]
    notes = list(dict.fromkeys(n for m in parts for n in m.notes))
    failed = [i + 1 for i, m in enumerate(parts) if not m.ok]
    if not ok:
        return first.replace(wall_s=sum(m.wall_s for m in parts), notes=tuple(notes))
    if failed:
        notes.append(warning("rounds-failed", f"{first.method}: round(s) {', '.join(map(str, failed))} of "
                             f"{len(parts)} did not measure ({next(m.error for m in parts if not m.ok) or 'no samples'})",
                             method=first.method, rounds=failed))
    values: list[float] = []
    clocks: list[float | None] = []
    waits: list[float] = []
    cpus: list[float] = []
    sizes: list[int] = []
    any_clock = any(m.sm_clock_mhz for m in ok)
    any_wait, any_cpu = any(m.cpu_wait_us for m in ok), any(m.cpu_us for m in ok)
    for m in ok:
        k = len(m.samples_us)
        values += m.samples_us
        sizes += _sizes(m)
        if any_clock:
            clocks += list(m.sm_clock_mhz) if len(m.sm_clock_mhz) == k else [None] * k
        if any_wait:
            waits += list(m.cpu_wait_us) if m.cpu_wait_us else [0.0] * k
        if any_cpu:
            cpus += list(m.cpu_us) if m.cpu_us else [0.0] * k
    return Measurement(method=first.method, samples_us=tuple(values),
                       calls_per_sample=ok[0].calls_per_sample, cache=ok[0].cache,
                       stop_reason="time" if any(m.stop_reason == "time" for m in ok) else ok[-1].stop_reason,
                       wall_s=sum(m.wall_s for m in parts), notes=tuple(notes), error=None,
                       sm_clock_mhz=tuple(clocks), round_sizes=tuple(sizes) if len(sizes) > 1 else (),
                       cpu_wait_us=tuple(waits), cpu_us=tuple(cpus))


def merge_results(parts: Sequence[BenchResult], rounds_env: Sequence[dict[str, Any]] = ()) -> BenchResult:
    """K rounds of one case (in order) as one :class:`BenchResult`.

    The first round gives the name, params, work, kernels breakdown and env; ``env["rounds"]``
    lists each round's state (``rounds_env``, e.g. which worker ran it, the SM clock before and
    after). Notes are joined without repeats. A wrong result in any round makes the whole wrong.
    """
    if not parts:
        raise ValueError("merge_results needs at least one round")
    if len(parts) == 1 and not rounds_env:
        return parts[0]
    first = parts[0]
    measurements = {}
    for method in METHODS:
        rounds = [p.measurements[method] for p in parts if method in p.measurements]
        if rounds:
            measurements[method] = merge_measurements(rounds)
    correct = False if any(p.correct is False for p in parts) else first.correct
    env = dict(first.env)
    if rounds_env:
        env["rounds"] = [dict(e) for e in rounds_env]
    return first.replace(measurements=measurements, correct=correct, env=env,
                   kernels=next((p.kernels for p in parts if p.kernels), ()),
                   notes=tuple(dict.fromkeys(n for p in parts for n in p.notes)),
                   check=next((p.check for p in parts if p.check is not None and not p.check.passed), first.check))
