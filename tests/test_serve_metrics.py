"""The serving metrics' arithmetic and the SSE reader, on events and records built by hand: every
expected value is worked out in the test from the definitions in docs/serving.md."""

from __future__ import annotations

import inspect
import json
import math

import numpy as np
import pytest

from bench_kernel.errors import UsageError
from bench_kernel.serve import (
    Load,
    RequestRecord,
    SSEDecoder,
    StreamError,
    StreamState,
    arrivals,
    load_dataset,
    parse_goodput,
    range_bounds,
    serve_metrics,
    stats,
)


def _events(*objs, sep=b"\n\n"):
    return b"".join(b"data: " + (o if isinstance(o, bytes) else json.dumps(o).encode()) + sep for o in objs)


def _chat(content=None, role=None, finish=None, usage=None, reasoning=None):
    delta = {}
    if role:
        delta["role"] = role
    if content is not None:
        delta["content"] = content
    if reasoning is not None:
        delta["reasoning_content"] = reasoning
    out = {"choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
    if usage is not None:
        out["usage"] = usage
    return out


def _feed(raw: bytes, pieces: int = 1, t0: float = 0.0, dt: float = 0.0) -> StreamState:
    st, dec = StreamState(), SSEDecoder()
    step = max(1, len(raw) // pieces)
    for i, start in enumerate(range(0, len(raw), step)):
        for kind, data in dec.feed(raw[start:start + step]):
            st.event(kind, data, t0 + i * dt)
    for kind, data in dec.close():
        st.event(kind, data, t0 + pieces * dt)
    return st


def test_role_chunk_is_not_a_token_and_usage_on_finish_chunk_counts_without_done():
    # transformers serve: role chunk first, usage on the finish chunk, no [DONE].
    raw = _events(_chat(role="assistant"), _chat("a"), _chat("b"),
                  _chat(finish="length", usage={"prompt_tokens": 5, "completion_tokens": 2}))
    st, dec = StreamState(), SSEDecoder()
    for t, line in enumerate(raw.split(b"\n\n")[:-1]):
        for kind, data in dec.feed(line + b"\n\n"):
            st.event(kind, data, float(t))
    c = st.result()
    assert c.chunk_s == (1.0, 2.0)  # not 0.0: the role chunk carried no token
    assert c.chunk_tokens == (1, 1) and c.usage_out == 2 and c.usage_in == 5
    assert c.empty_chunks == 2 and not c.continuous_usage and st.finish_reason == "length" and not st.done


def test_continuous_usage_counts_tokens_per_chunk_including_an_empty_delta():
    # vLLM with continuous_usage_stats: 2 tokens in one chunk, then a token that ends inside a UTF-8
    # character (empty content), then the separate usage chunk with choices: [] and [DONE].
    u = lambda n: {"prompt_tokens": 3, "completion_tokens": n}  # noqa: E731
    raw = (_events(_chat("", role="assistant", usage=u(0))) + _events(_chat("ab", usage=u(2)))
           + _events(_chat("", usage=u(3))) + _events(_chat("c", usage=u(4), finish="stop"))
           + _events({"choices": [], "usage": u(4)}) + b"data: [DONE]\n\n")
    st, dec = StreamState(), SSEDecoder()
    for t, part in enumerate(raw.split(b"\n\n")[:-1]):
        for kind, data in dec.feed(part + b"\n\n"):
            st.event(kind, data, float(t))
    c = st.result()
    assert c.continuous_usage and st.done
    assert c.chunk_s == (1.0, 2.0, 3.0) and c.chunk_tokens == (2, 1, 1) and c.usage_out == 4


def test_fewer_chunks_than_tokens_without_counts_leaves_them_unknown():
    raw = _events(_chat("ab"), _chat("c"), _chat(finish="stop", usage={"prompt_tokens": 1, "completion_tokens": 3}))
    c = _feed(raw).result()
    assert len(c.chunk_s) == 2 and c.chunk_tokens == (None, None) and c.usage_out == 3


def test_reasoning_counts_for_ttft_but_not_for_visible_output():
    raw = _events(_chat(reasoning="think"), _chat(reasoning="more"), _chat("answer"), _chat(finish="stop"))
    st, dec = StreamState(), SSEDecoder()
    for t, part in enumerate(raw.split(b"\n\n")[:-1]):
        for kind, data in dec.feed(part + b"\n\n"):
            st.event(kind, data, float(t))
    c = st.result()
    assert c.chunk_s[0] == 0.0 and c.first_visible_s == 2.0


@pytest.mark.parametrize("eol", [b"\n", b"\r\n", b"\r"])
@pytest.mark.parametrize("pieces", [1, 3, 37])
def test_decoder_splits_lines_anywhere_and_every_line_ending(eol, pieces):
    raw = (b": keep-alive" + eol + b"event: message" + eol + b"data: " + json.dumps(_chat("x")).encode() + eol + eol
           + b"id: 7" + eol + b"data: " + json.dumps(_chat("y", finish="stop")).encode() + eol + eol)
    c = _feed(raw, pieces=pieces, dt=1.0).result()
    assert [t for t in c.chunk_s] == sorted(c.chunk_s) and len(c.chunk_s) == 2 and c.text == "xy"


def test_an_event_without_its_blank_line_still_counts_at_end_of_stream():
    raw = b"data: " + json.dumps(_chat("z", finish="stop")).encode()
    st = _feed(raw)
    assert st.result().text == "z" and st.finish_reason == "stop"


@pytest.mark.parametrize("raw,fragment", [
    (_events({"error": {"message": "engine died", "code": 500}}), "error in stream: engine died"),
    (_events({"object": "error", "message": "bad"}), "error in stream: bad"),
    (b"event: error\ndata: {\"message\": \"x\"}\n\n", "error in stream"),
    (b"data: {not json\n\n", "malformed SSE data"),
    (b"data: [1, 2]\n\n", "expected a JSON object"),
])
def test_errors_inside_a_200_stream_and_malformed_data_raise(raw, fragment):
    with pytest.raises(StreamError, match=fragment.replace("[", r"\[")):
        _feed(_events(_chat("a")) + raw)


def _rec(i, sent, chunks, tokens, n_out, **kw):
    return RequestRecord(i, "ok", None, sent, sent, sent, chunks[-1], tuple(chunks), tuple(tokens), chunks[0],
                         n_out, "usage", 10, "usage", **kw)


def test_metrics_by_definition_on_hand_made_records():
    # r0: sent 0.0, chunks at 0.1 (1 tok), 0.13 (2 tok), 0.16 (1 tok): N_out 4
    # r1: sent 0.05, chunks at 0.25 (1), 0.30 (1): N_out 2
    r0 = _rec(0, 0.0, [0.1, 0.13, 0.16], [1, 2, 1], 4)
    r1 = _rec(1, 0.05, [0.25, 0.30], [1, 1], 2)
    fail = RequestRecord(2, "failed", "HTTP 500: boom", 0.1, 0.1, 0.1, 0.2)
    m = serve_metrics([r0, r1, fail], duration_s=2.0, goodput_ms={"ttft_ms": 150.0, "tpot_ms": 25.0})
    assert m.requests.completed == 2 and m.requests.failed == 1 and m.requests.failures == {"HTTP 500": 1}
    assert m.metrics["ttft_ms"].mean == pytest.approx((100 + 200) / 2)
    # TPOT = (E2E - TTFT) / (N_out - 1): r0 (160 - 100) / 3 = 20, r1 (250 - 200) / 1 = 50
    assert r0.tpot_ms == pytest.approx(20.0) and r1.tpot_ms == pytest.approx(50.0)
    # ITL splits each gap over its chunk's tokens: r0 [15, 15, 30], r1 [50]; the mean per request is TPOT
    assert r0.itl_ms == pytest.approx((15.0, 15.0, 30.0)) and np.mean(r0.itl_ms) == pytest.approx(r0.tpot_ms)
    assert m.metrics["itl_ms"].n == 4 and m.metrics["itl_ms"].p50 == pytest.approx(22.5)
    assert m.metrics["icl_ms"].n == 3 and sorted(r0.icl_ms) == pytest.approx([30.0, 30.0])
    assert m.metrics["e2el_ms"].p50 == pytest.approx((160 + 250) / 2)
    assert m.throughput.requests_per_s == pytest.approx(1.0) and m.throughput.output_tokens_per_s == pytest.approx(3.0)
    assert m.throughput.total_tokens_per_s == pytest.approx((20 + 6) / 2)
    assert m.throughput.mean_concurrency == pytest.approx((0.16 + 0.25) / 2.0)
    assert m.throughput.peak_output_tokens_per_s == 6.0  # every token arrived in the first second
    # goodput: r0 meets ttft 100 <= 150 and tpot 20 <= 25; r1 misses both
    assert m.goodput.good_requests == 1 and m.goodput.requests_per_s == pytest.approx(0.5)
    assert m.requests.chunks == 5 and m.requests.fewer_chunks_than_tokens == 1


def test_first_chunk_with_several_tokens_gives_zero_itl_for_the_extra_ones():
    r = _rec(0, 0.0, [0.1, 0.2], [3, 1], 4)
    assert r.itl_ms == pytest.approx((0.0, 0.0, 100.0)) and r.tpot_ms == pytest.approx(100 / 3)


def test_unknown_chunk_counts_are_left_out_of_itl_and_said():
    r = RequestRecord(0, "ok", None, 0, 0, 0, 0.3, (0.1, 0.3), (None, None), 0.1, 4, "usage", 1, "usage")
    m = serve_metrics([r], 1.0)
    assert r.itl_ms is None and m.metrics["itl_ms"].n == 0 and m.metrics["icl_ms"].n == 1
    assert any("fewer chunks than tokens" in str(n) for n in m.notes)


def test_statistics_are_numpys_linear_percentiles_and_population_std():
    xs = [1.0, 2.0, 3.0, 4.0, 10.0]
    s = stats(xs)
    assert s.p50 == 3.0 and s.p90 == pytest.approx(4 + 0.6 * 6) and s.p99 == pytest.approx(4 + 0.96 * 6)
    assert s.std == pytest.approx(float(np.std(xs))) and s.n == 5
    assert stats([]).mean is None and stats([]).n == 0


def test_client_lateness_and_loop_lag_flag_a_client_bound_run():
    r = RequestRecord(0, "ok", None, 0.0, 0.0, 0.020, 0.1, (0.05, 0.1), (1, 1), 0.05, 2, "usage", 1, "usage")
    m = serve_metrics([r], 1.0, loop_lag_ms=[0.5, 0.6, 0.7])
    assert m.client.lateness_ms.p99 == pytest.approx(20.0) and m.client.client_bound
    ok = RequestRecord(0, "ok", None, 0.0, 0.0, 0.0001, 0.1, (0.05, 0.1), (1, 1), 0.05, 2, "usage", 1, "usage")
    assert not serve_metrics([ok], 1.0, loop_lag_ms=[0.5]).client.client_bound


def test_goodput_parsing_names_and_errors():
    assert parse_goodput(["ttft:200", "tpot:50", "e2el:5000"]) == {"ttft_ms": 200, "tpot_ms": 50, "e2el_ms": 5000}
    for bad in ("ttft", "itl:5", "ttft:x", "ttft:-1", "ttft:inf"):
        with pytest.raises(UsageError):
            parse_goodput([bad])


def test_random_range_ratio_is_vllms_convention_and_seeded():
    assert range_bounds(100, 0.5) == (50, 150) and range_bounds(100, 0.0) == (100, 100)
    a = load_dataset("random", 50, input_len=100, output_len=10, range_ratio=0.5, seed=3)
    b = load_dataset("random", 50, input_len=100, output_len=10, range_ratio=0.5, seed=3)
    assert a == b and {p.input_len for p in a.prompts} <= set(range(50, 151))
    assert min(p.input_len for p in a.prompts) < 80 and max(p.input_len for p in a.prompts) > 120
    # ATOM/SGLang's [L*r, L] is L' = L(1+r)/2 with r' = (1-r)/(1+r) here: [0.5L, L] for r=0.5
    lo, hi = range_bounds(int(100 * 1.5 / 2), 0.5 / 1.5)
    assert (lo, hi) == (50, 100)
    assert all(len(p.text.split()) == p.input_len for p in a.prompts)
    with pytest.raises(UsageError):
        load_dataset("random", 5, range_ratio=1.0)


def test_arrivals_are_gamma_with_the_asked_mean_and_inf_sends_at_once():
    it = arrivals(Load(request_rate=10.0, burstiness=1.0), seed=1)
    ts = [next(it) for _ in range(4001)]
    gaps = np.diff(ts)
    assert ts[0] == 0.0 and gaps.mean() == pytest.approx(0.1, rel=0.05)
    assert np.std(gaps) == pytest.approx(0.1, rel=0.1)  # exponential: std = mean
    regular = np.diff([x for x, _ in zip(arrivals(Load(request_rate=10.0, burstiness=100.0), seed=1), range(2000))])
    assert np.std(regular) < 0.02  # gamma shape 100: std = mean / 10
    inf = arrivals(Load())
    assert [next(inf) for _ in range(3)] == [0.0, 0.0, 0.0]
    with pytest.raises(UsageError):
        Load(request_rate=math.inf, duration_s=5.0)


def test_documented_defaults_match_the_signatures():
    from bench_kernel.serve import ServeOptions

    sig = inspect.signature(ServeOptions)
    assert sig.parameters["random_range_ratio"].default == 0.0
    assert sig.parameters["request_timeout_s"].default == 300.0
    assert sig.parameters["slo_ratio"].default == 0.9
    assert inspect.signature(load_dataset).parameters["seed"].default == 0
