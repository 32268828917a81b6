"""The GEMM sweep example on a GPU: every Triton tile matches torch.matmul (checked before timing)
and is timed with the graph method; a --gpus worker is pinned and named after its GPU."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench_kernel.sweeps import load_spec, run_sweep

# Processes: sweep workers, and Triton compiling with ptxas and gcc.
pytestmark = [pytest.mark.gpu, pytest.mark.multiprocess]
SPEC = str(Path(__file__).resolve().parent.parent / "examples" / "sweep_gemm.py")
QUICK = dict(methods=("graph",), max_time_s=0.1)


def test_gemm_sweep_providers_match_torch_and_are_timed(tmp_path):
    res = run_sweep(load_spec(SPEC), store=tmp_path / "r.db", options=QUICK)
    assert len(res.points) == 5 * 4
    bad = [(p.label, p.status, p.error) for p in res.points if p.status != "ok"]
    assert bad == []  # every Triton config agrees with torch.matmul at every M, bf16 tolerance
    for p in res.points:
        assert p.result.primary_method == "graph" and p.median_us > 0
        assert p.result.achieved_tflops == pytest.approx(p.result.flops / (p.median_us * 1e-6) / 1e12)
    big = {p.provider: p.result.achieved_tflops for p in res.points if p.params["M"] == 8192}
    assert max(big.values()) > 10 * min(p.result.achieved_tflops for p in res.points if p.params["M"] == 1)


def test_one_gpu_worker_is_pinned_and_named(tmp_path):
    res = run_sweep(load_spec(SPEC), store=tmp_path / "r.db", gpus=[0], providers=["torch"], options=QUICK)
    assert {p.worker for p in res.points} == {"gpu:0"} and all(p.status == "ok" for p in res.points)
    assert res.run.env["workers"]["gpu:0"]["visible_devices"] == "0"
    assert res.run.env["workers"]["gpu:0"]["device"] == res.points[0].result.env["device"]
