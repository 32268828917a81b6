"""``bench()``: check, plan the inputs, warm up, then time one callable with each requested method.

Order of work (DESIGN.md, "Measurement"): correctness check on fresh inputs -> input rotation sized
from L2 -> warm-up outside any graph -> host, events, kernel, and graph LAST, because a failed
capture can leave a stream in a bad state and must not spoil the other methods. Placing a result
under a roofline is orchestration (``bench_kernel.orchestrate``): this module only measures.
"""

from __future__ import annotations

import copy
import math
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Iterable, Sequence

from bench_kernel.errors import UsageError
from bench_kernel.gpu import has_gpu
from bench_kernel.measure._case import Case
from bench_kernel.measure._check import compare
from bench_kernel.measure._env import capture_env, gpu_state, sm_clock_reader, throttle_note
from bench_kernel.measure._events import EventsMethod
from bench_kernel.measure._graph import GraphMethod
from bench_kernel.measure._host import HostMethod
from bench_kernel.measure._inputs import L2Flusher, call_with, plan_rotation, tensor_bytes
from bench_kernel.measure._kernel import KernelMethod
from bench_kernel.measure._limit import DEFAULT_TIMEOUT_S, TimeLimit
from bench_kernel.measure._method import Method, Timed
from bench_kernel.measure._records import METHODS, BenchResult, KernelStat
from bench_kernel.measure._runner import Runner, guard
from bench_kernel.measure._steady import REHOLD_MAX_S, STEADY_MIN_SAMPLE_S, hold_until_settled, stability_notes
from bench_kernel.measure._stopping import StoppingRule

__all__ = ["bench", "bench_case", "bench_many", "as_case", "clone_inputs", "validate_options", "DEFAULT_METHODS"]

DEFAULT_METHODS = ("graph", "events", "kernel")
GPU_METHODS = frozenset({"graph", "events", "kernel"})
#: Input rotation may take at most this fraction of the device's free memory.
ROTATION_MEMORY_FRACTION = 0.25
#: The order methods run in: graph last (see the module docstring).
_RUN_ORDER = ("host", "events", "kernel", "graph")


def _finite_positive(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x) and x > 0


def validate_options(methods: Sequence[str], cache: str, precision: float, max_time_s: float,
                     timeout_s: float | None = None) -> tuple[str, ...]:
    """The methods, deduplicated; a UsageError names a bad method, cache, precision, bound or limit."""
    if isinstance(methods, str):
        methods = (methods,)
    bad = [m for m in methods if m not in METHODS]
    if bad:
        raise UsageError(f"unknown method {bad[0]!r}; expected one of: {', '.join(METHODS)}")
    if not methods:
        raise UsageError("no method given; expected one or more of: " + ", ".join(METHODS))
    if cache not in ("cold", "warm"):
        raise UsageError(f"cache must be 'cold' or 'warm', got {cache!r}")
    if not _finite_positive(precision):
        raise UsageError(f"precision must be a finite number > 0 (relative, 0.01 = 1%), got {precision!r}")
    if not _finite_positive(max_time_s):
        raise UsageError(f"max_time_s must be a finite number > 0 (seconds), got {max_time_s!r}")
    if timeout_s is not None and not (timeout_s == 0 or timeout_s == math.inf or _finite_positive(timeout_s)):
        raise UsageError(f"timeout_s must be > 0 seconds (0, None or inf: no limit), got {timeout_s!r}")
    return tuple(dict.fromkeys(methods))


def clone_inputs(inputs: Any) -> Any:
    """A deep copy of an input set (tensors cloned), for code that must not see ``fn``'s writes."""
    try:
        import torch
    except ImportError:
        return copy.deepcopy(inputs)
    if isinstance(inputs, torch.Tensor):
        return inputs.clone()
    if isinstance(inputs, (list, tuple)):
        return type(inputs)(clone_inputs(x) for x in inputs)
    if isinstance(inputs, dict):
        return {k: clone_inputs(v) for k, v in inputs.items()}
    return copy.deepcopy(inputs)


def _check(case: Case) -> str | None:
    """None when ``case.fn`` matches ``case.reference`` on fresh inputs; else why not."""
    def run() -> str | None:
        inputs = case.make_inputs() if case.make_inputs else None
        ref_inputs = clone_inputs(inputs)  # the reference sees the inputs fn saw, even if fn works in place
        out = call_with(case.fn, inputs)
        ref = call_with(case.reference, ref_inputs)
        return compare(out, ref)

    return guard(case.label, "the correctness check", run)


