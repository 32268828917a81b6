"""The Source Trace document: how a Python call reaches each GPU kernel, generated.

``source_trace(fn, make_inputs=...)`` runs a callable under the profiler; ``from_trace(path,
kernel=..., step=...)`` reads a recorded trace. Both return a :class:`SourceTrace` whose
``to_markdown(lang="en"|"zh")`` is the document.
"""

from bench_kernel._callable_module import make_callable
from bench_kernel.source_trace._entry import from_trace, source_trace
from bench_kernel.source_trace._model import KernelSite, PathGroup, SourceFrame, SourceTrace

__all__ = ["KernelSite", "PathGroup", "SourceFrame", "SourceTrace", "from_trace", "source_trace"]

make_callable(__name__, source_trace)
