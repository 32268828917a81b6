"""Packages that share their name with their main function (``roofline``, ``source_trace``).

DESIGN.md re-exports ``bench_kernel.roofline(...)`` and ``bench_kernel.source_trace(...)``, but
importing the package of the same name binds the *module* to that attribute of ``bench_kernel``.
Making the module callable keeps ``bench_kernel.<name>(...)`` working whichever came first.
"""

from __future__ import annotations

import sys
import types
from typing import Any, Callable

__all__ = ["make_callable"]


def make_callable(module_name: str, func: Callable[..., Any]) -> None:
    """Let ``sys.modules[module_name](...)`` call ``func``."""

    class _CallableModule(types.ModuleType):
        def __call__(self, *args: Any, **kwargs: Any) -> Any:
            return func(*args, **kwargs)

    _CallableModule.__name__ = f"CallableModule[{func.__name__}]"
    sys.modules[module_name].__class__ = _CallableModule
