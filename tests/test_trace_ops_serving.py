"""``ops`` on the serving and training traces: each count checked against one computed here by hand
from the raw events' recorded shapes and annotations, with the arithmetic written out."""

from __future__ import annotations

import json
import math
from collections import defaultdict

import pytest

from _raw_traces import raw_events, raw_trace
from bench_kernel.trace import load_trace, ops

B200 = "b200__eager_trace.json.gz"
DECODE = "vllm_decode_full__graph_execution.json.gz"
CAPTURE = "vllm_decode_full__graph_capture.json.gz"
MI300 = "mi300__resnet_act_checkpoint.json.gz"
SGLANG = "sglang_prefilldecode__sglang_Qwen3-8B_prefilldecode.json.gz"
CPU = "cpu_serve__transformers_serve.json.gz"


def _events(path):
    return raw_events(path)


def _op_kernels(events, op_name):
    """(op event, [its kernel events]) per call of ``op_name``, linked by External id."""
    kernels = defaultdict(list)
    for e in events:
        if e.get("cat") == "kernel":
            kernels[e["args"].get("External id")].append(e)
    return [(e, kernels[e["args"]["External id"]]) for e in events
            if e.get("cat") == "cpu_op" and e["name"] == op_name]


def _row(report, op):
    [row] = [r for r in report.rows if r.op == op]
    return row


@pytest.fixture(scope="module")
def b200(traces_dir):
    return _events(traces_dir / B200), ops(load_trace(traces_dir / B200, shapes=True))


def test_multimem_all_reduce_counts_its_message_and_algbw(b200):
    raw, report = b200
    calls = _op_kernels(raw, "symm_mem::multimem_all_reduce_")
    # in place on Input Dims [[2557440]] (888 tokens x 2880 hidden) or [[2727936]], c10::BFloat16: 2 bytes each
    assert {e["args"]["Input type"][0] for e, _ in calls} == {"c10::BFloat16"}
    sizes = [e["args"]["Input Dims"][0][0] for e, _ in calls]
    assert set(sizes) == {2557440, 2727936}
    msg = sum(n * 2 for n in sizes)
    us = sum(k["dur"] for _, ks in calls for k in ks)
    row = _row(report, "all_reduce (symm_mem::multimem_all_reduce_)")
    assert (row.calls, row.collective, row.formula, row.flops) == (73, "all_reduce", "collective", None)
    assert row.bytes == msg and row.kernel_us == pytest.approx(us)
    assert row.algbw_gbps == pytest.approx(msg / us / 1e3)  # GB/s = bytes / us / 1e3
    assert row.busbw_gbps is None and row.pct_of_roof is None  # no process group recorded: group size unknown


def test_fused_moe_from_the_routing_inside_the_call(b200):
    raw, report = b200
    (op, kernels), *_ = _op_kernels(raw, "vllm::moe_forward")
    (t, h), (_, e) = op["args"]["Input Dims"][:2]  # hidden [888, 3072], router logits [888, 128]
    assert (t, h, e) == (888, 3072, 128)
    # the top-k: the [tokens, k] int32 (ScalarType 3) index buffer the call allocates inside itself
    inside = [x for x in raw if x.get("cat") == "cpu_op" and x["name"] == "aten::empty" and x["tid"] == op["tid"]
              and op["ts"] <= x["ts"] <= op["ts"] + op["dur"]]
    assert any(x["args"]["Concrete Inputs"][:2] == ["[888, 4]", "3"] for x in inside)
    k = 4
    assert any("swiGlu" in x["name"] for x in kernels) and any("E2m1" in x["name"] for x in kernels)
    inter = 3072 // 8  # intermediate not recorded: the hidden size over the trace's 8 ranks (world_size 8)
    flops = 2 * t * k * h * inter * 2 + 2 * t * k * inter * h  # gated up (x2) + down
    hit = e * (1 - (1 - k / e) ** t)  # experts hit under uniform routing: all 128 here
    weights = int(hit * 3 * h * inter * 4.25 / 8)  # gate, up, down; mxfp4: 4 bits + an 8-bit scale per 32
    io = t * h * 2 + t * e * 2 + t * h * 2  # hidden and router read, output written (bf16)
    row = _row(report, "vllm::moe_forward")
    assert row.flops == 36 * flops and row.bytes == 36 * (io + weights)
    assert row.estimate and any("split over the trace's 8 ranks" in n for n in row.notes)
    assert row.source.startswith("vLLM vllm/model_executor/layers/fused_moe/layer.py")


