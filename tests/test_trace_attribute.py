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


def _with_sampler(tmp_path, modules: bool = True):
    """eager.json plus, after each step's model forward, a 'sampling' kernel named like the one kernel
    the graph replays but the capture never saw -- outside the region a graph of the forward can hold."""
    import json

    doc = json.loads((DATA / "eager.json").read_text())
    ev = doc["traceEvents"]
    corr, ext = 5000, 5000
    launched = {e["args"]["correlation"]: e["ts"] for e in ev if e.get("cat") == "cuda_runtime"}
    for step in [e for e in ev if str(e.get("name", "")).startswith("ProfilerStep#")]:
        t = step["ts"] + step["dur"] - 0.3  # after the forward's last launch, inside the step
        # on the device it runs after the step's other kernels
        after = max(k["ts"] + k["dur"] for k in ev if k.get("cat") == "kernel"
                    and step["ts"] <= launched.get(k["args"]["correlation"], -1) <= t)
        ev.append({"ph": "X", "cat": "python_function", "name": "sampler.py(3): sample", "pid": 7, "tid": 7,
                   "ts": t - 0.05, "dur": 0.2})
        ev.append({"ph": "X", "cat": "cpu_op", "name": "aten::argmax", "pid": 7, "tid": 7, "ts": t - 0.04, "dur": 0.15,
                   "args": {"External id": ext}})
        ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 7, "tid": 7, "ts": t,
                   "dur": 0.05, "args": {"External id": ext, "correlation": corr}})
        ev.append({"ph": "X", "cat": "kernel", "name": "graph_only_kernel", "pid": 0, "tid": 7, "ts": after + 0.25,
                   "dur": 0.5, "args": {"device": 0, "stream": 7, "correlation": corr, "External id": ext}})
        corr, ext = corr + 1, ext + 1
    if not modules:
        doc["traceEvents"] = [e for e in ev if not str(e.get("name", "")).startswith("nn.Module")]
    p = tmp_path / "eager_sampler.json"
    p.write_text(json.dumps(doc))
    return p


def test_eager_reference_matches_only_inside_the_model_forward(tmp_path):
    # Once, an eager reference matched replayed kernels to sampling code a graph cannot contain
    g = load_trace(DATA / "graph.json.gz")
    a = attribute(g, load_trace(_with_sampler(tmp_path)))
    assert (a.reference, a.region, a.matched) == ("eager", "module forwards", 12)
    assert not next(k for k in a.kernels if k.name == "graph_only_kernel").matched
    assert a.unsure == 0 and all(k.confidence == 1.0 for k in a.kernels if k.matched)
    # without nn.Module markers the region cannot be told: the sampler kernel matches, and the result says so
    b = attribute(g, load_trace(_with_sampler(tmp_path, modules=False)))
    assert (b.region, b.matched) == ("whole trace", 13)
    assert "the region a graph can capture cannot be told" in b.notes[0]
    odd = next(k for k in b.kernels if k.name == "graph_only_kernel")
    assert odd.matched and odd.op == "aten::argmax" and odd.stack[-1].function == "sample"
    # ... and it is flagged: it and the kernel before it align across the gap to the next forward
    assert [k.pos for k in b.kernels if k.matched and k.confidence < 0.5] == [0, 1] and b.unsure == 2


def test_confidence_survives_one_inserted_kernel():
    # the replay has one kernel the capture lacks right after the first: its neighbours still agree
    a = attribute(load_trace(DATA / "graph.json.gz"), load_trace(DATA / "capture.json"))
    assert a.region == "captures" and a.unsure == 0
    assert [k.confidence for k in a.kernels] == [1.0, 0.0] + [1.0] * 11
