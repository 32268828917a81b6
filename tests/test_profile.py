"""``bench-kernel profile`` on the CPU: the trace holds steps, shapes, stacks and module markers, and
the trace commands read it (the kernel-dependent parts are in tests/test_profile_gpu.py)."""

from __future__ import annotations

import gzip
import json
import textwrap

import pytest

from bench_kernel.gpu import has_gpu

pytest.importorskip("torch")

MODEL = textwrap.dedent('''
    import torch

    class Block(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.up = torch.nn.Linear(16, 32)
            self.down = torch.nn.Linear(32, 16)

        def forward(self, x):
            return self.down(torch.relu(self.up(x)))

    def cases():
        torch.manual_seed(0)
        model = torch.nn.Sequential(Block(), Block())
        return {"name": "two_blocks", "fn": model, "make_inputs": lambda: (torch.randn(4, 16),)}
''')


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    from bench_kernel.cli import main

    folder = tmp_path_factory.mktemp("profile")
    (folder / "model.py").write_text(MODEL)
    out = folder / "trace.json.gz"
    assert main(["profile", f"{folder}/model.py:cases", "--steps", "3", "-o", str(out), "--json"]) == 0
    return out


def test_the_trace_has_one_profiler_step_per_recorded_call(recorded):
    doc = json.loads(gzip.decompress(recorded.read_bytes()))
    steps = sorted(e["name"] for e in doc["traceEvents"] if e.get("cat") == "user_annotation"
                   and e["name"].startswith("ProfilerStep#"))
    # one warm-up call is run but not recorded: the recorded steps are #1..#3
    assert steps == ["ProfilerStep#1", "ProfilerStep#2", "ProfilerStep#3"]
    markers = {e["name"] for e in doc["traceEvents"] if e.get("cat") == "python_function"
               and e["name"].startswith("nn.Module: ")}
    assert {"nn.Module: Sequential_0", "nn.Module: Block_0", "nn.Module: Block_1", "nn.Module: Linear_0"} <= markers
    addmm = [e for e in doc["traceEvents"] if e.get("cat") == "cpu_op" and e["name"] == "aten::addmm"]
    assert len(addmm) == 4 * 3  # 4 Linear layers x 3 steps
    assert addmm[0]["args"]["Input Dims"][1:3] == [[4, 16], [16, 32]]  # bias, input, weight^T


def test_the_trace_commands_read_it(recorded):
    from bench_kernel.trace import find_steps, load_trace

    trace = load_trace(recorded, shapes=True, stacks=True)
    assert [s.name for s in find_steps(trace)] == ["ProfilerStep#1", "ProfilerStep#2", "ProfilerStep#3"]
    frames = {trace.names[n] for n in trace.python.name}
    assert any(f.endswith(": forward") and "model.py" in f for f in frames)


def test_kernel_commands_say_there_are_no_kernels_in_one_line(run_cli, recorded):
    r = run_cli("inventory", str(recorded))
    assert r.exit_code == 1 and r.stderr.startswith(f"bench-kernel: error: {recorded}: no kernel events (")
    r = run_cli("source-trace", "--trace", str(recorded), "--step", "0")
    assert (r.exit_code, r.stderr) == (1, f"bench-kernel: error: {recorded}: the trace holds no kernels\n")


def test_summary_without_a_gpu(recorded):
    from bench_kernel.orchestrate import summarize_profile

    s = summarize_profile(recorded)
    assert (s.steps, s.kernels_per_step, s.device_us_per_step, s.top) == (3, 0.0, 0.0, None)
    assert s.events > 100


@pytest.mark.skipif(has_gpu(), reason="the note of a machine without a GPU")
@pytest.mark.parametrize("fmt", [(), ("--json",)])
def test_without_a_gpu_profile_itself_says_that_the_trace_holds_no_kernels(run_cli, tmp_path, fmt):
    # Before: a table of 0 kernels, and the trace commands refused the trace later, one by one.
    from bench_kernel.cli.profile import NO_GPU_NOTE

    (tmp_path / "model.py").write_text(MODEL)
    r = run_cli("profile", f"{tmp_path}/model.py:cases", "--steps", "1", "-o", str(tmp_path / "t.json.gz"), *fmt)
    assert r.exit_code == 0
    # One line, not a table of 0 kernels with headers over nothing
    line = f"{tmp_path / 't.json.gz'}: 1 steps recorded: {NO_GPU_NOTE}"
    assert (r.stderr if fmt else r.stdout) == line + "\n"
    assert "inventory, timeline, layers, phases and diff" in NO_GPU_NOTE and "bench-kernel sample-trace" in NO_GPU_NOTE


def test_the_trace_says_what_it_recorded(recorded):
    doc = json.loads(gzip.decompress(recorded.read_bytes()))
    assert {k: doc.get(k) for k in ("record_shapes", "with_stack", "with_modules")} == {
        "record_shapes": 1, "with_stack": 1, "with_modules": 1}
    assert "distributedInfo" not in doc  # no process group here


def test_a_process_groups_rank_is_written_into_the_trace(tmp_path):
    import torch
    import torch.distributed as dist

    from bench_kernel.measure import record_trace

    if not dist.is_available() or not dist.is_gloo_available():
        pytest.skip("torch without gloo")
    dist.init_process_group("gloo", init_method=f"file://{tmp_path / 'store'}", rank=0, world_size=1)
    try:
        out = record_trace(lambda: torch.ones(3) + 1, tmp_path / "t.json", steps=2, warmup=0)
    finally:
        dist.destroy_process_group()
    doc = json.loads(out.read_text())
    assert {k: doc["distributedInfo"][k] for k in ("backend", "rank", "world_size")} == {
        "backend": "gloo", "rank": 0, "world_size": 1}
    steps = sorted(e["name"] for e in doc["traceEvents"] if e.get("cat") == "user_annotation")
    assert steps == ["ProfilerStep#0", "ProfilerStep#1"]


@pytest.mark.slow
@pytest.mark.multiprocess
def test_recording_imports_neither_inductor_nor_dynamo(tmp_path):
    # torch.profiler.profile's first session imports both to read one setting (1.8 s on a 2-core
    # CPU, 5.9 s on an H200); a fresh process shows whether the recording still does.
    import subprocess
    import sys

    code = ("import sys, torch\nfrom bench_kernel.measure import record_trace\n"
            f"record_trace(lambda: torch.ones(3) + 1, {str(tmp_path / 't.json.gz')!r}, steps=2)\n"
            "print(sorted(m for m in ('torch._inductor', 'torch._dynamo') if m in sys.modules))\n")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip() == "[]", (p.stdout, p.stderr)
    doc = json.loads(gzip.decompress((tmp_path / "t.json.gz").read_bytes()))
    assert sorted(e["name"] for e in doc["traceEvents"] if e.get("cat") == "user_annotation") == [
        "ProfilerStep#1", "ProfilerStep#2"]
