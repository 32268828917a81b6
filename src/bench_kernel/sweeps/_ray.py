"""The Ray backend (``--backend ray [--address ADDR]``): each point is a Ray task on an existing
cluster (or a local instance when no address is given). We do not write a scheduler: Ray places
the tasks (``num_gpus=1`` each when a GPU method is asked for, so Ray pins one GPU per task),
and results flow back to this process, which alone writes the store.

The spec travels as its source text and is imported again on the node (from its own path when
the node sees the same file with the same hash, else from a private copy), so a spec that
imports sibling modules needs them installed on the nodes, like bench-kernel itself.
``max_retries=0``: a task whose worker dies is an ``error`` at that point, never run twice.

A task that cannot be placed waits forever in Ray, silently: a cluster without GPUs given tasks
that ask for ``{GPU: 1}`` (the default methods are GPU methods) hung ``sweep --backend ray`` with
no message. So before any task is sent, the cluster's resources are checked against
what one task needs (a UsageError names what is missing and what the cluster has), one task's
worth is reserved as a placement group that must be placed within :data:`PLACEMENT_TIMEOUT_S`,
and while the sweep runs, a wait longer than a point's time limit plus that margin with no task
finishing is an error naming the points still pending.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any, Callable

from bench_kernel.errors import DeviceError, MissingExtraError, UsageError
from bench_kernel.options import Options
from bench_kernel.records import BenchResult, PointResult, warning
from bench_kernel.results import file_sha256
from bench_kernel.sweeps._local import Unit
from bench_kernel.sweeps._spec import SweepSpec, load_spec, split_spec_target
from bench_kernel.sweeps._unit import run_unit

__all__ = ["RayRunner", "PLACEMENT_TIMEOUT_S", "PLACEMENT_ENV", "missing_resources"]

#: A task's resources must be placeable within this long (s), else the sweep stops with an error.
PLACEMENT_TIMEOUT_S = 60.0
#: Environment variable overriding it (seconds).
PLACEMENT_ENV = "BENCH_KERNEL_RAY_PLACEMENT_S"


def _placement_timeout_s() -> float:
    raw = os.environ.get(PLACEMENT_ENV)
    try:
        return float(raw) if raw else PLACEMENT_TIMEOUT_S
    except ValueError:
        raise UsageError(f"{PLACEMENT_ENV}={raw!r} is not a number of seconds") from None


def missing_resources(need: dict[str, float], have: dict[str, float]) -> list[str]:
    """What one task ``need``s that the cluster's totals (``ray.cluster_resources()``) lack:
    ``["GPU: needs 1, the cluster has 0"]``."""
    return [f"{k}: needs {v:g}, the cluster has {have.get(k, 0):g}" for k, v in need.items() if have.get(k, 0) < v]

#: sha256 -> loaded spec, per Ray worker process (a worker runs many tasks).
_SPECS: dict[str, SweepSpec] = {}
_TMP: list[tempfile.TemporaryDirectory] = []


def _spec_on_node(target: str, source: str | None, sha: str | None) -> SweepSpec:
    key = sha or target
    if key in _SPECS:
        return _SPECS[key]
    where, name = split_spec_target(target)
    if source is not None:
        here = Path(where)
        if not (here.is_file() and file_sha256(here) == sha):
            tmp = tempfile.TemporaryDirectory(prefix="bench-kernel-spec-")
            _TMP.append(tmp)
            here = Path(tmp.name) / Path(where).name
            here.write_text(source, encoding="utf-8")
        target = f"{here}:{name}"
    _SPECS[key] = load_spec(target)
    return _SPECS[key]


#: the env of this Ray worker process, captured (and its GPU warmed up) by its first task
_ENV: dict[str, Any] = {}


def ray_unit(target: str, source: str | None, sha: str | None, point: dict[str, Any], provider: str,
             options: dict[str, Any], round: int = 1) -> dict[str, Any]:
    """The Ray task: one unit, returned as ``PointResult.to_dict()``."""
    import ray

    from bench_kernel.orchestrate import run_env

    spec = _spec_on_node(target, source, sha)
    ctx = ray.get_runtime_context()
    gpus = ray.get_gpu_ids()
    label = f"ray:{ctx.get_node_id()[:8]}" + (f"/gpu:{','.join(map(str, gpus))}" if gpus else "")
    opts = Options.from_dict(options)
    if not _ENV:
        _ENV.update(run_env(opts))
    return run_unit(spec, point, provider, opts, worker=label, env=dict(_ENV), round=round).to_dict()


class RayRunner:
    """Runs units as Ray tasks; same ``start``/``run``/``close`` shape as ``LocalPool``."""

    def __init__(self, spec: SweepSpec, options: Options, address: str | None) -> None:
        if spec.target is None:
            raise UsageError("the Ray backend needs a spec file (tasks import it on the nodes)")
        try:
            import ray  # noqa: F401
        except ImportError:
            raise MissingExtraError("--backend ray needs Ray: pip install 'bench-kernel[ray]'") from None
        self.spec, self.options, self.address = spec, options, address
        self.gpu = bool(options.gpu_methods)
        self._pending: dict[Any, Unit] = {}

    def start(self) -> dict[str, Any]:
        import ray

        kwargs: dict[str, Any] = {"log_to_driver": False, "ignore_reinit_error": True}
        if self.address is None:
            kwargs["include_dashboard"] = False
        try:
            ray.init(address=self.address, **kwargs)
        except (ConnectionError, RuntimeError, ValueError) as e:
            raise UsageError(f"cannot reach the Ray cluster at {self.address or 'a new local instance'}: {e}") from None
        resources = ray.cluster_resources()
        where = f"the Ray cluster at {self.address or 'a new local instance'}"
        missing = missing_resources(self.need, resources)
        if missing:
            ray.shutdown()
            fix = (f"; the methods {', '.join(self.options.gpu_methods)} need a GPU per task: add GPU nodes, or "
                   f"time on the CPU with --method host" if "GPU" in self.need and resources.get("GPU", 0) < 1 else "")
            raise UsageError(f"{where} cannot run a point: {'; '.join(missing)}{fix}")
        self._check_placement(where)
        return {"ray": {"address": self.address or "local", "nodes": len(ray.nodes()),
                        "cpus": resources.get("CPU"), "gpus": resources.get("GPU", 0)}}

    def _check_placement(self, where: str) -> None:
        """Reserve one task's resources; not placed within the timeout: a DeviceError saying so."""
        import ray
        from ray.util.placement_group import placement_group, remove_placement_group

        wait_s = _placement_timeout_s()
        pg = placement_group([dict(self.need)])
        try:
            ready, _ = ray.wait([pg.ready()], timeout=wait_s)
        finally:
            remove_placement_group(pg)
        if not ready:
            ray.shutdown()
            raise DeviceError(f"{where} could not place one point's task ({self.need_text}) within {wait_s:g} s: "
                              f"its resources exist but are taken (other jobs?); retry when they are free, or set "
                              f"{PLACEMENT_ENV}")

    @property
    def need(self) -> dict[str, float]:
        """What one task asks of the cluster."""
        return {"CPU": 1.0, **({"GPU": 1.0} if self.gpu else {})}

    @property
    def need_text(self) -> str:
        return "{" + ", ".join(f"{k}: {v:g}" for k, v in self.need.items()) + "}"

    def run(self, units: list[Unit], claim: Callable[[Unit, str], bool],
            done: Callable[[Unit, PointResult], None], began: Callable[[Unit], None] | None = None) -> None:
        import ray

        task = ray.remote(num_cpus=1, num_gpus=1 if self.gpu else 0, max_retries=0)(ray_unit)
        # A running task ends within its point's time limit, so a wait this long with none ending
        # means none is running: they cannot be placed (module docstring). No limit: wait on.
        stall_s = None if self.options.timeout_s is None else self.options.timeout_s + _placement_timeout_s()
        path = self.spec.path
        source = Path(path).read_text(encoding="utf-8") if path else None
        sha = file_sha256(path) if path else None
        options = self.options.to_dict()
        for u in units:
            if claim(u, "ray"):
                ref = task.remote(self.spec.target, source, sha, u.point, u.provider, options, u.round)
                self._pending[ref] = u
        while self._pending:
            ready, _ = ray.wait(list(self._pending), num_returns=1, timeout=stall_s)
            if not ready:
                shown = "; ".join(f"{u.provider} {u.point}" for u in list(self._pending.values())[:3])
                raise DeviceError(f"no Ray task finished within {stall_s:g} s (a point's time limit plus "
                                  f"{_placement_timeout_s():g} s): {len(self._pending)} point(s) pending ({shown}) "
                                  f"could not be placed ({self.need_text} each); what finished is stored")
            for ref in ready:
                u = self._pending.pop(ref)
                if began:
                    began(u)
                try:
                    done(u, PointResult.from_dict(ray.get(ref)))
                except ray.exceptions.RayError as e:
                    first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
                    reason = f"the Ray task died: {type(e).__name__}: {first}"
                    done(u, PointResult(u.provider, dict(u.point), "error",
                                     BenchResult(name=u.provider, params=dict(u.point), notes=(warning("point-error", reason),)),
                                     error=reason, worker="ray"))

    def close(self) -> None:
        import ray

        for ref in list(self._pending):
            ray.cancel(ref, force=True)
        self._pending.clear()
        ray.shutdown()
