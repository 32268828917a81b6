"""An LLM engine's paged attention and fused MoE: what their arguments do not say, the trace around
the call does, and the op is counted from both (``OpCall.context``, filled by ``trace/_ops_context``).

**Paged attention** (vLLM's ``unified_attention``: query, key and value of the step's new tokens as
``[tokens, heads, dim]``; the earlier keys sit in the paged cache, which is not an argument).
With the step's per-request lengths -- query length q and sequence length s (cached + new keys) --
summed as vLLM's detailed step annotation writes them (``vllm/v1/worker/gpu_worker.py``,
``Worker.annotate_profile``: ``sq`` = Σq, ``sk`` = Σs, ``sqsq`` = Σq², ``sqsk`` = Σq·s):

- (query, key) pairs = Σ(q·s − q(q−1)/2): every new token sees the cached keys and, causally, the
  new ones up to itself -- exact, so a whole prompt of s tokens counts s(s+1)/2 (FlashAttention's
  benchmarks count s²/2);
- FLOPs = 2 · Hq · pairs · (Dqk + Dv), heads from the query (grouped-query attention counts right);
- bytes = the queries read and the output written once, and every sequence's keys and values read
  once from the cache: Σs · Hkv · (Dqk + Dv) elements in the key's dtype.

Given ``context_len`` instead (``ops --context-len``), every query token sees that many keys: exact
for decode, an upper bound for a prefill (causal masking not applied), marked an estimate.

**Fused MoE** (vLLM's ``moe_forward(hidden_states, router_logits, layer)``: the expert weights are
layer attributes, not arguments). T tokens of hidden size H routed to k of E experts, each expert an
up (gate+up when gated) and a down projection of intermediate size I:

- FLOPs = 2·T·k·H·I·(2 if gated else 1) + 2·T·k·I·H;
- bytes = the hidden states and router logits read, the output written, and the weights of the
  experts hit read once: E·(1 − (1 − k/E)^T) experts under uniform routing (TraceLens's estimate).

k comes from the routing recorded inside the call (``context['topk']``); I is the user's
(``moe_intermediate``) or, not given, taken as H -- true for gpt-oss, the model TraceLens assumes it
for -- divided by the ranks of the trace's world (``moe_split``: tensor parallelism splits the
intermediate dimension), and then the count is an estimate that says so; the weights' element width
comes from the kernel names (an mxfp4 kernel reads 4-bit weights), else the activations'.
"""

from __future__ import annotations

from bench_kernel.dtypes import bits
from bench_kernel.roofline._attention import step_sums
from bench_kernel.roofline._opargs import TensorArg, nbytes
from bench_kernel.roofline._work import FormulaError, OpCall, Work, formula, work

__all__ = ["ATTENTION_KEYS", "MOE_KEYS"]

#: Context keys of paged attention: the step's Σq, Σs, Σq², Σq·s; or one key count per token.
ATTENTION_KEYS = ("sum_q", "sum_k", "sum_qq", "sum_qk", "context_len")
#: Context keys of a fused MoE: top-k, the intermediate size, 1/0 gated, the weights' bits per element.
MOE_KEYS = ("topk", "moe_intermediate", "moe_split", "gated", "weight_bits")


def _heads(t: TensorArg, role: str) -> tuple[int, int, int]:
    if len(t.shape) != 3:
        raise FormulaError(f"{role} of shape {list(t.shape)}: expected [tokens, heads, head dim]")
    return t.shape


