"""``ops``: per-op performance from recorded shapes, checked against values computed in the test from
the raw events (an op's kernels are the kernel events carrying its ``External id``)."""

from __future__ import annotations

import gzip
import json
import re
from collections import defaultdict

import pytest

from _raw_traces import raw_events
from bench_kernel.trace import load_trace, ops

LLAMA = "h200__llama_eager_generate.json.gz"


@pytest.fixture(scope="module")
def llama_raw(traces_dir):
    """Per (op name, Input Dims text, Concrete Inputs text): [calls, kernel us], from the raw JSON."""
    events = raw_events(traces_dir / LLAMA)
    ops_by_ext = {e["args"]["External id"]: e for e in events
                  if e.get("cat") == "cpu_op" and "External id" in e.get("args", {})}
    out: dict[tuple, list] = defaultdict(lambda: [set(), 0.0])
    for e in events:
        if e.get("cat") == "kernel":
            op = ops_by_ext.get(e["args"].get("External id"))
            if op is not None:
                key = (op["name"], json.dumps(op["args"]["Input Dims"]), json.dumps(op["args"]["Concrete Inputs"]))
                out[key][0].add(e["args"]["External id"])
                out[key][1] += e["dur"]
    return out


@pytest.fixture(scope="module")
def llama_ops(traces_dir):
    return ops(load_trace(traces_dir / LLAMA, shapes=True), by="shape")


def _row(report, op, shapes):
    [row] = [r for r in report.rows if r.op == op and r.shapes == shapes]
    return row


@pytest.mark.parametrize("dims", [[[1024, 1024], [1024, 1024]], [[1024, 1024], [1024, 2816]],
                                  [[2, 1024], [1024, 32000]]])
def test_gemm_tflops_match_the_hand_computed_value(llama_raw, llama_ops, dims):
    (m, k), (_, n) = dims
    calls = us = 0
    for (name, d, _), (exts, t) in llama_raw.items():
        if name == "aten::mm" and json.loads(d) == dims:
            calls, us = calls + len(exts), us + t
    hand_tflops = calls * 2 * m * n * k / us / 1e6
    row = _row(llama_ops, "aten::mm", f"{dims[0]} BFloat16, {dims[1]} BFloat16")
    assert (row.calls, row.dtype) == (calls, "bf16")
    assert row.kernel_us == pytest.approx(us)
    assert row.achieved_tflops == pytest.approx(hand_tflops, rel=1e-9)
    hand_tbps = calls * 2 * (m * k + k * n + m * n) / us / 1e6
    assert row.achieved_tbps == pytest.approx(hand_tbps, rel=1e-9)


def test_causal_gqa_attention_matches_the_hand_computed_value(llama_raw, llama_ops):
    # The prefill: q [2, 16, 512, 64] against 4 K/V heads, is_causal True (Concrete Inputs[10]).
    calls = us = 0
    for (name, d, c), (exts, t) in llama_raw.items():
        if name == "aten::_cudnn_attention_forward" and json.loads(d)[0] == [2, 16, 512, 64]:
            assert json.loads(c)[10] == "True"
            calls, us = calls + len(exts), us + t
    flops = 2 * 2 * 16 * (512 * 512 / 2) * (64 + 64)  # query heads; half the pairs: causal
    row = _row(llama_ops, "aten::_cudnn_attention_forward",
               "[2, 16, 512, 64] BFloat16, [2, 4, 512, 64] BFloat16, [2, 4, 512, 64] BFloat16")
    assert row.calls == calls == 8
    assert row.achieved_tflops == pytest.approx(calls * flops / us / 1e6, rel=1e-9)
    assert row.notes[0].startswith("causal: counted as half")


def test_decode_attention_sees_the_whole_context(llama_raw, llama_ops):
    # One new query per sequence against 513 keys: not causal-masked (Concrete Inputs[10] False).
    row = _row(llama_ops, "aten::_cudnn_attention_forward",
               "[2, 16, 1, 64] BFloat16, [2, 4, 513, 64] BFloat16, [2, 4, 513, 64] BFloat16")
    [(exts, us)] = [v for (n, d, _), v in llama_raw.items()
                    if n == "aten::_cudnn_attention_forward" and json.loads(d)[1] == [2, 4, 513, 64]]
    assert row.flops == len(exts) * 2 * 2 * 16 * 1 * 513 * 128
    assert row.kernel_us == pytest.approx(us)


