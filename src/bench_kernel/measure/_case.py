"""What to benchmark: the ``Case`` record and loading TARGET strings (``file.py:func``, ``pkg.mod:func``).

``func()`` returns a zero-argument callable, a case (a ``Case``, a dict or any object with an
``fn`` attribute), or a list of them. Every way this can go wrong is a ``TargetError`` whose
message names the target and the fix.
"""

from __future__ import annotations

import importlib
import importlib.util
import math
import numbers
import sys
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any, Callable, SupportsFloat

from bench_kernel.errors import InputError, TargetError, UsageError
from bench_kernel.measure._check import check_tolerances
from bench_kernel.measure._exits import ProcessExit, exit_call, exits_raise
from bench_kernel.measure._limit import Expired

__all__ = ["Case", "CaseOrigin", "load_target", "load_object", "as_cases", "target_case", "function_case",
           "target_file", "user_failure"]


@dataclass(frozen=True)
class CaseOrigin:
    """How another process builds the same case again: ``loader(**kwargs)`` returns it.

    ``loader`` is an importable ``module:function`` (``bench_kernel.measure:target_case``); ``kwargs``
    is plain JSON. Counting a case's bytes and FLOPs runs it again in a child process under the
    counter tool (``bench_kernel.measure.collect_counters``), and a lambda does not travel there.
    """

    loader: str
    kwargs: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"loader": self.loader, "kwargs": dict(self.kwargs)}


@dataclass(frozen=True)
class Case:
    """One callable to benchmark and what is known about it.

    fn: ``fn()`` if ``make_inputs`` is None, else ``fn(*make_inputs())``.
    make_inputs: builds one fresh input set (tuple -> args, dict -> kwargs); enables rotation.
    reference: same signature as ``fn``; its output is what ``fn`` must produce.
    flops / bytes: work of one call (FLOP, bytes moved), for TFLOP/s and TB/s.
    params: shape axes and other labels shown with the result.
    rtol / atol: the correctness check's tolerances (``bench_kernel.measure._check``: relative RMS
        error, and an RMS allowance in the output's units); None: by the output's dtype, and 0.
    """

    fn: Callable[..., Any]
    make_inputs: Callable[[], Any] | None = None
    reference: Callable[..., Any] | None = None
    flops: float | None = None
    bytes: float | None = None
    name: str | None = None
    params: dict[str, Any] = field(default_factory=dict)
    rtol: float | None = None
    atol: float | None = None
    #: How a child process rebuilds this case (set by :func:`load_target` and the built-in suite); None when
    #: it cannot be rebuilt elsewhere (a lambda handed to ``bench()``): then no counters can be collected.
    origin: CaseOrigin | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        # A wrong field fails here, naming the case and the field, not later as inf TFLOP/s.
        problem = _field_problem(self)
        if problem:
            raise TargetError(f"case {self.label!r}: {problem}")

    @property
    def label(self) -> str:
        name = self.name if isinstance(self.name, str) and self.name else None
        return name or getattr(self.fn, "__name__", None) or type(self.fn).__name__


def _field_problem(case: Case) -> str | None:
    """What is wrong with ``case``'s fields, or None."""
    if not callable(case.fn):
        return f"'fn' must be callable, got {type(case.fn).__name__}"
    for key in ("make_inputs", "reference"):
        v = getattr(case, key)
        if v is not None and not callable(v):
            return f"'{key}' must be callable, got {type(v).__name__}"
    if case.name is not None and not isinstance(case.name, str):
        return f"'name' must be a string, got {type(case.name).__name__}"
    if not isinstance(case.params, dict):
        return f"'params' must be a dict of labels, got {type(case.params).__name__}"
    for key, what, zero_ok in (("flops", "FLOP of one call", True), ("bytes", "bytes one call moves", False)):
        v = getattr(case, key)
        if v is None:
            continue
        # In the order of < and <= alone, the two that numbers.Real promises (finite: never NaN).
        ok = isinstance(v, numbers.Real) and not isinstance(v, bool) and _finite(v) and not (
            v < 0 if zero_ok else v <= 0)
        if not ok:
            bound = ">= 0" if zero_ok else "> 0"
            return (f"'{key}' ({what}) must be a finite number {bound}, got {_shown(v)} "
                    f"(leave it out to have it counted with --roofline)")
    return check_tolerances(case.rtol, case.atol)


