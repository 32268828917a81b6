"""Bytes of Triton kernels while counting: a Triton launch never reaches the dispatcher, so the
counter's dispatch mode does not see it. For the duration of a count, ``JITFunction.run`` (what
``kernel[grid](...)`` and ``@triton.autotune`` call) records each launch's tensor arguments: read
when the kernel's source loads through them, written when it stores through them, read when the
source is not at hand. This is an estimate -- a kernel may touch part of a tensor, or a tensor
several times -- and the counter says so. Nothing is patched unless triton is already imported
(code that launches Triton kernels has imported it by the time it is counted), and the original
``run`` is restored when the count ends.
"""

from __future__ import annotations

import contextlib
import inspect
import sys
from typing import Any, Iterator

from bench_kernel.kernels import pointer_roles

__all__ = ["record_triton_launches"]

ESTIMATE_NOTE = ("bytes estimated from its launch arguments: each tensor read (tl.load) or written "
                 "(tl.store) once, as its source says")


def _roles(jit: Any, cache: dict[int, dict[str, frozenset[str]]]) -> dict[str, frozenset[str]]:
    key = id(jit)
    if key not in cache:
        name = getattr(getattr(jit, "fn", None), "__name__", None)
        source = None
        try:
            module = inspect.getmodule(jit.fn)
            if module is not None:
                source = inspect.getsource(module)  # helpers beside the kernel too
        except (TypeError, OSError, AttributeError):
            pass
        if source is None:
            source = getattr(jit, "src", None)
        cache[key] = pointer_roles(source, name) if isinstance(source, str) else {}
    return cache[key]


@contextlib.contextmanager
def record_triton_launches(reads: Any, writes: Any, tally: Any) -> Iterator[None]:
    """While active, record every Triton launch's tensors into the ``reads``/``writes`` ledgers."""
    triton = sys.modules.get("triton")
    jit_mod = sys.modules.get("triton.runtime.jit")
    if triton is None or jit_mod is None or not hasattr(jit_mod, "JITFunction"):
        yield
        return
    import torch

    cls = jit_mod.JITFunction
    original = cls.run
    cache: dict[int, dict[str, frozenset[str]]] = {}

    def run(self: Any, *args: Any, **kwargs: Any) -> Any:
        if not kwargs.get("warmup", False):
            roles = _roles(self, cache)
            names = list(getattr(self, "arg_names", []))
            named = list(zip(names, args)) + [(k, v) for k, v in kwargs.items() if k in names]
            for name, value in named:
                if not isinstance(value, torch.Tensor):
                    continue
                role = roles.get(name)
                if role is None or "load" in role:
                    reads.record(value)
                if role is not None and "store" in role:
                    writes.record(value)
            kernel = getattr(getattr(self, "fn", None), "__name__", "triton kernel")
            tally.add(kernel, 0, "triton launch", "triton", None)
            tally.note(f"{kernel}: {ESTIMATE_NOTE}" if roles else
                       f"{kernel}: bytes estimated from its launch arguments, each tensor read once (no source)")
            tally.estimated = True
        return original(self, *args, **kwargs)

    cls.run = run
    try:
        yield
    finally:
        cls.run = original
