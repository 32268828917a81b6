"""What the ``kernel_bench`` fixture does per call, and the session's record of every call.

Importing this module costs nothing: torch, numpy and the measuring code load on the first
call of the fixture, so a test suite that never uses it pays only for the option parsing.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from bench_kernel.options import Options

__all__ = ["KernelBench", "KernelBenchResult", "SessionState"]


@dataclass(frozen=True)
class KernelBenchResult:
    """One ``kernel_bench(...)`` call: the measured ``result`` and, with a baseline, the comparison.

    ``median_us`` is the median per-call time of the PRIMARY method, in microseconds: graph,
    else kernel, else events, else host (``BenchResult.primary_method``) -- the same number
    ``bench-kernel run`` shows first and ``compare`` compares.
    """

    name: str
    params: dict[str, Any]
    result: Any  # bench_kernel.measure.BenchResult
    #: ``bench_kernel.results.Comparison`` against the baseline (None: no baseline, or not in it)
    comparison: Any = None
    #: why there is no comparison though a baseline was given ("not in run 12")
    baseline_note: str | None = None
    #: ``bench_kernel.records.Explanation``: what both sides recorded that differs (None: ``same``)
    explanation: Any = None

    @property
    def method(self) -> str:
        """The primary method, whose median ``median_us`` is."""
        return self.result.primary_method

    @property
    def median_us(self) -> float:
        """Median microseconds per call of the primary method."""
        return self.result.time_us

    @property
    def ci95_us(self) -> tuple[float, float]:
        """95% confidence interval of that median, microseconds (across the rounds when there are several)."""
        return self.result.measurements[self.method].ci95

    @property
    def achieved_tflops(self) -> float | None:
        return self.result.achieved_tflops

    @property
    def achieved_tbps(self) -> float | None:
        return self.result.achieved_tbps


@dataclass
class SessionState:
    """The options of this pytest session, its baseline and store, and what its tests measured."""

    baseline_ref: str | None = None
    save: bool = False
    db_path: str | None = None
    threshold: float = 0.04  # bench_kernel.results.DEFAULT_THRESHOLD (see the plugin's __init__)
    #: fail a slowdown that this run's lower SM clock explains too (``--kernel-bench-strict-clocks``)
    strict_clocks: bool = False
    #: "slower" fails a regression; "inconclusive" fails a point that cannot tell too (--kernel-bench-fail-on)
    fail_on: str = "slower"
    records: list[tuple[str, KernelBenchResult]] = field(default_factory=list)  # (nodeid, result)
    #: the baseline's points (``bench_kernel.results.PointSet``), resolved when the session starts
    baseline: Any = None
    #: the store measurements are saved to (``--kernel-bench-save``)
    store: Any = None
    #: the stored run once the session has finished (``RunInfo``), for the summary
    saved_run: Any = None
    #: what starts the stored run: (name, command) of this session
    run_name: str = "pytest"
    command: tuple[str, ...] = ()
    #: how every call measures unless it says otherwise (the session's ``--kernel-bench-*`` options)
    options: Options = field(default_factory=Options)
    #: the session's ``bench_kernel.orchestrate.CaseRunner``: one env, one stored run
    runner: Any = None
    #: the store read for the history of one-round points (``results.store_history``), with a baseline
    history_store: Any = None

    def seen(self, name: str, params: dict[str, Any]) -> bool:
        return any(r.name == name and r.params == params for _, r in self.records)

    def open(self) -> None:
        """Resolve the baseline and open the store before any test runs: a wrong ``RUN|FILE`` or
        an unusable database is one usage error, not a failure in every test."""
        from bench_kernel.results import open_store, resolve_ref

        if self.save:
            self.store = open_store(self.db_path)
        if self.baseline_ref is not None:
            opened: list[Any] = []

            def open_db() -> Any:
                if self.store is not None:
                    return self.store
                opened.append(open_store(self.db_path, create=False))
                return opened[-1]

            try:
                self.baseline = resolve_ref(self.baseline_ref, open_db)
            except BaseException:
                for store in opened:
                    store.close()
                raise
            # kept open for the session: a one-round point's noise comes from its stored history
            self.history_store = self.store if self.store is not None else (opened[-1] if opened else None)
            for store in opened[:-1]:
                store.close()

    def compare(self, name: str, params: dict[str, Any], result: Any) -> tuple[Any, str | None]:
        """(MatchedPoint, None) against the baseline's same point, or (None, why there is none).
        The statistics are ``bench-kernel compare``'s: ``compare_points`` on the stored samples."""
        from bench_kernel.records import PointResult, params_key, status_of
        from bench_kernel.results import PointSet, compare_points, store_history

        key = params_key(params)
        base = [p for p in self.baseline.points if p.provider == name and params_key(p.params) == key]
        if not base:
            return None, f"not in {self.baseline.label}"
        this = PointResult(name, dict(params), status_of(result), result)
        own = self.runner.outcome.run if self.runner is not None else None
        history = (store_history(self.history_store, self.baseline, PointSet("this run", own, (this,)))
                   if self.history_store is not None else None)
        rc = compare_points(base, [this], threshold=self.threshold, a_label=self.baseline.label, b_label="this run",
                            history=history)
        if rc.invalid:  # a damaged baseline fails the test: a gate must not pass on what it cannot read
            import pytest

            pytest.fail(f"kernel_bench: {name}: cannot compare with the baseline {self.baseline.label}: "
                        f"{rc.invalid[0].reason}", pytrace=False)
        if rc.rows:
            return rc.rows[0], None
        return None, rc.unmatched[0].reason

    def measure(self, case: Any, options: Options) -> Any:
        """Measure ``case`` as ``run`` measures one (the session's env captured once; with
        ``--kernel-bench-save`` each result is committed to this session's stored run as it ends)."""
        if self.runner is None:
            from bench_kernel.orchestrate import CaseRunner

            self.runner = CaseRunner(self.options, store=self.store, name=self.run_name, command=self.command,
                                     config={"threshold": self.threshold, "baseline": self.baseline_ref})
        return self.runner.run(case, options=options)

    def close(self, interrupted: bool) -> Any:
        """Finish the stored run (``interrupted`` on Ctrl-C) and close the store; the run or None."""
        run = None
        if self.runner is not None:
            run = self.runner.finish("interrupted" if interrupted else "done").run
        if self.store is not None:
            self.store.close()
        if self.history_store is not None and self.history_store is not self.store:
            self.history_store.close()
        return run


