"""Each document read back as its record (docs/json.md is generated from them) where only a GPU prints
it: calibrate, and the GPU fields of run and profile (the graph/events/kernel measurements, the
per-kernel breakdown, a profile's top kernels). The CPU half is tests/test_json_docs.py."""

from __future__ import annotations

import json
import textwrap

import pytest

from _documents import read_back

pytestmark = pytest.mark.gpu

TARGET = """
import torch
def cases():
    a, b = (torch.randn(1024, 1024, device="cuda", dtype=torch.bfloat16) for _ in range(2))
    return [{"name": "mm", "fn": torch.matmul, "make_inputs": lambda: (a, b), "reference": torch.matmul,
             "flops": 2 * 1024**3, "bytes": 3 * 2 * 1024**2, "params": {"n": 1024}}]
"""


def _checked(run_cli, command: str, *argv: str) -> dict:
    r = run_cli(command, *argv, "--json")
    assert r.exit_code == 0, r.stderr
    data = json.loads(r.stdout)
    read_back(command, data)
    return data


def test_calibrate(run_cli):
    data = _checked(run_cli, "calibrate", "--no-save")
    assert data["dram_tbps"] > 0 and data["matmul_tflops"]


def test_run_with_every_gpu_method(run_cli, tmp_path):
    (tmp_path / "t.py").write_text(textwrap.dedent(TARGET))
    data = _checked(run_cli, "run", f"{tmp_path}/t.py:cases", "--max-time", "0.2", "--roofline")
    [r] = data["results"]
    assert set(r["measurements"]) == {"graph", "events", "kernel"} and r["kernels"] and r["roofline"]


def test_profile_with_kernels(run_cli, tmp_path):
    (tmp_path / "t.py").write_text(textwrap.dedent(TARGET))
    data = _checked(run_cli, "profile", f"{tmp_path}/t.py:cases", "--steps", "2", "-o", str(tmp_path / "p.json.gz"))
    assert data["top"] is not None and data["kernels_per_step"] >= 1
