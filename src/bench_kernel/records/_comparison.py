"""B against A: the records of a comparison (``compare``, ``sweep --best``, the pytest plugin).

A :class:`Comparison` is one point's statistics and verdict; a :class:`MatchedPoint` adds where it
is (provider, params, method) and what both sides recorded that explains it
(:class:`Explanation`); :class:`CompareOutput` is ``compare --json``. The statistics themselves
are computed in ``results`` (``_verdict`` holds the one rule); here they are only described.
"""

from __future__ import annotations

import math
from typing import Annotated, Any, Literal

from bench_kernel.records._base import Record, derive, doc
from bench_kernel.units import format_duration_us

__all__ = ["Verdict", "VERDICTS", "NoiseSource", "Noise", "Comparison", "KernelDelta", "Reason", "Explanation",
           "MatchedPoint", "Unmatched", "NoiseFloors", "CompareOutput", "Best", "COMPARE_SCHEMA_VERSION",
           "FailOn", "FAIL_ON"]

Verdict = Literal["faster", "slower", "same", "inconclusive"]
#: Every verdict, in the order counts are given.
VERDICTS: tuple[Verdict, ...] = ("faster", "slower", "same", "inconclusive")
NoiseSource = Literal["rounds", "history", "floor"]
FailOn = Literal["slower", "inconclusive"]
#: ``--fail-on``: ``slower`` (the default) fails on a regression; ``inconclusive`` on one too.
FAIL_ON: tuple[FailOn, ...] = ("slower", "inconclusive")
#: 3: verdicts `same` only when shown and `inconclusive` (no `unknown`); a point's statistics under
#: `comparison`, its explanation under `explanation`; `fail_on`.
COMPARE_SCHEMA_VERSION = 3


class Noise(Record, frozen=True):
    """How much a point's time moves between rounds: the SD of the natural log of its round times."""

    sd_log: Annotated[float, doc("the SD of the natural log of the round times (0.02 ~ 2%)")]
    df: Annotated[int, doc("its degrees of freedom")]
    source: Annotated[NoiseSource, doc("`rounds` (the two sides' own), `history` (the point's stored earlier runs) or `floor` (neither: the method's documented worst run-to-run noise, `results.METHOD_FLOORS`)")]
    n: Annotated[int, doc("round times it was measured from (0 for `floor`)")]
    relative: Annotated[float, doc("derived: that SD as a fraction of the time (exp(sd) - 1)")] = 0.0
    runs_sd_log: Annotated[float | None, doc("`history`: the SD of the log of each stored run's mean time (1.4826 x their median absolute deviation, so that a few runs of another speed in the history do not swamp it): the noise a run's rounds share, which more rounds do not average out; null with fewer than 3 stored runs")] = None
    runs: Annotated[int, doc("`history`: the stored runs `runs_sd_log` was measured from")] = 0

    def __post_init__(self) -> None:
        derive(self, relative=math.expm1(self.sd_log))


