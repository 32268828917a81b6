"""Triton kernels: where the ``@triton.jit`` function is, and an outline of what it does.

The profiler names a Triton kernel after its Python function. The function's source is found
in the files of the launch's own stack (the caller of ``kernel[grid](...)`` defines or imports
it; Inductor's generated module defines it), or, in a live run, among loaded JIT functions.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Iterable

from bench_kernel.kernels import loaded_jit_functions

__all__ = ["find_jit_source", "outline"]

_JIT_DECORATORS = ("jit", "autotune", "heuristics")


def _jit_def_line(source: str, name: str) -> int | None:
    """Line of ``def name(`` for a function decorated with triton.jit/autotune/heuristics."""
    if f"def {name}" not in source:
        return None
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return None
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name == name:
            decos = [ast.unparse(d) for d in node.decorator_list]
            if any(any(j in d for j in _JIT_DECORATORS) for d in decos):
                return node.lineno
    return None


def find_jit_source(name: str, files: Iterable[str | None], live: bool = False) -> tuple[str, int] | None:
    """(absolute file, 1-based line of ``def name(``) of the ``@triton.jit`` function, or None."""
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name or ""):
        return None
    candidates = [f for f in files if f]
    if live:
        candidates = [jit.fn.__code__.co_filename for jit in loaded_jit_functions(name)] + candidates
    for f in dict.fromkeys(candidates):
        try:
            source = Path(f).read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        line = _jit_def_line(source, name)
        if line is not None:
            return str(Path(f).resolve()), line
    return None


def _src(node: ast.AST, limit: int = 60) -> str:
    text = ast.unparse(node)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _call_name(node: ast.AST) -> str | None:
    if isinstance(node, ast.Call):
        f = node.func
        if isinstance(f, ast.Attribute):
            return f.attr
        if isinstance(f, ast.Name):
            return f.id
    return None


_MATH = {"exp", "exp2", "log", "log2", "sqrt", "rsqrt", "sigmoid", "tanh", "erf", "cos", "sin", "fma"}
_REDUCE = {"sum", "max", "min", "argmax", "argmin", "reduce", "cumsum", "xor_sum"}


def _describe(stmt: ast.stmt, depth: int = 0) -> list[str]:
    pad = "" if depth == 0 else "↳ " * depth
    out: list[str] = []
    if isinstance(stmt, (ast.For, ast.While)):
        head = f"for {_src(stmt.target)} in {_src(stmt.iter)}" if isinstance(stmt, ast.For) else f"while {_src(stmt.test)}"
        out.append(f"{pad}loop `{head}`:")
        for s in stmt.body:
            out += _describe(s, depth + 1)
        return out
    if isinstance(stmt, ast.If):
        out.append(f"{pad}if `{_src(stmt.test)}`:")
        for s in stmt.body:
            out += _describe(s, depth + 1)
        return out
    target = None
    value = None
    if isinstance(stmt, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
        value = stmt.value
        tgt = stmt.targets[0] if isinstance(stmt, ast.Assign) else stmt.target
        target = _src(tgt)
    elif isinstance(stmt, ast.Expr):
        value = stmt.value
    if value is None:
        return out
    calls = [n for n in ast.walk(value) if isinstance(n, ast.Call)]
    names = {_call_name(c) for c in calls}
    if "program_id" in names:
        out.append(f"{pad}`{target}` = which block this program handles (`{_src(value)}`)")
    elif "load" in names:
        masked = " (masked)" if any(k.arg == "mask" for c in calls for k in c.keywords) else ""
        out.append(f"{pad}load `{target}` from global memory{masked}: `{_src(value)}`")
    elif "store" in names or "atomic_add" in names:
        call = next(c for c in calls if _call_name(c) in ("store", "atomic_add"))
        masked = " (masked)" if any(k.arg == "mask" for k in call.keywords) else ""
        what = "atomically add" if _call_name(call) == "atomic_add" else "store"
        val = f" `{_src(call.args[1])}`" if len(call.args) > 1 else ""
        out.append(f"{pad}{what}{val} to `{_src(call.args[0]) if call.args else '?'}`{masked}")
    elif "dot" in names:
        out.append(f"{pad}tensor-core dot: `{target} = {_src(value)}`" if target else f"{pad}dot `{_src(value)}`")
    elif names & _REDUCE:
        out.append(f"{pad}reduce: `{target} = {_src(value)}`")
    elif names & _MATH or isinstance(value, (ast.BinOp, ast.UnaryOp, ast.Compare)):
        out.append(f"{pad}compute `{target} = {_src(value)}`" if target else f"{pad}compute `{_src(value)}`")
    return out


def outline(file: str, line: int) -> tuple[str, ...]:
    """The numbered steps of the function defined at ``file:line``: loads, math, dots, stores."""
    try:
        tree = ast.parse(Path(file).read_text(encoding="utf-8", errors="replace"))
    except (OSError, SyntaxError, ValueError):
        return ()
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.lineno == line:
            steps: list[str] = []
            for stmt in node.body:
                steps += _describe(stmt)
            return tuple(steps)
    return ()
