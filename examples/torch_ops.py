"""torch ops as targets: ``bench-kernel run examples/torch_ops.py:cases``.

A bf16 linear + SiLU (a GEMM then an elementwise kernel) checked against float32, and a
device-side top-k, each with its FLOPs and minimal bytes.
"""

import torch
import torch.nn.functional as F


def linear_silu(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    return F.silu(F.linear(x, w))


def _reference(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    return F.silu(F.linear(x.float(), w.float()))


def cases():
    m, k, n = 4096, 4096, 14336
    dev, dt = "cuda", torch.bfloat16
    return [
        {
            "name": "linear_silu",
            "fn": linear_silu,
            "make_inputs": lambda: (torch.randn(m, k, device=dev, dtype=dt),
                                    torch.randn(n, k, device=dev, dtype=dt) / k**0.5),
            "reference": _reference,
            "flops": 2.0 * m * n * k + 4.0 * m * n,
            "bytes": 2.0 * (m * k + n * k + m * n),
            "params": {"m": m, "n": n, "k": k, "dtype": "bfloat16"},
        },
        {
            "name": "topk",
            "fn": lambda x: torch.topk(x, 8, dim=-1),
            "make_inputs": lambda: (torch.randn(4096, 32768, device=dev, dtype=dt),),
            "bytes": 2.0 * 4096 * 32768,
            "params": {"rows": 4096, "cols": 32768, "k": 8},
        },
    ]
