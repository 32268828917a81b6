"""The profile window's trace handling: one trace per rank once the export settles, and the kernel
view beside the serving metrics, on real traces (../shared/data, skipped when absent)."""

from __future__ import annotations

import gzip
import json
import time
from pathlib import Path

import pytest

from bench_kernel.errors import ServerError
from bench_kernel.serve import kernel_view, rank_of, wait_for_traces

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "traces"


def _gz(path: Path, events: int = 3) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(gzip.compress(json.dumps({"traceEvents": [{"ph": "X"}] * events}).encode()))
    return path


def test_rank_of_reads_every_engines_naming():
    assert rank_of(Path("prof/rank_3/host.pt.trace.json.gz")) == 3
    assert rank_of(Path("prof/rank1.1796.pt.trace.json.gz")) == 1
    assert rank_of(Path("prof/1712-TP-2.trace.json.gz")) == 2
    assert rank_of(Path("prof/trace.json")) == 0


def test_one_trace_per_rank_and_the_api_server_trace_left_out(tmp_path):
    since = time.time()
    _gz(tmp_path / "rank_0" / "a.pt.trace.json.gz")
    _gz(tmp_path / "rank_1" / "b.pt.trace.json.gz")
    _gz(tmp_path / "vm_12.async_llm.99.pt.trace.json.gz")
    got = wait_for_traces(tmp_path, since, timeout_s=20, settle_s=0.3)
    assert [p.parent.name for p in got] == ["rank_0", "rank_1"]


@pytest.mark.slow
def test_a_trace_still_being_written_is_waited_for_then_named(tmp_path):
    since = time.time()
    p = tmp_path / "rank0.1.pt.trace.json.gz"
    p.write_bytes(gzip.compress(b'{"traceEvents": []}')[:-6])  # the gzip member has not ended
    with pytest.raises(ServerError, match="still being written"):
        wait_for_traces(tmp_path, since, timeout_s=1.5, settle_s=0.2)
    with pytest.raises(ServerError, match="no trace appeared"):  # only older files: not this window's
        wait_for_traces(tmp_path, since + 60, timeout_s=0.5, settle_s=0.1)


@pytest.mark.skipif(not (DATA / "h200__llama_eager_generate.json.gz").exists(), reason="shared real traces absent")
def test_kernel_view_of_a_real_generate_trace_splits_prefill_and_decode():
    # H200, HF Llama generate: 1 prefill + 11 decode forward passes, told apart by the GEMM shapes
    v = kernel_view([DATA / "h200__llama_eager_generate.json.gz"])
    assert v.kernels == 4785 and v.phase_method == "shapes" and v.steps == {"prefill": 1, "decode": 11}
    assert v.decode_step_us > 0 and v.kernels_per_decode_step == 359 and v.kernels_per_prefill_step == 343
    assert len(v.top_decode) == 5 and v.top_decode[0].total_us >= v.top_decode[-1].total_us
    assert set(v.analyses) == {"inventory", "timeline", "layers", "phases"} and v.notes == ()


@pytest.mark.skipif(not (DATA / "sglang_prefilldecode__sglang_Qwen3-8B_prefilldecode.json.gz").exists(),
                    reason="shared real traces absent")
def test_an_analysis_that_does_not_apply_is_a_note_not_a_lost_view():
    v = kernel_view([DATA / "sglang_prefilldecode__sglang_Qwen3-8B_prefilldecode.json.gz"])
    assert v.kernels > 0 and v.steps == {"prefill": 1} and v.decode_step_us is None
    assert any(n.startswith("layers:") and "no decode steps" in str(n) for n in v.notes)
    assert "inventory" in v.analyses and "phases" in v.analyses
