"""The counting formulas (``roofline.op_work``): hand-computed values, torch's own formulas where
they are right, the op table checked against torch's schemas, and hostile arguments."""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bench_kernel.roofline import UNKNOWN, TensorArg, from_trace, op_work
from bench_kernel.roofline._attention import visible_pairs
from bench_kernel.roofline._optable import FORMULA_ROLES, op_table, scalar_type

BF16 = "c10::BFloat16"


def T(*shape, dtype="bf16", strides=None, values=None):
    return TensorArg(tuple(shape), dtype, strides, values)


# -- GEMMs ----------------------------------------------------------------------------------------

def test_gemm_family_by_hand():
    mm = op_work("aten::mm", (T(64, 32), T(32, 48)))
    assert (mm.flops, mm.bytes, mm.dtype) == (2 * 64 * 32 * 48, 2 * (64 * 32 + 32 * 48 + 64 * 48), "bf16")
    addmm = op_work("aten::addmm", (T(48), T(64, 32), T(32, 48), 1, 1))
    assert addmm.flops == mm.flops and addmm.bytes == mm.bytes + 2 * 48  # the bias is read, not counted as FLOPs
    bmm = op_work("aten::bmm", (T(4, 64, 32), T(4, 32, 48)))
    assert bmm.flops == 4 * mm.flops
    lin = op_work("aten::linear", (T(2, 512, 1024), T(4096, 1024), None))
    assert lin.flops == 2 * 1024 * 4096 * 1024 and lin.bytes == 2 * (1024 * 1024 + 4096 * 1024 + 1024 * 4096)
    assert op_work("aten::matmul", (T(7, 5), T(5))).flops == 2 * 7 * 5  # matrix x vector
    assert op_work("aten::matmul", (T(3, 1, 7, 5), T(4, 5, 6))).flops == 2 * 12 * 7 * 5 * 6  # broadcast batch
    # mm.out as a trace records it: the out= buffer is a third argument, written and not read.
    assert op_work("aten::mm", (T(64, 32), T(32, 48), T(64, 48))).bytes == mm.bytes


def test_scaled_fp8_gemm_runs_at_the_fp8_rate_and_writes_its_out_dtype():
    m, k, n = 128, 256, 64
    w = op_work("aten::_scaled_mm", (T(m, k, dtype="fp8e4m3"), T(k, n, dtype="fp8e4m3"), T(dtype="fp32"),
                                     T(dtype="fp32"), None, None, "bf16", False))
    assert (w.flops, w.dtype) == (2 * m * n * k, "fp8e4m3")
    assert w.bytes == m * k + k * n + 4 + 4 + 2 * m * n
    # A trace records out_dtype as c10's ScalarType number: 15 is bfloat16.
    traced = op_work("aten::_scaled_mm", from_trace(
        [[m, k], [k, n], [], [], [], [], [], []],
        ["c10::Float8_e4m3fn", "c10::Float8_e4m3fn", "float", "float", "", "", "Scalar", "Scalar"],
        ["", "", "", "", "", "", "15", "False"]))
    assert (traced.flops, traced.bytes) == (w.flops, w.bytes)


def test_grouped_gemm_shapes():
    # 2-D x 3-D: 3 experts share 96 ragged rows of tokens, K=32, N=16.
    w = op_work("aten::_grouped_mm", (T(96, 32), T(3, 32, 16), T(3, dtype="int32"), None, None))
    assert w.flops == 2 * 96 * 32 * 16 and w.bytes == 2 * (96 * 32 + 3 * 32 * 16 + 96 * 16) + 3 * 4
    assert op_work("aten::_grouped_mm", (T(3, 8, 32), T(3, 32, 16))).flops == 2 * 3 * 8 * 32 * 16
    assert op_work("aten::_grouped_mm", (T(8, 96), T(96, 16), T(3, dtype="int32"))).bytes == \
        2 * (8 * 96 + 96 * 16 + 3 * 8 * 16) + 12  # ragged K: one output per group


# -- attention ------------------------------------------------------------------------------------

