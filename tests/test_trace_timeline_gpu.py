"""timeline on traces recorded here, on a GPU: a host that sleeps is host-bound; two ranks name the slow one."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SLEEP_S = 0.003


@pytest.mark.gpu
def test_a_sleeping_host_is_host_bound(tmp_path):
    import torch
    from torch.profiler import ProfilerActivity, profile, schedule

    from bench_kernel.trace import load_trace, timeline

    a = torch.randn(4096, 4096, device="cuda", dtype=torch.bfloat16)
    path = tmp_path / "trace.json"
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA], schedule=schedule(wait=1, warmup=1, active=4),
                 on_trace_ready=lambda p: p.export_chrome_trace(str(path))) as prof:
        for _ in range(6):
            (a @ a).sum()
            torch.cuda.synchronize()  # the host waits while the GPU works: a sync, but not idle time
            time.sleep(SLEEP_S)  # the GPU has nothing queued: host-bound
            prof.step()
    rep = timeline(load_trace(path))
    assert rep.step_rule == "profiler_step" and len(rep.steps) == 4
    for s in rep.steps:
        assert s.host_bound_us >= 0.9 * SLEEP_S * 1e6, s
        assert s.sync_calls >= 1 and s.diagnosis.startswith("host-bound"), s.diagnosis
        assert s.busy_us + s.host_bound_us + s.sync_wait_us + s.launch_gap_us + s.dependency_wait_us == \
            pytest.approx(s.wall_us, abs=1e-3)


@pytest.mark.gpu
def test_two_ranks_name_the_slow_one(tmp_path):
    import torch

    if torch.cuda.device_count() < 2:
        pytest.skip("needs 2 GPUs")
    env = dict(os.environ, OUT=str(tmp_path), PYTHONPATH=str(ROOT / "src"))
    p = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "gpu" / "multi_rank_trace.py"), "--slow-rank", "1"],
                       env=env, capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr[-2000:]
    rep = json.loads((tmp_path / "multi-gpu-timeline.json").read_text())
    assert rep["straggler"] == 1 and rep["straggler_basis"] == "collective arrivals"
    assert all(c["last_rank"] == 1 for c in rep["collectives"])
    fast = next(r for r in rep["ranks"] if r["rank"] == 0)
    assert fast["waited_us"] > 0 and fast["last_arrivals"] == 0
