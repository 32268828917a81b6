"""``torch.compile``d GEMM + GELU, as users write it: default mode and ``max-autotune-no-cudagraphs``.

With the default mode Inductor calls cuBLAS for the GEMM and fuses ``gelu(.) * 2`` into one Triton
kernel (``triton_poi_fused_gelu_mul_0``); max-autotune may pick a Triton GEMM template instead.
"""

import torch
import torch.nn.functional as F

N = 4096


def _fn(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    return F.gelu(x @ w) * 2


def _inputs():
    x = torch.randn(N, N, device="cuda", dtype=torch.bfloat16)
    w = torch.randn(N, N, device="cuda", dtype=torch.bfloat16) / N**0.5
    return x, w


def cases():
    modes = {"compile_default": "default", "compile_max_autotune": "max-autotune-no-cudagraphs"}
    return [{"name": name, "fn": torch.compile(_fn, mode=mode), "make_inputs": _inputs, "reference": _fn,
             "params": {"n": N, "mode": mode}} for name, mode in modes.items()]
