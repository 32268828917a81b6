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
    assert c.flops == 4 * 2 * 4 * 256 * 256 * 64  # torch's own formula for the CUDA SDPA ops
    assert c.bytes >= 4 * q.numel() * 2  # q, k, v read and the output written, at least
