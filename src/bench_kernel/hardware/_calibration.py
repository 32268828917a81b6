"""The cache of calibration records (``records.Calibration``: this GPU's measured ceilings), one JSON
file per device + driver.

Nothing here imports torch: the roofline reads the cached "measured" roof on any machine.
"""

from __future__ import annotations

import math
import os
import re
from pathlib import Path

import msgspec

from bench_kernel.atomic import write_atomic
from bench_kernel.errors import InputError
from bench_kernel.records import CALIBRATION_SCHEMA_VERSION, Calibration

__all__ = ["cache_dir", "calibration_path", "load_calibration", "read_calibration", "save_calibration"]


class _Versioned(msgspec.Struct):
    schema_version: int


def read_calibration(data: bytes | str, origin: str = "calibration") -> Calibration:
    """Parse and validate a cached calibration; InputError naming the file and field if bad."""
    fix = f"delete {origin} or rerun 'bench-kernel calibrate'"
    try:
        version = msgspec.json.decode(data, type=_Versioned).schema_version
        if version != CALIBRATION_SCHEMA_VERSION:
            raise InputError(f"{origin}: schema_version {version}, expected {CALIBRATION_SCHEMA_VERSION}; {fix}")
        # msgspec fills the record itself, checking every field against its annotation.
        cal = msgspec.json.decode(data, type=Calibration)
    except msgspec.DecodeError as e:
        raise InputError(f"{origin}: not a valid calibration ({e}); {fix}") from None
    positive = {"dram_tbps": cal.dram_tbps, "launch_events_us": cal.launch_events_us,
                "launch_graph_node_us": cal.launch_graph_node_us,
                **{f"matmul_tflops.{k}": v for k, v in cal.matmul_tflops.items()}}
    if cal.l2_tbps is not None:
        positive["l2_tbps"] = cal.l2_tbps
    for name, value in positive.items():
        if not (math.isfinite(value) and value > 0):
            raise InputError(f"{origin}: {name} must be a finite number > 0, got {value!r}; {fix}")
    return cal


def cache_dir() -> Path:
    """Where calibrations live: ``$BENCH_KERNEL_CACHE_DIR``, else the platform's user cache dir.

    Linux/BSD ``$XDG_CACHE_HOME/bench-kernel`` (default ``~/.cache/bench-kernel``), macOS
    ``~/Library/Caches/bench-kernel``, Windows ``%LOCALAPPDATA%\\bench-kernel\\Cache`` (platformdirs).
    """
    override = os.environ.get("BENCH_KERNEL_CACHE_DIR")
    if override:
        return Path(override)
    from platformdirs import user_cache_path

    return user_cache_path("bench-kernel", appauthor=False)


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9.]+", "-", text.lower()).strip("-")


def calibration_path(device: str, driver: str, directory: Path | None = None) -> Path:
    """The cache file for ``device`` (a table name) measured under ``driver``."""
    return (directory or cache_dir()) / f"calibration-{_slug(device)}--{_slug(driver)}.json"


def save_calibration(cal: Calibration, directory: Path | None = None) -> Path:
    """Write ``cal`` to the cache (atomically: a reader never sees half a file); return the path."""
    path = calibration_path(cal.device, cal.driver, directory)
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(path, msgspec.json.format(msgspec.json.encode(cal), indent=2))
    return path


def load_calibration(device: str, driver: str | None = None,
                     directory: Path | None = None) -> Calibration | None:
    """The cached calibration of ``device`` (table name): for ``driver`` if given, else the newest.

    ``None`` when there is none; a corrupt file is an InputError (never a silently wrong roof).
    """
    root = directory or cache_dir()
    if driver is not None:
        paths = [calibration_path(device, driver, root)]
    else:
        paths = sorted(root.glob(f"calibration-{_slug(device)}--*.json"))
    found: list[Calibration] = []
    for path in paths:
        if not path.is_file():
            continue
        cal = read_calibration(path.read_bytes(), origin=str(path))
        if cal.device == device:
            found.append(cal)
    return max(found, key=lambda c: c.measured_at) if found else None
