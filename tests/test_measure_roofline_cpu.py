"""``run --roofline``: counting what a case omits, the dtype from the ops that ran, a counting
failure that keeps the case, compiled code left compiled, results above the roof flagged (no GPU)."""

from __future__ import annotations

import json
import textwrap

import pytest
import torch
from _hardware_helpers import needs_no_gpu

from bench_kernel.measure import Case
from bench_kernel.orchestrate import count_work, infer_dtype


def test_dtype_is_the_param_else_the_ops_else_the_heaviest_floating_input():
    a, b = torch.zeros(10, dtype=torch.bfloat16), torch.zeros(100)
    assert infer_dtype(Case(fn=print), (a, [b])) == ("torch.float32", "inputs")
    assert infer_dtype(Case(fn=print), (a, [b]), counted="bf16") == ("bf16", "ops")
    assert infer_dtype(Case(fn=print, params={"dtype": "fp8"}), (a,), counted="bf16") == ("fp8", "params")
    assert infer_dtype(Case(fn=print), (torch.zeros(3, dtype=torch.int64),)) == ("fp32", "default")


def test_a_closure_gets_the_dtype_of_the_gemm_it_runs():
    # The H200 finding: `lambda: a @ b` in bf16 was judged against the fp32 roof (1188% of roof),
    # because a closure has no inputs to inspect. The counted ops say bf16.
    a, b = (torch.randn(64, 32, dtype=torch.bfloat16), torch.randn(32, 16, dtype=torch.bfloat16))
    work = count_work(Case(fn=lambda: a @ b, flops=2.0 * 64 * 32 * 16, bytes=2.0 * (64 * 32 + 32 * 16 + 64 * 16)), None)
    assert (work.dtype, work.dtype_source) == ("bf16", "ops")
    assert (work.case.flops, work.flops_source) == (2.0 * 64 * 32 * 16, "given")
    assert any(n.text.startswith("FLOPs counted: 6.554e+04 (bench-kernel: aten::mm)") and n.kind == "info"
               for n in work.notes)


def test_missing_counts_are_counted_and_given_ones_kept():
    m, k, n = 32, 64, 16
    inputs = (torch.randn(m, k), torch.randn(k, n))
    work = count_work(Case(fn=torch.matmul), inputs)
    assert work.case.flops == 2 * m * n * k and work.flops_source == "counted"
    assert work.case.bytes == 4 * (m * k + k * n + m * n) and work.bytes_source == "counted"
    assert work.dtype == "fp32" and work.counts.ops[0].op == "aten::mm"
    kept = count_work(Case(fn=torch.matmul, flops=1.0, bytes=2.0), inputs)
    assert (kept.case.flops, kept.case.bytes) == (1.0, 2.0)
    assert "the case states 1 FLOPs; its ops count 6.554e+04" in [n.text for n in kept.notes if n.kind == "warning"]


def test_causal_attention_is_counted_as_half_and_the_note_says_so():
    q = torch.randn(1, 4, 64, 32)
    work = count_work(Case(fn=lambda: torch.nn.functional.scaled_dot_product_attention(q, q, q, is_causal=True)),
                      None)
    assert work.case.flops == 4 * 4 * 64 * 64 * 32 / 2
    assert work.causal
    assert any("causal: counted as half the (query, key) pairs" in n.text for n in work.notes)


FRAGILE = """
import torch
from torch.utils._python_dispatch import _get_current_dispatch_mode

def fragile(x):
    if _get_current_dispatch_mode() is not None:  # what a counting pass looks like from inside
        raise AssertionError("sdpa_flop_count: query/key/value shapes are incompatible")
    return x * 2

def cases():
    return {"name": "fragile", "fn": fragile, "bytes": 8.0e3, "make_inputs": lambda: (torch.randn(1000),)}
"""


