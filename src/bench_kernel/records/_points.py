"""The results store's records: a run (:class:`RunInfo`: what was run, where, when) and one point
of it (:class:`PointResult`: a BenchResult plus how it ended)."""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal

from bench_kernel.records._base import Record, doc, from_builtins
from bench_kernel.records._result import BenchResult, upgrade_result

__all__ = ["RunInfo", "PointResult", "POINT_STATUSES", "PointStatus", "RunKind", "RunStatus", "params_key",
           "params_text", "point_label", "status_of"]

PointStatus = Literal["ok", "mismatch", "unsupported", "error", "running"]
#: How a point ended. ``running`` is only ever seen in the store, for a point whose process died.
POINT_STATUSES: tuple[PointStatus, ...] = ("ok", "mismatch", "unsupported", "error", "running")
RunKind = Literal["sweep", "run", "serve"]
RunStatus = Literal["running", "done", "interrupted", "failed"]


def params_key(params: dict[str, Any]) -> str:
    """The canonical text of a point's parameters: how points are matched across runs."""
    return json.dumps(params, sort_keys=True, separators=(",", ":"), default=str)


def params_text(params: dict[str, Any]) -> str:
    """A point's parameters as people read them: ``M=128 N=4096 K=4096`` (how every table, note
    and progress line names a point)."""
    return " ".join(f"{k}={v}" for k, v in params.items())


def point_label(name: str, params: dict[str, Any]) -> str:
    """``"torch M=1024 N=512"``: a point's name and params as one line of text."""
    return " ".join(x for x in (name, params_text(params)) if x)


def status_of(result: BenchResult) -> PointStatus:
    """``mismatch`` for a wrong result, ``ok`` when a method measured, else ``error``."""
    if result.correct is False:
        return "mismatch"
    return "ok" if result.primary_method is not None else "error"


def untimed_reason(result: BenchResult) -> str:
    """Why no method gave ``result`` a time (its status is ``error``): each method's own reason."""
    return "; ".join(m.error for m in result.measurements.values() if m.error) or "no method measured"


class RunInfo(Record, frozen=True):
    """One stored run: a sweep, a ``run --save`` or a serving run, with everything needed to trust or redo it."""

    id: Annotated[int | None, doc("the run's number in the results database; null for a sweep that was not stored")]
    kind: Annotated[RunKind, doc("`sweep`, `run` (`run --save`, a pytest session) or `serve` (`serve --save`)")]
    name: Annotated[str, doc("the spec, the target, or the served model and its URL")]
    status: Annotated[RunStatus, doc("`running`, `done`, `interrupted` or `failed`")]
    created_at: Annotated[str, doc("when it started, ISO 8601 UTC")]
    finished_at: Annotated[str | None, doc("when it ended, ISO 8601 UTC")] = None
    wall_s: Annotated[float | None, doc("seconds from start to end")] = None
    source_path: Annotated[str | None, doc("the spec or target file")] = None
    source_hash: Annotated[str | None, doc("sha256 of that file (`--resume` refuses an edited spec)")] = None
    git_commit: Annotated[str | None, doc("the commit of the spec's (or working) repository")] = None
    git_dirty: Annotated[bool | None, doc("that repository had uncommitted changes")] = None
    command: Annotated[tuple[str, ...], doc("the command line that made the run")] = ()
    config: Annotated[dict[str, Any], doc("what the run was asked: a sweep's `axes`, `providers`, `baseline`, `spec_name`, `filtered`, `options` (methods, cache, precision, max_time_s, steady), `rounds` and `sharding`; a `run --save`'s methods, cache, precision, max_time_s, roofline, timeout_s, steady; a serving run's options")] = {}
    env: Annotated[dict[str, Any], doc("the machine, as `BenchResult.env` (device, driver, versions, `state_before`/`state_after`); a sweep's GPU workers add `workers` and `visible_devices`")] = {}
    total_points: Annotated[int | None, doc("points the run was to measure")] = None
    n_points: Annotated[int, doc("points stored with a final status (not `running`)")] = 0

    def __hash__(self) -> int:
        return hash((self.id, self.kind, self.name, self.created_at))

    @property
    def providers(self) -> list[str]:
        return list(self.config.get("providers") or [])

    @property
    def baseline(self) -> str | None:
        return self.config.get("baseline")

    @property
    def axes(self) -> dict[str, list[Any]]:
        return dict(self.config.get("axes") or {})

    @property
    def device(self) -> str | None:
        return self.env.get("device")


class PointResult(Record, frozen=True):
    """One provider at one point of a run (or one case of a ``run --save``).

    ``result`` is always a :class:`BenchResult` named after the provider with the point as its
    ``params``: measured (``ok``), refused by the correctness check (``mismatch``, not timed), or
    empty with the reason in ``error`` (``unsupported`` at this point, or ``error``).
    """

    provider: Annotated[str, doc("the provider (a sweep's implementation), or the case's name for `run --save`")]
    params: Annotated[dict[str, Any], doc("the point's parameters")]
    status: Annotated[PointStatus, doc("`ok`, `mismatch` (wrong result, not timed), `unsupported`, `error`, or `running` (its process died)")]
    result: Annotated[BenchResult, doc("the measured result (empty but for its notes when not `ok`)")]
    error: Annotated[str | None, doc("why it did not measure: the reason for `unsupported` and `error`")] = None
    worker: Annotated[str | None, doc("who ran it: `main`, `host:1`, `gpu:3` (the physical index), `ray:<node>`")] = None
    wall_s: Annotated[float | None, doc("seconds from the provider's factory call to the finished result, in the worker")] = None
    run_id: Annotated[int | None, doc("the stored run it belongs to")] = None
    finished_at: Annotated[str | None, doc("when it ended, ISO 8601 UTC")] = None

    def __hash__(self) -> int:
        return hash(self.key)

    @property
    def key(self) -> tuple[str, str]:
        """(provider, canonical params): unique within a run."""
        return self.provider, params_key(self.params)

    @property
    def median_us(self) -> float | None:
        """The primary method's median (graph, else kernel, events, host), microseconds."""
        return self.result.time_us if self.status == "ok" else None

    @property
    def label(self) -> str:
        """``provider k=v ...``: how a point is named in headings, notes and plots."""
        return point_label(self.provider, self.params)

    @property
    def roofline(self) -> Any:
        return self.result.roofline

    @property
    def measured_roofline(self) -> Any:
        return self.result.measured_roofline

    @classmethod
    def from_dict(cls, data: Any) -> "PointResult":
        """A point as stored or printed (its result of any version ``BenchResult`` reads)."""
        return from_builtins({**data, "result": upgrade_result(data["result"])}, cls)
