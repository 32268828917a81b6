"""The Ray backend (``--backend ray [--address ADDR]``): each point is a Ray task on an existing
cluster (or a local instance when no address is given). We do not write a scheduler: Ray places
the tasks (``num_gpus=1`` each when a GPU method is asked for, so Ray pins one GPU per task),
and results flow back to this process, which alone writes the store.

The spec travels as its source text and is imported again on the node (from its own path when
the node sees the same file with the same hash, else from a private copy), so a spec that
imports sibling modules needs them installed on the nodes, like bench-kernel itself.
``max_retries=0``: a task whose worker dies is an ``error`` at that point, never run twice.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any, Callable

from bench_kernel.errors import MissingExtraError, UsageError
from bench_kernel.measure import BenchResult
from bench_kernel.options import Options
from bench_kernel.results import PointResult, file_sha256
from bench_kernel.sweeps._local import Unit
from bench_kernel.sweeps._spec import SweepSpec, load_spec, split_spec_target
from bench_kernel.sweeps._unit import run_unit

__all__ = ["RayRunner"]

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


def ray_unit(target: str, source: str | None, sha: str | None, point: dict[str, Any], provider: str,
             options: dict[str, Any]) -> dict[str, Any]:
    """The Ray task: one unit, returned as ``PointResult.to_dict()``."""
    import ray

    spec = _spec_on_node(target, source, sha)
    ctx = ray.get_runtime_context()
    gpus = ray.get_gpu_ids()
    label = f"ray:{ctx.get_node_id()[:8]}" + (f"/gpu:{','.join(map(str, gpus))}" if gpus else "")
    return run_unit(spec, point, provider, Options.from_dict(options), worker=label).to_dict()


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
        return {"ray": {"address": self.address or "local", "nodes": len(ray.nodes()),
                        "cpus": resources.get("CPU"), "gpus": resources.get("GPU", 0)}}

    def run(self, units: list[Unit], claim: Callable[[Unit, str], bool], done: Callable[[PointResult], None],
            began: Callable[[Unit], None] | None = None) -> None:
        import ray

        task = ray.remote(num_cpus=1, num_gpus=1 if self.gpu else 0, max_retries=0)(ray_unit)
        path = self.spec.path
        source = Path(path).read_text(encoding="utf-8") if path else None
        sha = file_sha256(path) if path else None
        options = self.options.to_dict()
        for u in units:
            if claim(u, "ray"):
                ref = task.remote(self.spec.target, source, sha, u.point, u.provider, options)
                self._pending[ref] = u
        while self._pending:
            ready, _ = ray.wait(list(self._pending), num_returns=1)
            for ref in ready:
                u = self._pending.pop(ref)
                if began:
                    began(u)
                try:
                    done(PointResult.from_dict(ray.get(ref)))
                except ray.exceptions.RayError as e:
                    first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
                    reason = f"the Ray task died: {type(e).__name__}: {first}"
                    done(PointResult(u.provider, dict(u.point), "error",
                                     BenchResult(name=u.provider, params=dict(u.point), notes=(reason,)),
                                     error=reason, worker="ray"))

    def close(self) -> None:
        import ray

        for ref in list(self._pending):
            ray.cancel(ref, force=True)
        self._pending.clear()
        ray.shutdown()
