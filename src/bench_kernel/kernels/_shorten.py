"""Short names for tables: at most 80 characters, readable, and a pure function of the name.

A demangled kernel is cut to ``namespace::kernel<args>``: the return type and parameter list go,
element types become dtypes (``c10::BFloat16`` -> ``bf16``), functors keep their name, a lambda is
named by the function that defines it, and plumbing (``std::array<char*, 3ul>``, offset
calculators, load/store policies) is dropped. If that is still too long, namespaces go first,
then trailing template arguments (replaced by ``…``).
"""

from __future__ import annotations

import re

from bench_kernel.dtypes import lookup as dtype_lookup
from bench_kernel.kernels._cxx import parse_function, split_args, split_component, split_scope

__all__ = ["MAX_SHORT", "fit", "shorten_cxx", "dtype_of", "simplify_arg", "lambda_owner"]

#: the longest short name, in characters.
MAX_SHORT = 80

_INT = re.compile(r"^\(?-?\d+\)?(?:u?l{0,2}|ll|ull)?$", re.IGNORECASE)
_ENUM = re.compile(r"^\((?:[\w:]+)\)(-?\d+)$")
# Template arguments that say how data moves, not what the kernel computes.
_PLUMBING = re.compile(
    r"^(?:std::array|std::integral_constant|TrivialOffsetCalculator|OffsetCalculator|"
    r"at::native::memory::(?:Load|Store)With(?:out)?Cast|at::(?:Restrict|Default)PtrTraits|"
    r"at::native::memory::\w+)\b")


def fit(text: str, limit: int = MAX_SHORT) -> str:
    """Collapse whitespace and cut ``text`` to ``limit`` characters (ending in ``…`` when cut)."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def dtype_of(arg: str) -> str | None:
    """The short dtype of a C++ element type (``c10::BFloat16 const*`` -> ``bf16``), else None."""
    return dtype_lookup(arg)


def lambda_owner(arg: str) -> tuple[str | None, str | None]:
    """For ``f(…)::{lambda()#3}::…::{lambda(c10::BFloat16)#1}``: (``f``, dtype of the last lambda)."""
    parts = split_scope(arg)
    owner = None
    for p in parts:
        if p.startswith("{lambda"):
            break
        name, _, _ = split_component(p)
        if not name.startswith("operator"):
            owner = name
    last = parts[-1]
    dtype = None
    if last.startswith("{lambda(") and ")" in last:
        inner = last[len("{lambda("):last.rfind(")")]
        types = [dtype_of(t) for t in split_args(inner)]
        dtype = next((t for t in types if t), None)
    return owner, dtype


def simplify_arg(arg: str, depth: int = 0) -> str | None:
    """A template argument as shown in a short name, or None to drop it."""
    a = arg.strip()
    if not a:
        return None
    if _INT.match(a):
        return re.sub(r"[^\d-]", "", a)
    m = _ENUM.match(a)
    if m:
        return m.group(1)
    if a in ("true", "false"):
        return a
    if a.startswith("&"):
        return split_scope(a[1:])[-1]
    d = dtype_of(a)
    if d:
        return d
    if _PLUMBING.match(a):
        return None
    if "{lambda" in a:
        owner, dtype = lambda_owner(a)
        return owner or "lambda"
    parts = split_scope(a)
    name, targs, _ = split_component(parts[-1])
    if parts[-1].startswith("operator") and len(parts) > 1:
        name, targs, _ = split_component(parts[-2])
    if targs is None:
        return name or None
    if depth >= 1:
        return f"{name}<…>" if targs.strip() else f"{name}<>"
    inner = [s for s in (simplify_arg(t, depth + 1) for t in split_args(targs)) if s]
    return f"{name}<{', '.join(inner)}>"


def _compose(namespace: list[str], name: str, args: list[str], limit: int) -> str:
    """``ns::name<args>`` cut to ``limit``: inner namespaces go first, then trailing arguments.

    The outermost namespace (``at``, ``cublasLt``, ``rocprim``) stays as long as the name with one
    argument fits: it is what tells the library apart, and ``decode`` of a short name must give
    the family and category of the full one.
    """
    roots = [("::".join(namespace) + "::") if namespace else ""]
    if len(namespace) > 1:
        roots.append(namespace[0] + "::")
    for prefix in roots:
        full = f"{prefix}{name}<{', '.join(args)}>" if args else f"{prefix}{name}"
        if len(full) <= limit:
            return full
    # Drop trailing arguments until it fits: the leading ones (types, functors) say the most. The
    # length is kept as a running sum (re-joining after each drop was quadratic in the argument count).
    for prefix in roots[-1:] + ([""] if roots[-1] else []):
        size = len(prefix) + len(name) + 3 + sum(len(a) + 2 for a in args)  # prefix name<a, b, …>
        kept = len(args)
        while kept:
            kept -= 1
            size -= len(args[kept]) + 2
            if size <= limit:
                return f"{prefix}{name}<{', '.join(args[:kept] + ['…'])}>"
    return fit(name, limit)


def shorten_cxx(readable: str, limit: int = MAX_SHORT) -> str:
    """Short name of a demangled C++ kernel name (or any text: plain names pass through ``fit``)."""
    if "<" not in readable and "(" not in readable and "::" not in readable:
        return fit(readable, limit)
    fn = parse_function(readable)
    parts = [p for p in split_scope(fn.qualified) if p]
    if not parts:
        return fit(readable, limit)
    name, targs, _ = split_component(parts[-1])
    namespace = []
    for p in parts[:-1]:
        n, _, _ = split_component(p)
        if n and not n.startswith("{"):
            namespace.append(n)
    args = [] if targs is None else [s for s in (simplify_arg(t) for t in split_args(targs)) if s]
    return fit(_compose(namespace, name or parts[-1], args, limit), limit)
