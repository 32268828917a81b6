"""The client and the driver against the scripted server (tests/serve_scripted.py): values the
script fixes exactly (tokens, chunks, N_out, failures and their reasons, goodput membership) are
asserted exactly; times are asserted against the server's own timestamps and the script's delays.
No timing thresholds that a loaded machine could cross: delays are set far apart."""

from __future__ import annotations

import json
import math

import pytest

pytest.importorskip("aiohttp")
# the scripted server runs in a subprocess, started by the module fixture for whichever test comes first
pytestmark = pytest.mark.multiprocess

from bench_kernel.cli import main  # noqa: E402
from bench_kernel.serve import Endpoint, Load, Prompt, connect, load_dataset, run_point  # noqa: E402
from serve_scripted import start  # noqa: E402

SCENARIOS = {
    "fast": {"ttft_ms": 20, "itl_ms": 5, "tokens": 6},
    "slow": {"ttft_ms": 1200, "itl_ms": 5, "tokens": 6},
    "multi": {"tokens": 9, "per_chunk": [1, 3], "usage": "separate"},
    "cont": {"tokens": 7, "per_chunk": [2, 1], "usage": "continuous", "empty": [1]},
    "nodone": {"tokens": 4, "done": False},
    "reason": {"tokens": 5, "reasoning": 2, "ttft_ms": 10, "itl_ms": 50},
    "err": {"tokens": 6, "error_after": 2},
    "bad": {"tokens": 6, "malformed_after": 1},
    "hang": {"tokens": 6, "hang_after": 1},
    "five": {"status": 503},
    "eos": {"tokens": 3, "refuse": ["ignore_eos"]},
    "nousage": {"tokens": 5, "usage": "none", "per_chunk": [2]},
}


@pytest.fixture(scope="module")
def server():
    srv = start({"scenarios": SCENARIOS, "models": ["m1", "m2"]})
    yield srv
    srv.stop()


def _run(server, names, *, ignore_eos=False, load=None, goodput=None, timeout=3.0, endpoint="chat"):
    prompts = tuple(Prompt(f"{n} hello", 2, 64) for n in names)
    info = connect(server.url, "m1")
    ep = Endpoint(server.url, endpoint, "m1", ignore_eos=ignore_eos, request_timeout_s=timeout)
    return run_point(info, ep, prompts, load or Load(), num_prompts=len(prompts), goodput_ms=goodput)


def test_quirks_are_read_exactly(server):
    p = _run(server, ["multi", "cont", "nodone", "nousage"])
    multi, cont, nodone, nousage = p.records
    assert all(r.ok for r in p.records), [r.error for r in p.records]
    # 9 tokens as 1,3,1,3,1 per chunk, usage in a separate final chunk: counts unknown per chunk
    assert multi.n_out == 9 and multi.n_out_source == "usage" and len(multi.chunk_s) == 5
    assert multi.chunk_tokens == (None,) * 5 and multi.itl_ms is None and len(multi.icl_ms) == 4
    # continuous usage: 7 tokens as 2,1,2,1,1, the second chunk's text empty (a partial character)
    assert cont.chunk_tokens == (2, 1, 2, 1, 1) and cont.n_out == 7 and len(cont.itl_ms) == 6
    assert nodone.ok and nodone.n_out == 4 and nodone.chunk_tokens == (1, 1, 1, 1)
    # no usage anywhere and no tokenizer: N_out is the chunk count (a lower bound) and the run says so
    assert nousage.n_out_source == "chunks" and nousage.n_out == 3
    assert p.requests.fewer_chunks_than_tokens == 2 and p.requests.n_out_sources == {"usage": 3, "chunks": 1}
    assert any("lower bound" in str(n) for n in p.notes)
    assert p.requests.chunks == 5 + 5 + 4 + 3


def test_times_agree_with_the_servers_stamps_and_the_script(server):
    p = _run(server, ["fast", "slow", "reason"])
    fast, slow, reason = p.records
    # The script sleeps 1200 ms before the first token of "slow" and 20 ms for "fast": the client,
    # which sent before the server slept, can only measure more (never assert an upper bound here:
    # a loaded machine may delay the client by any amount).
    assert slow.ttft_ms >= 1200 and fast.ttft_ms >= 20 and fast.e2el_ms >= 20 + 5 * 5
    assert fast.ttft_ms < fast.e2el_ms and fast.tpot_ms == pytest.approx((fast.e2el_ms - fast.ttft_ms) / 5)
    # reasoning: TTFT at the first reasoning chunk; visible output at the third token chunk
    assert reason.first_visible_s == reason.chunk_s[2] and reason.ttfvo_ms >= reason.ttft_ms
    assert reason.output_text.startswith(" w0")


