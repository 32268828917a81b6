"""attribute: replayed graph kernels get the op, module and stack of the matching captured launch."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from bench_kernel.errors import TraceError
from bench_kernel.trace import attribute, load_trace
from bench_kernel.trace._attribute import lcs_pairs

DATA = Path(__file__).parent / "data" / "trace"


def test_fixture_capture_match():
    a = attribute(load_trace(DATA / "graph.json.gz"), load_trace(DATA / "capture.json"))
    assert (a.reference, a.graph_launches, a.replayed_kernels, a.matched) == ("capture", 1, 13, 12)
    assert a.match_rate == pytest.approx(12 / 13)
    extra = [k for k in a.kernels if not k.matched]
    assert [k.name for k in extra] == ["graph_only_kernel"] and extra[0].op is None and extra[0].stack == ()
    attn = [k for k in a.kernels if k.name.startswith("void attn")]
    assert [k.module for k in attn] == ["Layer_0", "Layer_1", "Layer_2"]
    assert {k.op for k in attn} == {"aten::scaled_dot_product_attention"}
    assert attn[0].stack[0].function == "capture_model"


def test_cuda_capture_has_no_names_to_match():
    a = attribute(load_trace(DATA / "graph.json.gz"), load_trace(DATA / "capture_cuda.json"))
    assert (a.reference_kernels, a.reference_named, a.matched, a.match_rate) == (12, 0, 0, 0.0)
    assert "eager trace" in a.notes[0]


def test_eager_reference():
    # The eager fixture runs the same layer kernels: the 12 layer kernels match, the extra does not.
    a = attribute(load_trace(DATA / "graph.json.gz"), load_trace(DATA / "eager.json"))
    assert a.reference == "eager" and a.matched == 12


def test_no_graph_replay_is_an_error():
    with pytest.raises(TraceError, match="no kernel was replayed from a CUDA/HIP graph"):
        attribute(load_trace(DATA / "eager.json"), load_trace(DATA / "capture.json"))


def test_lcs_is_optimal_where_greedy_blocks_are_not():
    a = np.array([0, 9, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3])
    b = np.array([0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3])
    pairs = lcs_pairs(a, b)
    assert len(pairs) == 12 and all(a[i] == b[j] for i, j in pairs)
    assert lcs_pairs(np.array([-1, -1]), np.array([-1, -1])) == []


def test_vllm_graph_against_its_capture(traces_dir):
    # The capture trace executed only 7 kernels, but recorded all 421 captured launches with their
    # kernel names (ROCm puts the name on the launch event): each replayed kernel finds its launch.
    g = load_trace(traces_dir / "vllm_decode_full__graph_execution.json.gz")
    c = load_trace(traces_dir / "vllm_decode_full__graph_capture.json.gz", stacks=True)
    a = attribute(g, c)
    assert (a.replayed_kernels, a.matched, a.reference_kernels) == (421, 421, 421)
    by_name = {k.short: k.op for k in a.kernels}
    assert by_name["kernel_unified_attention_2d"] == "vllm::unified_attention_with_output"
    assert by_name["_topk_forward"] == "TopK"
    assert all(any(f.file and "gpt_oss.py" in f.file for f in k.stack) for k in a.kernels)
