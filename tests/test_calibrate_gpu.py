"""``calibrate`` on a real GPU: sane ranges on an H200, and invariants on any GPU."""

from __future__ import annotations

import pytest

from bench_kernel.hardware import get_device, load_calibration

pytestmark = pytest.mark.gpu


@pytest.fixture(scope="module")
def calibration(tmp_path_factory):
    from bench_kernel.hardware import calibrate

    directory = tmp_path_factory.mktemp("cache")
    return calibrate(save=True, directory=directory), directory


def test_h200_ranges(calibration):
    cal, _ = calibration
    if cal.device != "H200":
        pytest.skip(f"ranges are for an H200, this is {cal.device}")
    assert 3.5 <= cal.dram_tbps <= 4.8, cal.raw["dram_copy"]
    assert 500 <= cal.matmul_tflops["bf16"] <= 990, cal.raw["matmul_bf16"]
    assert 1 <= cal.launch_events_us <= 20, cal.raw["launch_events"]


def test_measured_never_beats_the_spec(calibration):
    # Beating a datasheet ceiling by more than rounding means the bytes or FLOPs are miscounted.
    cal, _ = calibration
    spec = get_device(cal.device)
    assert cal.dram_tbps <= 1.05 * spec.memory_tbps
    for dtype, tflops in cal.matmul_tflops.items():
        if dtype in spec.peak_tflops:
            assert tflops <= 1.05 * spec.peak_tflops[dtype], dtype


def test_l2_is_faster_than_dram_and_launch_floors_are_positive(calibration):
    cal, _ = calibration
    assert cal.l2_tbps > cal.dram_tbps
    assert 0 < cal.launch_graph_node_us < 50 and 0 < cal.launch_events_us < 50


def test_cached_calibration_round_trips(calibration):
    cal, directory = calibration
    loaded = load_calibration(cal.device, directory=directory)
    assert loaded.dram_tbps == cal.dram_tbps and dict(loaded.matmul_tflops) == dict(cal.matmul_tflops)