def test_goodput_counts_requests_that_meet_every_target(server):
    p = _run(server, ["fast", "slow", "fast", "slow", "fast"], goodput={"ttft_ms": 800.0})
    assert p.goodput.good_requests == 3
    assert p.goodput.requests_per_s == pytest.approx(3 / p.duration_s)


def test_every_failure_is_counted_with_its_reason(server):
    p = _run(server, ["err", "bad", "hang", "five", "fast"], timeout=1.5)
    err, bad, hang, five, fast = p.records
    assert err.error == "error in stream: scripted engine error"
    assert bad.error.startswith("malformed SSE data (not JSON)")
    assert hang.error == "timeout after 1.5 s (1 token chunks received)"
    assert five.error.startswith("HTTP 503: ")
    assert fast.ok
    assert (p.requests.completed, p.requests.failed) == (1, 4)
    assert p.requests.failures == {"error in stream": 1, "malformed SSE data (not JSON)": 1, "timeout": 1,
                                  "HTTP 503": 1}


def test_ignore_eos_refused_with_422_is_resent_without_it_once(server):
    p = _run(server, ["eos", "eos", "eos"], ignore_eos=True, load=Load(max_concurrency=1))
    assert all(r.ok for r in p.records)
    assert "HTTP 422 refusing ignore_eos: resent without" in p.records[0].notes
    assert p.records[1].notes == () and p.records[2].notes == ()  # learnt once for the run
    assert sum("refused ignore_eos" in str(n) for n in p.notes) == 1


def test_completions_endpoint_and_max_concurrency(server):
    p = _run(server, ["fast"] * 6, endpoint="completions", load=Load(max_concurrency=2))
    assert p.requests.completed == 6 and all(r.n_out == 6 for r in p.records)
    # never more than 2 in flight: at any send, fewer than 2 earlier requests were still open
    for r in p.records:
        open_ = [q for q in p.records if q.sent_s < r.sent_s and q.end_s > r.sent_s]
        assert len(open_) <= 1
    assert p.client.lateness_ms.n == 6


def test_request_rate_spaces_the_sends(server):
    p = _run(server, ["fast"] * 5, load=Load(request_rate=4.0))
    due = [r.scheduled_s for r in p.records]
    assert due[0] == 0.0 and all(b > a for a, b in zip(due, due[1:]))
    assert all(r.sent_s >= r.scheduled_s for r in p.records)


def test_model_the_server_does_not_serve_is_one_error(server):
    from bench_kernel.errors import ServerError

    with pytest.raises(ServerError, match="does not serve 'nope'; it serves: m1, m2"):
        connect(server.url, "nope")


