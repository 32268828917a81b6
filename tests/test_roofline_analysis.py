"""Roofline math on hand-computed cases, the launch bound, the measured roof, and bad input."""

from __future__ import annotations

import math
import subprocess
import sys

import pytest

from _hardware_helpers import make_calibration
from bench_kernel.errors import DeviceError, UsageError
from bench_kernel.hardware import save_calibration
from bench_kernel.roofline import analyze

# H200 spec roof: 989.4 TFLOP/s dense bf16, 4.8 TB/s. Numbers below are chosen so the terms are round:
# 989.4e8 FLOP take 100 us at peak, 9.6e7 bytes take 20 us.
H200_100US_FLOPS = 989.4e8
H200_20US_BYTES = 9.6e7


@pytest.fixture(autouse=True)
def empty_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("BENCH_KERNEL_CACHE_DIR", str(tmp_path / "cache"))


def test_compute_bound_case_by_hand():
    r = analyze(H200_100US_FLOPS, H200_20US_BYTES, 200.0, device="H200", dtype="bf16")
    assert r.spec.compute_us == pytest.approx(100.0)
    assert r.spec.memory_us == pytest.approx(20.0)
    assert r.floor_us == pytest.approx(100.0)
    assert r.pct_of_roof == pytest.approx(50.0)
    assert r.headroom == pytest.approx(2.0)
    assert r.bound == "compute"
    assert r.arithmetic_intensity == pytest.approx(989.4e8 / 9.6e7)
    assert r.achieved_tflops == pytest.approx(989.4 / 2)
    assert r.achieved_tbps == pytest.approx(0.48)
    assert r.spec.roof.ridge_intensity == pytest.approx(989.4 / 4.8)
    assert r.measured is None and r.launch_us is None


def test_memory_bound_case_by_hand():
    r = analyze(1e6, 4.8e8, 125.0, device="NVIDIA H200", dtype="torch.bfloat16")
    assert r.spec.memory_us == pytest.approx(100.0)
    assert r.bound == "memory"
    assert r.pct_of_roof == pytest.approx(80.0)
    assert r.headroom == pytest.approx(1.25)
    assert r.achieved_tbps == pytest.approx(3.84)
    assert (r.device, r.dtype) == ("H200", "bf16")


def test_the_dtype_picks_the_compute_roof():
    fp8 = analyze(1978.9e8, H200_20US_BYTES, 200.0, device="H200", dtype="fp8")
    assert fp8.spec.compute_us == pytest.approx(100.0)
    fp32 = analyze(66.9e8, H200_20US_BYTES, 200.0, device="H200", dtype="fp32")
    assert fp32.spec.compute_us == pytest.approx(100.0)


@pytest.mark.parametrize("kwargs, bound, source", [
    (dict(launch_overhead_us=4.0), "launch", "argument"),    # 4 >= 6/2 and 4 >= floor
    (dict(launch_overhead_us=2.0), "memory", "argument"),    # 2 < 6/2: launch does not dominate
    (dict(events_us=6.0, graph_us=1.5), "launch", "events-graph"),  # overhead 4.5
    (dict(events_us=6.0, graph_us=5.0), "memory", "events-graph"),  # overhead 1
])
def test_launch_bound_when_launch_cost_dominates_a_tiny_kernel(kwargs, bound, source):
    r = analyze(1e3, 4.8e3, 6.0, device="H200", **kwargs)  # roof floor: 0.001 us
    assert (r.bound, r.launch_source) == (bound, source)


def test_launch_cost_below_the_roof_floor_is_not_launch_bound():
    # Launch takes 8 of 12 us, but the compute floor alone is 10 us: the roof, not launch, limits it.
    r = analyze(989.4e7, 4.8e3, 12.0, device="H200", launch_overhead_us=8.0)
    assert r.floor_us == pytest.approx(10.0)
    assert r.bound == "compute"


def test_events_faster_than_graph_clamps_overhead_with_a_note():
    r = analyze(1e3, 4.8e3, 6.0, device="H200", events_us=2.0, graph_us=3.0)
    assert r.launch_us == 0.0 and r.bound == "memory"
    assert any("launch overhead taken as 0" in n.text for n in r.notes)


def test_measured_roof_from_the_cache_has_its_own_key(tmp_path):
    save_calibration(make_calibration(dram_tbps=4.0, matmul_tflops={"bf16": 791.52}))
    r = analyze(H200_100US_FLOPS, H200_20US_BYTES, 200.0, device="H200")
    assert r.measured.roof.peak_tflops == 791.52
    assert r.measured.compute_us == pytest.approx(125.0)
    assert r.measured.memory_us == pytest.approx(24.0)
    assert r.measured.pct_of_roof == pytest.approx(62.5)
    assert r.pct_of_roof == pytest.approx(50.0)  # the headline stays the spec roof
    d = r.to_dict()
    assert d["measured"]["peak_tflops"] == 791.52 and d["peak_tflops"] == 989.4
    # The calibrated graph-node cost (1.3 us) is the launch floor when no timing pair is given.
    assert (r.launch_us, r.launch_source) == (1.3, "calibration-graph")
    ev = analyze(1e3, 4.8e3, 6.0, device="H200", timed_with="events")
    assert (ev.launch_us, ev.bound) == (4.1, "launch")


