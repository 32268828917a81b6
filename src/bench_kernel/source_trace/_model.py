"""The Source Trace document as data: the ``source-trace --json`` record
(``records.SourceTraceOutput``: frames, kernel sites, sources, paths, module structure), and its
Markdown (``_render``), English or Chinese."""

from __future__ import annotations

from bench_kernel.records import SourceTraceOutput
from bench_kernel.source_trace._render import render

__all__ = ["SourceTrace"]


class SourceTrace(SourceTraceOutput, frozen=True, kw_only=True):
    """How one Python call reaches each of its GPU kernels: ``source-trace --json`` (the fields of
    :class:`~bench_kernel.records.SourceTraceOutput`, which it is), and its Markdown document."""

    def to_markdown(self, lang: str = "en") -> str:
        """The document as Markdown, in English (``en``) or Chinese (``zh``)."""
        return render(self, lang)
