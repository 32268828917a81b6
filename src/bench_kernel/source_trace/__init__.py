"""The Source Trace document: how a Python call reaches each GPU kernel, generated.

``document_call(fn, make_inputs=...)`` runs a callable under the profiler; ``document_trace(path,
kernel=..., step=...)`` reads a recorded trace. Both return a :class:`SourceTrace`: the
``source-trace --json`` record (``records.SourceTraceOutput``), whose ``to_markdown(lang="en"|"zh")``
is the document.
"""

from bench_kernel.source_trace._entry import check_call, document_call, document_trace
from bench_kernel.source_trace._model import SourceTrace
from bench_kernel.source_trace._text import LANGS, strings

__all__ = ["LANGS", "SourceTrace", "check_call", "document_call", "document_trace", "strings"]
