"""``bench-kernel serve`` against a REAL server: ``transformers serve`` with a tiny model built here
(a 2-layer Llama of hidden 64 with random weights, a BPE tokenizer trained in a moment, a chat
template; nothing downloaded). Started once for the module through ``bench_kernel.serve.launched``
(the code ``--launch`` uses), behind tests/serve_profiling_wrapper.py, which adds the
/start_profile and /stop_profile routes transformers lacks. At most ~20 requests of <= 16 tokens.

What a real server does that the scripted one only imitates: the role chunk first, coalesced chunks
(transformers 5.24 sends several tokens in one chunk), usage on the finish chunk, no [DONE], and
HTTP 422 for ``ignore_eos``.
"""

from __future__ import annotations

import importlib.util
import json
import os
import sys
from pathlib import Path

import pytest

# Found, not imported: fastapi and uvicorn run in the server's own process, and importing them here
# cost every xdist worker ~0.5 s at collection, also in the quick pass that deselects this module.
_missing = [m for m in ("aiohttp", "fastapi", "uvicorn", "tokenizers") if importlib.util.find_spec(m) is None]
if _missing:
    pytest.skip(f"could not import {', '.join(_missing)}: the [test] extra is not installed", allow_module_level=True)

from bench_kernel.cli import main  # noqa: E402
from bench_kernel.serve import Endpoint, Load, connect, launched, load_dataset, run_point, wait_ready  # noqa: E402
from serve_models import build_model  # noqa: E402
from serve_scripted import free_port  # noqa: E402

pytestmark = [pytest.mark.slow, pytest.mark.multiprocess]  # a real `transformers serve`
WRAPPER = Path(__file__).with_name("serve_profiling_wrapper.py")


@pytest.fixture(scope="module")
def tf_server(tmp_path_factory):
    root = tmp_path_factory.mktemp("tf_serve")
    model = build_model(root / "tiny")
    prof = root / "profiles"
    port = free_port()
    cmd = (f"{sys.executable} {WRAPPER} {prof} serve {model} --host 127.0.0.1 --port {port} --device cpu")
    os.environ["HF_HUB_OFFLINE"] = "1"
    with launched(cmd, root / "server.log", {"HF_HUB_OFFLINE": "1", "OMP_NUM_THREADS": "1"}) as srv:
        url = f"http://127.0.0.1:{port}"
        wait_ready(url, 240, srv.exit_reason)
        yield {"url": url, "model": str(model), "profiles": prof, "server": srv, "root": root}
    assert srv.proc.poll() is not None  # stopped with the module


def test_real_server_metrics_and_accounting(tf_server):
    info = connect(tf_server["url"], None)
    assert info.model == tf_server["model"]
    ds = load_dataset("random", 6, input_len=8, output_len=12, seed=1)
    ep = Endpoint(info.url, "chat", info.model, ignore_eos=True, request_timeout_s=120)
    p = run_point(info, ep, ds.prompts, Load(max_concurrency=2), num_prompts=6)
    assert (p.requests.completed, p.requests.failed) == (6, 0), [r.error for r in p.records]
    # transformers refuses ignore_eos with 422: resent once without it, and the run says so
    assert any("refused ignore_eos" in str(n) for n in p.notes)
    for r in p.records:
        assert r.n_out_source == "usage" and 1 <= r.n_out <= 12
        assert r.n_in_source == "usage" and r.n_in > 8  # the chat template adds its own tokens
        assert 0 < r.ttft_ms <= r.e2el_ms
        assert 1 <= len(r.chunk_s) <= r.n_out  # never more token chunks than tokens
        assert r.empty_chunks >= 2  # the role chunk and the usage-carrying finish chunk
        assert r.sent_s < r.chunk_s[0]
        if len(r.chunk_s) == r.n_out:
            assert r.chunk_tokens == (1,) * r.n_out and len(r.itl_ms) == r.n_out - 1
        else:
            assert r.itl_ms is None  # no per-chunk counts from transformers: ITL is not guessed
    m = p.requests
    assert m.output_tokens == sum(r.n_out for r in p.records)
    assert m.chunks == sum(len(r.chunk_s) for r in p.records)
    assert p.metrics["icl_ms"].n == m.chunks - 6
    assert (m.fewer_chunks_than_tokens > 0) == any("fewer chunks than tokens" in str(n) for n in p.notes)


