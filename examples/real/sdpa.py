"""``scaled_dot_product_attention`` with grouped-query heads (32 query heads, 8 K/V heads), with
and without causal masking: batch 4, 4096 tokens, head dim 128, bf16.

torch.utils.flop_counter (2.11) raised "sdpa_flop_count: query/key/value shapes are incompatible" on
the GQA shapes, and counts causal attention in full: bench-kernel's own formula counts the query's
heads and half the pairs when causal.
"""

import torch
import torch.nn.functional as F

B, HQ, HKV, L, D = 4, 32, 8, 4096, 128


def _inputs():
    q = torch.randn(B, HQ, L, D, device="cuda", dtype=torch.bfloat16)
    kv = torch.randn(B, HKV, L, D, device="cuda", dtype=torch.bfloat16)
    return q, kv, kv.clone()


def gqa(q, k, v):
    return F.scaled_dot_product_attention(q, k, v, enable_gqa=True)


def gqa_causal(q, k, v):
    return F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=True)


def cases():
    params = {"batch": B, "q_heads": HQ, "kv_heads": HKV, "seq": L, "head_dim": D}
    return [{"name": "sdpa_gqa", "fn": gqa, "make_inputs": _inputs, "params": params},
            {"name": "sdpa_gqa_causal", "fn": gqa_causal, "make_inputs": _inputs, "params": params}]