def test_one_prompt_attention_from_the_plain_step_annotation(b200):
    raw, report = b200
    [ann] = [x["name"] for x in raw if x.get("cat") == "user_annotation" and x["name"].startswith("execute_")]
    assert ann.startswith("execute_context_1(888_") and ann.endswith("_generation_0(0)")  # one prompt of 888
    (op, _), *_ = _op_kernels(raw, "vllm::unified_attention_with_output")
    q, kk = op["args"]["Input Dims"][:2]  # q [888, 8, 64] fp8, k [888, 1, 64] bf16
    assert (q, kk, op["args"]["Input type"][:2]) == ([888, 8, 64], [888, 1, 64], ["c10::Float8_e4m3fn", "c10::BFloat16"])
    s = 888
    pairs = s * s - (s * s - s) // 2  # one sequence, no cached prefix: s(s+1)/2 visible pairs
    flops = 2 * 8 * pairs * (64 + 64)
    nbytes = 888 * 8 * 64 * 1 + 888 * 8 * 64 * 2 + s * 1 * (64 + 64) * 2  # q fp8, out bf16, K/V of s keys
    row = _row(report, "vllm::unified_attention_with_output")
    assert (row.calls, row.flops, row.bytes, row.estimate) == (36, 36 * flops, 36 * nbytes, True)
    assert any(n.startswith("the step annotation records token counts only") for n in row.notes)


@pytest.fixture(scope="module")
def decode_with_capture(traces_dir):
    return ops(load_trace(traces_dir / DECODE, shapes=True), device="MI300X", by="shape",
               capture=load_trace(traces_dir / CAPTURE, shapes=True))


def test_decode_attention_lengths_from_the_detailed_annotation(traces_dir, decode_with_capture):
    raw = _events(traces_dir / DECODE)
    [ann] = [x["name"] for x in raw if x.get("cat") == "user_annotation"]
    assert ann == "execute_32_context_0(sq0sk0sqsq0sqsk0)_generation_32(sq32sk55086sqsq32sqsk55086)"
    cap = _events(traces_dir / CAPTURE)
    attn = [e for e in cap if e.get("cat") == "cpu_op" and e["name"] == "vllm::unified_attention_with_output"]
    assert len(attn) == 24 and {json.dumps(e["args"]["Input Dims"][:4]) for e in attn} == {
        "[[32, 64, 64], [32, 8, 64], [32, 8, 64], [32, 64, 64]]"}
    pairs = 55086 - (32 - 32) // 2  # Σq·s − Σq(q−1)/2 with q = 1 for every decode request
    flops = 2 * 64 * pairs * (64 + 64)
    nbytes = 32 * 64 * 64 * 2 * 2 + 55086 * 8 * (64 + 64) * 2  # q read + out written, every key/value read once
    report = decode_with_capture
    [row] = [r for r in report.rows if r.op == "vllm::unified_attention_with_output"]
    assert (row.calls, row.flops, row.bytes, row.estimate) == (24, 24 * flops, 24 * nbytes, False)
    replayed = sum(e["dur"] for e in raw if e.get("cat") == "kernel"
                   and e["name"] in ("kernel_unified_attention_2d", "kernel_unified_attention_3d", "reduce_segments"))
    assert row.kernel_us == pytest.approx(replayed) and row.origin == "capture"
    assert report.counted_share > 0.999
    [norm] = [r for r in report.rows if r.op == "aiter::rmsnorm2d_fwd_with_add_ck" and r.calls == 48]
    # out, input, residual_in, residual_out [32, 2880] and the weight [2880], bf16; 5 FLOPs per element
    assert norm.flops == 48 * 5 * 32 * 2880 and norm.bytes == 48 * (4 * 32 * 2880 + 2880) * 2
    [topk] = [r for r in report.rows if r.op == "TopK"]  # logits [32, 32] read; [32, 4] values + int64 indices
    assert topk.flops == 24 * 32 * 32 and topk.bytes == 24 * (32 * 32 * 2 + 32 * 4 * 2 + 32 * 4 * 8)


