"""Down to the kernel's own source: which file holds the code of each kernel, by kind.

- Triton: the ``@triton.jit`` function (on disk beside the frames that launched it, or loaded).
- Inductor: the generated kernel file (``_inductor``), with what Inductor recorded for it.
- ATen: the PyTorch file that defines the kernel's template and its functor (``data/aten_sources.tsv``),
  at the installed torch's tag; a name no row covers says "source not mapped", never a guess.
- Libraries and extensions: the shared object under the installed package that holds the kernel and,
  when the package ships its sources, the file defining the kernel symbol; closed-source libraries
  (``data/library_sources.tsv``) say so.
"""

from __future__ import annotations

import functools
import mmap
import re
from dataclasses import dataclass, field
from pathlib import Path

from bench_kernel.datafile import read_package_tsv
from bench_kernel.errors import InputError
from bench_kernel.kernels import demangle
from bench_kernel.records import KernelSite, KernelSource, LinkRole, SourceKind, SourceLink
from bench_kernel.source_trace._inductor import find_inductor_kernel
from bench_kernel.source_trace._links import github_blob, torch_tag
from bench_kernel.source_trace._triton import find_jit_source, outline
from bench_kernel.trace import KernelRecord

__all__ = ["SourceContext", "kernel_source", "aten_rows", "aten_source", "find_library"]

_ROLES: tuple[LinkRole, ...] = ("kernel", "functor")
#: Files searched per installed package for a kernel's .so and its source (a package is small; a
#: bound keeps a huge one from stalling the document).
_MAX_FILES = 4000
_SRC_SUFFIXES = (".cu", ".cuh", ".cpp", ".cc", ".hpp", ".h", ".hip")


@dataclass(frozen=True)
class SourceContext:
    root: Path
    doc_dir: Path
    live: bool = False
    link_style: str = "path"
    torch_ref: str | None = None
    """The tag ATen links point at; None: the installed torch's, else ``main``."""
    listings: dict[tuple[Path, tuple[str, ...]], list[Path]] = field(default_factory=dict, compare=False, repr=False)
    """The files of each package folder searched while this document is built: every library kernel of
    one package lists the same folder (transformers: 0.1 s a listing, once per kernel before)."""


@functools.lru_cache(maxsize=1)
def aten_rows() -> tuple[tuple[re.Pattern[str], str, str, str], ...]:
    """(identifier regex, symbol, role, file) per row of ``data/aten_sources.tsv``, in order."""
    def check(row: dict[str, str], where: str) -> None:
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", row["symbol"]) or row["role"] not in _ROLES \
                or not row["file"].startswith("aten/src/ATen/"):
            raise InputError(f"{where}: expected an identifier, a role in {_ROLES} and an aten/src/ATen/ path, got {row!r}")

    rows = read_package_tsv("bench_kernel.source_trace", "aten_sources.tsv", ("symbol", "role", "file"), check)
    return tuple((re.compile(rf"(?<![A-Za-z0-9_]){r['symbol']}(?![A-Za-z0-9_])"), r["symbol"], r["role"], r["file"])
                 for r in rows)


def aten_source(name: str) -> dict[str, tuple[str, str]]:
    """role -> (symbol, file) for the rows that name an identifier of the (demangled) kernel name."""
    text = demangle(name).readable
    found: dict[str, tuple[str, str]] = {}
    for rx, symbol, role, file in aten_rows():
        if role not in found and rx.search(text):
            found[role] = (symbol, file)
    return found


@functools.lru_cache(maxsize=1)
def _libraries() -> dict[str, dict[str, str]]:
    def check(row: dict[str, str], where: str) -> None:
        if row["source"] not in ("open", "closed"):
            raise InputError(f"{where}: source must be open or closed, got {row['source']!r}")

    rows = read_package_tsv("bench_kernel.source_trace", "library_sources.tsv",
                            ("family", "library", "source", "url"), check)
    return {r["family"]: r for r in rows}


def _identifier(name: str) -> str | None:
    """The kernel function's own name: ``fmha_fwd`` in ``void ck::fmha_fwd<...>(...)``."""
    text = demangle(name).readable
    text = re.sub(r"^void\s+", "", text.strip())
    depth, cut = 0, len(text)
    for i, ch in enumerate(text):  # the name ends at the first top-level '<' or '('
        if ch in "<(" and depth == 0:
            cut = i
            break
    head = text[:cut].split("::")[-1].strip()
    return head if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]{2,}", head) else None


def _package_dir(site: KernelSite) -> Path | None:
    """The installed package whose Python code launched the kernel (its innermost installed frame),
    or the package named by the op's namespace (``aiter::gemm`` -> ``aiter``)."""
    for f in reversed(site.stack):
        if f.abs_path and ("site-packages" in f.abs_path or "dist-packages" in f.abs_path):
            top = f.display.split("/", 1)[0]
            if top not in ("torch", "triton"):
                base = Path(f.abs_path).resolve()
                parts = Path(f.display).parts
                return base.parents[len(parts) - 2] if len(parts) > 1 else base.parent
    if site.op and "::" in site.op and not site.op.startswith("aten::"):
        import importlib.util

        try:
            spec = importlib.util.find_spec(site.op.split("::", 1)[0])
        except (ImportError, ValueError):
            spec = None
        if spec is not None and spec.submodule_search_locations:
            return Path(list(spec.submodule_search_locations)[0])
    return None


