"""Helpers shared by the hardware/roofline tests: a calibration record and the no-GPU marker."""

from __future__ import annotations

import pytest

from bench_kernel.gpu import has_gpu, has_torch
from bench_kernel.records import Calibration

#: For tests of what happens without a GPU (they cannot run on a GPU machine). Without torch the
#: no-GPU paths are not the ones under test either: skip them then too.
needs_no_gpu = pytest.mark.skipif(has_gpu() or not has_torch(), reason="a GPU is present (or torch is missing)")


def make_calibration(**overrides) -> Calibration:
    """A plausible H200 calibration; override any field."""
    base = dict(device="H200", reported_name="NVIDIA H200", driver="nvidia-580.65.06", torch_version="2.11.0",
                measured_at="2026-11-30T10:00:00+00:00", dram_tbps=4.31, l2_tbps=9.8,
                matmul_tflops={"bf16": 752.0, "fp8": 1310.0}, launch_events_us=4.1, launch_graph_node_us=1.3,
                raw={"dram_copy": {"median_us": 998.1, "samples_us": [998.1, 999.0]}})
    return Calibration(**{**base, **overrides})
