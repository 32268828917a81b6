"""``bench()`` with everything a user asks for at once: the measurement, then the roofline.

``bench_kernel.measure`` only measures; this layer adds the device's roofs: resolve the device
first (a wrong name fails before anything runs), measure, count the work the case does not state
(after timing, on the eager twin of compiled code: counting must not change the code under test;
a counting failure is a note, never a lost case), place and judge the result.
"""

from __future__ import annotations

from typing import Any, Callable, Iterable, Sequence

from bench_kernel.errors import BenchKernelError
from bench_kernel.gpu import has_gpu
from bench_kernel.measure import DEFAULT_METHODS, DEFAULT_TIMEOUT_S, BenchResult, Case, TimeLimit, as_case, guard
from bench_kernel.measure import capture_env, validate_options
from bench_kernel.measure import bench_case as measure_case
from bench_kernel.orchestrate._count import CaseWork, count_work, infer_dtype
from bench_kernel.orchestrate._roofline import place, resolve_device

__all__ = ["bench", "bench_case", "bench_many"]


def bench_case(case: Case, *, methods: Sequence[str] = DEFAULT_METHODS, cache: str = "cold",
               precision: float = 0.01, max_time_s: float = 0.5, device_index: int = 0,
               roofline: bool = False, device: str | None = None,
               timeout_s: float | None = DEFAULT_TIMEOUT_S, steady: bool = False,
               progress: Callable[[str], None] | None = None) -> BenchResult:
    """Measure one :class:`Case` (``bench_kernel.measure.bench_case``) and, with ``roofline``,
    place it under the roofs of ``device`` (a peak-table name; default the current GPU).
    ``timeout_s`` bounds the whole case, the counting pass included."""
    validate_options(methods, cache, precision, max_time_s, timeout_s)
    spec = resolve_device(device, has_gpu()) if roofline else None
    capture_env(device_index)  # the first import of torch and triton (seconds) is not the case's time
    with TimeLimit(timeout_s, case.label):
        return _bench_case(case, spec, methods=methods, cache=cache, precision=precision, max_time_s=max_time_s,
                           device_index=device_index, steady=steady, progress=progress)


def _bench_case(case: Case, spec: Any, progress: Callable[[str], None] | None, **options: Any) -> BenchResult:
    result = measure_case(case, timeout_s=None, progress=progress, **options)
    if spec is None or result.correct is False:
        return result
    if progress:
        progress(f"{case.label}: counting FLOPs and bytes")
    try:
        inputs = guard(case.label, "make_inputs", case.make_inputs) if case.make_inputs else None
    except BenchKernelError as e:  # a counting failure never loses the timed case
        result = result.with_work(flops=case.flops, bytes=case.bytes, notes=[f"counting failed: {e}"])
        given = ("given" if case.flops is not None else None, "given" if case.bytes is not None else None)
        return place(result, spec, CaseWork(case, *infer_dtype(case, None), *given))
    work = count_work(case, inputs)
    result = result.with_work(flops=work.case.flops, bytes=work.case.bytes, notes=work.notes)
    return place(result, spec, work, warm_cache=options["cache"] == "warm" or _warm_rotation(result))


def _warm_rotation(result: BenchResult) -> bool:
    """True when the primary method's inputs stayed warm in L2 although a cold cache was asked for."""
    m = result.measurements.get(result.primary_method or "")
    return m is not None and m.cache == "warm"


def bench(fn: Callable[..., Any] | Case, *, make_inputs: Callable[[], Any] | None = None,
          methods: Sequence[str] = DEFAULT_METHODS, cache: str = "cold", precision: float = 0.01,
          max_time_s: float = 0.5, reference: Callable[..., Any] | None = None,
          flops: float | None = None, bytes: float | None = None, name: str | None = None,
          params: dict[str, Any] | None = None, device_index: int = 0,
          timeout_s: float | None = DEFAULT_TIMEOUT_S, steady: bool = False, roofline: bool = False,
          device: str | None = None) -> BenchResult:
    """Time ``fn`` on the GPU (or the host without one) and return a :class:`BenchResult`.

    The arguments are those of :func:`bench_kernel.measure.bench`, plus:
    roofline: also place the result under the roofs of ``device`` (peak-table name; default the
        current GPU) as ``result.roofline``; FLOPs/bytes not given are counted from one call.
    """
    case = as_case(fn, make_inputs=make_inputs, reference=reference, flops=flops, bytes=bytes, name=name,
                   params=params)
    return bench_case(case, methods=methods, cache=cache, precision=precision, max_time_s=max_time_s,
                      device_index=device_index, roofline=roofline, device=device, timeout_s=timeout_s,
                      steady=steady)


def bench_many(cases: Iterable[Case], **kwargs: Any) -> list[BenchResult]:
    """:func:`bench_case` over several cases with the same options."""
    return [bench_case(c, **kwargs) for c in cases]