def test_a_trace_holding_its_own_captures_needs_no_capture_flag(traces_dir, tmp_path, decode_with_capture):
    # One file with the capture's events and then the replay's (the same process: ids do not collide);
    # the Python stacks are left out, as ops does not read them
    capture, replay = (raw_trace(traces_dir / n) for n in (CAPTURE, DECODE))
    merged = {**replay, "traceEvents": [e for e in capture["traceEvents"] + replay["traceEvents"]
                                        if e.get("cat") != "python_function"]}
    path = tmp_path / "both.json"
    path.write_text(json.dumps(merged))
    alone = ops(load_trace(path, shapes=True), device="MI300X", by="shape")
    given = decode_with_capture
    key = lambda r: (r.op, r.shapes, r.calls, r.flops, r.bytes)  # noqa: E731
    replayed = [r for r in alone.rows if "capture" in r.origin]
    assert replayed and sorted(map(key, replayed)) == sorted(key(r) for r in given.rows if "capture" in r.origin)
    assert any("matched to the launches of this trace's own stream captures" in n for n in alone.notes)


def test_sglang_store_cache_and_exact_prefill_pairs(traces_dir):
    raw = _events(traces_dir / SGLANG)
    [ann] = [x["name"] for x in raw if x.get("cat") == "user_annotation" and x["name"].startswith("execute_")]
    assert ann == "execute_15360_context_15(sq15360sk15360sqsq15728640sqsk15728640)_generation_0(sq0sk0sqsq0sqsk0)"
    report = ops(load_trace(traces_dir / SGLANG, shapes=True))
    store = _row(report, "sglang::store_cache")  # k, v [15360, 1024] bf16 into the caches; loc int64 [15360]
    assert store.bytes == 36 * (2 * 15360 * 1024 * 2 * 2 + 15360 * 8) and store.flops == 0
    mha = _row(report, "aiter::mha_batch_prefill")
    (op, _), *_ = _op_kernels(raw, "aiter::mha_batch_prefill")
    (_, hq, d), (_, hk, _) = op["args"]["Input Dims"][:2]
    pairs = 15728640 - (15728640 - 15360) // 2  # 15 prompts of 1024: 15 x 1024 x 1025 / 2
    assert pairs == 15 * 1024 * 1025 // 2
    assert mha.flops == 36 * 2 * hq * pairs * (d + d) and not mha.estimate


def test_kernels_launched_before_the_host_window_take_a_later_steps_ops(traces_dir):
    raw = _events(traces_dir / MI300)
    launches = {e["args"]["correlation"] for e in raw if e.get("cat") == "cuda_runtime" and "correlation" in e["args"]}
    early = [e for e in raw if e.get("cat") == "kernel" and e["args"]["correlation"] not in launches]
    # the finding: their correlation ids all precede the first recorded launch
    assert len(early) == 757 and max(e["args"]["correlation"] for e in early) < min(launches)
    report = ops(load_trace(traces_dir / MI300, shapes=True))
    matched = [r for r in report.rows if "sequence" in r.origin and r.counted_us]
    assert len(matched) > 10 and all(r.estimate for r in matched)
    assert not [u for u in report.uncounted if u.reason.startswith("launched before")]
    assert report.counted_share > 0.99
    assert sum(r.counted_us for r in report.rows) + sum(u.us for u in report.uncounted) == pytest.approx(
        sum(e["dur"] for e in raw if e.get("cat") == "kernel"))
    # the gradient all-reduces: record_param_comms carries each message (In msg nelems, BFloat16)
    sizes = [e["args"]["In msg nelems"] for e in raw if e.get("name") == "record_param_comms"
             and e["args"].get("Collective name") == "allreduce"]
    assert sorted(sizes) == [2873320] * 3 + [8816192] * 3
    allreduce = _row(report, "all_reduce (record_param_comms)")
    assert allreduce.calls == 9 and allreduce.bytes >= sum(sizes) * 2  # 6 in the window, 3 before it
    assert allreduce.busbw_gbps == pytest.approx(allreduce.algbw_gbps * 2 * 7 / 8)  # all-reduce over 8 ranks


