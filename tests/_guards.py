"""Two guards that keep the suite a loop of minutes, wired into pytest by tests/conftest.py.

- A test that starts a process (a CLI subprocess, sweep workers, Ray, a server) is marked
  ``multiprocess``: conftest schedules those first, and a reader knows what a test costs. Every
  ``subprocess.Popen`` (``subprocess.run``, asyncio's subprocesses) and every ``multiprocessing``
  start (``Process``, ``Pool``, ``ProcessPoolExecutor``) is seen here, but for the quick tools of
  ``QUICK_TOOLS``; an unmarked test that starts one fails after its phase, naming what it started.
  The check does not raise inside the start itself: the code under test might catch it and go on.
  A process that a module- or session-scoped fixture starts is seen in the setup of whichever of
  its tests runs first: mark every test that uses such a fixture (``pytestmark`` of the module).
- A test not marked ``slow`` fails when its call phase runs past a bound: 5 s of its own time, times
  the machine's load per core when that is above 1 (the one-minute load average at the end of the
  test), so that a busy machine slows the suite without failing it. Its own time is the wall time
  less the longest time one of its threads waited for a CPU that other work held (the kernel's
  run-queue wait, ``/proc/<pid>/task/*/schedstat``): the load average trails a burst by a minute, and CI once failed
  a 2.8 s test that took 5.1 s beside the other worker at a load average of 1.9 on 2 cores.
  ``BENCH_KERNEL_TEST_BOUND_S`` sets the base bound (seconds; ``0`` turns the guard off), for a
  machine busier than that allows.
  Tests marked ``gpu`` have no bound: CI never runs them, and the device run has a deadline of its own.
"""

from __future__ import annotations

import gc
import multiprocessing.process
import os
import subprocess
import threading
import time
from typing import Any

import pytest

#: The base bound of an unmarked test's call phase, seconds (docs/testing.md).
DEFAULT_BOUND_S = 5.0
BOUND_ENV = "BENCH_KERNEL_TEST_BOUND_S"

#: Programs the library runs for milliseconds inside any command: git and uname describe the machine
#: (every run records them), c++filt demangles a long kernel name, and ldconfig is how ctypes finds a
#: library. A test that starts only these is not what the marker is for.
QUICK_TOOLS = frozenset({"git", "uname", "c++filt", "ldconfig"})

_lock = threading.Lock()
#: the test whose phase runs now (one per process: xdist runs one test at a time in each worker)
_current: pytest.Item | None = None
_started: list[str] = []


def _note_start(what: str) -> None:
    with _lock:
        if _current is not None and _current.get_closest_marker("multiprocess") is None:
            _started.append(what)


def install() -> None:
    """Wrap the two ways a test starts a process, once per pytest process."""
    popen_init = subprocess.Popen.__init__
    if getattr(popen_init, "_bench_kernel_guard", False):
        return

    def init(self: subprocess.Popen, args: Any, *a: Any, **kw: Any) -> None:
        argv = [args] if isinstance(args, (str, bytes, os.PathLike)) else list(args)
        program = os.fsdecode(argv[0]) if argv else "?"
        if os.path.basename(program) not in QUICK_TOOLS:
            _note_start(f"subprocess {program}")
        popen_init(self, args, *a, **kw)

    init._bench_kernel_guard = True  # type: ignore[attr-defined]
    subprocess.Popen.__init__ = init  # type: ignore[method-assign]
    mp_start = multiprocessing.process.BaseProcess.start

    def start(self: multiprocessing.process.BaseProcess) -> None:
        _note_start(f"multiprocessing {type(self).__name__}")
        mp_start(self)

    multiprocessing.process.BaseProcess.start = start  # type: ignore[method-assign]


def bound_s() -> float:
    """This moment's bound on an unmarked test's call phase (seconds; 0: none)."""
    raw = os.environ.get(BOUND_ENV, "")
    try:
        base = float(raw) if raw else DEFAULT_BOUND_S
    except ValueError:
        raise pytest.UsageError(f"{BOUND_ENV}={raw!r}: give seconds, or 0 for no bound") from None
    if base <= 0:
        return 0.0
    return base * max(1.0, os.getloadavg()[0] / (os.cpu_count() or 1))


def enter(item: pytest.Item) -> None:
    global _current
    with _lock:
        _current = item
        _started.clear()


