"""Rounds: one case timed K times, and the K results joined into one.

Within one round the samples are close in time, so their scatter says nothing about what moves
between two runs: another tenant's load, the clock a power-capped GPU settles at, a process's
memory layout. Two runs of identical code then differ by more than any within-run interval shows
(false "faster"/"slower" verdicts at 3 to 6 of 6 points on a loaded 2-core machine). A round is
one full measurement of the case; K of them, spread over time (a sweep interleaves them across
its points, and on the host method runs each in a fresh process), show that noise, and
``bench_kernel.results`` tests a difference against it.

How many rounds (``Options.rounds`` None, the default): time goes where the noise is. Every method
runs the default rounds (``DEFAULT_ROUNDS``: what the verdicts were measured with), and they share
its ``max_time_s``: a round stops once its own interval is within the precision, or at its share
of the bound. A method whose rounds then disagree -- the interval across their medians wider than
the precision, though each round met it: the run-to-run noise the rounds are there to see -- gets
more rounds, up to :data:`MORE_ROUNDS_FACTOR` times as many, while its bound lasts (a round past
the bound is not started). A quiet method stops at the default rounds; a noisy one does not pay
for rounds that cannot agree. ``rounds=K`` runs exactly K rounds (a sweep runs one per unit).
:class:`RoundPlan` holds the rule; ``measure_case`` follows it.

Joining keeps every sample: a method's samples are the rounds' samples in order, with
``round_sizes`` saying where each round ends (its median is the median of the round medians);
a method that failed in some rounds keeps the rounds that measured and says which failed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

from bench_kernel.measure._stopping import timer_step_us
from bench_kernel.measure._summary import summarise_round_notes
from bench_kernel.options import METHODS, Options
from bench_kernel.records import BenchResult, Measurement, Samples, warning

__all__ = ["merge_measurements", "merge_results", "RoundPlan", "MORE_ROUNDS_FACTOR"]

#: Where the rounds of a method disagree, up to this many times its default rounds (``rounds=None``).
MORE_ROUNDS_FACTOR = 2
#: A round is not started with less of the method's bound left than this fraction of a round's share.
_MIN_SHARE = 0.25


@dataclass(frozen=True)
class RoundPlan:
    """How many rounds a method gets and how long each may sample (module docstring).

    min_rounds / max_rounds: the rounds always run, and the most it may get where they disagree.
    budget_s: the method's sampling bound, shared by its rounds (``Options.max_time_s``).
    precision: what the interval across the rounds' medians must meet (relative half-width).
    """

    min_rounds: int
    max_rounds: int
    budget_s: float
    precision: float

    @classmethod
    def of(cls, options: Options, gpu: bool) -> "RoundPlan":
        k = options.rounds_for(gpu)
        more = k if options.rounds is not None else k * MORE_ROUNDS_FACTOR
        return cls(k, more, options.max_time_s, options.precision)

    @property
    def share_s(self) -> float:
        """One round's share of the bound (s)."""
        return self.budget_s / self.min_rounds

    def round_bound_s(self, done: int, used_s: float) -> float:
        """The time bound (s) of the next round after ``done`` rounds that sampled ``used_s``."""
        return self.share_s if done < self.min_rounds else min(self.share_s, self.budget_s - used_s)

    def wants_more(self, rounds: Sequence[Measurement], used_s: float) -> bool:
        """Whether the method gets another round, after ``rounds`` (in order) sampled ``used_s`` s."""
        done = len(rounds)
        if done < self.min_rounds:
            return True
        if done >= self.max_rounds or self.budget_s - used_s < _MIN_SHARE * self.share_s:
            return False
        ok = [m for m in rounds if m.ok]
        if len(ok) < 2 or any(m.stop_reason == "time" for m in ok):  # nothing to agree, or no round met its precision
            return False
        medians = [m.samples.median_us for m in ok]
        # Medians a timer step apart agree: the profiler's 32 ns steps put a 1 us kernel's rounds at
        # 1.024 or 1.056 us, 3% apart, and more rounds cannot say more (measured on the H200).
        step = timer_step_us([v for m in ok for v in m.samples.values_us])
        if step and max(medians) - min(medians) <= step * (1 + 1e-6):
            return False
        return Samples.of(medians).rel_ci95 > self.precision


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
    values: list[float | None] = []
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
    after). Notes are made once for the point (``_summary``: the judged ones again on the joined
    rounds, the others once, with how many rounds made them). A wrong result in any round makes the
    whole wrong.
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
    walls = [p.wall_s for p in parts if p.wall_s is not None]
    return first.replace(measurements=measurements, correct=correct, env=env, wall_s=sum(walls) if walls else None,
                   kernels=next((p.kernels for p in parts if p.kernels), ()),
                   notes=tuple(summarise_round_notes(parts, measurements, env)),
                   check=next((p.check for p in parts if p.check is not None and not p.check.passed), first.check))
