"""The decode pipeline: demangle -> family decoder -> short name -> category."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any, Callable, Iterable

from bench_kernel.kernels._aiter import decode_aiter
from bench_kernel.kernels._aten import decode_aten
from bench_kernel.kernels._attention import decode_cudnn, decode_flash_attn, decode_flashinfer
from bench_kernel.kernels._ck import decode_ck
from bench_kernel.kernels._classify import Rules, default_rules, load_rules
from bench_kernel.kernels._cublas import decode_cublas
from bench_kernel.kernels._cutlass import decode_cutlass
from bench_kernel.kernels._cxx import parse_function, split_component, split_scope
from bench_kernel.kernels._demangle import Demangled, demangle
from bench_kernel.kernels._model import Decoded, KernelName, Span
from bench_kernel.kernels._nccl import decode_nccl
from bench_kernel.kernels._shorten import MAX_SHORT, fit, shorten_cxx
from bench_kernel.kernels._tensile import decode_tensile
from bench_kernel.kernels._triton import decode_inductor, decode_triton
from bench_kernel.records import DecodeOutput

__all__ = ["decode", "decode_document", "tree_layout", "DECODERS", "MAX_NAME_CHARS"]

#: Family decoders in the order they are tried. Order matters where names nest: FlashAttention
#: kernels carry cutlass types, cuDNN ships CUTLASS kernels, and ``triton`` (names that merely
#: look like Python functions) must come after every family with a real marker.
DECODERS: tuple[tuple[str, Callable[[str, str], Decoded | None]], ...] = (
    ("nccl", decode_nccl),
    ("ck", decode_ck),
    ("tensile", decode_tensile),
    ("inductor", decode_inductor),
    ("flash_attn", decode_flash_attn),
    ("flashinfer", decode_flashinfer),
    ("cutlass", decode_cutlass),
    ("cublas", decode_cublas),
    ("cudnn", decode_cudnn),
    ("aiter", decode_aiter),
    ("aten", decode_aten),
    ("triton", decode_triton),
)

#: Names longer than this many characters are decoded from their first MAX_NAME_CHARS only (a note
#: says so). The longest of 609 real names (../shared/data) is 5,160 characters; with every pattern
#: linear in the text, the cap bounds the cost of one decode (a crafted 20 K name once took
#: minutes). A demangled text is cut at the same multiple of it, so demangling cannot blow it up.
MAX_NAME_CHARS = 8_192
_MAX_READABLE = 4 * MAX_NAME_CHARS


def _base_kernel(readable: str) -> str:
    if "<" not in readable and "(" not in readable and "::" not in readable:
        return readable.strip()
    fn = parse_function(readable)
    parts = [p for p in split_scope(fn.qualified) if p]
    return split_component(parts[-1])[0] if parts else readable


@lru_cache(maxsize=1 << 16)
def _parts(name: str) -> tuple[str, str, Decoded, str, tuple[str, ...]]:
    """(demangled, readable, decoded, short, notes) of ``name``; independent of the rules."""
    text = name if len(name) <= MAX_NAME_CHARS else name[:MAX_NAME_CHARS]
    notes: list[str] = []
    if len(name) > MAX_NAME_CHARS:
        notes.append(f"name is {len(name):,} characters; decoded from its first {MAX_NAME_CHARS:,} "
                     "(bench_kernel.kernels.MAX_NAME_CHARS)")
    if "\x00" in text:
        text = text.replace("\x00", "")
        notes.append("NUL characters removed before decoding")
    dm = demangle(text)
    notes.extend(dm.notes)
    if len(dm.readable) > _MAX_READABLE:
        notes.append(f"demangled name is {len(dm.readable):,} characters; decoded from its first {_MAX_READABLE:,}")
        dm = Demangled(dm.text, dm.readable[:_MAX_READABLE], dm.notes)
    decoded = None
    for _, decoder in DECODERS:
        try:
            decoded = decoder(text, dm.readable)
        except (ValueError, IndexError, KeyError, RecursionError):
            # A decoder that trips over a malformed name must not sink the others: the name is
            # still shortened and classified generically.
            decoded = None
        if decoded is not None:
            break
    if decoded is None:
        decoded = Decoded("other")
    short = decoded.short if decoded.short else shorten_cxx(dm.readable, MAX_SHORT)
    notes.extend(decoded.notes)
    if decoded.inferred:
        notes.append("fields inferred from observed names (no published grammar): " + ", ".join(decoded.inferred))
    return dm.text, dm.readable, decoded, fit(short, MAX_SHORT), tuple(notes)


def _build(name: str, rules: Rules) -> KernelName:
    demangled, readable, d, short, notes = _parts(name)
    subjects: dict[str, Any] = dict(d.fields)
    subjects["name"] = readable
    subjects["short"] = short
    subjects.setdefault("kernel", _base_kernel(readable))
    category, rule = rules.classify(d.family, subjects)
    return KernelName(name=name, demangled=demangled, family=d.family, short=short, category=category,
                      fields=d.fields, notes=notes, inferred=d.inferred, rule=rule)


@lru_cache(maxsize=1 << 16)
def _decode_default(name: str) -> KernelName:
    return _build(name, default_rules())


@lru_cache(maxsize=64)
def _rules_from_path(path: str, mtime_ns: int) -> Rules:
    return load_rules(path)


def _as_rules(rules: Rules | str | Path) -> Rules:
    if isinstance(rules, Rules):
        return rules
    p = Path(rules)
    try:
        mtime = p.stat().st_mtime_ns
    except OSError:
        mtime = -1  # load_rules raises the clear error
    return _rules_from_path(str(p), mtime)


def decode(name: str, rules: Rules | str | Path | None = None) -> KernelName:
    """Decode one kernel name as a profiler shows it (mangled or not). Cached, never raises on a name.

    ``rules`` replaces the category rules: a :class:`Rules` (see :func:`load_rules`) or the path
    of a rules file whose rules are tried before the built-in ones.
    """
    if not isinstance(name, str):
        raise TypeError(f"decode(name): name must be a str, got {type(name).__name__}")
    if rules is None:
        return _decode_default(name)
    r = _as_rules(rules)
    cache = r._cache
    hit = cache.get(name)
    if hit is None:
        if len(cache) >= (1 << 16):
            cache.clear()
        hit = cache[name] = _build(name, r)
    return hit


def decode_document(names: Iterable[str], rules: Rules | str | Path | None = None) -> DecodeOutput:
    """What ``decode --json`` prints: each of ``names`` decoded (:func:`decode`), in order."""
    return DecodeOutput(kernels=tuple(decode(n, rules) for n in names))


def tree_layout(kn: KernelName) -> tuple[str, tuple[Span, ...]]:
    """The text ``--tree`` draws ``kn`` under (its raw name or demangled template) and the positional
    fields in it. Not part of the record: offsets into a drawing are no JSON a reader wants, and
    they depend on the name alone, so they are read back from the decode cache."""
    d = _parts(kn.name)[2]
    return d.tree_text, d.spans
