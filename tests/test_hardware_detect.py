"""Detecting the device: names and SM counts as real GPUs report them, and the no-GPU case."""

from __future__ import annotations

import gzip
import json

import pytest

from _hardware_helpers import needs_no_gpu
from bench_kernel.errors import DeviceError
from bench_kernel.hardware import _detect, detect_device, driver_version, resolve_reported

# The smallest real trace of each device (the others repeat them and take seconds to parse).
TRACES = ["h200__inductor_mlp_rmsnorm.json.gz", "b200__eager_trace.json.gz", "torch_compile_triton__trace.json.gz"]


def _reported_devices(traces_dir):
    seen = set()
    for path in (traces_dir / name for name in TRACES):
        with gzip.open(path, "rt") as fh:
            props = json.load(fh).get("deviceProperties") or []
        seen |= {(p["name"], p["numSms"]) for p in props if p.get("name")}
    return sorted(seen)


def test_devices_of_the_real_traces_resolve_with_their_sm_counts(traces_dir):
    reported = _reported_devices(traces_dir)
    assert {name for name, _ in reported} >= {"NVIDIA H200", "NVIDIA B200", "AMD Instinct MI300X"}
    for name, sms in reported:
        spec = resolve_reported(name, sms)
        assert spec.sm_count == sms


def test_a_partitioned_gpu_is_refused_rather_than_given_the_whole_roof():
    with pytest.raises(DeviceError) as e:
        resolve_reported("NVIDIA H100 80GB HBM3", 16)  # a MIG 1g slice
    msg = str(e.value)
    assert "16" in msg and "132" in msg and "'H100 SXM'" in msg and "--device" in msg


def test_an_unknown_gpu_names_close_rows_and_the_fix():
    with pytest.raises(DeviceError, match="'NVIDIA H100 NVL'.*not in the peak table.*H100.*--device NAME"):
        resolve_reported("NVIDIA H100 NVL", 132)


@needs_no_gpu
def test_detect_without_a_gpu_is_one_clear_error():
    with pytest.raises(DeviceError, match="detecting the device needs a CUDA/HIP GPU and none is visible.*pass --device NAME"):
        detect_device()


@pytest.mark.parametrize("text, expected", [
    ("NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.65.06  Sun Jul 27 07:09:35 UTC 2025\n",
     "nvidia-580.65.06"),
    ("NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  570.133.20  Release Build\n",
     "nvidia-570.133.20"),
])
def test_driver_version_from_the_nvidia_kernel_module(tmp_path, monkeypatch, text, expected):
    proc = tmp_path / "version"
    proc.write_text(text)
    monkeypatch.setattr(_detect, "_NVIDIA_PROC", proc)
    assert driver_version() == expected


def test_driver_version_falls_back_to_amdgpu_then_torch(tmp_path, monkeypatch):
    monkeypatch.setattr(_detect, "_NVIDIA_PROC", tmp_path / "absent")
    amd = tmp_path / "amdgpu"
    amd.write_text("6.10.5\n")
    monkeypatch.setattr(_detect, "_AMDGPU_SYS", amd)
    assert driver_version() == "amdgpu-6.10.5"
    monkeypatch.setattr(_detect, "_AMDGPU_SYS", tmp_path / "absent")
    torch = pytest.importorskip("torch")
    assert driver_version() in (f"cuda-{torch.version.cuda}", f"hip-{getattr(torch.version, 'hip', None)}")
