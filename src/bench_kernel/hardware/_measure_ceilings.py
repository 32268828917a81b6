"""Measure this GPU's real ceilings: DRAM and L2 bandwidth, dense GEMM peak per dtype, launch cost.

Each figure is the median of per-repetition CUDA-event timings taken after a warm-up, on random
data: zeros let the tensor cores draw less power (so clocks, and the "peak", rise) and would let a
compressing memory path look faster than it is. torch is imported inside the functions only.

Budget: well under a minute on an H200 (one 2 GiB copy x 30, a 2 GiB L2 read x 20, five 8192^3
GEMMs x ~15, a few hundred empty kernels).
"""

from __future__ import annotations

import statistics
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable

from bench_kernel.dtypes import peak_class
from bench_kernel.errors import MeasurementError
from bench_kernel.gpu import require_gpu, sleep_us, time_each_us
from bench_kernel.hardware._calibration import save_calibration
from bench_kernel.hardware._detect import driver_version, resolve_reported
from bench_kernel.hardware._peaks import DeviceSpec, get_device
from bench_kernel.records import Calibration

__all__ = ["calibrate"]

MATMUL_DTYPES = ("bf16", "fp16", "tf32", "fp32", "fp8")
_GEMM_SIZE = 8192  # M = N = K: large enough to reach the tensor-core plateau on every listed GPU
_WARMUP_MS = 200.0  # per GEMM dtype: the sustained (power-capped) figure is taken after this
_COOL_S = 0.5  # idle before the burst, so the power controller's budget has recovered
_BACKLOG_US = 25_000.0  # the host enqueues every timed launch behind this spin


def _warm(torch: Any, fn: Callable[[], Any], ms: float, min_calls: int = 2) -> None:
    start, calls = time.perf_counter(), 0
    while calls < min_calls or (time.perf_counter() - start) * 1e3 < ms:
        fn()
        torch.cuda.synchronize()
        calls += 1


def _time_us(torch: Any, fn: Callable[[], Any], reps: int, warmup: int = 3) -> list[float]:
    """Per-call times of ``fn`` (us) after ``warmup`` untimed calls, one event pair per call."""
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    return time_each_us(fn, reps)


def _summary(samples_us: list[float], **extra: Any) -> dict[str, Any]:
    return {**extra, "median_us": statistics.median(samples_us), "n": len(samples_us),
            "samples_us": [round(s, 3) for s in samples_us]}