def _finite(v: SupportsFloat) -> bool:
    """A finite float: an int past float's range (10**400) is not one, and ``math.isfinite`` raises
    OverflowError on it instead of saying so."""
    try:
        return math.isfinite(float(v))
    except (OverflowError, ValueError):
        return False


def _shown(v: object) -> str:
    """``v`` as a message shows it: a 401-digit integer as its size, not 401 digits."""
    if isinstance(v, int) and not isinstance(v, bool) and abs(v) >= 10**20:
        return f"{float(v):.3e}" if _finite(v) else f"an integer of {len(str(abs(v)))} digits (beyond a float's range)"
    text = repr(v)
    return text if len(text) <= 80 else text[:77] + "..."


_KEYS = tuple(f.name for f in fields(Case) if f.name != "origin")


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
    data.setdefault("name", None)
    if data["name"] is None and getattr(fn, "__name__", "<lambda>") == "<lambda>":
        data["name"] = default_name
    params = data.get("params")
    data["params"] = {} if params is None else dict(params) if isinstance(params, dict) else params
    try:
        return Case(**data)
    except TargetError as e:
        raise TargetError(f"{where}: {e}") from None


def as_cases(value: Any, where: str = "target", default_name: str = "case") -> list[Case]:
    """Normalise what a target returned into a list of cases."""
    if isinstance(value, (list, tuple)):
        if not value:
            raise TargetError(f"{where} returned an empty list: nothing to benchmark")
        return [_case_from(v, f"{where}[{i}]", f"{default_name}[{i}]") for i, v in enumerate(value)]
    return [_case_from(value, where, default_name)]


def _import_file(path: Path, noun: str = "target") -> Any:
    if not path.is_file():
        raise InputError(f"{noun} file {str(path)!r} does not exist")
    mod_name = f"_bench_kernel_target_{abs(hash(path.resolve()))}"
    spec = importlib.util.spec_from_file_location(mod_name, path)
    if spec is None or spec.loader is None:
        raise TargetError(f"cannot import {str(path)!r}: not a Python file")
    module = importlib.util.module_from_spec(spec)
    # The target's own folder is importable, as when running `python file.py`.
    sys.path.insert(0, str(path.resolve().parent))
    sys.modules[mod_name] = module
    try:
        with exits_raise():
            spec.loader.exec_module(module)
    except (KeyboardInterrupt, Expired):  # Ctrl-C, and a time limit's stop: not the user's error
        raise
    except BaseException as e:  # noqa: BLE001 - the user's module may raise (or exit) anything on import
        sys.modules.pop(mod_name, None)
        raise user_failure(f"importing {str(path)!r}", e) from None
    finally:
        sys.path.remove(str(path.resolve().parent))
    return module


def _import_module(name: str) -> Any:
    try:
        with exits_raise():
            return importlib.import_module(name)
    except ModuleNotFoundError as e:
        raise TargetError(f"cannot import module {name!r}: {e}") from e
    except (KeyboardInterrupt, Expired):  # Ctrl-C, and a time limit's stop: not the user's error
        raise
    except BaseException as e:  # noqa: BLE001 - sys.exit() on import, a BaseException subclass, ...
        raise user_failure(f"importing module {name!r}", e) from None


def user_failure(doing: str, e: BaseException) -> TargetError:
    """One TargetError for anything user code raised or exited with while ``doing``
    (``sys.exit``, and ``os._exit`` inside :func:`~bench_kernel.measure.exits_raise`, included)."""
    if isinstance(e, (SystemExit, ProcessExit)):
        return TargetError(f"{doing} called {exit_call(e)}")
    kind = type(e).__name__ if isinstance(e, Exception) else f"{type(e).__name__} (a BaseException)"
    text = " ".join(str(e).split())
    return TargetError(f"{doing} raised {kind}" + (f": {text}" if text else ""))


