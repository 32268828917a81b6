"""The examples (examples/, which the README and docs/ run) on a machine without a GPU: those that
can run there do (small float32 versions, host clock), and the one that cannot says why in one line.

Before: ``run examples/torch_ops.py:cases`` hard-coded ``cuda`` (an empty table, 2 errors, exit 1)
and ``triton_add.py`` failed with ``No module named 'triton'``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench_kernel.gpu import has_gpu

pytest.importorskip("torch")
pytestmark = pytest.mark.skipif(has_gpu(), reason="the CPU versions of the examples")

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
SLOWED = EXAMPLES.parent / "benchmarks" / "gpu" / "sweep_gemm_slowed.py"
# One torch thread: on a loaded machine a sample of two threads waits for a CPU whenever either does,
# and a case whose every sample waited has no time (a full run at load 10 met it once).
FAST = ("-m", "host", "--max-time", "0.05", "--precision", "0.5", "--rounds", "1", "--threads", "1", "--json")


@pytest.mark.parametrize(("example", "cases"), [
    ("torch_ops.py", {"linear_silu": {"m": 32, "n": 1024, "k": 512, "dtype": "float32"},
                      "topk": {"rows": 64, "cols": 4096, "k": 8}}),
    ("multi_kernel.py", {"gemv_1x1024x1024": {"m": 1, "n": 1024, "k": 1024},
                         "ln_gelu_residual": {"rows": 256, "hidden": 1024}}),
    ("capture_unsafe.py", {"normalise_by_max": {}}),
])
def test_the_examples_run_on_the_cpu(run_cli, example, cases):
    r = run_cli("run", f"{EXAMPLES / example}:cases", *FAST)
    assert r.exit_code == 0, r.stderr
    results = json.loads(r.stdout)["results"]
    assert {x["name"]: x["params"] for x in results} == cases
    for x in results:
        host = x["measurements"]["host"]
        assert x["correct"] is not False and (host["median_us"] or 0) > 0, host.get("error")
    if example == "torch_ops.py":  # checked against its float32 reference, and its work is the CPU size
        linear = results[0]
        assert linear["correct"] is True and linear["flops"] == 2.0 * 32 * 1024 * 512 + 4.0 * 32 * 1024
        assert linear["bytes"] == 4.0 * (32 * 512 + 1024 * 512 + 32 * 1024)


def test_the_triton_example_says_in_one_line_that_it_needs_a_gpu(run_cli):
    r = run_cli("run", f"{EXAMPLES / 'triton_add.py'}:cases")
    assert r.exit_code == 1
    assert r.stderr == (f"bench-kernel: error: importing '{EXAMPLES / 'triton_add.py'}' raised ImportError: "
                        "examples/triton_add.py needs a CUDA/HIP GPU and Triton; on a CPU try "
                        "examples/torch_ops.py:cases\n")


@pytest.mark.multiprocess
def test_the_sweep_example_runs_torch_and_says_why_triton_does_not(run_cli, tmp_path):
    r = run_cli("sweep", str(EXAMPLES / "sweep_gemm.py"), "--db", str(tmp_path / "r.db"), *FAST)
    assert r.exit_code == 0, r.stderr
    points = json.loads(r.stdout)["points"]
    torch_points = [p for p in points if p["provider"] == "torch"]
    assert sorted(p["params"]["M"] for p in torch_points) == [1, 16, 128]
    assert all(p["status"] == "ok" for p in torch_points)
    others = [p for p in points if p["provider"] != "torch"]
    assert len(others) == 9 and all(p["status"] == "unsupported" for p in others)
    assert {p["error"] for p in others} == {"Triton needs a CUDA/HIP GPU"}


def test_the_slowed_twin_of_the_sweep_example_slows_only_the_provider_named(monkeypatch):
    # The benchmarks' 10% regression lives beside them, not in the example a user copies.
    import torch

    from bench_kernel.errors import TargetError
    from bench_kernel.sweeps import load_spec

    assert "SLOW" not in (EXAMPLES / "sweep_gemm.py").read_text()
    monkeypatch.setenv("SWEEP_GEMM_SLOW", "torch")
    plain, slowed = load_spec(str(EXAMPLES / "sweep_gemm.py")), load_spec(str(SLOWED))
    assert slowed.axes == plain.axes and list(slowed.providers) == list(plain.providers)
    point = {"M": 16, "N": 256, "K": 256}
    case, twin = plain.providers["torch"](point), slowed.providers["torch"](point)
    assert case["fn"] is torch.matmul and twin["fn"] is not torch.matmul
    a, b = twin["make_inputs"]()
    assert torch.equal(twin["fn"](a, b), torch.matmul(a, b)) and twin["flops"] == case["flops"] == 2.0 * 16 * 256 * 256
    monkeypatch.setenv("SWEEP_GEMM_SLOW", "nope")
    with pytest.raises(TargetError, match="SWEEP_GEMM_SLOW=.nope.: no such provider in sweep_gemm.py"):
        load_spec(str(SLOWED))