def test_cli_json_has_the_stable_keys(server, tmp_path, capsys):
    data = tmp_path / "d.jsonl"
    data.write_text("\n".join(json.dumps({"prompt": f"{n} hi", "max_tokens": 8}) for n in ["fast", "slow", "five"]))
    rc = main(["serve", "--url", server.url, "--model", "m2", "--dataset-name", "jsonl", "--dataset-path", str(data),
               "--num-prompts", "3", "--goodput", "ttft:800", "tpot:100", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert rc == 0
    assert out["schema_version"] == 2 and out["server"]["model"] == "m2" and out["server"]["version"] == "scripted-1"
    for m in ("ttft_ms", "tpot_ms", "itl_ms", "icl_ms", "e2el_ms"):
        assert set(out["metrics"][m]) >= {"mean", "std", "p50", "p90", "p95", "p99"}
    assert set(out["throughput"]) >= {"requests_per_s", "output_tokens_per_s", "total_tokens_per_s"}
    assert out["requests"]["completed"] == 2 and out["requests"]["failed"] == 1
    assert len(out["requests"]["records"]) == 3 and out["goodput"]["good_requests"] == 1


def test_cli_sweep_returns_a_list_of_points(server, tmp_path, capsys):
    data = tmp_path / "d.jsonl"
    data.write_text("\n".join(json.dumps({"prompt": "fast x", "max_tokens": 4}) for _ in range(4)))
    rc = main(["serve", "--url", server.url, "--dataset-name", "jsonl", "--dataset-path", str(data), "--num-prompts",
               "4", "--max-concurrency", "1,4", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert rc == 0 and [p["load"]["max_concurrency"] for p in out["points"]] == [1, 4]
    assert all(p["requests"]["completed"] == 4 for p in out["points"]) and out["sweep"] == "list"


def test_auto_sweep_runs_synchronous_then_throughput_then_rates_between(server):
    from bench_kernel.serve import auto_sweep

    prompts = tuple(Prompt("fast x", 2, 6) for _ in range(6))
    info = connect(server.url, "m1")
    ep = Endpoint(server.url, "chat", "m1")
    notes: list[str] = []
    pts = auto_sweep(Load(), lambda ld: run_point(info, ep, prompts, ld, num_prompts=6), points=2, notes=notes)
    assert pts[0].load.max_concurrency == 1 and math.isinf(pts[0].load.rate_rps)
    assert pts[1].load.max_concurrency is None and math.isinf(pts[1].load.rate_rps)
    lo, hi = pts[0].throughput.requests_per_s, pts[1].throughput.requests_per_s
    assert hi > lo  # the scripted server serves requests concurrently
    rates = [p.load.request_rate for p in pts[2:]]
    assert rates and rates[0] == pytest.approx(lo + (hi - lo) / 3)
    assert all(r < hi for r in rates)


def test_random_dataset_prompts_reach_the_server(server):
    ds = load_dataset("random", 3, input_len=12, output_len=4, seed=5)
    info = connect(server.url, None)
    p = run_point(info, Endpoint(server.url, "chat", info.model), ds.prompts, Load(), num_prompts=3)
    assert p.requests.completed == 3 and all(r.n_out == 4 for r in p.records)


def test_tokenizer_counts_n_out_when_the_server_gives_no_usage(server):
    prompts = (Prompt("nousage hello", 2, 64),)
    info = connect(server.url, "m1")
    p = run_point(info, Endpoint(server.url, "chat", "m1"), prompts, Load(), num_prompts=1,
                  count_tokens=lambda text: len(text.split()))
    r = p.records[0]
    assert r.n_out == 5 and r.n_out_source == "tokenizer" and len(r.chunk_s) == 3
    assert any("client tokenizer" in str(n) for n in p.notes)


def test_duration_sends_for_that_long_and_accounts_for_every_request(server):
    prompts = (Prompt("fast a", 2, 6), Prompt("fast b", 2, 6))
    info = connect(server.url, "m1")
    p = run_point(info, Endpoint(server.url, "chat", "m1"), prompts, Load(request_rate=20.0, duration_s=1.0),
                  num_prompts=None)
    n = len(p.records)
    assert 5 <= n <= 40 and all(r.scheduled_s < 1.0 for r in p.records)
    assert p.requests.completed + p.requests.failed == n and [r.index for r in p.records] == list(range(n))


def test_warmup_requests_are_sent_first_and_left_out(server, capsys, tmp_path):
    data = tmp_path / "d.jsonl"
    data.write_text("\n".join(json.dumps({"prompt": "fast x", "max_tokens": 3}) for _ in range(3)))
    rc = main(["serve", "--url", server.url, "--dataset-name", "jsonl", "--dataset-path", str(data), "--num-prompts",
               "3", "--warmup", "2", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert rc == 0 and out["requests"]["warmup"] == {"completed": 2, "failed": 0}
    assert len(out["requests"]["records"]) == 3 and out["requests"]["completed"] == 3


def test_sharegpt_dataset_takes_the_first_two_turns(server, tmp_path):
    f = tmp_path / "sg.json"
    conv = [{"conversations": [{"from": "human", "value": "fast " + "word " * 20},
                               {"from": "gpt", "value": "x" * 40}]} for _ in range(3)]
    conv.append({"conversations": [{"from": "human", "value": "too short"}]})
    f.write_text(json.dumps(conv))
    ds = load_dataset("sharegpt", 3, path=f, seed=0)
    assert len(ds.prompts) == 3 and all(p.output_len == 10 and p.text.startswith("fast") for p in ds.prompts)
    assert any("characters / 4" in str(n) for n in ds.notes)
    info = connect(server.url, "m1")
    p = run_point(info, Endpoint(server.url, "chat", "m1"), ds.prompts, Load(), num_prompts=3)
    assert p.requests.completed == 3 and all(r.n_out == 6 for r in p.records)
