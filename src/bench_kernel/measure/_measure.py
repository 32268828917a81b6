"""``measure_case()``: check, plan the inputs, warm up, then time one callable with each requested method.

Order of work (DESIGN.md, "Measurement"): correctness check on fresh inputs -> input rotation sized
from L2 -> warm-up outside any graph -> host, events, kernel, and graph LAST, because a failed
capture can leave a stream in a bad state and must not spoil the other methods. With K rounds
(``Options.rounds``) the methods run K times in that order, round after round, and each method's
rounds are joined (``_rounds.merge_measurements``). Placing a result
under a roofline, the time limit and the loop over cases are orchestration (``bench_kernel.orchestrate``):
this module only measures, with the :class:`~bench_kernel.options.Options` it is given (checked when
they were built, not here).
"""

from __future__ import annotations

import contextlib
import copy
import sys
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Iterator, Sequence

from bench_kernel.gpu import has_gpu
from bench_kernel.measure._agree import agreement_note
from bench_kernel.measure._case import Case
from bench_kernel.measure._check import compare
from bench_kernel.measure._cpuwait import cpu_wait_note, machine_load, torch_threads
from bench_kernel.measure._env import (
    capture_env,
    gpu_state,
    sm_clock_reader,
    throttle_note,
)
from bench_kernel.measure._events import EventsMethod
from bench_kernel.measure._graph import GraphMethod
from bench_kernel.measure._host import HostMethod
from bench_kernel.measure._inputs import (
    L2Flusher,
    call_with,
    plan_rotation,
    tensor_bytes,
)
from bench_kernel.measure._kernel import KernelMethod
from bench_kernel.measure._method import Method, Timed
from bench_kernel.measure._rounds import RoundPlan, merge_measurements
from bench_kernel.measure._runner import Runner, guard
from bench_kernel.measure._steady import (
    REHOLD_MAX_S,
    STEADY_MIN_SAMPLE_S,
    hold_until_settled,
    stability_notes,
)
from bench_kernel.measure._stopping import StoppingRule
from bench_kernel.measure._warmup import ensure_warm, mark_busy
from bench_kernel.options import GPU_METHODS, METHODS, Options
from bench_kernel.records import (
    BenchResult,
    Check,
    KernelStat,
    Measurement,
    Note,
    info,
    warning,
)

__all__ = ["measure_case", "as_case", "clone_inputs"]

#: Input rotation may take at most this fraction of the device's free memory.
ROTATION_MEMORY_FRACTION = 0.25
#: The order methods run in: graph last (see the module docstring).
_RUN_ORDER = ("host", "events", "kernel", "graph")


def clone_inputs(inputs: Any) -> Any:
    """A deep copy of an input set (tensors cloned), for code that must not see ``fn``'s writes."""
    torch = sys.modules.get("torch")  # never imported here: without it loaded, no input is a tensor
    if torch is None:
        return copy.deepcopy(inputs)
    if isinstance(inputs, torch.Tensor):
        return inputs.clone()
    if isinstance(inputs, (list, tuple)):
        return type(inputs)(clone_inputs(x) for x in inputs)
    if isinstance(inputs, dict):
        return {k: clone_inputs(v) for k, v in inputs.items()}
    return copy.deepcopy(inputs)


def _check(case: Case, reference: Callable[..., Any]) -> Check:
    """``case.fn`` against ``reference`` (the case's) on fresh inputs, with the case's tolerances."""
    def run() -> Check:
        inputs = case.make_inputs() if case.make_inputs else None
        ref_inputs = clone_inputs(inputs)  # the reference sees the inputs fn saw, even if fn works in place
        out = call_with(case.fn, inputs)
        ref = call_with(reference, ref_inputs)
        return compare(out, ref, rtol=case.rtol, atol=case.atol)

    return guard(case.label, "the correctness check", run)


@dataclass
class _InputPlan:
    """The input sets the calls rotate over, and the L2 state that rotation alone gives the calls."""

    sets: list[Any]
    #: "cold" when two uses of one set are separated by more than L2's worth of other sets, else "warm"
    rotation_cache: str
    notes: list[Note] = field(default_factory=list)


def _plan_inputs(case: Case, cache: str, gpu: bool, l2_bytes: int | None, device_index: int) -> _InputPlan:
    """One input set, or (cold cache on a GPU) as many as it takes to sweep L2 between two uses."""
    first = guard(case.label, "make_inputs", case.make_inputs) if case.make_inputs else None
    if not (cache == "cold" and gpu):
        return _InputPlan([first], "warm")
    if case.make_inputs is None:
        return _InputPlan([first], "warm", [info("one-input-set", "no make_inputs: one input set, so the graph and "
                                                 "host methods run with a warm L2")])
    import torch

    free, _ = torch.cuda.mem_get_info(device_index)
    rotation = plan_rotation(tensor_bytes(first), l2_bytes, budget_bytes=int(free * ROTATION_MEMORY_FRACTION))
    sets = [first] + [guard(case.label, "make_inputs", case.make_inputs) for _ in range(rotation.sets - 1)]
    note = info("rotation-limited", rotation.note, sets=rotation.sets) if rotation.note else None
    return _InputPlan(sets, "cold" if rotation.exceeds_l2 else "warm", [note] if note else [])


