"""A sweep spec: bf16 GEMM, torch.matmul against a Triton matmul with three tile configs.

    bench-kernel sweep examples/sweep_gemm.py --best --plot gemm.png --x M

On a GPU: M in {1, 16, 128, 1024, 8192}, N = K = 4096, bf16. Without one there is no Triton:
the Triton providers say "unsupported" at every point, and torch.matmul runs small float32
GEMMs (M in {1, 16, 128}, N = K = 256) with the host clock, so the sweep still shows its table.
"""

from __future__ import annotations

import torch

from bench_kernel import Unsupported

GPU = torch.cuda.is_available()
#: name -> (BLOCK_M, BLOCK_N, BLOCK_K, num_warps, num_stages): a big tile for large M, a square
#: one, and a short-M tile for the GEMV-like end of the sweep.
TRITON_CONFIGS = {
    "triton_128x256x64": (128, 256, 64, 8, 3),
    "triton_128x128x64": (128, 128, 64, 4, 4),
    "triton_32x64x128": (32, 64, 128, 4, 4),
}

if GPU:
    import triton
    import triton.language as tl

    @triton.jit
    def _matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn,
                       stride_cm, stride_cn, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                       BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):
        # The Triton tutorial's grouped-ordering matmul: fp32 accumulation, bf16 out.
        pid = tl.program_id(axis=0)
        num_pid_m = tl.cdiv(M, BLOCK_M)
        num_pid_n = tl.cdiv(N, BLOCK_N)
        num_pid_in_group = GROUP_M * num_pid_n
        group_id = pid // num_pid_in_group
        first_pid_m = group_id * GROUP_M
        group_size_m = min(num_pid_m - first_pid_m, GROUP_M)
        pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)
        pid_n = (pid % num_pid_in_group) // group_size_m
        offs_am = (pid_m * BLOCK_M + tl.arange(0, BLOCK_M)) % M
        offs_bn = (pid_n * BLOCK_N + tl.arange(0, BLOCK_N)) % N
        offs_k = tl.arange(0, BLOCK_K)
        a_ptrs = a_ptr + offs_am[:, None] * stride_am + offs_k[None, :] * stride_ak
        b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_bn[None, :] * stride_bn
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for k in range(0, tl.cdiv(K, BLOCK_K)):
            a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BLOCK_K, other=0.0)
            b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BLOCK_K, other=0.0)
            acc = tl.dot(a, b, acc)
            a_ptrs += BLOCK_K * stride_ak
            b_ptrs += BLOCK_K * stride_bk
        offs_cm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
        offs_cn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
        c_ptrs = c_ptr + stride_cm * offs_cm[:, None] + stride_cn * offs_cn[None, :]
        tl.store(c_ptrs, acc.to(tl.bfloat16), mask=(offs_cm[:, None] < M) & (offs_cn[None, :] < N))


def _triton_matmul(config: tuple[int, int, int, int, int]):
    bm, bn, bk, warps, stages = config

    def matmul(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        m, k = a.shape
        _, n = b.shape
        c = torch.empty((m, n), device=a.device, dtype=a.dtype)
        grid = (triton.cdiv(m, bm) * triton.cdiv(n, bn),)
        _matmul_kernel[grid](a, b, c, m, n, k, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                             c.stride(0), c.stride(1), BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, GROUP_M=8,
                             num_warps=warps, num_stages=stages)
        return c

    return matmul


def _case(fn, point: dict) -> dict:
    m, n, k = point["M"], point["N"], point["K"]
    dev, dt = ("cuda", torch.bfloat16) if GPU else ("cpu", torch.float32)
    size = torch.empty((), dtype=dt).element_size()

    # make_inputs, not a closure over two tensors: every call of it is a fresh input set, so the
    # timed calls rotate among enough sets to sweep L2 and the table's "cold L2" is true. A
    # `lambda: fn(a, b)` has one set, runs warm, and the table says "warm L2" for it.
    def make_inputs():
        return (torch.randn(m, k, device=dev, dtype=dt), torch.randn(k, n, device=dev, dtype=dt) / k**0.5)

    return {
        "fn": fn,
        "make_inputs": make_inputs,
        "flops": 2.0 * m * n * k,
        "bytes": float(size * (m * k + k * n + m * n)),
    }


def _torch(point: dict) -> dict:
    return _case(torch.matmul, point)


def _triton(name: str):
    def factory(point: dict) -> dict:
        if not GPU:
            raise Unsupported("Triton needs a CUDA/HIP GPU")
        return _case(_triton_matmul(TRITON_CONFIGS[name]), point)

    return factory


def sweep() -> dict:
    if GPU:
        axes = {"M": [1, 16, 128, 1024, 8192], "N": [4096], "K": [4096]}
    else:
        axes = {"M": [1, 16, 128], "N": [256], "K": [256]}
    providers = {"torch": _torch, **{name: _triton(name) for name in TRITON_CONFIGS}}
    return {"axes": axes, "providers": providers, "baseline": "torch"}