@dataclass
class _InputPlan:
    """The input sets the calls rotate over, and whether that rotation alone keeps L2 cold."""

    sets: list[Any]
    rotates_beyond_l2: bool
    notes: list[str] = field(default_factory=list)


def _plan_inputs(case: Case, cache: str, gpu: bool, l2_bytes: int | None, device_index: int) -> _InputPlan:
    """One input set, or (cold cache on a GPU) as many as it takes to sweep L2 between two uses."""
    first = guard(case.label, "make_inputs", case.make_inputs) if case.make_inputs else None
    if not (cache == "cold" and gpu):
        return _InputPlan([first], False)
    if case.make_inputs is None:
        return _InputPlan([first], False, ["no make_inputs: one input set, so the graph and host methods run "
                                           "with a warm L2"])
    import torch

    free, _ = torch.cuda.mem_get_info(device_index)
    rotation = plan_rotation(tensor_bytes(first), l2_bytes, budget_bytes=int(free * ROTATION_MEMORY_FRACTION))
    sets = [first] + [guard(case.label, "make_inputs", case.make_inputs) for _ in range(rotation.sets - 1)]
    return _InputPlan(sets, rotation.exceeds_l2, [rotation.note] if rotation.note else [])


def _methods(names: Sequence[str], plan: _InputPlan, flusher: L2Flusher | None) -> list[Method]:
    """The method objects for ``names``, in run order."""
    rotated = "cold" if plan.rotates_beyond_l2 else "warm"
    make: dict[str, Callable[[], Method]] = {
        "host": lambda: HostMethod(rotated),
        "events": lambda: EventsMethod(flusher, rotates_beyond_l2=plan.rotates_beyond_l2),
        "kernel": lambda: KernelMethod(flusher),
        "graph": lambda: GraphMethod(len(plan.sets), rotated),
    }
    return [make[m]() for m in _RUN_ORDER if m in names]


def _method_notes(timed: dict[str, Timed], precision: float, max_time_s: float) -> list[str]:
    """What to distrust in each method's result: an error, or a stop on the time bound."""
    notes = []
    for m, t in timed.items():
        meas = t.measurement
        if meas.error:
            notes.append(f"{m}: {meas.error}")
        elif meas.stop_reason == "time":
            notes.append(f"{m}: stopped at the {max_time_s:g} s bound at +/-{meas.samples.rel_ci95:.1%}, "
                         f"above the {precision:.1%} precision asked for")
    return notes


def bench_case(case: Case, *, methods: Sequence[str] = DEFAULT_METHODS, cache: str = "cold",
               precision: float = 0.01, max_time_s: float = 0.5, device_index: int = 0,
               timeout_s: float | None = DEFAULT_TIMEOUT_S, steady: bool = False,
               progress: Callable[[str], None] | None = None) -> BenchResult:
    """Benchmark one :class:`Case`; see :func:`bench` for the arguments."""
    methods = validate_options(methods, cache, precision, max_time_s, timeout_s)
    # torch's and triton's first import (seconds) is ours, not the case's: done before the limit starts.
    env = capture_env(device_index)
    with TimeLimit(timeout_s, case.label):
        return _measure(case, env, methods, cache, precision, max_time_s, device_index, steady, progress)


