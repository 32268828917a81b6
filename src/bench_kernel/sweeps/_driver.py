"""``sweep()``: every provider at every point of a grid, checked, timed and stored as it finishes.

The driver owns the store; where the points run is a backend with one shape (``start() -> env``,
``run(units, claim, done, began)``, ``close()``): in this process, in local worker processes
(``workers=N`` on the host, ``gpus=[...]`` one per GPU) or as Ray tasks. Each point is timed in
K rounds interleaved across the sweep (``_rounds``); each round of a point is claimed in the store
before it runs and committed when it ends, so a sweep killed at any moment keeps every finished
round, and ``resume=RUN`` runs exactly the rounds that are missing.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, replace
from typing import Any, Callable, Mapping, Sequence

from bench_kernel.errors import DeviceError, Interrupted, StoreError, UsageError
from bench_kernel.gpu import has_gpu
from bench_kernel.measure import gpu_state
from bench_kernel.options import Options
from bench_kernel.records import PointResult, RunInfo, RunStatus, SweepOutput, params_key
from bench_kernel.results import Store, best_per_point, open_store, provenance
from bench_kernel.sweeps._local import Unit
from bench_kernel.sweeps._rounds import fresh_processes, make_backend, run_rounds, stored_id
from bench_kernel.sweeps._spec import DEFAULT_SPEC_NAME, SweepSpec

__all__ = ["sweep", "run_sweep", "parse_gpus", "check_sharding", "Progress"]

#: ``progress(done, total, current)``: points finished (stored ones included), all points, and
#: the label of the point just started or finished.
Progress = Callable[[int, int, str], None]


def check_sharding(workers: int | None, gpus: Any, backend: str) -> None:
    """UsageError for a way of sharding that is wrong on any machine (checked before ``--gpus`` is
    read against this machine's GPUs, and before the spec loads)."""
    if sum(x is not None for x in (workers, gpus)) + (backend == "ray") > 1:
        raise UsageError("choose one of --workers, --gpus and --backend ray")
    if backend not in ("local", "ray"):
        raise UsageError(f"backend must be 'local' or 'ray', got {backend!r}")
    if workers is not None and workers < 1:
        raise UsageError(f"--workers must be >= 1, got {workers}")


def parse_gpus(text: str) -> list[int]:
    """``"all"`` or ``"0,1,3"`` -> GPU indices, checked against the GPUs torch sees."""
    if not has_gpu():  # the command line is right, this machine is not: exit 1, as every "needs a GPU"
        raise DeviceError(f"--gpus {text}: no CUDA/HIP GPU is visible here; use --workers N for host workers")
    import torch

    count = torch.cuda.device_count()
    if text.strip() == "all":
        return list(range(count))
    try:
        indices = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise UsageError(f"--gpus {text!r}: expected 'all' or a list like 0,1,3") from None
    bad = [i for i in indices if not 0 <= i < count]
    if bad or not indices:
        raise UsageError(f"--gpus {text!r}: this machine has GPUs 0..{count - 1}")
    if len(set(indices)) != len(indices):
        raise UsageError(f"--gpus {text!r} lists a GPU twice")
    return indices


def _options(given: Mapping[str, Any], stored: dict[str, Any] | None, run_id: int | None,
             host_only: bool) -> Options:
    """The run's options: ``given`` over the defaults, or on resume the stored run's (a value
    given then that differs is a UsageError: one run, one way of measuring)."""
    if stored is not None:
        opts = Options.from_dict(stored)
        for key, value in given.items():
            have = getattr(opts, key)
            if (tuple(value) if key == "methods" else value) != have:
                raise UsageError(f"run {run_id} was measured with {key} {have!r}; resuming it with "
                                 f"{value!r} would mix two measurements: leave the option out")
        return opts
    if host_only and "methods" not in given:
        given = {**given, "methods": ("host",)}
    opts = Options.build(**given)
    if host_only and opts.gpu_methods:
        raise UsageError("--workers runs host processes with the host method; use --gpus for GPU methods")
    return opts


def _check_resume(run: RunInfo, spec: SweepSpec, sha: str | None) -> None:
    if run.kind != "sweep":
        raise StoreError(f"run {run.id} is a {run.kind!r} run, not a sweep: nothing to resume")
    if run.source_hash and sha and run.source_hash != sha:
        raise StoreError(f"run {run.id} was made from a spec with sha256 {run.source_hash[:12]}; "
                         f"{spec.target} has sha256 {sha[:12]}: its points would not be comparable, "
                         f"start a new run")
    same_name = run.config.get("spec_name", DEFAULT_SPEC_NAME) == spec.name
    if not same_name or (not sha and run.axes != spec.config()["axes"]):
        raise StoreError(f"run {run.id} is of sweep {run.name!r}, not {spec.target or spec.name!r}")


def _open(store: Store | str | os.PathLike[str] | None) -> tuple[Store | None, bool]:
    if store is None or isinstance(store, Store):
        return store, False
    return open_store(store), True


def run_sweep(spec: SweepSpec, *, options: Mapping[str, Any] | None = None,
              store: Store | str | os.PathLike[str] | None = None, resume: int | str | None = None,
              providers: Sequence[str] | None = None, workers: int | None = None,
              gpus: Sequence[int] | None = None, backend: str = "local", address: str | None = None,
              command: Sequence[str] = (), progress: Progress | None = None) -> SweepOutput:
    """Run ``spec``; see :func:`sweep`. ``options``: the :class:`~bench_kernel.options.Options`
    fields the user gave, by name (the rest are the defaults, or on resume the stored run's).
    Also: ``providers`` (a subset, by name), ``workers`` (N host processes), ``gpus`` (one process
    per GPU index), ``backend`` ("local" | "ray") with ``address`` (an existing Ray cluster; None
    starts a local one), ``command`` (argv to store).
    """
    check_sharding(workers, gpus, backend)
    if (workers is not None or gpus is not None) and spec.target is None:
        raise UsageError("workers import the spec by its path: sharding needs a spec file")
    db, owned = _open(store)
    try:
        plan = _plan(spec, db, dict(options or {}), resume, providers, host_only=workers is not None)
        fresh = fresh_processes(spec, plan.options, plan.rounds, gpus, backend)
        sharding = {"workers": workers, "gpus": list(gpus) if gpus is not None else None, "backend": backend,
                    "round_processes": "fresh" if fresh else "kept"}
        one_round = replace(plan.options, rounds=1)  # each unit measures one round; the rounds are _rounds'

        def make() -> Any:
            return make_backend(spec, one_round, workers, gpus, backend, address, fresh)

        return _execute(plan, db, make, fresh, sharding, command, progress)
    finally:
        if owned and db is not None:
            db.close()


@dataclass(frozen=True)
class _Plan:
    """What a sweep call will do: its spec, options, providers, every unit and how many rounds."""

    spec: SweepSpec
    options: Options
    providers: list[str]
    units: list[Unit]
    #: the stored run being resumed, if any
    run: RunInfo | None
    provenance: Any
    #: rounds per point (``Options.rounds_for``, or the resumed run's)
    rounds: int

    def config(self, sharding: dict[str, Any] | None = None) -> dict[str, Any]:
        """The stored run's config: the spec's axes, the providers, the options (one shape for every run)."""
        c = {**self.spec.config(), "providers": self.providers, "spec_name": self.spec.name,
             "options": self.options.to_dict(), "rounds": self.rounds}
        return {**c, "sharding": sharding} if sharding is not None else c


def _plan(spec: SweepSpec, db: Store | None, given: dict[str, Any], resume: int | str | None,
          providers: Sequence[str] | None, host_only: bool) -> _Plan:
    prov = provenance(spec.path) if spec.path else None
    run: RunInfo | None = None
    if resume is not None:
        if db is None:
            raise UsageError("resume needs a results store")
        run = db.run(resume)
        _check_resume(run, spec, prov.sha256 if prov else None)
    chosen = list(providers) if providers else (run.providers if run else list(spec.providers))
    unknown = [n for n in chosen if n not in spec.providers]
    if unknown:
        raise UsageError(f"provider {unknown[0]!r} is not in sweep {spec.name!r}; its providers: "
                         f"{', '.join(spec.providers)}")
    if run is not None and providers and list(providers) != run.providers:
        raise UsageError(f"run {run.id} measured providers {', '.join(run.providers)}; resume it without --provider")
    options = _options(given, run.config.get("options") if run else None, run.id if run else None, host_only)
    units = [Unit(i * len(chosen) + j, p, pt) for i, pt in enumerate(spec.points()) for j, p in enumerate(chosen)]
    rounds = int(run.config.get("rounds", 1)) if run is not None else options.rounds_for(has_gpu())
    return _Plan(spec, options, chosen, units, run, prov, rounds)


def _execute(plan: _Plan, db: Store | None, make: Callable[[], Any], fresh: bool, sharding: dict[str, Any],
             command: Sequence[str], progress: Progress | None) -> SweepOutput:
    """Open (or reopen) the stored run once the first backend is up, run the rounds, finish the run."""
    t0 = time.perf_counter()
    opened: list[RunInfo] = []  # the stored run this call started or reopened (only then does it finish it)
    stored = db.rounds_done(stored_id(plan.run)) if db is not None and plan.run is not None else {}

    def open_run(env: dict[str, Any]) -> RunInfo | None:
        if db is None:
            return None
        run = (db.reopen_run(stored_id(plan.run)) if plan.run is not None else
               db.start_run(kind="sweep", name=plan.spec.target or plan.spec.name, config=plan.config(sharding),
                            env=env, command=command, source=plan.provenance.to_dict() if plan.provenance else None,
                            total_points=len(plan.units)))
        opened.append(run)
        return run

    status: RunStatus = "failed"
    collected: list[PointResult] = []
    env: dict[str, Any] = {}
    inline = not fresh and sharding["workers"] is None and sharding["gpus"] is None and sharding["backend"] == "local"
    try:
        _, collected, env, status = run_rounds(plan.units, plan.rounds, make, fresh, db, open_run, progress, stored)
    finally:
        wall = time.perf_counter() - t0
        run = opened[0] if opened else plan.run
        if db is not None and opened:
            mine = opened[0]
            env_after = dict(mine.env)
            if inline and has_gpu():
                env_after["state_after"] = gpu_state(plan.options.device_index)
            run = db.finish_run(stored_id(mine), status=status, wall_s=(mine.wall_s or 0.0) + wall, env=env_after)
    done = sum(len(v) for v in stored.values())
    if status == "interrupted":
        kept = (f"they are stored in run {run.id}: finish it with --resume {run.id}" if db is not None and run
                else "nothing was stored")
        what = "points" if plan.rounds == 1 else f"point rounds ({plan.rounds} per point)"
        raise Interrupted(f"interrupted after {done} of {len(plan.units) * plan.rounds} {what}; {kept}")
    if db is None:
        run = RunInfo(id=None, kind="sweep", name=plan.spec.target or plan.spec.name, status=status,
                      created_at=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), wall_s=wall,
                      command=tuple(command), config=plan.config(sharding), env=env, total_points=len(plan.units),
                      n_points=len(collected))
        points = collected
    else:
        # with a store, the run was read (resume) or opened as the first round started
        assert run is not None
        points = db.points(stored_id(run))
    order = {(u.provider, params_key(u.point)): u.index for u in plan.units}
    ordered = tuple(sorted(points, key=lambda p: order.get(p.key, len(order))))
    return SweepOutput(run=run, points=ordered, best=tuple(best_per_point(ordered)))


