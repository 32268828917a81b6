"""layers: the period and per-position statistics, on fixtures, real graph and eager traces."""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest

from bench_kernel.errors import TraceError, UsageError
from bench_kernel.trace import layers, load_trace

DATA = Path(__file__).parent / "data" / "trace"
# Made on an H200 by benchmarks/gpu/make_decode_graph_trace.py (see its docstring); absent until then.
GPU_FIXTURE = DATA / "h200_decode_graph.json.gz"


def test_eager_fixture_decode_layers():
    t = load_trace(DATA / "eager.json", shapes=True)
    rep = layers(t, step="decode")
    assert (rep.period, rep.layer_count, rep.sequences, rep.left_out) == (4, 6, 2, ())
    assert [p.name for p in rep.positions] == ["rms_norm_kernel", "gemm_qkv_kernel",
                                                "void attn<{lambda()#1}, {lambda()#2}>(int)", "add_kernel"]
    assert [p.median_us for p in rep.positions] == [2.0, 5.0, 7.0, 1.0]
    assert rep.layer_total_us == pytest.approx(15.0) and rep.total_us == pytest.approx(15.0 * 6)


def test_prefill_and_decode_layers_mix_without_step():
    rep = layers(load_trace(DATA / "eager.json"))
    assert (rep.period, rep.layer_count) == (4, 9)
    pos = rep.positions[2]
    assert (pos.min_us, pos.max_us, pos.median_us) == (7.0, 70.0, 7.0)
    assert sum(p.mean_us for p in rep.positions) == pytest.approx(rep.layer_total_us)


def test_graph_fixture_without_cpu_ops():
    # 3 replayed layers, but the first has an extra kernel: left out with the reason.
    rep = layers(load_trace(DATA / "graph.json.gz"))
    assert (rep.period, rep.layer_count) == (4, 2)
    assert sum(x.count for x in rep.left_out) == 1


def test_anchor_regex_and_its_errors():
    t = load_trace(DATA / "eager.json")
    rep = layers(t, anchor="^gemm_qkv")
    assert rep.anchor == "gemm_qkv_kernel" and rep.period == 4 and rep.layer_count == 9
    with pytest.raises(TraceError, match="matches none of the 6 kernel names"):
        layers(t, anchor="paged_attention")
    with pytest.raises(UsageError, match="not a valid regular expression"):
        layers(t, anchor="(")
    with pytest.raises(UsageError, match="--step 'warmup'"):
        layers(t, step="warmup")


def test_no_repetition_is_an_error(tmp_path):
    ev = [{"ph": "X", "cat": "kernel", "name": f"k{i}", "pid": 0, "tid": 7, "ts": i, "dur": 1.0,
           "args": {"correlation": i}} for i in range(5)]
    p = tmp_path / "t.json"
    p.write_text(json.dumps({"traceEvents": ev}))
    with pytest.raises(TraceError, match="no repeating per-layer kernel sequence found in 5 kernels"):
        layers(load_trace(p))


def test_vllm_full_graph_decode(traces_dir):
    # gpt-oss alternates sliding-window (kernel_unified_attention_2d) and full attention (3d +
    # reduce_segments) layers, so the sequence repeats every two layers: 17 + 18 = 35 kernels; 12 pairs
    # make its 24 layers, of which the first pair differs (layer 0 has no triton_poi_fused__to_copy_1).
    rep = layers(load_trace(traces_dir / "vllm_decode_full__graph_execution.json.gz"))
    assert rep.period == 35 and rep.layer_count == 11
    names = [p.short for p in rep.positions]
    assert names.count("kernel_unified_attention_2d") == 1 and names.count("kernel_unified_attention_3d") == 1
    assert sum(x.count for x in rep.left_out) == 1


def test_h200_eager_decode_steps(traces_dir):
    # HF Llama, 8 layers, eager: 42 kernels per decoder layer (RMSNorm, rotary and SDPA are several
    # kernels each); 11 decode steps x 8 layers.
    t = load_trace(traces_dir / "h200__llama_eager_generate.json.gz", shapes=True)
    rep = layers(t, step="decode")
    assert (rep.period, rep.layer_count, rep.sequences) == (42, 88, 11)
    assert rep.left_out == ()
    # Each unit is exactly one LlamaDecoderLayer call (module markers at depth 2), and no two units share
    # one: the unit boundary found from kernel names alone is the model's layer boundary.
    layer_calls = []
    for start in rep.unit_starts:
        calls = {t.module_chain(i)[2] for i in range(start, start + rep.period)}
        assert len(calls) == 1
        layer_calls.append(calls.pop())
    assert len(set(layer_calls)) == 88
    assert {t.names[t.python.name[c]] for c in layer_calls} == {f"nn.Module: LlamaDecoderLayer_{k}" for k in range(8)}


