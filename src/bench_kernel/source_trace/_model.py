"""The Source Trace document as data: frames, kernel sites, sources, paths, module structure.

Rendering lives in ``_render``; times are microseconds; "per call" means per call of the traced
callable (or per step of a recorded trace).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from bench_kernel.source_trace._render import render

__all__ = ["SourceFrame", "SourceLink", "KernelSource", "KernelSite", "PathGroup", "ModuleNode", "Overview",
           "SourceTrace"]


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
    url: str | None = None
    """The same line on GitHub (``#L<line>``), when the file's repository is known."""

    @property
    def key(self) -> tuple[str, int, str]:
        return (self.display, self.line, self.function)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class SourceLink:
    """A file that holds (part of) a kernel's code: shown as ``display``, linked to ``link``."""

    role: str
    """``kernel`` (the __global__ template or @triton.jit function), ``functor`` (the op's code the
    template instantiates), ``library`` (the shared object holding the kernel), ``binding``."""
    display: str
    link: str | None
    """A path (``path:line``) or URL; None when the file exists only as a name."""
    symbol: str | None = None
    line: int | None = None
    abs_path: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class KernelSource:
    """Where a kernel's own code is, as far down as the tool can tell."""

    kind: str
    """``triton`` | ``inductor`` | ``aten`` | ``library`` | ``unknown``."""
    links: tuple[SourceLink, ...] = ()
    steps: tuple[str, ...] = ()
    """The outline of a Triton function: loads, math, dots, stores."""
    origins: tuple[str, ...] = ()
    """Inductor: the source nodes and original ATen ops (and Python lines) recorded for the kernel."""
    note: str | None = None
    """Why no file is linked ("source not mapped", "closed source (NVIDIA cuBLAS)", ...)."""
    ref: str | None = None
    """The version the links point at (``v2.13.0``)."""

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "links": [x.to_dict() for x in self.links], "steps": list(self.steps),
                "origins": list(self.origins), "note": self.note, "ref": self.ref}


@dataclass(frozen=True)
class KernelSite:
    """One distinct (kernel, call site): the same kernel launched from the same Python stack."""

    order: int
    """Position of its first launch within a call (0-based): the document's launch order."""
    name: str
    short: str
    family: str
    category: str
    fields: dict[str, Any] = field(default_factory=dict)
    inferred: tuple[str, ...] = ()
    launches_per_call: float = 1.0
    us_per_launch: float | None = None
    """Mean device time of one launch."""
    share: float | None = None
    """Of the documented device time per call, 0..1."""
    grid: tuple[int, ...] | None = None
    block: tuple[int, ...] | None = None
    regs: int | None = None
    smem_bytes: int | None = None
    op: str | None = None
    input_dims: tuple | None = None
    input_types: tuple | None = None
    stack: tuple[SourceFrame, ...] = ()
    graph_launched: bool = False
    module_type: str = "other"
    """attention | moe | mlp | norm | embedding | position | activation | other (``data/module_types.tsv``)."""
    module_path: tuple[str, ...] = ()
    """Classes of the ``nn.Module`` calls around the launch, outermost first."""
    source: KernelSource | None = None

    @property
    def us_per_call(self) -> float | None:
        return None if self.us_per_launch is None else self.us_per_launch * self.launches_per_call

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["stack"] = [f.to_dict() for f in self.stack]
        d["source"] = self.source.to_dict() if self.source else None
        d["us_per_call"] = self.us_per_call
        return d


@dataclass(frozen=True)
class PathGroup:
    """A sub-flow: the kernels whose stacks first differ from the others at the same frame."""

    title: str
    sites: tuple[KernelSite, ...]


