"""The Source Trace document's records (``bench-kernel source-trace``): frames, kernel call sites,
where a kernel's code is, the paths that reach them, the module structure and the overview.

Times are microseconds; "per call" means per call of the documented callable (or per step of a
recorded trace). The Markdown is rendered from these records by ``source_trace``.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from bench_kernel.records._base import Record, derive, doc

__all__ = ["SourceFrame", "SourceLink", "KernelSource", "KernelSite", "PathGroup", "ModuleNode", "Overview",
           "LinkRole", "SourceKind"]

LinkRole = Literal["kernel", "functor", "library", "binding"]
SourceKind = Literal["triton", "inductor", "aten", "library", "unknown"]


class SourceFrame(Record, frozen=True):
    """One Python frame as the document shows it."""

    display: Annotated[str, doc("how the document shows it (`path:line`): package-relative for installed code, root-relative for user code")]
    link: Annotated[str, doc("its link (a path, relative to the document's folder where the file is under `--root`, or a URL)")]
    line: Annotated[int, doc("line")]
    function: Annotated[str, doc("function")]
    abs_path: Annotated[str | None, doc("absolute path, when the file is on this machine (used to check links)")] = None
    module: Annotated[str | None, doc("the `nn.Module` class whose call this frame is (from the profiler's module markers)")] = None
    url: Annotated[str | None, doc("the same line on GitHub (`#L<line>`, `--link-style github`), when the file's repository is known")] = None

    @property
    def key(self) -> tuple[str, int, str]:
        """(display, line, function): what makes two frames the same frame."""
        return (self.display, self.line, self.function)


class SourceLink(Record, frozen=True):
    """A file that holds (part of) a kernel's code: shown as ``display``, linked to ``link``."""

    role: Annotated[LinkRole, doc("`kernel` (the __global__ template or @triton.jit function), `functor` (the op's code the template instantiates), `library` (the shared object holding the kernel) or `binding`")]
    display: Annotated[str, doc("how the document shows it")]
    link: Annotated[str | None, doc("a path (`path:line`) or URL; null when the file exists only as a name")]
    symbol: Annotated[str | None, doc("the function or template in it")] = None
    line: Annotated[int | None, doc("line")] = None
    abs_path: Annotated[str | None, doc("absolute path, when the file is on this machine")] = None


class KernelSource(Record, frozen=True):
    """Where a kernel's own code is, as far down as the tool can tell."""

    kind: Annotated[SourceKind, doc("`triton`, `inductor`, `aten`, `library` or `unknown`")]
    links: Annotated[tuple[SourceLink, ...], doc("files holding its code")] = ()
    steps: Annotated[tuple[str, ...], doc("a Triton function's outline: loads, math, dots, stores")] = ()
    origins: Annotated[tuple[str, ...], doc("Inductor: the source nodes and original ATen ops (and Python lines) recorded for it")] = ()
    note: Annotated[str | None, doc("why no file is linked (`source not mapped`, `closed source (NVIDIA cuBLAS)`)")] = None
    ref: Annotated[str | None, doc("the version the links point at (`v2.13.0`)")] = None