def _methods(names: Sequence[str], plan: _InputPlan, flusher: L2Flusher | None) -> list[Method]:
    """The method objects for ``names``, in run order."""
    make: dict[str, Callable[[], Method]] = {
        "host": lambda: HostMethod(plan.rotation_cache),
        "events": lambda: EventsMethod(flusher, rotation_cache=plan.rotation_cache),
        "kernel": lambda: KernelMethod(flusher),
        "graph": lambda: GraphMethod(len(plan.sets), plan.rotation_cache),
    }
    return [make[m]() for m in _RUN_ORDER if m in names]


@contextlib.contextmanager
def _intra_op_threads(threads: int | None) -> Iterator[None]:
    """torch's intra-op threads set to ``threads`` (None: as they are) while measuring, then put back.
    Without torch loaded there is nothing to set: a case that never imports torch runs no torch threads."""
    torch = sys.modules.get("torch")
    if threads is None or torch is None:
        yield
        return
    before = torch.get_num_threads()
    torch.set_num_threads(threads)
    try:
        yield
    finally:
        torch.set_num_threads(before)


def _method_notes(per_method: dict[str, list[Timed]], merged: dict[str, Timed], options: Options) -> list[Note]:
    """What to distrust in each method's result: an error, or rounds stopped on the time bound
    (judged per round: the joined samples' interval says nothing about when a round stopped)."""
    notes: list[Note] = []
    for m, t in merged.items():
        meas = t.measurement
        if meas.error:
            notes.append(warning("method-failed", f"{m}: {meas.error}", method=m))
            continue
        rounds = [x.measurement for x in per_method[m] if x.measurement.ok]
        # A round that hit the bound with its interval within the precision asked for lost nothing.
        short = [r for r in rounds if r.stop_reason == "time" and r.samples.rel_ci95 > options.precision]
        if not short:
            continue
        widest = max(r.samples.rel_ci95 for r in short)
        bound = f"the {options.max_time_s:g} s bound" + ("" if len(rounds) == 1 else " its rounds share")
        where, at = ("", f"+/-{widest:.1%}") if len(rounds) == 1 else \
            (f" in {len(short)} of {len(rounds)} rounds", f"up to +/-{widest:.1%}")
        notes.append(warning("precision-not-reached", f"{m}: stopped at {bound}{where} at {at}, above the "
                             f"{options.precision:.1%} precision asked for", method=m, rel_ci95=widest,
                             rounds=len(short)))
    return notes


def _time_rounds(runner: Runner, methods: list[Method], plan: RoundPlan, options: Options,
                 read_clock: Callable[[], float | None] | None, say: Callable[[str], None]
                 ) -> tuple[dict[str, list[Timed]], list[Any]]:
    """Each method's rounds, as ``plan`` decides them (``_rounds``), round-robin over the methods
    so that what drifts reaches them alike; with ``options.steady`` a hold before each and no
    extra rounds. Returns (method -> its rounds in order, the steady holds)."""
    if options.steady:
        plan = replace(plan, max_rounds=plan.min_rounds)
    per_method: dict[str, list[Timed]] = {m.name: [] for m in methods}
    used = {m.name: 0.0 for m in methods}
    holds: list[Any] = []
    while True:
        due = [m for m in methods if plan.wants_more([t.measurement for t in per_method[m.name]], used[m.name])]
        if not due:
            return per_method, holds
        for method in due:
            done = len(per_method[method.name])
            label = method.name if plan.max_rounds == 1 else f"{method.name}, round {done + 1}"
            if options.steady:
                say(f"holding the load until the {'clock' if read_clock else 'per-call time'} settles ({label})")
                holds.append(hold_until_settled(runner, read_clock or (lambda: None),
                                                **({} if not holds else {"max_s": REHOLD_MAX_S})))
            say(label)
            bound = plan.round_bound_s(done, used[method.name])
            rule = StoppingRule(precision=options.precision,
                                max_time_s=max(options.max_time_s, 2 * STEADY_MIN_SAMPLE_S) if options.steady
                                else bound, min_time_s=STEADY_MIN_SAMPLE_S if options.steady else 0.0,
                                read_clock=read_clock)
            t = method.run(runner, rule)
            t = replace(t, measurement=t.measurement.replace(sm_clock_mhz=tuple(rule.clocks_mhz)))
            per_method[method.name].append(t)
            used[method.name] += t.measurement.wall_s