class Comparison(Record, frozen=True):
    """B against A at one point, and the verdict (times in ``unit`` per call)."""

    a_us: Annotated[float, doc("A's time: the geometric mean of its round times (each round's `statistic`); what the ratio is of")]
    b_us: Annotated[float, doc("B's time, likewise")]
    ratio: Annotated[float, doc("B / A = b_us / a_us: above 1 B is slower")]
    ci_low: Annotated[float | None, doc("the `confidence` interval of the ratio, low end; null: no interval")]
    ci_high: Annotated[float | None, doc("its high end")]
    verdict: Annotated[Verdict, doc("`slower`/`faster`: the CI excludes 1 and the ratio is beyond the threshold; `same`: the whole CI within [1/(1+t), 1+t]; else `inconclusive`")]
    significant: Annotated[bool, doc("the CI excludes 1")]
    threshold: Annotated[float, doc("t: a change within this fraction is no change (0.04 = 4%)")]
    a_n: Annotated[int, doc("A's samples")]
    b_n: Annotated[int, doc("B's samples")]
    a_rounds: Annotated[int, doc("A's rounds")] = 1
    b_rounds: Annotated[int, doc("B's rounds")] = 1
    statistic: Annotated[str, doc("what summarises a round: `median`, or `min` on the host method (other processes only slow a sample)")] = "median"
    unit: Annotated[Literal["us", "ms"], doc("the unit of a_us and b_us (`ms` for serving latencies)")] = "us"
    confidence: Annotated[float, doc("the CI's level (0.99)")] = 0.99
    noise: Annotated[Noise | None, doc("the run-to-run noise the CI used")] = None
    noise_floor: Annotated[float | None, doc("the CI's relative half-width: the smallest change this noise lets it see")] = None
    ci_method: Annotated[str, doc("how the CI was computed")] = "t-interval of log round times"
    rounds_needed: Annotated[int | None, doc("an `inconclusive` verdict: rounds a side that would likely resolve it at the measured noise and ratio (the CI's half-width shrinks as 1/sqrt(rounds)); null: resolved, or not within 100 rounds")] = None
    note: Annotated[str | None, doc("what limits this verdict")] = None
    clock_a_mhz: Annotated[float | None, doc("median SM clock of A's samples")] = None
    clock_b_mhz: Annotated[float | None, doc("median SM clock of B's samples")] = None
    clock_limited: Annotated[bool, doc("a slower/faster verdict the slower side's lower SM clock can explain")] = False

    def is_regression(self, strict_clocks: bool = False) -> bool:
        """B is shown slower, and (unless ``strict_clocks``) not by what A's higher clock explains."""
        return self.verdict == "slower" and (strict_clocks or not self.clock_limited)

    @property
    def clock_text(self) -> str | None:
        """Both median clocks as text (``A 1980 MHz, B 1515 MHz``); None unless both sides have one."""
        if self.clock_a_mhz is None or self.clock_b_mhz is None:
            return None
        return f"A {self.clock_a_mhz:.0f} MHz, B {self.clock_b_mhz:.0f} MHz"

    @property
    def speedup(self) -> float:
        """A's time over B's: above 1 means B is faster."""
        return 1.0 / self.ratio if self.ratio else math.nan

    @property
    def noise_text(self) -> str:
        """Where the interval's noise came from: ``5+5 rounds, noise floor +/-3.2%``."""
        rounds = f"{self.a_rounds}+{self.b_rounds} rounds"
        if self.noise is None or self.noise_floor is None:
            return f"{rounds}, no interval"
        where = {"rounds": rounds, "history": f"{rounds}, noise of {self.noise.n} stored round times of this point",
                 "floor": f"{rounds}, the method's documented worst run-to-run noise"}[self.noise.source]
        return f"{where}, noise floor +/-{self.noise_floor:.1%}"

    def describe(self) -> str:
        """One line: both times, the ratio with its interval and noise floor, and the verdict."""
        clock = f", the slower side at a lower SM clock: {self.clock_text}" if self.clock_limited else ""
        ci = ("no interval" if self.ci_low is None or self.ci_high is None else
              f"{self.confidence:.0%} CI {self.ci_low:.3f}-{self.ci_high:.3f}")
        fmt = format_duration_us if self.unit == "us" else (lambda v: f"{v:.4g} ms")
        more = f"; {self.rounds_needed} rounds a side would likely resolve it" if self.rounds_needed else ""
        return (f"{self.verdict}: B {fmt(self.b_us)} vs A {fmt(self.a_us)} (geometric means of round "
                f"{self.statistic}s), ratio {self.ratio:.3f} ({ci}; {self.noise_text}; threshold "
                f"{self.threshold:.0%}){clock}{more}" + (f"; {self.note}" if self.note else ""))


class KernelDelta(Record, frozen=True):
    """One kernel's device time per call on each side (from the ``kernel`` method's breakdown)."""

    name: Annotated[str, doc("the kernel's full name")]
    short: Annotated[str, doc("its short name")]
    a_us: Annotated[float | None, doc("A's device time per call; null: not launched in A")]
    b_us: Annotated[float | None, doc("B's; null: not launched in B")]
    ratio: Annotated[float | None, doc("b_us / a_us; null where one side lacks it")] = None
    a_launch: Annotated[str | None, doc("A's launch configuration (`grid 128x1x1 block 256x1x1 regs 32 smem 0`), where recorded")] = None
    b_launch: Annotated[str | None, doc("B's")] = None


class Reason(Record, frozen=True):
    """One thing both sides recorded differently, as a line and its kind."""

    kind: Annotated[Literal["kernels", "kernel-set", "launch-config", "outside-kernels", "methods", "machine", "code"], doc("what differs: `kernels` (their device time), `kernel-set` (added or gone), `launch-config`, `outside-kernels` (graph/events moved, kernels not), `methods` (they tell different stories), `machine`, `code`")]
    text: Annotated[str, doc("the line as printed")]


class Explanation(Record, frozen=True):
    """What both sides recorded that bears on a verdict, and the one-line reason."""

    summary: Annotated[str, doc("the one-line reason printed under the table")]
    reasons: Annotated[tuple[Reason, ...], doc("every difference found, most telling first")] = ()
    kernels: Annotated[tuple[KernelDelta, ...], doc("per kernel, A against B, the most moved first")] = ()
    method_verdicts: Annotated[dict[str, str], doc("method -> its verdict at this point, for every method both sides measured")] = {}


