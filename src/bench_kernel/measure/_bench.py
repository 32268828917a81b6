"""``bench()``: warm up, check, then time one callable with each requested method.

Order of work (DESIGN.md, "Measurement"): correctness check on fresh inputs -> warm-up outside
any graph -> input rotation sized from L2 -> host, events, kernel, and graph LAST, because a
failed capture can leave a stream in a bad state and must not spoil the other methods.
"""

from __future__ import annotations

import copy
from typing import Any, Callable, Iterable, Sequence

from bench_kernel.errors import UsageError
from bench_kernel.measure._case import Case
from bench_kernel.measure._check import compare
from bench_kernel.measure._env import capture_env, gpu_state, has_gpu, throttle_note
from bench_kernel.measure._inputs import L2Flusher, plan_rotation, tensor_bytes
from bench_kernel.measure._records import METHODS, BenchResult, Measurement
from bench_kernel.measure._runner import Runner, guard
from bench_kernel.measure._stopping import StoppingRule

__all__ = ["bench", "bench_case", "bench_many", "validate_options", "DEFAULT_METHODS"]

DEFAULT_METHODS = ("graph", "events", "kernel")
GPU_METHODS = frozenset({"graph", "events", "kernel"})
#: Input rotation may take at most this fraction of the device's free memory.
ROTATION_MEMORY_FRACTION = 0.25


def validate_options(methods: Sequence[str], cache: str, precision: float, max_time_s: float) -> tuple[str, ...]:
    """The methods, deduplicated; a UsageError names a bad method, cache, precision or bound."""
    if isinstance(methods, str):
        methods = (methods,)
    bad = [m for m in methods if m not in METHODS]
    if bad:
        raise UsageError(f"unknown method {bad[0]!r}; expected one of: {', '.join(METHODS)}")
    if not methods:
        raise UsageError("no method given; expected one or more of: " + ", ".join(METHODS))
    if cache not in ("cold", "warm"):
        raise UsageError(f"cache must be 'cold' or 'warm', got {cache!r}")
    if not (precision > 0):
        raise UsageError(f"precision must be > 0 (relative, 0.01 = 1%), got {precision!r}")
    if not (max_time_s > 0):
        raise UsageError(f"max_time_s must be > 0 seconds, got {max_time_s!r}")
    return tuple(dict.fromkeys(methods))


def _clone(inputs: Any) -> Any:
    # The reference must see the inputs fn saw, even if fn works in place.
    try:
        import torch
    except ImportError:
        return copy.deepcopy(inputs)
    if isinstance(inputs, torch.Tensor):
        return inputs.clone()
    if isinstance(inputs, (list, tuple)):
        return type(inputs)(_clone(x) for x in inputs)
    if isinstance(inputs, dict):
        return {k: _clone(v) for k, v in inputs.items()}
    return copy.deepcopy(inputs)


def _check(case: Case, runner_name: str) -> str | None:
    from bench_kernel.measure._inputs import call_with

    def run() -> str | None:
        inputs = case.make_inputs() if case.make_inputs else None
        ref_inputs = _clone(inputs)
        out = call_with(case.fn, inputs)
        ref = call_with(case.reference, ref_inputs)
        return compare(out, ref)

    return guard(runner_name, "the correctness check", run)