def test_a_counting_failure_keeps_the_timed_case(run_cli, tmp_path):
    # The H200 finding: torch's counter raised on a GQA attention and the whole case was lost.
    t = tmp_path / "t.py"
    t.write_text(FRAGILE)
    r = run_cli("run", f"{t}:cases", "--roofline", "--device", "H200", "--json", "-m", "host", "--max-time", "0.05")
    assert r.exit_code == 0, r.stderr
    [res] = json.loads(r.stdout)["results"]
    assert res["time_us"] > 0 and res["roofline"]["bytes"] == 8.0e3
    assert any(n["text"].startswith("counting failed, FLOPs/bytes not counted (the case was timed anyway): "
                            "case 'fragile' raised AssertionError during counting: sdpa_flop_count")
               for n in res["notes"])


@pytest.mark.slow
def test_counting_leaves_a_compiled_function_compiled():
    # A dispatch mode around a torch.compile'd function makes Dynamo fall back to eager for good
    # (seen on an H200: the fused Inductor kernel became eager gelu + mul, +10.6%). Counting runs
    # the eager twin; the compiled graph must keep running afterwards.
    from bench_kernel.roofline import count

    graph_calls = []

    def backend(gm, example_inputs):
        def run(*args):
            graph_calls.append(1)
            return gm.forward(*args)
        return run

    torch._dynamo.reset()
    f = torch.compile(lambda x, w: torch.nn.functional.gelu(x @ w) * 2, backend=backend)
    x, w = torch.randn(16, 16), torch.randn(16, 16)
    f(x, w)
    assert len(graph_calls) == 1
    counted = count(f, x, w)
    assert counted.flops == 2 * 16**3 + 2 * 16 * 16  # mm, then gelu and mul: 1 FLOP per element each
    assert len(graph_calls) == 1  # the eager twin ran, not the graph
    f(x, w)
    f(x, w)
    assert len(graph_calls) == 3  # still compiled


def test_a_result_above_its_roof_is_marked_and_explained(run_cli, tmp_path):
    t = tmp_path / "t.py"
    t.write_text(textwrap.dedent("""
        import torch
        a, b = torch.randn(32, 32, dtype=torch.bfloat16), torch.randn(32, 32, dtype=torch.bfloat16)
        def cases():
            return {"name": "overstated", "fn": lambda: a @ b, "flops": 1.0e15}
    """))
    r = run_cli("run", f"{t}:cases", "--roofline", "--device", "H200", "--md", "-m", "host", "--max-time", "0.05")
    assert r.exit_code == 0, r.stderr
    row = next(line for line in r.stdout.splitlines() if line.startswith("| overstated"))
    assert row.rstrip(" |").endswith("compute") and "% (!)" in row
    note = next(line for line in r.stdout.splitlines() if "above the roof" in line)
    assert "(!) above the roof:" in note and "% of the bf16 spec roof (compute-bound)" in note
    assert "FLOPs over-counted: the case states them" in note
    assert "roof too low for this SKU/clock: the peak table gives H200 989.4 TFLOP/s bf16, 4.8 TB/s" in note


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


def test_a_result_timed_by_graph_alone_is_placed_without_a_launch_floor():
    # Seen on the H200: methods=("graph", "kernel") left events out, and every such case got
    # "roofline: events_us and graph_us go together" instead of a placement.
    from bench_kernel.hardware import get_device
    from bench_kernel.orchestrate import CaseWork, place
    from bench_kernel.records import BenchResult, Measurement, Samples

    graph = Measurement.of("graph", Samples.of([100.0, 101.0, 99.0]))
    result = BenchResult(name="mm", measurements={"graph": graph}, flops=2e11, bytes=1e8)
    case = Case(fn=torch.matmul, flops=2e11, bytes=1e8)
    placed = place(result, get_device("H200"), CaseWork(case, "bf16", "params", "case", "case"))
    assert placed.roofline is not None and not any(n.text.startswith("roofline:") for n in placed.notes)
    assert placed.roofline.time_us == 100.0 and placed.roofline.launch_us is None
