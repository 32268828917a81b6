"""Running a sweep's units in rounds, and where each round runs.

K rounds (``Options.rounds``, ``--rounds``) are interleaved across the whole sweep: round 1 of
every point and provider, then round 2, ... -- so a slow phase of the machine (another tenant, a
clock that drifts) lands in one round of every point rather than in every round of a few, and the
spread of a point's round medians shows it (``bench_kernel.results._noise``). Only a point whose
rounds so far measured (``ok``) gets the next one: a mismatch, an unsupported shape or an error is
not retried K times.

On the host method each round runs in fresh worker processes (``LocalPool``: the spec imported
again, a new interpreter, new memory layout): what differs between two runs of a benchmark on a
CPU is largely the process (allocation addresses, thread start-up, the OS's placement), and rounds
in one process would not see it (pyperf's worker processes, for the same reason). GPU methods keep
their processes across rounds (a CUDA context and compiled kernels cost seconds to rebuild, and a
GPU's run-to-run noise is its clock, which the rounds see anyway); so do Ray tasks.

Every round of a point is its own row in the store (``claim_point``/``save_result`` with
``round=``): a killed sweep keeps every finished round and ``--resume`` runs the missing ones.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Callable, Sequence

from bench_kernel.gpu import has_gpu
from bench_kernel.measure import gpu_state
from bench_kernel.options import Options
from bench_kernel.records import PointResult, RunInfo, RunStatus, params_key, point_label
from bench_kernel.results import Store, merge_rounds
from bench_kernel.sweeps._local import LocalPool, Slot, Unit, gpu_slots, host_slots
from bench_kernel.sweeps._spec import SweepSpec
from bench_kernel.sweeps._unit import run_unit

__all__ = ["Inline", "make_backend", "fresh_processes", "run_rounds", "stored_id"]

#: ``progress(done, total, current)``: rounds of points finished, all of them, the current label.
Progress = Callable[[int, int, str], None]


def stored_id(run: RunInfo | None) -> int:
    """The id of the run a store holds, where the caller has a store: it reads, starts or reopens the
    run before any point is claimed, and every run in a store has an id (only one kept nowhere has none)."""
    assert run is not None and run.id is not None, "a stored run was expected"
    return run.id


class Inline:
    """Runs units one after the other in this process (the default backend)."""

    def __init__(self, spec: SweepSpec, options: Options) -> None:
        self.spec, self.options = spec, options
        self.env: dict[str, Any] = {}

    def start(self) -> dict[str, Any]:
        from bench_kernel.orchestrate import run_env

        self.env = run_env(self.options)
        env = dict(self.env)
        if has_gpu():
            env["state_before"] = gpu_state(self.options.device_index)
        return env

    def run(self, units: list[Unit], claim: Callable[[Unit, str], bool],
            done: Callable[[Unit, PointResult], None], began: Callable[[Unit], None] | None = None) -> None:
        for u in units:
            if claim(u, "main"):
                if began:
                    began(u)
                done(u, run_unit(self.spec, u.point, u.provider, self.options, worker="main", env=self.env,
                                 round=u.round))

    def close(self) -> None:
        pass


def fresh_processes(spec: SweepSpec, options: Options, rounds: int, gpus: Sequence[int] | None,
                    backend: str) -> bool:
    """Whether each round runs in fresh worker processes: several host-method rounds of a spec
    file on the local backend (module docstring)."""
    host_only = not options.gpu_methods or not has_gpu()
    return rounds > 1 and host_only and spec.target is not None and gpus is None and backend == "local"


def make_backend(spec: SweepSpec, options: Options, workers: int | None, gpus: Sequence[int] | None, backend: str,
                 address: str | None, fresh: bool) -> Any:
    """The runner of one round's units: Ray tasks, local worker processes, or this process.
    ``options`` are those of one round (``rounds=1``): the rounds are this module's."""
    if backend == "ray":
        from bench_kernel.sweeps._ray import RayRunner

        return RayRunner(spec, options, address)
    if workers is None and gpus is None and not fresh:
        return Inline(spec, options)
    # Worker processes import the spec by its path: run_sweep refuses workers and GPUs without a spec
    # file, and fresh_processes is False without one
    assert spec.target is not None
    if gpus is not None:
        return LocalPool(spec.target, options.to_dict(), gpu_slots(list(gpus)))
    if workers is not None:
        return LocalPool(spec.target, options.to_dict(), host_slots(workers))
    # fresh: one worker that sees what this process sees (a host method may time GPU code too)
    return LocalPool(spec.target, options.to_dict(), [Slot("proc", {})])