def _files(folder: Path, suffixes: tuple[str, ...],
           listings: dict[tuple[Path, tuple[str, ...]], list[Path]] | None = None) -> list[Path]:
    if listings is not None:
        if (folder, suffixes) not in listings:
            listings[folder, suffixes] = _files(folder, suffixes)
        return listings[folder, suffixes]
    out: list[Path] = []
    _walk(folder, suffixes, out)
    return out


def _walk(folder: Path, suffixes: tuple[str, ...], out: list[Path]) -> None:
    """Files under ``folder`` with one of ``suffixes`` (``.so`` also as ``x.so.1``), in the order of
    ``sorted(folder.rglob("*"))`` (each folder's entries by name, a subfolder's files in its place),
    up to ``_MAX_FILES``. Symlinked folders are not entered, as ``rglob`` does not. One ``scandir``
    per folder, and its entries' types, cost no ``stat`` per file: listing, sorting and checking
    every path of a package the size of torch took ~0.4 s, and every document repeats it."""
    import os

    try:
        with os.scandir(folder) as it:
            entries = sorted(it, key=lambda e: e.name)
    except OSError:
        return
    for e in entries:
        if len(out) >= _MAX_FILES:
            return
        try:
            if e.is_dir(follow_symlinks=False):
                _walk(Path(e.path), suffixes, out)
                continue
            name = e.name
            dot = name.rfind(".")
            suffix = name[dot:] if 0 < dot < len(name) - 1 else ""
            if (suffix in suffixes or (".so" in suffixes and ".so" in name)) and e.is_file():
                out.append(Path(e.path))
        except OSError:
            continue


def find_library(folder: Path, ident: str, listings: dict[tuple[Path, tuple[str, ...]], list[Path]] | None = None,
                 ) -> tuple[Path | None, tuple[Path, int] | None]:
    """The shared object under ``folder`` whose bytes name ``ident``, and the source file and line
    that define it (``__global__ … ident``, ``struct ident``, ``void ident(``), when shipped.
    ``listings``: the folders' files already listed (``SourceContext.listings``), filled as they are."""
    needle = ident.encode()
    so = None
    for p in _files(folder, (".so",), listings):
        try:
            with p.open("rb") as fh, mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as mm:
                if mm.find(needle) >= 0:
                    so = p
                    break
        except (OSError, ValueError):
            continue
    rx = re.compile(rf"(__global__[^;{{]*\b{re.escape(ident)}\b|\b(?:struct|class)\s+{re.escape(ident)}\b"
                    rf"|\bvoid\s+{re.escape(ident)}\s*\()")
    for p in _files(folder, _SRC_SUFFIXES, listings):
        try:
            text = p.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        if ident not in text:
            continue
        for i, line in enumerate(text.splitlines(), start=1):
            if rx.search(line):
                return so, (p, i)
    return so, None


def _local(path: Path, line: int | None, role: LinkRole, symbol: str | None, ctx: SourceContext) -> SourceLink:
    from bench_kernel.source_trace._frames import display_path, local_link

    disp = display_path(str(path), str(path), ctx.root)
    return SourceLink(role, disp, local_link(str(path), disp, ctx.root, ctx.doc_dir), symbol, line, str(path))


def kernel_source(site: KernelSite, record: KernelRecord, ctx: SourceContext) -> KernelSource | None:
    """Where ``site``'s kernel code is (see the module docstring); None for memory copies and the like."""
    files = [f.abs_path or f.display for f in site.stack][::-1]
    if site.family == "inductor" or site.name.startswith(("triton_poi_", "triton_red_", "triton_per_", "triton_tem_")):
        found = find_inductor_kernel(site.name, [f for f in files if f and f.startswith("/")])
        if found is not None:
            return KernelSource("inductor", (_local(Path(found.file), found.line, "kernel", site.name, ctx),),
                                steps=outline(found.file, found.line), origins=found.origins)
    if site.family in ("triton", "inductor"):
        jit = find_jit_source(site.name, files, live=ctx.live)
        if jit is None:
            kind: SourceKind = "triton" if site.family == "triton" else "inductor"
            return KernelSource(kind, note="source not found: the @triton.jit file is not on this machine")
        return KernelSource("triton", (_local(Path(jit[0]), jit[1], "kernel", site.name, ctx),),
                            steps=outline(*jit))
    if site.family == "aten":
        ref = ctx.torch_ref or torch_tag() or "main"
        aten = aten_source(site.name)
        if not aten:
            return KernelSource("aten", note="source not mapped", ref=ref)
        return KernelSource("aten", tuple(SourceLink(role, file, github_blob("pytorch/pytorch", ref, file), symbol)
                                          for role in _ROLES if role in aten for symbol, file in [aten[role]]), ref=ref)
    lib = _libraries().get(site.family)
    links: list[SourceLink] = []
    folder = _package_dir(site)
    ident = _identifier(site.name)
    if folder is not None and ident:
        so, src = find_library(folder, ident, ctx.listings)
        if so is not None:
            links.append(_local(so, None, "library", ident, ctx))
        if src is not None:
            links.append(_local(src[0], src[1], "kernel", ident, ctx))
    if lib is None and not links:
        return KernelSource("library", note="source not mapped") if site.op and "::" in site.op else None
    note = None
    if lib is not None and lib["source"] == "closed":
        note = f"closed source ({lib['library']}): no source file to link"
    elif lib is not None and not any(x.role == "kernel" for x in links):
        note = f"{lib['library']}: sources at {lib['url']}" if lib["url"] != "-" else lib["library"]
    return KernelSource("library", tuple(links), note=note)
