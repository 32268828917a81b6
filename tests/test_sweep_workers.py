"""Sharding on local worker processes (--workers N, the host method): the same points as one
process, each point once, a dying worker costs one point, GPU pinning maps indices right."""

from __future__ import annotations

import os

import pytest

from _sweep_helpers import FAST, write_spec
from bench_kernel.errors import DeviceError, TargetError, UsageError
from bench_kernel.gpu import has_gpu, no_gpu_driver
from bench_kernel.results import open_store
from bench_kernel.sweeps import load_spec, parse_gpus, run_sweep
from bench_kernel.sweeps._local import gpu_slots

pytestmark = [pytest.mark.slow, pytest.mark.multiprocess]


@pytest.fixture
def spec(tmp_path):
    return load_spec(str(write_spec(tmp_path)))


def _outcome(res):
    return {(p.provider, p.params["M"], p.params["kind"]): p.status for p in res.points}


def test_two_workers_give_the_same_points_as_one(spec, tmp_path):
    # (One worker alone is the next test's case: it dies and its replacement finishes the sweep.)
    two = run_sweep(spec, store=tmp_path / "2.db", workers=2, options=FAST)
    inline = run_sweep(spec, store=tmp_path / "0.db", options=FAST)
    assert _outcome(two) == _outcome(inline)
    assert len(_outcome(two)) == 9 and list(_outcome(two).values()).count("ok") == 7
    assert {p.worker for p in two.points} == {"host:0", "host:1"}  # both got work from the queue
    assert set(two.run.env["workers"]) == {"host:0", "host:1"}
    assert two.run.env["workers"]["host:1"]["visible_devices"] == ""  # no GPU in host workers
    assert two.run.config["sharding"] == {"workers": 2, "gpus": None, "backend": "local", "round_processes": "kept"}
    from bench_kernel.report import sweep_table

    assert "measured by 2 host workers at once: they share the CPU" in " ".join(sweep_table(two.run, two.points).notes)
    with open_store(tmp_path / "2.db") as store:
        assert len(store.points(two.run.id, include_running=True)) == 9  # each point stored once


@pytest.mark.parametrize("how,said", [("exit", "exit code 3"), ("kill", "killed by SIGKILL")])
def test_a_worker_that_dies_costs_one_point(spec, tmp_path, monkeypatch, how, said):
    # One worker: every point after the death is measured by its replacement (it has no peer to lean on).
    monkeypatch.setenv("SWEEP_TEST_DIE_AT", f"2:{how}")
    res = run_sweep(spec, store=tmp_path / "r.db", workers=1, options=FAST)
    by = {(p.provider, p.params["M"]): p for p in res.points}
    dead = by[("wrong", 2)]
    assert dead.status == "error"
    assert dead.error == (f"worker {dead.worker} died ({said}) while running this point; "
                          f"its last output: provider crashed hard")
    assert [k for k, p in by.items() if p.status == "error"] == [("wrong", 2)]
    assert by[("wrong", 3)].status == "ok" and by[("picky", 3)].status == "unsupported"  # the sweep went on
    assert res.run.status == "done" and res.run.n_points == 9
    assert {p.worker for p in res.points} == {"host:0"}  # the replacement took the dead one's slot


def test_a_spec_that_cannot_load_in_a_worker_stops_before_any_run(tmp_path):
    text = ("import os\nif os.environ.get('CUDA_VISIBLE_DEVICES') == '':\n    raise RuntimeError('needs a GPU')\n"
            "def sweep():\n    return {'axes': {'M': [1]}, 'providers': {'a': lambda p: (lambda: 1)}}\n")
    spec = load_spec(str(write_spec(tmp_path, text)))
    with pytest.raises(TargetError, match=r"worker host:0 could not start: TargetError: importing '.*spec.py' "
                                          r"raised RuntimeError: needs a GPU"):
        run_sweep(spec, store=tmp_path / "r.db", workers=1, options=FAST)
    with open_store(tmp_path / "r.db") as store:
        assert store.runs() == []


TORCH_SPEC = ("def add(p):\n    import torch\n    x = torch.ones(p['M'])\n"
              "    return {'fn': lambda x: x + 1, 'make_inputs': lambda: (x,)}\n"
              "def sweep():\n    return {'axes': {'M': [4]}, 'providers': {'add': add}}\n")  # one torch import


def test_a_worker_loads_torch_only_for_a_spec_that_does_and_times_it_with_its_share_of_cores(spec, tmp_path):
    # A host worker without torch in its code skips torch's import (seconds per worker and per
    # fresh round process), and still records the installed version; a spec that imports torch
    # in its provider is timed with the worker's share of the cores.
    torch = pytest.importorskip("torch")
    pure = run_sweep(spec, store=tmp_path / "p.db", workers=2, options=FAST)
    (tmp_path / "t").mkdir()
    torch_spec = load_spec(str(write_spec(tmp_path / "t", TORCH_SPEC)))
    with_torch = run_sweep(torch_spec, store=tmp_path / "t.db", workers=2, options=FAST)
    share = max(1, (os.cpu_count() or 1) // 2)
    assert [p.result.env.get("cpu_threads") for p in with_torch.points] == [share]
    assert pure.run.env["torch"] == str(torch.__version__)  # the first worker's env is the run's
    if no_gpu_driver():  # with a driver, torch is asked whether a GPU is there
        assert [p.result.env.get("cpu_threads") for p in pure.points if p.status == "ok"] == [None] * 7


def test_workers_measure_on_the_host(spec, tmp_path):
    with pytest.raises(UsageError, match="--workers runs host processes with the host method; use --gpus"):
        run_sweep(spec, store=tmp_path / "r.db", workers=2, options=dict(methods=("graph",)))
    with pytest.raises(UsageError, match="choose one of --workers, --gpus and --backend ray"):
        run_sweep(spec, workers=2, gpus=[0])


def test_gpu_slots_pin_one_physical_gpu_each(monkeypatch):
    monkeypatch.delenv("CUDA_VISIBLE_DEVICES", raising=False)
    monkeypatch.delenv("HIP_VISIBLE_DEVICES", raising=False)
    assert [(s.label, s.env) for s in gpu_slots([0, 1])] == [
        ("gpu:0", {"CUDA_VISIBLE_DEVICES": "0", "HIP_VISIBLE_DEVICES": "0"}),
        ("gpu:1", {"CUDA_VISIBLE_DEVICES": "1", "HIP_VISIBLE_DEVICES": "1"})]
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "4,6")  # this process sees physical 4 and 6 as 0 and 1
    assert [s.label for s in gpu_slots([0, 1])] == ["gpu:4", "gpu:6"]
    assert gpu_slots([1])[0].env["CUDA_VISIBLE_DEVICES"] == "6"


@pytest.mark.skipif(has_gpu(), reason="the no-GPU message")
def test_gpus_without_a_gpu():
    with pytest.raises(DeviceError, match="--gpus all: no CUDA/HIP GPU is visible here; use --workers N"):
        parse_gpus("all")
