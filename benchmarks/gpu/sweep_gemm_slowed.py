"""examples/sweep_gemm.py with one provider made ~10% slower at every point: the regression that
``benchmarks/gpu/sweep_gemm.sh`` and ``report_example.sh`` prove ``bench-kernel compare`` catches.

    SWEEP_GEMM_SLOW=torch bench-kernel sweep benchmarks/gpu/sweep_gemm_slowed.py

``SWEEP_GEMM_SLOW`` names the provider (default ``torch``). After each call it spins for a tenth of
the call's own time: a ``torch.cuda._sleep`` kernel sized from a quick timing in the factory, on the
CPU a busy wait. An extra GEMM was tried first: at small M its launch alone made the provider
1.6-2.6x slower, not 10%. The example itself stays what a user copies, with no test hooks in it.
"""

from __future__ import annotations

import importlib.util
import os
import statistics
import time
from pathlib import Path
from typing import Any, Callable

import torch

_EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "sweep_gemm.py"
GPU = torch.cuda.is_available()
#: What one more graph node costs on an H200 (per-node slope of the sub-microsecond experiment).
NODE_US = 1.1


def _example() -> Any:
    spec = importlib.util.spec_from_file_location("sweep_gemm_example", _EXAMPLE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _call_us(fn: Callable, inputs: tuple) -> float:
    """Median time of one call of ``fn(*inputs)``, microseconds (warm; events on a GPU)."""
    for _ in range(5):
        fn(*inputs)
    if GPU:
        from bench_kernel.gpu import time_each_us

        torch.cuda.synchronize()
        return statistics.median(time_each_us(lambda: fn(*inputs), 20))
    t0 = time.perf_counter()
    for _ in range(20):
        fn(*inputs)
    return (time.perf_counter() - t0) / 20 * 1e6


def _slowed(fn: Callable, inputs: tuple) -> Callable:
    """``fn`` made ~10% slower: it spins a tenth of its own time after each call."""
    # In a CUDA graph the spin kernel's own node costs ~1.1 us on an H200 (benchmarks/results/
    # trust-h200.md): take it off, so a 12 us GEMV is slowed by 10% and not by 20%.
    extra_us = max(0.1 * _call_us(fn, inputs) - (NODE_US if GPU else 0.0), 1e-3)
    if GPU:
        from bench_kernel.gpu import sleep_us

        def slow(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
            out = fn(a, b)
            sleep_us(extra_us)
            return out
    else:
        def slow(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
            out = fn(a, b)
            end = time.perf_counter() + extra_us * 1e-6
            while time.perf_counter() < end:
                pass
            return out

    return slow


def _slower(factory: Callable[[dict], dict]) -> Callable[[dict], dict]:
    def made(point: dict) -> dict:
        case = factory(point)
        return {**case, "fn": _slowed(case["fn"], case["make_inputs"]())}

    return made


def sweep() -> dict:
    slow = os.environ.get("SWEEP_GEMM_SLOW", "torch")
    spec = _example().sweep()
    if slow not in spec["providers"]:
        raise ValueError(f"SWEEP_GEMM_SLOW={slow!r}: no such provider in {_EXAMPLE.name} "
                         f"({', '.join(spec['providers'])})")
    providers = {name: _slower(f) if name == slow else f for name, f in spec["providers"].items()}
    return {**spec, "providers": providers}
