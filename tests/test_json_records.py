"""What sweep, history, calibrate, profile, source-trace, report and serve print with --json reads back
as their records (``msgspec.json.decode(out, type=XxxOutput)``, strict), with the values the run had;
the API returns the same records; serving runs written by earlier versions still read; and
ServeOptions refuses, through the API, what the command line refuses."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import msgspec
import pytest

from _hardware_helpers import make_calibration
from _sweep_helpers import FAST, write_spec
from bench_kernel.errors import UsageError
from bench_kernel.records import (
    Calibration,
    HistoryOutput,
    ProfileOutput,
    ReportOutput,
    ServeOutput,
    SourceTraceOutput,
    SweepOutput,
)
from bench_kernel.trace import sample_trace

ROOT = Path(__file__).resolve().parent.parent
CLI_FAST = ["-m", "host", "--precision", "0.5", "--max-time", "0.02", "--rounds", "1"]
MODEL = """
import torch
def cases():
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(8, 8), torch.nn.ReLU())
    return {"name": "mlp", "fn": model, "make_inputs": lambda: (torch.randn(2, 8),)}
"""


@pytest.fixture(scope="module")
def swept(tmp_path_factory):
    """A results database holding one sweep of the test spec (M 1..3: add, wrong (refused at M=2), picky)."""
    from bench_kernel.sweeps import load_spec, run_sweep

    tmp = tmp_path_factory.mktemp("records")
    spec = write_spec(tmp)
    db = tmp / "results.db"
    out = run_sweep(load_spec(str(spec)), options=FAST, store=db)
    return tmp, spec, db, out


@pytest.mark.slow
def test_sweep_json_is_its_record_and_what_the_api_returned(swept, run_cli):
    tmp, spec, _, first = swept
    r = run_cli("sweep", str(spec), "--db", str(tmp / "other.db"), *CLI_FAST, "--json")
    assert r.exit_code == 1  # 'wrong' differs from the baseline at M=2
    doc = msgspec.json.decode(r.stdout, type=SweepOutput)
    assert doc.schema_version == 2 and doc.run.kind == "sweep" and doc.run.status == "done"
    assert [(p.provider, p.params["M"], p.status) for p in doc.points] == [
        ("add", 1, "ok"), ("wrong", 1, "ok"), ("picky", 1, "ok"), ("add", 2, "ok"), ("wrong", 2, "mismatch"),
        ("picky", 2, "ok"), ("add", 3, "ok"), ("wrong", 3, "ok"), ("picky", 3, "unsupported")]
    assert {b.params["M"] for b in doc.best} == {1, 2, 3} and all(b.provider in ("add", "wrong", "picky") for b in doc.best)
    # the API's record has the same shape: the run of the fixture, stored as run 1
    assert isinstance(first, SweepOutput) and first.run.id == 1 and len(first.points) == 9
    assert [p.status for p in first.points] == [p.status for p in doc.points]


def test_history_json_is_its_record_in_both_shapes(swept, run_cli):
    from bench_kernel.results import history

    _, _, db, _ = swept
    r = run_cli("history", "--db", str(db), "--json")
    assert r.exit_code == 0, r.stderr
    runs = msgspec.json.decode(r.stdout, type=HistoryOutput)
    assert runs.db == str(db) and [x.id for x in runs.runs] == [1] and runs.runs[0].n_points == 9
    assert runs.points is msgspec.UNSET and "points" not in json.loads(r.stdout)
    r = run_cli("history", "--db", str(db), "--name", "add", "--where", "M=2", "--json")
    named = msgspec.json.decode(r.stdout, type=HistoryOutput)
    assert named.pattern == "add" and named.where == {"M": "2"} and named.db is msgspec.UNSET
    assert [(h.run.id, h.point.provider, h.point.params) for h in named.points] == [(1, "add", {"M": 2, "kind": "a"})]
    assert history(db, pattern="add", where={"M": "2"}) == named
    with pytest.raises(UsageError, match="--where needs --name PATTERN"):
        history(db, where={"M": "2"})
    with pytest.raises(UsageError, match="--limit must be >= 1, got 0"):
        history(db, limit=0)


def test_calibrate_json_is_the_calibration_record(run_cli, monkeypatch):
    import bench_kernel.hardware as hardware

    cal = make_calibration(notes=("matmul fp8 skipped: RuntimeError",))
    monkeypatch.setattr(hardware, "calibrate", lambda device, save: cal)
    r = run_cli("calibrate", "--no-save", "--json")
    assert r.exit_code == 0, r.stderr
    back = msgspec.json.decode(r.stdout, type=Calibration)
    assert back == cal and back.schema_version == 1 and back.matmul_tflops == {"bf16": 752.0, "fp8": 1310.0}
    assert next(iter(json.loads(r.stdout))) == "schema_version"


@pytest.mark.slow
@pytest.mark.multiprocess
def test_profile_json_is_its_record(run_cli, tmp_path):
    (tmp_path / "model.py").write_text(textwrap.dedent(MODEL))
    out = tmp_path / "p.json.gz"
    r = run_cli("profile", f"{tmp_path}/model.py:cases", "--steps", "2", "-o", str(out), "--json")
    assert r.exit_code == 0, r.stderr
    doc = msgspec.json.decode(r.stdout, type=ProfileOutput)
    assert doc.schema_version == 1 and doc.path == str(out) and doc.steps == 2 and doc.events > 0
    # without a GPU the trace holds CPU ops only; with one, the per-step inventory of its kernels
    assert (doc.top is None) == (doc.kernels_per_step == 0.0)


def test_source_trace_json_is_its_record_and_the_documents_data():
    import contextlib
    import io

    from bench_kernel.cli import main

    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        assert main(["source-trace", "--trace", str(sample_trace()), "--module", "LlamaAttention", "--top", "2",
                     "--json"]) == 0
    doc = msgspec.json.decode(buf.getvalue(), type=SourceTraceOutput)
    assert doc.schema_version == 1 and doc.subject and doc.scale in ("op", "model")
    orders = {k.order for k in doc.kernels}
    assert set(doc.detailed) <= orders and all(set(p.kernels) <= set(doc.detailed) for p in doc.paths)
    assert doc.total_us == pytest.approx(sum(k.us_per_call for k in doc.kernels if k.us_per_call is not None))
    assert doc.overview.distinct_sites == len(doc.kernels)
    assert all(k.us_per_call == pytest.approx(k.us_per_launch * k.launches_per_call)
               for k in doc.kernels if k.us_per_launch is not None)


def test_report_json_is_its_record(swept, run_cli, tmp_path):
    _, _, db, _ = swept
    out = tmp_path / "r.html"
    r = run_cli("report", "1", str(sample_trace()), "--db", str(db), "-o", str(out), "--json")
    assert r.exit_code == 0, r.stderr
    doc = msgspec.json.decode(r.stdout, type=ReportOutput)
    assert doc.schema_version == 2 and doc.output == str(out) and doc.bytes == out.stat().st_size
    assert [i.kind for i in doc.inputs] == ["results", "trace"] and doc.inputs[0].label == "run 1"


@pytest.mark.multiprocess
def test_serve_json_is_its_record_one_point_and_a_sweep(run_cli, tmp_path):
    pytest.importorskip("aiohttp")
    from serve_scripted import start

    prompts = tmp_path / "p.jsonl"
    prompts.write_text("\n".join(json.dumps({"prompt": f"{w} hi", "max_tokens": 8}) for w in ("fast", "five", "fast")))
    srv = start({"scenarios": {"fast": {"tokens": 6}, "five": {"status": 503}}, "models": ["m1"]})
    try:
        base = ["serve", "--url", srv.url, "--dataset-name", "jsonl", "--dataset-path", str(prompts), "--num-prompts",
                "3", "--warmup", "0", "--no-gpu-telemetry", "--no-server-metrics", "--json"]
        r = run_cli(*base, "--goodput", "ttft:800")
        one = msgspec.json.decode(r.stdout, type=ServeOutput)
        assert list(json.loads(r.stdout))[:2] == ["kind", "schema_version"]
        assert one.points is msgspec.UNSET and one.sweep is None and one.server.model == "m1"
        assert (one.requests.completed, one.requests.failed, one.requests.failures) == (2, 1, {"HTTP 503": 1})
        assert len(one.requests.records) == 3 and one.goodput.good_requests == 2 and one.metrics["ttft_ms"].n == 2
        [p] = one.all_points
        assert p.requests == one.requests and p.load.request_rate is None
        r = run_cli(*base, "--max-concurrency", "1,2")
        sweep = msgspec.json.decode(r.stdout, type=ServeOutput)
        assert sweep.sweep == "list" and sweep.load is msgspec.UNSET
        assert [q.load.max_concurrency for q in sweep.points] == [1, 2]
        assert [q.requests.completed for q in sweep.points] == [2, 2]
    finally:
        srv.stop()


@pytest.mark.parametrize("name", ["serve-h200-prefix.json", "serve-h200-sweep.json", "serve-h200-auto.json",
                                  "serve-vllm-cpu.json"])
def test_serving_runs_written_before_read_as_records(name):
    data = (ROOT / "benchmarks" / "results" / name).read_bytes()
    raw = json.loads(data)
    runs = raw if isinstance(raw, list) else [raw]
    for run in runs:
        doc = ServeOutput.from_dict(run)
        points = doc.all_points
        assert points and all(p.requests.completed + p.requests.failed == len(p.records) for p in points if p.records)
        stored = run.get("points") or [run]
        assert [p.requests.completed for p in points] == [s["requests"]["completed"] for s in stored]
        assert [p.metrics["ttft_ms"].p50 for p in points] == [s["metrics"]["ttft_ms"]["p50"] for s in stored]
        # a request's derived latencies are recomputed from its times, and agree with what was written
        rec, written = points[0].records[0], stored[0]["requests"]["records"][0]
        assert rec.ttft_ms == pytest.approx(written["ttft_ms"]) and rec.e2el_ms == pytest.approx(written["e2el_ms"])


def test_a_version_1_serving_run_is_upgraded_its_notes_become_records():
    point = {"schema_version": 1, "status": "complete", "aborted": None,
             "load": {"request_rate": None, "burstiness": 1.0, "max_concurrency": 2, "duration_s": None},
             "started_at": 0.0, "duration_s": 1.0,
             "metrics": {"ttft_ms": {"mean": 5.0, "std": 0.0, "p50": 5.0, "p90": 5.0, "p95": 5.0, "p99": 5.0, "n": 1}},
             "throughput": {"requests_per_s": 1.0, "output_tokens_per_s": 2.0, "total_tokens_per_s": 3.0,
                            "peak_output_tokens_per_s": 2.0, "mean_concurrency": 0.01},
             "goodput": {"targets_ms": {}, "good_requests": None, "requests_per_s": None},
             "requests": {"completed": 1, "failed": 0, "failures": {}, "input_tokens": 1, "output_tokens": 2,
                          "chunks": 2, "fewer_chunks_than_tokens": 0, "n_out_sources": {"usage": 1}, "textless": 0,
                          "warmup": {"completed": 0, "failed": 0}},
             "client": {"lateness_ms": {"p50": 0.1, "p99": 0.1, "max": 0.1, "n": 1},
                        "loop_lag_ms": {"p50": None, "p99": None, "max": None, "n": 0}, "client_bound": False},
             "notes": ["the server refused ignore_eos"]}
    doc = ServeOutput.from_dict({"kind": "serve", "schema_version": 1, "server": {"url": "http://x", "model": "m"},
                                 "config": {}, "dataset": "random", "sweep": "list", "points": [point]})
    [p] = doc.points
    assert p.schema_version == 2 and [(n.code, n.kind, n.text) for n in p.notes] == [
        ("untyped", "warning", "the server refused ignore_eos")]
    assert p.load.max_concurrency == 2 and p.records == () and doc.status == "complete"
    with pytest.raises(ValueError, match="schema_version 3"):
        ServeOutput.from_dict({"server": {"url": "x", "model": "m"}, "dataset": "d", "points": [{**point, "schema_version": 3}]})


def test_serve_options_refuse_what_the_command_line_refuses_through_the_api(tmp_path):
    from bench_kernel.serve import ServeOptions

    a_file = tmp_path / "f.jsonl"
    a_file.write_text("{}\n")
    for kw, message in (
            (dict(profile=True), "--profile needs --profile-dir DIR"),
            (dict(profile=True, profile_dir=str(a_file)), "--profile-dir .*: is a file"),
            (dict(dataset_name="jsonl", dataset_path=tmp_path), "--dataset-path .*: is a directory: give a file"),
            (dict(server_log=str(tmp_path)), "--server-log .*: is a directory"),
            (dict(headers=(("", "x"),)), "--header .*: expected NAME:VALUE"),
            (dict(headers=(("Authorization",),)), "--header .*: expected NAME:VALUE"),
            (dict(request_rates=("4",)), "--request-rate .*: expected a tuple of numbers"),
            (dict(goodput_ms={"ttft_ms": "200"}), "--goodput .*: expected metric -> a number of ms")):
        with pytest.raises(UsageError, match=message):
            ServeOptions(url="http://127.0.0.1:1", **kw)
    ok = ServeOptions(url="http://127.0.0.1:1", dataset_name="jsonl", dataset_path=str(a_file),
                      request_rates=[1.0, 2.0], headers=[["X-Test", "1"]])
    assert ok.dataset_path == a_file and ok.request_rates == (1.0, 2.0) and ok.headers == (("X-Test", "1"),)
