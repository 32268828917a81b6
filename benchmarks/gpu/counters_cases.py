"""The cases of ``benchmarks/gpu/counters.py`` and ``tests/test_counters_gpu.py`` (a TARGET: a child process
loads them by path to count them): the counters suite, a Triton kernel and a ``torch.compile``d function.

No case states its FLOPs or bytes: bench-kernel's model counts them (``--roofline``), and that model is
what the hardware counters check.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F

DEV = "cuda"
BF16 = torch.bfloat16


def _randn(*shape: int, dtype: torch.dtype = torch.float32) -> torch.Tensor:
    return torch.randn(*shape, device=DEV, dtype=dtype)


def scale_(x: torch.Tensor) -> torch.Tensor:
    """In place: reads and writes every element once (2 x size bytes)."""
    return x.mul_(1.0001)


def rmsnorm(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    return F.rms_norm(x, (x.shape[-1],), w, 1e-6)


def causal_sdpa(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    return F.scaled_dot_product_attention(q, k, v, is_causal=True)


def _add_kernel():
    import triton
    import triton.language as tl

    @triton.jit
    def add_kernel(x, y, out, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        mask = offs < n
        tl.store(out + offs, tl.load(x + offs, mask=mask) + tl.load(y + offs, mask=mask), mask=mask)

    def triton_add(x: torch.Tensor, y: torch.Tensor, out: torch.Tensor) -> torch.Tensor:
        n = x.numel()
        add_kernel[(triton.cdiv(n, 1024),)](x, y, out, n, BLOCK=1024)
        return out

    return triton_add


def suite() -> list[dict]:
    """The counters suite: tiny add, 4 MB and 256 MB mul_, GEMV, 8192^3 GEMM, causal SDPA, RMSNorm."""
    return [
        {"name": "tiny_add", "fn": torch.add, "make_inputs": lambda: (_randn(1), _randn(1))},
        {"name": "mul_4MB", "fn": scale_, "make_inputs": lambda: (_randn(1 << 20),), "params": {"bytes": 4 << 20}},
        {"name": "mul_256MB", "fn": scale_, "make_inputs": lambda: (_randn(1 << 26),), "params": {"bytes": 256 << 20}},
        {"name": "gemv_bf16", "fn": torch.matmul, "make_inputs": lambda: (_randn(8192, 8192, dtype=BF16),
                                                                           _randn(8192, 1, dtype=BF16)),
         "params": {"m": 8192, "n": 1, "k": 8192}},
        {"name": "gemm_8192_bf16", "fn": torch.matmul,
         "make_inputs": lambda: (_randn(8192, 8192, dtype=BF16), _randn(8192, 8192, dtype=BF16)),
         "params": {"m": 8192, "n": 8192, "k": 8192}},
        {"name": "sdpa_causal", "fn": causal_sdpa,
         "make_inputs": lambda: tuple(_randn(4, 16, 2048, 128, dtype=BF16) for _ in range(3)),
         "params": {"batch": 4, "heads": 16, "seq": 2048, "head_dim": 128}},
        {"name": "rmsnorm", "fn": rmsnorm, "make_inputs": lambda: (_randn(8192, 4096, dtype=BF16),
                                                                    _randn(4096, dtype=BF16)),
         "params": {"rows": 8192, "hidden": 4096}},
    ]


def proof() -> list[dict]:
    """The GPU tests' cases: the streaming mul_, a bf16 GEMM, a Triton kernel, a compiled function."""
    compiled = torch.compile(lambda t: F.silu(t) * t)
    return [
        suite()[2],
        {"name": "gemm_4096_bf16", "fn": torch.matmul,
         "make_inputs": lambda: (_randn(4096, 4096, dtype=BF16), _randn(4096, 4096, dtype=BF16)),
         "params": {"m": 4096, "n": 4096, "k": 4096}},
        {"name": "triton_add", "fn": _add_kernel(),
         "make_inputs": lambda: (_randn(1 << 24), _randn(1 << 24), torch.empty(1 << 24, device=DEV))},
        {"name": "compiled_silu_mul", "fn": compiled, "make_inputs": lambda: (_randn(8192, 4096, dtype=BF16),)},
    ]
