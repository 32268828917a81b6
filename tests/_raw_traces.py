"""A real trace's JSON as the file holds it, parsed by the standard library once per test process.

The trace tests compute their truths from the raw events (``json``, none of bench-kernel's code).
The large real traces take 0.2-1.1 s each to parse, and test after test parsed the same ones again.
The few read last stay parsed (100-250 MB of objects each, so not all of them): callers only read
them; a test that edits a trace to write a new one parses its own copy.

Python's cyclic garbage collector is what made the parse slow and the parsed trees a cost to every
later test of the worker: a 20 MB trace is ~1 million dicts and lists, and each full collection
during the parse walked all of them again (1.8 s to parse with the collector on, 0.5 s with it
off), and after it every full collection walked the cached trees (0.9 s each). A JSON tree holds no
cycles, so the collector has nothing to find in it: the parse runs with it paused, and the tree is
frozen out of its reach (``gc.freeze``); reference counting still frees a tree the cache lets go.
"""

from __future__ import annotations

import collections
import gc
import gzip
import json
from decimal import Decimal
from pathlib import Path
from typing import Any

__all__ = ["raw_trace", "raw_events"]


#: Parsed traces kept, by the size of their JSON text: ~96 MB holds the five large ones that the
#: trace tests of one worker come back to (14-34 MB each) and every small one. A count of entries
#: (three, before) let each small trace push a large one out, and the worker parsed the large ones
#: again: 9 of one worker's 18 parses in a quick pass. The trees take roughly ten times their text.
CACHE_TEXT_BYTES = 96 * 10**6
_cache: collections.OrderedDict[tuple[Path, bool], tuple[int, dict[str, Any]]] = collections.OrderedDict()


def raw_trace(path: Path, exact: bool = False) -> dict[str, Any]:
    """The trace's JSON; ``exact`` parses its numbers with a fraction as ``Decimal`` (sums of
    microsecond timestamps with no float rounding), else as ``float``."""
    key = (path, exact)
    if key in _cache:
        _cache.move_to_end(key)
        return _cache[key][1]
    with (gzip.open(path) if path.suffix == ".gz" else open(path, "rb")) as f:
        data = f.read()
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        tree = json.loads(data, parse_float=Decimal if exact else float)
    finally:
        if was_enabled:
            gc.enable()
    gc.freeze()
    _cache[key] = (len(data), tree)
    while len(_cache) > 1 and sum(n for n, _ in _cache.values()) > CACHE_TEXT_BYTES:
        _cache.popitem(last=False)  # the least recently read; reference counting frees its tree
    return tree


def raw_events(path: Path, exact: bool = False) -> list[dict[str, Any]]:
    return raw_trace(path, exact)["traceEvents"]
