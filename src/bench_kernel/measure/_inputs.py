"""Input sets and the L2 cache: rotation sizing, argument calling, the flush buffer.

Cold-cache timing needs each call to find its inputs outside L2. Two tools (DESIGN.md, rule 3):
rotate among K input sets whose total exceeds L2 -- this works inside a CUDA graph too -- and,
for the methods that time single calls, flush L2 outside the timed region.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable, Iterator

__all__ = ["Rotation", "plan_rotation", "iter_tensors", "tensor_bytes", "call_with", "L2Flusher"]

#: Between two uses of one input set, the other sets must total this many times L2: L2 is
#: not a perfect LRU (seen on an H200: a 128 MiB weight reused back to back ran 20% faster
#: than cold, though it is twice the 60 MiB L2).
L2_MULTIPLE = 3.0
#: At most this many input sets, however small each one is.
MAX_SETS = 256


@dataclass(frozen=True)
class Rotation:
    """How many input sets to rotate among, and why."""

    sets: int
    set_bytes: int
    total_bytes: int
    exceeds_l2: bool
    note: str | None = None


def plan_rotation(set_bytes: int, l2_bytes: int | None, *, budget_bytes: int,
                  max_sets: int = MAX_SETS) -> Rotation:
    """Choose K input sets so that (K - 1) * ``set_bytes`` exceeds 3x ``l2_bytes`` (all in bytes).

    Calls cycle through the sets, so K - 1 other sets pass through L2 between two uses of one.

    K is bounded by ``max_sets`` and by ``budget_bytes`` of device memory. When the bound
    stops the rotation short of L2, the returned note says so: such inputs are warm in L2
    whatever the method, and the result must not claim otherwise. When even ``max_sets`` sets fit
    in L2 together, one set is used (they would all stay in L2: the same warm set, K times).
    """
    if set_bytes <= 0 or not l2_bytes:
        return Rotation(1, max(set_bytes, 0), max(set_bytes, 0), exceeds_l2=False,
                        note=None if set_bytes > 0 else "inputs hold no tensors: nothing to rotate")
    want = 1 + math.ceil(L2_MULTIPLE * l2_bytes / set_bytes)
    by_budget = max(1, budget_bytes // set_bytes)
    k = min(want, max_sets, by_budget)
    # "cold" needs the other sets to sweep L2 at least twice between two uses of one set
    exceeds = (k - 1) * set_bytes >= 2 * l2_bytes
    note = None
    if k == max_sets < min(want, by_budget) and k * set_bytes <= l2_bytes:
        # Tiny sets: all of them would stay in L2, so K sets are one warm set built K times (256 for
        # a one-element add, ~10 ms of every sweep point's time).
        note = (f"inputs of {set_bytes} B fit in L2 ({l2_bytes} B) even {k} at a time: one input set, so graph "
                f"and host timings see a warm L2")
        return Rotation(1, set_bytes, set_bytes, False, note)
    total = k * set_bytes
    if k < want:
        limit = "memory budget" if by_budget < min(want, max_sets) else f"{max_sets}-set cap"
        state = "still cold" if exceeds else "so graph and host timings see a warm L2"
        note = (f"input rotation stopped at {k} sets x {set_bytes} B = {total} B by the {limit}"
                f" ({state}; L2 is {l2_bytes} B)")
    return Rotation(k, set_bytes, total, exceeds, note)


def iter_tensors(obj: Any) -> Iterator[Any]:
    """Every tensor reachable in ``obj`` through tuples, lists and dict values, in order."""
    if hasattr(obj, "untyped_storage") and hasattr(obj, "element_size"):
        yield obj
    elif isinstance(obj, (list, tuple)):
        for x in obj:
            yield from iter_tensors(x)
    elif isinstance(obj, dict):
        for x in obj.values():
            yield from iter_tensors(x)


def tensor_bytes(obj: Any) -> int:
    """Bytes of the distinct tensor storages reachable in ``obj`` (tuples, lists, dicts)."""
    storages = {t.untyped_storage().data_ptr(): t.untyped_storage().nbytes() for t in iter_tensors(obj)}
    return sum(storages.values())


def call_with(fn: Callable[..., Any], inputs: Any) -> Any:
    """Call ``fn`` with one input set: a tuple/list spreads as args, a dict as kwargs."""
    if inputs is None:
        return fn()
    if isinstance(inputs, dict):
        return fn(**inputs)
    if isinstance(inputs, (tuple, list)):
        return fn(*inputs)
    return fn(inputs)


class L2Flusher:
    """Evicts L2 by reading a buffer twice its size; allocated once per device and reused.

    Reading, not writing (do_bench writes zeros): a written buffer leaves L2 full of dirty
    lines that the timed kernel then pays to write back. Seen on an H200: a 64 MiB fp32 add
    took 4% longer after a zero_() flush than in a cold graph replay.
    """

    _buffers: dict[int, Any] = {}
    _device_us: dict[int, float] = {}

    def __init__(self, l2_bytes: int | None, device_index: int = 0) -> None:
        import torch

        nbytes = int(max(2 * (l2_bytes or 0), 64 * 2**20))
        buf = self._buffers.get(device_index)
        if buf is None or buf.numel() * 4 < nbytes:
            buf = torch.randint(0, 1 << 20, (nbytes // 4,), dtype=torch.int32, device=f"cuda:{device_index}")
            self._buffers[device_index] = buf
            self._device_us.pop(device_index, None)
        self.buffer = buf
        self.device_index = device_index

    def flush(self) -> None:
        """Enqueue one reduction over the buffer: every L2 line is replaced by a clean one.

        ``max``, whose result keeps the buffer's dtype: a ``sum`` of int32 accumulates in int64, and
        torch first casts the whole buffer to a new int64 tensor (``aten::_to_copy``), so the flush
        wrote twice its reads and left L2 full of the dirty lines this class avoids, at about three
        times a read's cost per flush."""
        self.buffer.max()

    def device_us(self) -> float:
        """One flush's device time (us), the fastest of a few after a first (measured once per buffer).

        Work queued ahead of a timed call hides the host's time to enqueue it, as a backlog does:
        the events method counts the flush towards its backlog."""
        us = self._device_us.get(self.device_index)
        if us is None:
            import torch

            from bench_kernel.gpu import time_each_us

            with torch.cuda.device(self.device_index):
                us = min(time_each_us(self.flush, 4)[1:])
            self._device_us[self.device_index] = us
        return us

