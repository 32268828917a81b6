"""torch ops as targets: ``bench-kernel run examples/torch_ops.py:cases``.

A linear + SiLU (a GEMM then an elementwise kernel) checked against float32, and a top-k, each
with its FLOPs and minimal bytes: bf16 and sizes far beyond L2 on a GPU, small float32 on a CPU.
"""

import torch
import torch.nn.functional as F


def linear_silu(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    return F.silu(F.linear(x, w))


def _reference(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    return F.silu(F.linear(x.float(), w.float()))


def cases():
    gpu = torch.cuda.is_available()
    # Without a GPU: calls of ~0.5 ms on one core, so a host sample fits a scheduler slice on a busy machine.
    m, k, n = (4096, 4096, 14336) if gpu else (32, 512, 1024)
    rows, cols = (4096, 32768) if gpu else (64, 4096)
    dev, dt = ("cuda", torch.bfloat16) if gpu else ("cpu", torch.float32)
    size = torch.empty((), dtype=dt).element_size()
    return [
        {
            "name": "linear_silu",
            "fn": linear_silu,
            "make_inputs": lambda: (torch.randn(m, k, device=dev, dtype=dt),
                                    torch.randn(n, k, device=dev, dtype=dt) / k**0.5),
            "reference": _reference,
            "flops": 2.0 * m * n * k + 4.0 * m * n,
            "bytes": float(size * (m * k + n * k + m * n)),
            "params": {"m": m, "n": n, "k": k, "dtype": str(dt).removeprefix("torch.")},
        },
        {
            "name": "topk",
            "fn": lambda x: torch.topk(x, 8, dim=-1),
            "make_inputs": lambda: (torch.randn(rows, cols, device=dev, dtype=dt),),
            "bytes": float(size * rows * cols),
            "params": {"rows": rows, "cols": cols, "k": 8},
        },
    ]
