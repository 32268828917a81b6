"""benchmarks/calibrate_report.py renders measured-vs-spec correctly (run on the CPU with fake runs)."""

from __future__ import annotations

import importlib.util
import json

import pytest

import bench_kernel.hardware
from _hardware_helpers import make_calibration
from bench_kernel.hardware import get_device
from conftest import ROOT


def _load_script():
    spec = importlib.util.spec_from_file_location("calibrate_report", ROOT / "benchmarks" / "calibrate_report.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


RUNS = [make_calibration(dram_tbps=4.30, matmul_tflops={"bf16": 760.0, "fp8": 1290.0}),
        make_calibration(dram_tbps=4.32, matmul_tflops={"bf16": 742.0, "fp8": 1300.0}),
        make_calibration(dram_tbps=4.31, matmul_tflops={"bf16": 820.0, "fp8": 1310.0})]
ENV = {"torch": "2.11.0", "runtime": "13.0", "python": "3.12.3", "platform": "Linux"}


def test_render_shows_medians_ranges_spec_and_raw_runs():
    md = _load_script().render(RUNS, get_device("H200"), ENV)
    assert "# Calibration: H200 (NVIDIA H200)" in md and "- Date: " in md and "driver nvidia-580.65.06" in md
    assert "| DRAM copy, read+write counted (TB/s) | 4.31 [4.3 - 4.32] | 4.8 | 89.8% |" in md
    assert "| bf16 GEMM 8192^3 (TFLOP/s) | 760 [742 - 820] | 989.4 | 76.8% |" in md
    assert "| launch: per node of a replayed CUDA graph (us) | 1.3 [1.3 - 1.3] | - | - |" in md
    assert "- DRAM copy: 4.31 = 89.8% of the 4.8 spec figure; expected 4-4.6: inside that range." in md
    assert "- bf16 GEMM: 760 = 76.8% of the 989.4 spec figure; expected 700-800: inside" in md
    assert md.count("\n| 1 | ") == 1 and "| 3 | 4.31 | 9.8 | 820 | 1310 | 4.1 | 1.3 |" in md


def test_main_writes_markdown_and_json(tmp_path, monkeypatch):
    pytest.importorskip("torch")
    runs = iter(RUNS)
    saves = []

    def fake(device=None, *, save=True):
        saves.append(save)
        return next(runs)

    monkeypatch.setattr(bench_kernel.hardware, "calibrate", fake)
    assert _load_script().main(["--repeats", "3", "--out", str(tmp_path)]) == 0
    assert saves == [False, False, True]  # only the last run updates the cache
    assert "| bf16 GEMM 8192^3" in (tmp_path / "calibrate-h200.md").read_text()
    data = json.loads((tmp_path / "calibrate-h200.json").read_text())
    assert [d["dram_tbps"] for d in data] == [4.30, 4.32, 4.31]
