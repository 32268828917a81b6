"""``bench-kernel calibrate`` on the CPU: the no-GPU error, and rendering of a calibration."""

from __future__ import annotations

import json

import pytest

import bench_kernel.hardware
from _hardware_helpers import make_calibration, needs_no_gpu


@needs_no_gpu
def test_without_a_gpu_is_one_clear_line(run_cli):
    r = run_cli("calibrate")
    assert r.exit_code == 1
    assert r.stderr == ("bench-kernel: error: calibrate needs a CUDA/HIP GPU and none is visible "
                        "(torch.cuda.is_available() is False); run it on the GPU machine\n")


@pytest.fixture
def fake_calibrate(monkeypatch):
    calls = []

    def fake(device=None, *, save=True):
        calls.append((device, save))
        return make_calibration(dram_tbps=4.32, matmul_tflops={"bf16": 742.0, "fp8": 1290.0})

    monkeypatch.setattr(bench_kernel.hardware, "calibrate", fake)
    return calls


def test_shows_measured_next_to_spec(run_cli, fake_calibrate):
    r = run_cli("calibrate", "--md")
    assert r.exit_code == 0, r.stderr
    assert "| DRAM copy, read+write (TB/s) | 4.32 | 4.8 | 90.0% |" in r.stdout
    assert "| bf16 GEMM (TFLOP/s) | 742 | 989.4 | 75.0% |" in r.stdout
    assert "| launch, per CUDA-graph node (us) | 1.3 | - | - |" in r.stdout
    assert fake_calibrate == [(None, True)]


def test_json_is_the_calibration_record(run_cli, fake_calibrate):
    d = json.loads(run_cli("calibrate", "--json", "--device", "H200", "--no-save").stdout)
    assert d["dram_tbps"] == 4.32 and d["matmul_tflops"] == {"bf16": 742.0, "fp8": 1290.0}
    assert fake_calibrate == [("H200", False)]
