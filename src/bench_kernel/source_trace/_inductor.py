"""Inductor-generated Triton kernels (``triton_poi_…``, ``triton_red_…``): the generated file and what
Inductor recorded about it.

The launch's stack holds the compiled graph's wrapper (``/tmp/torchinductor_<user>/xx/c<hash>.py``,
its ``call`` function). Inductor writes, above each kernel it defines there (torch
``_inductor/codegen/triton.py``, ``define_kernel``; ``utils.get_kernel_metadata``)::

    # kernel path: /tmp/torchinductor_root/ab/cab….py
    # Topologically Sorted Source Nodes: [silu, mul], Original ATen: [aten.silu, aten.mul]
    # Source node to ATen node mapping:
    #   mul => mul_1
    triton_poi_fused_mul_silu_0 = async_compile.triton('triton_poi_fused_mul_silu_0', '''
    …the kernel's source…
    ''', device_str='cuda')

The kernel path is the cached kernel file; when it has been cleaned away, the same source is in the
wrapper itself, between the quotes. With ``torch._inductor.config.comment_origin`` the source also
carries the original Python lines (``# File: model.py:12 in forward, code: …``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

__all__ = ["InductorKernel", "find_inductor_kernel", "is_inductor_wrapper"]

_DEFINE = re.compile(r"^(?P<var>\w+) = async_compile\.triton\(")
_KERNEL_PATH = re.compile(r"^#\s*kernel path:\s*(?P<path>\S+)")
_ORIGIN = re.compile(r"^#\s*(?:Topologically Sorted |Unsorted )?(?P<what>Source Nodes: .*)$")
_PY_LINE = re.compile(r"#\s*(?P<line>File: .+?, code: .*)$")


@dataclass(frozen=True)
class InductorKernel:
    """Where one generated kernel's source is, and what Inductor recorded about it."""

    file: str
    """The cached kernel file when it is on disk, else the wrapper that embeds the source."""
    line: int
    """1-based line of ``def <kernel>(`` in ``file``."""
    origins: tuple[str, ...]
    """``Source Nodes: [...], Original ATen: [...]`` and any ``File: …, code: …`` lines."""


def is_inductor_wrapper(path: str) -> bool:
    """A file Inductor generated (its cache folder is ``torchinductor_<user>`` by default)."""
    return "torchinductor" in path.replace("\\", "/")


def _def_line(lines: list[str], start: int, name: str) -> int | None:
    """Index of the ``def`` of the kernel after ``start``: ``def name(`` or Inductor's ``def triton_(``."""
    for i in range(start, len(lines)):
        s = lines[i].lstrip()
        if s.startswith(f"def {name}(") or s.startswith("def triton_("):
            return i
        if s.startswith("''', device_str"):
            return None
    return None


def _from_wrapper(wrapper: Path, name: str) -> InductorKernel | None:
    try:
        lines = wrapper.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return None
    for i, text in enumerate(lines):
        m = _DEFINE.match(text)
        if not m or m.group("var") != name:
            continue
        kernel_path: str | None = None
        origins: list[str] = []
        j = i - 1
        while j >= 0 and lines[j].startswith("#"):
            if (k := _KERNEL_PATH.match(lines[j])) is not None:
                kernel_path = k.group("path")
            elif (o := _ORIGIN.match(lines[j])) is not None:
                origins.insert(0, o.group("what"))
            j -= 1
        d = _def_line(lines, i + 1, name)
        end = next((k for k in range(i + 1, len(lines)) if lines[k].lstrip().startswith("''', device_str")), len(lines))
        origins += [m2.group("line") for ln in lines[i + 1:end] if (m2 := _PY_LINE.search(ln))]
        if kernel_path and Path(kernel_path).is_file():
            found = _in_kernel_file(Path(kernel_path), name)
            if found is not None:
                return InductorKernel(str(Path(kernel_path).resolve()), found, tuple(origins))
        if d is not None:
            return InductorKernel(str(wrapper.resolve()), d + 1, tuple(origins))
    return None


def _in_kernel_file(path: Path, name: str) -> int | None:
    try:
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return None
    d = _def_line(lines, 0, name)
    return None if d is None else d + 1


def find_inductor_kernel(name: str, stack_files: Iterable[str | None]) -> InductorKernel | None:
    """The generated source of kernel ``name``, found through the Inductor wrappers in its stack."""
    seen = set()
    for f in stack_files:
        if not f or f in seen or not is_inductor_wrapper(f):
            continue
        seen.add(f)
        found = _from_wrapper(Path(f), name)
        if found is not None:
            return found
    return None