def _measure(case: Case, env: dict[str, Any], methods: Sequence[str], cache: str, precision: float,
             max_time_s: float, device_index: int, steady: bool,
             progress: Callable[[str], None] | None) -> BenchResult:
    say = progress or (lambda _msg: None)
    name = case.label
    gpu = has_gpu()
    notes: list[str] = []
    if not gpu:
        dropped = [m for m in methods if m in GPU_METHODS]
        methods = tuple(m for m in methods if m not in GPU_METHODS) or ("host",)
        if dropped:
            notes.append(f"no GPU: {', '.join(dropped)} need a CUDA/HIP device; measured host wall clock")
    base = dict(name=name, params=dict(case.params), env=env, flops=case.flops, bytes=case.bytes)

    if case.reference is not None:
        say(f"{name}: checking against the reference")
        mismatch = _check(case)
        if mismatch:
            return BenchResult(**base, correct=False, notes=tuple(notes + [f"wrong result, not timed: {mismatch}"]))

    plan = _plan_inputs(case, cache, gpu, env.get("l2_bytes"), device_index)
    notes += plan.notes
    runner = Runner(case.fn, plan.sets, name, gpu=gpu, device_index=device_index)
    say(f"{name}: warming up")
    runner.warmup()
    notes += runner.notes
    state_before = gpu_state(device_index) if gpu else {}
    read_clock = sm_clock_reader(device_index) if gpu else None
    flusher = L2Flusher(env.get("l2_bytes"), device_index) if gpu and cache == "cold" else None
    timed: dict[str, Timed] = {}
    holds = []
    for i, method in enumerate(_methods(methods, plan, flusher)):
        if steady:
            say(f"{name}: holding the load until the clock settles ({method.name})")
            holds.append(hold_until_settled(runner, read_clock or (lambda: None),
                                            **({} if i == 0 else {"max_s": REHOLD_MAX_S})))
        say(f"{name}: {method.name}")
        rule = StoppingRule(precision=precision, max_time_s=max(max_time_s, 2 * STEADY_MIN_SAMPLE_S) if steady
                            else max_time_s, min_time_s=STEADY_MIN_SAMPLE_S if steady else 0.0,
                            read_clock=read_clock)
        t = method.run(runner, rule)
        timed[method.name] = replace(t, measurement=replace(t.measurement, sm_clock_mhz=tuple(rule.clocks_mhz)))
    state_after = gpu_state(device_index) if gpu else {}

    if holds:
        notes.append(holds[0].note())
        env = dict(env, steady=[h.to_dict() for h in holds])
    if state_before or state_after:
        env = dict(env, state_before=state_before, state_after=state_after)
        throttled = throttle_note(state_before, state_after)
        notes += [throttled] if throttled else []
    measurements = {m: timed[m].measurement for m in METHODS if m in timed}
    notes += _method_notes(timed, precision, max_time_s)
    notes += stability_notes(measurements, state_before.get("max_sm_clock_mhz"), steady)
    kernels: tuple[KernelStat, ...] = timed["kernel"].kernels if "kernel" in timed else ()
    return BenchResult(**{**base, "env": env}, measurements=measurements,
                       kernels=kernels, correct=True if case.reference is not None else None, notes=tuple(notes))


def bench(fn: Callable[..., Any] | Case, *, make_inputs: Callable[[], Any] | None = None,
          methods: Sequence[str] = DEFAULT_METHODS, cache: str = "cold", precision: float = 0.01,
          max_time_s: float = 0.5, reference: Callable[..., Any] | None = None,
          flops: float | None = None, bytes: float | None = None, name: str | None = None,
          params: dict[str, Any] | None = None, device_index: int = 0,
          timeout_s: float | None = DEFAULT_TIMEOUT_S, steady: bool = False) -> BenchResult:
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
    flops, bytes: work per call, for achieved TFLOP/s and TB/s (finite, >= 0 and > 0).
    timeout_s: stop the case after this many seconds with a TimeLimitError (None, 0 or inf: no
        limit); see ``bench_kernel.measure._limit`` for what can and cannot be interrupted.
    steady: hold the load until the SM clock and the per-call time settle before each method,
        and sample at least 1 s per method (power-capped GPUs); the clock of every sample is in
        ``Measurement.sm_clock_mhz`` either way.
    Raises MeasurementError when ``fn`` raises; UsageError for bad arguments. For a roofline
    placement use :func:`bench_kernel.bench` (``bench_kernel.orchestrate``), which wraps this.
    """
    return bench_case(as_case(fn, make_inputs=make_inputs, reference=reference, flops=flops, bytes=bytes,
                              name=name, params=params),
                      methods=methods, cache=cache, precision=precision, max_time_s=max_time_s,
                      device_index=device_index, timeout_s=timeout_s, steady=steady)


def as_case(fn: Callable[..., Any] | Case, **fields: Any) -> Case:
    """``fn`` itself when it is a :class:`Case`, else a Case of ``fn`` and the given fields."""
    if isinstance(fn, Case):
        return fn
    params = fields.get("params")
    # Anything but a dict is left for Case to refuse with a message naming the field.
    fields["params"] = {} if params is None else dict(params) if isinstance(params, dict) else params
    return Case(fn=fn, **fields)


def bench_many(cases: Iterable[Case], **kwargs: Any) -> list[BenchResult]:
    """``bench_case`` over several cases with the same options."""
    return [bench_case(c, **kwargs) for c in cases]
