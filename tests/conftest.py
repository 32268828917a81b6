"""Shared fixtures: the real-data folder, the GPU marker, and a CLI runner; and the guards of
tests/_guards.py (an unmarked test that starts a process, or runs past its time bound, fails)."""

from __future__ import annotations

import os

# Tests check what bench-kernel computes, never how fast a machine is, and they run beside each
# other (-n 2 on 2 cores) and beside other jobs. With torch's default of one intra-op thread per
# core, every parallel call on a busy machine waits for a second CPU (a 64x64 matmul read 8.8 ms
# against 4.6 us), and the host method rightly refuses samples that waited (measure/_cpuwait.py).
# One thread per test process, set before torch is imported; tests about threads set their own.
os.environ.setdefault("OMP_NUM_THREADS", "1")
# Tests compare stderr exactly; on a slow machine a long command's progress line (after 10 s off a
# terminal) would land in it. Its timing is tested with a fake clock (test_hostile_lost_or_silent).
os.environ["BENCH_KERNEL_PROGRESS"] = "0"

from dataclasses import dataclass  # noqa: E402
from pathlib import Path  # noqa: E402

import pytest  # noqa: E402

# the guards' hooks, found by pytest in this module's names
from _guards import pytest_configure, pytest_runtest_call, pytest_runtest_setup, pytest_runtest_teardown  # noqa: E402,F401
from bench_kernel.gpu import has_gpu  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
#: Real traces and kernel names live beside the project, never inside it (see DESIGN.md).
SHARED_DATA = ROOT.parent / "shared" / "data"


@pytest.hookimpl(tryfirst=True)
def pytest_cmdline_main(config: pytest.Config) -> None:
    """xdist's workers take from each other's queues (``--dist worksteal``) unless the command names
    another mode. Set here rather than in addopts, where it made ``-p no:xdist`` (a common way to debug
    one test) fail with "unrecognized arguments: --dist"; before xdist's own hook picks ``load``."""
    if getattr(config.option, "numprocesses", None) and getattr(config.option, "dist", None) == "no":
        config.option.dist = "worksteal"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    # Slow and multiprocess tests first: under pytest-xdist (CI's -n 2) a long test that starts last
    # keeps one core busy alone at the end; started first, the short ones fill in around it. With
    # --dist worksteal (pytest_cmdline_main above) the worker whose half of the queue starts with them keeps
    # them, and the other takes over the rest of its queue once its own half is done.
    items.sort(key=lambda item: not ("slow" in item.keywords or "multiprocess" in item.keywords))
    if has_gpu():
        return
    skip = pytest.mark.skip(reason="needs a CUDA/HIP GPU")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)


@pytest.fixture(autouse=True)
def _private_results_db(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test gets its own results database: no test may write to the user's data dir."""
    monkeypatch.setenv("BENCH_KERNEL_DB", str(tmp_path_factory.mktemp("db") / "results.db"))


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """``../shared/data`` from the project root; tests that need it skip when it is absent."""
    if not SHARED_DATA.is_dir():
        pytest.skip(f"real data folder {SHARED_DATA} is absent")
    return SHARED_DATA


@pytest.fixture(scope="session")
def traces_dir(shared_data: Path) -> Path:
    return shared_data / "traces"


@dataclass
class CliResult:
    exit_code: int
    stdout: str
    stderr: str


@pytest.fixture
def run_cli(capsys: pytest.CaptureFixture[str]):
    """Call ``bench_kernel.cli.main(argv)`` in-process and return exit code, stdout, stderr."""
    from bench_kernel.cli import main

    def _run(*argv: str) -> CliResult:
        capsys.readouterr()
        code = main(list(argv))
        out, err = capsys.readouterr()
        return CliResult(code, out, err)

    return _run