@dataclass(frozen=True)
class ModuleNode:
    """One ``nn.Module`` call site: every instance called from the same line (decoder layers, experts)."""

    cls: str
    depth: int
    forward: SourceFrame | None
    """The module's ``forward`` (the first frame after its profiler marker)."""
    per_parent: tuple[int, int]
    """(min, max) instances per instance of the parent: ``× N`` when both are N > 1."""
    instances_per_call: float
    kernels_per_instance: float
    us_per_instance: tuple[float, float, float]
    """min, median, max device time of one instance (its whole subtree)."""
    kernels_per_call: float
    us_per_call: float
    module_type: str
    first_order: int
    """Launch order of its first kernel: siblings are listed in this order."""
    shapes: str = ""
    """Input shapes of its first kernel's op (for the module flow's arrows)."""
    children: tuple["ModuleNode", ...] = ()

    @property
    def repeated(self) -> bool:
        return self.per_parent[1] > 1

    def to_dict(self) -> dict[str, Any]:
        d = {k: v for k, v in asdict(self).items() if k != "children"}
        d["forward"] = self.forward.to_dict() if self.forward else None
        d["children"] = [c.to_dict() for c in self.children]
        return d


@dataclass(frozen=True)
class Overview:
    """The numbers of the Overview table."""

    kernels_per_call: float
    device_us_per_call: float
    distinct_sites: int
    top_kernels: tuple[tuple[str, float], ...]
    """(short name, share 0..1), costliest first, at most five."""
    by_category: tuple[tuple[str, float], ...]
    by_module_type: tuple[tuple[str, float], ...]
    """Empty when the trace has no module markers."""

    def to_dict(self) -> dict[str, Any]:
        return {"kernels_per_call": self.kernels_per_call, "device_us_per_call": self.device_us_per_call,
                "distinct_sites": self.distinct_sites, "top_kernels": [list(x) for x in self.top_kernels],
                "by_category": [list(x) for x in self.by_category],
                "by_module_type": [list(x) for x in self.by_module_type]}


@dataclass(frozen=True)
class SourceTrace:
    """How one Python call reaches each of its GPU kernels.

    ``sites`` are every distinct (kernel, call site) of the documented selection; ``paths`` and the
    kernel sections cover ``detailed`` of them (all at op scale, the costliest at model scale).
    ``to_markdown(lang="en"|"zh")`` renders the document.
    """

    subject: str
    sites: tuple[KernelSite, ...]
    paths: tuple[PathGroup, ...]
    overview: Overview
    structure: tuple[ModuleNode, ...] = ()
    scale: str = "op"
    """``op`` (every kernel in detail, a kernel flow) or ``model`` (structure, top kernels, module flow)."""
    flow: str = "kernels"
    """``kernels`` | ``modules``: the granularity of the flow diagram."""
    detailed: tuple[int, ...] = ()
    """``order`` of the sites that get a path and a section."""
    shared_chain: tuple[SourceFrame, ...] = ()
    """At model scale: the frames every detailed path starts with, written once."""
    device: str | None = None
    backend: str = "cuda"
    inputs: tuple[tuple[str, str], ...] = ()
    """(label, "shape dtype") of the call's inputs, when known."""
    output: str | None = None
    selection: str | None = None
    """What the user asked for (``--kernel``/``--module``/``--top``), in words."""
    link_style: str = "path"
    notes: tuple[str, ...] = ()

    @property
    def total_us(self) -> float | None:
        vals = [s.us_per_call for s in self.sites if s.us_per_call is not None]
        return sum(vals) if vals else None

    def to_markdown(self, lang: str = "en") -> str:
        """The document as Markdown, in English (``en``) or Chinese (``zh``)."""
        return render(self, lang)

    def to_dict(self) -> dict[str, Any]:
        return {
            "subject": self.subject, "device": self.device, "backend": self.backend, "scale": self.scale,
            "flow": self.flow, "total_us": self.total_us, "inputs": [list(x) for x in self.inputs],
            "output": self.output, "selection": self.selection, "overview": self.overview.to_dict(),
            "structure": [n.to_dict() for n in self.structure], "detailed": list(self.detailed),
            "paths": [{"title": p.title, "kernels": [s.order for s in p.sites]} for p in self.paths],
            "kernels": [s.to_dict() for s in self.sites], "notes": list(self.notes),
        }
