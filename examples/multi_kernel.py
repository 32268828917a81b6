"""Callables that launch several kernels per call: ``bench-kernel run examples/multi_kernel.py:cases``.

The ``kernel`` method sums every kernel of one call and lists them; compare with ``graph``
(what the sequence costs in a CUDA graph) and ``events`` (with launch cost).
"""

import torch
import torch.nn.functional as F


def gemv(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    # M = 1: cuBLAS picks a split-K GEMV, a GEMV kernel plus a reduction kernel.
    return F.linear(x, w)


def layer_norm_gelu_residual(x: torch.Tensor, w: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    return x + F.gelu(F.layer_norm(x, (x.shape[-1],), w, b))


def cases():
    gpu = torch.cuda.is_available()
    # Without a GPU: float32 on the CPU, small enough for the host method (no kernels to count there).
    dev, dt = ("cuda", torch.bfloat16) if gpu else ("cpu", torch.float32)
    size = torch.empty((), dtype=dt).element_size()
    k = 4096 if gpu else 1024
    rows, h = (8192, 8192) if gpu else (256, 1024)
    return [
        {"name": f"gemv_1x{k}x{k}", "fn": gemv,
         "make_inputs": lambda: (torch.randn(1, k, device=dev, dtype=dt), torch.randn(k, k, device=dev, dtype=dt)),
         "flops": 2.0 * k * k, "bytes": float(size * (k * k + 2 * k)), "params": {"m": 1, "n": k, "k": k}},
        {"name": "ln_gelu_residual", "fn": layer_norm_gelu_residual,
         "make_inputs": lambda: (torch.randn(rows, h, device=dev, dtype=dt), torch.randn(h, device=dev, dtype=dt),
                                 torch.randn(h, device=dev, dtype=dt)),
         "bytes": float(size * 2 * rows * h), "params": {"rows": rows, "hidden": h}},
    ]