def _is_path(where: str) -> bool:
    """``path/to/file.py`` rather than ``package.module``: how :func:`load_object` tells them apart."""
    return where.endswith(".py") or "/" in where or "\\" in where


def _module_file(dotted: str) -> Path | None:
    """The file ``import dotted`` would run, found on ``sys.path`` WITHOUT importing anything
    (a package's ``__init__`` is user code: it must not run before ``-o`` is checked)."""
    from importlib.machinery import PathFinder

    search, spec = None, None
    parts = dotted.split(".")
    for i in range(len(parts)):
        if i and search is None:  # a parent that is a module, not a package
            return None
        try:
            spec = PathFinder.find_spec(".".join(parts[:i + 1]), search)
        except (ImportError, ValueError):
            return None
        if spec is None:
            return None
        search = spec.submodule_search_locations
    return Path(spec.origin) if spec is not None and spec.has_location and spec.origin else None


def target_file(target: str) -> Path | None:
    """The source file ``path/to/file.py:func`` or ``package.module:func`` names (None when there is
    none to find), without importing it: an input that no output may overwrite."""
    where = target.rpartition(":")[0]
    if not where:
        return None
    return Path(where) if _is_path(where) else _module_file(where)


def load_object(target: str, what: str = "TARGET", attr: str = "func") -> Any:
    """The attribute named by ``path/to/file.py:name`` or ``package.module:name`` (imported);
    ``what`` and ``attr`` name the argument and its attribute in the usage error."""
    where, sep, func_name = target.rpartition(":")
    if not sep or not where or not func_name:
        raise UsageError(f"{what} {target!r} must be 'path/to/file.py:{attr}' or 'package.module:{attr}'")
    noun = what.lower()  # a sweep's SPEC is a spec, never a "target"
    if _is_path(where):
        module = _import_file(Path(where), noun)
    else:
        module = _import_module(where)
    obj = getattr(module, func_name, None)
    if obj is None:
        found = sorted(n for n, v in vars(module).items() if callable(v) and not n.startswith("_")
                       and getattr(v, "__module__", None) == module.__name__)
        hint = f"; callables there: {', '.join(found[:12])}" if found else ""
        raise TargetError(f"{noun} {where} has no attribute {func_name!r}{hint}")
    return obj


def load_target(target: str) -> list[Case]:
    """Import ``path/to/file.py:func`` or ``package.module:func``, call ``func()``, return cases."""
    func_name = target.rpartition(":")[2]
    func = load_object(target)
    if not callable(func):
        raise TargetError(f"{target} is a {type(func).__name__}, not a function")
    try:
        with exits_raise():
            value = func()
    except (KeyboardInterrupt, Expired):  # Ctrl-C, and a time limit's stop: not the user's error
        raise
    except BaseException as e:  # noqa: BLE001 - the factory is user code too
        raise user_failure(f"{target}()", e) from None
    cases = as_cases(value, where=f"{target}()", default_name=func_name)
    return [replace(c, origin=CaseOrigin("bench_kernel.measure:target_case",
                                         {"target": target, "index": i, "label": c.label}))
            for i, c in enumerate(cases)]


def target_case(target: str, index: int, label: str) -> Case:
    """Case ``index`` of ``load_target(target)``, checked to be the one labelled ``label`` (a TargetError
    when the target now returns other cases): how a child process gets the case a parent timed."""
    cases = load_target(target)
    if index >= len(cases) or cases[index].label != label:
        found = cases[index].label if index < len(cases) else f"only {len(cases)} case(s)"
        raise TargetError(f"{target}: case {index} is now {found!r}, not {label!r}; the target changed")
    return cases[index]


def function_case(fn: str, make_inputs: str | None = None) -> Case:
    """The case of two importable functions named ``module:function`` (``bench()``'s ``fn`` and
    ``make_inputs`` rebuilt in a child process; see ``bench_kernel.measure.function_origin``)."""
    def imported(ref: str) -> Any:
        module, _, name = ref.partition(":")
        return getattr(_import_module(module), name)

    return Case(fn=imported(fn), make_inputs=imported(make_inputs) if make_inputs else None)
