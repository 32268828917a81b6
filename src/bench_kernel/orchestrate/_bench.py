"""``bench()`` with everything a user asks for at once: the time limit, the measurement, the roofline.

``bench_kernel.measure`` only measures; this layer bounds the case's time, then adds the device's
roofs: resolve the device first (a wrong name fails before anything runs), measure, count the work
the case does not state (after timing, on the eager twin of compiled code: counting must not change
the code under test; a counting failure is a note, never a lost case), place and judge the result.
"""

from __future__ import annotations

import dataclasses
import time
from typing import Any, Callable

from bench_kernel.errors import BenchKernelError, UsageError
from bench_kernel.gpu import has_gpu
from bench_kernel.measure import (
    DEFAULT_COUNTER_TIMEOUT_S,
    Case,
    TimeLimit,
    as_case,
    capture_env,
    ensure_warm,
    function_origin,
    guard,
    measure_case,
)
from bench_kernel.options import Options
from bench_kernel.orchestrate._count import CaseWork, count_work, infer_dtype
from bench_kernel.orchestrate._counters import add_counters
from bench_kernel.orchestrate._roofline import place, resolve_device
from bench_kernel.records import BenchResult, warning

__all__ = ["bench", "bench_case", "run_env"]


def run_env(options: Options) -> dict[str, Any]:
    """The machine's state for a run, captured once at its start -- after bringing an idle GPU to
    its working clock (``measure.ensure_warm``: once per process, again only where the clock fell
    back; what was done is ``env["device_warmup"]``, and each result's env says what was done for it)."""
    env = capture_env(options.device_index)  # torch's first import (seconds) is not the case's time
    if has_gpu():
        env["device_warmup"] = ensure_warm(options.device_index)
    return env


def bench_case(case: Case, options: Options, *, env: dict[str, Any] | None = None, roof: Any = None,
               progress: Callable[[str], None] | None = None,
               on_stuck: Callable[[Any], Any] | None = None) -> BenchResult:
    """Measure one :class:`Case` as ``options`` say, within ``options.timeout_s`` (the counting pass
    included), and with ``options.roofline`` place it under the device's roofs. With
    ``options.counters``, then count one call with the hardware counters in a child process
    (``add_counters``; that child gets ``options.timeout_s`` of its own).

    env: the machine's state (:func:`run_env`), taken once per run by the caller; captured here
    when None (the GPU is warmed up, where it needs it, by the measurement itself). roof: the resolved device spec for the roofline, likewise
    (resolved here when None and ``options.roofline``). on_stuck: the time limit's ``on_stuck``
    (``bench_kernel.measure.TimeLimit``). Raises TimeLimitError past the limit, MeasurementError
    when the case's code raises.
    """
    t0 = time.perf_counter()
    if options.roofline and roof is None:
        roof = resolve_device(options.device, has_gpu())
    if env is None:
        env = capture_env(options.device_index)
    with TimeLimit(options.timeout_s, case.label, on_stuck=on_stuck):
        result = measure_case(case, options, env=env, progress=progress)
        measured = time.perf_counter()
        if options.roofline and result.correct is not False:
            result = _place(case, result, roof, options, progress)
    if options.counters:
        # Outside the case's limit: the counter tool's child process is stopped by a timeout of its own (the
        # case's limit again), never interrupted half-way.
        result = add_counters(case, result, roof, device_index=options.device_index, progress=progress,
                              timeout_s=options.timeout_s or DEFAULT_COUNTER_TIMEOUT_S)
    end = time.perf_counter()
    counting = {"counting_s": round(end - measured, 4)} if options.roofline or options.counters else {}
    return result.replace(wall_s=end - t0, env={**result.env, **counting})


def _place(case: Case, result: BenchResult, roof: Any, options: Options,
           progress: Callable[[str], None] | None) -> BenchResult:
    if progress:
        progress(f"{case.label}: counting FLOPs and bytes")
    try:
        inputs = guard(case.label, "make_inputs", case.make_inputs) if case.make_inputs else None
    except BenchKernelError as e:  # a counting failure never loses the timed case
        result = result.with_work(flops=case.flops, bytes=case.bytes,
                                  notes=[warning("counting-failed", f"counting failed: {e}")])
        given = ("given" if case.flops is not None else None, "given" if case.bytes is not None else None)
        return place(result, roof, CaseWork(case, *infer_dtype(case, None), *given))
    work = count_work(case, inputs)
    result = result.with_work(flops=work.case.flops, bytes=work.case.bytes, notes=work.notes)
    return place(result, roof, work, warm_cache=options.cache == "warm" or _warm_rotation(result))


def _warm_rotation(result: BenchResult) -> bool:
    """True when the primary method's inputs stayed warm in L2 although a cold cache was asked for."""
    m = result.measurements.get(result.primary_method or "")
    return m is not None and m.cache == "warm"


