"""``bench-kernel profile`` on a GPU: every trace command reads what it writes."""

from __future__ import annotations

from pathlib import Path

import pytest

pytestmark = pytest.mark.gpu
ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    from bench_kernel.cli import main

    out = tmp_path_factory.mktemp("profile_gpu") / "linear_silu.json.gz"
    assert main(["profile", f"{ROOT}/examples/torch_ops.py:cases", "--case", "linear_silu", "--steps", "4",
                 "-o", str(out)]) == 0
    return out


def test_summary_counts_the_kernels_of_each_step(recorded):
    from bench_kernel.orchestrate import summarize_profile

    s = summarize_profile(recorded)
    assert s.steps == 4 and s.kernels_per_step == 2  # the GEMM and the SiLU
    assert {r.category for r in s.top.kernels} == {"gemm", "activation"}
    assert s.device_us_per_step == pytest.approx(sum(r.total_us for r in s.top.kernels))
    # the timeline's verdict on the recording: eager single-op steps are launch/host-bound or busy
    assert s.diagnosis and "GPU busy" in s.diagnosis


@pytest.mark.parametrize("command,expect", [
    (["inventory", "--per-step", "{t}"], "2 kernels"),
    (["phases", "{t}"], "│ unknown       │     4 │"),  # 4 steps of one shape: not told apart, all counted
    (["source-trace", "--step", "0", "--trace", "{t}"], "## Path 2: `silu` (activation)"),
    (["timeline", "{t}"], "GPU busy"),
])
def test_every_trace_command_reads_it(run_cli, recorded, command, expect):
    r = run_cli(*[a.format(t=recorded) for a in command])
    assert r.exit_code == 0, r.stderr
    assert expect in r.stdout


def test_source_trace_of_the_recorded_step(recorded):
    from bench_kernel.source_trace import document_trace

    doc = document_trace(recorded, step=0, root=ROOT)
    assert [s.category for s in doc.kernels] == ["gemm", "activation"]
    assert doc.subject == "linear_silu" and doc.kernels[0].launches_per_call == 1


def test_the_memory_probe_records_no_kernel_into_the_trace(tmp_path):
    # Above 16 steps, two dropped recordings (2 and 6 steps) measure what a step costs:
    # with CUDA activities on, none of their kernels may reach the trace, and each step holds one add.
    import gzip
    import json

    from bench_kernel.cli import main

    target = tmp_path / "add.py"
    target.write_text("import torch\na = torch.ones(1 << 20, device='cuda')\n"
                      "def one():\n    return lambda: a.add_(1)\n")
    out = tmp_path / "t.json.gz"
    assert main(["profile", f"{target}:one", "--steps", "20", "--warmup", "0", "-o", str(out)]) == 0
    events = json.loads(gzip.decompress(out.read_bytes()))["traceEvents"]
    # Kineto writes each step twice on a GPU: the CPU range (user_annotation) and its span on the
    # stream (gpu_user_annotation); torch 2.11 on the H200 wrote 40 events for 20 steps.
    steps = [e for e in events if e.get("name", "").startswith("ProfilerStep#") and e.get("cat") == "user_annotation"]
    kernels = [e for e in events if e.get("cat") == "kernel"]
    assert len(steps) == len({e["name"] for e in steps}) == 20 and len(kernels) == 20
