"""``run --roofline``: counting what a case omits, the dtype, the device, the plot (no GPU)."""

from __future__ import annotations

import json
import textwrap

import pytest
import torch

from bench_kernel.measure import Case
from bench_kernel.orchestrate import count_work, infer_dtype
from _hardware_helpers import needs_no_gpu


def test_dtype_is_the_param_else_the_heaviest_floating_input():
    a, b = torch.zeros(10, dtype=torch.bfloat16), torch.zeros(100)
    assert infer_dtype(Case(fn=print), (a, [b])) == "torch.float32"
    assert infer_dtype(Case(fn=print), (torch.zeros(1000, dtype=torch.bfloat16), b)) == "torch.bfloat16"
    assert infer_dtype(Case(fn=print, params={"dtype": "fp8"}), (a,)) == "fp8"
    assert infer_dtype(Case(fn=print), (torch.zeros(3, dtype=torch.int64),)) == "fp32"


def test_missing_counts_are_counted_and_given_ones_kept():
    m, k, n = 32, 64, 16
    inputs = (torch.randn(m, k), torch.randn(k, n))
    case, notes = count_work(Case(fn=torch.matmul), inputs)
    assert case.flops == 2 * m * n * k
    assert case.bytes == 4 * (m * k + k * n + m * n)
    assert len(notes) == 2 and "FlopCounterMode" in notes[0]
    kept, notes = count_work(Case(fn=torch.matmul, flops=1.0, bytes=2.0), inputs)
    assert (kept.flops, kept.bytes, notes) == (1.0, 2.0, [])


TARGET = """
import torch
def cases():
    return {"name": "mm", "fn": torch.matmul, "make_inputs": lambda: (torch.randn(64, 64), torch.randn(64, 64))}
"""


def test_run_roofline_on_a_named_device(run_cli, tmp_path):
    t = tmp_path / "t.py"
    t.write_text(textwrap.dedent(TARGET))
    png = tmp_path / "rl.png"
    r = run_cli("run", f"{t}:cases", "--roofline", "--device", "H200", "--plot", str(png), "--json", "-m", "host",
                "--max-time", "0.05")
    assert r.exit_code == 0, r.stderr
    [res] = json.loads(r.stdout)["results"]
    rl = res["roofline"]
    assert res["flops"] == 2 * 64**3 and res["bytes"] == 3 * 64 * 64 * 4
    assert rl["device"] == "H200" and rl["dtype"] == "fp32"
    assert rl["arithmetic_intensity"] == pytest.approx(res["flops"] / res["bytes"])
    assert rl["time_us"] == res["time_us"]
    assert png.stat().st_size > 10_000 and png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@needs_no_gpu
def test_roofline_needs_a_gpu_or_a_device(run_cli, tmp_path):
    t = tmp_path / "t.py"
    t.write_text(textwrap.dedent(TARGET))
    r = run_cli("run", f"{t}:cases", "--roofline")
    assert r.exit_code == 1 and r.stderr.count("\n") == 1
    assert "--roofline needs a GPU to detect, or --device NAME" in r.stderr
    r = run_cli("run", f"{t}:cases", "--roofline", "--device", "H2000")
    assert r.exit_code == 1 and "H2000" in r.stderr and r.stderr.count("\n") == 1
