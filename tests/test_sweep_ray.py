"""The Ray backend against a local Ray instance on the CPU, host method: the same points as a
sweep in one process, all stored by the driver, and a task whose worker dies is one error."""

from __future__ import annotations

import pytest

from _sweep_helpers import FAST, write_spec
from bench_kernel.sweeps import load_spec, run_sweep

pytestmark = [pytest.mark.slow, pytest.mark.multiprocess]


def test_ray_backend_on_a_local_instance(tmp_path, monkeypatch):
    # Imported here, not at collection: Ray's import costs every xdist worker ~2 s, and one runs this.
    ray = pytest.importorskip("ray", reason="the [ray] extra is not installed")
    spec = load_spec(str(write_spec(tmp_path)))
    inline = run_sweep(spec, store=tmp_path / "inline.db", options=FAST)
    monkeypatch.setenv("SWEEP_TEST_DIE_AT", "3:exit")  # Ray workers inherit the driver's environment
    res = run_sweep(spec, store=tmp_path / "ray.db", backend="ray", options=FAST)
    assert not ray.is_initialized()  # the driver disconnected
    got = {p.key: p.status for p in res.points}
    want = {p.key: p.status for p in inline.points}
    dead = ("wrong", '{"M":3,"kind":"a"}')
    assert got.pop(dead) == "error" and want.pop(dead) == "ok"
    assert got == want and len(res.points) == 9 and res.run.n_points == 9
    died = next(p for p in res.points if p.key == dead)
    assert died.error.startswith("the Ray task died: ") and died.worker == "ray"
    assert {p.worker.split(":")[0] for p in res.points} == {"ray"}
    assert all(len(p.worker) > len("ray:") for p in res.points if p.key != dead)  # the node that ran it
    assert res.run.env["ray"]["address"] == "local" and res.run.env["ray"]["nodes"] == 1
    assert res.run.config["sharding"]["backend"] == "ray"


def test_gpu_methods_on_a_cluster_without_gpus_are_one_error_not_a_hang(tmp_path, run_cli):
    ray = pytest.importorskip("ray", reason="the [ray] extra is not installed")
    # issue 20: the tasks asked for {GPU: 1}, the local cluster had none, and the sweep waited forever
    spec = write_spec(tmp_path)
    r = run_cli("sweep", str(spec), "--db", str(tmp_path / "r.db"), "--backend", "ray", "--rounds", "1")
    assert (r.exit_code, r.stdout) == (2, "")
    assert r.stderr == ("bench-kernel: error: the Ray cluster at a new local instance cannot run a point: GPU: needs 1, "
                        "the cluster has 0; the methods graph, events, kernel need a GPU per task: add GPU nodes, or "
                        "time on the CPU with --method host\n")
    assert not ray.is_initialized()


def test_a_task_that_cannot_be_placed_in_time_is_an_error(tmp_path, monkeypatch):
    from bench_kernel.errors import DeviceError
    from bench_kernel.results import open_store

    ray = pytest.importorskip("ray", reason="the [ray] extra is not installed")
    monkeypatch.setenv("BENCH_KERNEL_RAY_PLACEMENT_S", "3")
    ray.init(num_cpus=1, include_dashboard=False, log_to_driver=False)

    @ray.remote(num_cpus=1)
    class Hog:  # another job holding the cluster's only CPU
        def ready(self) -> bool:
            return True

    hog = Hog.remote()
    ray.get(hog.ready.remote())
    spec = load_spec(str(write_spec(tmp_path)))
    with pytest.raises(DeviceError, match=r"could not place one point's task \(\{CPU: 1\}\) within 3 s: its "
                                          r"resources exist but are taken"):
        run_sweep(spec, store=tmp_path / "r.db", backend="ray", options=FAST)
    assert not ray.is_initialized()
    with open_store(tmp_path / "r.db") as store:
        assert store.runs() == []  # nothing was started: the check comes before the run is stored