def sweep(axes: Mapping[str, Sequence[Any]], providers: Mapping[str, Callable[[dict[str, Any]], Any]], *,
          baseline: str | None = None, store: Store | str | os.PathLike[str] | None = None,
          where: Callable[[dict[str, Any]], bool] | None = None, name: str = DEFAULT_SPEC_NAME,
          resume: int | str | None = None, progress: Progress | None = None, rtol: float | None = None,
          atol: float | None = None, **options: Any) -> SweepOutput:
    """Time every provider at every point of the product of ``axes``; check each against the baseline.

    axes: axis name -> values (str, int, float or bool); the points are their product, first
        axis outermost, kept where ``where(point)`` is true.
    providers: name -> factory ``point -> case`` (a zero-argument callable, a ``Case`` or a case
        dict); a factory raising ``bench_kernel.Unsupported`` marks the point ``unsupported``.
    baseline: the provider whose output every other provider must match at each point before it
        is timed (default: the first); a mismatch is stored as ``mismatch``, not timed.
    rtol, atol: the check's tolerances for cases that set none (None: by the output's dtype, and 0).
    **options: fields of :class:`~bench_kernel.options.Options` (``methods``, ``cache``,
        ``precision``, ``max_time_s``, ``timeout_s`` (per point and round), ``steady``, ``rounds``
        (interleaved across the sweep: ``_rounds``), ``device_index``, ``roofline``, ``device``), as
        for ``bench()``; the ones not given take Options' defaults,
        or on ``resume`` the stored run's (a different value given then is a UsageError: one run,
        one way of measuring).
    store: a ``Store``, a database path, or None to keep nothing; each point is committed as it ends.
    resume: a stored run id (or "latest") of this sweep: only its missing points are run.
    progress: ``progress(done, total, current_label)``, called as points start and end.
    Returns the run, its points in sweep order and the fastest provider per point: the
    :class:`~bench_kernel.records.SweepOutput` that ``bench-kernel sweep --json`` prints. Raises TargetError for a malformed sweep, StoreError for a
    store or resume problem, UsageError for bad options.
    """
    spec = SweepSpec(axes=dict(axes), providers=dict(providers), baseline=baseline, where=where, name=name,
                     rtol=rtol, atol=atol)
    return run_sweep(spec, options=options, store=store, resume=resume, progress=progress)
