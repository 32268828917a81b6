"""Kernel names: demangle, shorten, decode per family, classify into categories.

CONTRACT (used by trace/, measure/, source_trace/, report/):
``decode(name) -> KernelName`` with ``.name .demangled .family .short .category .fields``
(plus ``.notes``, ``.inferred``, ``.rule``); cached, never raises on a name. Every pattern is
linear in the name's length and names over :data:`MAX_NAME_CHARS` are decoded from their first
``MAX_NAME_CHARS`` characters (with a note), so one decode takes bounded time whatever the input.

    >>> from bench_kernel.kernels import decode
    >>> k = decode("nvjet_tst_144x128_64x6_2x1_v_bz_bias_TNN")
    >>> k.family, k.category, k.fields["tile_m"], k.fields["stages"]
    ('cublas', 'gemm', 144, 6)
"""

from __future__ import annotations

from bench_kernel.kernels._classify import Rule, Rules, default_rules, load_rules
from bench_kernel.kernels._decode import MAX_NAME_CHARS, decode, decode_document, tree_layout
from bench_kernel.kernels._demangle import demangle
from bench_kernel.kernels._distinct import distinct_shorts
from bench_kernel.kernels._model import CATEGORIES, FAMILIES, KernelName, Span
from bench_kernel.kernels._shorten import MAX_SHORT
from bench_kernel.kernels._tree import key_fields, render_tree
from bench_kernel.kernels._triton_source import (
                                                 loaded_jit_functions,
                                                 loaded_jit_source,
                                                 pointer_roles,
                                                 triton_category,
                                                 triton_source_category,
)

__all__ = ["KernelName", "Span", "decode", "decode_document", "distinct_shorts", "demangle", "render_tree", "tree_layout", "key_fields", "Rule", "Rules",
           "load_rules", "default_rules", "FAMILIES", "CATEGORIES", "MAX_SHORT", "MAX_NAME_CHARS",
           "loaded_jit_functions", "loaded_jit_source", "pointer_roles", "triton_category", "triton_source_category"]