def measure_case(case: Case, options: Options, *, env: dict[str, Any] | None = None,
                 progress: Callable[[str], None] | None = None) -> BenchResult:
    """Time one :class:`Case` with each method of ``options`` and return its :class:`BenchResult`.

    env: the machine's state from :func:`capture_env` (taken once per run by the caller; captured
    here when None). progress: called with a short description of each step.
    Without a GPU the GPU methods are replaced by ``host`` (a note says so). The methods run
    ``options.rounds_for(gpu)`` times, round after round, after one check and one warm-up. A
    ``reference`` mismatch returns a result with ``correct`` False and no measurements (its
    ``check`` says by how much). Raises MeasurementError when the case's code raises. No time
    limit is applied here: ``bench_kernel.orchestrate`` does.
    """
    say = progress or (lambda _msg: None)
    env = capture_env(options.device_index) if env is None else env
    name = case.label
    gpu = has_gpu()
    methods = options.methods
    device_index = options.device_index
    notes: list[Note] = []
    if not gpu:
        dropped = [m for m in methods if m in GPU_METHODS]
        methods = tuple(m for m in methods if m not in GPU_METHODS) or ("host",)
        if dropped:
            notes.append(info("no-gpu", f"no GPU: {', '.join(dropped)} need a CUDA/HIP device; measured host wall "
                              "clock", dropped=dropped))
    params = dict(case.params)

    check = None
    if case.reference is not None:
        say(f"{name}: checking against the reference")
        check = _check(case, case.reference)
        if not check.passed:
            return BenchResult(name=name, params=params, env=env, flops=case.flops, bytes=case.bytes,
                               correct=False, check=check,
                               notes=tuple(notes + [warning("wrong-result", f"wrong result, not timed: "
                                                            f"{check.describe()}")]))

    with _intra_op_threads(options.threads):
        plan = _plan_inputs(case, options.cache, gpu, env.get("l2_bytes"), device_index)
        notes += plan.notes
        if gpu:  # bring the device to its working clock, where it fell back (``_warmup``)
            env = dict(env, device_warmup=ensure_warm(device_index))
        runner = Runner(case.fn, plan.sets, name, gpu=gpu, device_index=device_index)
        say(f"{name}: warming up")
        runner.warmup()
        notes += runner.notes
        state_before = gpu_state(device_index) if gpu else {}
        flusher = L2Flusher(env.get("l2_bytes"), device_index) if gpu and options.cache == "cold" else None
        methods_run = _methods(methods, plan, flusher)
        per_method, holds = _time_rounds(runner, methods_run, RoundPlan.of(options, gpu), options,
                                         sm_clock_reader(device_index) if gpu else None,
                                         lambda msg: say(f"{name}: {msg}"))
        threads = torch_threads()
        load = machine_load()
    state_after = gpu_state(device_index, after=True) if gpu else {}
    if gpu:
        mark_busy(device_index)
    timed = {m: replace(ts[0], measurement=merge_measurements([t.measurement for t in ts]))
             for m, ts in per_method.items()}

    if "host" in per_method and threads is not None:
        env = dict(env, cpu_threads=threads)  # what the host method ran with (--threads, or torch's own count)
    started = sum(m.waited_s for m in methods_run if isinstance(m, KernelMethod))
    if started:  # the process's first profiler session, paid by this case (``_profiler_start``)
        env = dict(env, profiler_start_s=round(started, 3))
    if holds:
        notes.append(holds[0].note())
        env = dict(env, steady=[h.to_dict() for h in holds])
    if state_before or state_after:
        env = dict(env, state_before=state_before, state_after=state_after)
        throttled = throttle_note(state_before, state_after)
        notes += [throttled] if throttled else []
    measurements: dict[str, Measurement] = {m: timed[m].measurement for m in METHODS if m in timed}
    notes += _method_notes(per_method, timed, options)
    waited = cpu_wait_note(measurements["host"], load, threads) if "host" in measurements else None
    notes += [waited] if waited else []
    notes += stability_notes(measurements, state_before.get("max_sm_clock_mhz"), options.steady, gpu=gpu)
    disagree = agreement_note(measurements)
    notes += [disagree] if disagree else []
    kernels: tuple[KernelStat, ...] = timed["kernel"].kernels if "kernel" in timed else ()
    return BenchResult(name=name, params=params, env=env, flops=case.flops, bytes=case.bytes,
                       measurements=measurements, check=check,
                       kernels=kernels, correct=True if case.reference is not None else None, notes=tuple(notes))


def as_case(fn: Callable[..., Any] | Case, **fields: Any) -> Case:
    """``fn`` itself when it is a :class:`Case`, else a Case of ``fn`` and the given fields."""
    if isinstance(fn, Case):
        return fn
    params = fields.get("params")
    # Anything but a dict is left for Case to refuse with a message naming the field.
    fields["params"] = {} if params is None else dict(params) if isinstance(params, dict) else params
    return Case(fn=fn, **fields)
