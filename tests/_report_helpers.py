"""Real result records for the report tests: H200-like GPU results built from the record types
(``BenchResult``, ``Measurement``, ``Samples``, ``KernelStat``) and placed with the real peak
table, written as ``run --json`` writes them. Names are hostile on purpose: they are data."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from bench_kernel.records import BenchResult, KernelStat, Measurement, Samples, warning
from bench_kernel.roofline import analyze

#: A kernel name that would run a script, break an attribute, start an entity or be read as
#: rich markup if any layer treated it as anything but text.
EVIL = '<script>window.__pwned=1</script> "q" & [bold]x[/bold]'
LONG_KERNEL = ("void cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_64x64_32x6_tn_align8>"
               "(cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_64x64_32x6_tn_align8::Params)")
ENV = {"device": "NVIDIA H200", "backend": "cuda", "driver": "570.86.15", "cuda": "12.8", "torch": "2.11.0",
       "triton": "3.6.0", "python": "3.11.7", "sm_count": 132, "l2_bytes": 62914560,
       "memory_bytes": 150_000_000_000, "compute_capability": "9.0", "git_commit": "abc1234",
       "state_before": {"sm_clock_mhz": 1980, "temperature_c": 41},
       "state_after": {"sm_clock_mhz": 1980, "temperature_c": 44}}


def samples(median_us: float, n: int = 40, spread: float = 0.01, seed: int = 0) -> Samples:
    """``n`` per-call times around ``median_us`` (a fixed seed: the same values every run)."""
    rng = np.random.default_rng(seed)
    return Samples.of(median_us * (1.0 + spread * rng.standard_normal(n)))


def gpu_result(name: str, params: dict, graph_us: float, *, flops: float | None = None,
               bytes: float | None = None, kernels: tuple[KernelStat, ...] = (), seed: int = 0,
               notes: tuple[str, ...] = ()) -> BenchResult:
    """A result with graph, events and kernel medians (events = graph + 2 us of launch cost)."""
    meas = {"graph": Measurement.of("graph", samples(graph_us, seed=seed), calls_per_sample=20, stop_reason="precision"),
            "events": Measurement.of("events", samples(graph_us + 2.0, seed=seed + 1), stop_reason="precision"),
            "kernel": Measurement.of("kernel", samples(graph_us * 0.97, seed=seed + 2), stop_reason="time")}
    r = BenchResult(name=name, params=params, measurements=meas, kernels=kernels, env=dict(ENV), correct=True,
                    flops=flops, bytes=bytes, notes=notes)
    if bytes:
        r = r.replace(roofline=analyze(flops or 0.0, bytes, r.time_us, device="H200", dtype="bf16", name=name,
                                        calibration=False))
    return r


def gemm_kernels(total_us: float) -> tuple[KernelStat, ...]:
    return (KernelStat(LONG_KERNEL, "cutlass 64x64_32x6 tn", "gemm", "kernel", 1.0, 0.9 * total_us, 0.9),
            KernelStat(EVIL, EVIL, "elementwise", "kernel", 1.0, 0.1 * total_us, 0.1))


def h200_results() -> list[BenchResult]:
    """A GEMM sized three ways (compute-bound when large) and a memory-bound elementwise op
    whose name is :data:`EVIL`."""
    out = []
    for i, m in enumerate((128, 1024, 8192)):
        flops, nbytes = 2.0 * m * 4096 * 4096, 2.0 * (m * 4096 + 4096 * 4096 + m * 4096)
        t = max(flops / 700e12, nbytes / 4.0e12) * 1e6 + 3.0
        out.append(gpu_result("gemm", {"M": m, "N": 4096, "K": 4096}, t, flops=flops, bytes=nbytes,
                              kernels=gemm_kernels(t), seed=10 * i))
    out.append(gpu_result(EVIL, {"n": 1 << 26}, 215.5, flops=float(1 << 26), bytes=3.0 * 4 * (1 << 26), seed=99,
                          notes=(warning("precision-not-reached", "kernel: stopped at the 0.5 s bound at +/-1.4%, "
                                         "above the 1.0% precision asked for"),)))
    return out


def write_run_json(path: Path, results: list[BenchResult]) -> Path:
    """``path`` holding what ``bench-kernel run --json`` writes for ``results``."""
    path.write_text(json.dumps({"results": [r.to_dict() for r in results]}), encoding="utf-8")
    return path


def store_sweeps(db: Path, slow_factor: float = 1.10, rounds: int = 3) -> tuple[int, int]:
    """Two stored sweeps of a GEMM (providers ``torch``, ``triton``; M in 1, 128, 8192), each point
    in ``rounds`` rounds, through the store's own API: run B has ``triton`` at M=8192 ``slow_factor``
    times slower, the rest the same times from other seeds. The stored rooflines are what
    ``run --roofline`` would have placed."""
    from bench_kernel.results import open_store

    ids = []
    for run_i, factor in enumerate((1.0, slow_factor)):
        with open_store(db) as store:
            config = {"axes": {"M": [1, 128, 8192], "N": [4096], "K": [4096]}, "providers": ["torch", "triton"],
                      "baseline": "torch", "methods": ["graph", "events", "kernel"]}
            run = store.start_run(kind="sweep", name="sweep_gemm.py:sweep", config=config, env=dict(ENV),
                                  command=["bench-kernel", "sweep", "sweep_gemm.py"], total_points=6)
            for i, m in enumerate((1, 128, 8192)):
                flops, nbytes = 2.0 * m * 4096 * 4096, 2.0 * (m * 4096 + 4096 * 4096 + m * 4096)
                base_us = max(flops / 700e12, nbytes / 4.0e12) * 1e6 + 3.0
                for j, provider in enumerate(("torch", "triton")):
                    t = base_us * (1.08 if provider == "triton" else 1.0)
                    if provider == "triton" and m == 8192:
                        t *= factor
                    for k in range(1, rounds + 1):
                        r = gpu_result(provider, {"M": m, "N": 4096, "K": 4096}, t, flops=flops, bytes=nbytes,
                                       kernels=gemm_kernels(t), seed=1000 * k + 100 * run_i + 10 * i + j)
                        store.save_result(run.id, r, round=k)
            ids.append(store.finish_run(run.id, wall_s=12.5).id)
    return ids[0], ids[1]
