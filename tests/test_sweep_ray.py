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