class MatchedPoint(Record, frozen=True):
    """One point measured on both sides with the same method: the comparison and its explanation."""

    provider: Annotated[str, doc("A's provider")]
    b_provider: Annotated[str, doc("B's provider (differs when comparing two providers of one run)")]
    params: Annotated[dict[str, Any], doc("the point")]
    method: Annotated[str, doc("the method compared")]
    comparison: Annotated[Comparison, doc("the statistics and the verdict")]
    explanation: Annotated[Explanation | None, doc("what changed, from what both sides recorded (a `slower`, `faster` or `inconclusive` point)")] = None


class Unmatched(Record, frozen=True):
    """A point that is not compared, and why."""

    provider: Annotated[str, doc("the provider")]
    params: Annotated[dict[str, Any], doc("the point")]
    reason: Annotated[str, doc("why it is not compared (only in A, only in B, not measured on one side, samples that are not times)")]
    invalid: Annotated[bool, doc("measured on both sides, but a side's samples are not times (NaN, inf, <= 0): exit status 1")] = False


class NoiseFloors(Record, frozen=True):
    """Where the verdicts' noise came from, and the floors' range."""

    rounds: Annotated[int, doc("points whose noise came from their rounds")] = 0
    history: Annotated[int, doc("points whose noise came from the store's history")] = 0
    floor: Annotated[int, doc("points with one round a side and no history: the method's documented floor")] = 0
    min: Annotated[float | None, doc("the smallest noise floor")] = None
    max: Annotated[float | None, doc("the largest")] = None


class CompareOutput(Record, frozen=True, kw_only=True):
    """B against A, point by point. The exit status is 1 on a regression (`slower`, not clock-limited
    unless `strict_clocks`), on a point whose samples are not times, and with `fail_on`
    `inconclusive` on an inconclusive point. Serving runs compared give another document (`kind`
    `serve`, docs/serving.md)."""

    schema_version: Annotated[int, doc("this document's version")] = COMPARE_SCHEMA_VERSION
    a: Annotated[str, doc("what A is (run, file, `RUN:PROVIDER`)")]
    b: Annotated[str, doc("what B is")]
    threshold: Annotated[float, doc("t: `same` needs the whole CI within [1/(1+t), 1+t]; `slower`/`faster` a ratio beyond it")]
    strict_clocks: Annotated[bool, doc("clock-limited slowdowns count as regressions (`--strict-clocks`)")] = False
    fail_on: Annotated[FailOn, doc("what fails the exit status besides damaged samples: `slower`, or also `inconclusive`")] = "slower"
    counts: Annotated[dict[str, int], doc("points per verdict: `faster`, `slower`, `same`, `inconclusive`, and `unmatched`")] = {}
    noise_floors: Annotated[NoiseFloors, doc("where the verdicts' noise came from, and the floors' range")] = NoiseFloors()
    clock_limited: Annotated[int, doc("verdicts the slower side's lower SM clock can explain")] = 0
    regressions: Annotated[int, doc("regressions that decide the exit status")] = 0
    failed: Annotated[bool, doc("the exit status is not 0")] = False
    points: Annotated[tuple[MatchedPoint, ...], doc("the matched points")] = ()
    unmatched: Annotated[tuple[Unmatched, ...], doc("points on one side only, or not comparable")] = ()


class Best(Record, frozen=True):
    """The fastest provider at one point (``sweep --best``), and whether it is shown faster."""

    params: Annotated[dict[str, Any], doc("the point")]
    provider: Annotated[str, doc("the fastest provider")]
    median_us: Annotated[float, doc("its median")]
    method: Annotated[str | None, doc("the method compared")]
    runner_up: Annotated[str | None, doc("the second fastest")] = None
    runner_up_us: Annotated[float | None, doc("its median")] = None
    margin: Annotated[float | None, doc("runner-up time / best time - 1 (0.08: the best is 8% faster)")] = None
    verdict: Annotated[Verdict | None, doc("the runner-up against the best, by `compare`'s rule and threshold: `slower` (the best is shown faster), `same`, `inconclusive`; null without a runner-up")] = None
    significant: Annotated[bool, doc("the verdict is `slower`: the best is shown faster beyond the threshold")] = False
    ci: Annotated[tuple[float, float] | None, doc("the CI of runner-up/best, [low, high] (with one round each, bounded by the method's noise floor)")] = None
    candidates: Annotated[int, doc("providers measured at this point")] = 1
    confidence: Annotated[float | None, doc("the CI's level (0.99)")] = None
    noise_floor: Annotated[float | None, doc("its relative half-width")] = None
