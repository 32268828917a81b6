"""Processes that keep a core busy, for the tests that read CPU waits.

Kept apart from the test modules so that a ``spawn`` child imports only this (the standard library):
a child that unpickled a function from a test module imported that module, torch and bench-kernel
with it, 2-3 s of CPU before it began to spin.
"""

from __future__ import annotations

import os
import time
from typing import Any

__all__ = ["spin", "pinned_spin"]


def spin(seconds: float) -> None:
    """Busy-wait for ``seconds`` of wall time."""
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        pass


def pinned_spin(core: int, ready: Any, stop: Any) -> None:
    """Spin on ``core`` until the event ``stop`` is set; set the event ``ready`` once pinned."""
    os.sched_setaffinity(0, {core})
    ready.set()
    while not stop.is_set():
        spin(0.01)
