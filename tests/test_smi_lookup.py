"""Which GPU NVML reads: found by torch's PCI address, else its UUID, else the index with a note --
with a stand-in pynvml module, since no GPU is here (tests/test_verdicts_gpu.py reads a real one)."""

from __future__ import annotations

import sys
import types

import pytest

from bench_kernel.measure import _smi

ADDR, UUID = "00000000:00:06.0", "f7efa5e8-f301-c5d3-f06c-8add80c44d41"


def _pynvml(*, v2: bool, devices: dict[str, str]) -> types.ModuleType:
    """A pynvml of NVML's calls that _smi uses; ``devices``: PCI address -> UUID, in index order.
    Without ``v2`` it lacks ``nvmlDeviceGetHandleByPciBusId_v2``, as the H200 image's nvidia-ml-py did."""
    m = types.ModuleType("pynvml")
    order = list(devices)

    def by_pci(addr: str) -> str:
        if addr not in devices:
            raise RuntimeError("NVMLError_NotFound")
        return addr

    def by_uuid(uuid: str) -> str:
        for addr, u in devices.items():
            if "GPU-" + u == uuid:
                return addr
        raise RuntimeError("NVMLError_NotFound")

    m.nvmlInit = lambda: None
    m.nvmlDeviceGetHandleByPciBusId = by_pci
    if v2:
        m.nvmlDeviceGetHandleByPciBusId_v2 = by_pci
    m.nvmlDeviceGetHandleByUUID = by_uuid
    m.nvmlDeviceGetHandleByIndex = lambda i: order[i]
    m.nvmlDeviceGetUUID = lambda h: ("GPU-" + devices[h]).encode()
    return m


@pytest.mark.parametrize("v2", [True, False])
def test_found_by_its_address_with_or_without_the_v2_call(monkeypatch, v2):
    monkeypatch.setitem(sys.modules, "pynvml", _pynvml(v2=v2, devices={"00000000:00:05.0": "other", ADDR: UUID}))
    monkeypatch.setattr(_smi, "_torch_ids", lambda index: (ADDR, UUID))
    assert _smi._nvml(0).lookup == f"pci {ADDR}"


def test_an_address_that_names_another_gpu_falls_back_to_the_uuid(monkeypatch):
    # the address finds a device whose UUID is not torch's: a wrong GPU is worse than none
    monkeypatch.setitem(sys.modules, "pynvml", _pynvml(v2=False, devices={ADDR: "other", "00000000:00:07.0": UUID}))
    monkeypatch.setattr(_smi, "_torch_ids", lambda index: (ADDR, UUID))
    assert _smi._nvml(0).lookup == f"uuid {UUID} (no NVML device at pci {ADDR})"


def test_neither_found_reads_the_index_and_says_so(monkeypatch):
    monkeypatch.setitem(sys.modules, "pynvml", _pynvml(v2=True, devices={"00000000:00:05.0": "other"}))
    monkeypatch.setattr(_smi, "_torch_ids", lambda index: (ADDR, UUID))
    assert _smi._nvml(0).lookup.startswith(f"index 0: neither torch's PCI address ({ADDR}) nor its UUID ({UUID})")


def test_the_state_after_a_measurement_reads_only_what_moves():
    from bench_kernel.measure._env import AFTER_KEYS

    calls: list[str] = []

    def reader(key, value):
        return lambda: calls.append(key) or value

    values = {"sm_clock_mhz": 1980, "mem_clock_mhz": 3201, "max_sm_clock_mhz": 1980, "temperature_c": 41,
              "power_w": 130.5, "throttle_reasons": []}
    mon = _smi.Monitor("nvml", "pci", lambda: 1980.0, {k: reader(k, v) for k, v in values.items()})
    assert mon.state() == values and len(calls) == 6
    calls.clear()
    assert mon.state(AFTER_KEYS) == {"sm_clock_mhz": 1980, "temperature_c": 41, "throttle_reasons": []}
    assert calls == ["sm_clock_mhz", "temperature_c", "throttle_reasons"]
