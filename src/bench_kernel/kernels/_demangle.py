"""Demangle Itanium C++ names (``_Z…``), never raising.

Order of attempts, each only when the previous one failed:

1. ``cxxfilt`` (libstdc++'s ``__cxa_demangle``).
2. The same with newer builtin-type codes rewritten: ROCm (clang >= 17) mangles ``__bf16`` as
   ``DF16b`` and ``_Float16`` as ``DF16_``, which libstdc++ before GCC 13 rejects. They are
   builtin types, so they are not substitution candidates, and swapping each for another
   non-substitutable builtin (``Dd``/``Df``) keeps every ``S<n>_`` back-reference valid.
3. ``c++filt --no-recurse-limit`` when binutils is installed, for names of 512 characters or more:
   ``__cxa_demangle`` gives up on the deeply nested CK convolution templates (libiberty's recursion
   limit), c++filt can lift it. One process per such name, at most 2 s.
4. The qualified name read from the mangled prefix (``_ZN2ck…6device…kernel_…I…`` ->
   ``ck::…::kernel_…<…>``), so tables still show a readable name; ``demangled`` keeps the raw
   name and a note says what happened.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from dataclasses import dataclass
from functools import lru_cache

__all__ = ["Demangled", "demangle"]

# Builtin-type rewrites for old demanglers: mangled code -> (stand-in code, what the stand-in
# prints, what to print instead). decimal32/64 never occur in GPU kernels, so the swap back is safe.
_NEW_BUILTINS = (("DF16b", "Dd", "decimal64", "std::bfloat16_t"), ("DF16_", "Df", "decimal32", "_Float16"))
#: Only names of this many characters or more go to c++filt: the nesting that defeats
#: ``__cxa_demangle`` comes with long names (the 11 real names c++filt rescues are 1,269-2,004
#: characters), and a process per short malformed name would make a crafted trace slow to read.
_MIN_EXTERNAL_CHARS = 512
#: names longer than this are not handed to an external process.
_MAX_EXTERNAL_CHARS = 1 << 16
_SOURCE_NAME = re.compile(r"(\d{1,9})")  # an identifier length; more digits is not a name


@dataclass(frozen=True)
class Demangled:
    """The result of demangling one name."""

    #: the demangled name, or the raw name when every demangler failed.
    text: str
    #: the most readable form for shortening and family detection (``text``, or the prefix parse).
    readable: str
    notes: tuple[str, ...] = ()


def _cxxfilt(name: str) -> str | None:
    try:
        import cxxfilt
    except ImportError:
        return None
    try:
        return cxxfilt.demangle(name)
    except Exception:  # noqa: BLE001 - InvalidName, InternalError, LibraryNotFound: all mean "no"
        return None


@lru_cache(maxsize=1)
def _cxxfilt_available() -> bool:
    try:
        import cxxfilt
    except ImportError:
        return False
    return not isinstance(cxxfilt.default_demangler, cxxfilt.DeferedErrorDemangler)


@lru_cache(maxsize=1)
def _external_tool() -> str | None:
    return shutil.which("c++filt")


def _external(name: str) -> str | None:
    tool = _external_tool()
    if tool is None or not _MIN_EXTERNAL_CHARS <= len(name) <= _MAX_EXTERNAL_CHARS or "\n" in name:
        return None
    try:
        out = subprocess.run([tool, "--no-recurse-limit", name], capture_output=True, text=True,
                             timeout=2, check=False).stdout.strip()
    except (OSError, subprocess.SubprocessError, ValueError):
        return None
    return out if out and out != name else None


def _prefix(name: str) -> str | None:
    """Read ``a::b::c`` from ``_ZN1a1b1cI…`` (or ``_Z1cI…``); ``<…>`` marks template arguments."""
    i = 2
    nested = name.startswith("_ZN")
    if nested:
        i = 3
        while i < len(name) and name[i] in "rVKLO":  # cv/ref qualifiers of member functions
            i += 1
    parts: list[str] = []
    if name.startswith("St", i):
        parts.append("std")
        i += 2
    while i < len(name):
        m = _SOURCE_NAME.match(name, i)
        if not m:
            break
        length = int(m.group(1))
        start = m.end()
        ident = name[start:start + length]
        if length == 0 or len(ident) < length:
            break
        parts.append("(anonymous namespace)" if ident.startswith("_GLOBAL__N") else ident)
        i = start + length
        if not nested:
            break
    if not parts:
        return None
    text = "::".join(parts)
    if name.startswith("I", i):
        text += "<…>"
    return text


@lru_cache(maxsize=65536)
def demangle(name: str) -> Demangled:
    """Demangle ``name`` if it is an Itanium-mangled symbol; otherwise return it unchanged."""
    raw = name.strip()
    if not raw.startswith("_Z"):
        return Demangled(name, name)
    # AMD code objects name the kernel descriptor symbol "<kernel>.kd"; the kernel is the part before.
    symbol = raw[:-3] if raw.endswith(".kd") else raw
    text = _cxxfilt(symbol)
    if text is None and any(code in symbol for code, *_ in _NEW_BUILTINS):
        patched = symbol
        for code, stand_in, _, _ in _NEW_BUILTINS:
            patched = patched.replace(code, stand_in)
        text = _cxxfilt(patched)
        if text is not None:
            for _, _, printed, real in _NEW_BUILTINS:
                text = text.replace(printed, real)
    if text is None:
        text = _external(symbol)
    if text is not None:
        return Demangled(text, text)
    why = ("the cxxfilt package is unavailable" if not _cxxfilt_available()
           else "no installed demangler accepts this name")
    prefix = _prefix(symbol)
    if prefix is None:
        return Demangled(name, name, (f"not demangled: {why}; kept the raw name",))
    return Demangled(name, prefix, (f"not demangled: {why}; kept the raw name and read "
                                    f"'{prefix}' from its mangled prefix",))