def test_from_dict_reads_back_what_to_dict_wrote_including_the_measured_roof():
    # A stored placement is read back, not recomputed (the report shows what was found then).
    save_calibration(make_calibration(dram_tbps=4.0, matmul_tflops={"bf16": 791.52}))
    from bench_kernel.records import RooflineResult

    r = analyze(H200_100US_FLOPS, H200_20US_BYTES, 200.0, device="H200", name="gemm")
    back = RooflineResult.from_dict(r.to_dict())
    assert back == r
    assert back.measured.roof == r.measured.roof and back.spec.roof.source == "spec"
    plain = analyze(1e9, 1e9, 10.0, device="H200", calibration=False)
    assert RooflineResult.from_dict(plain.to_dict()) == plain


def test_calibration_false_or_missing_dtype_gives_no_measured_roof():
    save_calibration(make_calibration())
    assert analyze(1e9, 1e9, 10.0, device="H200", calibration=False).to_dict()["measured"] is None
    r = analyze(1e9, 1e9, 10.0, device="H200", dtype="fp32")
    assert r.measured is None
    assert any("no fp32 GEMM" in n.text for n in r.notes)


def test_json_contract_keys():
    d = analyze(1e9, 1e9, 10.0, device="H200").to_dict()
    assert {"device", "dtype", "peak_tflops", "peak_tbps", "arithmetic_intensity", "floor_us",
            "achieved_tflops", "achieved_tbps", "pct_of_roof", "bound"} <= set(d)


def test_zero_flops_is_pure_data_movement():
    r = analyze(0, 4.8e8, 125.0, device="H200")
    assert r.arithmetic_intensity == 0 and r.bound == "memory" and r.pct_of_roof == pytest.approx(80.0)
    assert any("0 FLOPs" in n.text for n in r.notes)


def test_faster_than_the_roof_is_flagged():
    r = analyze(1e6, 4.8e8, 50.0, device="H200")
    assert r.pct_of_roof == pytest.approx(200.0)
    assert any("faster than the spec roof" in n.text for n in r.notes)


@pytest.mark.parametrize("args, kwargs, message", [
    ((-1, 1e6, 10.0), {}, "flops must be a finite number >= 0"),
    ((1e6, 0, 10.0), {}, "bytes must be a finite number > 0, got 0"),
    ((1e6, 1e6, 0), {}, "time_us must be a finite number > 0"),
    ((1e6, 1e6, -3.0), {}, "time_us must be a finite number > 0"),
    ((math.nan, 1e6, 10.0), {}, "flops must be a finite number"),
    ((1e6, math.inf, 10.0), {}, "bytes must be a finite number"),
    (("many", 1e6, 10.0), {}, "flops must be a number, got 'many'"),
    ((1e6, 1e6, 10.0), {"launch_overhead_us": -1.0}, "launch_overhead_us"),
    ((1e6, 1e6, 10.0), {"events_us": 5.0}, "events_us and graph_us go together"),
    ((1e6, 1e6, 10.0), {"timed_with": "cupti"}, "timed_with must be 'graph' or 'events'"),
    ((1e6, 1e6, 10.0), {"dtype": "fp12"}, "unknown dtype 'fp12'"),
])
def test_bad_input_is_a_usage_error(args, kwargs, message):
    with pytest.raises(UsageError, match=message):
        analyze(*args, device="H200", **kwargs)


def test_unknown_device_and_missing_peak_are_device_errors():
    with pytest.raises(DeviceError, match="unknown device 'H300'"):
        analyze(1e6, 1e6, 10.0, device="H300")
    with pytest.raises(DeviceError, match="'L40S' has no dense fp64 peak"):
        analyze(1e6, 1e6, 10.0, device="L40S", dtype="fp64")


def test_a_calibration_of_another_device_is_refused():
    with pytest.raises(DeviceError, match="calibration given is of 'MI300X', not 'H200'"):
        analyze(1e6, 1e6, 10.0, device="H200", calibration=make_calibration(device="MI300X"))


@pytest.mark.multiprocess
def test_the_package_and_its_function_have_different_names():
    # One name, one thing: bench_kernel.roofline is the package, analyze() its function.
    code = ("import bench_kernel.roofline._count, bench_kernel; "
            "r = bench_kernel.analyze_roofline(1e6, 4.8e8, 125.0, device='H200', calibration=False); "
            "print(r.bound, bench_kernel.count is bench_kernel.roofline.count, callable(bench_kernel.roofline))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["memory", "True", "False"]


@pytest.mark.multiprocess
def test_analysis_and_cli_import_neither_torch_nor_matplotlib():
    code = ("import sys, bench_kernel.roofline, bench_kernel.hardware, bench_kernel.cli.roofline, "
            "bench_kernel.cli.devices, bench_kernel.cli.calibrate; from bench_kernel.cli import main; "
            "main(['roofline', '--flops', '1e9', '--bytes', '1e9', '--time-us', '9', '--device', 'H200', "
            "'--no-measured', '--json']); main(['devices', '--json']); "
            "print('torch' in sys.modules, 'matplotlib' in sys.modules, file=sys.stderr)")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert r.stderr.split() == ["False", "False"]
