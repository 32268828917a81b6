"""Verdicts on a real GPU: the management library finds torch's device by its PCI address (not its
index), an idle GPU is warmed to its working clock before a run, rounds keep every sample's clock,
and a sweep's GPU rounds stay in one process (GPU only: marked ``gpu``, skipped without one)."""

from __future__ import annotations

import importlib.util

import pytest

torch = pytest.importorskip("torch")

import bench_kernel  # noqa: E402
from bench_kernel.measure import warm_up_device  # noqa: E402
from bench_kernel.measure._smi import monitor, pci_bus_id  # noqa: E402
from bench_kernel.options import Options  # noqa: E402
from bench_kernel.orchestrate import run_env  # noqa: E402

pytestmark = pytest.mark.gpu

HAVE_SMI = importlib.util.find_spec("pynvml") is not None or importlib.util.find_spec("amdsmi") is not None


@pytest.mark.skipif(not HAVE_SMI, reason="neither nvidia-ml-py nor amdsmi is installed")
def test_the_management_library_reads_the_device_torch_measures():
    mon = monitor(0)
    assert mon is not None and mon.backend == ("amdsmi" if torch.version.hip else "nvml")
    p = torch.cuda.get_device_properties(0)
    pci = pci_bus_id(p.pci_domain_id, p.pci_bus_id, p.pci_device_id)
    # found by its address or its UUID, never by the index alone (wrong under CUDA_VISIBLE_DEVICES)
    assert mon.lookup.startswith(("pci ", "uuid ")), mon.lookup
    if mon.backend == "nvml":
        import pynvml

        by_pci = getattr(pynvml, "nvmlDeviceGetHandleByPciBusId_v2", None) or pynvml.nvmlDeviceGetHandleByPciBusId
        h = (by_pci(pci) if mon.lookup.startswith("pci ")
             else pynvml.nvmlDeviceGetHandleByUUID(mon.lookup.split()[1] if mon.lookup.split()[1].startswith("GPU-")
                                                   else "GPU-" + mon.lookup.split()[1]))
        uuid = pynvml.nvmlDeviceGetUUID(h)
        uuid = uuid.decode() if isinstance(uuid, bytes) else uuid
        assert uuid.removeprefix("GPU-") == str(p.uuid).removeprefix("GPU-")
    state = mon.state()
    assert 0 < state["sm_clock_mhz"] <= state["max_sm_clock_mhz"]
    assert run_env(Options())["smi"] == {"backend": mon.backend, "lookup": mon.lookup}


def test_an_idle_gpu_is_held_until_its_clock_settles_once_per_process():
    w = warm_up_device(0)
    assert w["action"] == "held" and w["held_s"] > 0.1  # at least the three 50 ms windows
    if HAVE_SMI:
        assert w["settled"] is True, w  # the clock settles within the bound (it never did under the old rule)
        assert w["sm_clock_after_mhz"] >= w["sm_clock_before_mhz"] * 0.9  # not left below where it started
    env = run_env(Options())
    assert env["device_warmup"]["action"] == "skipped", env["device_warmup"]  # just held: not again
    # bench() in a loop holds at most once (the first call of a process), and says why not after
    x = torch.randn(1 << 20, device="cuda")
    rs = [bench_kernel.bench(torch.relu, make_inputs=lambda: (x.clone(),), methods=("graph",), max_time_s=0.05)
          for _ in range(3)]
    assert [r.env["device_warmup"]["action"] for r in rs] == ["skipped"] * 3
    assert all(r.env["device_warmup"]["why"] for r in rs)


def test_rounds_on_the_gpu_keep_every_samples_clock_and_the_median_statistic():
    x = torch.randn(1 << 20, device="cuda")
    r = bench_kernel.bench(torch.relu, make_inputs=lambda: (x.clone(),), methods=("graph", "events"), rounds=3,
                           max_time_s=0.2)
    for method in ("graph", "events"):
        m = r.measurements[method]
        assert m.rounds == 3 and m.round_statistic == "median" and len(m.round_times_us) == 3
        assert min(m.round_times_us) > 0 and m.median_us == sorted(m.round_medians_us)[1]
        if HAVE_SMI and not torch.version.hip:
            assert len(m.sm_clock_mhz) == m.samples.n and all(c for c in m.sm_clock_mhz)
    assert "device_warmup" in r.env


def test_a_gpu_sweep_keeps_its_rounds_in_one_process_and_compares_them():
    x = {n: torch.randn(n, device="cuda") for n in (1 << 16, 1 << 20)}
    res = bench_kernel.sweep({"n": list(x)}, {"relu": lambda p: {"fn": torch.relu, "make_inputs": lambda: (x[p["n"]],)},
                                              "clamp": lambda p: {"fn": lambda t: t.clamp_min(0),
                                                                  "make_inputs": lambda: (x[p["n"]],)}},
                             methods=("graph",), rounds=3, max_time_s=0.2)
    assert res.run.config["sharding"]["round_processes"] == "kept" and res.run.config["rounds"] == 3
    assert all(p.status == "ok" and p.result.measurements["graph"].rounds == 3 for p in res.points)
    (b,) = res.best[:1]
    assert b.ci is not None and b.noise_floor is not None  # rounds give the margin an interval