def test_a_cpu_only_trace_counts_its_ops_on_the_host(traces_dir):
    raw = [e for e in _events(traces_dir / CPU) if e.get("cat") == "cpu_op"]
    mms = [e for e in raw if e["name"] == "aten::mm"]
    flops = sum(2 * a[0] * a[1] * b[1] for e in mms for a, b in [e["args"]["Input Dims"][:2]])
    report = ops(load_trace(traces_dir / CPU, shapes=True))
    assert report.time_base == "host" and report.device is None
    row = _row(report, "aten::mm")
    assert (row.calls, row.kernels, row.flops) == (len(mms), 0, flops)
    assert row.kernel_us == pytest.approx(sum(e["dur"] for e in mms))
    # the time base: the outermost ops of each thread (an op inside another on its thread is not added)
    total = 0.0
    for tid in {e["tid"] for e in raw}:
        end = -math.inf  # the end of the outermost op so far on this thread
        for e in sorted((e for e in raw if e["tid"] == tid), key=lambda e: (e["ts"], -e["dur"])):
            if e["ts"] > end:
                total += e["dur"]
                end = e["ts"] + e["dur"]
    assert report.total_kernel_us == pytest.approx(total, rel=1e-9)
    assert report.counted_us + sum(u.us for u in report.uncounted) == pytest.approx(total, rel=1e-6)
    assert not [r for r in report.rows if r.op == "aten::linear"]  # its aten::mm is counted, not it too


@pytest.mark.parametrize("name, sums", [
    # vLLM's detailed annotation: context and generation requests apart, summed here
    ("execute_6147_context_2(sq6144sk7144sqsq20971520sqsk23019520)_generation_3(sq3sk6144sqsq3sqsk6144)",
     (6144 + 3, 7144 + 6144, 20971520 + 3, 23019520 + 6144, False)),
    # SGLang and ATOM with TraceLens's roofline patches (TraceLens/TraceUtils/annotation_utils.py examples)
    ("step[MIXED bs=2 c=1 g=1 c_sq=5 c_sk=8 c_sqsq=25 c_sqsk=40 g_sq=1 g_sk=12 g_sqsq=1 g_sqsk=12]",
     (5 + 1, 8 + 12, 25 + 1, 40 + 12, False)),
    ("decode[bs=32 tok=128 d=32 spec=3 sqsq=512 sqsk=262144 sk=65536]", (128, 65536, 512, 262144, False)),
    # vLLM's plain annotation: one prompt and no generation is a prompt with no cached prefix, assumed
    ("execute_context_1(888)_generation_0(0)", (888, 888, 888 * 888, 888 * 888, True)),
    ("execute_context_1(888_788544)_generation_0(0)", (888, 888, 888 * 888, 888 * 888, True)),
    ("execute_context_0(0)_generation_64(64)", None),  # decode: the sequence lengths are not there
    ("step[DECODE bs=32]", None),
    ("ProfilerStep#3", None),
])
def test_step_annotations_give_the_attention_sums(name, sums):
    from bench_kernel.trace._ops_context import parse_step

    assert parse_step(name) == sums