def bench_case(case: Case, *, methods: Sequence[str] = DEFAULT_METHODS, cache: str = "cold",
               precision: float = 0.01, max_time_s: float = 0.5, device_index: int = 0,
               roofline: bool = False, device: str | None = None,
               progress: Callable[[str], None] | None = None) -> BenchResult:
    """Benchmark one :class:`Case`; see :func:`bench` for the arguments.

    roofline: place the result under the roofs of ``device`` (a peak-table name; default the
        current GPU), counting FLOPs/bytes where the case does not give them.
    """
    methods = validate_options(methods, cache, precision, max_time_s)
    spec = None
    if roofline:
        from bench_kernel.measure._work import resolve_device

        spec = resolve_device(device, has_gpu())
    say = progress or (lambda _msg: None)
    notes: list[str] = []
    gpu = has_gpu()
    if not gpu:
        dropped = [m for m in methods if m in GPU_METHODS]
        methods = tuple(m for m in methods if m not in GPU_METHODS) or ("host",)
        if dropped:
            notes.append(f"no GPU: {', '.join(dropped)} need a CUDA/HIP device; measured host wall clock")
    env = capture_env(device_index)
    name = case.label
    base = dict(name=name, params=dict(case.params), env=env, flops=case.flops, bytes=case.bytes)

    if case.reference is not None:
        say(f"{name}: checking against the reference")
        mismatch = _check(case, name)
        if mismatch:
            return BenchResult(**base, correct=False, notes=tuple(notes + [f"wrong result, not timed: {mismatch}"]))

    first = guard(name, "make_inputs", case.make_inputs) if case.make_inputs else None
    if spec is not None:
        from bench_kernel.measure._work import with_counts

        say(f"{name}: counting FLOPs and bytes")
        case, count_notes = guard(name, "counting", lambda: with_counts(case, _clone(first)))
        notes += count_notes
        base.update(flops=case.flops, bytes=case.bytes)
    set_bytes = tensor_bytes(first)
    l2 = env.get("l2_bytes")
    rotation = None
    input_sets: list[Any] = [first]
    if case.make_inputs is not None and cache == "cold" and gpu:
        import torch

        free, _ = torch.cuda.mem_get_info(device_index)
        rotation = plan_rotation(set_bytes, l2, budget_bytes=int(free * ROTATION_MEMORY_FRACTION))
        input_sets += [guard(name, "make_inputs", case.make_inputs) for _ in range(rotation.sets - 1)]
        if rotation.note:
            notes.append(rotation.note)
    elif cache == "cold" and gpu and case.make_inputs is None:
        notes.append("no make_inputs: one input set, so the graph and host methods run with a warm L2")

    runner = Runner(case.fn, input_sets, name, gpu=gpu, device_index=device_index)
    say(f"{name}: warming up")
    runner.warmup()
    notes += runner.notes
    state_before = gpu_state(device_index) if gpu else {}
    flusher = L2Flusher(l2, device_index) if gpu and cache == "cold" else None
    rotated_cold = "cold" if (cache == "cold" and rotation is not None and rotation.exceeds_l2) else "warm"

    from bench_kernel.measure._events import EventsMethod
    from bench_kernel.measure._graph import GraphMethod
    from bench_kernel.measure._host import HostMethod
    from bench_kernel.measure._kernel import KernelMethod

    kernel_method = KernelMethod(flusher) if "kernel" in methods else None
    runners = {
        "host": (HostMethod(), rotated_cold),
        "events": (EventsMethod(flusher, rotated_cold=rotated_cold == "cold"), cache),
        "kernel": (kernel_method, cache),
        "graph": (GraphMethod(len(input_sets)), rotated_cold),
    }
    measured: dict[str, Measurement] = {}
    for m in ("host", "events", "kernel", "graph"):
        if m not in methods:
            continue
        say(f"{name}: {m}")
        method, state = runners[m]
        rule = StoppingRule(precision=precision, max_time_s=max_time_s)
        measured[m] = method.run(runner, rule, state)

    state_after = gpu_state(device_index) if gpu else {}
    if state_before or state_after:
        env = dict(env, state_before=state_before, state_after=state_after)
        note = throttle_note(state_before, state_after)
        if note:
            notes.append(note)
    for m, meas in measured.items():
        if meas.error:
            notes.append(f"{m}: {meas.error}")
        elif meas.stop_reason == "time":
            notes.append(f"{m}: stopped at the {max_time_s:g} s bound at +/-{meas.samples.rel_ci95:.1%}, "
                         f"above the {precision:.1%} precision asked for")
    ordered = {m: measured[m] for m in METHODS if m in measured}
    result = BenchResult(**{**base, "env": env}, measurements=ordered,
                         kernels=tuple(kernel_method.kernels) if kernel_method else (),
                         correct=True if case.reference is not None else None, notes=tuple(notes))
    if spec is not None:
        from bench_kernel.measure._work import infer_dtype, place

        result = place(result, spec, infer_dtype(case, first))
    return result


def bench(fn: Callable[..., Any] | Case, *, make_inputs: Callable[[], Any] | None = None,
          methods: Sequence[str] = DEFAULT_METHODS, cache: str = "cold", precision: float = 0.01,
          max_time_s: float = 0.5, reference: Callable[..., Any] | None = None,
          flops: float | None = None, bytes: float | None = None, name: str | None = None,
          params: dict[str, Any] | None = None, device_index: int = 0, roofline: bool = False,
          device: str | None = None) -> BenchResult:
    """Time ``fn`` on the GPU (or the host without one) and return a :class:`BenchResult`.

    fn: a zero-argument callable, or ``fn(*inputs)`` with ``make_inputs()`` building one fresh
        input set (a tuple spreads as arguments, a dict as keywords); a :class:`Case` works too.
    methods: any of "graph" (CUDA/HIP graph replay / N), "events" (events + backlog, launch cost
        included), "kernel" (profiler: summed device time of every kernel of one call, plus a
        breakdown), "host" (wall clock; the only method without a GPU).
    cache: "cold" (default: L2 flushed before event/profiler samples, inputs rotated beyond L2,
        also inside the graph) or "warm".
    precision: stop once the 95% CI of the median is within this relative half-width.
    max_time_s: sampling time bound per method, seconds.
    reference: called on a copy of the same fresh inputs; a mismatch means no time is reported
        (``correct`` False, the reason in ``notes``).
    flops, bytes: work per call, for achieved TFLOP/s and TB/s.
    roofline: also place the result under the roofs of ``device`` (peak-table name; default the
        current GPU) as ``result.roofline``; missing FLOPs/bytes are counted from one call.
    Raises MeasurementError when ``fn`` raises; UsageError for bad arguments.
    """
    if isinstance(fn, Case):
        case = fn
    else:
        case = Case(fn=fn, make_inputs=make_inputs, reference=reference, flops=flops, bytes=bytes,
                    name=name, params=dict(params or {}))
    return bench_case(case, methods=methods, cache=cache, precision=precision,
                      max_time_s=max_time_s, device_index=device_index, roofline=roofline, device=device)


def bench_many(cases: Iterable[Case], **kwargs: Any) -> list[BenchResult]:
    """``bench_case`` over several cases with the same options."""
    return [bench_case(c, **kwargs) for c in cases]
