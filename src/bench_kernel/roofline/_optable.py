"""The op table (``data/op_formulas.tsv``): which counting formula applies to which op, and where
its arguments are.

Each row names an op as both the dispatcher and the profiler name it (``aten::mm``,
``_C::rms_norm``), the formula kind (registered by ``_work.formula``), ``k`` (FLOPs per element for the
per-element kinds, a multiplier for backward attention) and ``args``: ``role=index`` pairs that say
which schema position holds what (``causal=4``, ``out=0``, ``inout=0+1``; ``layout=bshd`` takes a
word). Positions are schema positions, keyword-only arguments included, which is the order both
``Concrete Inputs`` and the live counter use. Every row is validated when the table is read.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from types import MappingProxyType
from typing import Mapping

from bench_kernel.datafile import read_package_tsv
from bench_kernel.dtypes import lookup
from bench_kernel.errors import InputError

__all__ = ["OpRow", "op_table", "scalar_type", "FORMULA_ROLES"]

#: formula kind -> the roles its ``args`` may name (positions) and the word-valued ones.
FORMULA_ROLES: dict[str, frozenset[str]] = {
    "gemm": frozenset({"a", "b", "bias", "out_dtype"}),
    "matmul": frozenset({"a", "b"}),
    "linear": frozenset({"x", "w", "bias"}),
    "grouped_gemm": frozenset({"a", "b", "offs", "out_dtype"}),
    "conv": frozenset({"x", "w", "bias", "stride", "padding", "dilation", "transposed", "output_padding",
                       "groups"}),
    "conv_backward": frozenset({"grad", "x", "w", "stride", "padding", "dilation", "transposed",
                                "output_padding", "groups", "mask"}),
    "attention": frozenset({"q", "k", "v", "layout", "causal", "mask_type", "cu_q", "cu_k", "max_q", "max_k",
                            "mask", "paged", "window_left", "window_right"}),
    "attention_backward": frozenset({"q", "k", "v", "layout", "causal", "mask_type", "cu_q", "cu_k", "max_q",
                                     "max_k", "mask"}),
    "norm": frozenset({"x", "out", "inout"}),
    "softmax": frozenset({"x", "dim", "half_to_float"}),
    "pointwise": frozenset({"result"}),
    "reduction": frozenset({"x", "dim", "keepdim", "result"}),
    "scan": frozenset({"x"}),
    "copy": frozenset({"src", "dst", "dtype"}),
    "fill": frozenset({"dst", "size", "dtype"}),
    "cat": frozenset({"list", "dim"}),
    "embedding": frozenset({"table", "index"}),
    "index_select": frozenset({"table", "dim", "index"}),
    "gather": frozenset({"table", "index"}),
    "index": frozenset({"table", "index"}),
    "topk": frozenset({"x", "k", "dim"}),
    "sort": frozenset({"x", "dim"}),
    "kv_cache": frozenset({"src", "cache"}),
    "rotary": frozenset(),
    "paged_attention": frozenset({"q", "k", "v", "out"}),
    "fused_moe": frozenset({"x", "router"}),
    "scatter": frozenset(),
    "args": frozenset({"x", "out", "inout"}),
    "none": frozenset(),
}
#: Roles whose value is a word, not a position.
_WORD_ROLES = {"layout": ("bhsd", "bshd", "thd"), "result": ("bool", "int64", "fp32"), "paged": ("yes",)}
#: Roles that may name several positions (``inout=0+1``).
_MULTI_ROLES = {"out", "inout", "x", "src", "cache"}
#: Kinds whose ``k`` is required (FLOPs per element, or a multiplier).
_NEEDS_K = {"norm", "softmax", "pointwise", "reduction", "scan", "topk", "args", "attention_backward", "rotary"}


@dataclass(frozen=True)
class OpRow:
    """One row of the op table."""

    op: str
    formula: str
    k: float | None
    args: Mapping[str, int | tuple[int, ...] | str] = field(default_factory=dict)
    note: str = ""
    where: str = ""
    source: str = ""
    """Where an engine's op (vLLM, SGLang, aiter) has its kernel: project, file and function."""

    def pos(self, role: str, default: int | None = None) -> int | None:
        """The one schema position of ``role`` (or ``default``)."""
        v = self.args.get(role, default)
        return v[0] if isinstance(v, tuple) else v  # type: ignore[return-value]

    def positions(self, role: str) -> tuple[int, ...]:
        """Every schema position of ``role`` (``()`` when the row names none)."""
        v = self.args.get(role)
        return v if isinstance(v, tuple) else (() if v is None else (v,))  # type: ignore[return-value]

    def word(self, role: str) -> str | None:
        v = self.args.get(role)
        return v if isinstance(v, str) else None