def leave(item: pytest.Item, phase: str) -> str | None:
    """End of a phase: what is wrong when an unmarked test started a process in it."""
    global _current
    with _lock:
        _current = None
        started = sorted(set(_started))
        _started.clear()
    if not started:
        return None
    return (f"{item.nodeid} starts a process in its {phase} ({', '.join(started)}) but is not marked "
            f"multiprocess: add @pytest.mark.multiprocess (tests/_guards.py)")


def too_long(item: pytest.Item, seconds: float) -> str | None:
    """End of the call phase: what is wrong when an unmarked test ran past the bound (its own seconds)."""
    # A GPU test never runs in CI (no GPU there), and its first CUDA call, compile or profiler
    # session costs seconds that are the device's, not the loop's: the device run has its own deadline.
    if item.get_closest_marker("slow") is not None or item.get_closest_marker("gpu") is not None:
        return None
    bound = bound_s()
    if not bound or seconds <= bound:
        return None
    return (f"{item.nodeid} took {seconds:.1f} s of its own, over the {bound:.1f} s bound of a test not marked slow "
            f"(load {os.getloadavg()[0]:.1f}): make it faster or mark it slow ({BOUND_ENV}, tests/_guards.py)")


def clock() -> float:
    return time.perf_counter()


def runqueue_waits_ns() -> dict[str, int]:
    """Each live thread of this process: nanoseconds it has waited on a run queue, read by the
    project's own schedstat reader (``measure/_cpuwait.py``, which frames each host sample).

    Empty where the kernel does not keep them: the guard then measures wall time alone.
    """
    from bench_kernel.measure._cpuwait import CpuClock

    with CpuClock() as clock:
        reading = clock.read()
    return reading.waits_ns if reading is not None else {}


def waited_s(before: dict[str, int]) -> float:
    """Seconds the longest-waiting thread of this process waited for a CPU since ``before``
    (``runqueue_waits_ns``).

    The longest, not the sum: threads wait side by side, and a sum over several could exceed the wall
    time and hide a slow test; one thread's wait never does. A thread that ended meanwhile counts
    nothing (the guard then errs toward failing a slow test), and one that started meanwhile counts
    all of its wait.
    """
    after = runqueue_waits_ns()
    return max((ns - before.get(tid, 0) for tid, ns in after.items()), default=0) / 1e9


# -- the hooks (tests/conftest.py imports them) --------------------------------------------------------

def pytest_configure(config: pytest.Config) -> None:
    install()
    bound_s()  # a bad BENCH_KERNEL_TEST_BOUND_S stops the session before any test
    # Where tests run: each xdist worker, or the one process without xdist (not xdist's controller).
    if hasattr(config, "workerinput") or not getattr(config.option, "numprocesses", None):
        _preload()


def _preload() -> None:
    """Import what most tests need, once per test process and outside every test's phases.

    - matplotlib's font cache: on a fresh machine (CI's clean clone), or after fonts were installed
      (Chromium brings some), the first ``import matplotlib`` lists the fonts with ``fc-list`` and
      scans them: ~20 s on 2 busy cores, charged to whichever plotting test came first, which then
      failed both guards.
    - torch: 3 s to import on a quiet 2-core machine and 10-15 s at load 6, charged to the first test
      of each worker that touched it, which then ran past the time bound while its own work took 1 s.
    - torch's symbolic shapes, which FLOP and byte counting loads on its first count: 0.7 s with
      compiled modules, and on a clean clone (installed without byte-compiling) 5.1 s of compiling
      charged to the first counting test, past the bound.
    """
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.font_manager  # noqa: F401  (builds and saves the cache once)
    except ImportError:
        pass
    try:
        import torch  # noqa: F401
        import torch.fx.experimental.symbolic_shapes  # noqa: F401
    except ImportError:
        pass
    # What is loaded now lives as long as the process: out of the cyclic collector's reach, each of
    # its full collections during the tests walks ~235,000 fewer objects (0.2 s each).
    gc.freeze()


def _guarded(item: pytest.Item, phase: str):
    """A phase of a test, under the guards; a test's own failure comes first and alone."""
    enter(item)
    waits = runqueue_waits_ns()
    t0 = clock()
    try:
        result = yield
    except BaseException:
        leave(item, phase)
        raise
    problem = leave(item, phase)
    if not problem and phase == "call":
        problem = too_long(item, clock() - t0 - max(waited_s(waits), 0.0))
    if problem:
        pytest.fail(problem, pytrace=False)
    return result


@pytest.hookimpl(wrapper=True)
def pytest_runtest_setup(item: pytest.Item):
    return (yield from _guarded(item, "setup"))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item):
    return (yield from _guarded(item, "call"))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None):
    return (yield from _guarded(item, "teardown"))
