"""Just enough C++ declaration parsing to shorten and decode demangled kernel names.

Demangled names are not a grammar one can lex naively: ``>`` is also a comparison inside
``enable_if<(((8)>(0)))…>``, lambdas carry their own parameter lists (``{lambda(int)#1}``), and
adversarial input can leave any bracket unbalanced. So brackets are matched once per string with
a stack in which ``>`` only closes a pending ``<`` and ``)``/``}``/``]`` discard unclosed ``<``;
every split below works at depth 0 of that matching. Unbalanced input degrades, never raises.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

__all__ = ["Function", "parse_function", "split_args", "split_scope", "split_component", "matches"]

_BRACKET = re.compile(r"[<>(){}\[\]]")
_OPENERS = {"(": ")", "{": "}", "[": "]"}
_CLOSERS = {")": "(", "}": "{", "]": "["}


@lru_cache(maxsize=8192)
def matches(s: str) -> dict[int, int]:
    """Map each opening bracket's offset to its closing bracket's offset (balanced pairs only).

    Cached: the splitters below revisit the same argument strings; callers must not mutate the result.

    Linear in ``len(s)``: a closer whose opener is not on the stack is skipped in O(1) (a count per
    opener kind says so) instead of scanning the stack, and every stack entry is popped at most once
    (the stack scan it replaced rescanned the whole stack for each ``)`` of ``"<" * n + ")" * n``).
    """
    stack: list[tuple[str, int]] = []
    pending = {"<": 0, "(": 0, "{": 0, "[": 0}
    out: dict[int, int] = {}
    for m in _BRACKET.finditer(s):
        ch, i = m.group(), m.start()
        if ch == "<" or ch in _OPENERS:
            stack.append((ch, i))
            pending[ch] += 1
        elif ch == ">":
            # "->" and comparisons inside parentheses are not template closers.
            if stack and stack[-1][0] == "<" and not (i > 0 and s[i - 1] == "-"):
                out[stack.pop()[1]] = i
                pending["<"] -= 1
        else:
            want = _CLOSERS[ch]
            if not pending[want]:
                continue
            # Pop down to the matching opener, discarding the unclosed ones above it.
            while True:
                top, j = stack.pop()
                pending[top] -= 1
                if top == want:
                    out[j] = i
                    break
    return out


@lru_cache(maxsize=8192)
def _outer(s: str) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """(openers, closers) of the outermost matched bracket pairs of ``s``, left to right.

    Pairs from :func:`matches` nest properly (a stack made them), so the outermost ones are found
    by one sweep in opener order.
    """
    mm = matches(s)
    starts: list[int] = []
    ends: list[int] = []
    last = -1
    for i in sorted(mm):
        if i > last:
            starts.append(i)
            ends.append(mm[i])
            last = mm[i]
    return tuple(starts), tuple(ends)


_COMMA = re.compile(",")
_SCOPE = re.compile("::")
_SPACE = re.compile(" ")


def _top_level(s: str, targets: re.Pattern[str]):
    """Yield the offsets of ``targets`` matches that sit outside every matched bracket pair.

    The targets are found by the regex engine and checked against the outermost pairs, so the
    Python work is per target, not per bracket (unmatched brackets cost nothing here).
    """
    starts, ends = _outer(s)
    k, n = 0, len(starts)
    for m in targets.finditer(s):
        i = m.start()
        while k < n and ends[k] < i:
            k += 1
        if k < n and starts[k] < i:
            continue  # inside the pair starts[k]..ends[k]
        yield i


def split_args(s: str) -> list[str]:
    """Split a template argument or parameter list at its top-level commas (stripped parts)."""
    if not s.strip():
        return []
    cuts = list(_top_level(s, _COMMA))
    bounds = zip([-1] + cuts, cuts + [len(s)])
    return [s[a + 1:b].strip() for a, b in bounds]


def split_scope(s: str) -> list[str]:
    """Split a qualified name at its top-level ``::`` (``a::b<c::d>::e`` -> ``a``, ``b<c::d>``, ``e``)."""
    parts, last = [], 0
    for i in _top_level(s, _SCOPE):
        parts.append(s[last:i])
        last = i + 2
    parts.append(s[last:])
    return [p.strip() for p in parts]


def split_component(c: str) -> tuple[str, str | None, str | None]:
    """``name<targs>(params) const`` -> (name, targs or None, params or None)."""
    if c.startswith("{"):  # {lambda(int)#1}: a lambda is named by its braces, not parsed further
        return c, None, None
    name_end = len(c)
    targs = params = None
    for i, j in zip(*_outer(c)):
        if c[i] == "<" and targs is None and params is None:
            name_end = min(name_end, i)
            targs = c[i + 1:j]
        elif c[i] == "(" and params is None:
            name_end = min(name_end, i)
            params = c[i + 1:j]
            break
    if c.startswith("operator"):  # operator() / operator< are names, not calls or templates
        return c.split(" ")[0], None, None
    return c[:name_end].strip(), targs, params


@dataclass(frozen=True)
class Function:
    """A demangled function declaration taken apart."""

    #: the return type (``void``, ``std::enable_if<…>::type``), or "".
    returns: str
    #: the qualified name with template arguments, ``at::native::reduce_kernel<512, 1, …>``.
    qualified: str
    #: the parameter list without parentheses, or None for names that are not declarations.
    params: str | None


_ANON = "(anonymous namespace)::"


@lru_cache(maxsize=8192)
def parse_function(text: str) -> Function:
    """Split ``ret ns::name<targs>(params) const`` into its parts (best effort, never raises)."""
    s = text.replace(_ANON, "").strip()
    starts, ends = _outer(s)
    at = next((k for k, i in enumerate(starts) if s[i] == "(" and not s.startswith("operator", max(0, i - 8))), None)
    head = s if at is None else s[:starts[at]]
    params = None if at is None else s[starts[at] + 1:ends[at]]
    spaces = list(_top_level(head, _SPACE))
    if spaces:
        cut = spaces[-1]
        return Function(head[:cut].strip(), head[cut + 1:].strip(), params)
    return Function("", head.strip(), params)
