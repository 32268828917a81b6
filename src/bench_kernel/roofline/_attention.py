"""Attention: ``2*B*Hq*pairs*(Dqk + Dv)`` FLOPs, where ``pairs`` are the (query, key) pairs a query
attends to.

- Heads come from the query, so grouped-query attention (2 K/V heads for 8 query heads) counts right;
  ``torch.utils.flop_counter`` asserts on such shapes ("query/key/value shapes are incompatible").
- Causal attention: with ``Lq == Lk``, half the pairs -- the convention of FlashAttention's
  benchmarks (``flops / 2 if causal``); torch's counter counts it in full. With ``Lq != Lk`` the
  visible pairs are counted under the op's alignment: top-left for torch's ``is_causal``
  (query i sees keys 0..i), bottom-right for FlashAttention-style ops (the last query sees every
  key; a one-token decode step attends to the whole context), or as ``custom_mask_type`` says.
- Variable lengths (``cu_seqlens``): exact when the values were seen (live) or when every sequence
  has the maximum length; otherwise an upper bound, said so.
- Backward: ``k`` (2.5) times the forward: five matmuls against the forward's two.

Bytes: query, key, value (and a mask) read once, the output written once; a paged KV cache is read
only as far as the sequences reach (an estimate from ``max_seqlen_k``). A paged call whose step the
engine annotated with its requests' lengths (``OpCall.context``, ``_serving``) is counted from them
exactly: pairs Σ(q·s − q(q−1)/2), cache bytes Σs keys and values.
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import Any, Mapping

from bench_kernel.roofline._opargs import TensorArg, nbytes
from bench_kernel.roofline._work import FormulaError, OpCall, Work, formula, work

__all__ = ["visible_pairs", "step_sums"]

CAUSAL_NOTE = "causal: counted as half the (query, key) pairs, as FlashAttention's benchmarks count it"


@lru_cache(maxsize=4096)
def visible_pairs(lq: int, lk: int, causal: str | None = None, window_left: int = -1,
                  window_right: int = -1) -> float:
    """(query, key) pairs attended to in one head of one sequence.

    ``causal``: None (every pair), ``"top_left"`` (query i sees keys <= i) or ``"bottom_right"``
    (query i sees keys <= i + lk - lq). With ``lq == lk`` and no window, causal is exactly half.
    ``window_left``/``window_right`` (>= 0) bound a sliding window around each query's position.
    """
    if lq <= 0 or lk <= 0:
        return 0.0
    if causal is None and window_left < 0 and window_right < 0:
        return float(lq * lk)
    if causal is not None and lq == lk and window_left < 0 and window_right < 0:
        return lq * lk / 2
    import numpy as np

    pos = np.arange(lq, dtype=np.int64) + (lk - lq if causal == "bottom_right" else 0)
    hi = np.minimum(pos, lk - 1) if causal is not None else np.full(lq, lk - 1)
    if window_right >= 0:
        hi = np.minimum(hi, pos + window_right)
    lo = np.maximum(pos - window_left, 0) if window_left >= 0 else np.zeros(lq, dtype=np.int64)
    return float(np.clip(hi - lo + 1, 0, None).sum())


def _heads_len(t: TensorArg, layout: str) -> tuple[int, int, int, int]:
    """(sequences, heads, length, head dim) of a dense q/k/v tensor."""
    s = t.shape
    if layout == "bhsd":
        if len(s) < 2:
            raise FormulaError(f"attention operand of shape {list(s)}")
        heads = s[-3] if len(s) >= 3 else 1
        return math.prod(s[:-3]) if len(s) >= 3 else 1, heads, s[-2], s[-1]
    if len(s) != 4:
        raise FormulaError(f"attention operand of shape {list(s)}: expected [batch, seq, heads, dim]")
    return s[0], s[2], s[1], s[3]


def _causal(call: OpCall, layout: str) -> str | None:
    mask_type = call.scalar("mask_type")
    if isinstance(mask_type, int) and not isinstance(mask_type, bool):
        return {1: "top_left", 2: "bottom_right"}.get(mask_type)
    if call.scalar("causal") is True:
        return "top_left" if layout == "bhsd" else "bottom_right"
    return None


def _lengths(cu: TensorArg | None) -> list[int] | None:
    if cu is None or cu.values is None or len(cu.values) < 2:
        return None
    return [b - a for a, b in zip(cu.values, cu.values[1:])]


def _varlen(call: OpCall, q: TensorArg, k: TensorArg, causal: str | None, paged: bool) -> tuple[float, int, int]:
    """(pairs summed over sequences, query heads, key heads) of a ``[tokens, heads, dim]`` layout."""
    if len(q.shape) == 4 and q.shape[0] == 1:  # the efficient kernel's varlen form: [1, tokens, heads, dim]
        q = TensorArg(q.shape[1:], q.dtype)
        k = TensorArg(k.shape[1:], k.dtype) if len(k.shape) == 4 else k
    if len(q.shape) != 3:
        raise FormulaError(f"variable-length attention with query of shape {list(q.shape)}")
    hq, hk = q.shape[1], k.shape[-2]
    cu_q, cu_k = call.tensor("cu_q", required=False), call.tensor("cu_k", required=False)
    lq, lk = _lengths(cu_q), _lengths(cu_k)
    max_q, max_k = call.scalar("max_q"), call.scalar("max_k")
    if lq is not None and (lk is not None or paged and isinstance(max_k, int)):
        lk = lk if lk is not None else [max_k] * len(lq)
        if paged:
            call.notes.append("paged KV cache: each sequence's key length taken as max_seqlen_k (an upper bound)")
        return sum(visible_pairs(a, b, causal) for a, b in zip(lq, lk)), hq, hk
    batch = cu_q.shape[0] - 1 if cu_q is not None and cu_q.shape else None
    total_q, total_k = q.shape[0], (None if paged else k.shape[0])
    if not (isinstance(max_q, int) and isinstance(max_k, int) and batch):
        raise FormulaError("variable lengths without max_seqlen_q/max_seqlen_k and cu_seqlens recorded")
    if total_q == batch * max_q and (paged or total_k == batch * max_k):
        if paged:
            call.notes.append("paged KV cache: each sequence's key length taken as max_seqlen_k (an upper bound)")
        return batch * visible_pairs(max_q, max_k, causal), hq, hk
    bound = min(total_q * max_k, (total_k or total_q * max_k) * max_q)
    call.notes.append("variable lengths not recorded (only their maxima): FLOPs are an upper bound")
    return float(bound) * (0.5 if causal else 1.0), hq, hk


def step_sums(context: Mapping[str, Any]) -> tuple[int, int, int, int] | None:
    """(Σq, Σs, Σq², Σq·s) of the step's requests from a call's context, or None (``_serving``).

    FormulaError when they cannot be one step's: a length below 0, Σq² < Σq (q >= 1 makes q² >= q),
    or fewer visible pairs than none."""
    keys = ("sum_q", "sum_k", "sum_qq", "sum_qk")
    if not all(k in context for k in keys):
        return None
    sq, sk, sqsq, sqsk = (int(context[k]) for k in keys)
    if min(sq, sk, sqsq, sqsk) < 0 or sqsq < sq or sqsk - (sqsq - sq) // 2 < 0:
        raise FormulaError(f"the step's lengths (sq {sq}, sk {sk}, sqsq {sqsq}, sqsk {sqsk}) cannot be one step's")
    return sq, sk, sqsq, sqsk


def _attention(call: OpCall, multiplier: float, backward: bool) -> Work:
    q, k, v = call.tensor("q"), call.tensor("k"), call.tensor("v")
    assert q is not None and k is not None and v is not None
    layout = call.row.word("layout") or "bhsd"
    paged = call.row.word("paged") == "yes"
    causal = _causal(call, layout)
    cu_q = call.tensor("cu_q", required=False)
    # cu_seqlens make it variable-length; a dense call may pass an empty one
    varlen = layout == "thd" or (cu_q is not None and cu_q.numel >= 2 and (len(q.shape) == 3 or q.shape[0] == 1))
    d_qk, d_v = q.shape[-1], v.shape[-1]
    step = step_sums(call.context) if paged and varlen else None
    # visible (query, key) pairs over every sequence, and that times the query heads: floats, as
    # visible_pairs and _varlen give them (a causal half, a mean where estimated)
    pairs: float
    heads_pairs: float
    if step is not None:  # the engine's step annotation: every sequence's lengths, exactly
        hq, hk = q.shape[-2], k.shape[-2]
        pairs, estimate = step[3] - (step[2] - step[0]) // 2, bool(call.context.get("estimate"))
        call.notes.append("causal: each sequence's visible (query, key) pairs from the step's lengths, "
                          "Σ(q·s − q(q−1)/2)")
        heads_pairs = hq * pairs
        out_elems = q.numel // max(d_qk, 1) * d_v
    elif varlen:
        pairs, hq, hk = _varlen(call, q, k, causal, paged)
        estimate = bool(call.notes)
        heads_pairs = hq * pairs
        out_elems = q.numel // max(d_qk, 1) * d_v
    else:
        bq, hq, lq, _ = _heads_len(q, layout)
        bk, hk, lk, _ = _heads_len(k, layout)
        if bq != bk:
            raise FormulaError(f"query and key batches differ: {list(q.shape)} vs {list(k.shape)}")
        wl, wr = call.scalar("window_left", -1), call.scalar("window_right", -1)
        wl, wr = (wl if isinstance(wl, int) else -1), (wr if isinstance(wr, int) else -1)
        heads_pairs = bq * hq * visible_pairs(lq, lk, causal, wl, wr)
        if causal is not None and lq != lk:
            share = visible_pairs(lq, lk, causal, wl, wr) / (lq * lk)
            call.notes.append(f"causal ({causal.replace('_', '-')} aligned, Lq {lq} != Lk {lk}): the {share:.1%} "
                              f"of (query, key) pairs a query sees counted")
        estimate = False
        out_elems = bq * hq * lq * d_v
        if wl >= 0 or wr >= 0:
            call.notes.append(f"sliding window ({wl}, {wr}): only the pairs inside it counted")
    if hk == 0 or hq % hk:
        raise FormulaError(f"{hq} query heads are not a multiple of {hk} key heads")
    if causal is not None and not any(n.startswith("causal") for n in call.notes):
        call.notes.append(CAUSAL_NOTE)
    if isinstance(call.value("mask"), TensorArg):
        call.notes.append("an attention mask is applied: counted as full attention (masked pairs still cost)")
    flops = int(2 * heads_pairs * (d_qk + d_v) * multiplier)
    # where the paged formulas count k and v themselves; both positions are there (k and v were read from them)
    kv_at = [p for p in (call.row.pos("k"), call.row.pos("v")) if p is not None]
    if backward:
        nb = call.io_bytes([(q.numel, call.dtype(q)), (k.numel, call.dtype(k)), (v.numel, call.dtype(v))])
    elif paged and step is not None:
        kv = nbytes(TensorArg((step[1] * hk * (d_qk + d_v),), call.dtype(k)))
        rest = call.io_bytes([(out_elems, call.dtype(q))], skip=kv_at)
        nb = None if rest is None or kv is None else rest + kv
    elif paged:
        max_k = call.scalar("max_k")
        cu_q = call.tensor("cu_q", required=False)
        seqs = cu_q.shape[0] - 1 if cu_q is not None and cu_q.shape else 1
        per_token = (k.shape[-2] * k.shape[-1], v.shape[-2] * v.shape[-1])
        kv = None
        if isinstance(max_k, int):
            k_bytes, v_bytes = (nbytes(TensorArg((seqs * max_k * n,), call.dtype(t))) for n, t in zip(per_token, (k, v)))
            kv = None if k_bytes is None or v_bytes is None else k_bytes + v_bytes
        rest = call.io_bytes([(out_elems, call.dtype(q))], skip=kv_at)
        nb = None if rest is None or kv is None else rest + kv
    else:
        nb = call.io_bytes([(out_elems, call.dtype(q))])
    return work(call, flops, nb, call.dtype(q), causal=causal is not None,
                estimate=estimate or (paged and step is None))


@formula("attention")
def attention(call: OpCall) -> Work:
    return _attention(call, 1.0, backward=False)


@formula("attention_backward")
def attention_backward(call: OpCall) -> Work:
    return _attention(call, call.row.k or 2.5, backward=True)