@formula("paged_attention")
def paged_attention(call: OpCall) -> Work:
    q, k, v = call.tensor("q"), call.tensor("k"), call.tensor("v")
    assert q is not None and k is not None and v is not None
    tokens, hq, d_qk = _heads(q, "query")
    _, hk, _ = _heads(k, "key")
    d_v = v.shape[-1]
    if hk == 0 or hq % hk:
        raise FormulaError(f"{hq} query heads are not a multiple of {hk} key heads")
    ctx = call.context
    estimate = bool(ctx.get("estimate"))
    step = step_sums(ctx)
    if step is not None:
        sq, sk, sqsq, sqsk = step
        pairs = sqsk - (sqsq - sq) // 2
        keys = sk
        if tokens != sq:
            call.notes.append(f"the step scheduled {sq} tokens; the call ran on {tokens} (the rest padding)")
    elif "context_len" in ctx:
        length = int(ctx["context_len"])
        if length < 1:
            raise FormulaError(f"context length {length}: expected at least 1 key")
        pairs = keys = tokens * length
        estimate = True
        call.notes.append(f"causal masking not applied: every query token taken to see {length} keys "
                          f"(--context-len), exact for decode, an upper bound for a prefill")
    else:
        raise FormulaError("the sequence lengths in the paged KV cache are not among the arguments and the trace "
                           "records none (vLLM: --profiler-config.detailed_trace_annotation); pass --context-len")
    if isinstance(ctx.get("note"), str):
        call.notes.append(str(ctx["note"]))
    kv_dtype = call.dtype(k)
    out = call.tensor("out", required=False)
    parts = [nbytes(q, call.dtype(q)), nbytes(out if out is not None else TensorArg((tokens * hq * d_v,), None),
                                              call.dtype(out) if out is not None else call.dtype(q)),
             nbytes(TensorArg((keys * hk * (d_qk + d_v),), kv_dtype))]
    total = None if None in parts else sum(parts)  # type: ignore[arg-type]
    if not any(n.startswith("causal") for n in call.notes):
        call.notes.append("causal: each sequence's visible (query, key) pairs, Σ(q·s − q(q−1)/2)")
    return work(call, 2 * hq * pairs * (d_qk + d_v), total, call.dtype(q), causal=True, estimate=estimate)


@formula("fused_moe")
def fused_moe(call: OpCall) -> Work:
    x, router = call.tensor("x"), call.tensor("router")
    assert x is not None and router is not None
    if len(x.shape) != 2 or len(router.shape) != 2 or x.shape[0] != router.shape[0]:
        raise FormulaError(f"hidden states {list(x.shape)} and router logits {list(router.shape)}: expected "
                           f"[tokens, hidden] and [tokens, experts]")
    (t, h), e = x.shape, router.shape[1]
    ctx = call.context
    if "topk" not in ctx:
        raise FormulaError("the top-k is not recorded (no TopK routing op or [tokens, k] index buffer inside the call)")
    topk = int(ctx["topk"])
    if not 0 < topk <= e:
        raise FormulaError(f"top-k {topk} of {e} experts")
    estimate = True  # the expert weights' shapes are never arguments: the experts hit are an estimate
    split = int(ctx.get("moe_split", 1))
    inter = int(ctx.get("moe_intermediate", 0)) or max(h // max(split, 1), 1)
    if inter < 1 or split < 1:
        raise FormulaError(f"intermediate size {inter} over {split} ranks")
    if "moe_intermediate" not in ctx:
        call.notes.append(f"intermediate size not recorded: taken as the hidden size {h}"
                          + (f" split over the trace's {split} ranks, as tensor parallelism splits it: {inter}"
                             if split > 1 else "") + " (pass --moe-intermediate)")
    gated = int(ctx.get("gated", 1))
    if "gated" not in ctx:
        call.notes.append("gated (SwiGLU) experts assumed")
    if isinstance(ctx.get("note"), str):
        call.notes.append(str(ctx["note"]))
    up = 2 if gated else 1
    flops = 2 * t * topk * h * inter * up + 2 * t * topk * inter * h
    hit = e * (1 - (1 - topk / e) ** t)
    dtype = call.dtype(x)
    w_bits = max(float(ctx.get("weight_bits", bits(dtype) if dtype else 0)), 0.0)
    io = call.io_bytes([(t * h, dtype)])
    total = None if io is None or not w_bits else io + int(hit * (up + 1) * h * inter * w_bits / 8)
    return work(call, flops, total, dtype, estimate=estimate)