class KernelBench:
    """The ``kernel_bench`` fixture: ``kernel_bench(fn, make_inputs=..., flops=...)`` times ``fn``
    as ``bench_kernel.bench`` does and returns a :class:`KernelBenchResult`.

    Without a GPU a call that asks for a GPU method (the default methods all do) skips the test
    with the reason; ``methods=("host",)`` runs anywhere. A wrong result (``reference``) or a
    significant regression against ``--kernel-bench-baseline`` fails the test.
    """

    def __init__(self, state: SessionState, nodeid: str) -> None:
        self._state = state
        self._nodeid = nodeid

    def __call__(self, fn: Callable[..., Any], *, make_inputs: Callable[[], Any] | None = None,
                 reference: Callable[..., Any] | None = None, flops: float | None = None,
                 bytes: float | None = None, name: str | None = None, params: dict[str, Any] | None = None,
                 rtol: float | None = None, atol: float | None = None, **options: Any) -> KernelBenchResult:
        """Time ``fn``; the arguments are ``bench_kernel.bench``'s. ``options``: fields of
        ``bench_kernel.options.Options`` (``methods``, ``cache``, ``precision``, ``max_time_s``,
        ``timeout_s``, ``steady``, ...) over the session's ``--kernel-bench-*`` options. ``name``
        defaults to the test's node id; (name, params) must differ between the calls of one session
        (they key the baseline)."""
        # pytest reports a skip or failure at the innermost frame it does not hide: the user's call
        # of kernel_bench, not this file (pytest's own helpers hide themselves the same way).
        __tracebackhide__ = True
        import pytest

        from bench_kernel.gpu import has_gpu
        from bench_kernel.measure import as_case

        opts = Options.build(self._state.options, **options)
        name = name or self._nodeid
        params = dict(params or {})
        if self._state.seen(name, params):
            pytest.fail(f"kernel_bench: {name!r} with params {params} was already measured in this session; "
                        f"pass name= or params= to tell the calls apart (they key the baseline)", pytrace=False)
        if opts.gpu_methods and not has_gpu():
            pytest.skip(f"kernel_bench: {', '.join(opts.gpu_methods)} need a CUDA/HIP GPU and none is visible "
                        f"(methods=('host',) times on the host)")
        case = as_case(fn, make_inputs=make_inputs, reference=reference, flops=flops, bytes=bytes, name=name,
                       params=params, rtol=rtol, atol=atol)
        result = self._state.measure(case, opts)
        if result.correct is False:
            pytest.fail(f"kernel_bench: {name}: {result.notes[-1].text}", pytrace=False)
        if result.time_us is None:
            pytest.fail(f"kernel_bench: {name}: no method measured: {'; '.join(n.text for n in result.notes)}", pytrace=False)
        row, why = self._state.compare(name, params, result) if self._state.baseline else (None, None)
        comparison = row.comparison if row is not None else None
        explanation = row.explanation if row is not None else None
        record = KernelBenchResult(name, params, result, comparison, why, explanation)
        self._state.records.append((self._nodeid, record))  # stored before a regression fails the test
        if comparison is not None and comparison.is_regression(self._state.strict_clocks):
            c = comparison
            clock = (f"; this run at a lower SM clock ({c.clock_b_mhz:.0f} MHz vs the baseline's {c.clock_a_mhz:.0f}), "
                     f"counted by --kernel-bench-strict-clocks" if c.clock_limited else "")
            pytest.fail(f"kernel_bench: {name}: slower than the baseline {self._state.baseline.label}: "
                        f"{_us(c.b_us)} vs {_us(c.a_us)} ({record.method}, each round's {c.statistic}), ratio {c.ratio:.3f} "
                        f"({c.confidence:.0%} CI {c.ci_low:.3f}-{c.ci_high:.3f}, {c.noise_text}), beyond the "
                        f"{c.threshold:.0%} threshold{clock}" + (f"; {explanation.summary}" if explanation else ""),
                        pytrace=False)
        if comparison is not None and comparison.verdict == "inconclusive" and self._state.fail_on == "inconclusive":
            pytest.fail(f"kernel_bench: {name}: inconclusive against the baseline {self._state.baseline.label} "
                        f"(--kernel-bench-fail-on inconclusive): {comparison.describe()}", pytrace=False)
        return record


def _us(value: float) -> str:
    from bench_kernel.units import format_duration_us

    return format_duration_us(value)
