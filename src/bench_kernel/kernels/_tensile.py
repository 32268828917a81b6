"""Tensile kernels (rocBLAS and hipBLASLt): ``Cijk_Ailk_Bljk_<types>_…_MT128x64x32_MI32x32x1_…``.

Grammar (Tensile ``Solution.getNameMin`` / the hipBLASLt Tensile docs, "Kernel names"): the
problem type first — ``Cijk`` is the free/batch index order of C, ``Ailk``/``Alik`` and
``Bljk``/``Bjlk`` say in which order A and B are indexed (``l`` is the summation index, so ``Ailk``
is A not transposed and ``Alik`` is A transposed) — then the data-type letters, then one token per
non-default solution parameter, ``<Abbrev><value>``. The abbreviations decoded here live in
``data/tensile_keys.tsv``.
"""

from __future__ import annotations

import re
from functools import lru_cache

from bench_kernel.errors import InputError
from bench_kernel.kernels._data import package_text, read_tsv
from bench_kernel.kernels._model import Decoded
from bench_kernel.kernels._spans import Builder, as_int, ints

__all__ = ["decode_tensile", "tensile_keys"]

_TOKEN = re.compile(r"^(\d?[A-Z]+?)(n?\d\w*)$")
_HEAD = re.compile(r"^Cijk_A(?P<a>[ijkl]{3})_B(?P<b>[ijkl]{3})_")
# Our own short form (Cijk_NT_BBS_BH_MT128x64x32_MI32x32x1_ISA90a) decodes to the same kernel.
_SHORT_HEAD = re.compile(r"^Cijk_(?P<layout>[NT]{2})_")
# Problem-type flags between the type letters and the first solution parameter (not decoded further).
_FLAGS = {"Bias", "HA", "HAS", "S", "SAV", "UserArgs", "GG", "SAB", "SCD", "SPA", "SPB", "SPM"}


@lru_cache(maxsize=1)
def tensile_keys() -> dict[str, tuple[str, str]]:
    """abbreviation -> (field name, meaning), from ``data/tensile_keys.tsv``."""
    def check(row: dict[str, str], where: str) -> None:
        if not re.fullmatch(r"\d?[A-Z]+", row["abbrev"]) or not re.fullmatch(r"[a-z][a-z0-9_]*", row["field"]):
            raise InputError(f"{where}: abbrev {row['abbrev']!r} must be capitals, field {row['field']!r} snake_case")

    rows = read_tsv(package_text("tensile_keys.tsv"), "tensile_keys.tsv", ("abbrev", "field", "meaning"), check)
    return {r["abbrev"]: (r["field"], r["meaning"]) for r in rows}


def decode_tensile(name: str, readable: str) -> Decoded | None:
    """Decode a Tensile kernel name, or None when it is not one."""
    full = _HEAD.match(name)
    brief = None if full else _SHORT_HEAD.match(name)
    head = full or brief  # the matched head of either form: the tokens after it are read the same
    if head is None:
        return None
    b = Builder("tensile", name)
    if full:
        # l is the summation (K) index: A indexed (i, l) is M x K as stored -> "N"; (l, i) -> "T".
        layout = ("N" if full["a"].startswith("il") else "T") + ("N" if full["b"].startswith("lj") else "T")
        b.set("layout", layout, start=5, end=full.end("b"), label="A/B index order -> layout (N: not transposed)")
    else:
        layout = head["layout"]
        b.set("layout", layout, start=5, end=7, label="layout (N: not transposed)")
    keys = tensile_keys()
    tokens = name.split("_")
    pos = head.end()
    first = 3 if brief is None else 2
    types: list[str] = []
    flags: list[str] = []
    last: tuple[str, int, int, str] | None = None  # key, start, end, value of the previous token
    in_params = False
    for tok in tokens[first:]:
        start, end = pos, pos + len(tok)
        pos = end + 1
        if last and tok.isdigit() and last[0] in ("MIWT", "WG"):
            # MIWT2_1 / WG64_4_1: the value goes on across "_"; replace the span stored so far.
            last = (last[0], last[1], end, f"{last[3]}_{tok}")
            b.spans.pop()
            _store(b, keys, *last)
            continue
        m = _TOKEN.match(tok)
        if m and m.group(1) in ("MT", "MI") or (m and in_params):
            in_params = True
        if not in_params:
            (flags if (tok in _FLAGS or flags) else types).append(tok)
            continue
        if not m:
            continue
        last = (m.group(1), start, end, m.group(2))
        _store(b, keys, *last)
    if types:
        b.set("types", "_".join(types), start=head.end(), end=head.end() + len("_".join(types)),
              label="data-type letters (A/B, compute, D)")
    if flags:
        b.set("flags", flags)
    mt = b.fields.get("macro_tile")
    nums = ints(mt) if isinstance(mt, str) else None
    if nums and len(nums) == 3:
        b.tile(*nums)
    isa = b.fields.get("isa")
    if isa is not None:
        b.set("arch", f"gfx{isa}")
    short = f"Cijk_{layout}_{'_'.join(types)}_MT{mt}" if mt else name
    if "matrix_instruction" in b.fields:
        short += f"_MI{b.fields['matrix_instruction']}"
    if isa is not None:
        short += f"_ISA{isa}"
    return b.build(short=short)


def _store(b: Builder, keys: dict[str, tuple[str, str]], key: str, start: int, end: int, value: str) -> None:
    known = keys.get(key)
    if known is None:
        return
    field, meaning = known
    v = value.replace("n", "-", 1) if value.startswith("n") else value
    b.set(field, as_int(v) if field not in ("isa", "macro_tile", "matrix_instruction") else v,
          start=start, end=end, label=meaning)