def test_rows_and_unlinked_kernels_sum_to_the_trace_total(traces_dir, llama_ops):
    raw = raw_events(traces_dir / LLAMA)
    total = sum(e["dur"] for e in raw if e.get("cat") == "kernel")
    assert llama_ops.total_kernel_us == pytest.approx(total)
    assert sum(r.kernel_us for r in llama_ops.rows) + llama_ops.unlinked_us == pytest.approx(total)
    assert (llama_ops.device, llama_ops.device_source) == ("H200", "trace")  # from deviceProperties
    assert llama_ops.counted_share > 0.99


def test_by_op_sums_the_shapes(traces_dir, llama_ops):
    by_op = ops(load_trace(traces_dir / LLAMA, shapes=True), by="op")
    [mm] = [r for r in by_op.rows if r.op == "aten::mm"]
    shapes = [r for r in llama_ops.rows if r.op == "aten::mm"]
    assert mm.calls == sum(r.calls for r in shapes) and mm.flops == sum(r.flops for r in shapes)
    assert mm.kernel_us == pytest.approx(sum(r.kernel_us for r in shapes))
    assert by_op.rows[0].op == "aten::mm"  # the longest first


def test_graph_replays_take_their_shapes_from_the_capture(traces_dir):
    graph = load_trace(traces_dir / "vllm_decode_full__graph_execution.json.gz", shapes=True)
    capture = load_trace(traces_dir / "vllm_decode_full__graph_capture.json.gz", shapes=True)
    alone = ops(graph, device="MI300X")
    assert alone.unlinked_kernels == int(graph.graph_launched.sum()) == 421
    assert any("pass the capture trace with --capture" in n for n in alone.notes)
    both = ops(graph, device="MI300X", by="shape", capture=capture)
    assert both.unlinked_kernels == 0
    addmm = [r for r in both.rows if r.op == "aten::addmm"]
    assert addmm and sum(r.calls for r in addmm) == 72
    for r in addmm:  # each row's FLOPs from its own shapes text: bias [n], a [m, k], b [k, n]
        _, (m, k), (_, n) = (json.loads(s) for s in re.findall(r"\[[\d, ]*\]", r.shapes))
        assert r.flops == r.calls * 2 * m * k * n
    assert both.device_source == "--device"


def test_a_trace_without_shapes_says_so(traces_dir, tmp_path):
    from bench_kernel.errors import TraceError

    raw = json.load(gzip.open(traces_dir / "h200__inductor_mlp_rmsnorm.json.gz"))
    for e in raw["traceEvents"]:
        for key in ("Input Dims", "Input type", "Concrete Inputs", "Input Strides"):
            e.get("args", {}).pop(key, None)
    path = tmp_path / "no_shapes.json"
    path.write_text(json.dumps(raw))
    with pytest.raises(TraceError, match=r"no_shapes.json records no op shapes: record it with "
                                         r"torch.profiler.profile\(record_shapes=True\)"):
        ops(load_trace(path, shapes=True))


def test_shapes_are_decoded_once_per_distinct_value(traces_dir):
    t = load_trace(traces_dir / LLAMA, shapes=True)
    names = [t.names[n] for n in t.ops.name]
    sdpa = [k for k, n in enumerate(names) if n == "aten::scaled_dot_product_attention"]
    rec = t.op(sdpa[0])
    assert rec.concrete_inputs == ("", "", "", "", "0.", "True", "0.125", "True")
    assert rec.input_strides[0] == (524288, 64, 1024, 1)
    mms = [k for k, n in enumerate(names) if n == "aten::mm"]
    same = [t.ops.input_dims[k] for k in mms if t.ops.input_dims[k] == ((1024, 1024), (1024, 1024))]
    assert len(same) > 1 and all(d is same[0] for d in same)  # one shared tuple, not one per op


def test_the_ops_command_renders_the_rows(run_cli, traces_dir):
    r = run_cli("ops", str(traces_dir / LLAMA), "--top", "2", "--md")
    assert r.exit_code == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0] == f"### {LLAMA}: 33 ops, 10.88 ms of kernels on H200, 99.7% of it counted"
    assert lines[2] == ("| Op | dtype | Calls | Kernels | Time | FLOPs | Bytes | TFLOP/s | TB/s | FLOP/B | Basis | "
                        "% roof | Bound |")
    assert lines[4] == ("| aten::mm | bf16 | 684 | 772 | 3.896 ms | 1.902e+11 | 3.03 GiB | 48.8 | 0.84 | 58.41 | shapes "
                        "| 17.4% | memory |")
    assert "- 2 of 33 rows shown; the rest: 5.083 ms" in lines
    data = json.loads(run_cli("ops", str(traces_dir / LLAMA), "--json", "--by", "shape").stdout)
    assert data["by"] == "shape" and data["device"] == "H200" and len(data["rows"]) > 33
