"""The metric tables (``data/ncu_metrics.tsv``, ``data/rocprof_counters.tsv``): which counters a tool is asked
for, and the formula that turns them into each field of :class:`KernelCounters`.

A field is a linear combination of counters (``sum`` rows), or a ratio of two (``num`` / ``den`` rows);
variants are alternatives tried in order. Every row names its source, and a table that breaks a rule
(an unknown field, a factor that is not a number, a ratio field with ``sum`` rows) is refused on load.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from typing import Mapping

from bench_kernel.datafile import read_package_tsv
from bench_kernel.errors import InputError

__all__ = ["FIELDS", "Formula", "MetricTable", "metric_table", "TOOLS"]

_COLUMNS = ("field", "variant", "part", "counter", "factor", "chips", "source")
#: Additive fields: a kernel's value is a count that sums over launches and kernels.
ADDITIVE = ("dram_read_bytes", "dram_write_bytes", "l2_bytes", "l1_bytes")
#: Per-launch properties: averaged over launches, never summed.
PROPERTIES = ("memory_sol_pct", "compute_sol_pct", "achieved_occupancy_pct", "registers_per_thread",
              "l2_hit_rate_pct", "passes")
FLOP_KINDS = ("scalar_flops", "tensor_flops")
#: The precisions a FLOP field may name (the peak classes of ``bench_kernel/data/dtypes.tsv``).
PRECISIONS = ("fp64", "fp32", "tf32", "bf16", "fp16", "fp8", "int8")
FIELDS = ADDITIVE + PROPERTIES + tuple(f"{k}.{p}" for k in FLOP_KINDS for p in PRECISIONS)
TOOLS = {"ncu": "ncu_metrics.tsv", "rocprofv3": "rocprof_counters.tsv"}


@dataclass(frozen=True)
class Formula:
    """One variant of one field: ``sum(factor * counter)``, or ``sum(num) / sum(den)``."""

    field: str
    variant: int
    terms: tuple[tuple[str, str, float], ...]
    """(part, counter, factor) rows, in table order."""

    @property
    def counters(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(c for _, c, _ in self.terms))

    def evaluate(self, values: Mapping[str, float]) -> float | None:
        """The field's value from ``values`` (counter -> number), or None when a counter is missing
        or a ratio's denominator is 0."""
        if any(c not in values for c in self.counters):
            return None
        parts = {"sum": 0.0, "num": 0.0, "den": 0.0}
        for part, counter, factor in self.terms:
            parts[part] += factor * values[counter]
        if any(part == "den" for part, _, _ in self.terms):
            return parts["num"] / parts["den"] if parts["den"] else None
        return parts["sum"]

    def text(self) -> str:
        """The formula as a person reads it: ``2 x sm__...ffma + sm__...fadd``."""
        def term(c: str, f: float) -> str:
            return c if f == 1 else f"{f:g} x {c}"
        nums = " + ".join(term(c, f) for p, c, f in self.terms if p in ("sum", "num")).replace("+ -", "- ")
        dens = " + ".join(term(c, f) for p, c, f in self.terms if p == "den")
        return f"({nums}) / ({dens})" if dens else nums


@dataclass(frozen=True)
class MetricTable:
    """A tool's formulas: per field, its variants in order."""

    tool: str
    formulas: Mapping[str, tuple[Formula, ...]]
    chips: Mapping[tuple[str, int, str], tuple[str, ...]]
    """(field, variant, counter) -> the chips it is requested on (``("all",)``, or ``()`` = never requested)."""

    def requested(self, chip: str | None) -> list[str]:
        """The counters to ask the tool for on ``chip`` (variant 1 of every field), in table order."""
        out: list[str] = []
        for field, variants in self.formulas.items():
            for _, counter, _ in variants[0].terms:
                chips = self.chips[(field, variants[0].variant, counter)]
                if "all" in chips or (chip is not None and chip in chips):
                    out.append(counter)
        return list(dict.fromkeys(out))

    def evaluate(self, values: Mapping[str, float]) -> tuple[dict[str, float], dict[str, str]]:
        """(field -> value, field -> formula text) for every field some variant can compute."""
        got: dict[str, float] = {}
        used: dict[str, str] = {}
        for field, variants in self.formulas.items():
            for formula in variants:
                v = formula.evaluate(values)
                if v is not None:
                    got[field], used[field] = v, formula.text()
                    break
        return got, used


def _check(row: dict[str, str], where: str) -> None:
    if row["field"] not in FIELDS:
        raise InputError(f"{where}: unknown field {row['field']!r}; expected one of {', '.join(FIELDS)}")
    if row["part"] not in ("sum", "num", "den"):
        raise InputError(f"{where}: part {row['part']!r} must be sum, num or den")
    try:
        if int(row["variant"]) < 1:
            raise ValueError
        factor = float(row["factor"])
    except ValueError:
        raise InputError(f"{where}: variant must be an integer >= 1 and factor a number, got "
                         f"{row['variant']!r}, {row['factor']!r}") from None
    if not math.isfinite(factor) or factor == 0:
        raise InputError(f"{where}: factor {row['factor']!r} must be a finite, non-zero number")
    if not row["counter"] or " " in row["counter"]:
        raise InputError(f"{where}: counter {row['counter']!r} must be one name without spaces")
    if not row["chips"] or not row["source"]:
        raise InputError(f"{where}: every row needs its chips ('all', '-' or names) and a source")


def parse_table(rows: list[dict[str, str]], tool: str, origin: str) -> MetricTable:
    """The formulas of ``rows`` (already row-checked); a field whose rows mix a ratio and a sum is refused."""
    grouped: dict[str, dict[int, list[tuple[str, str, float]]]] = {}
    chips: dict[tuple[str, int, str], tuple[str, ...]] = {}
    for row in rows:
        variant = int(row["variant"])
        grouped.setdefault(row["field"], {}).setdefault(variant, []).append(
            (row["part"], row["counter"], float(row["factor"])))
        names = () if row["chips"] == "-" else tuple(c.strip() for c in row["chips"].split(","))
        chips[(row["field"], variant, row["counter"])] = names
    formulas: dict[str, tuple[Formula, ...]] = {}
    for field, variants in grouped.items():
        built = []
        for variant in sorted(variants):
            terms = tuple(variants[variant])
            parts = {p for p, _, _ in terms}
            if "sum" in parts and parts != {"sum"} or parts in ({"num"}, {"den"}):
                raise InputError(f"{origin}: field {field!r} variant {variant}: a ratio needs num and den rows "
                                 f"and no sum rows, got {sorted(parts)}")
            if field in PROPERTIES and "sum" in parts and len(terms) != 1:
                raise InputError(f"{origin}: field {field!r} is a per-launch property: one counter, not a sum "
                                 f"of {len(terms)}")
            built.append(Formula(field, variant, terms))
        formulas[field] = tuple(built)
    return MetricTable(tool, formulas, chips)


@lru_cache(maxsize=None)
def metric_table(tool: str) -> MetricTable:
    """The packaged table of ``tool`` (``ncu`` or ``rocprofv3``), parsed and checked once."""
    if tool not in TOOLS:
        raise ValueError(f"unknown counter tool {tool!r}; expected one of {', '.join(TOOLS)}")
    rows = read_package_tsv("bench_kernel.counters", TOOLS[tool], _COLUMNS, _check)
    return parse_table(rows, tool, f"bench_kernel/counters/data/{TOOLS[tool]}")
