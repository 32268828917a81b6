"""Serving runs in the results store and ``compare`` on them: records built by hand (a scripted
latency per request), stored and read back, compared with the bootstrap every comparison uses."""

from __future__ import annotations

import json

import numpy as np
import pytest

from bench_kernel.cli import main
from bench_kernel.results import open_store, save_serve_run, serve_points
from bench_kernel.serve import Load, RequestRecord, build_point, metric_samples, serve_metrics


def _point(ttft_ms: float, itl_ms: float, n: int = 40, seed: int = 0, load: Load = Load(max_concurrency=4)) -> dict:
    rng = np.random.default_rng(seed)
    recs = []
    for i in range(n):
        sent = i * 0.01
        first = sent + ttft_ms / 1e3 * (1 + 0.02 * rng.standard_normal())
        chunks = [first + k * itl_ms / 1e3 * (1 + 0.02 * rng.standard_normal()) for k in range(8)]
        chunks = list(np.maximum.accumulate(chunks))
        recs.append(RequestRecord(i, "ok", None, sent, sent, sent, chunks[-1], tuple(chunks), (1,) * 8, chunks[0], 8,
                                  "usage", 16, "usage"))
    recs.append(RequestRecord(n, "failed", "HTTP 500: x", 0.0, 0.0, 0.0, 0.1))
    return build_point(load, serve_metrics(recs, 2.0), recs).to_dict()


def _run(points: list[dict], status: str = "complete") -> dict:
    return {"schema_version": 1, "kind": "serve", "status": status, "server": {"url": "http://x", "model": "m",
            "version": "0.32.0", "command": "vllm serve m"}, "config": {"num_prompts": 40}, "dataset": "random",
            "sweep": "list", "points": points}


def test_a_stored_serving_run_reads_back_with_every_request_and_its_provenance(tmp_path):
    run = _run([_point(50, 10), _point(60, 12, load=Load(max_concurrency=8))], status="interrupted")
    with open_store(tmp_path / "db.sqlite") as store:
        rid = save_serve_run(store, run, command=["bench-kernel", "serve"])
        info = store.run(rid)
        pts = serve_points(store, rid)
        assert info.kind == "serve" and info.status == "interrupted" and info.env["server"]["version"] == "0.32.0"
        assert info.command == ("bench-kernel", "serve") and info.total_points == 2
        assert len(pts) == 2 and len(pts[0]["requests"]["records"]) == 41
        assert metric_samples(pts[0])["ttft_ms"] == metric_samples(run["points"][0])["ttft_ms"]
        # the sweep/run tables are untouched: a serving run has no benchmark points
        assert store.points(rid) == []


def test_compare_finds_a_slower_itl_and_calls_identical_runs_same(tmp_path, capsys):
    a, same, slow = tmp_path / "a.json", tmp_path / "same.json", tmp_path / "slow.json"
    a.write_text(json.dumps(_run([_point(50, 10, seed=1)])))
    same.write_text(json.dumps(_run([_point(50, 10, seed=2)])))
    slow.write_text(json.dumps(_run([_point(50, 13, seed=3)])))
    assert main(["compare", str(a), str(same), "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)["rows"]
    assert {r["metric"] for r in rows} == {"ttft_ms", "ttfvo_ms", "tpot_ms", "itl_ms", "icl_ms", "e2el_ms"}
    assert all(r["verdict"] == "same" for r in rows)
    assert main(["compare", str(a), str(slow), "--json"]) == 1
    out = capsys.readouterr()
    by = {r["metric"]: r for r in json.loads(out.out)["rows"]}
    assert by["itl_ms"]["verdict"] == "slower" and by["itl_ms"]["ratio"] == pytest.approx(1.3, rel=0.05)
    assert by["ttft_ms"]["verdict"] == "same" and by["itl_ms"]["ci_low"] > 1.0
    assert "latency regression" in out.err


def test_compare_stored_serving_runs_and_refuse_a_mixed_pair(tmp_path, capsys):
    db = tmp_path / "db.sqlite"
    with open_store(db) as store:
        save_serve_run(store, _run([_point(50, 10, seed=1)]))
        save_serve_run(store, _run([_point(80, 10, seed=2)]))
    assert main(["compare", "1", "2", "--db", str(db), "--json"]) == 1
    by = {r["metric"]: r for r in json.loads(capsys.readouterr().out)["rows"]}
    assert by["ttft_ms"]["verdict"] == "slower" and by["itl_ms"]["verdict"] == "same"
    other = tmp_path / "r.json"
    other.write_text(json.dumps({"results": []}))
    assert main(["compare", "1", str(other), "--db", str(db)]) == 2
    assert "not a serving run" in capsys.readouterr().err


def test_report_renders_a_serving_sweep_from_a_file_and_from_the_store(tmp_path):
    pytest.importorskip("matplotlib")
    from bench_kernel.report import render_report
    from bench_kernel.report_model import load_report

    run = _run([_point(50, 10, seed=1), _point(70, 12, seed=2, load=Load(max_concurrency=8))])
    run["server"]["model"] = "<script>alert(1)</script>"
    f = tmp_path / "serve.json"
    f.write_text(json.dumps(run))
    html = render_report(load_report([str(f)]), generated_at="2026-01-01")
    assert "Serving: serve.json" in html and html.count("<svg") == 3  # the curve, the CDFs, the timeline
    assert "<script>alert(1)</script>" not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "Latency against throughput" in html and "Per-request timeline" in html
    db = tmp_path / "db.sqlite"
    with open_store(db) as store:
        save_serve_run(store, run)
    stored = render_report(load_report(["latest"], db_path=str(db)), generated_at="2026-01-01")
    assert "Serving: run 1" in stored and stored.count("<svg") == 3
