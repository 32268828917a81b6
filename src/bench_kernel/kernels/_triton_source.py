"""Triton kernels by their source: what a ``@triton.jit`` function does, and which arguments it
reads and writes.

A hand-written Triton kernel is named after its Python function (``matmul_kernel``, ``_fwd``), so
its name says nothing and ``decode`` files it under ``other``. Its source does say:

- a ``tl.dot`` -> ``gemm`` (``attention`` when the same kernel also takes a running ``max`` and an
  ``exp``: the online softmax of flash attention);
- a reduction (``tl.sum``, ``tl.max``, ``tl.min``, ``tl.reduce``, ``tl.argmax``, a scan, Inductor's
  ``triton_helpers.max2``/``welford_reduce``) -> ``reduction`` (``softmax`` with ``max`` + ``exp`` +
  ``sum``, ``norm`` with ``rsqrt``);
- loads, math and stores only -> ``elementwise``.

Helper functions the kernel calls, defined in the same source, are read too. :func:`pointer_roles`
says which pointer arguments flow into ``tl.load`` (read) and ``tl.store``/atomics (written), for
the byte estimate of a Triton launch. Nothing here imports torch or triton: sources are text.
"""

from __future__ import annotations

import ast
import sys
from functools import lru_cache
from pathlib import Path
from typing import Any

__all__ = ["triton_source_category", "pointer_roles", "triton_category", "loaded_jit_source", "loaded_jit_functions"]

_REDUCE = {"sum", "max", "min", "reduce", "argmax", "argmin", "cumsum", "cumprod", "xor_sum", "associative_scan",
           "max2", "min2", "welford_reduce", "welford_combine", "welford", "prod"}
_DOT = {"dot", "dot_scaled"}
_STORE = {"store", "atomic_add", "atomic_max", "atomic_min", "atomic_xchg", "atomic_cas", "atomic_and",
          "atomic_or", "atomic_xor"}
_MAX_DEPTH = 4
#: Objects that wrap a JITFunction in ``.fn``: triton's autotuner and heuristics, Inductor's launcher.
_WRAPPERS = ("Autotuner", "Heuristics", "InterpretedFunction", "CachingAutotuner")


def _call_name(node: ast.Call) -> str | None:
    f = node.func
    return f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else None


def _functions(tree: ast.AST) -> dict[str, ast.FunctionDef]:
    return {n.name: n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)}


def _calls(fn: ast.FunctionDef, funcs: dict[str, ast.FunctionDef], depth: int = 0,
           seen: set[str] | None = None) -> set[str]:
    """Names of the calls in ``fn`` and, through helpers defined beside it, in what it calls."""
    seen = seen if seen is not None else {fn.name}
    names: set[str] = set()
    for node in ast.walk(fn):
        if isinstance(node, ast.Call):
            name = _call_name(node)
            if name is None:
                continue
            names.add(name)
            helper = funcs.get(name)
            if helper is not None and name not in seen and depth < _MAX_DEPTH:
                seen.add(name)
                names |= _calls(helper, funcs, depth + 1, seen)
    return names


@lru_cache(maxsize=512)
def _parse(source: str) -> ast.AST | None:
    try:
        return ast.parse(source)
    except (SyntaxError, ValueError, RecursionError):
        return None


def _kernel(source: str, name: str | None) -> tuple[ast.FunctionDef, dict[str, ast.FunctionDef]] | None:
    tree = _parse(source)
    if tree is None:
        return None
    funcs = _functions(tree)
    fn = funcs.get(name) if name else None
    if fn is None and len(funcs) == 1:  # a JIT function's own source: the one def
        fn = next(iter(funcs.values()))
    return (fn, funcs) if fn is not None else None