def bench(fn: Callable[..., Any] | Case, *, make_inputs: Callable[[], Any] | None = None,
          reference: Callable[..., Any] | None = None, flops: float | None = None, bytes: float | None = None,
          name: str | None = None, params: dict[str, Any] | None = None, rtol: float | None = None,
          atol: float | None = None, methods: tuple[str, ...] = Options.methods, cache: str = Options.cache,
          precision: float = Options.precision, max_time_s: float = Options.max_time_s,
          timeout_s: float | None = Options.timeout_s, steady: bool = Options.steady,
          rounds: int | None = Options.rounds, device_index: int = Options.device_index,
          roofline: bool = Options.roofline, device: str | None = Options.device, counters: bool = Options.counters,
          threads: int | None = Options.threads, options: Options | None = None) -> BenchResult:
    """Time ``fn`` on the GPU (or the host without one) and return a :class:`BenchResult`.

    fn: a zero-argument callable, or ``fn(*inputs)`` with ``make_inputs()`` building one fresh
        input set (a tuple spreads as arguments, a dict as keywords); a :class:`Case` works too.
    reference: called on a copy of the same fresh inputs; a mismatch means no time is reported
        (``correct`` False, the reason in ``notes``, the error measured in ``check``).
    rtol, atol: the check's tolerances: relative RMS error (None: by the output's dtype, 1e-4 for
        float32) and an RMS allowance in the output's units (None: 0); see ``measure._check``.
    flops, bytes: work per call, for achieved TFLOP/s and TB/s (finite, >= 0).
    methods: any of "graph" (CUDA/HIP graph replay / N), "events" (events + backlog, launch cost
        included), "kernel" (profiler: summed device time of every kernel of one call, plus a
        breakdown), "host" (wall clock; the only method without a GPU).
    cache: "cold" (L2 flushed before event/profiler samples, inputs rotated beyond L2, also inside
        the graph) or "warm".
    precision: stop once the 95% CI of the median is within this relative half-width.
    max_time_s: sampling time bound per method, seconds, shared by its rounds.
    timeout_s: stop the case after this many seconds with a TimeLimitError (None, 0 or inf: no
        limit); see ``bench_kernel.measure._limit`` for what can and cannot be interrupted.
    steady: hold the load until the SM clock and the per-call time settle before each method, and
        sample at least 1 s per method (power-capped GPUs); every sample's clock is in
        ``Measurement.sm_clock_mhz`` either way.
    rounds: time the case this many times, back to back, so comparisons see run-to-run noise
        (None: the per-method default, ``bench_kernel.options.DEFAULT_ROUNDS``, and up to twice as
        many for a method whose rounds disagree by more than ``precision``).
    roofline: also place the result under the roofs of ``device`` (peak-table name; default the
        current GPU) as ``result.roofline``; FLOPs/bytes not given are counted from one call.
    counters: also count one call's DRAM/L2/L1 bytes and FLOPs with the GPU's hardware counters (ncu or
        rocprofv3, in a child process, after timing) as ``result.counters``, placed on the hierarchical
        roofline as ``result.measured_roofline``; implies ``roofline``. The child rebuilds the case, so
        ``fn`` (and ``make_inputs``) must be importable module-level functions, or ``fn`` a Case loaded
        from a TARGET (``load_target``); otherwise a note says why nothing was counted.
    threads: torch's intra-op threads while measuring (None: torch's own count); recorded as
        ``env["cpu_threads"]``.
    options: all of the above at once, as an :class:`~bench_kernel.options.Options` (then leave
        the separate keywords at their defaults).
    Raises MeasurementError when ``fn`` raises; UsageError for bad arguments.
    """
    if options is None:
        options = Options(methods=methods, cache=cache, precision=precision, max_time_s=max_time_s,
                          timeout_s=timeout_s, steady=steady, rounds=rounds, device_index=device_index,
                          roofline=roofline, device=device, counters=counters, threads=threads)
    else:
        given = dict(methods=methods, cache=cache, precision=precision, max_time_s=max_time_s, timeout_s=timeout_s,
                     steady=steady, rounds=rounds, device_index=device_index, roofline=roofline, device=device,
                     counters=counters, threads=threads)
        defaults = {f.name: f.default for f in dataclasses.fields(Options)}
        changed = sorted(k for k, v in given.items() if v != defaults[k])
        if changed:
            raise UsageError(f"bench(): give either options= or {', '.join(changed)}, not both")
    case = as_case(fn, make_inputs=make_inputs, reference=reference, flops=flops, bytes=bytes, name=name,
                   params=params, rtol=rtol, atol=atol)
    if options.counters and case.origin is None:
        case = dataclasses.replace(case, origin=function_origin(case.fn, case.make_inputs))
    return bench_case(case, options)
