"""A real trace's JSON as the file holds it, parsed by the standard library once per test process.

The trace tests compute their truths from the raw events (``json``, none of bench-kernel's code).
The large real traces take 0.2-1.1 s each to parse, and test after test parsed the same ones again.
The few read last stay parsed (100-250 MB of objects each, so not all of them): callers only read
them; a test that edits a trace to write a new one parses its own copy.
"""

from __future__ import annotations

import functools
import gzip
import json
from pathlib import Path
from typing import Any

__all__ = ["raw_trace", "raw_events"]


@functools.lru_cache(maxsize=3)
def raw_trace(path: Path) -> dict[str, Any]:
    with (gzip.open(path) if path.suffix == ".gz" else open(path, "rb")) as f:
        return json.load(f)


def raw_events(path: Path) -> list[dict[str, Any]]:
    return raw_trace(path)["traceEvents"]