def _env_of(runner: Any, env: dict[str, Any]) -> dict[str, Any]:
    """A backend's env as the run stores it: a pool's first worker's, with every worker listed."""
    if not isinstance(runner, LocalPool):
        return env
    first = next(iter(env.values()))
    return {**first, "workers": {k: {x: v.get(x) for x in ("device", "device_index", "visible_devices")}
                                 for k, v in env.items()}}


def _due(units: list[Unit], r: int, stored: dict[tuple[str, str], dict[int, str]]) -> tuple[list[Unit], int]:
    """The units that need round ``r`` (not stored, and every earlier round ``ok``), and how many
    need it no more because an earlier round did not measure."""
    due, dropped = [], 0
    for u in units:
        have = stored.get((u.provider, params_key(u.point)), {})
        if r in have:
            continue
        if any(have.get(i) != "ok" for i in range(1, r)):
            dropped += 1
            continue
        due.append(replace(u, round=r))
    return due, dropped


def run_rounds(units: list[Unit], rounds: int, new_backend: Callable[[], Any], fresh: bool, db: Store | None,
               open_run: Callable[[dict[str, Any]], RunInfo | None], progress: Progress | None,
               stored: dict[tuple[str, str], dict[int, str]]
               ) -> tuple[RunInfo | None, list[PointResult], dict[str, Any], RunStatus]:
    """Run every unit's missing rounds, round after round, committing each as it ends.

    new_backend: makes the runner of a round (called once, or once per round when ``fresh``).
    open_run(env): starts (or reopens) the stored run once the first backend is up; its RunInfo.
    stored: (provider, params key) -> {round: status} already in the store (``--resume``).
    Returns (run, the points measured here with their rounds joined, the first backend's env,
    status: "done" | "interrupted"). Anything else raised passes through, after the backend is closed.
    """
    total = len(units) * rounds
    count = [sum(len([r for r in have if r <= rounds]) for have in stored.values())]
    say = progress or (lambda _d, _t, _c: None)
    rows: dict[tuple[str, str], list[tuple[int, PointResult]]] = {}
    env: dict[str, Any] = {}
    run: RunInfo | None = None
    runner: Any = None
    status: RunStatus
    try:
        for r in range(1, rounds + 1):
            due, dropped = _due(units, r, stored)
            count[0] += dropped if r > 1 else 0
            if runner is None or fresh:
                if runner is not None:
                    runner.close()
                runner = new_backend()
                started = _env_of(runner, runner.start())
                if not env:
                    env = started
                    run = open_run(env)
                    say(count[0], total, "")

            # claim and done read `run` when called, on purpose: the first round's backend sets it once
            def claim(u: Unit, worker: str) -> bool:
                if db is None or db.claim_point(stored_id(run), u.provider, u.point, worker, round=u.round):  # noqa: B023
                    return True
                count[0] += 1  # refused: it crashed its process before, now stored as an error
                stored.setdefault((u.provider, params_key(u.point)), {})[u.round] = "error"
                return False

            def began(u: Unit) -> None:
                say(count[0], total, point_label(u.provider, u.point) + (f" (round {u.round})" if rounds > 1 else ""))

            def done(u: Unit, p: PointResult) -> None:
                if db is not None:
                    p = db.save_result(stored_id(run), p.result, status=p.status, error=p.error, worker=p.worker,  # noqa: B023
                                       wall_s=p.wall_s, round=u.round)
                stored.setdefault((u.provider, params_key(u.point)), {})[u.round] = p.status
                rows.setdefault((u.provider, params_key(u.point)), []).append((u.round, p))
                count[0] += 1
                say(count[0], total, p.label)

            runner.run(due, claim, done, began)
        status = "done"
    except KeyboardInterrupt:
        status = "interrupted"
    finally:
        if runner is not None:
            runner.close()
    return run, [merge_rounds(g) for g in rows.values()], env, status
