"""Short names that tell a table's kernels apart.

A short name is a pure function of one name (``KernelName.short``), so two kernels that differ
only in what shortening leaves out share it: three hipBLASLt solutions in one MI300 trace all
read ``Cijk_TN_BBS_BH_MT256x192x64_MI16x16x1_ISA942``, as do aten kernels that differ in a
functor or a block size. Within one table, names that share a short name get the fields that tell
them apart added in brackets, e.g. ``… [mi_wave_tile=4_12]``:

1. the decoded fields (``KernelName.fields``) that differ among them, as ``field=value``;
2. where those do not separate two names, the words (identifiers, numbers) of the demangled name
   that one has and the other lacks (``[CUDAFunctorOnSelf_add]``);
3. where nothing does (names equal after demangling), ``#1``, ``#2`` in the order of the raw names.

For each name the fewest such fields are chosen, greedily: the one that tells it from the most of
the others first, decoded fields before words. The result depends on the set of names, so a
table that spans two traces (``diff``) is built from the union of both.
"""

from __future__ import annotations

import re
from typing import Iterable

from bench_kernel.kernels._decode import decode, tree_layout

__all__ = ["distinct_shorts"]

# Words split at "_" too: a Tensile name is one identifier of "_"-joined parameters (MIWT8_6_..._WG32_8_1).
# Words are C++ identifiers and numbers; pairs of neighbouring words keep what sits between them
# ("Rmsnorm2dFusedAddEnum)0" tells two ck_tile kernels apart where "0" alone appears everywhere);
# parts split at "_" too, for a Tensile name (one identifier of parameters: ..._MIWT8_6_..._WG32_8_1).
_WORD = re.compile(r"[A-Za-z0-9_]+")
_PART = re.compile(r"[A-Za-z0-9]+")
_LETTER = re.compile(r"[A-Za-z]")


def _features(name: str) -> list[list[str]]:
    """The features that may tell ``name`` apart, by preference: decoded fields (as the name writes
    them where that names the parameter, ``MIWT4_12``, else ``field=value``), words, word pairs, parts."""
    k = decode(name)
    text, spans = tree_layout(k)
    written = {sp.fields[0]: text[sp.start:sp.end] for sp in spans if len(sp.fields) == 1}
    fields = [written[f] if _LETTER.search(written.get(f, "")) else f"{f}={_text(v)}" for f, v in k.fields.items()]
    words = list(_WORD.finditer(k.demangled))
    pairs = [k.demangled[a.start():b.end()].replace(" ", "") for a, b in zip(words, words[1:]) if b.start() - a.end() <= 3]
    return [fields, list(dict.fromkeys(w.group() for w in words)), list(dict.fromkeys(pairs)),
            list(dict.fromkeys(_PART.findall(k.demangled)))]


def _text(value: object) -> str:
    if isinstance(value, (list, tuple)):
        return ",".join(map(str, value))
    return str(value)


def _label(mine: list[list[str]], others: list[list[set[str]]]) -> list[str] | None:
    """The fewest of my features (in order of preference) such that every other name lacks one of
    them, or None when no choice tells me from them all."""
    chosen: list[str] = []
    left = list(range(len(others)))
    for kind, features in enumerate(mine):
        while left:
            best: str | None = None
            told: list[int] = []
            for f in features:
                t = [i for i in left if f not in others[i][kind]]
                if len(t) > len(told):
                    best, told = f, t
            if best is None:
                break
            chosen.append(best)
            left = [i for i in left if i not in told]
    return None if left else chosen


def distinct_shorts(names: Iterable[str]) -> dict[str, str]:
    """Each of ``names`` -> its short name, with the fields that tell it from the others of the set
    that share its short name added as `` [a=1 b=2]`` (see the module doc); every value is unique."""
    unique = list(dict.fromkeys(names))
    by_short: dict[str, list[str]] = {}
    for n in unique:
        by_short.setdefault(decode(n).short, []).append(n)
    out: dict[str, str] = {}
    for short, group in by_short.items():
        if len(group) == 1:
            out[group[0]] = short
            continue
        feats = {n: _features(n) for n in group}
        sets = {n: [set(f) for f in fs] for n, fs in feats.items()}
        labels: dict[str, str] = {}
        for n in group:
            chosen = _label(feats[n], [sets[m] for m in group if m != n])
            labels[n] = " ".join(chosen) if chosen else ""
        clash = [n for n in group if not labels[n] or list(labels.values()).count(labels[n]) > 1]
        for i, n in enumerate(sorted(clash), start=1):
            labels[n] = (labels[n] + " " if labels[n] else "") + f"#{i}"
        for n in group:
            out[n] = f"{short} [{labels[n]}]"
    seen: set[str] = set()
    for n in unique:  # a bracketed short that happens to equal another kernel's plain short
        s, k = out[n], 2
        while s in seen:
            s, k = f"{out[n]} #{k}", k + 1
        out[n] = s
        seen.add(s)
    return out
