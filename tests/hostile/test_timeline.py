"""Hostile inputs for ``bench-kernel timeline``: each one exit code and one exact error line (or, where
the input is odd but analysable, the note that says so)."""

from __future__ import annotations

import gzip
import json
import shutil
from pathlib import Path

import pytest

DATA = Path(__file__).resolve().parent.parent / "data" / "trace"
NCCL = DATA / "ranks_nccl"


def _one_error(r, code: int, message: str) -> None:
    assert r.exit_code == code and r.stdout == ""
    assert r.stderr == f"bench-kernel: error: {message}\n"


def _ranks(tmp_path: Path) -> Path:
    d = tmp_path / "ranks"
    shutil.copytree(NCCL, d)
    return d


def _doc(path: Path) -> dict:
    return json.loads(path.read_text())


def test_directory_without_trace_files(run_cli, tmp_path):
    (tmp_path / "notes.txt").write_text("x")
    _one_error(run_cli("timeline", str(tmp_path)), 1, f"{tmp_path} holds no trace files (*.json, *.json.gz)")


def test_files_without_a_rank(run_cli, tmp_path):
    for name in ("a.json", "b.json"):
        shutil.copy(DATA / "eager.json", tmp_path / name)
    _one_error(run_cli("timeline", str(tmp_path)), 1,
               f"{tmp_path}: a.json, b.json name no rank (no distributedInfo.rank, no rank<N> in the file name); "
               f"rename them trace_rank<N>.json or pass one file")


def test_two_files_claim_one_rank(run_cli, tmp_path):
    d = _ranks(tmp_path)
    shutil.copy(d / "trace_rank0.json", d / "copy_rank0.json")
    _one_error(run_cli("timeline", str(d)), 1,
               f"{d}: 2 traces claim rank 0 (copy_rank0.json, trace_rank0.json); keep one file per rank")


