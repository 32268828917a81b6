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
    assert {r.category for r in s.top.rows} == {"gemm", "activation"}
    assert s.device_us_per_step == pytest.approx(sum(r.total_us for r in s.top.rows))
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
    assert [s.category for s in doc.sites] == ["gemm", "activation"]
    assert doc.subject == "linear_silu" and doc.sites[0].launches_per_call == 1
