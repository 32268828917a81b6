"""The one way bench-kernel accepts a user's regular expression: compiled, then run with a time bound.

Users give regexes on the command line (``layers --anchor``, ``source-trace --kernel``), in the API
(``Trace.find_kernels``) and in rule files (``--steps FILE``, ``decode --rules FILE``). Python's
``re`` cannot be stopped once a match starts, and a regex that backtracks catastrophically never
ends: ``(a+)+$`` took 207 s on one name, and a 40-character variant did not finish.
No syntax check catches every such regex (``(a|a)+$``, ``(\\w|\\d)+$``, ``.*a.*a.*a.*c`` on a long name
are exponential or high-order polynomial too), so every search runs under a time bound instead,
with the ``regex`` package (re's syntax; its ``timeout`` stops a running match). It also matches
the textbook ``(a+)+$`` in linear time. A regex that runs past the bound is refused with one line
that names the option, the pattern, the subject's length and why.

The bound is per search (:data:`SEARCH_S`) and, for one pattern, over its slow searches together
(:data:`TOTAL_S`; a search is slow past :data:`SLOW_S`): a regex that takes 0.9 s on each of 10,000
kernel names stops after the total, not after hours, while a sound pattern run over millions of
names (microseconds each) is never stopped.
"""

from __future__ import annotations

import time
from typing import Any

import regex

from bench_kernel.errors import BenchKernelError, UsageError

__all__ = ["UserRegex", "user_regex", "SEARCH_S", "TOTAL_S", "SLOW_S", "IGNORECASE"]

#: The longest one search may run, in seconds (real kernel names are matched in microseconds).
SEARCH_S = 1.0
#: The longest one pattern may spend in slow searches, all together, in seconds.
TOTAL_S = 10.0
#: A search longer than this counts towards :data:`TOTAL_S` (a kernel name takes microseconds).
SLOW_S = 0.01
#: Case-insensitive matching (category rules), as ``re.IGNORECASE``.
IGNORECASE = regex.IGNORECASE

_WHY = ("it backtracks catastrophically: a repeat over alternatives that can match the same text "
        "('(a|a)+'), nested repeats or many '.*' can take exponential time on a long name; rewrite it "
        "without them")


class UserRegex:
    """A user's compiled regex whose ``search`` is time-bounded; ``pattern`` and ``groupindex`` as ``re``'s."""

    def __init__(self, compiled: Any, where: str, error: type[BenchKernelError]) -> None:
        self._rx = compiled
        self._where = where
        self._error = error
        self._left_s = TOTAL_S
        self.pattern: str = compiled.pattern
        self.groupindex: dict[str, int] = dict(compiled.groupindex)

    def search(self, text: str) -> Any:
        """The first match in ``text`` (a ``regex`` match object: ``group``, ``start``, ... as ``re``'s) or
        None; raises the caller's error type when the search runs past the time bound."""
        if self._left_s <= 0:
            raise self._stopped(text, total=True)
        bound = min(SEARCH_S, self._left_s)
        start = time.monotonic()
        try:
            return self._rx.search(text, timeout=bound)
        except TimeoutError:
            raise self._stopped(text, total=bound < SEARCH_S) from None
        finally:
            took = time.monotonic() - start
            if took > SLOW_S:
                self._left_s -= took

    def _stopped(self, text: str, total: bool) -> BenchKernelError:
        what = f"{TOTAL_S:g} s of slow searches" if total else f"{SEARCH_S:g} s on one {len(text):,}-character name"
        return self._error(f"{self._where} {self.pattern!r} was stopped after {what}: {_WHY}")

    def __repr__(self) -> str:
        return f"UserRegex({self.pattern!r})"


def user_regex(pattern: Any, where: str, *, flags: int = 0, error: type[BenchKernelError] = UsageError) -> UserRegex:
    """Compile a user's ``pattern``; ``where`` names it in messages (``--anchor``, ``steps.json: rules[2]
    pattern``). An invalid regex, or one that is not text, raises ``error`` (a usage error by default;
    rule files pass :class:`~bench_kernel.errors.InputError`)."""
    if not isinstance(pattern, str):
        raise error(f"{where} {pattern!r} is not a regular expression (a string)")
    try:
        compiled = regex.compile(pattern, flags)
    except (regex.error, OverflowError, RecursionError, ValueError) as e:
        raise error(f"{where} {pattern!r} is not a valid regular expression: {e}") from None
    return UserRegex(compiled, where, error)
