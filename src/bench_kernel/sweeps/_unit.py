"""One unit of a sweep: one provider at one point -> a :class:`PointResult`.

The same function runs in the sweeping process, in a worker process and in a Ray task, so a
point's outcome never depends on where it ran. Nothing raised by user code escapes: the
provider's factory, its case, the correctness check and the timing all end as a status
(``unsupported``, ``error``, ``mismatch`` or ``ok``) with the reason.
"""

from __future__ import annotations

import time
from dataclasses import replace
from typing import Any

from bench_kernel.errors import BenchKernelError, TargetError, Unsupported
from bench_kernel.measure import Case, CaseOrigin, as_cases, exits_raise, user_failure
from bench_kernel.options import Options
from bench_kernel.orchestrate import bench_case
from bench_kernel.records import (
    BenchResult,
    Note,
    PointResult,
    PointStatus,
    info,
    status_of,
    untimed_reason,
    warning,
)
from bench_kernel.sweeps._spec import SweepSpec

__all__ = ["run_unit", "case_at", "point_case"]


def case_at(spec: SweepSpec, provider: str, point: dict[str, Any]) -> Case:
    """The case ``provider`` builds at ``point``; Unsupported passes through, anything else
    the factory raises becomes a TargetError naming the provider and the point."""
    factory = spec.providers[provider]
    try:
        with exits_raise():  # sys.exit or os._exit in a factory is this point's error, not the sweep's end
            value = factory(dict(point))
    except (Unsupported, KeyboardInterrupt):
        raise
    except Exception as e:  # noqa: BLE001 - user code
        raise TargetError(f"provider {provider!r} raised {type(e).__name__} at {point}: {e}") from e
    except BaseException as e:  # noqa: BLE001 - sys.exit, os._exit, a BaseException subclass
        raise user_failure(f"provider {provider!r} at {point}", e) from None
    cases = as_cases(value, where=f"provider {provider!r} at {point}", default_name=provider)
    if len(cases) != 1:
        raise TargetError(f"provider {provider!r} returned {len(cases)} cases at {point}; a provider "
                          f"builds one case per point")
    return cases[0]


def point_case(spec: str, provider: str, point: dict[str, Any]) -> Case:
    """``provider``'s case at ``point`` of the spec file ``spec`` (``path.py:name``): how the child process
    that counts a point's work (``sweep --counters``) builds it again."""
    from bench_kernel.sweeps._spec import load_spec

    return case_at(load_spec(spec), provider, point)


def _unsupported_cause(e: BaseException) -> Unsupported | None:
    # Unsupported raised inside the case's fn (e.g. a kernel that refuses a shape when first
    # called) reaches us wrapped in the MeasurementError that names the failing step.
    cause: BaseException | None = e
    while cause is not None:
        if isinstance(cause, Unsupported):
            return cause
        cause = cause.__cause__
    return None


def run_unit(spec: SweepSpec, point: dict[str, Any], provider: str, options: Options,
             worker: str | None = None, env: dict[str, Any] | None = None, round: int = 1) -> PointResult:
    """Build ``provider``'s case at ``point``, check it against the baseline's output, time it.

    The baseline's ``fn`` is the reference of every other provider whose case has none of its
    own (same inputs, so the two must share a signature; a case that needs different inputs
    sets its own ``reference``). A mismatch is recorded and not timed. The point is measured as
    ``run`` measures a case (``bench_kernel.orchestrate.bench_case``: ``options.timeout_s`` bounds
    it); env: the worker's machine state, captured once per worker (None: captured here).
    round: which round of the point this is; only round 1 checks the output, counts and places
    the work (roofline, hardware counters): the later rounds time the same code, and a point whose
    round 1 was wrong gets no more rounds.
    The spec's ``rtol``/``atol`` apply to a case that sets none of its own.
    """
    t0 = time.perf_counter()
    empty = BenchResult(name=provider, params=dict(point))

    def ended(status: PointStatus, reason: str) -> PointResult:
        note = (info if status == "unsupported" else warning)(f"point-{status}", reason)
        return PointResult(provider, dict(point), status, empty.with_notes(note), error=reason,
                           worker=worker, wall_s=time.perf_counter() - t0)

    try:
        case = case_at(spec, provider, point)
    except Unsupported as e:
        return ended("unsupported", str(e) or "unsupported at this point")
    except BenchKernelError as e:
        return ended("error", str(e))
    notes: list[Note] = []
    case = replace(case, rtol=case.rtol if case.rtol is not None else spec.rtol,
                   atol=case.atol if case.atol is not None else spec.atol)
    if round > 1:
        case = replace(case, reference=None)
        options = replace(options, roofline=False, counters=False)
    elif spec.baseline and provider != spec.baseline and case.reference is None:
        try:
            case = replace(case, reference=case_at(spec, spec.baseline, point).fn)
        except Unsupported:
            notes.append(warning("not-checked", f"not checked: the baseline {spec.baseline!r} is unsupported at "
                                 "this point"))
        except BenchKernelError as e:
            notes.append(warning("not-checked", f"not checked: the baseline could not be built: {e}"))
    case = replace(case, name=provider, params=dict(point))
    if options.counters and spec.target is not None:  # the child that counts the point imports the spec file
        case = replace(case, origin=CaseOrigin("bench_kernel.sweeps:point_case",
                                               {"spec": spec.target, "provider": provider, "point": dict(point)}))
    try:
        result = bench_case(case, options, env=env)
    except BenchKernelError as e:
        cause = _unsupported_cause(e)
        if cause is not None:
            return ended("unsupported", str(cause) or "unsupported at this point")
        return ended("error", str(e))
    result = result.with_notes(*notes)
    status = status_of(result)
    error = None
    if status == "mismatch":
        error = next((n.text for n in reversed(result.notes) if n.code == "wrong-result"), "wrong result")
    elif status == "error":
        error = untimed_reason(result)
    return PointResult(provider, dict(point), status, result, error=error, worker=worker,
                       wall_s=time.perf_counter() - t0)