def test_the_command_shows_collectives_and_what_it_did_not_count(run_cli, traces_dir):
    r = run_cli("ops", str(traces_dir / B200), "--md", "--top", "2")
    assert r.exit_code == 0, r.stderr
    lines = r.stdout.splitlines()
    at = lines.index("### collectives (nccl-tests' algbw and busbw)")
    assert lines[at + 2] == "| Collective | Calls | Time | Message bytes | algbw GB/s | busbw GB/s |"
    assert lines[at + 4].startswith("| all_reduce (symm_mem::multimem_all_reduce_) | 73 | 2.12 ms | 368 MiB | 182 | - |")
    at = lines.index("### 0.1% not counted")
    assert lines[at + 2] == "| Not counted: why | Time | Share | Ops |"
    assert lines[at + 4] == ("| launched with no op around it (a direct Triton or extension launch records no shapes) | "
                             "5.088 µs | 0.0% |  |")
    data = json.loads(run_cli("ops", str(traces_dir / B200), "--json").stdout)
    total = data["total_kernel_us"]
    assert sum(r["counted_us"] for r in data["rows"]) + sum(u["us"] for u in data["uncounted"]) == pytest.approx(total)


def test_a_cuda_trace_with_warm_up_capture_and_replays_counts_the_replays(tmp_path):
    # As an engine records it on CUDA: an eager warm-up (ops launch kernels), a stream capture (its
    # launches are recorded, not run, and CUDA names no kernel on them), then two graph replays.
    bf16 = "c10::BFloat16"
    ev, corr = [], [100]

    def x(cat, name, ts, dur, pid=1, tid=1, **args):
        ev.append({"ph": "X", "cat": cat, "name": name, "pid": pid, "tid": tid, "ts": ts, "dur": dur, "args": args})

    def launch(ts, ext, kernel=None, dur=10.0, graph=False):
        corr[0] += 1
        x("cuda_runtime", "cudaGraphLaunch" if graph else "cudaLaunchKernel", ts, 2.0, correlation=corr[0],
          **({"External id": ext} if ext else {}))
        for i, name in enumerate([kernel] if isinstance(kernel, str) else kernel or []):
            x("kernel", name, ts + 50 + 20 * i, dur, pid=0, tid=7, correlation=corr[0], device=0, stream=7,
              grid=[1, 1, 1], block=[128, 1, 1], **({"External id": ext} if ext else {}))

    for ext, ts in ((1, 0.0), (3, 400.0)):  # eager: warm-up, then the capture (kernels not run)
        x("cpu_op", "aten::mm", ts, 30.0, **{"External id": ext, "Input Dims": [[64, 128], [128, 256]],
                                            "Input type": [bf16, bf16], "Concrete Inputs": ["", ""]})
        x("cpu_op", "aten::relu", ts + 40, 30.0, **{"External id": ext + 1, "Input Dims": [[64, 256]],
                                                   "Input type": [bf16], "Concrete Inputs": [""]})
    launch(1.0, 1, "gemm_kernel")
    launch(41.0, 2, "relu_kernel")
    x("cuda_runtime", "cudaStreamBeginCapture", 390.0, 1.0)
    launch(401.0, 3)
    launch(441.0, 4)
    x("cuda_runtime", "cudaStreamEndCapture", 480.0, 1.0)
    launch(600.0, None, ["gemm_kernel", "relu_kernel"], graph=True)
    launch(900.0, None, ["gemm_kernel", "relu_kernel"], graph=True)
    path = tmp_path / "cuda.json"
    path.write_text(json.dumps({"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "NVIDIA H200"}],
                                "traceEvents": ev}))
    report = ops(load_trace(path, shapes=True))
    assert report.counted_share == 1.0 and report.uncounted == ()
    mm = _row(report, "aten::mm")
    assert (mm.calls, mm.kernels, mm.origin, mm.flops) == (3, 3, "capture+op", 3 * 2 * 64 * 128 * 256)
    assert any("matched to this trace's eager kernels (its captured launches name no kernel)" in n
               for n in report.notes)
