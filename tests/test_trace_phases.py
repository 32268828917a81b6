"""phases: annotations first, then GEMM token counts, then kernel time; the phases add up."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench_kernel.kernels import decode
from bench_kernel.trace import load_trace, phases

DATA = Path(__file__).parent / "data" / "trace"
DECODE_STEP_US = 1.5 + 3 * (2.0 + 5.0 + 7.0 + 1.0) + 4.0


def _check_sums(rep) -> None:
    for s in rep.phases.values():
        assert sum(s.categories.values()) == pytest.approx(s.kernel_us)
    assert sum(s.kernel_us for s in rep.phases.values()) + rep.outside_steps.kernel_us == pytest.approx(rep.total_kernel_us)


def test_fixture_by_shapes():
    rep = phases(load_trace(DATA / "eager.json", shapes=True))
    assert rep.method == "shapes" and tuple(s.tokens for s in rep.steps) == (64, 2, 2)
    assert (rep.phases["prefill"].steps, rep.phases["decode"].steps) == (1, 2)
    assert rep.phases["prefill"].kernel_us == pytest.approx(10 * DECODE_STEP_US)
    assert rep.phases["decode"].kernel_us == pytest.approx(2 * DECODE_STEP_US)
    top = rep.phases["decode"].top_kernels[0]
    assert top.short == decode("void attn<{lambda()#1}, {lambda()#2}>(int)").short
    # the real categories, now that the decoder is merged: attention time is its own bucket
    assert rep.phases["decode"].categories["attention"] == pytest.approx(top.total_us)
    _check_sums(rep)


def test_fixture_by_kernel_time_without_shapes():
    rep = phases(load_trace(DATA / "eager.json"))  # shapes not loaded: falls back to the heuristic
    assert rep.method == "kernel_time" and "heuristic" in rep.notes[0]
    assert [s.phase for s in rep.steps] == ["prefill", "decode", "decode"]
    _check_sums(rep)


def test_same_token_count_everywhere_stays_unknown(tmp_path):
    doc = json.loads((DATA / "eager.json").read_text())
    for e in doc["traceEvents"]:
        if e.get("name") == "aten::linear":
            e["args"]["Input Dims"][0][0] = 8
    p = tmp_path / "t.json"
    p.write_text(json.dumps(doc))
    rep = phases(load_trace(p, shapes=True))
    assert rep.phases["unknown"].steps == 3 and "cannot be told apart" in rep.notes[0]
    _check_sums(rep)


def test_annotation_phase(tmp_path):
    rep = phases(load_trace(DATA / "graph.json.gz"))
    assert rep.method == "annotation" and rep.phases["decode"].steps == 1
    assert rep.steps[0].source == "vllm" and rep.steps[0].fields["decode_requests"] == "4"
    _check_sums(rep)


def test_h200_eager_generate_has_1_prefill_and_11_decode(traces_dir):
    rep = phases(load_trace(traces_dir / "h200__llama_eager_generate.json.gz", shapes=True))
    assert rep.method == "shapes"
    assert (rep.phases["prefill"].steps, rep.phases["decode"].steps) == (1, 11)
    assert tuple(s.tokens for s in rep.steps) == (1024,) + (2,) * 11  # batch 2 x 512 prompt tokens, then 2 per decode step
    _check_sums(rep)


@pytest.mark.parametrize("name,source,phase", [
    ("sglang_decode__sglang_Qwen3-8B_decode", "sglang", "decode"),
    ("sglang_prefilldecode__sglang_Qwen3-8B_prefilldecode", "sglang", "prefill"),
    ("vllm_decode_full__graph_execution", "vllm", "decode"),
    ("vllm_prefilldecode_piecewise__graph_execution", "vllm", "mixed"),  # 9 prefill + 37 decode requests
    ("b200__eager_trace", "vllm", "prefill"),
])
def test_engine_traces_get_steps_from_annotations(traces_dir, name, source, phase):
    rep = phases(load_trace(traces_dir / f"{name}.json.gz", shapes=True))
    assert rep.method == "annotation"
    assert {s.source for s in rep.steps} == {source} and {s.phase for s in rep.steps} == {phase}
    assert rep.phases[phase].kernel_count > 0
    _check_sums(rep)


def test_profiler_steps_of_a_training_trace(traces_dir):
    rep = phases(load_trace(traces_dir / "mi300__resnet_act_checkpoint.json.gz", shapes=True))
    assert [s.name for s in rep.steps] == ["ProfilerStep#15", "ProfilerStep#16", "ProfilerStep#17"]
    _check_sums(rep)


def test_h200_eager_categories_are_real(traces_dir):
    rep = phases(load_trace(traces_dir / "h200__llama_eager_generate.json.gz", shapes=True))
    dec = rep.phases["decode"].categories
    # decode at batch 2 is GEMV-bound: GEMMs lead, attention (cuDNN SDPA) is present
    assert max(dec, key=dec.get) == "gemm"
    assert dec["attention"] > 0 and "other" not in dec


def test_a_continuous_batching_engines_decode_steps_are_decode_whatever_their_batch():
    from bench_kernel.trace._phases import PHASE_GAP_RATIO, decode_ceiling

    # token counts per step of `transformers serve --continuous-batching` under 4 streams on an H200
    # (benchmarks/results/serve-h200.md): two prefills, then decode steps of 4 requests, the last of 3
    cb = [159, 395] + [4] * 62 + [3]
    top = decode_ceiling(cb)
    assert top == 4 and [t <= top for t in (159, 395, 4, 3)] == [False, False, True, True]
    assert decode_ceiling([1024] + [2] * 11) == 2  # one prefill of 2 x 512, eleven decodes of 2
    assert decode_ceiling([4, 4, 4]) is None and decode_ceiling([4, 5, 6, 7]) is None  # no gap: unknown
    assert decode_ceiling([10, int(10 * PHASE_GAP_RATIO)]) == 10
