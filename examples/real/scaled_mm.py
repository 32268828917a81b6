"""``torch._scaled_mm``: an fp8 (e4m3) GEMM with per-tensor scales and a bf16 output, 8192³.

cuBLASLt wants the second operand column-major, hence ``.t()`` of a row-major ``[N, K]``. Needs
an fp8 GPU (sm_89 and later: L40S, H100, H200, B200).
"""

import torch

from bench_kernel.errors import TargetError

M = N = K = 8192


def _inputs():
    a = torch.randn(M, K, device="cuda").to(torch.float8_e4m3fn)
    b = torch.randn(N, K, device="cuda").to(torch.float8_e4m3fn).t()
    one = torch.ones((), device="cuda", dtype=torch.float32)
    return a, b, one, one.clone()


def scaled_mm(a, b, scale_a, scale_b):
    return torch._scaled_mm(a, b, scale_a=scale_a, scale_b=scale_b, out_dtype=torch.bfloat16)


def cases():
    if not torch.cuda.is_available() or torch.cuda.get_device_capability() < (8, 9):
        raise TargetError("torch._scaled_mm needs an fp8 GPU (compute capability 8.9 or later)")
    return {"name": "scaled_mm_fp8", "fn": scaled_mm, "make_inputs": _inputs, "params": {"m": M, "n": N, "k": K}}
