"""A callable that cannot be captured in a CUDA graph (it reads a value back to the host).

``bench-kernel run examples/capture_unsafe.py:cases`` reports the graph method's reason and
still runs the events and kernel methods.
"""

import torch


def normalise_by_max(x: torch.Tensor) -> torch.Tensor:
    peak = x.abs().max().item()  # a device-to-host sync: illegal while a graph is captured
    return x / peak


def cases():
    # Without a GPU there is no graph to refuse it: the host method times it on the CPU.
    dev = "cuda" if torch.cuda.is_available() else "cpu"
    return {"name": "normalise_by_max", "fn": normalise_by_max,
            "make_inputs": lambda: (torch.randn(1 << (22 if dev == "cuda" else 20), device=dev),)}
