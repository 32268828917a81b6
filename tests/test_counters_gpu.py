"""Hardware counters on a real GPU: streaming bytes, GEMM FLOPs, a Triton kernel, a
compiled function, and the timed kernels unchanged by counting. Needs a GPU and ncu (NVIDIA)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

# Processes: ncu runs the counted kernels in a child process; Triton and Inductor compile with ptxas and gcc.
pytestmark = [pytest.mark.gpu, pytest.mark.multiprocess]
torch = pytest.importorskip("torch")
if not torch.cuda.is_available():
    pytest.skip("no GPU", allow_module_level=True)
if not torch.version.hip and shutil.which("ncu") is None:
    pytest.skip("ncu (Nsight Compute) is not on PATH", allow_module_level=True)

CASES = Path(__file__).resolve().parent.parent / "benchmarks" / "gpu" / "counters_cases.py"
QUICK = {"methods": ("graph", "kernel"), "max_time_s": 0.2}


@pytest.fixture(scope="module")
def proof():
    from bench_kernel import load_target

    return {c.label: c for c in load_target(f"{CASES}:proof")}


def _counted(case):
    import bench_kernel

    r = bench_kernel.bench(case, counters=True, **QUICK)
    assert r.counters is not None and r.counters.ok, r.counters.error if r.counters else r.notes
    return r


def test_streaming_mul_moves_twice_its_size(proof):
    r = _counted(proof["mul_256MB"])
    total = r.counters.total
    size = 4 * (1 << 26)
    assert abs(total.dram_bytes / (2 * size) - 1) < 0.05, (total.dram_read_bytes, total.dram_write_bytes)
    assert r.measured_roofline.level("dram").bytes == total.dram_bytes


def test_bf16_gemm_flops_are_2mnk(proof):
    r = _counted(proof["gemm_4096_bf16"])
    total = r.counters.total
    assert abs(total.tensor_flops["bf16"] / (2 * 4096**3) - 1) < 0.01
    assert abs(total.flops / (2 * 4096**3) - 1) < 0.01
    assert r.measured_roofline.dtype == "bf16"


@pytest.mark.parametrize("name", ["triton_add", "compiled_silu_mul"])
def test_triton_and_compiled_kernels_are_counted_and_joined(proof, name):
    r = _counted(proof[name])
    assert r.counters.kernels and r.counters.total.dram_bytes > 1 << 20
    timed = [k.name for k in r.kernels if k.kind == "kernel"]
    joined = {j.name: j for j in r.counters.joined}
    assert set(timed) <= set(joined) and all(joined[n].matched_by == "name" for n in timed)


def test_counting_does_not_change_the_timed_kernels(proof):
    import bench_kernel

    case = proof["gemm_4096_bf16"]
    plain = bench_kernel.bench(case, **QUICK)
    counted = _counted(case)
    assert sorted(k.name for k in plain.kernels) == sorted(k.name for k in counted.kernels)
    assert all(j.matched_by == "name" for j in counted.counters.joined)


def test_run_counters_end_to_end(run_cli, tmp_path):
    pytest.importorskip("matplotlib")
    out, plot = tmp_path / "run.json", tmp_path / "h.png"
    r = run_cli("run", f"{CASES}:proof", "--counters", "--method", "graph", "--method", "kernel", "--max-time",
                "0.2", "--plot", str(plot), "--json", "-o", str(out))
    assert r.exit_code == 0, r.stderr
    results = json.loads(out.read_text())["results"]
    assert [x["name"] for x in results] == ["mul_256MB", "gemm_4096_bf16", "triton_add", "compiled_silu_mul"]
    assert all(x["counters"]["ok"] for x in results), [x["counters"]["error"] for x in results]
    assert all(x["measured_roofline"]["levels"] for x in results)
    assert plot.stat().st_size > 10_000
