"""The Source Trace document as data: frames, kernel sites, paths; rendering lives in ``_render``."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

__all__ = ["SourceFrame", "KernelSite", "PathGroup", "SourceTrace"]


@dataclass(frozen=True)
class SourceFrame:
    """One Python frame as the document shows it."""

    display: str
    """Path shown to the reader: package-relative for installed code, root-relative for user code."""
    link: str
    """Link target, relative to the document's folder where the file is under ``--root``."""
    line: int
    function: str
    abs_path: str | None = None
    """The file on this machine, when it could be found (used to check links)."""
    module: str | None = None
    """The ``nn.Module`` class whose call this frame is (from the profiler's module markers)."""

    @property
    def key(self) -> tuple[str, int, str]:
        return (self.display, self.line, self.function)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class KernelSite:
    """One kernel launched by the traced call, with what is known about it."""

    order: int
    """Launch order within one call (0-based)."""
    name: str
    short: str
    family: str
    category: str
    kind: str = "kernel"
    fields: dict[str, Any] = field(default_factory=dict)
    inferred: tuple[str, ...] = ()
    count_per_call: float = 1.0
    us_per_call: float | None = None
    share: float | None = None
    """Of the call's summed device time, 0..1."""
    grid: tuple[int, ...] | None = None
    block: tuple[int, ...] | None = None
    regs: int | None = None
    smem_bytes: int | None = None
    op: str | None = None
    input_dims: tuple | None = None
    input_types: tuple | None = None
    stack: tuple[SourceFrame, ...] = ()
    graph_launched: bool = False
    source: SourceFrame | None = None
    """Where the kernel's code is (a @triton.jit function), when the tool can tell."""
    steps: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["stack"] = [f.to_dict() for f in self.stack]
        d["source"] = self.source.to_dict() if self.source else None
        return d


@dataclass(frozen=True)
class PathGroup:
    """A sub-flow: the kernels whose stacks first differ from the others at the same frame."""

    title: str
    sites: tuple[KernelSite, ...]


@dataclass(frozen=True)
class SourceTrace:
    """How one Python call reaches each of its GPU kernels.

    ``to_markdown(lang="en"|"zh")`` renders the document in the seed's shape.
    """

    subject: str
    sites: tuple[KernelSite, ...]
    paths: tuple[PathGroup, ...]
    device: str | None = None
    backend: str = "cuda"
    inputs: tuple[tuple[str, str], ...] = ()
    """(label, "shape dtype") of the call's inputs, when known."""
    output: str | None = None
    notes: tuple[str, ...] = ()

    @property
    def total_us(self) -> float | None:
        vals = [s.us_per_call * s.count_per_call for s in self.sites if s.us_per_call is not None]
        return sum(vals) if vals else None

    def to_markdown(self, lang: str = "en") -> str:
        """The document as Markdown, in English (``en``) or Chinese (``zh``)."""
        from bench_kernel.source_trace._render import render

        return render(self, lang)

    def to_dict(self) -> dict[str, Any]:
        return {
            "subject": self.subject, "device": self.device, "backend": self.backend,
            "total_us": self.total_us, "inputs": [list(x) for x in self.inputs], "output": self.output,
            "paths": [{"title": p.title, "kernels": [s.order for s in p.sites]} for p in self.paths],
            "kernels": [s.to_dict() for s in self.sites], "notes": list(self.notes),
        }
