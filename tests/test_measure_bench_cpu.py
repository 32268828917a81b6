"""``bench()`` end to end on a machine without a GPU: host method, reference check, errors."""

from __future__ import annotations

import pytest
import torch
from _hardware_helpers import needs_no_gpu

import bench_kernel
from bench_kernel.errors import MeasurementError, UsageError
from bench_kernel.measure._graph import explain_capture_error


@needs_no_gpu
def test_without_gpu_falls_back_to_host_and_says_so():
    r = bench_kernel.bench(lambda a, b: a @ b, make_inputs=lambda: (torch.randn(64, 64), torch.randn(64, 64)),
                           flops=2 * 64**3, max_time_s=0.2, name="mm")
    assert list(r.measurements) == ["host"]
    host = r.measurements["host"]
    assert host.ok and host.median_us > 0 and host.samples.n >= 1
    assert r.primary_method == "host" and r.time_us == host.median_us
    assert r.achieved_tflops == pytest.approx(2 * 64**3 / (host.median_us * 1e-6) / 1e12)
    assert any("no GPU" in n.text for n in r.notes)
    d = r.to_dict()
    assert d["measurements"]["host"]["median_us"] == host.median_us
    assert d["env"]["backend"] == "cpu"


def test_wrong_result_is_not_timed():
    r = bench_kernel.bench(lambda x: x * 2, make_inputs=lambda: (torch.randn(100),),
                           reference=lambda x: x * 3, methods=("host",))
    assert r.correct is False
    assert r.measurements == {}
    assert r.time_us is None
    assert "relative error" in r.notes[-1].text and r.notes[-1].code == "wrong-result"


def test_reference_sees_inputs_before_in_place_ops():
    r = bench_kernel.bench(lambda x: x.mul_(2), make_inputs=lambda: (torch.randn(100),),
                           reference=lambda x: x * 2, methods=("host",), max_time_s=0.05)
    assert r.correct is True and r.measurements["host"].ok


def test_callable_that_raises_is_a_measurement_error():
    def broken():
        raise RuntimeError("kaput")

    with pytest.raises(MeasurementError, match="'broken' raised RuntimeError during warm-up: kaput"):
        bench_kernel.bench(broken, methods=("host",))


@pytest.mark.parametrize("kwargs,fragment", [
    ({"methods": ("graph", "nope")}, "unknown method 'nope'"),
    ({"cache": "tepid"}, "cache must be"),
    ({"precision": 0}, "precision must be"),
    ({"max_time_s": 0}, "max_time_s must be"),
])
def test_bad_arguments(kwargs, fragment):
    with pytest.raises(UsageError, match=fragment):
        bench_kernel.bench(lambda: None, **kwargs)


def test_capture_error_reports_the_first_error_not_the_cleanup_one():
    try:
        try:
            raise RuntimeError("CUDA error: operation not permitted when stream is capturing "
                               "Search for `cudaErrorStreamCaptureUnsupported' in https://docs")
        except RuntimeError:
            raise RuntimeError("operation failed due to a previous error during capture")
    except RuntimeError as e:
        text = explain_capture_error(e)
    assert "synchronises with the host" in text
    assert "not permitted when stream is capturing" in text
    assert "Search for" not in text
