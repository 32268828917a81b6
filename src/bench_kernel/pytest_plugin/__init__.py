"""bench-kernel's pytest plugin (entry point ``pytest11``): the ``kernel_bench`` fixture.

    def test_gemm(kernel_bench):
        r = kernel_bench(torch.matmul, make_inputs=lambda: (a, b), flops=2 * m * n * k)
        assert r.median_us < 50          # the primary method's median, microseconds

Options: ``--kernel-bench-baseline RUN|FILE`` compares every measurement with the same point of
a stored run (an id, ``latest``) or a ``--json`` results file, with ``compare``'s statistics and
verdict rule; a regression (``slower``) fails the test with both times, the ratio, its CI and
what changed; one that this run's lower SM clock can explain (``compare``'s ``slower (clock)``)
passes unless ``--kernel-bench-strict-clocks``; ``--kernel-bench-fail-on inconclusive`` fails a
point whose data cannot tell too.
``--kernel-bench-save`` stores the session's measurements as a new run (``--kernel-bench-db``
picks the database). A table of every measurement ends the session. How every call measures
(``--kernel-bench-method``, ``-cache``, ``-precision``, ``-max-time``, ``-timeout``, ``-steady``, ...)
comes from the same table as ``bench-kernel run``'s options (``bench_kernel.options.OPTION_FIELDS``);
a call's own keywords override them.

Installed with bench-kernel, so it loads in every pytest session: this module imports only
pytest and the standard library; the measuring code loads on the fixture's first call.
"""

from __future__ import annotations

from typing import Any

import pytest

from bench_kernel.errors import UsageError
from bench_kernel.options import OPTION_FIELDS, OptionField, Options
from bench_kernel.pytest_plugin._fixture import KernelBench, KernelBenchResult, SessionState

__all__ = ["KernelBench", "KernelBenchResult", "kernel_bench"]

_STATE = pytest.StashKey[SessionState]()
#: bench_kernel.results.DEFAULT_THRESHOLD, written out: importing results here would load numpy into
#: every test session that has bench-kernel installed (a test checks the two agree).
_DEFAULT_THRESHOLD = 0.04


def _flag(f: OptionField) -> str:
    return "--kernel-bench-" + f.flag.removeprefix("--")


def _dest(f: OptionField) -> str:
    return "kernel_bench_opt_" + f.name


def _add_measure_options(group: Any) -> None:
    """The measuring options of ``bench-kernel run``, as ``--kernel-bench-*`` (defaults: not given)."""
    kinds: dict[str, dict[str, Any]] = {
        "methods": {"action": "append", "choices": None},
        "choice": {"choices": None},
        "number": {"type": float},
        "limit": {"type": float},
        "index": {"type": int},
        "count": {"type": int},
        "flag": {"action": "store_true", "default": None},
        "text": {},
    }
    for f in OPTION_FIELDS:
        kw = dict(kinds[f.kind])
        if "choices" in kw:
            kw["choices"] = list(f.choices)
        default = f.default
        shown = f" Default: {f.default_text}." if f.default_text else "" if f.kind == "flag" or default is None else (
            f" Default: {', '.join(default) if isinstance(default, tuple) else default}.")
        group.addoption(_flag(f), dest=_dest(f), help=f.help.replace("%", "%%") + shown, **kw)