def test_real_server_through_the_cli_with_completions(tf_server, capsys):
    rc = main(["serve", "--url", tf_server["url"], "--endpoint", "completions", "--num-prompts", "4",
               "--random-input-len", "8", "--random-output-len", "8", "--request-rate", "20", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert rc == 0 and out["requests"]["completed"] == 4 and out["requests"]["failed"] == 0
    assert out["server"]["model"] == tf_server["model"]
    recs = out["requests"]["records"]
    # under load transformers may put every token of a short answer in one chunk: TTFT == E2E then
    assert all(0 < r["ttft_ms"] <= r["e2el_ms"] and r["n_out_source"] == "usage" for r in recs)
    assert out["requests"]["output_tokens"] == sum(r["n_out"] for r in recs)


def test_real_server_profile_window_gives_a_trace_the_trace_commands_read(tf_server, capsys):
    rc = main(["serve", "--url", tf_server["url"], "--num-prompts", "2", "--random-input-len", "8",
               "--random-output-len", "8", "--profile", "--profile-dir", str(tf_server["profiles"]),
               "--profile-requests", "2", "--profile-timeout", "120", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert rc == 0, out.get("notes")
    w = out["profile"]
    assert w["error"] is None and len(w["traces"]) == 1 and "rank0." in w["traces"][0]
    assert w["point"]["requests"]["completed"] == 2
    v = w["view"]
    # A CPU server has no device kernels: the view lists its CPU ops instead, and says so.
    assert v["kernels"] == 0 and v["ops"] > 100 and any("no device kernels" in n for n in v["notes"])
    # the wrapper marks each model call as a step: at least one per generated token of the window
    assert sum(v["steps"].values()) >= 2 * 4
    names = [o["name"] for o in v["top_ops"]]
    assert len(names) == 5 and any(n.startswith("aten::") or "forward" in n or "generate" in n for n in names)
    from bench_kernel.trace import load_trace

    t = load_trace(w["traces"][0], shapes=True)
    assert len(t.ops) == v["ops"] and any(n == "aten::mm" or n == "aten::linear" for n in t.names)


def test_a_model_the_real_server_does_not_serve_is_one_error_line(tf_server, capsys):
    rc = main(["serve", "--url", tf_server["url"], "--model", "not-this-one", "--num-prompts", "1"])
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 1 and len(err) == 1 and "does not serve 'not-this-one'" in err[0]


def test_launch_the_laptop_example_end_to_end_with_a_prefix_workload_and_two_runs(tmp_path, capsys):
    """docs/serving.md's laptop path as written: examples/serve_tiny_model.py builds the model, and
    --launch starts a real `transformers serve` on the CPU: warm-up, a prefix workload run twice, the
    spread across the runs, and the note that this server has no /metrics."""
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "examples"))
    from serve_tiny_model import main as build

    model = tmp_path / "tiny"
    assert build([str(model)]) == 0
    assert "bench-kernel serve --launch" in capsys.readouterr().out  # the example prints the command to run
    port = free_port()
    os.environ["HF_HUB_OFFLINE"] = "1"
    rc = main(["serve", "--launch", f"{Path(sys.executable).parent / 'transformers'} serve {model} --host 127.0.0.1 "
               f"--port {port} --device cpu", "--ready-timeout", "240", "--dataset-name", "prefix_repetition",
               "--num-prompts", "6", "--prefix-repetition-num-prefixes", "2", "--prefix-repetition-prefix-len", "16",
               "--prefix-repetition-suffix-len", "4", "--prefix-repetition-output-len", "4", "--num-runs", "2",
               "--warmup", "2", "--request-timeout", "120", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert rc == 0 and len(out["points"]) == 2 and [p["repeat"] for p in out["points"]] == [0, 1]
    assert all(p["requests"]["completed"] == 6 for p in out["points"])
    assert out["points"][0]["prefix_groups"]["groups"] == 2
    assert any(n["code"] == "no-server-metrics" and "HTTP 404" in n["text"] for n in out["notes"])
    stat = next(s for s in out["repeats"][0]["stats"] if s["metric"] == "ttft_ms.p50")
    assert len(stat["values"]) == 2 and stat["ci_low"] <= stat["mean"] <= stat["ci_high"]