@pytest.mark.multiprocess
def test_truncated_rank_file_among_good_ones(run_cli, tmp_path):
    d = _ranks(tmp_path)
    text = (d / "trace_rank1.json").read_text()
    (d / "trace_rank1.json").write_text(text[: len(text) // 2])
    r = run_cli("timeline", str(d), "--workers", "2")
    assert r.exit_code == 1 and r.stdout == "" and r.stderr.count("\n") == 1
    assert r.stderr.startswith(f"bench-kernel: error: {d / 'trace_rank1.json'}: traceEvents is cut off after about ")


def test_truncated_gzip_rank_file(run_cli, tmp_path):
    d = _ranks(tmp_path)
    blob = gzip.compress((d / "trace_rank0.json").read_bytes())
    (d / "trace_rank0.json").unlink()
    (d / "trace_rank0.json.gz").write_bytes(blob[: len(blob) // 2])
    r = run_cli("timeline", str(d), "--workers", "1")
    assert r.exit_code == 1 and r.stderr.count("\n") == 1
    assert f"{d / 'trace_rank0.json.gz'}: truncated or corrupt gzip" in r.stderr


def test_ranks_with_mismatched_steps(run_cli, tmp_path):
    # rank 1 stops after two steps: its third step and all-reduce are gone
    d = _ranks(tmp_path)
    doc = _doc(d / "trace_rank1.json")
    step2 = next(e for e in doc["traceEvents"] if e.get("name") == "ProfilerStep#2")
    doc["traceEvents"] = [e for e in doc["traceEvents"] if e.get("ts", 0) < step2["ts"]]
    (d / "trace_rank1.json").write_text(json.dumps(doc))
    r = run_cli("timeline", str(d), "--workers", "1", "--json")
    assert r.exit_code == 0, r.stderr
    out = json.loads(r.stdout)
    assert [x["steps"] for x in out["ranks"]] == [3, 2] and len(out["collectives"]) == 2
    assert out["notes"] == ["1 collectives appear in one rank's trace only (the traces cover different iterations, "
                            "or a rank is missing): left out of the skew",
                            "ranks found different numbers of steps (rank 0: 3, rank 1: 2): step times are compared "
                            "as medians"]


def test_collectives_that_differ_between_ranks(run_cli, tmp_path):
    d = _ranks(tmp_path)
    doc = _doc(d / "trace_rank1.json")
    for e in doc["traceEvents"]:
        if e.get("name") == "record_param_comms":
            e["args"]["Collective name"] = "broadcast"
    (d / "trace_rank1.json").write_text(json.dumps(doc))
    out = json.loads(run_cli("timeline", str(d), "--workers", "1", "--json").stdout)
    assert out["collectives"] == [] and out["straggler_basis"] == "step time"
    assert "3 collectives differ in type between ranks at the same position: the traces are not aligned; " \
           "left out of the skew" in out["notes"]


def test_trace_without_device_work(run_cli, tmp_path):
    p = tmp_path / "t.json"
    p.write_text('{"traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "ts": 1, "dur": 2}]}')
    _one_error(run_cli("timeline", str(p)), 1,
               f"{p}: no kernels or memory operations on the device (cpu_op: 1); profile with "
               f"activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]")


def test_empty_and_non_json_files(run_cli, tmp_path):
    p = tmp_path / "t.json"
    p.write_text('{"traceEvents": []}')
    _one_error(run_cli("timeline", str(p)), 1,
               f"{p}: no kernels or memory operations on the device (no events); profile with "
               f"activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]")
    p.write_text("not json")
    r = run_cli("timeline", str(p))
    assert r.exit_code == 1 and r.stderr.startswith(f"bench-kernel: error: {p}: not JSON")


def test_missing_path_and_bad_options(run_cli, tmp_path):
    _one_error(run_cli("timeline", str(tmp_path / "nope.json")), 1, f"trace file not found: {tmp_path / 'nope.json'}")
    r = run_cli("timeline", str(DATA / "eager.json"), "--workers", "0")
    assert r.exit_code == 2 and "--workers" in r.stderr and r.stderr.count("\n") == 1
    r = run_cli("timeline", str(DATA / "eager.json"), "--max-steps", "-1")
    assert r.exit_code == 2 and "--max-steps" in r.stderr
    r = run_cli("timeline", str(NCCL), "--rank", "5")
    _one_error(r, 1, f"no trace for rank 5 in {NCCL}; ranks found: 0, 1")


def _kernel(name, ts, dur, corr, launch_ts=None):
    ev = [{"ph": "X", "cat": "kernel", "name": name, "pid": 0, "tid": 7, "ts": ts, "dur": dur,
           "args": {"device": 0, "stream": 7, "correlation": corr}}]
    if launch_ts is not None:
        ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": launch_ts,
                   "dur": 3.0, "args": {"correlation": corr}})
    return ev


def test_clock_skew_and_zero_length_kernels_are_reported_not_hidden(run_cli, tmp_path):
    p = tmp_path / "t.json"
    # the second kernel starts 7 us before its launch call: the clocks disagree
    p.write_text(json.dumps({"traceEvents": _kernel("a", 100.0, 5.0, 1, 90.0) + _kernel("b", 110.0, 5.0, 2, 117.0)}))
    d = json.loads(run_cli("timeline", str(p), "--json").stdout)
    assert "1 device events start before their launch call (by up to 7 µs): host and device clocks disagree, so " \
           "launch delays and idle causes near them are approximate" in d["notes"]
    p.write_text(json.dumps({"traceEvents": _kernel("a", 100.0, 0.0, 1, 90.0)}))
    r = run_cli("timeline", str(p), "--json")
    o = json.loads(r.stdout)["overall"]
    assert r.exit_code == 0 and (o["wall_us"], o["busy_us"], o["busy_pct"]) == (0.0, 0.0, 0.0)
    assert o["diagnosis"] == "no device work in this window"


def test_memcpy_only_trace(run_cli, tmp_path):
    p = tmp_path / "t.json"
    p.write_text(json.dumps({"traceEvents": [
        {"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD (Pageable -> Device)", "pid": 0, "tid": 7, "ts": 10.0,
         "dur": 4.0, "args": {"device": 0, "stream": 7, "correlation": 5, "bytes": 64}}]}))
    o = json.loads(run_cli("timeline", str(p), "--json").stdout)["overall"]
    assert (o["busy_us"], o["memcpy_us"], o["compute_us"], o["exposed_memcpy_us"]) == (4.0, 4.0, 0.0, 4.0)


def test_names_are_data_not_markup(run_cli, tmp_path):
    p = tmp_path / "t.json"
    ev = _kernel("[bold]k[/bold]", 100.0, 1.0, 1, 90.0)  # shorter than its launch: named in a note
    ev.append({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#[red]1[/red]", "pid": 1, "tid": 1,
               "ts": 80.0, "dur": 40.0})
    p.write_text(json.dumps({"traceEvents": ev}))
    r = run_cli("timeline", str(p), "--steps", str(_rules(tmp_path)))
    assert r.exit_code == 0, r.stderr
    assert "ProfilerStep#[red]1[/red]" in r.stdout and "[bold]k[/bold]" in r.stdout


def _rules(tmp_path: Path) -> Path:
    p = tmp_path / "steps.json"
    p.write_text(json.dumps({"version": 1, "rules": [{"name": "any", "kind": "annotation", "pattern": "^ProfilerStep"}]}))
    return p


def test_links_free_load_is_refused_in_the_api():
    from bench_kernel.errors import InputError
    from bench_kernel.trace import load_trace, timeline

    with pytest.raises(InputError, match=r"^timeline needs the host events of the trace; load it with "
                                         r"load_trace\(\.\.\., links=True\)$"):
        timeline(load_trace(DATA / "eager.json", links=False))


def test_identical_ranks_have_no_straggler(run_cli, tmp_path):
    d = tmp_path / "same"
    d.mkdir()
    for r in (0, 1):
        doc = _doc(NCCL / "trace_rank0.json")
        doc["distributedInfo"]["rank"] = r
        (d / f"trace_rank{r}.json").write_text(json.dumps(doc))
    out = json.loads(run_cli("timeline", str(d), "--workers", "1", "--json").stdout)
    assert (out["straggler"], out["straggler_by_us"]) == (None, None)
    assert out["notes"] == ["no straggler: the ranks' collective arrivals agree within 1%"]
    assert {c["skew_us"] for c in out["collectives"]} == {0.0}
