"""Hostile traces for the loader: each one exact totals and note, or one exact error line.

Big inputs are made on the fly: a gzip file may hold many members and decompresses to their
concatenation, so 2 GB of whitespace is 2,048 copies of one compressed MiB (2 MB on disk, made in
milliseconds). The memory test runs the CLI in a subprocess under an address-space limit.
"""

from __future__ import annotations

import gzip
import json
import os
import re
import resource
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from bench_kernel.errors import InputError, TraceError, UsageError
from bench_kernel.trace import load_step_rules, load_trace, parse_frame
from bench_kernel.trace._read import MAX_EVENT_BYTES, MAX_HEAD_BYTES, MAX_LEADING_WHITESPACE

DATA = Path(__file__).resolve().parent.parent / "data" / "trace"
MIB = 1 << 20


def _kernel(name: str, ts: float, dur: float | None = 2.0, **extra) -> dict:
    e = {"ph": "X", "cat": "kernel", "name": name, "pid": 0, "tid": 7, "ts": ts,
         "args": {"correlation": int(ts), "stream": 7, "device": 0}}
    if dur is not None:
        e["dur"] = dur
    e.update(extra)
    return e


def _write_json(tmp_path: Path, doc, name: str = "t.json") -> Path:
    p = tmp_path / name
    p.write_text(json.dumps(doc))
    return p


def _gzip_members(path: Path, parts: list[tuple[bytes, int]]) -> Path:
    """A gzip file that expands to ``part * count`` for each (part, count): one member per part, repeated."""
    with open(path, "wb") as f:
        for part, count in parts:
            member = gzip.compress(part, compresslevel=9)
            for _ in range(count):
                f.write(member)
    return path


def _one_error(r, message: str) -> None:
    assert (r.exit_code, r.stdout) == (1, "")
    assert r.stderr == f"bench-kernel: error: {message}\n"


# -- only the top-level traceEvents ---------------------------------------------------------------
def test_a_traceevents_key_nested_in_metadata_is_not_the_event_list(tmp_path, run_cli):
    real = [_kernel(f"k{i}", 10.0 * i) for i in range(12)]
    fake = [_kernel("fake", 0.0, 99_999.0)]
    p = _write_json(tmp_path, {"distributedInfo": {"rank": 0, "traceEvents": fake},
                               "note": 'a string with "traceEvents": [ inside', "traceEvents": real})
    t = load_trace(p)
    assert (t.kernel_count, float(t.kernels.dur_us.sum())) == (12, 24.0)
    assert t.metadata["distributedInfo"]["traceEvents"][0]["name"] == "fake" and t.rank == 0
    r = run_cli("inventory", str(p), "--json")
    assert r.exit_code == 0 and json.loads(r.stdout)["total_kernel_us"] == 24.0


def test_too_many_nested_traceevents_keys_is_one_error(tmp_path):
    nested = {f"m{i}": {"traceEvents": []} for i in range(70)}
    p = _write_json(tmp_path, dict(nested, traceEvents=[_kernel("k", 1.0)]))
    with pytest.raises(TraceError, match=r"more than 64 'traceEvents' keys that are not the document's own"):
        load_trace(p)


# -- events that made totals silently wrong ----------------------------------------------------------
BAD_EVENTS = [
    _kernel("good", 10.0, 5.0),
    _kernel("negative", 20.0, -3.0),
    _kernel("no_dur", 30.0, None),
    _kernel("good", 40.0, 5.0), _kernel("good", 40.0, 5.0),  # an exact duplicate
    {"ph": "B", "cat": "kernel", "name": "paired", "pid": 0, "tid": 8, "ts": 50.0, "args": {"correlation": 99}},
    {"ph": "E", "cat": "kernel", "pid": 0, "tid": 8, "ts": 62.0},
    {"ph": "E", "cat": "kernel", "pid": 0, "tid": 9, "ts": 70.0},
    {"ph": "B", "cat": "kernel", "name": "never_closed", "pid": 0, "tid": 10, "ts": 75.0},
    {"ph": "i", "cat": "kernel", "name": "instant", "pid": 0, "tid": 7, "ts": 80.0},
    {"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD", "pid": 0, "tid": 7, "ts": 90.0, "dur": -1.0},
]


def test_negative_missing_paired_and_duplicate_events_give_exact_totals_and_one_note(tmp_path, run_cli):
    p = _write_json(tmp_path, {"traceEvents": BAD_EVENTS})
    t = load_trace(p)
    assert sorted(t.names[i] for i in t.kernels.name) == ["good", "good", "paired"]
    assert float(t.kernels.dur_us.sum()) == 5.0 + 5.0 + 12.0 and len(t.memops) == 0
    note = ("trace: left out 5 kernel events (1 with a negative 'dur', 1 without 'dur', 1 'E' without a 'B', "
            "1 not a duration event, 1 'B' never closed); left out 1 memop event (1 with a negative 'dur'); "
            "counted 1 kernel B/E pair as complete events; dropped 1 exact duplicate kernel event")
    assert t.load_notes == (note,)
    r = run_cli("inventory", str(p), "--json")
    d = json.loads(r.stdout)
    assert (r.exit_code, d["kernel_count"], d["total_kernel_us"], d["load_notes"]) == (0, 3, 22.0, [note])
    table = run_cli("inventory", str(p))
    assert table.exit_code == 0 and "3 kernels, 22 µs" in table.stdout
    assert "note: trace: left out 5 kernel events" in table.stdout