def _parse_args(text: str, formula: str, where: str) -> dict[str, int | tuple[int, ...] | str]:
    out: dict[str, int | tuple[int, ...] | str] = {}
    if text == "-":
        return out
    allowed = FORMULA_ROLES[formula]
    for item in text.split(","):
        role, sep, value = item.partition("=")
        role, value = role.strip(), value.strip()
        if not sep or role not in allowed:
            raise InputError(f"{where}: args item {item!r}: expected role=position with role one of "
                             f"{sorted(allowed) or 'none (use -)'} for formula {formula!r}")
        if role in out:
            raise InputError(f"{where}: role {role!r} is given twice")
        if role in _WORD_ROLES:
            if value not in _WORD_ROLES[role]:
                raise InputError(f"{where}: {role}={value!r} must be one of {_WORD_ROLES[role]}")
            out[role] = value
            continue
        parts = value.split("+")
        if not all(re.fullmatch(r"\d{1,2}", p) for p in parts) or (len(parts) > 1 and role not in _MULTI_ROLES):
            raise InputError(f"{where}: {role}={value!r} must be a schema position (0, 1, ...)"
                             f"{'; several joined by +' if role in _MULTI_ROLES else ''}")
        out[role] = tuple(int(p) for p in parts) if role in _MULTI_ROLES else int(parts[0])
    return out


@lru_cache(maxsize=1)
def op_table() -> Mapping[str, OpRow]:
    """``data/op_formulas.tsv`` by op name, validated once."""
    rows: dict[str, OpRow] = {}

    def check(row: dict[str, str], where: str) -> None:
        op, formula, k = row["op"], row["formula"], row["k"]
        if not re.fullmatch(r"[A-Za-z_][\w.]*::\w+|[A-Z]\w*", op):
            raise InputError(f"{where}: op {op!r} must be namespace::name as the profiler writes it (or the "
                             f"CamelCase name of an autograd.Function)")
        engine = not op.startswith(("aten::", "prims::"))
        if engine == (row["source"] in ("", "-")):
            fix = "cite its kernel's source (project path: function)" if engine else "a PyTorch op's source is -"
            raise InputError(f"{where}: op {op!r}: {fix}")
        if op in rows:
            raise InputError(f"{where}: op {op!r} is already listed at {rows[op].where}")
        if formula not in FORMULA_ROLES:
            raise InputError(f"{where}: formula {formula!r} is unknown; use one of {', '.join(FORMULA_ROLES)}")
        if k == "-":
            kval = None
        else:
            try:
                kval = float(k)
            except ValueError:
                kval = -1.0
            if not kval > 0:
                raise InputError(f"{where}: k {k!r} must be a positive number or '-'")
        if (kval is None) == (formula in _NEEDS_K):
            raise InputError(f"{where}: formula {formula!r} {'needs' if formula in _NEEDS_K else 'takes no'} k")
        if formula == "none" and row["note"] in ("", "-"):
            raise InputError(f"{where}: a 'none' row must say in its note why the op cannot be counted")
        rows[op] = OpRow(op, formula, kval, MappingProxyType(_parse_args(row["args"], formula, where)),
                         "" if row["note"] == "-" else row["note"], where, "" if row["source"] == "-" else row["source"])

    read_package_tsv("bench_kernel.roofline", "op_formulas.tsv", ("op", "formula", "k", "args", "note", "source"),
                     check)
    return MappingProxyType(rows)


@lru_cache(maxsize=1)
def _scalar_types() -> Mapping[int, str]:
    table: dict[int, str] = {}

    def check(row: dict[str, str], where: str) -> None:
        if not row["code"].isdigit() or lookup(row["dtype"]) != row["dtype"] or int(row["code"]) in table:
            raise InputError(f"{where}: expected a new code and a canonical dtype, got {row}")
        table[int(row["code"])] = row["dtype"]

    read_package_tsv("bench_kernel.roofline", "scalar_types.tsv", ("code", "dtype"), check)
    return MappingProxyType(table)


def scalar_type(value: object) -> str | None:
    """A dtype argument as a canonical dtype: a dtype name (live) or c10's ScalarType number (traces)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return _scalar_types().get(value)
    if isinstance(value, str):
        return lookup(value)
    return None
