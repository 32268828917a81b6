"""The store's records: a run (what was run, where, when) and one point of it (a BenchResult plus
how it ended). Both serialise to plain JSON; ``from_dict`` reads back what ``to_dict`` wrote.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from typing import Any

from bench_kernel.measure import BenchResult, merge_results

__all__ = ["RunInfo", "PointResult", "POINT_STATUSES", "params_key", "params_text", "point_label", "status_of",
           "merge_rounds"]

#: How a point ended. ``running`` is only ever seen in the store, for a point whose process died.
POINT_STATUSES = ("ok", "mismatch", "unsupported", "error", "running")


def params_key(params: dict[str, Any]) -> str:
    """The canonical text of a point's parameters: how points are matched across runs."""
    return json.dumps(params, sort_keys=True, separators=(",", ":"), default=str)


def params_text(params: dict[str, Any]) -> str:
    """A point's parameters as people read them: ``M=128 N=4096 K=4096`` (how every table, note
    and progress line names a point)."""
    return " ".join(f"{k}={v}" for k, v in params.items())


def status_of(result: BenchResult) -> str:
    """``mismatch`` for a wrong result, ``ok`` when a method measured, else ``error``."""
    if result.correct is False:
        return "mismatch"
    return "ok" if result.time_us is not None else "error"


@dataclass(frozen=True)
class RunInfo:
    """One stored run: a sweep or a ``run --save``, with everything needed to trust or redo it.

    ``config`` holds what the run was asked (for a sweep: ``axes``, ``providers``, ``baseline``,
    ``methods``, ``cache``, ``precision``, ``max_time_s``); ``env`` the machine (device, driver,
    versions, ``state_before``/``state_after`` clocks and temperature, ``workers``).
    ``id`` is None for a sweep that was not stored.
    """

    id: int | None
    kind: str  # "sweep" | "run"
    name: str
    status: str  # "running" | "done" | "interrupted" | "failed"
    created_at: str  # ISO 8601, UTC
    finished_at: str | None = None
    wall_s: float | None = None
    source_path: str | None = None
    source_hash: str | None = None
    git_commit: str | None = None
    git_dirty: bool | None = None
    command: tuple[str, ...] = ()
    config: dict[str, Any] = field(default_factory=dict)
    env: dict[str, Any] = field(default_factory=dict)
    total_points: int | None = None
    #: points stored with a final status (not ``running``)
    n_points: int = 0

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

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id, "kind": self.kind, "name": self.name, "status": self.status,
            "created_at": self.created_at, "finished_at": self.finished_at, "wall_s": self.wall_s,
            "source_path": self.source_path, "source_hash": self.source_hash,
            "git_commit": self.git_commit, "git_dirty": self.git_dirty,
            "command": list(self.command), "config": dict(self.config), "env": dict(self.env),
            "total_points": self.total_points, "n_points": self.n_points,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "RunInfo":
        return cls(**{**d, "command": tuple(d.get("command") or ()), "config": dict(d.get("config") or {}),
                      "env": dict(d.get("env") or {})})


def point_label(name: str, params: dict[str, Any]) -> str:
    """``"torch M=1024 N=512"``: a point's name and params as one line of text."""
    return " ".join(x for x in (name, params_text(params)) if x)


@dataclass(frozen=True)
class PointResult:
    """One provider at one point of a run (or one case of a ``run --save``).

    ``result`` is always a :class:`BenchResult` named after the provider with the point as its
    ``params``: measured (``ok``), refused by the correctness check (``mismatch``, not timed),
    or empty with the reason in ``error`` (``unsupported`` at this point, or ``error``).
    """

    provider: str
    params: dict[str, Any]
    status: str
    result: BenchResult
    error: str | None = None
    #: who ran it: "main", "host:1", "gpu:3" (the physical index), "ray:<node>"
    worker: str | None = None
    #: seconds from the provider's factory call to the finished result, in the worker
    wall_s: float | None = None
    run_id: int | None = None
    finished_at: str | None = None
    #: the roofline placement as stored (``BenchResult.from_dict`` does not rebuild it)
    roofline: dict[str, Any] | None = None
    #: the counted work's hierarchical roofline as stored (``run --counters``; not rebuilt either)
    measured_roofline: dict[str, Any] | None = None

    def __post_init__(self) -> None:
        if self.status not in POINT_STATUSES:
            raise ValueError(f"PointResult status {self.status!r}; expected one of {POINT_STATUSES}")

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

    def to_dict(self) -> dict[str, Any]:
        result = self.result.to_dict()
        if self.roofline is not None and result.get("roofline") is None:
            result["roofline"] = self.roofline
        if self.measured_roofline is not None and result.get("measured_roofline") is None:
            result["measured_roofline"] = self.measured_roofline
        return {"provider": self.provider, "params": dict(self.params), "status": self.status,
                "error": self.error, "worker": self.worker, "wall_s": self.wall_s,
                "run_id": self.run_id, "finished_at": self.finished_at, "result": result}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "PointResult":
        result = d["result"]
        return cls(provider=d["provider"], params=dict(d.get("params") or {}), status=d["status"],
                   result=BenchResult.from_dict(result), error=d.get("error"), worker=d.get("worker"),
                   wall_s=d.get("wall_s"), run_id=d.get("run_id"), finished_at=d.get("finished_at"),
                   roofline=result.get("roofline"), measured_roofline=result.get("measured_roofline"))


def merge_rounds(rows: list[tuple[int, PointResult]]) -> PointResult:
    """One point from its stored rounds ``(round, PointResult)``: the measured rounds joined
    (``bench_kernel.measure.merge_results``; ``env["rounds"]`` says who ran each), ``mismatch`` if
    any round was wrong, else ``ok`` if any measured (a round that failed is a note), else the
    first round's status and error. One row is returned as it is."""
    if len(rows) == 1:
        return rows[0][1]
    rows = sorted(rows, key=lambda r: r[0])
    points = [p for _, p in rows]
    first = points[0]
    statuses = [p.status for p in points]
    status = "mismatch" if "mismatch" in statuses else "ok" if "ok" in statuses else first.status
    chosen = [(r, p) for r, p in rows if p.status == status]
    notes = tuple(f"round {r}: {p.status}: {p.error}" for r, p in rows if p.status != status and p.status != "running")
    info = [{"round": r, "worker": p.worker, "wall_s": p.wall_s, "finished_at": p.finished_at,
             **{k: p.result.env[k] for k in ("pid", "state_before", "state_after") if k in p.result.env}}
            for r, p in chosen]
    result = merge_results([p.result for _, p in chosen], rounds_env=info)
    workers = list(dict.fromkeys(p.worker for _, p in chosen if p.worker))
    return PointResult(provider=first.provider, params=dict(first.params), status=status,
                       result=replace(result, notes=result.notes + notes),
                       error=next((p.error for _, p in chosen if p.error), None), worker=",".join(workers) or None,
                       wall_s=sum(p.wall_s or 0.0 for p in points), run_id=first.run_id,
                       finished_at=max((p.finished_at for p in points if p.finished_at), default=None),
                       roofline=next((p.roofline for _, p in chosen if p.roofline), None),
                       measured_roofline=next((p.measured_roofline for _, p in chosen if p.measured_roofline), None))
