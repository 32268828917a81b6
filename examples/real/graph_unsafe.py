"""A function CUDA-graph capture cannot take: selecting by a boolean mask gives a tensor whose size
the host must read back (a device-to-host sync), which is illegal while a graph is captured.
``run`` reports why the graph method failed and times it with the others.
"""

import torch


def positive_mean(x: torch.Tensor) -> torch.Tensor:
    return x[x > 0].mean()


def cases():
    return {"name": "mask_select", "fn": positive_mean,
            "make_inputs": lambda: (torch.randn(1 << 24, device="cuda"),)}
