"""One loop over cases, for ``run``, ``run --save`` and the pytest plugin.

A run captures the machine's state once, resolves the roofline's device once, measures each case
within its time limit, and commits each result to the store (when there is one) as it ends, so a run
killed at any moment keeps what it finished. What the loop does when a case fails is the same for
every caller: a wrong option or a missing device ends the run (one line, not one per case); a
failing case is recorded with its reason and the run goes on; Ctrl-C marks the stored run
``interrupted``; a case stuck where no exception reaches it (a C call, a GPU wait) is the caller's
to handle through ``on_stuck``, after the stored run has been marked.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Sequence

from bench_kernel.errors import (
    BenchKernelError,
    DeviceError,
    TimeLimitError,
    UsageError,
)
from bench_kernel.gpu import has_gpu
from bench_kernel.measure import Case, Expired, TimeLimit, load_target
from bench_kernel.options import Options
from bench_kernel.orchestrate._bench import bench_case, run_env
from bench_kernel.orchestrate._roofline import resolve_device
from bench_kernel.records import BenchResult, RunInfo, RunOutput, params_key, point_label, status_of, untimed_reason
from bench_kernel.records import CaseError as RunCaseError
from bench_kernel.results import Recorder, Store

__all__ = ["CaseError", "CasesRun", "CaseRunner", "RunCost", "run_cases", "Progress", "SHOWN_FAILURES"]

#: Failed cases named one line each at the end of a run; the rest are counted in one more line.
SHOWN_FAILURES = 3

#: ``progress(done, total, message)``: cases finished so far, all cases (None: not known), and what
#: the current case is doing.
Progress = Callable[[int, "int | None", str], None]


@dataclass(frozen=True)
class CaseError:
    """A case that could not be measured: its label, params and the one-line reason."""

    label: str
    params: dict[str, Any]
    message: str


@dataclass(frozen=True)
class RunCost:
    """Where a run's wall time went, seconds: the parts sum to ``total_s``.

    load_s: importing torch and loading the target (or building the built-in suite); warmup_s:
    holding the GPU at its working clock (``env["device_warmup"]`` of the run and of each result);
    profiler_s: waiting for the process's first profiler session; timing_s: every method's rounds
    (the measurements' ``wall_s``); counting_s: FLOPs/bytes and hardware counters after timing;
    other_s: the rest (checks, inputs, each case's own warm-up, the machine's state, writing).
    """

    total_s: float
    load_s: float
    warmup_s: float
    profiler_s: float
    timing_s: float
    counting_s: float
    other_s: float

    @classmethod
    def of(cls, results: Sequence[BenchResult], run_env: dict[str, Any] | None, total_s: float,
           load_s: float = 0.0) -> "RunCost":
        def held(env: dict[str, Any] | None) -> float:
            return float(((env or {}).get("device_warmup") or {}).get("held_s") or 0.0)

        warmup = held(run_env) + sum(held(r.env) for r in results)
        profiler = sum(float(r.env.get("profiler_start_s") or 0.0) for r in results)
        timing = sum(m.wall_s for r in results for m in r.measurements.values())
        counting = sum(float(r.env.get("counting_s") or 0.0) for r in results)
        other = max(0.0, total_s - load_s - warmup - profiler - timing - counting)
        return cls(total_s, load_s, warmup, profiler, timing, counting, other)


@dataclass
class CasesRun:
    """What a run of cases produced: every measured (or refused) result, every failure, the stored run."""

    results: list[BenchResult] = field(default_factory=list)
    errors: list[CaseError] = field(default_factory=list)
    #: the stored run (None without a store)
    run: RunInfo | None = None

    def document(self) -> RunOutput:
        """What ``run --json`` prints: the results and the errors, as one versioned record."""
        return RunOutput(results=tuple(self.results),
                         errors=tuple(RunCaseError(name=e.label, params=dict(e.params), error=e.message)
                                      for e in self.errors))

    @property
    def wrong(self) -> list[BenchResult]:
        """Results refused by their reference check (never timed)."""
        return [r for r in self.results if r.correct is False]

    @property
    def untimed(self) -> list[BenchResult]:
        """Results that no method could time (each method refused: its error says why). A sweep
        calls such a point ``error``; a run that printed null for it and exited 0 would let a script
        read success."""
        return [r for r in self.results if status_of(r) == "error"]

    @property
    def exit_code(self) -> int:
        """1 when a case failed, was refused by its reference or got no time from any method, else 0."""
        return 1 if self.errors or self.wrong or self.untimed else 0

    def failures(self) -> list[str]:
        """One line per case that failed, was refused or got no time, naming the case."""
        return ([e.message if e.message.startswith(f"case {e.label!r}") else f"case {e.label!r}: {e.message}"
                 for e in self.errors] + [f"case {r.name!r}: {r.notes[-1].text}" for r in self.wrong]
                + [f"case {r.name!r}: no method gave a time: {untimed_reason(r)}" for r in self.untimed])

    def failure_lines(self, *, stored: str | None, listed: str, shown: int = SHOWN_FAILURES) -> list[str]:
        """The error lines a run ends with: the first ``shown`` failures, then one line counting
        the rest and saying where each is listed (``listed``: the --json output, or its file), so
        that 10,000 failures print a few lines, not 10,000 (nor one line of 69 KB).
        ``stored``: where the run is stored, or None."""
        failed = self.failures()
        lines = [line if stored is None or len(failed) > 1 else f"{line} (the run is stored as {stored})"
                 for line in failed[:shown]]
        if len(failed) > shown:
            places = (["'errors'"] if self.errors else []) + (
                ["'results' (correct false, or no time)"] if self.wrong or self.untimed else [])
            where = [f"{listed} lists each under {' or '.join(places)}"] + ([f"they are stored in {stored}"] if stored else [])
            lines.append(f"... and {len(failed) - shown} more failed case(s), {len(failed)} in all; {'; '.join(where)}")
        elif len(failed) > 1 and stored:
            lines.append(f"{len(failed)} case(s) failed; the run is stored as {stored}")
        return lines

    def stuck_line(self, limit: Any) -> str:
        """What a run stopped by a case stuck in code that cannot be interrupted says, with what it kept."""
        done = (f"stopped the run after {len(self.results)} finished case(s), their results written"
                if self.results or self.errors else "nothing was measured")
        return (f"{limit.subject} timed out after {limit.seconds:g} s in code that cannot be interrupted (a C call "
                f"or a GPU wait); {done}")


class CaseRunner:
    """Measures cases one at a time with one :class:`Options`, storing each as it ends.

    The device of ``options.roofline`` is resolved when the runner is made, so a wrong name fails
    before any case is loaded. store: where to commit the run (None: keep nothing); name, command,
    source: the stored run's name, command line and source file (its hash and git state are
    stored); total: cases expected (``run_all`` sets it).
    config: more to store with the run's options (the pytest plugin's threshold and baseline).
    on_stuck: ``on_stuck(run_so_far, limit)``, called from the watchdog thread when a case is stuck
    past its limit in code that cannot be interrupted, after the stored run is marked interrupted;
    the CLI writes what it has and exits there. Default: a line on stderr, the case runs on.
    """

    def __init__(self, options: Options, *, store: Store | None = None, name: str = "run",
                 command: Sequence[str] = (), source: str | Path | None = None, total: int | None = None,
                 progress: Progress | None = None, on_stuck: Callable[[CasesRun, Any], None] | None = None,
                 config: dict[str, Any] | None = None) -> None:
        self.options = options
        # A wrong device name fails before any case is loaded or measured.
        self.roof = resolve_device(options.device, has_gpu()) if options.roofline else None
        self.store, self.name, self.command, self.source, self.total = store, name, tuple(command), source, total
        self.progress = progress
        self.on_stuck = on_stuck
        self.config = dict(config or {})
        self.outcome = CasesRun()
        self.env: dict[str, Any] | None = None
        self._recorder: Recorder | None = None
        self._finished = False

    def load(self, target: str) -> list[Case]:
        """``load_target(target)`` within ``options.timeout_s``, as a case is bounded: a target whose
        import or function never returns (a download, a deadlock, a busy loop) is a TimeLimitError
        instead of a run that waits forever, or ``on_stuck`` in code that cannot be
        interrupted."""
        subject = f"loading {target!r}"
        _import_torch()  # the tool's own import (seconds on a cold disk), not the target's time
        with TimeLimit(self.options.timeout_s, target, subject=subject,
                       on_stuck=self._stuck if self.on_stuck else None):
            try:
                return load_target(target)
            except Expired:
                raise TimeLimitError(f"{subject} timed out after {self.options.timeout_s:g} s (--timeout): its "
                                     f"function did not return its cases") from None

    def start(self) -> dict[str, Any]:
        """Capture the machine's state (once) and open the stored run; the env."""
        if self.env is None:
            # torch's and triton's first import (seconds) and the GPU's warm-up happen here, in no case's time
            self.env = run_env(self.options)
        if self.store is not None and self._recorder is None:
            self._recorder = Recorder(self.store, name=self.name, config={**self.config, "options": self.options.to_dict()},
                                      env=self.env, command=self.command, source=self.source, total=self.total)
            self.outcome.run = self._recorder.run
        return self.env

    def run(self, case: Case, options: Options | None = None) -> BenchResult:
        """Measure ``case`` (with ``options`` instead of the run's, if given); the result (also when
        its reference check refused it).

        Raises the case's BenchKernelError after recording it; UsageError/DeviceError also mark
        the stored run failed (the options are wrong, not the case).
        """
        env = self.start()
        done = len(self.outcome.results) + len(self.outcome.errors)
        progress = self.progress
        say = (lambda msg: progress(done, self.total, msg)) if progress else None
        options = options or self.options
        roof = self.roof if (options.roofline, options.device) == (self.options.roofline, self.options.device) else None
        try:
            result = bench_case(case, options, env=env, roof=roof, progress=say,
                                on_stuck=self._stuck if self.on_stuck else None)
        except (UsageError, DeviceError):
            self.finish("failed")
            raise
        except BenchKernelError as e:
            self.outcome.errors.append(CaseError(case.label, dict(case.params), str(e)))
            if self._recorder is not None:
                self._recorder.save_error(case.label, case.params, str(e))
            raise
        except KeyboardInterrupt:
            self.finish("interrupted")
            raise
        if self._recorder is not None:
            try:
                self._recorder.save(result)
            except BenchKernelError as e:  # not stored is not measured for a run that is its store
                self.outcome.errors.append(CaseError(case.label, dict(case.params), str(e)))
                raise
        self.outcome.results.append(result)
        return result

    def run_all(self, cases: Sequence[Case]) -> CasesRun:
        """Measure every case; what the run produced, the stored run finished ``done``.

        A failing case is recorded in ``errors`` and the run goes on, unless it is the only case:
        then its error is raised (after the stored run is finished), as ``bench()`` would raise it.
        UsageError and DeviceError end the run at once.
        """
        self.total = len(cases)
        if self.store is not None:
            _stored_once(cases)
        self.start()
        for case in cases:
            try:
                self.run(case)
            except (UsageError, DeviceError):
                raise
            except BenchKernelError:
                if len(cases) == 1:
                    self.finish("done")
                    raise
        return self.finish("done")

    def finish(self, status: str = "done") -> CasesRun:
        """Mark the stored run ``status`` (once) and return what the run produced."""
        if self._recorder is not None and not self._finished:
            self._finished = True
            self.outcome.run = self._recorder.finish(status)
        return self.outcome

    def _stuck(self, limit: Any) -> None:
        try:  # from the watchdog thread sqlite may refuse: the stored run then stays 'running'
            self.finish("interrupted")
        except Exception:  # noqa: BLE001 - what the caller writes next is what must not be lost
            pass
        assert self.on_stuck is not None
        self.on_stuck(self.outcome, limit)