def _dram_copy(torch: Any, l2_bytes: int) -> tuple[float, dict[str, Any]]:
    free, _ = torch.cuda.mem_get_info()
    # 16x L2 (at least 1 GiB) so almost every byte comes from DRAM; src + dst must fit twice over.
    n_bytes = min(max(1 << 30, 16 * l2_bytes), free // 4)
    n = n_bytes // 4
    src = torch.rand(n, device="cuda")
    dst = torch.empty_like(src)
    samples = _time_us(torch, lambda: dst.copy_(src), reps=30, warmup=5)
    raw = _summary(samples, method="dst.copy_(src), float32, read + write bytes counted",
                   bytes_moved=2 * n * 4)
    return raw["bytes_moved"] / raw["median_us"] / 1e6, raw


def _l2_read(torch: Any, l2_bytes: int) -> tuple[float, dict[str, Any]]:
    # A quarter of L2, read many times by ONE reduction kernel: rows of a stride-0 view all alias the
    # same buffer, so there is no per-repetition launch cost to subtract. Caveat: an SM re-reading a
    # chunk it just read may hit L1, so this is an upper estimate of L2 read bandwidth.
    ws_bytes = max(l2_bytes // 4, 1 << 20)
    n = ws_bytes // 4
    rows = max(1, (2 << 30) // ws_bytes)
    buf = torch.rand(n, device="cuda")
    view = buf.as_strided((rows, n), (0, 1))
    out = torch.empty(rows, device="cuda")
    samples = _time_us(torch, lambda: torch.sum(view, dim=1, out=out), reps=20, warmup=3)
    raw = _summary(samples, method="sum over rows of a stride-0 view of an L2/4 buffer (reads only)",
                   working_set_bytes=n * 4, rows=rows, bytes_read=rows * n * 4)
    return raw["bytes_read"] / raw["median_us"] / 1e6, raw


def _fp8_dtype(torch: Any) -> Any:
    arch = getattr(torch.cuda.get_device_properties(torch.cuda.current_device()), "gcnArchName", "")
    # CDNA 3 (gfx942) implements the FNUZ fp8 variants; NVIDIA and CDNA 4 use the OCP ones.
    return torch.float8_e4m3fnuz if "gfx942" in arch else torch.float8_e4m3fn


def _gemm_fn(torch: Any, dtype: str, size: int) -> Callable[[], Any]:
    dev = "cuda"
    if dtype in ("bf16", "fp16"):
        dt = torch.bfloat16 if dtype == "bf16" else torch.float16
        a, b = torch.randn(size, size, device=dev, dtype=dt), torch.randn(size, size, device=dev, dtype=dt)
        c = torch.empty(size, size, device=dev, dtype=dt)
        return lambda: torch.mm(a, b, out=c)
    if dtype in ("tf32", "fp32"):
        a, b = torch.randn(size, size, device=dev), torch.randn(size, size, device=dev)
        c = torch.empty(size, size, device=dev)
        return lambda: torch.mm(a, b, out=c)
    if dtype == "fp8":
        f8 = _fp8_dtype(torch)
        a = torch.randn(size, size, device=dev).to(f8)
        b = torch.randn(size, size, device=dev).to(f8).t()  # _scaled_mm wants B column-major
        one = torch.ones((), device=dev, dtype=torch.float32)
        return lambda: torch._scaled_mm(a, b, scale_a=one, scale_b=one, out_dtype=torch.bfloat16,
                                        use_fast_accum=True)
    raise ValueError(f"no GEMM recipe for dtype {dtype!r}")


def _matmul(torch: Any, dtype: str, size: int = _GEMM_SIZE) -> tuple[float, dict[str, Any]]:
    saved = torch.get_float32_matmul_precision()
    # "high" lets fp32 GEMMs use TF32 tensor cores, "highest" forbids it: the stable switch across
    # torch versions (mixing allow_tf32 with the newer fp32_precision API raises on some).
    torch.set_float32_matmul_precision("high" if dtype == "tf32" else "highest")
    try:
        fn = _gemm_fn(torch, dtype, size)
        _warm(torch, fn, 0.0, min_calls=3)  # kernel selection, lazy init
        # The roof is what a burst reaches: under sustained load a big GEMM hits the power cap
        # (seen on an H200: ~780 TFLOP/s bf16 for 10 products after an idle moment, ~680 after
        # 200 ms of back-to-back products), and a short benchmark of a kernel runs at the former.
        time.sleep(_COOL_S)
        samples = _time_us(torch, fn, reps=10, warmup=1)
        _warm(torch, fn, _WARMUP_MS)
        sustained = _time_us(torch, fn, reps=10, warmup=0)
    finally:
        torch.set_float32_matmul_precision(saved)
    flops = 2 * size ** 3
    raw = _summary(samples, method=f"{size}^3 GEMM, random {dtype} inputs, 10 products after a "
                   f"{_COOL_S:g} s idle (burst)", flops=flops,
                   sustained_median_us=statistics.median(sustained),
                   sustained_tflops=flops / statistics.median(sustained) / 1e6)
    return flops / raw["median_us"] / 1e6, raw


def _empty_kernel(torch: Any) -> Callable[[], Any]:
    if hasattr(torch.cuda, "_sleep"):
        return lambda: torch.cuda._sleep(0)  # a real kernel whose body spins zero cycles
    x = torch.empty(1, device="cuda")
    return lambda: x.fill_(1.0)


def _launch_events(torch: Any, n: int = 200) -> tuple[float, dict[str, Any]]:
    kernel = _empty_kernel(torch)
    for _ in range(20):
        kernel()
    torch.cuda.synchronize()
    # The backlog keeps the GPU busy while the host enqueues, so host gaps between launches are not
    # timed: what remains is what event timing itself adds to any kernel (do_bench's situation).
    if hasattr(torch.cuda, "_sleep"):
        sleep_us(_BACKLOG_US)
    samples = time_each_us(kernel, n)
    raw = _summary(samples, method="event / empty kernel / event, behind a backlog kernel")
    return raw["median_us"], raw


def _launch_graph(torch: Any, nodes: int = 500) -> tuple[float, dict[str, Any]]:
    kernel = _empty_kernel(torch)
    graph = torch.cuda.CUDAGraph()
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):  # warm up off the default stream, as capture requires
        for _ in range(3):
            kernel()
    torch.cuda.current_stream().wait_stream(side)
    with torch.cuda.graph(graph):
        for _ in range(nodes):
            kernel()
    samples = [t / nodes for t in _time_us(torch, graph.replay, reps=20, warmup=3)]
    raw = _summary(samples, method=f"replay of a CUDA graph of {nodes} empty kernels, per node", nodes=nodes)
    return raw["median_us"], raw


def _step(name: str, fn: Callable[[], tuple[float, dict[str, Any]]]) -> tuple[float, dict[str, Any]]:
    try:
        return fn()
    except Exception as e:  # noqa: BLE001 - any failure of a step is reported as that step's failure
        raise MeasurementError(f"calibrate: {name} failed: {type(e).__name__}: {e}") from e


def calibrate(device: str | DeviceSpec | None = None, *, save: bool = True,
              directory: Path | None = None, dtypes: tuple[str, ...] = MATMUL_DTYPES) -> Calibration:
    """Measure the current GPU's ceilings and (by default) cache them as its "measured" roof.

    ``device`` names the peak-table row to file the result under; by default the GPU's own name
    (checked against its SM count). GEMM dtypes that torch or the GPU cannot run (fp8 before
    sm_89/gfx942, tf32 on CDNA 4 is emulated and still measured) are skipped with a note.
    Raises DeviceError without a GPU, MeasurementError if a required measurement fails.
    """
    torch = require_gpu("calibrate", "run it on the GPU machine")
    props = torch.cuda.get_device_properties(torch.cuda.current_device())
    spec = get_device(device) if device is not None else resolve_reported(props.name, props.multi_processor_count)
    l2_bytes = int(getattr(props, "L2_cache_size", 0) or spec.l2_bytes or 50 << 20)
    notes: list[str] = []
    raw: dict[str, Any] = {"device_properties": {"name": props.name, "sm_count": props.multi_processor_count,
                                                 "l2_bytes": l2_bytes, "total_memory_bytes": props.total_memory}}

    dram_tbps, raw["dram_copy"] = _step("DRAM copy", lambda: _dram_copy(torch, l2_bytes))
    l2_tbps, raw["l2_read"] = _step("L2 read", lambda: _l2_read(torch, l2_bytes))
    matmul: dict[str, float] = {}
    for dt in (peak_class(d) for d in dtypes):
        try:
            matmul[dt], raw[f"matmul_{dt}"] = _matmul(torch, dt)
        except Exception as e:  # noqa: BLE001 - an unsupported dtype is a note, not a failure
            notes.append(f"matmul {dt} skipped: {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}")
    if "bf16" not in matmul:
        raise MeasurementError(f"calibrate: the bf16 GEMM failed ({'; '.join(notes)}); no measured roof")
    launch_events_us, raw["launch_events"] = _step("launch (events)", lambda: _launch_events(torch))
    launch_graph_us, raw["launch_graph"] = _step("launch (graph)", lambda: _launch_graph(torch))
    if not hasattr(torch.cuda, "_sleep"):
        notes.append("torch.cuda._sleep missing: empty kernel is a 1-element fill, no backlog for events")

    cal = Calibration(
        device=spec.name, reported_name=props.name, driver=driver_version(),
        torch_version=str(torch.__version__), measured_at=datetime.now(timezone.utc).isoformat(timespec="seconds"),
        dram_tbps=dram_tbps, l2_tbps=l2_tbps, matmul_tflops=matmul,
        launch_events_us=launch_events_us, launch_graph_node_us=launch_graph_us, raw=raw, notes=tuple(notes),
    )
    if save:
        path = save_calibration(cal, directory)
        cal = cal.replace(notes=(*cal.notes, f"cached at {path}"))
    return cal