def test_a_clean_trace_has_no_load_note(traces_dir):
    t = load_trace(traces_dir / "h200__llama_eager_generate.json.gz")
    assert t.load_notes == () and t.kernel_count == 4785


def test_every_trace_command_shows_the_load_note(tmp_path, run_cli):
    doc = json.loads((DATA / "eager.json").read_text())
    k0 = next(e for e in doc["traceEvents"] if e.get("cat") == "kernel")
    doc["traceEvents"].append(dict(k0))  # one exact duplicate
    p = _write_json(tmp_path, doc)
    note = "trace: dropped 1 exact duplicate kernel event"
    for argv in (["inventory", str(p)], ["layers", str(p)], ["phases", str(p)], ["diff", str(p), str(p)],
                 ["timeline", str(p)], ["ops", str(p), "--device", "H200"]):
        d = json.loads(run_cli(*argv, "--json").stdout)
        want = [note] if argv[0] != "diff" else [f"t.json: {note}", f"t.json: {note}"]
        assert d["load_notes"] == want, argv


# -- memory and whitespace bounds ----------------------------------------------------------------
EVENT = json.dumps(_kernel("k", 1.0)).encode()


def test_a_valid_trace_after_17_mb_of_leading_whitespace_loads(tmp_path):
    p = _gzip_members(tmp_path / "lead.json.gz", [(b" " * MIB, 17), (b'{"traceEvents": [' + EVENT + b"]}", 1)])
    t = load_trace(p)
    assert (t.kernel_count, float(t.kernels.dur_us.sum())) == (1, 2.0)


def test_leading_whitespace_past_the_bound_is_one_error(tmp_path, run_cli):
    n = MAX_LEADING_WHITESPACE // MIB + 32
    p = _gzip_members(tmp_path / "ws.json.gz", [(b" " * MIB, n), (b'{"traceEvents": []}', 1)])
    _one_error(run_cli("inventory", str(p)), f"{p}: more than 64 MiB of whitespace before the JSON starts; "
                                             "not a Kineto/Chrome trace")


def test_only_whitespace_is_not_called_empty(tmp_path):
    p = _gzip_members(tmp_path / "blank.json.gz", [(b"\n" * MIB, 3)])
    with pytest.raises(TraceError, match="the file holds only whitespace, not a trace"):
        load_trace(p)


@pytest.mark.parametrize("kind", ["whitespace", "string", "bare array"])
def test_no_event_boundary_past_the_bound_is_one_error(tmp_path, run_cli, kind):
    # The pending text grew without bound and was rescanned for a cut after every block (quadratic).
    filler = b" " * MIB if kind == "whitespace" else b"x" * MIB
    head = {"whitespace": b'{"traceEvents": [' + EVENT + b",", "string": b'{"traceEvents": [{"name": "',
            "bare array": b'[{"name": "'}[kind]
    p = _gzip_members(tmp_path / "big.json.gz", [(head, 1), (filler, 1024), (b'"}]}', 1)])
    assert p.stat().st_size < 4 * MIB  # expands to 1 GiB
    r = run_cli("inventory", str(p))
    assert (r.exit_code, r.stdout) == (1, "")
    assert r.stderr.startswith(f"bench-kernel: error: {p}: no event boundary in ")
    assert r.stderr.endswith(" of traceEvents after about 0 events: an event over 64 MiB (a huge string or "
                             "whitespace run) or malformed JSON; not read\n") and r.stderr.count("\n") == 1


def test_huge_metadata_before_traceevents_is_one_error(tmp_path, run_cli):
    n = MAX_HEAD_BYTES // MIB + 1
    p = _gzip_members(tmp_path / "meta.json.gz", [(b'{"pad": "', 1), (b"x" * MIB, n),
                                                  (b'", "traceEvents": [' + EVENT + b"]}", 1)])
    _one_error(run_cli("inventory", str(p)),
               f"{p}: no top-level 'traceEvents' array in the first 64 MiB (a 'traceEvents' nested in metadata "
               "does not count); not a Kineto/Chrome trace, or one whose metadata is too large to read")


def test_a_big_metadata_value_is_not_kept_and_said(tmp_path):
    p = _write_json(tmp_path, {"pad": "y" * (2 * MIB), "traceEvents": [_kernel("k", 1.0)], "traceName": "x"})
    t = load_trace(p)
    assert t.kernel_count == 1 and "pad" not in t.metadata and t.metadata["traceName"] == "x"
    assert t.load_notes == ("metadata 'pad' (2 MiB) is over 1 MiB and was not kept",)