def _stored_once(cases: Sequence[Case]) -> None:
    """UsageError when two cases would be the same stored point (name and params): a store keeps a
    point once, so the second would be measured and then lost. Checked before anything is measured."""
    first: dict[tuple[str, str], int] = {}
    for i, case in enumerate(cases):
        key = (case.label, params_key(case.params))
        if key in first:
            raise UsageError(f"cases {first[key] + 1} and {i + 1} are both {point_label(case.label, case.params)!r}: "
                             f"a point is stored once, so --save would keep only one; give each case its own "
                             f"name or params")
        first[key] = i


def _import_torch() -> None:
    """Import torch if it is installed: measuring imports it anyway, and a target's ``import torch``
    (2-6 s on a cold disk) must not use up a ``--timeout 2`` meant for its cases."""
    import importlib.util

    if "torch" not in sys.modules and importlib.util.find_spec("torch") is not None:
        try:
            import torch  # noqa: F401
        except Exception:  # noqa: BLE001 - a broken torch is the target's error to report, if it imports it
            pass


def run_cases(cases: Sequence[Case], options: Options, **runner: Any) -> CasesRun:
    """Measure every case with ``options``: ``CaseRunner(options, **runner).run_all(cases)``."""
    return CaseRunner(options, **runner).run_all(cases)
