"""What to benchmark: the ``Case`` record and loading TARGET strings (``file.py:func``, ``pkg.mod:func``).

``func()`` returns a zero-argument callable, a case (a ``Case``, a dict or any object with an
``fn`` attribute), or a list of them. Every way this can go wrong is a ``TargetError`` whose
message names the target and the fix.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, Callable

from bench_kernel.errors import InputError, TargetError, UsageError

__all__ = ["Case", "load_target", "load_object", "as_cases"]


@dataclass(frozen=True)
class Case:
    """One callable to benchmark and what is known about it.

    fn: ``fn()`` if ``make_inputs`` is None, else ``fn(*make_inputs())``.
    make_inputs: builds one fresh input set (tuple -> args, dict -> kwargs); enables rotation.
    reference: same signature as ``fn``; its output is what ``fn`` must produce.
    flops / bytes: work of one call (FLOP, bytes moved), for TFLOP/s and TB/s.
    params: shape axes and other labels shown with the result.
    """

    fn: Callable[..., Any]
    make_inputs: Callable[[], Any] | None = None
    reference: Callable[..., Any] | None = None
    flops: float | None = None
    bytes: float | None = None
    name: str | None = None
    params: dict[str, Any] = field(default_factory=dict)

    @property
    def label(self) -> str:
        return self.name or getattr(self.fn, "__name__", None) or type(self.fn).__name__


_KEYS = tuple(f.name for f in fields(Case))


def _case_from(obj: Any, where: str, default_name: str) -> Case:
    if isinstance(obj, Case):
        return obj
    if isinstance(obj, dict):
        unknown = sorted(set(obj) - set(_KEYS))
        if unknown:
            raise TargetError(f"{where}: unknown case key(s) {', '.join(unknown)}; allowed: {', '.join(_KEYS)}")
        data = dict(obj)
    elif hasattr(obj, "fn") and not callable(obj):
        data = {k: getattr(obj, k) for k in _KEYS if hasattr(obj, k)}
    elif callable(obj):
        data = {"fn": obj}
    else:
        raise TargetError(f"{where}: got {type(obj).__name__}; expected a callable, a case "
                          f"(dict or object with 'fn') or a list of them")
    fn = data.get("fn")
    if not callable(fn):
        raise TargetError(f"{where}: the case has no callable 'fn' (got {type(fn).__name__})")
    for key in ("make_inputs", "reference"):
        if data.get(key) is not None and not callable(data[key]):
            raise TargetError(f"{where}: '{key}' must be callable, got {type(data[key]).__name__}")
    for key in ("flops", "bytes"):
        v = data.get(key)
        if v is not None and (not isinstance(v, (int, float)) or v < 0):
            raise TargetError(f"{where}: '{key}' must be a non-negative number, got {v!r}")
    data.setdefault("name", None)
    if data["name"] is None and getattr(fn, "__name__", "<lambda>") == "<lambda>":
        data["name"] = default_name
    data["params"] = dict(data.get("params") or {})
    return Case(**data)


def as_cases(value: Any, where: str = "target", default_name: str = "case") -> list[Case]:
    """Normalise what a target returned into a list of cases."""
    if isinstance(value, (list, tuple)):
        if not value:
            raise TargetError(f"{where} returned an empty list: nothing to benchmark")
        return [_case_from(v, f"{where}[{i}]", f"{default_name}[{i}]") for i, v in enumerate(value)]
    return [_case_from(value, where, default_name)]


def _import_file(path: Path) -> Any:
    if not path.is_file():
        raise InputError(f"target file {str(path)!r} does not exist")
    mod_name = f"_bench_kernel_target_{abs(hash(path.resolve()))}"
    spec = importlib.util.spec_from_file_location(mod_name, path)
    if spec is None or spec.loader is None:
        raise TargetError(f"cannot import {str(path)!r}: not a Python file")
    module = importlib.util.module_from_spec(spec)
    # The target's own folder is importable, as when running `python file.py`.
    sys.path.insert(0, str(path.resolve().parent))
    sys.modules[mod_name] = module
    try:
        spec.loader.exec_module(module)
    except Exception as e:  # noqa: BLE001 - the user's module may raise anything on import
        sys.modules.pop(mod_name, None)
        raise TargetError(f"importing {str(path)!r} raised {type(e).__name__}: {e}") from e
    finally:
        sys.path.remove(str(path.resolve().parent))
    return module


def _import_module(name: str) -> Any:
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as e:
        raise TargetError(f"cannot import module {name!r}: {e}") from e
    except Exception as e:  # noqa: BLE001
        raise TargetError(f"importing module {name!r} raised {type(e).__name__}: {e}") from e


def load_object(target: str, what: str = "TARGET", attr: str = "func") -> Any:
    """The attribute named by ``path/to/file.py:name`` or ``package.module:name`` (imported);
    ``what`` and ``attr`` name the argument and its attribute in the usage error."""
    where, sep, func_name = target.rpartition(":")
    if not sep or not where or not func_name:
        raise UsageError(f"{what} {target!r} must be 'path/to/file.py:{attr}' or 'package.module:{attr}'")
    if where.endswith(".py") or "/" in where or "\\" in where:
        module = _import_file(Path(where))
    else:
        module = _import_module(where)
    obj = getattr(module, func_name, None)
    if obj is None:
        found = sorted(n for n, v in vars(module).items() if callable(v) and not n.startswith("_")
                       and getattr(v, "__module__", None) == module.__name__)
        hint = f"; callables there: {', '.join(found[:12])}" if found else ""
        raise TargetError(f"{where} has no attribute {func_name!r}{hint}")
    return obj


def load_target(target: str) -> list[Case]:
    """Import ``path/to/file.py:func`` or ``package.module:func``, call ``func()``, return cases."""
    func_name = target.rpartition(":")[2]
    func = load_object(target)
    if not callable(func):
        raise TargetError(f"{target} is a {type(func).__name__}, not a function")
    try:
        value = func()
    except Exception as e:  # noqa: BLE001
        raise TargetError(f"{target}() raised {type(e).__name__}: {e}") from e
    return as_cases(value, where=f"{target}()", default_name=func_name)
