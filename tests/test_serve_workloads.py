"""The serving features beyond one prompt at a time, against the scripted server
(tests/serve_scripted.py), which counts what it served on a vLLM-style /metrics: the server's view
beside the client's, shared prefixes, conversations turn by turn, a trace replayed at its times,
ramp-up, repeats and their verdicts, textless requests, slices, warm-up, and the options record."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from msgspec import UNSET

pytest.importorskip("aiohttp")

from bench_kernel.cli import main  # noqa: E402
from bench_kernel.errors import UsageError  # noqa: E402
from bench_kernel.serve import Load, ServeOptions, arrivals, benchmark, compare_serve, load_dataset, verdict  # noqa: E402
from serve_scripted import start  # noqa: E402

SCENARIOS = {"notext": {"tokens": 4, "empty": [0, 1, 2, 3]}, "slowfirst": {"ttft_ms": 300, "tokens": 2}}


@pytest.fixture(scope="module")
def server():
    srv = start({"default": {"tokens": 6, "itl_ms": 2}, "scenarios": SCENARIOS, "models": ["m"], "metrics": True})
    yield srv
    srv.stop()


def _run(server, **kw):
    return benchmark(ServeOptions(url=server.url, random_input_len=8, random_output_len=6, **kw))


@pytest.mark.multiprocess
def test_server_metrics_are_scraped_and_agree_with_what_the_client_counted(server):
    run = _run(server, num_prompts=12, max_concurrencies=(3,), warmup=0)
    p = run.all_points[0]
    assert p.server_metrics is not None and p.server_metrics.scrapes >= 2
    rows = {r.row: r for r in p.server_metrics.view}
    # the scripted server counts exactly what it streamed: the deltas over the point are the client's counts
    assert rows["output_tokens"].server["delta"] == p.requests.output_tokens == 12 * 6
    assert rows["requests"].server["delta"] == 12 == rows["requests"].client["delta"]
    assert rows["input_tokens"].server["delta"] == p.requests.input_tokens
    fam = p.server_metrics.families["vllm:num_requests_running"]
    assert fam["type"] == "gauge" and fam["series"][0]["max"] <= 3
    d = p.to_dict()
    assert d["server_metrics"]["families"]["vllm:generation_tokens_total"]["series"][0]["delta"] == 72
    assert "vllm:prompt_tokens_created" not in d["server_metrics"]["families"]


@pytest.mark.multiprocess
def test_no_server_metrics_turns_the_scrape_off_and_a_server_without_them_says_so(server):
    off = _run(server, num_prompts=2, warmup=0, server_metrics=False)
    assert off.all_points[0].server_metrics is UNSET and not any(n.code == "no-server-metrics" for n in off.notes)
    bare = start({"models": ["m"]})
    try:
        run = benchmark(ServeOptions(url=bare.url, num_prompts=2, random_input_len=4, warmup=0))
    finally:
        bare.stop()
    note = next(n for n in run.notes if n.code == "no-server-metrics")
    assert note.kind == "info" and "answered HTTP 404" in note.text and run.all_points[0].server_metrics is UNSET


@pytest.mark.multiprocess
def test_prefix_repetition_deals_prefixes_evenly_and_the_point_splits_first_from_later(server):
    ds = load_dataset("prefix_repetition", 10, prefix_len=6, suffix_len=3, num_prefixes=3, prefix_output_len=4, seed=1)
    assert sorted(p.group for p in ds.prompts) == [0, 0, 0, 0, 1, 1, 1, 2, 2, 2]
    by = {}
    for p in ds.prompts:
        by.setdefault(p.group, set()).add(" ".join(p.text.split()[:6]))
    assert all(len(v) == 1 for v in by.values()) and len({next(iter(v)) for v in by.values()}) == 3
    assert len({p.text for p in ds.prompts}) == 10  # each suffix its own
    run = _run(server, dataset_name="prefix_repetition", num_prompts=10, prefix_repetition_prefix_len=6,
               prefix_repetition_suffix_len=3, prefix_repetition_num_prefixes=3, warmup=0)
    g = run.all_points[0].prefix_groups
    assert (g.groups, g.first_n, g.rest_n) == (3, 3, 7)
    with pytest.raises(UsageError, match="more than --num-prompts"):
        load_dataset("prefix_repetition", 2, num_prefixes=3)


@pytest.mark.multiprocess
def test_multi_turn_sends_each_turn_with_the_servers_answers(server, tmp_path):
    conv = [{"conversations": [{"from": "human", "value": "hello there"}, {"from": "gpt", "value": "a b c d e f"},
                               {"from": "human", "value": "and then"}, {"from": "gpt", "value": "g h i j"},
                               {"from": "human", "value": "last one"}, {"from": "gpt", "value": "k l"}]}] * 2
    path = tmp_path / "sg.json"
    path.write_text(json.dumps(conv))
    run = _run(server, dataset_name="sharegpt", dataset_path=path, multi_turn=True, num_prompts=2,
               sharegpt_output_len=3, warmup=0)
    p = run.all_points[0]
    assert len(p.records) == 6 and all(r.ok for r in p.records)
    assert sorted((r.group, r.turn) for r in p.records) == [(0, 0), (0, 1), (0, 2), (1, 0), (1, 1), (1, 2)]
    turns = {t.turn: t for t in p.turns}
    # each turn carries the history: more prompt tokens (the scripted server counts words) turn by turn
    assert turns[0].input_tokens_mean < turns[1].input_tokens_mean < turns[2].input_tokens_mean
    with pytest.raises(UsageError, match="needs --dataset-name sharegpt"):
        ServeOptions(url="http://x", multi_turn=True)


@pytest.mark.multiprocess
def test_a_mooncake_trace_is_sent_at_its_recorded_times_with_its_shared_blocks(server, tmp_path):
    lines = [{"timestamp": 0, "input_length": 600, "output_length": 3, "hash_ids": [7, 8]},
             {"timestamp": 400, "input_length": 520, "output_length": 3, "hash_ids": [7, 9]},
             {"timestamp": 900, "input_length": 100, "output_length": 3, "hash_ids": [5]}]
    path = tmp_path / "trace.jsonl"
    path.write_text("\n".join(json.dumps(x) for x in lines))
    ds = load_dataset("mooncake", 100, path=path, seed=0)
    a, b, c = ds.prompts
    assert [p.due_s for p in ds.prompts] == [0.0, 0.4, 0.9]
    assert a.text.split()[:512] == b.text.split()[:512] and len(a.text.split()) == 600 and len(b.text.split()) == 520
    assert len(c.text.split()) == 100
    run = _run(server, dataset_name="mooncake", dataset_path=path, warmup=0)
    recs = sorted(run.all_points[0].records, key=lambda r: r.index)
    assert len(recs) == 3 and [r.scheduled_s for r in recs] == [0.0, 0.4, 0.9]
    assert all(r.sent_s >= r.scheduled_s for r in recs)
    with pytest.raises(UsageError, match="leave --request-rate out"):
        ServeOptions(url="http://x", dataset_name="mooncake", dataset_path=path, request_rates=(5.0,))


def test_ramp_up_follows_vllms_rate_per_request():
    load = Load(ramp_up_strategy="exponential", ramp_up_start_rps=2, ramp_up_end_rps=50)
    assert load.rate_at(0, 11) == pytest.approx(2) and load.rate_at(10, 11) == pytest.approx(50)
    assert load.rate_at(5, 11) == pytest.approx(10)  # 2 * 25 ** 0.5
    lin = Load(ramp_up_strategy="linear", ramp_up_start_rps=1, ramp_up_end_rps=9)
    assert lin.rate_at(4, 9) == pytest.approx(5)
    gaps = np.diff([t for t, _ in zip(arrivals(lin, 0, 4000), range(4000))])
    # each gap is drawn at the rate of the request it leads to
    head = np.mean([1 / lin.rate_at(i, 4000) for i in range(1, 401)])
    tail = np.mean([1 / lin.rate_at(i, 4000) for i in range(3600, 4000)])
    assert gaps[:400].mean() == pytest.approx(head, rel=0.15) and gaps[-400:].mean() == pytest.approx(tail, rel=0.15)
    for kw, frag in ((dict(ramp_up_start_rps=0, ramp_up_end_rps=3), "a rate of 0"),
                     (dict(ramp_up_start_rps=5, ramp_up_end_rps=3), "a ramp goes up"),
                     (dict(ramp_up_start_rps=1), "needs --ramp-up-start-rps and --ramp-up-end-rps")):
        with pytest.raises(UsageError, match=frag):
            Load(ramp_up_strategy="linear", **kw)


@pytest.mark.multiprocess
def test_textless_requests_are_completed_with_their_tokens_and_left_out_of_ttft(server, tmp_path):
    path = tmp_path / "p.jsonl"
    path.write_text("\n".join(json.dumps({"prompt": f"{w} x", "max_tokens": 4}) for w in ("notext", "ok", "ok")))
    run = _run(server, dataset_name="jsonl", dataset_path=path, num_prompts=3, warmup=0)
    p0 = run.all_points[0]
    r = p0.requests
    assert (r.completed, r.failed, r.textless) == (3, 0, 1) and r.output_tokens == 4 + 4 + 4
    assert p0.metrics["ttft_ms"].n == 2 and p0.metrics["e2el_ms"].n == 3
    note = next(n for n in p0.notes if n.code == "textless-requests")
    assert note.data == {"requests": 1, "tokens": 4}


@pytest.mark.multiprocess
def test_num_runs_repeats_each_point_and_compare_uses_the_spread_between_runs(server, tmp_path):
    run = _run(server, num_prompts=6, num_runs=3, warmup=2, slice_duration_s=0.05)
    assert [p.repeat for p in run.points] == [0, 1, 2]
    rep = run.repeats[0]
    ttft = next(s for s in rep.stats if s.metric == "ttft_ms.p50")
    assert rep.runs == 3 and len(ttft.values) == 3 and ttft.ci_low <= ttft.mean <= ttft.ci_high
    assert ttft.unit == "ms" and run.points[0].slices.slice_s == 0.05 and sum(s.sent for s in run.points[0].slices.slices) == 6
    d = run.to_dict()
    rc = compare_serve(d["points"], d["points"], threshold=0.5)
    row = next(r for r in rc.rows if r.metric == "ttft_ms")
    assert row.method == "between runs" and row.unit == "ms" and row.ratio == pytest.approx(1.0)
    assert row.a == pytest.approx(float(np.median(ttft.values)))
    # identical sides: the interval is centred on 1; within +/-50% it is "same", else inconclusive
    assert row.verdict == ("same" if row.ci_low >= 1 / 1.5 and row.ci_high <= 1.5 else "inconclusive")
    assert "B " in row.describe() and " ms vs A " in row.describe() and "between runs" in row.describe()


def test_the_verdict_rule_same_only_inside_the_threshold():
    assert verdict(1.2, 1.1, 1.3, 0.04) == "slower" and verdict(0.8, 0.7, 0.9, 0.04) == "faster"
    assert verdict(1.01, 0.99, 1.03, 0.04) == "same"
    assert verdict(1.01, 0.9, 1.12, 0.04) == "inconclusive"  # the CI reaches beyond +/-4%
    assert verdict(1.02, 1.01, 1.06, 0.04) == "inconclusive"  # significant, not material, not shown same
    assert verdict(1.0, None, None, 0.04) == "inconclusive"


@pytest.mark.multiprocess
def test_a_compare_table_prints_the_unit_it_stores(tmp_path, capsys, server):
    a = tmp_path / "a.json"
    main(["serve", "--url", server.url, "--num-prompts", "8", "--random-input-len", "4", "--warmup", "0",
          "--json", "-o", str(a)])
    capsys.readouterr()
    assert main(["compare", str(a), str(a), "--md"]) == 0
    header = next(ln for ln in capsys.readouterr().out.splitlines() if ln.startswith("| Load"))
    assert "| a.json (ms) |" in header  # the unit stored, printed as stored
    rows = {r["metric"]: r for r in json.loads(_json(capsys, ["compare", str(a), str(a), "--json"]))["rows"]}
    d = json.loads(a.read_text())
    assert rows["ttft_ms"]["unit"] == "ms" and rows["ttft_ms"]["a"] == pytest.approx(d["metrics"]["ttft_ms"]["p50"])
    assert rows["ttft_ms"]["ci_low"] is not None and rows["ttft_ms"]["method"] == "bootstrap over requests"


def _json(capsys, args):
    main(args)
    return capsys.readouterr().out


@pytest.mark.multiprocess
def test_warmup_defaults_to_one_request_per_slot_with_prompts_of_its_own(server):
    run = _run(server, num_prompts=4, max_concurrencies=(3,))
    p = run.all_points[0]
    assert p.requests.warmup.completed == 3 and any(n.code == "warmup" for n in run.notes)
    assert all(not r.output_text.startswith("warmup") for r in p.records)


def test_a_cold_first_wave_is_flagged():
    from bench_kernel.serve import RequestRecord, cold_start

    def rec(i, ttft):
        return RequestRecord(i, "ok", None, i * 0.01, i * 0.01, i * 0.01, i * 0.01 + ttft, (i * 0.01 + ttft,), (1,),
                             None, 1, "usage")
    recs = [rec(i, 0.5 if i < 3 else 0.05) for i in range(12)]
    note = cold_start(recs, 3)
    assert note.kind == "warning" and note.code == "cold-start" and note.data["first"] == 3
    assert cold_start([rec(i, 0.05) for i in range(12)], 3) is None


def test_the_api_refuses_what_the_cli_refuses_before_anything_runs():
    for kw, frag in ((dict(profile=True), "--profile needs --profile-dir"), (dict(num_runs=0), "--num-runs 0"),
                     (dict(slice_duration_s=math.inf), "--slice-duration"), (dict(endpoint="grpc"), "--endpoint"),
                     (dict(request_rates=(1.0, 2.0), max_concurrencies=(1, 2)), "sweep one thing at a time"),
                     (dict(slo=True), "--slo needs targets")):
        with pytest.raises(UsageError, match=frag):
            ServeOptions(url="http://127.0.0.1:1", **kw)


def test_every_option_is_generated_from_the_record_with_its_default_and_help():
    import msgspec

    from bench_kernel.cli.serve import command
    from bench_kernel.serve import SERVE_FIELDS, field_help

    names = [f.name for f in msgspec.structs.fields(ServeOptions)]
    assert sorted(f.name for f in SERVE_FIELDS) == sorted(names)
    params = {p.name: p for p in command.params}
    for f in SERVE_FIELDS:
        assert field_help(f.name) and params[f.name].help.startswith(field_help(f.name)), f.name
    # the command given only --url builds exactly the record's defaults
    from bench_kernel.cli.serve import _given

    kw = command.make_context("serve", ["--url", "http://x"], resilient_parsing=True).params
    kw = {k: v for k, v in kw.items() if k not in ("save", "db_path", "output")}
    assert ServeOptions(**_given(dict(kw), [])) == ServeOptions(url="http://x")