def _session_options(config: pytest.Config) -> Options:
    given: dict[str, Any] = {}  # each option's own type, as pytest parsed it (getoption is Any)
    for f in OPTION_FIELDS:
        value = config.getoption(_dest(f))
        if value is not None:
            given[f.name] = tuple(value) if f.kind == "methods" else value
    try:
        return Options.build(**given)
    except UsageError as e:
        raise pytest.UsageError(f"kernel_bench: {e}") from None


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("kernel-bench", "kernel performance tests (bench-kernel's kernel_bench fixture)")
    _add_measure_options(group)
    group.addoption("--kernel-bench-baseline", metavar="RUN|FILE", default=None,
                    help="Compare every kernel_bench measurement with this stored run (id, 'latest') or --json "
                         "results file; a significant regression fails the test.")
    group.addoption("--kernel-bench-save", action="store_true", default=False,
                    help="Store this session's kernel_bench measurements as a new run.")
    group.addoption("--kernel-bench-db", metavar="PATH", default=None,
                    help="Results database for --kernel-bench-save and a stored baseline (default: "
                         "$BENCH_KERNEL_DB or the user data dir).")
    group.addoption("--kernel-bench-threshold", type=float, default=_DEFAULT_THRESHOLD, metavar="FRACTION",
                    help="A slowdown within this fraction is never a regression (default 0.04 = 4%%, "
                         "bench-kernel compare's).")
    group.addoption("--kernel-bench-fail-on", choices=("slower", "inconclusive"), default="slower",
                    help="What fails a test against the baseline: 'slower' (the default: a regression shown "
                         "beyond the threshold), or 'inconclusive' (also a point whose data cannot tell).")
    group.addoption("--kernel-bench-strict-clocks", action="store_true", default=False,
                    help="Fail a slowdown that this run's lower SM clock can explain too (by default it passes, "
                         "marked 'slower (clock)').")


def pytest_configure(config: pytest.Config) -> None:
    threshold = config.getoption("kernel_bench_threshold")
    if threshold != _DEFAULT_THRESHOLD:  # only a given one needs results' check (and its numpy)
        from bench_kernel.errors import UsageError
        from bench_kernel.results import check_threshold

        try:
            check_threshold(threshold, "--kernel-bench-threshold")
        except UsageError as e:
            raise pytest.UsageError(str(e)) from None
    config.stash[_STATE] = SessionState(baseline_ref=config.getoption("kernel_bench_baseline"),
                                        save=config.getoption("kernel_bench_save"),
                                        db_path=config.getoption("kernel_bench_db"), threshold=threshold,
                                        strict_clocks=config.getoption("kernel_bench_strict_clocks"),
                                        fail_on=config.getoption("kernel_bench_fail_on"),
                                        run_name=f"pytest {config.rootpath.name}",
                                        command=("pytest", *config.invocation_params.args),
                                        options=_session_options(config))


def pytest_sessionstart(session: pytest.Session) -> None:
    state = session.config.stash.get(_STATE, None)
    if state is None or not (state.save or state.baseline_ref):
        return  # nothing to open: the measuring code stays unloaded
    from bench_kernel.errors import BenchKernelError

    try:
        state.open()
    except BenchKernelError as e:  # a baseline that is not there, a database that is not one
        raise pytest.UsageError(f"kernel_bench: {e}") from None


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    state = session.config.stash.get(_STATE, None)
    if state is not None:
        state.saved_run = state.close(interrupted=exitstatus == pytest.ExitCode.INTERRUPTED)


@pytest.fixture
def kernel_bench(request: pytest.FixtureRequest) -> KernelBench:
    """Time a callable as ``bench_kernel.bench`` does: ``kernel_bench(fn, make_inputs=..., flops=...)``
    returns a :class:`KernelBenchResult` (``.median_us``: the primary method's median)."""
    return KernelBench(request.config.stash[_STATE], request.node.nodeid)


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter, exitstatus: int,
                            config: pytest.Config) -> None:
    state = config.stash.get(_STATE, None)
    if state is None or not state.records:
        return
    from bench_kernel.pytest_plugin._summary import render_summary, summary_table

    terminalreporter.write_sep("=", "kernel_bench summary")
    label = state.baseline.label if state.baseline is not None else None
    table = summary_table(state.records, label)
    terminalreporter.write(render_summary(table, config.get_terminal_writer().fullwidth))
    run = state.saved_run
    if run is not None:
        terminalreporter.write_line(f"kernel_bench: stored {run.n_points} measurement(s) as run {run.id} in "
                                    f"{state.store.path}")