class KernelSite(Record, frozen=True, kw_only=True):
    """One distinct (kernel, call site): the same kernel launched from the same Python stack."""

    order: Annotated[int, doc("position of its first launch within a call (0-based): the document's launch order")]
    name: Annotated[str, doc("kernel name")]
    short: Annotated[str, doc("short name")]
    family: Annotated[str, doc("family (`bench-kernel decode`)")]
    category: Annotated[str, doc("category (`gemm`, `attention`, ...)")]
    fields: Annotated[dict[str, Any], doc("decoded name fields")] = {}
    inferred: Annotated[tuple[str, ...], doc("fields inferred rather than read from the name")] = ()
    launches_per_call: Annotated[float, doc("launches per call")] = 1.0
    us_per_launch: Annotated[float | None, doc("mean device time of one launch")] = None
    share: Annotated[float | None, doc("of the documented device time per call, 0-1")] = None
    grid: Annotated[tuple[int, ...] | None, doc("launch grid (blocks in x, y, z)")] = None
    block: Annotated[tuple[int, ...] | None, doc("threads per block (x, y, z)")] = None
    regs: Annotated[int | None, doc("registers per thread")] = None
    smem_bytes: Annotated[int | None, doc("shared memory per block, bytes")] = None
    op: Annotated[str | None, doc("the op that launched it")] = None
    input_dims: Annotated[tuple[Any, ...] | None, doc("the op's recorded input dims, one entry per input")] = None
    input_types: Annotated[tuple[str, ...] | None, doc("the op's input dtypes")] = None
    stack: Annotated[tuple[SourceFrame, ...], doc("the Python stack, outermost first")] = ()
    graph_launched: Annotated[bool, doc("replayed from a CUDA/HIP graph (its stack is the capture's, when known)")] = False
    module_type: Annotated[str, doc("the module type it runs in: `attention`, `moe`, `mlp`, `norm`, `embedding`, `position`, `activation` or `other` (source_trace/data/module_types.tsv)")] = "other"
    module_path: Annotated[tuple[str, ...], doc("the `nn.Module` classes it runs in, outermost first")] = ()
    source: Annotated[KernelSource | None, doc("where its code is")] = None
    us_per_call: Annotated[float | None, doc("derived: device time per call (us_per_launch x launches_per_call)")] = None

    def __post_init__(self) -> None:
        derive(self, us_per_call=None if self.us_per_launch is None else self.us_per_launch * self.launches_per_call)


class PathGroup(Record, frozen=True):
    """A path (sub-flow): the detailed sites whose stacks first differ from the others at the same frame."""

    title: Annotated[str, doc("the path's heading")]
    kernels: Annotated[tuple[int, ...], doc("the sites on it (their `order`), in launch order")]


class ModuleNode(Record, frozen=True, kw_only=True):
    """One ``nn.Module`` call site: every instance called from the same line (decoder layers, experts)."""

    cls: Annotated[str, doc("the `nn.Module` class")]
    depth: Annotated[int, doc("depth in the tree (0: a top module)")]
    forward: Annotated[SourceFrame | None, doc("the line that calls it: the first frame after its profiler marker")]
    per_parent: Annotated[tuple[int, int], doc("[min, max] instances per instance of the parent: `x N` when both are N > 1")]
    instances_per_call: Annotated[float, doc("instances per documented call")]
    kernels_per_instance: Annotated[float, doc("kernels per instance")]
    us_per_instance: Annotated[tuple[float, float, float], doc("device time of one instance (its whole subtree): [min, median, max]")]
    kernels_per_call: Annotated[float, doc("kernels of all instances per call")]
    us_per_call: Annotated[float, doc("their device time per call")]
    module_type: Annotated[str, doc("`attention`, `mlp`, `moe`, `norm`, ... (as a site's `module_type`)")]
    first_order: Annotated[int, doc("launch order of its first kernel: siblings are listed in this order")]
    shapes: Annotated[str, doc("the input shapes of its first kernel's op (for the module flow's arrows)")] = ""
    children: Annotated[tuple[ModuleNode, ...], doc("modules it calls")] = ()

    @property
    def repeated(self) -> bool:
        """More than one instance per parent instance somewhere (``x N``)."""
        return self.per_parent[1] > 1


class Overview(Record, frozen=True, kw_only=True):
    """The numbers of the Overview table."""

    kernels_per_call: Annotated[float, doc("kernel launches per call")]
    device_us_per_call: Annotated[float, doc("device time per call")]
    distinct_sites: Annotated[int, doc("distinct (kernel, call site) pairs")]
    top_kernels: Annotated[tuple[tuple[str, float], ...], doc("[short name, share 0-1], costliest first, at most five")]
    by_category: Annotated[tuple[tuple[str, float], ...], doc("[category, share 0-1]")]
    by_module_type: Annotated[tuple[tuple[str, float], ...], doc("[module type, share 0-1]; empty without module markers")]