_CHILD = ("import sys\n"
          "from bench_kernel.cli import main\n"
          "sys.exit(main(sys.argv[1:]))\n")


def _limited_run(argv: list[str], limit_bytes: int, stdin=None) -> subprocess.CompletedProcess:
    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (limit_bytes, limit_bytes))

    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", MKL_NUM_THREADS="1",
               PYTHONPATH=str(Path(__file__).resolve().parents[2] / "src"))
    return subprocess.run([sys.executable, "-c", _CHILD, *argv], capture_output=True, text=True, preexec_fn=limit,
                          env=env, stdin=stdin, timeout=120)


@pytest.mark.slow
@pytest.mark.multiprocess
@pytest.mark.skipif(sys.platform != "linux", reason="RLIMIT_AS semantics are Linux's")
def test_an_expanding_gzip_under_a_memory_limit_is_one_error_line_not_a_memory_error(tmp_path):
    # 2 GiB of whitespace inside traceEvents from a 2 MB file; the loader before its bounds buffered it
    # all and died with "internal error: MemoryError" under this limit.
    p = _gzip_members(tmp_path / "bomb.json.gz", [(b'{"traceEvents": [' + EVENT + b",", 1), (b" " * MIB, 2048),
                                                  (EVENT + b"]}", 1)])
    r = _limited_run(["inventory", str(p)], 768 * MIB)
    assert r.returncode == 1 and r.stdout == ""
    assert r.stderr.count("\n") == 1 and "MemoryError" not in r.stderr and "Traceback" not in r.stderr
    assert r.stderr.startswith(f"bench-kernel: error: {p}: no event boundary in ")


# -- pipes and FIFOs ---------------------------------------------------------------------------------
@pytest.mark.multiprocess
def test_a_gzip_piped_to_stdin_is_read(traces_dir):
    src = traces_dir / "h200__inductor_mlp_rmsnorm.json.gz"
    with open(src, "rb") as f:
        r = _limited_run(["inventory", "/dev/stdin", "--json"], 4096 * MIB, stdin=f)
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    assert (d["kernel_count"], round(d["total_kernel_us"], 3)) == (30, 81.217)


def test_a_fifo_is_read_once_forward(tmp_path):
    fifo = tmp_path / "trace_fifo"
    os.mkfifo(fifo)
    data = gzip.compress((DATA / "eager.json").read_bytes())

    def writer() -> None:
        with open(fifo, "wb") as f:
            f.write(data)

    th = threading.Thread(target=writer, daemon=True)
    th.start()
    t = load_trace(fifo)
    th.join(timeout=10)
    assert (t.kernel_count, t.rank) == (42, None)
    with pytest.raises(TraceError, match="is not a regular file .* cannot be read twice"):
        t.ensure_stacks()


# -- small ---------------------------------------------------------------------------------------------
def test_an_unknown_key_in_a_steps_rule_is_an_error_naming_it(tmp_path, run_cli):
    p = _write_json(tmp_path, {"version": 1, "rules": [{"name": "mine", "kind": "annotation", "patern": "^s"}]},
                    "steps.json")
    with pytest.raises(InputError, match=r"rules\[0\] \(mine\): unknown key 'patern'"):
        load_step_rules(p)
    _one_error(run_cli("inventory", str(DATA / "eager.json"), "--per-step", "--steps", str(p)),
               f"{p}: rules[0] (mine): unknown key 'patern'; a rule's keys are name, kind, pattern, phase_group, "
               "phase_map, phase_counts, about")
    top = _write_json(tmp_path, {"version": 1, "rules": [], "gemm_op": {}}, "top.json")
    with pytest.raises(InputError, match=r"unknown key 'gemm_op'; the file's keys are version"):
        load_step_rules(top)


def test_parse_frame_is_linear_on_a_crafted_name():
    name = "a(1): " * 20_000 + "\n" + "x"  # a newline made every candidate scan to the end
    t0 = time.process_time()
    f = parse_frame(name)
    assert time.process_time() - t0 < 0.5 and (f.file, f.line) == ("a", 1)


def test_the_bounds_are_the_documented_ones():
    assert (MAX_LEADING_WHITESPACE, MAX_HEAD_BYTES, MAX_EVENT_BYTES) == (64 * MIB, 64 * MIB, 64 * MIB)


@pytest.mark.parametrize("bad", [-5, 0, True, 1.5, "16", 10**12])
def test_block_bytes_outside_its_range_is_a_usage_error_naming_the_field(tmp_path, bad):
    # -5 was once a bare ValueError from deep inside the reader; it is checked before the file.
    for path in (DATA / "eager.json", tmp_path / "missing.json"):
        with pytest.raises(UsageError, match=rf"^block_bytes={re.escape(repr(bad))}: the read block must be a whole "
                                             r"number of bytes from 1 to 268,435,456 \(256 MiB\)"):
            load_trace(path, block_bytes=bad)
