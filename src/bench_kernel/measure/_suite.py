"""The built-in example suite: what `bench-kernel run` times with no TARGET.

Six cases that span the roofline and the measurement pitfalls: a compute-bound bf16 GEMM, an
M=1 GEMV (memory-bound; cuBLAS splits it into a GEMV and a reduction kernel), RMSNorm (several
kernels in eager mode), softmax, an elementwise add and a device copy (a memcpy, not a kernel).
Sizes follow the device: on a GPU, data well beyond L2; without one, small CPU versions, measured
with as many torch threads as the free cores fit (:func:`suite_options`): the README's first command
runs on laptops and CI runners that are busy, where torch's default of one thread per core made
every call wait for a CPU (a 1M-element copy read 15.7 ms against 124 us).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from bench_kernel.gpu import has_gpu
from bench_kernel.measure._case import Case, CaseOrigin
from bench_kernel.measure._cpuwait import fitting_threads, machine_load
from bench_kernel.options import Options

__all__ = ["builtin_suite", "builtin_case", "suite_options"]


def suite_options(options: Options) -> tuple[Options, str | None]:
    """The options the built-in suite is measured with, and a line saying what was chosen: without
    a GPU and without ``threads`` given, torch's intra-op threads are what the free cores fit
    (``os.getloadavg`` over the cores this process may use), never more than torch's own count."""
    if options.threads is not None or has_gpu():
        return options, None
    import torch

    load = machine_load()
    default = torch.get_num_threads()
    threads = fitting_threads(load, default)
    where = (f"machine load {load.load_1m:.1f} on {load.cores} cores leaves {load.free_cores} free"
             if load.load_1m is not None else f"{load.cores} cores")
    line = (f"{threads} torch thread{'s' if threads != 1 else ''} ({where}; torch's own count is {default}; "
            f"--threads N to choose)")
    return Options.build(options, threads=threads), line


def _gpu_sizes(memory_bytes: int) -> dict[str, int]:
    big = memory_bytes >= 40 * 2**30
    return {
        "gemm": 8192 if big else 4096,
        "gemv_k": 8192 if big else 4096,
        "rows": 16384 if big else 4096,
        "hidden": 8192 if big else 4096,
        "elems": (128 if big else 32) * 2**20,
    }


#: Each case's call takes at most ~0.5 ms on one core, so a host sample (>= 1 ms of calls) fits in a
#: scheduler slice on a busy machine: a 512^3 GEMM (3.3 ms a call) had every sample of a run wait for
#: a CPU at load 10 on 2 cores, and was refused.
_CPU_SIZES = {"gemm": 256, "gemv_k": 2048, "rows": 256, "hidden": 1024, "elems": 2**20}


def builtin_suite(device: str | None = None) -> list[Case]:
    """The example cases for ``device`` ("cuda" or "cpu"; default: what torch finds)."""
    import torch

    if device is None:
        device = "cuda" if has_gpu() else "cpu"
    gpu = device != "cpu"
    sizes = _gpu_sizes(torch.cuda.get_device_properties(0).total_memory) if gpu else _CPU_SIZES
    dt = torch.bfloat16 if gpu else torch.float32
    esize = torch.empty((), dtype=dt).element_size()

    def randn(*shape: int) -> Any:
        return torch.randn(*shape, device=device, dtype=dt)

    n = sizes["gemm"]
    k = sizes["gemv_k"]
    rows, hidden = sizes["rows"], sizes["hidden"]
    elems = sizes["elems"]
    dtype_name = str(dt).replace("torch.", "")
    cases = [
        Case(fn=torch.matmul, make_inputs=lambda: (randn(n, n), randn(n, n)), name="gemm",
             flops=2.0 * n**3, bytes=3.0 * n * n * esize,
             params={"m": n, "n": n, "k": n, "dtype": dtype_name}),
        Case(fn=torch.nn.functional.linear, make_inputs=lambda: (randn(1, k), randn(k, k)), name="gemv",
             flops=2.0 * k * k, bytes=(k * k + 2 * k) * esize,
             params={"m": 1, "n": k, "k": k, "dtype": dtype_name}),
        Case(fn=lambda x, w: torch.nn.functional.rms_norm(x, (hidden,), w, 1e-6),
             make_inputs=lambda: (randn(rows, hidden), randn(hidden)), name="rmsnorm",
             flops=4.0 * rows * hidden, bytes=(2 * rows * hidden + hidden) * esize,
             params={"rows": rows, "hidden": hidden, "dtype": dtype_name}),
        Case(fn=lambda x: torch.softmax(x, dim=-1), make_inputs=lambda: (randn(rows, hidden),),
             name="softmax", flops=5.0 * rows * hidden, bytes=2.0 * rows * hidden * esize,
             params={"rows": rows, "cols": hidden, "dtype": dtype_name}),
        Case(fn=torch.add, make_inputs=lambda: (randn(elems), randn(elems)), name="add",
             flops=float(elems), bytes=3.0 * elems * esize, params={"elems": elems, "dtype": dtype_name}),
        Case(fn=lambda dst, src: dst.copy_(src), make_inputs=lambda: (randn(elems), randn(elems)),
             name="copy", bytes=2.0 * elems * esize, params={"elems": elems, "dtype": dtype_name}),
    ]
    return [replace(c, origin=CaseOrigin("bench_kernel.measure:builtin_case", {"name": c.label})) for c in cases]


def builtin_case(name: str) -> Case:
    """The built-in case called ``name`` (how a child process rebuilds it to count its work)."""
    for case in builtin_suite():
        if case.label == name:
            return case
    raise KeyError(f"no built-in case {name!r}")
