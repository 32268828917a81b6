"""The Ray backend against a local Ray instance on the CPU, host method: the same points as a
sweep in one process, all stored by the driver, and a task whose worker dies is one error.

The instance is one for this module's tests (tests/_ray_cluster.py), shared by the xdist workers
that run them, and stopped once the last of them is done (left to the end of the session, its idle
processes took ~3% of a core for minutes): the backend, given no address, joins it through
``RAY_ADDRESS`` as it would join any cluster, instead of starting (and waiting for) an instance of
its own in each test.
"""

from __future__ import annotations

import json
import os

import pytest

from _ray_cluster import CannotStart, one_test_at_a_time, shared_instance
from _sweep_helpers import FAST, write_spec
from bench_kernel.sweeps import load_spec, run_sweep

pytestmark = [pytest.mark.slow, pytest.mark.multiprocess]


@pytest.fixture(scope="module")
def ray_instance(tmp_path_factory):
    """The address of the local Ray instance of this module's tests (shared by xdist's workers), and
    the workers' common folder."""
    pytest.importorskip("ray", reason="the [ray] extra is not installed")
    base = tmp_path_factory.getbasetemp()
    folder = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base  # the workers' common folder
    try:
        with shared_instance(folder) as address:
            yield address, folder
    except CannotStart as e:
        pytest.skip(f"Ray cannot start on this machine: {e}")


@pytest.fixture
def ray(ray_instance, monkeypatch):
    import ray

    address, folder = ray_instance
    monkeypatch.setenv("RAY_ADDRESS", address)
    with one_test_at_a_time(folder):
        yield ray
        ray.shutdown()  # a test that failed half-way leaves no driver connected for the next


def _job_env(monkeypatch, **env: str) -> None:
    """Environment for the tasks of the next driver: a cluster's workers do not inherit the driver's, and
    this variable is how ``ray job submit`` hands a job its runtime environment."""
    monkeypatch.setenv("RAY_JOB_CONFIG_JSON_ENV_VAR", json.dumps({"runtime_env": {"env_vars": env}}))


def test_ray_backend_on_a_local_instance(tmp_path, monkeypatch, ray):
    spec = load_spec(str(write_spec(tmp_path)))
    inline = run_sweep(spec, store=tmp_path / "inline.db", options=FAST)
    _job_env(monkeypatch, SWEEP_TEST_DIE_AT="3:exit")
    res = run_sweep(spec, store=tmp_path / "ray.db", backend="ray", options=FAST)
    assert not ray.is_initialized()  # the driver disconnected
    got = {p.key: p.status for p in res.points}
    want = {p.key: p.status for p in inline.points}
    dead = ("wrong", '{"M":3,"kind":"a"}')
    assert got.pop(dead) == "error" and want.pop(dead) == "ok"
    # A host point whose every sample waited for a CPU has no time to give: on this machine the
    # measurement's own refusal, not the backend's fault. A full run once met it on a second point
    # beside the killed one, while a new Ray worker started on the 2 busy cores. Such a point must
    # have been timed in the one-process sweep, and says why it has no time.
    refused = {p.key for p in res.points if p.status == "error" and p.key != dead
               and "waited for a CPU" in p.error and "no sample ran through, so no time is given" in p.error}
    assert all(want.pop(k) == "ok" and got.pop(k) for k in refused)
    assert got == want and len(res.points) == 9 and res.run.n_points == 9, \
        [(p.key, p.error) for p in res.points if p.status != "ok"]
    died = next(p for p in res.points if p.key == dead)
    assert died.error.startswith("the Ray task died: ") and died.worker == "ray"
    assert {p.worker.split(":")[0] for p in res.points} == {"ray"}
    assert all(len(p.worker) > len("ray:") for p in res.points if p.key != dead)  # the node that ran it
    assert res.run.env["ray"]["address"] == "local" and res.run.env["ray"]["nodes"] == 1
    assert res.run.config["sharding"]["backend"] == "ray"


def test_gpu_methods_on_a_cluster_without_gpus_are_one_error_not_a_hang(tmp_path, run_cli, ray):
    # Once: the tasks asked for {GPU: 1}, the local cluster had none, and the sweep waited forever
    spec = write_spec(tmp_path)
    r = run_cli("sweep", str(spec), "--db", str(tmp_path / "r.db"), "--backend", "ray", "--rounds", "1")
    assert (r.exit_code, r.stdout) == (2, "")
    assert r.stderr == ("bench-kernel: error: the Ray cluster at a new local instance cannot run a point: GPU: needs 1, "
                        "the cluster has 0; the methods graph, events, kernel need a GPU per task: add GPU nodes, or "
                        "time on the CPU with --method host\n")
    assert not ray.is_initialized()


def test_a_task_that_cannot_be_placed_in_time_is_an_error(tmp_path, monkeypatch, ray):
    from bench_kernel.errors import DeviceError
    from bench_kernel.results import open_store

    monkeypatch.setenv("BENCH_KERNEL_RAY_PLACEMENT_S", "3")
    ray.init(log_to_driver=False)

    @ray.remote
    class Hog:  # another job holding every CPU of the cluster (it ends with this driver)
        def ready(self) -> bool:
            return True

    hog = Hog.options(num_cpus=ray.cluster_resources()["CPU"]).remote()
    ray.get(hog.ready.remote())
    spec = load_spec(str(write_spec(tmp_path)))
    with pytest.raises(DeviceError, match=r"could not place one point's task \(\{CPU: 1\}\) within 3 s: its "
                                          r"resources exist but are taken"):
        run_sweep(spec, store=tmp_path / "r.db", backend="ray", options=FAST)
    assert not ray.is_initialized()
    with open_store(tmp_path / "r.db") as store:
        assert store.runs() == []  # nothing was started: the check comes before the run is stored
