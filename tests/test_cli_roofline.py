"""``bench-kernel roofline``: JSON contract, measured roof, plot, and one-line errors."""

from __future__ import annotations

import json

import pytest
from _hardware_helpers import make_calibration, needs_no_gpu

from bench_kernel.hardware import save_calibration

CONTRACT = {"device", "dtype", "peak_tflops", "peak_tbps", "arithmetic_intensity", "floor_us",
            "achieved_tflops", "achieved_tbps", "pct_of_roof", "bound"}
# On the H200 spec roof: 989.4e8 FLOP is 100 us of compute, 9.6e7 bytes 20 us of memory traffic.
ARGS = ("roofline", "--flops", "989.4e8", "--bytes", "9.6e7", "--time-us", "200", "--device", "H200")


@pytest.fixture(autouse=True)
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("BENCH_KERNEL_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache"


def test_json_contract_without_calibration(run_cli):
    r = run_cli(*ARGS, "--json")
    assert r.exit_code == 0, r.stderr
    doc = json.loads(r.stdout)
    assert list(doc)[:2] == ["schema_version", "roofline"] and doc["counters"] is None and doc["plot"] is None
    d = doc["roofline"]
    assert CONTRACT <= set(d) and d["measured"] is None
    assert (d["device"], d["dtype"], d["bound"]) == ("H200", "bf16", "compute")
    assert d["floor_us"] == pytest.approx(100.0) and d["pct_of_roof"] == pytest.approx(50.0)
    assert d["achieved_tflops"] == pytest.approx(494.7) and d["peak_tbps"] == 4.8


def test_measured_roof_when_calibrated(run_cli):
    save_calibration(make_calibration(dram_tbps=4.0, matmul_tflops={"bf16": 791.52}))
    d = json.loads(run_cli(*ARGS, "--json").stdout)["roofline"]
    assert d["measured"]["peak_tflops"] == 791.52 and d["measured"]["floor_us"] == pytest.approx(125.0)
    assert d["pct_of_roof"] == pytest.approx(50.0)
    assert json.loads(run_cli(*ARGS, "--json", "--no-measured").stdout)["roofline"]["measured"] is None


def test_table_output_names_bound_and_intensity(run_cli):
    r = run_cli(*ARGS, "--name", "my gemm")
    assert r.exit_code == 0
    assert "my gemm" in r.stdout and "compute" in r.stdout and "50.0%" in r.stdout
    assert "1031 FLOP/byte" in r.stdout  # 989.4e8 / 9.6e7 = 1030.6


def test_launch_bound_from_events_and_graph(run_cli):
    r = run_cli("roofline", "--flops", "1000", "--bytes", "4800", "--time-us", "6", "--device", "H200",
                "--events-us", "6", "--graph-us", "1.5", "--json")
    assert json.loads(r.stdout)["roofline"]["bound"] == "launch"


def test_plot_is_written(run_cli, tmp_path):
    save_calibration(make_calibration())
    out = tmp_path / "roof.svg"
    r = run_cli(*ARGS, "--plot", str(out), "--json")
    assert r.exit_code == 0, r.stderr
    assert json.loads(r.stdout)["plot"] == str(out)
    svg = out.read_text()
    assert 'id="roof-spec"' in svg and 'id="roof-measured"' in svg and 'id="point-0"' in svg


@pytest.mark.parametrize("argv, code, message", [
    (("--time-us", "0"), 2, "time_us must be a finite number > 0"),
    (("--bytes", "-5"), 2, "bytes must be a finite number > 0"),
    (("--flops", "nan"), 2, "flops must be a finite number"),
    (("--time-us", "fast"), 2, "'fast' is not a valid float"),
    (("--dtype", "fp12"), 2, "unknown dtype 'fp12'"),
    (("--device", "H300"), 1, "unknown device 'H300'"),
    (("--device", "L40S", "--dtype", "fp64"), 1, "has no dense fp64 peak"),
    (("--plot", "roof.jpg"), 2, "must end in .png or .svg"),
    (("--events-us", "3"), 2, "events_us and graph_us go together"),
])
def test_bad_input_is_one_line(run_cli, argv, code, message):
    base = dict(zip(ARGS[1::2], ARGS[2::2]))
    base.update(dict(zip(argv[::2], argv[1::2])))
    r = run_cli("roofline", *[x for kv in base.items() for x in kv])
    assert r.exit_code == code
    assert r.stderr.startswith("bench-kernel: error: ") and r.stderr.count("\n") == 1
    assert message in r.stderr


def test_missing_required_option_is_a_usage_error(run_cli):
    r = run_cli("roofline", "--flops", "1", "--bytes", "1")
    assert r.exit_code == 2 and "--time-us" in r.stderr


@needs_no_gpu
def test_no_device_and_no_gpu_is_one_line(run_cli):
    r = run_cli("roofline", "--flops", "1", "--bytes", "1", "--time-us", "1")
    assert r.exit_code == 1 and "needs a CUDA/HIP GPU and none is visible" in r.stderr and "--device NAME" in r.stderr
