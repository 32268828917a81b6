"""The one rule for picking kernels by a user's regex: it matches a kernel when it is found in the
kernel's raw name OR in its short name (``bench_kernel.kernels.decode(name).short``).

Raw names carry template arguments and signatures (``void at::native::vectorized_elementwise_kernel<4,
...>``); short names are what every table shows (``vectorized_elementwise_kernel<mul, bf16>``). A user
copies a pattern from either, so both must work -- the same way in ``layers --anchor``,
``source-trace --kernel`` and ``Trace.find_kernels``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from bench_kernel.userregex import UserRegex, user_regex

__all__ = ["kernel_regex", "matching_kernel_names"]


def kernel_regex(pattern: str, option: str) -> UserRegex:
    """Compile a user's ``pattern`` (time-bounded, ``bench_kernel.userregex``); an invalid regex, or one
    that runs past its time bound, is a :class:`~bench_kernel.errors.UsageError` naming ``option``."""
    return user_regex(pattern, option)


def matching_kernel_names(trace: Any, rx: Any) -> np.ndarray:
    """Name ids (into ``trace.names``) of the trace's kernels whose raw or short name matches ``rx`` (a
    :class:`~bench_kernel.userregex.UserRegex` or a compiled ``re`` pattern)."""
    present = np.unique(trace.kernels.name)
    hit = [int(u) for u in present.tolist()
           if rx.search(trace.names[u]) or rx.search(trace.decoded(int(u)).short)]
    return np.array(hit, dtype=present.dtype)
