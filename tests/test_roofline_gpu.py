"""Counting on CUDA tensors gives the same FLOPs and bytes as on the CPU."""

from __future__ import annotations

import pytest

from bench_kernel.roofline import count

pytestmark = pytest.mark.gpu


def test_gemm_and_sdpa_counts_on_the_gpu():
    import torch

    m, n, k = 256, 128, 64
    a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(k, n, device="cuda", dtype=torch.bfloat16)
    c = count(torch.mm, a, b)
    assert (c.flops, c.bytes) == (2 * m * n * k, (m * k + k * n + m * n) * 2)

    q, k, v = (torch.randn(2, 4, 256, 64, device="cuda", dtype=torch.bfloat16) for _ in range(3))
    c = count(torch.nn.functional.scaled_dot_product_attention, q, k, v)
    assert c.flops == 4 * 2 * 4 * 256 * 256 * 64  # the same formula as on the CPU, whichever backend runs
    assert c.bytes >= 4 * q.numel() * 2  # q, k, v read and the output written, at least
    assert c.dtype == "bf16" and all(o.source == "bench-kernel" for o in c.ops if o.flops)

    kv = torch.randn(2, 2, 256, 64, device="cuda", dtype=torch.bfloat16)  # GQA, causal: torch 2.11's counter raised
    c = count(lambda: torch.nn.functional.scaled_dot_product_attention(q, kv, kv, is_causal=True, enable_gqa=True))
    assert c.flops == 4 * 2 * 4 * 256 * 256 * 64 // 2 and c.causal


def test_an_fp32_gemm_on_tf32_tensor_cores_counts_as_tf32():
    import torch

    a = torch.randn(256, 256, device="cuda")
    old = torch.backends.cuda.matmul.allow_tf32
    try:
        torch.backends.cuda.matmul.allow_tf32 = True
        assert count(torch.mm, a, a).dtype == "tf32"
        torch.backends.cuda.matmul.allow_tf32 = False
        assert count(torch.mm, a, a).dtype == "fp32"
    finally:
        torch.backends.cuda.matmul.allow_tf32 = old
