"""The library's background threads leave Ctrl-C and SIGTERM to the main thread."""

from __future__ import annotations

import signal
import threading
from pathlib import Path

import pytest

from bench_kernel.measure import TimeLimit
from bench_kernel.threads import MAIN_THREAD_SIGNALS, start_background

pytestmark = pytest.mark.skipif(not hasattr(signal, "pthread_sigmask"), reason="no pthread_sigmask here")


def _mask_of_a_thread(start) -> set[int]:
    seen: dict[str, set[int]] = {}

    def body() -> None:
        seen["mask"] = {int(s) for s in signal.pthread_sigmask(signal.SIG_BLOCK, [])}

    t = threading.Thread(target=body, daemon=True)
    start(t)
    t.join(10)
    return seen["mask"]


def test_a_background_thread_blocks_the_signals_and_the_caller_keeps_its_mask():
    before = signal.pthread_sigmask(signal.SIG_BLOCK, [])
    mask = _mask_of_a_thread(start_background)
    assert {int(s) for s in MAIN_THREAD_SIGNALS} <= mask
    assert signal.pthread_sigmask(signal.SIG_BLOCK, []) == before
    # the control: a thread started plainly takes the caller's mask, which does not block them
    assert not {int(s) for s in MAIN_THREAD_SIGNALS} & _mask_of_a_thread(lambda t: t.start())


def test_the_time_limit_watchdog_cannot_take_a_ctrl_c():
    with TimeLimit(60, "a case"):
        watchdogs = [t for t in threading.enumerate() if t.name == "bench-kernel time limits"]
        assert watchdogs
    # the watchdog's own mask, read where Linux lists a thread's blocked signals
    proc = Path(f"/proc/self/task/{watchdogs[0].native_id}/status")
    if not proc.exists():
        pytest.skip("no /proc task status here")
    status = proc.read_text()
    blocked = int(next(line.split()[1] for line in status.splitlines() if line.startswith("SigBlk:")), 16)
    for s in MAIN_THREAD_SIGNALS:
        assert blocked >> (int(s) - 1) & 1, s
