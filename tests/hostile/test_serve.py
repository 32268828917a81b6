"""Bad input to ``bench-kernel serve``: one line ``bench-kernel: error: ...``, a non-zero
exit, partial results kept and marked, and a launched server never left behind."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("aiohttp")
# servers in subprocesses: the scripted one (a module fixture, for whichever test comes first) and launched ones
pytestmark = pytest.mark.multiprocess

TESTS = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(TESTS))
from bench_kernel.cli import main  # noqa: E402
from serve_scripted import free_port, start  # noqa: E402

SCRIPT = TESTS / "serve_scripted.py"


def _one_error(capsys) -> str:
    err = [ln for ln in capsys.readouterr().err.splitlines() if ln.startswith("bench-kernel: error:")]
    assert len(err) == 1, err
    return err[0]


def _pids_running(pattern: str) -> list[int]:
    out = subprocess.run(["ps", "-ww", "-eo", "pid=,args="], capture_output=True, text=True).stdout
    return [int(ln.split(None, 1)[0]) for ln in out.splitlines() if pattern in ln and "ps -eo" not in ln]


def test_unreachable_url(capsys):
    port = free_port()  # nothing listens there
    rc = main(["serve", "--url", f"http://127.0.0.1:{port}", "--num-prompts", "2"])
    assert rc == 1 and "cannot reach the server at" in _one_error(capsys)


def test_no_server_given_and_bad_flags(capsys):
    assert main(["serve", "--num-prompts", "2"]) == 2
    assert "--url URL, or --launch" in _one_error(capsys)
    for args, fragment in ((["--request-rate", "0"], "must be > 0"), (["--request-rate", "fast"], "not a number"),
                           (["--goodput", "itl:5"], "expected NAME:MS"), (["--random-range-ratio", "1.5"], "1.5"),
                           (["--max-concurrency", "0"], "whole number >= 1"), (["--bogus-extra"], "No such option"), (["stray"], "unexpected argument")):
        rc = main(["serve", "--url", "http://127.0.0.1:1", *args])
        assert rc == 2, args
        assert fragment in _one_error(capsys), args


@pytest.fixture(scope="module")
def scripted():
    srv = start({"scenarios": {"err": {"error_after": 1}, "bad": {"malformed_after": 0}, "hang": {"hang_after": 0},
                               "four": {"status": 400}, "five": {"status": 500}, "ok": {"tokens": 3}},
                 "models": ["m"]})
    yield srv
    srv.stop()


def _jsonl(tmp_path, names):
    p = tmp_path / "d.jsonl"
    p.write_text("".join(json.dumps({"prompt": f"{n} x", "max_tokens": 4}) + "\n" for n in names))
    return p


def test_failures_inside_the_run_are_counted_with_reasons_and_written(scripted, tmp_path, capsys):
    out = tmp_path / "r.json"
    data = _jsonl(tmp_path, ["err", "bad", "hang", "four", "five", "ok"])
    rc = main(["serve", "--url", scripted.url, "--dataset-name", "jsonl", "--dataset-path", str(data), "--num-prompts",
               "6", "--request-timeout", "1", "-o", str(out)])
    assert rc == 0
    d = json.loads(out.read_text())
    assert d["requests"]["completed"] == 1 and d["requests"]["failed"] == 5
    reasons = [r["error"] for r in d["requests"]["records"]]
    assert reasons[0] == "error in stream: scripted engine error"
    assert reasons[1].startswith("malformed SSE data (not JSON): '{not json'")
    assert reasons[2].startswith("timeout after 1 s")
    assert reasons[3].startswith("HTTP 400") and reasons[4].startswith("HTTP 500") and reasons[5] is None


def test_every_request_failing_is_an_error_after_the_results_are_written(scripted, tmp_path, capsys):
    out = tmp_path / "r.json"
    data = _jsonl(tmp_path, ["five", "five"])
    rc = main(["serve", "--url", scripted.url, "--dataset-name", "jsonl", "--dataset-path", str(data),
               "--num-prompts", "2", "-o", str(out)])
    assert rc == 1 and "no request completed" in _one_error(capsys)
    assert json.loads(out.read_text())["requests"]["failed"] == 2


@pytest.mark.parametrize("content,fragment", [
    (None, "no such file"),
    ("{not json\n", ":1: not JSON"),
    ('{"prompt": 3}\n', "needs a non-empty 'prompt'"),
    ('{"prompt": "x", "max_tokens": -2}\n', "not a positive integer"),
    ("", "no prompts"),
])
def test_missing_or_garbage_jsonl_dataset(scripted, tmp_path, capsys, content, fragment):
    p = tmp_path / "d.jsonl"
    if content is not None:
        p.write_text(content)
    rc = main(["serve", "--url", scripted.url, "--dataset-name", "jsonl", "--dataset-path", str(p)])
    assert rc == 1 and fragment in _one_error(capsys)


def test_garbage_sharegpt_dataset(scripted, tmp_path, capsys):
    p = tmp_path / "s.json"
    p.write_bytes(b"\x00\xff garbage")
    assert main(["serve", "--url", scripted.url, "--dataset-name", "sharegpt", "--dataset-path", str(p)]) == 1
    assert "--dataset-path" in _one_error(capsys)
    p.write_text('[{"conversations": [{"value": "only one turn"}]}]')
    assert main(["serve", "--url", scripted.url, "--dataset-name", "sharegpt", "--dataset-path", str(p)]) == 1
    assert "no conversation with two turns" in _one_error(capsys)


def test_a_model_the_server_does_not_serve(scripted, capsys):
    assert main(["serve", "--url", scripted.url, "--model", "gpt-x"]) == 1
    assert "does not serve 'gpt-x'; it serves: m" in _one_error(capsys)


def test_a_server_that_dies_mid_run_keeps_the_partial_run(tmp_path, capsys):
    srv = start({"default": {"tokens": 4, "itl_ms": 20}, "scenarios": {"die": {"die_after": 1}}, "models": ["m"]})
    try:
        data = _jsonl(tmp_path, ["ok"] * 3 + ["die"] + ["ok"] * 40)
        out = tmp_path / "r.json"
        rc = main(["serve", "--url", srv.url, "--dataset-name", "jsonl", "--dataset-path", str(data),
                   "--num-prompts", "44", "--max-concurrency", "1", "-o", str(out)])
    finally:
        srv.stop()
    line = _one_error(capsys)
    assert rc == 1 and "stopped answering" in line and "partial results were written" in line
    d = json.loads(out.read_text())
    assert d["status"] == "partial" and d["requests"]["completed"] == 3
    assert d["requests"]["completed"] + d["requests"]["failed"] == 44  # nothing dropped
    assert sum(r["error"].startswith("not sent") for r in d["requests"]["records"] if r["error"]) >= 30


def test_launch_a_command_that_exits_quotes_its_log(tmp_path, capsys):
    cmd = f"{sys.executable} -c \"import sys; print('loading weights... CUDA out of memory'); sys.exit(3)\""
    rc = main(["serve", "--launch", cmd, "--ready-timeout", "60", "--server-log", str(tmp_path / "s.log")])
    line = _one_error(capsys)
    assert rc == 1 and "exited with status 3" in line and "CUDA out of memory" in line


def test_launched_server_dying_mid_run_is_reported_with_its_log(tmp_path, capsys):
    port = free_port()
    cfg = json.dumps({"default": {"tokens": 4, "itl_ms": 20}, "scenarios": {"die": {"die_after": 1}},
                      "models": ["m"]})
    cmd = f"{sys.executable} {SCRIPT} {port} '{cfg}'"
    data = _jsonl(tmp_path, ["ok", "ok", "die"] + ["ok"] * 40)
    out = tmp_path / "r.json"
    rc = main(["serve", "--launch", cmd, "--dataset-name", "jsonl", "--dataset-path", str(data), "--num-prompts",
               "43", "--max-concurrency", "1", "-o", str(out), "--url", f"http://127.0.0.1:{port}"])
    line = _one_error(capsys)
    assert rc == 1 and "the launched server exited with status 3" in line
    d = json.loads(out.read_text())
    assert d["status"] == "partial" and d["requests"]["completed"] == 2
    assert d["requests"]["completed"] + d["requests"]["failed"] == 43


@pytest.mark.slow
def test_ctrl_c_stores_the_partial_run_and_stops_the_launched_server(tmp_path):
    port = free_port()
    marker = f"hostile-ctrl-c-{port}"
    cfg = json.dumps({"default": {"tokens": 50, "itl_ms": 100}, "models": [marker], "log_requests": True})
    cmd = f"{sys.executable} {SCRIPT} {port} '{cfg}'"
    out, db, log = tmp_path / "r.json", tmp_path / "db.sqlite", tmp_path / "server.log"
    proc = subprocess.Popen([sys.executable, "-m", "bench_kernel", "serve", "--launch", cmd, "--url",
                             f"http://127.0.0.1:{port}", "--num-prompts", "20", "--max-concurrency", "4",
                             "--random-input-len", "4", "-o", str(out), "--save", "--db", str(db),
                             "--server-log", str(log)],
                            stderr=subprocess.PIPE, text=True, env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    try:
        # Ctrl-C once requests are streaming: the server logs each request it receives.
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline and "request 1" not in (log.read_text() if log.exists() else ""):
            time.sleep(0.2)
        assert _pids_running(marker), "the launched server never started"
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    lines = [ln for ln in err.splitlines() if ln.startswith("bench-kernel: error:")]
    assert proc.returncode == 130 and len(lines) == 1 and "interrupted" in lines[0], err
    d = json.loads(out.read_text())
    assert d["status"] == "interrupted" and d["requests"]["completed"] + d["requests"]["failed"] == 20
    assert any((r["error"] or "").startswith(("stopped in flight", "not sent")) for r in d["requests"]["records"])
    from bench_kernel.results import open_store, serve_points

    with open_store(db) as store:
        run = store.run("latest")
        assert run.kind == "serve" and run.status == "interrupted"
        assert serve_points(store, run)[0]["requests"]["failed"] == d["requests"]["failed"]
    deadline = time.monotonic() + 30  # the server's process is being reaped: wait for that, not a fixed time
    while _pids_running(marker) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _pids_running(marker) == []  # no orphan: the server's process is gone


def test_a_models_list_that_fails_with_500_is_a_note_when_the_model_is_named(capsys, tmp_path):
    srv = start({"models": ["m"], "models_status": 500})
    try:
        assert main(["serve", "--url", srv.url, "--num-prompts", "2"]) == 1  # no --model: nothing to send
        assert "/v1/models answered HTTP 500, so the served model is unknown: name it with --model" in _one_error(capsys)
        out = tmp_path / "r.json"
        assert main(["serve", "--url", srv.url, "--model", "m", "--num-prompts", "2", "--json", "-o", str(out)]) == 0
        data = json.loads(out.read_text())
        assert data["requests"]["completed"] == 2
        assert any("answered HTTP 500: the model name 'm' was not checked" in n["text"] for n in data["notes"])
    finally:
        srv.stop()



@pytest.mark.parametrize("args,fragment", [
    (["--num-runs", "0"], "0"), (["--num-runs", "1000"], "at most 100"),
    (["--slice-duration", "0"], "0"), (["--slice-duration", "nan"], "not a finite number"),
    (["--ramp-up-strategy", "cubic"], "cubic"),
    (["--ramp-up-strategy", "linear"], "needs --ramp-up-start-rps and --ramp-up-end-rps"),
    (["--ramp-up-strategy", "linear", "--ramp-up-start-rps", "5", "--ramp-up-end-rps", "2"], "a ramp goes up"),
    (["--ramp-up-strategy", "exponential", "--ramp-up-start-rps", "1", "--ramp-up-end-rps", "4", "--request-rate", "3"],
     "leave --request-rate out"),
    (["--ramp-up-strategy", "linear", "--ramp-up-start-rps", "1", "--ramp-up-end-rps", "4", "--duration", "5"],
     "leave --duration out"),
    (["--ramp-up-start-rps", "2"], "need --ramp-up-strategy"),
    (["--dataset-name", "mooncake"], "needs --dataset-path"),
    (["--dataset-name", "prefix_repetition", "--prefix-repetition-num-prefixes", "0"], "0"),
    (["--multi-turn"], "needs --dataset-name sharegpt"),
    (["--max-turns", "3"], "is for --multi-turn"),
    (["--warmup", "-1"], "-1"),
    (["--profile"], "--profile needs --profile-dir"),
    (["--slo"], "--slo needs targets"),
])
def test_bad_new_options_are_one_line_before_any_request(args, fragment, capsys):
    port = free_port()  # nothing listens: an option checked late would show as "cannot reach"
    rc = main(["serve", "--url", f"http://127.0.0.1:{port}", *args])
    line = _one_error(capsys)
    assert rc == 2 and fragment in line and "cannot reach" not in line, (args, line)


@pytest.mark.parametrize("content,fragment", [
    ('{"timestamp": 0, "input_length": 10, "output_length": 2, "hash_ids": [1]}\n{not json\n', ":2: not JSON"),
    ('{"timestamp": -5, "input_length": 10, "output_length": 2}\n', "'timestamp' is -5"),
    ('{"timestamp": 0, "input_length": 0, "output_length": 2}\n', "'input_length' is 0"),
    ('{"timestamp": 0, "input_length": 10, "output_length": 2, "hash_ids": ["a"]}\n', "'hash_ids' must be"),
    ('{"timestamp": 9, "input_length": 10, "output_length": 2}\n{"timestamp": 1, "input_length": 10, '
     '"output_length": 2}\n', "timestamps go backwards"),
    ("", "no requests in it"),
])
def test_garbage_mooncake_trace(scripted, tmp_path, capsys, content, fragment):
    p = tmp_path / "t.jsonl"
    p.write_text(content)
    rc = main(["serve", "--url", scripted.url, "--dataset-name", "mooncake", "--dataset-path", str(p)])
    assert rc == 1 and fragment in _one_error(capsys)


def test_garbage_multi_turn_dataset(scripted, tmp_path, capsys):
    p = tmp_path / "s.json"
    p.write_text('[{"conversations": [{"value": "a question without an answer"}]}]')
    rc = main(["serve", "--url", scripted.url, "--dataset-name", "sharegpt", "--dataset-path", str(p), "--multi-turn"])
    assert rc == 1 and "no conversation with a user turn and an answer" in _one_error(capsys)
    rc = main(["serve", "--url", scripted.url, "--dataset-name", "sharegpt", "--dataset-path", str(p), "--multi-turn",
               "--endpoint", "completions"])
    assert rc == 2 and "needs --endpoint chat" in _one_error(capsys)