def test_attention_counts_query_heads_so_gqa_is_right():
    b, hq, hk, l, d = 2, 8, 2, 128, 64
    w = op_work("aten::_scaled_dot_product_efficient_attention", (T(b, hq, l, d), T(b, hk, l, d), T(b, hk, l, d),
                                                                  None, False, 0.0, False, None))
    assert w.flops == 4 * b * hq * l * l * d and not w.causal
    assert w.bytes == 2 * (b * hq * l * d + 2 * b * hk * l * d + b * hq * l * d)


def test_causal_is_half_when_square_and_the_visible_pairs_otherwise():
    b, h, l, d = 1, 4, 512, 64
    full = op_work("aten::_scaled_dot_product_flash_attention", (T(b, h, l, d),) * 3 + (0.0, False, False, None))
    causal = op_work("aten::_scaled_dot_product_flash_attention", (T(b, h, l, d),) * 3 + (0.0, True, False, None))
    assert causal.flops * 2 == full.flops and causal.causal
    assert causal.notes == ("causal: counted as half the (query, key) pairs, as FlashAttention's benchmarks count it",)
    # torch's is_causal is top-left aligned: with 4 queries and 8 keys, query i sees i + 1 keys.
    assert visible_pairs(4, 8, "top_left") == 1 + 2 + 3 + 4
    # FlashAttention aligns bottom-right: one decode query sees every key of the context.
    assert visible_pairs(1, 4096, "bottom_right") == 4096
    assert visible_pairs(4, 8, "bottom_right") == 5 + 6 + 7 + 8
    assert visible_pairs(8, 8, None, window_left=2, window_right=0) == 1 + 2 + 3 * 6


def test_flash_forward_varlen_is_exact_with_lengths_and_bounded_without():
    h, d = 4, 64
    lengths = [100, 28]
    cu = T(3, dtype="int32", values=(0, 100, 128))
    args = [T(128, h, d), T(128, h, d), T(128, h, d), cu, cu, 100, 100, 0.0, True, False, None, None, None]
    exact = op_work("aten::_flash_attention_forward", args)
    assert exact.flops == 2 * h * sum(n * n / 2 for n in lengths) * 2 * d
    args[3] = args[4] = T(3, dtype="int32")  # a trace: the cu_seqlens values are not recorded
    bound = op_work("aten::_flash_attention_forward", args)
    assert bound.estimate and bound.flops >= exact.flops
    assert "variable lengths not recorded (only their maxima): FLOPs are an upper bound" in bound.notes


