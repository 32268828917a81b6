"""Python frames for the document: which to drop, how to show their paths, where links point.

Kineto records a frame as ``file.py(line): function`` with the file already relative to the
``sys.path`` entry it was imported from (``torch/nn/functional.py``), or absolute.
"""

from __future__ import annotations

import functools
import os
import re
import sys
from pathlib import Path
from typing import Iterable, Sequence

from bench_kernel.datafile import read_package_tsv
from bench_kernel.errors import InputError
from bench_kernel.records import SourceFrame
from bench_kernel.source_trace._links import package_url
from bench_kernel.trace import MODULE_PREFIX, Frame

__all__ = ["FrameRules", "plumbing_rules", "to_source_frames", "resolve_file", "display_path", "local_link"]

_SITE_DIRS = ("site-packages", "dist-packages")
#: Frames inside these are the measuring machinery, never the user's path.
_TOOL_PARTS = ("bench_kernel/", "torch/profiler/", "torch/autograd/profiler")


class FrameRules:
    """(file suffix, function or "*") pairs of frames to drop."""

    def __init__(self, rows: Iterable[tuple[str, str]]) -> None:
        self.rows = [(f, fn) for f, fn in rows]

    def drops(self, file: str, function: str) -> bool:
        f = file.replace("\\", "/")
        return any(f.endswith(suffix) and (fn == "*" or fn == function) for suffix, fn in self.rows)


@functools.lru_cache(maxsize=1)
def plumbing_rules() -> FrameRules:
    """The rules in ``data/plumbing_frames.tsv``, validated: two non-empty columns per row."""
    def check(row: dict[str, str], where: str) -> None:
        if not row["file"] or not row["function"]:
            raise InputError(f"{where}: expected 'file<TAB>function', both non-empty, got {row!r}")

    rows = read_package_tsv("bench_kernel.source_trace", "plumbing_frames.tsv", ("file", "function"), check)
    return FrameRules((r["file"], r["function"]) for r in rows)


def _is_tool(file: str) -> bool:
    f = file.replace("\\", "/")
    return any(part in f for part in _TOOL_PARTS)


@functools.lru_cache(maxsize=4096)
def resolve_file(file: str, root: str) -> str | None:
    """The absolute path of a recorded frame file on this machine, or None."""
    p = Path(file)
    if p.is_absolute():
        return str(p) if p.is_file() else None
    for base in [root, *sys.path]:
        if not base:
            continue
        cand = Path(base) / file
        if cand.is_file():
            return str(cand.resolve())
    return None


def _in_site_packages(abs_path: str) -> str | None:
    parts = Path(abs_path).parts
    for marker in _SITE_DIRS:
        if marker in parts:
            return Path(*parts[len(parts) - parts[::-1].index(marker):]).as_posix()
    return None


def display_path(file: str, abs_path: str | None, root: Path) -> str:
    """Package-relative for installed code (even in a venv under ``root``), root-relative for
    user code, else as recorded."""
    f = file.replace("\\", "/")
    if abs_path:
        installed = _in_site_packages(abs_path)
        if installed:
            return installed
        try:
            return Path(abs_path).resolve().relative_to(root.resolve()).as_posix()
        except ValueError:
            pass
    for marker in _SITE_DIRS:
        if f"/{marker}/" in f:
            return f.split(f"/{marker}/", 1)[1]
    return f


def local_link(abs_path: str | None, display: str, root: Path, doc_dir: Path) -> str:
    """The link target of a file: relative to the document's folder for files under ``root`` (user
    code), else the display path (installed code, files elsewhere)."""
    if abs_path and _in_site_packages(abs_path) is None:
        try:
            Path(abs_path).resolve().relative_to(root.resolve())
            return Path(os.path.relpath(abs_path, doc_dir)).as_posix()
        except ValueError:
            pass
    return display


def to_source_frames(frames: Sequence[Frame], *, root: Path, doc_dir: Path, keep_all: bool = False,
                     rules: FrameRules | None = None) -> tuple[SourceFrame, ...]:
    """The trace's frames (outermost first) as the document shows them.

    Drops frames without a file (built-ins, ``nn.Module`` markers), the profiler's and this
    tool's own frames and everything outside them (the harness), and -- unless ``keep_all`` --
    the plumbing frames of ``data/plumbing_frames.tsv``.
    """
    rules = rules or plumbing_rules()
    # "nn.Module: LlamaAttention_0" markers (no file) name the module whose forward comes next.
    modules: dict[int, str] = {}
    kept: list[tuple[str, int, str]] = []  # (file, line, function) of the frames with a file and a line
    pending = None
    for f in frames:
        fn = f.function or ""
        if not f.file and fn.startswith(MODULE_PREFIX):
            pending = re.sub(r"_\d+$", "", fn[len(MODULE_PREFIX):].strip())
        elif f.file and f.line and not f.file.startswith("<"):
            # "<string>" and "<frozen ...>" frames (Triton's generated launcher, exec'd code)
            # have no file to link to.
            if pending and not (not keep_all and rules.drops(f.file, f.function)):
                modules[len(kept)] = pending
                pending = None
            kept.append((f.file, f.line, f.function))
    # Everything up to the last tool frame is the harness that called the user's code.
    last_tool = max((i for i, (file, _, _) in enumerate(kept) if _is_tool(file)), default=-1)
    out = []
    for i, (file, line, function) in enumerate(kept):
        if i <= last_tool or _is_tool(file) or (not keep_all and rules.drops(file, function)):
            continue
        abs_path = resolve_file(file, str(root))
        disp = display_path(file, abs_path, root)
        link = local_link(abs_path, disp, root, doc_dir)
        url = package_url(disp, int(line)) if link == disp else None
        out.append(SourceFrame(disp, link, int(line), function, abs_path, modules.get(i), url))
    return tuple(out)
