"""The calibration record and its cache (CPU): round trip, newest-wins, corrupt files, no GPU."""

from __future__ import annotations

import json

import pytest

from _hardware_helpers import make_calibration, needs_no_gpu
from bench_kernel.errors import DeviceError, InputError
from bench_kernel.hardware import (
    cache_dir,
    calibrate,
    calibration_path,
    load_calibration,
    save_calibration,
)


def test_round_trip_keeps_every_field(tmp_path):
    cal = make_calibration()
    path = save_calibration(cal, tmp_path)
    assert path == calibration_path("H200", "nvidia-580.65.06", tmp_path)
    assert path.name == "calibration-h200--nvidia-580.65.06.json"
    loaded = load_calibration("H200", directory=tmp_path)
    assert loaded.to_dict() == cal.to_dict()
    assert not list(tmp_path.glob("*.tmp"))


def test_one_file_per_driver_and_the_newest_wins(tmp_path):
    old = make_calibration(driver="nvidia-570.1", measured_at="2026-10-01T00:00:00+00:00", dram_tbps=4.0)
    new = make_calibration(driver="nvidia-580.65.06", measured_at="2026-11-30T10:00:00+00:00")
    save_calibration(old, tmp_path)
    save_calibration(new, tmp_path)
    assert len(list(tmp_path.glob("*.json"))) == 2
    assert load_calibration("H200", directory=tmp_path).dram_tbps == 4.31
    assert load_calibration("H200", driver="nvidia-570.1", directory=tmp_path).dram_tbps == 4.0


def test_devices_with_a_common_prefix_do_not_mix(tmp_path):
    save_calibration(make_calibration(device="H20", reported_name="NVIDIA H20"), tmp_path)
    assert load_calibration("H200", directory=tmp_path) is None
    assert load_calibration("H20", directory=tmp_path).device == "H20"


def test_no_calibration_is_none(tmp_path):
    assert load_calibration("MI300X", directory=tmp_path) is None


@pytest.mark.parametrize("corrupt, message", [
    (lambda d: "{not json", "not a valid calibration"),
    (lambda d: json.dumps({**d, "dram_tbps": -1.0}), "dram_tbps must be a finite number > 0"),
    (lambda d: json.dumps({k: v for k, v in d.items() if k != "launch_events_us"}), "launch_events_us"),
    (lambda d: json.dumps({**d, "schema_version": 7}), "schema_version 7"),
])
def test_a_corrupt_cache_file_is_an_error_naming_file_and_fix(tmp_path, corrupt, message):
    path = save_calibration(make_calibration(), tmp_path)
    path.write_text(corrupt(json.loads(path.read_text())))
    with pytest.raises(InputError) as e:
        load_calibration("H200", directory=tmp_path)
    assert message in str(e.value) and str(path) in str(e.value) and "rerun 'bench-kernel calibrate'" in str(e.value)


def test_cache_dir_env_precedence(monkeypatch, tmp_path):
    monkeypatch.setenv("BENCH_KERNEL_CACHE_DIR", str(tmp_path / "bk"))
    assert cache_dir() == tmp_path / "bk"
    monkeypatch.delenv("BENCH_KERNEL_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache_dir() == tmp_path / "xdg" / "bench-kernel"
    # The default on Linux, as it was before platformdirs computed it: ~/.cache/bench-kernel.
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert cache_dir() == tmp_path / "home" / ".cache" / "bench-kernel"


def test_calibration_is_frozen():
    with pytest.raises(AttributeError, match="immutable type: 'Calibration'"):
        make_calibration().dram_tbps = 9.0


@needs_no_gpu
def test_calibrate_without_a_gpu_is_one_clear_error():
    with pytest.raises(DeviceError, match="calibrate needs a CUDA/HIP GPU and none is visible"):
        calibrate()
