"""Links kernel <- launch <- CPU op <- Python frames, graph replay flags, and the record types."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench_kernel.trace import Frame, load_trace, parse_frame

DATA = Path(__file__).parent / "data" / "trace"


def test_eager_kernel_links_to_launch_op_and_stack():
    t = load_trace(DATA / "eager.json", shapes=True)
    k = t.kernel(3, stack=True)  # step 0: embedding, then layer 0 = norm, gemm, attn (index 3)
    assert k.name == "void attn<{lambda()#1}, {lambda()#2}>(int)"
    assert (k.grid, k.block, k.regs, k.smem_bytes, k.graph_launched) == ((4, 1, 1), (256, 1, 1), 32, 1024, False)
    assert k.launch.name == "cudaLaunchKernel" and k.launch.kind == "kernel" and k.launch.api_id == 211
    assert k.launch.correlation == k.correlation and k.launch.external_id == k.op.external_id
    assert k.op.name == "aten::scaled_dot_product_attention"
    assert [f.function for f in k.stack] == ["<module>", "forward", "nn.Module: Model_0", "nn.Module: Layer_0"]
    assert k.stack[0] == Frame("bench.py", 10, "<module>") and k.stack[-1].is_module
    gemm = t.kernel(2)
    assert gemm.op.name == "aten::linear" and gemm.op.input_dims == ((64, 64), (64, 64))
    assert gemm.stack is None  # not asked for
    d = k.to_dict()
    assert json.loads(json.dumps(d))["grid"] == [4, 1, 1] and d["stack"][0]["line"] == 10


def test_stacks_load_lazily_and_match_an_eager_load():
    lazy, eager = load_trace(DATA / "eager.json"), load_trace(DATA / "eager.json", stacks=True)
    assert not lazy.stacks and lazy.stack(20) == eager.stack(20) and lazy.stacks


def test_graph_replay_is_flagged_and_has_no_op():
    t = load_trace(DATA / "graph.json.gz")
    flags = t.graph_launched.tolist()
    assert flags == [False] + [True] * 13
    k = t.kernel(5)
    assert k.launch.name == "hipGraphLaunch" and k.launch.kind == "graph" and k.launch.api_id == 215  # ROCm cid
    assert k.op is None and k.regs is None and t.kernel(0).op.name == "aten::copy_"


def test_rocm_launch_carries_the_kernel_name():
    t = load_trace(DATA / "capture.json")
    named = [t.launch(j).kernel_name for j in range(len(t.launches)) if t.launch(j).kernel_name]
    assert len(named) == 12 and named[0] == "rms_norm_kernel"


@pytest.mark.parametrize("text,frame", [
    ("transformers/models/llama/modeling_llama.py(295): forward", Frame("transformers/models/llama/modeling_llama.py", 295, "forward")),
    ("<eval_with_key>.50(4): forward", Frame("<eval_with_key>.50", 4, "forward")),
    ("nn.Module: LlamaMLP_0", Frame(None, None, "nn.Module: LlamaMLP_0")),
    ("<built-in method linear of PyCapsule object at 0x7f>", Frame(None, None, "<built-in method linear of PyCapsule object at 0x7f>")),
])
def test_parse_frame(text, frame):
    assert parse_frame(text) == frame


def test_real_eager_trace_links(traces_dir):
    t = load_trace(traces_dir / "h200__llama_eager_generate.json.gz")
    assert (t.kernel_launch >= 0).all() and (t.kernel_op >= 0).all() and not t.graph_launched.any()
    k = t.kernel(100, stack=True)
    assert k.launch.name == "cudaLaunchKernel" and k.op.name == "aten::mul"
    modules = [f.function for f in k.stack if f.is_module]
    assert modules[:3] == ["nn.Module: LlamaForCausalLM_0", "nn.Module: LlamaModel_0", "nn.Module: LlamaDecoderLayer_1"]


def test_real_graph_trace_links(traces_dir):
    t = load_trace(traces_dir / "vllm_decode_full__graph_execution.json.gz")
    assert int(t.graph_launched.sum()) == 421  # every kernel under the one hipGraphLaunch
    assert {t.launch(int(j)).name for j in t.kernel_launch[t.graph_launched]} == {"hipGraphLaunch"}


def test_find_kernels_by_regex():
    t = load_trace(DATA / "eager.json")
    hits = t.find_kernels("^gemm_qkv")
    assert len(hits) == 9 and {t.kernel(int(i)).name for i in hits} == {"gemm_qkv_kernel"}
    assert len(t.find_kernels("no such kernel")) == 0


def test_pre_1_10_capitalised_categories_link(tmp_path):
    # Kineto before PyTorch 1.10 wrote "Operator", "Runtime", "Kernel".
    ev = [{"ph": "X", "cat": "Operator", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 0.0, "dur": 10.0,
           "args": {"External id": 3}},
          {"ph": "X", "cat": "Runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 2.0, "dur": 3.0,
           "args": {"correlation": 9, "External id": 3}},
          {"ph": "X", "cat": "Kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": 20.0, "dur": 4.0,
           "args": {"correlation": 9, "stream": 7}}]
    p = tmp_path / "old.json"
    p.write_text(json.dumps({"traceEvents": ev}))
    k = load_trace(p).kernel(0)
    assert (k.name, k.launch.kind, k.op.name) == ("gemm", "kernel", "aten::mm")