def triton_source_category(source: str, name: str | None = None) -> str | None:
    """The category (``gemm``, ``attention``, ``reduction``, ``softmax``, ``norm``, ``elementwise``)
    of the Triton function ``name`` in ``source``, or None when it is not there or does no memory work."""
    found = _kernel(source, name)
    if found is None:
        return None
    calls = _calls(*found)
    if calls & _DOT:
        return "attention" if {"max", "exp"} <= calls or {"max", "exp2"} <= calls else "gemm"
    if calls & _REDUCE:
        if calls & {"exp", "exp2"} and calls & {"max", "max2"}:
            return "softmax"
        return "norm" if "rsqrt" in calls else "reduction"
    if calls & ({"load"} | _STORE):
        return "elementwise"
    return None


def _names(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def pointer_roles(source: str, name: str | None = None) -> dict[str, frozenset[str]]:
    """Argument name -> ``{"load"}``, ``{"store"}`` or both, for the arguments of ``name`` whose
    values reach a load's or a store's pointer (through assignments like ``a_ptrs = a_ptr + offs``
    and block pointers). Arguments not listed were not traced to either."""
    found = _kernel(source, name)
    if found is None:
        return {}
    fn, _ = found
    params = [a.arg for a in fn.args.args]
    origin: dict[str, set[str]] = {p: {p} for p in params}
    assigns = [n for n in ast.walk(fn) if isinstance(n, (ast.Assign, ast.AugAssign, ast.AnnAssign))]
    for _ in range(3):  # loops carry pointers around: a few passes reach the fixed point
        for node in assigns:
            value = node.value
            if value is None:
                continue
            src = set().union(*(origin.get(n, set()) for n in _names(value)))
            if isinstance(node, ast.AugAssign):
                src |= origin.get(getattr(node.target, "id", ""), set())
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for t in targets:
                for n in _names(t):
                    if n not in params:
                        origin[n] = origin.get(n, set()) | src
    roles: dict[str, set[str]] = {}
    for call in ast.walk(fn):
        if not isinstance(call, ast.Call) or not call.args:
            continue
        what = _call_name(call)
        role = "load" if what == "load" else "store" if what in _STORE else None
        if role is None:
            continue
        for p in set().union(*(origin.get(n, set()) for n in _names(call.args[0]))):
            roles.setdefault(p, set()).add(role)
            if role == "store" and what != "store":  # an atomic reads what it updates
                roles[p].add("load")
    return {p: frozenset(r) for p, r in roles.items()}


def loaded_jit_functions(name: str) -> list[Any]:
    """The loaded ``@triton.jit`` functions (``JITFunction`` objects; an autotuner, heuristics or
    Inductor launcher around one unwrapped) whose Python function is ``name``, found as module
    globals called ``name``: a live run, where the kernel's Python function is in memory.

    The one place that looks for them: source lookup (``loaded_jit_source``) and the Source Trace's
    file links both start here."""
    found = []
    for mod in list(sys.modules.values()):
        try:  # some modules (torch.classes) answer any attribute by raising
            obj = mod.__dict__.get(name) if hasattr(mod, "__dict__") else None
            while obj is not None and type(obj).__name__ in _WRAPPERS:
                obj = getattr(obj, "fn", None)
            if obj is None or type(obj).__name__ != "JITFunction":
                continue
            if getattr(obj.fn, "__name__", None) == name and getattr(obj.fn, "__code__", None) is not None:
                found.append(obj)
        except Exception:  # noqa: BLE001
            continue
    return found


def loaded_jit_source(name: str) -> tuple[str, str] | None:
    """(source of the defining module, function name) of a loaded ``@triton.jit`` function called
    ``name`` -- a live run, where the kernel's Python function is in memory -- or None."""
    for obj in loaded_jit_functions(name):
        try:
            return Path(obj.fn.__code__.co_filename).read_text(encoding="utf-8", errors="replace"), name
        except OSError:
            src = getattr(obj, "src", None)
            if isinstance(src, str):
                return src, name
    return None


def triton_category(name: str, *, source: str | None = None, live: bool = False) -> str:
    """The category of kernel ``name``: from its Triton source when given (or, ``live``, found among
    loaded JIT functions), else from the name (``decode``)."""
    from bench_kernel.kernels._decode import decode

    if source is None and live:
        found = loaded_jit_source(name)
        source = found[0] if found else None
    by_source = triton_source_category(source, name) if source else None
    return by_source or decode(name).category
