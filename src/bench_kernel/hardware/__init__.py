"""What the device can do: the peak table (a data file), detection, and calibration of real ceilings.

CONTRACT (used by roofline/, measure/, the CLI):
``get_device(name) -> DeviceSpec`` (spec roof, dense figures), ``detect_device() -> DeviceSpec``
(current GPU, lazy torch), ``calibrate() -> Calibration`` (GPU only) and
``load_calibration(device) -> Calibration | None`` (the cached "measured" roof, no torch).
"""

from bench_kernel.hardware._calibration import (
    cache_dir,
    calibration_path,
    load_calibration,
    read_calibration,
    save_calibration,
)
from bench_kernel.hardware._detect import detect_device, driver_version, resolve_reported
from bench_kernel.hardware._measure_ceilings import calibrate
from bench_kernel.hardware._peaks import (
    DeviceSpec,
    PeakTable,
    devices_document,
    get_device,
    list_devices,
    normalize_name,
    parse_peak_table,
    peak_table,
)

__all__ = [
    "DeviceSpec",
    "PeakTable",
    "cache_dir",
    "calibrate",
    "calibration_path",
    "detect_device",
    "devices_document",
    "driver_version",
    "get_device",
    "list_devices",
    "load_calibration",
    "normalize_name",
    "parse_peak_table",
    "peak_table",
    "read_calibration",
    "resolve_reported",
    "save_calibration",
]