@pytest.mark.skipif(not GPU_FIXTURE.exists(), reason="run benchmarks/gpu/make_decode_graph_trace.py on a GPU first")
def test_gpu_made_decode_graph_trace():
    expected = json.loads(GPU_FIXTURE.with_suffix("").with_suffix(".expected.json").read_text())
    rep = layers(load_trace(GPU_FIXTURE))
    # The kernels of one layer were counted independently: by capturing that layer alone in a graph.
    assert rep.period == expected["kernels_per_layer"]
    assert rep.layer_count == expected["layers"] * expected["replays"]
    assert os.path.getsize(GPU_FIXTURE) < 2_000_000


def test_anchor_that_runs_twice_per_layer(tmp_path):
    # Once, an anchor running twice per layer gave a period of half a layer and a misleading note
    doc = json.loads((DATA / "eager.json").read_text())
    for e in doc["traceEvents"]:
        if e.get("cat") == "kernel" and e["name"] == "add_kernel":
            e["name"] = "gemm_qkv_kernel"  # now each layer runs gemm_qkv_kernel at positions 1 and 3
    p = tmp_path / "twice.json"
    p.write_text(json.dumps(doc))
    rep = layers(load_trace(p), anchor="gemm_qkv")
    assert (rep.period, rep.layer_count, rep.anchor_per_unit, rep.left_out) == (4, 9, 2, ())
    assert [x.name for x in rep.positions] == ["rms_norm_kernel", "gemm_qkv_kernel",
                                               "void attn<{lambda()#1}, {lambda()#2}>(int)", "gemm_qkv_kernel"]


@pytest.mark.parametrize("per_layer", [2, 4, 6])
def test_real_anchors_that_run_several_times_per_layer(traces_dir, per_layer):
    # The HF Llama decode layer is 42 kernels (test_h200_eager_decode_steps); pick kernels that run
    # 2, 4 and 6 times in it: each must give the same 42-kernel layer, 88 times.
    import re
    from collections import Counter

    t = load_trace(traces_dir / "h200__llama_eager_generate.json.gz", shapes=True)
    ref = layers(t, step="decode")
    counts = Counter(p.short for p in ref.positions)
    name = next(n for n, c in counts.items() if c == per_layer)
    rep = layers(t, step="decode", anchor=re.escape(name))
    assert (rep.period, rep.layer_count, rep.anchor_per_unit) == (42, 88, per_layer)
    assert [p.short for p in rep.positions] == [p.short for p in ref.positions]


def test_anchor_matches_the_short_name_like_source_trace(traces_dir):
    # One rule (trace/_match.py): a pattern copied from a table (short name) works as well as one from the
    # raw name, in layers --anchor, Trace.find_kernels and source-trace --kernel.
    import re

    t = load_trace(traces_dir / "h200__llama_eager_generate.json.gz", shapes=True)
    short_only = next(u for u in set(t.kernels.name.tolist())
                      if t.decoded(u).short not in t.names[u] and "nvjet" not in t.names[u]
                      and (t.kernels.name == u).sum() == 88 + 8)  # once per decoder layer: 11 decode + 1 prefill
    pattern = re.escape(t.decoded(short_only).short)
    assert not re.search(pattern, t.names[short_only])
    assert list(t.find_kernels(pattern)) == list(np.flatnonzero(t.kernels.name == short_only))
    rep = layers(t, step="decode", anchor=pattern)
    assert (rep.period, rep.layer_count, rep.anchor_per_unit) == (42, 88, 1)
    with pytest.raises(TraceError, match=r"--anchor 'k0': its kernels run 1 times, but no repeating unit"):
        layers(_one_off(traces_dir), anchor="k0")


def _one_off(traces_dir):
    import tempfile

    ev = [{"ph": "X", "cat": "kernel", "name": f"k{i % 3}" if i else "k0", "pid": 0, "tid": 7, "ts": i, "dur": 1.0,
           "args": {"correlation": i}} for i in range(1)] + \
         [{"ph": "X", "cat": "kernel", "name": f"x{i % 2}", "pid": 0, "tid": 7, "ts": 10 + i, "dur": 1.0,
           "args": {"correlation": 10 + i}} for i in range(6)]
    p = Path(tempfile.mkdtemp()) / "one_off.json"
    p.write_text(json.dumps({"traceEvents": ev}))
    return load_trace(p)
