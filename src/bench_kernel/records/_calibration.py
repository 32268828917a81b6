"""This GPU's measured ceilings (``bench-kernel calibrate``): the "measured" roof.

The record is the calibration cache file and the ``calibrate --json`` document at once, so its
version is the cache file's: a file of another version is refused on load (``hardware``), and
calibrating again writes the current one.
"""

from __future__ import annotations

from typing import Annotated, Any

from bench_kernel.records._base import Record, doc

__all__ = ["Calibration", "CALIBRATION_SCHEMA_VERSION"]

CALIBRATION_SCHEMA_VERSION = 1


class Calibration(Record, frozen=True, kw_only=True):
    """The calibration record as it is cached (`bench_kernel.load_calibration` reads it back); its
    version is the cache file's. Bandwidths in TB/s (10^12 bytes/s), times in microseconds."""

    schema_version: Annotated[int, doc("the calibration file's version")] = CALIBRATION_SCHEMA_VERSION
    device: Annotated[str, doc("the peak-table device (`H200`) the calibration is filed under")]
    reported_name: Annotated[str, doc("the name torch reports for the GPU that was measured")]
    driver: Annotated[str, doc("the driver it was measured under")]
    torch_version: Annotated[str, doc("torch's version")]
    measured_at: Annotated[str, doc("when, ISO 8601 UTC")]
    dram_tbps: Annotated[float, doc("measured DRAM bandwidth: a large device-to-device copy of random data, read + write bytes counted, median")]
    l2_tbps: Annotated[float | None, doc("measured L2 read bandwidth of a random working set well inside L2, median; null if not measured")]
    matmul_tflops: Annotated[dict[str, float], doc("measured dense GEMM throughput (TFLOP/s) per dtype, median; dtypes the device or torch lacks are absent")]
    launch_events_us: Annotated[float, doc("launch cost of one empty kernel bracketed by CUDA events behind a backlog kernel: the floor of event timing")]
    launch_graph_node_us: Annotated[float, doc("cost of one empty-kernel node of a replayed CUDA graph: the floor of graph timing")]
    raw: Annotated[dict[str, Any], doc("every measurement behind the figures: sizes, repetitions, samples, medians")] = {}
    notes: Annotated[tuple[str, ...], doc("what to know (a dtype skipped, where it was cached)")] = ()