def test_paged_prefill_from_a_real_trace_row():
    # aiter's mha_batch_prefill as SGLang's MI300 prefill trace records it: 15 sequences of 1024.
    w = op_work("aiter::mha_batch_prefill", from_trace(
        [[15360, 32, 128], [835874, 8, 128], [835874, 8, 128], [16], [16], [15616]] + [[]] * 12,
        [BF16] * 3 + ["int"] * 3 + ["Scalar"] * 12,
        [""] * 6 + ["1024", "1024", "0.", "0.0884", "0.", "False", "True", "-1", "-1", "0", "False", "False"]))
    assert w.flops == 15 * 32 * (1024 * 1024 // 2) * 2 * (128 + 128) and w.causal and w.estimate
    kv_read = 2 * 15 * 1024 * 8 * 128 * 2  # only as far as the sequences reach, not the whole cache
    assert w.bytes == 2 * 15360 * 32 * 128 + 16 * 4 * 2 + 15616 * 4 + kv_read + 2 * 15360 * 32 * 128


def test_attention_backward_is_two_and_a_half_forwards():
    q = T(1, 4, 256, 64)
    fwd = op_work("aten::_scaled_dot_product_flash_attention", (q, q, q, 0.0, True, False, None))
    bwd = op_work("aten::_scaled_dot_product_flash_attention_backward",
                  (q, q, q, q, q, T(1, 4, 256, dtype="fp32"), None, None, 256, 256, 0.0, True, None, None, None))
    assert bwd.flops == 2.5 * fwd.flops


# -- convolution ----------------------------------------------------------------------------------

def test_convolution_from_a_real_trace_row():
    # MI300 ResNet trace: miopen_convolution of [10, 256, 14, 14] by [512, 256, 3, 3], stride 2, pad 1.
    w = op_work("aten::miopen_convolution", from_trace(
        [[10, 256, 14, 14], [512, 256, 3, 3], [], [], [], [], [], [], []],
        [BF16, BF16, "", "ScalarList", "ScalarList", "ScalarList", "Scalar", "Scalar", "Scalar"],
        ["", "", "", "[1, 1]", "[2, 2]", "[1, 1]", "1", "False", "False"]))
    out = 10 * 512 * 7 * 7
    assert w.flops == 2 * out * 256 * 9
    assert w.bytes == 2 * (10 * 256 * 14 * 14 + 512 * 256 * 9 + out)


def test_convolution_backward_counts_the_gradients_asked_for():
    grad, x, wt = T(10, 512, 7, 7), T(10, 512, 7, 7), T(512, 512, 3, 3)
    both = op_work("aten::convolution_backward", (grad, x, wt, [0], [1, 1], [1, 1], [1, 1], False, [0, 0], 1,
                                                  [True, True, False]))
    fwd = 2 * 10 * 512 * 49 * 512 * 9
    assert both.flops == 2 * fwd
    only_weight = op_work("aten::convolution_backward", (grad, x, wt, [0], [1, 1], [1, 1], [1, 1], False, [0, 0], 1,
                                                         [False, True, False]))
    assert only_weight.flops == fwd


def test_convolution_without_concrete_inputs_says_why():
    w = op_work("aten::convolution", from_trace([[1, 3, 8, 8], [4, 3, 3, 3], [], [], [], [], [], [], []],
                                                ["float", "float", "", "ScalarList", "ScalarList", "ScalarList",
                                                 "Scalar", "ScalarList", "Scalar"]))
    assert w.flops is None and "its stride is not recorded (the trace has no Concrete Inputs)" in w.reason


# -- per-element and data-movement ops ------------------------------------------------------------

def test_elementwise_broadcast_in_place_and_comparisons():
    n = 2 * 512 * 1024
    mul = op_work("aten::mul", from_trace([[2, 512, 1024], []], [BF16, "Scalar"], ["", "2"]))
    assert (mul.flops, mul.bytes) == (n, 2 * 2 * n)
    # A stride-0 (expanded) operand is read once per distinct element, as the kernel reads it.
    bcast = op_work("aten::add", (T(2, 512, 1024), T(2, 512, 1024, strides=(0, 1024, 1)), 1))
    assert bcast.bytes == 2 * (n + n // 2 + n)
    assert op_work("aten::add_", (T(1000), T(1000), 1)).bytes == 2 * 3 * 1000  # reads both, writes the first
    eq = op_work("aten::eq", (T(1000, dtype="int64"), T(1000, dtype="int64")))
    assert eq.bytes == 8 * 2000 + 1000  # a bool result
    promoted = op_work("aten::mul", (T(64, dtype="bf16"), T(64, dtype="fp32")))
    assert promoted.bytes == 2 * 64 + 4 * 64 + 4 * 64  # the result is fp32


def test_reductions_norms_softmax():
    mean = op_work("aten::mean", from_trace([[2, 512, 1024], [], [], []], ["float", "ScalarList", "Scalar", ""],
                                            ["", "[-1]", "True", ""]))
    assert (mean.flops, mean.bytes) == (2 * 512 * 1024, 4 * (2 * 512 * 1024 + 2 * 512))
    assert op_work("aten::sum", (T(4, 8), None)).bytes == 2 * 32 + 2  # no dim: everything
    assert op_work("aten::argmax", (T(2, 32000, dtype="fp32"), -1, False)).bytes == 4 * 64000 + 8 * 2
    ln = op_work("aten::native_layer_norm", (T(8, 1024), [1024], T(1024), T(1024), 1e-5))
    assert (ln.flops, ln.bytes) == (5 * 8 * 1024, 2 * (8 * 1024 + 2 * 1024 + 8 * 1024))
    fused = op_work("_C::fused_add_rms_norm", (T(888, 2880), T(888, 2880), T(2880), 1e-5))
    assert fused.bytes == 2 * (4 * 888 * 2880 + 2880)  # input and residual read and written in place
    sm = op_work("aten::_softmax", (T(8, 128), -1, True))
    assert (sm.flops, sm.bytes) == (5 * 8 * 128, 2 * 1024 + 4 * 1024)  # half_to_float writes fp32


def test_gathers_read_rows_not_tables():
    emb = op_work("aten::embedding", (T(32000, 1024), T(2, 512, dtype="int64"), -1, False, False))
    assert emb.bytes == 8 * 1024 + 2 * (2 * 2 * 512 * 1024)
    sel = op_work("aten::index_select", (T(32000, 1024), 0, T(7, dtype="int64")))
    assert sel.bytes == 8 * 7 + 2 * 2 * 7 * 1024
    cache = op_work("_C_cache_ops::reshape_and_cache_flash", (T(32, 8, 64), T(32, 8, 64), T(4096, 16, 8, 64),
                                                             T(4096, 16, 8, 64), T(32, dtype="int64"), "auto"))
    assert cache.bytes == 2 * 2 * 32 * 8 * 64 + 32 * 8 + 2 * 2 * 32 * 8 * 64


def test_routing_and_copies():
    tk = op_work("aten::topk", (T(888, 128, dtype="fp32"), 4, -1, True, True))
    assert (tk.flops, tk.bytes) == (888 * 128, 4 * 888 * 128 + (4 + 8) * 888 * 4)
    srt = op_work("aten::sort", (T(4, 1024, dtype="fp32"), -1, False))
    assert srt.flops == 4 * 1024 * 10
    to_bf16 = op_work("aten::_to_copy", from_trace([[1024], [], [], [], [], [], []],
                                                   ["float", "Scalar", "", "", "", "Scalar", ""],
                                                   ["", "15", "", "", "", "False", ""]))
    assert (to_bf16.bytes, to_bf16.dtype) == (4 * 1024 + 2 * 1024, "bf16")
    cat = from_trace([[[2, 512, 32], [2, 512, 32]], []], ["TensorList", "Scalar"], ["", "-1"])
    assert op_work("aten::cat", cat).bytes is None  # a tensor list's dtype is not recorded ...
    assert op_work("aten::cat", cat, dtype_hint="bf16").bytes == 2 * 2 * 2 * 2 * 512 * 32  # ... unless hinted


def test_uncountable_ops_say_why_and_triton_kernels_estimate_bytes():
    moe = op_work("vllm::moe_forward", (T(32, 3072), T(32, 32), None))  # no context: the trace gave no top-k
    assert moe.flops is None and moe.reason.endswith("the top-k is not recorded (no TopK routing op or [tokens, k] "
                                                     "index buffer inside the call)")
    tri = op_work("triton_poi_fused_mul_silu_0", from_trace([[64, 2816], [64, 2816], []], [BF16, BF16, "Scalar"],
                                                            ["", "", "180224"]))
    assert (tri.flops, tri.bytes, tri.estimate) == (None, 2 * 2 * 64 * 2816, True)
    assert op_work("aten::not_in_the_table", (T(4),)) is None


# -- the table and the trace argument form --------------------------------------------------------

def test_every_row_parses_and_names_a_known_formula():
    table = op_table()
    assert len(table) > 150 and {r.formula for r in table.values()} <= set(FORMULA_ROLES)
    assert table["aten::_cudnn_attention_forward"].pos("causal") == 10


#: role -> the schema argument names it may point at (torch's names for the same thing).
_ROLE_NAMES = {
    "q": {"query", "q"}, "k": {"key", "k"}, "v": {"value", "v"}, "causal": {"is_causal"},
    "mask": {"attn_bias", "attn_mask", "bias"}, "cu_q": {"cum_seq_q", "cu_seqlens_q"},
    "cu_k": {"cum_seq_k", "cu_seqlens_k"}, "max_q": {"max_q", "max_seqlen_q"}, "max_k": {"max_k", "max_seqlen_k"},
    "mask_type": {"custom_mask_type"}, "window_left": {"window_size_left"}, "window_right": {"window_size_right"},
    "bias": {"self", "bias", "input"}, "a": {"self", "mat1", "batch1", "input", "tensor1"},
    "b": {"mat2", "batch2", "vec", "other", "tensor"}, "x": {"input", "self", "grad_out", "grad_output"},
    "w": {"weight"}, "grad": {"grad_output"}, "stride": {"stride"}, "padding": {"padding"},
    "dilation": {"dilation"}, "transposed": {"transposed"}, "output_padding": {"output_padding"},
    "groups": {"groups"}, "out_dtype": {"out_dtype"}, "offs": {"offs"}, "dim": {"dim"},
    "keepdim": {"keepdim"}, "half_to_float": {"half_to_float"}, "table": {"weight", "self"},
    "index": {"indices", "index"}, "src": {"src", "self"}, "dst": {"self"}, "dtype": {"dtype"}, "size": {"size"},
    "list": {"tensors"},
}


def test_aten_rows_point_at_the_right_schema_arguments():
    torch = pytest.importorskip("torch")
    checked = 0
    for row in op_table().values():
        ns, _, name = row.op.rpartition("::")
        packet = getattr(torch.ops.aten, name, None) if ns == "aten" else None
        if packet is None:
            continue
        schemas = [packet.overloads() and getattr(packet, o)._schema for o in packet.overloads()]
        for role, pos in row.args.items():
            if isinstance(pos, str) or role not in _ROLE_NAMES:
                continue
            names = {s.arguments[p].name for s in schemas for p in ((pos,) if isinstance(pos, int) else pos)
                     if p < len(s.arguments)}
            assert names & _ROLE_NAMES[role] or role == "mask" and row.op.endswith("_backward"), (row.op, role, names)
            checked += 1
    assert checked > 100


def test_trace_arguments_parse_and_malformed_ones_do_not_raise():
    args = from_trace([[2, 3], [], [[1, 2], [3, 4]], []], [BF16, "ScalarList", "TensorList", "Scalar"],
                      ["", "[1, -1]", "", "0."], [[3, 1], [], [[2, 1], [4, 1]], []])
    assert args == (TensorArg((2, 3), "bf16", (3, 1)), [1, -1], [TensorArg((1, 2), None, (2, 1)),
                                                                   TensorArg((3, 4), None, (4, 1))], 0.0)
    assert from_trace([["x"], -1], [BF16, "Scalar"], ["", ""]) == (UNKNOWN, UNKNOWN)
    assert from_trace(None, None) == ()


def test_scalar_type_numbers_match_what_the_profiler_records(tmp_path):
    torch = pytest.importorskip("torch")
    from bench_kernel.measure._profiler_start import kineto_session, save_trace

    dtypes = [torch.bfloat16, torch.float16, torch.float32, torch.int64, torch.bool, torch.float8_e4m3fn]
    # the session bench-kernel records with (torch.profiler.profile's first one imports torch._inductor:
    # 5 s of compiling on a clean clone)
    with kineto_session(device=False, record_shapes=True) as prof:
        for d in dtypes:
            torch.empty(2, dtype=d)
    save_trace(prof, tmp_path / "t.json")
    events = [e for e in json.loads((tmp_path / "t.json").read_text())["traceEvents"] if e.get("name") == "aten::empty"]
    codes = [int(e["args"]["Concrete Inputs"][1]) for e in events]
    assert [scalar_type(c) for c in codes] == ["bf16", "fp16", "fp32", "int64", "bool", "fp8e4m3"]


# -- torch's formulas, where they are right ----------------------------------------------------------

@pytest.mark.parametrize("build", [
    lambda t: (t.mm, (t.empty(64, 32), t.empty(32, 48))),
    lambda t: (t.addmm, (t.empty(48), t.empty(64, 32), t.empty(32, 48))),
    lambda t: (t.bmm, (t.empty(3, 64, 32), t.empty(3, 32, 48))),
    lambda t: (t.baddbmm, (t.empty(3, 64, 48), t.empty(3, 64, 32), t.empty(3, 32, 48))),
    lambda t: (t.nn.functional.conv2d, (t.empty(2, 6, 17, 17), t.empty(8, 3, 3, 3), None, 2, 1, 2, 2)),
    lambda t: (t.nn.functional.conv_transpose2d, (t.empty(2, 8, 9, 9), t.empty(8, 3, 3, 3), None, 2, 1, 1, 1)),
    lambda t: (t.nn.functional.conv1d, (t.empty(4, 16, 100), t.empty(32, 16, 5))),
])
def test_same_flops_as_torch_where_torch_is_right(build):
    torch = pytest.importorskip("torch")
    from torch.utils.flop_counter import FlopCounterMode

    from bench_kernel.roofline import count

    fn, args = build(torch)
    args = tuple(a.to("meta") if isinstance(a, torch.Tensor) else a for a in args)
    with FlopCounterMode(display=False) as theirs:
        fn(*args)
    ours = count(fn, *args)
    assert ours.flops == theirs.get_total_flops() > 0
    assert all(o.source == "bench-kernel" for o in ours.ops)


def test_torch_counts_causal_attention_in_full_ours_counts_half():
    torch = pytest.importorskip("torch")
    from torch.utils.flop_counter import flop_registry

    q = torch.empty(2, 8, 256, 64, device="meta")
    theirs = flop_registry[torch.ops.aten._scaled_dot_product_efficient_attention](q, q, q, None, False, 0.0, True,
                                                                                  out_val=None)
    ours = op_work("aten::_scaled_dot_product_efficient_attention", (T(2, 8, 256, 64),) * 3 + (None, False, 0.0,
                                                                                             True, None))
    assert theirs == 4 * 2 * 8 * 256 * 256 * 64 == 2 * ours.flops


# -- hostile arguments: never an exception -------------------------------------------------------------

_values = st.one_of(st.none(), st.booleans(), st.integers(-5, 10**6), st.floats(allow_nan=True),
                    st.text(max_size=4), st.lists(st.integers(-3, 64), max_size=5),
                    st.builds(TensorArg, st.lists(st.integers(0, 64), max_size=5).map(tuple),
                              st.sampled_from(["bf16", "fp32", "int64", None])),
                    st.just(UNKNOWN))


@settings(max_examples=300, deadline=None)
@given(op=st.sampled_from(sorted(op_table())), args=st.lists(_values, max_size=14))
def test_any_arguments_give_work_or_a_reason(op, args):
    w = op_work(op, args)
    assert w is not None and w.op == op
    if w.flops is None or w.bytes is None:
        assert w.reason
    else:
        assert w.flops >= 0 and w.bytes >= 0 and math.isfinite(w.flops)


def test_cat_of_a_list_that_holds_no_tensors_gives_a_reason():
    # found by the hypothesis test above: a recorded list of ints where the tensors should be
    w = op_work("aten::cat", [[0]])
    assert (w.bytes, w.reason) == (None, "the recorded arguments do not fit the cat formula: its tensor list is not recorded")


# -- serving ops: what the trace around the call records (roofline/_serving.py) ---------------------

def test_paged_attention_from_the_step_lengths_or_a_context_length():
    q, kv = T(4, 32, 128), T(4, 8, 128)  # 4 new tokens, 32 query heads over 8 K/V heads
    # two requests: a chunk of q=3 after 5 cached tokens (s=8), and one decode token at s=10
    step = {"sum_q": 3 + 1, "sum_k": 8 + 10, "sum_qq": 9 + 1, "sum_qk": 3 * 8 + 1 * 10}
    w = op_work("vllm::unified_attention_with_output", (q, kv, kv, q, "layer"), context=step)
    pairs = (3 * 5 + (1 + 2 + 3)) + 10  # the chunk sees the 5 cached keys and causally its own; decode sees all 10
    assert pairs == step["sum_qk"] - (step["sum_qq"] - step["sum_q"]) // 2
    assert (w.flops, w.estimate, w.causal) == (2 * 32 * pairs * (128 + 128), False, True)
    assert w.bytes == 2 * 4 * 32 * 128 * 2 + 18 * 8 * 256 * 2  # q read and out written; 18 keys and values read
    w = op_work("vllm::unified_attention", (q, kv, kv), context={"context_len": 1000})
    assert (w.flops, w.estimate) == (2 * 32 * 4 * 1000 * 256, True)  # each token sees 1000 keys: an upper bound
    w = op_work("vllm::unified_attention", (q, kv, kv))
    assert w.flops is None and w.reason.endswith("pass --context-len")
    w = op_work("vllm::unified_attention", (q, kv, kv), context={**step, "sum_qq": 1})  # Σq² < Σq: not a step
    assert w.flops is None and "cannot be one step's" in w.reason


def test_fused_moe_by_hand():
    x, router = T(16, 1024), T(16, 8)  # 16 tokens, hidden 1024, 8 experts
    w = op_work("vllm::moe_forward", (x, router, "layer"), context={"topk": 2, "moe_intermediate": 512, "gated": 1})
    assert w.flops == 2 * 16 * 2 * 1024 * 512 * 2 + 2 * 16 * 2 * 512 * 1024
    hit = 8 * (1 - (1 - 2 / 8) ** 16)  # experts hit under uniform routing
    assert w.bytes == (16 * 1024 + 16 * 8 + 16 * 1024) * 2 + int(hit * 3 * 1024 * 512 * 16 / 8)
    assert w.estimate and "gated (SwiGLU) experts assumed" not in w.notes
    w = op_work("vllm::moe_forward", (x, router, "layer"), context={"topk": 2, "moe_split": 4})
    assert w.flops == 2 * 16 * 2 * 1024 * 256 * 3  # intermediate 1024 / 4 ranks, gated assumed
    assert w.notes[0].startswith("intermediate size not recorded: taken as the hidden size 1024 split over")
    assert op_work("vllm::moe_forward", (x, router), context={"topk": 9}).reason.endswith("top-k 9 of 8 experts")


_contexts = st.dictionaries(st.sampled_from(["sum_q", "sum_k", "sum_qq", "sum_qk", "context_len", "topk",
                                             "moe_intermediate", "moe_split", "gated", "weight_bits"]),
                            st.integers(-10, 10**6), max_size=6)


@settings(max_examples=300, deadline=None)
@given(op=st.sampled_from(["vllm::unified_attention_with_output", "vllm::moe_forward", "aiter::mha_batch_prefill"]),
       args=st.lists(_values, max_size=8), context=_contexts)
def test_any_serving_context_gives_work_or_a_reason(op, args, context):
    w = op_work(op, args, context=context)
    assert w is not None and (w.reason if w.flops is None or w.bytes is None else w.flops >= 0 and w.bytes >= 0)


def test_an_engine_row_must_cite_its_kernel_source(monkeypatch):
    from bench_kernel import datafile
    from bench_kernel.errors import InputError
    from bench_kernel.roofline import _optable

    header = "op\tformula\tk\targs\tnote\tsource\n"
    for row, message in [("vllm::thing\tnorm\t4\tx=0\t-\t-\n", "op 'vllm::thing': cite its kernel's source"),
                         ("aten::thing\tnorm\t4\tx=0\t-\tsomewhere.cu\n", "op 'aten::thing': a PyTorch op's source is -")]:
        monkeypatch.setattr(_optable, "read_package_tsv", lambda p, n, cols, check, text=header + row:
                            datafile.read_tsv(text, "planted.tsv", cols, check))
        _optable.op_table.cache_clear()
        with pytest.raises(InputError, match=f"planted.tsv:2: {message}"):
            _optable.op_table()
    _optable.op_table.cache_clear()
