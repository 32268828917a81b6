"""inventory: the rows add up to the sum of kernel durations, on fixtures and on every real trace."""

from __future__ import annotations

import json
import math
from collections import Counter
from pathlib import Path

import pytest

from _raw_traces import raw_events
from bench_kernel.errors import TraceError, UsageError
from bench_kernel.trace import inventory, load_trace

DATA = Path(__file__).parent / "data" / "trace"
# eager.json: 1 prefill step (10x longer) and 2 decode steps of embedding + 3 x 4 layer kernels + lm_head.
DECODE_STEP_US = 1.5 + 3 * (2.0 + 5.0 + 7.0 + 1.0) + 4.0
TOTAL_US = 10 * DECODE_STEP_US + 2 * DECODE_STEP_US


def test_fixture_inventory_values():
    inv = inventory(load_trace(DATA / "eager.json"))
    assert inv.kernel_count == 42 and inv.total_kernel_us == pytest.approx(TOTAL_US)
    attn = inv.kernels[0]
    assert attn.name.startswith("void attn<") and attn.count == 9
    assert attn.total_us == pytest.approx(7.0 * 3 * (10 + 1 + 1))
    assert (attn.min_us, attn.max_us) == (7.0, 70.0) and attn.avg_us == pytest.approx(attn.total_us / 9)
    assert sum(r.pct for r in inv.kernels) == pytest.approx(100.0)
    assert [m.name for m in inv.memory_ops] == ["Memcpy DtoH (Device -> Pinned)"]
    assert inv.memory_ops[0].bytes == 4096  # memcpy is listed, not counted as a kernel


@pytest.mark.parametrize("by", ["category", "family"])
def test_grouped_inventories_sum_to_the_same_total(by):
    t = load_trace(DATA / "eager.json")
    inv = inventory(t, by=by)
    assert sum(r.total_us for r in inv.kernels) == pytest.approx(TOTAL_US)
    assert sum(r.count for r in inv.kernels) == 42


def test_top_keeps_the_rest_accounted():
    inv = inventory(load_trace(DATA / "eager.json"), top=2)
    assert len(inv.kernels) == 2 and inv.rest.count == 42 - 18
    assert sum(r.total_us for r in inv.kernels) + inv.rest.total_us == pytest.approx(TOTAL_US)


def test_per_step_divides_by_steps():
    inv = inventory(load_trace(DATA / "eager.json"), per_step=True)
    assert inv.steps == 3 and inv.outside_steps.count == 0
    assert inv.total_kernel_us == pytest.approx(TOTAL_US / 3)
    assert inv.kernels[0].count == pytest.approx(3.0)  # attention: 3 per step


def test_errors():
    t = load_trace(DATA / "eager.json")
    with pytest.raises(UsageError, match="--by 'op'"):
        inventory(t, by="op")
    with pytest.raises(UsageError, match="--top 0"):
        inventory(t, top=0)
    with pytest.raises(TraceError, match="no steps found"):
        inventory(load_trace(DATA / "ranks" / "trace_rank0.json"), per_step=True)


def test_no_kernels_is_a_clear_error(tmp_path):
    p = tmp_path / "t.json"
    p.write_text(json.dumps({"traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "ts": 1, "dur": 1}]}))
    with pytest.raises(TraceError, match=r"no kernel events \(cpu_op: 1\)"):
        inventory(load_trace(p))


REAL = ["b200__eager_trace", "h200__inductor_mlp_rmsnorm", "h200__llama_eager_generate",
        "mi300__resnet_act_checkpoint", "sglang_decode__sglang_Qwen3-8B_decode",
        "sglang_prefilldecode__sglang_Qwen3-8B_prefilldecode", "torch_compile_triton__trace",
        "vllm_decode_full__graph_capture", "vllm_decode_full__graph_execution",
        "vllm_prefilldecode_piecewise__graph_execution"]


@pytest.mark.parametrize("name", REAL)
def test_real_trace_totals_equal_the_sum_of_kernel_durations(traces_dir, name):
    path = traces_dir / f"{name}.json.gz"
    events = raw_events(path)
    kernels = [e for e in events if e.get("cat") == "kernel"]
    inv = inventory(load_trace(path, links=False))
    assert inv.kernel_count == len(kernels)
    assert math.isclose(inv.total_kernel_us, sum(e["dur"] for e in kernels), rel_tol=1e-12)
    assert math.isclose(sum(r.total_us for r in inv.kernels), inv.total_kernel_us, rel_tol=1e-12)


def test_rocm_trace_with_mangled_names(traces_dir):
    path = traces_dir / "mi300__resnet_act_checkpoint.json.gz"
    inv = inventory(load_trace(path, links=False))
    mangled = [r for r in inv.kernels if r.name.startswith("_Z")]
    raw = Counter(e["name"] for e in raw_events(path) if e.get("cat") == "kernel")
    assert len(mangled) == 5
    # each mangled name is counted as often as the raw trace has it, and shown demangled
    assert [r.count for r in mangled] == [raw[r.name] for r in mangled]
    assert not any(r.short.startswith("_Z") for r in mangled)
    assert inv.kernel_count == 2995
