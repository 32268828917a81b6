"""Categories from ordered, first-match-wins rules (``data/categories.tsv`` plus users' files).

A rule is ``id, category, family, on, pattern``: it matches a decoded kernel when the family is
listed (``*`` = any) and the case-insensitive regex ``pattern`` is found in the subject ``on``:

- ``name``: the demangled name; ``short``: the short name; ``kernel``: the kernel function's base
  name (``vectorized_elementwise_kernel``, ``rms_norm_kernel``, the whole name for plain names);
- any other word: that decoded field (lists joined by single spaces, booleans ``true``/``false``).

No rule matching means ``other``; there is no inverse catch-all. A user file is read with the
same columns and its rules are tried before the defaults, so it can both add and override.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, Mapping, cast

from bench_kernel.errors import InputError
from bench_kernel.kernels._data import package_text, read_tsv, user_file_text
from bench_kernel.kernels._model import CATEGORIES, FAMILIES, Category
from bench_kernel.userregex import IGNORECASE, user_regex

__all__ = ["Rule", "Rules", "load_rules", "default_rules"]

_COLUMNS = ("id", "category", "family", "on", "pattern")


@dataclass(frozen=True)
class Rule:
    """One classification rule (a row of a rules file)."""

    id: str
    category: Category
    families: frozenset[str]  # empty = any family
    on: str
    pattern: Any
    """A compiled ``re`` pattern (the built-in rules) or a time-bounded user regex (``bench_kernel.userregex``)."""
    #: ``file:line`` the rule came from, for messages.
    where: str = ""

    def matches(self, family: str, subjects: Mapping[str, Any]) -> bool:
        if self.families and family not in self.families:
            return False
        value = subjects.get(self.on)
        if value is None:
            return False
        return self.pattern.search(_text(value)) is not None


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, tuple)):
        return " ".join(str(v) for v in value)
    return str(value)


def _parse(text: str, source: str, *, user: bool = False) -> tuple[Rule, ...]:
    """The rules of a TSV text; ``user`` rules' patterns are time-bounded (``bench_kernel.userregex``)."""
    seen: dict[str, str] = {}
    rules: list[Rule] = []

    def check(row: dict[str, str], where: str) -> None:
        if not re.fullmatch(r"[A-Za-z0-9_.\-]+", row["id"]):
            raise InputError(f"{where}: id {row['id']!r} must be letters, digits, '.', '_' or '-'")
        if row["id"] in seen:
            raise InputError(f"{where}: id {row['id']!r} is already used at {seen[row['id']]}; ids must be unique")
        seen[row["id"]] = where
        if row["category"] not in CATEGORIES:
            raise InputError(f"{where}: category {row['category']!r} is unknown; use one of {', '.join(CATEGORIES)}")
        fams = [f.strip() for f in row["family"].split(",")]
        bad = [f for f in fams if f != "*" and f not in FAMILIES]
        if bad:
            raise InputError(f"{where}: family {bad[0]!r} is unknown; use '*' or one of {', '.join(FAMILIES)}")
        if not re.fullmatch(r"[a-z_][a-z0-9_]*", row["on"]):
            raise InputError(f"{where}: on {row['on']!r} must be 'name', 'short', 'kernel' or a field name")
        if not row["pattern"]:
            raise InputError(f"{where}: pattern is empty; an empty pattern would match every kernel")
        if user:
            compiled[where] = user_regex(row["pattern"], f"{where}: pattern", flags=IGNORECASE, error=InputError)
            return
        try:
            compiled[where] = re.compile(row["pattern"], re.IGNORECASE)
        except re.error as e:
            raise InputError(f"{where}: pattern {row['pattern']!r} is not a valid regular expression: {e}") from None

    compiled: dict[str, Any] = {}
    for row in read_tsv(text, source, _COLUMNS, check):
        fams = frozenset(f.strip() for f in row["family"].split(",") if f.strip() != "*")
        rules.append(Rule(row["id"], cast(Category, row["category"]), fams, row["on"], compiled[seen[row["id"]]], seen[row["id"]]))
    return tuple(rules)


@dataclass(frozen=True, eq=False)
class Rules:
    """An ordered rule list; the first rule that matches gives the category."""

    rules: tuple[Rule, ...]
    source: str = "default"
    _cache: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    def extend(self, first: "Rules") -> "Rules":
        """A rule list that tries ``first``'s rules, then these."""
        return Rules(first.rules + self.rules, f"{first.source}+{self.source}")

    def classify(self, family: str, subjects: Mapping[str, Any]) -> tuple[Category, str | None]:
        """(category, id of the rule that matched or None for ``other``)."""
        for rule in self.rules:
            if rule.matches(family, subjects):
                return rule.category, rule.id
        return "other", None


@lru_cache(maxsize=1)
def default_rules() -> Rules:
    """The built-in rules of ``data/categories.tsv``."""
    return Rules(_parse(package_text("categories.tsv"), "categories.tsv"), "default")


def load_rules(path: str | Path, *, extend_defaults: bool = True) -> Rules:
    """Read a user rules file (TSV, columns ``id category family on pattern``).

    With ``extend_defaults`` (the default) its rules are tried first and the built-in rules
    after them; without it, only the file's rules are used.
    """
    user = Rules(_parse(user_file_text(path), str(path), user=True), str(path))
    return default_rules().extend(user) if extend_defaults else user
