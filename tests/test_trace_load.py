"""The trace loader: chunked decoding equals a whole-file json.load, bad input is one TraceError."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bench_kernel.errors import TraceError
from bench_kernel.trace import load_trace

DATA = Path(__file__).parent / "data" / "trace"
EAGER = DATA / "eager.json"


def _kernels_by_json(path: Path) -> list[dict]:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt") as f:
        events = json.load(f)["traceEvents"]
    return sorted((e for e in events if e.get("cat") == "kernel"), key=lambda e: e["ts"])


@pytest.mark.parametrize("block_bytes", [64, 257, 4096, 16 << 20])
def test_chunked_decode_equals_json_load(block_bytes):
    # Tiny blocks force a cut in almost every event, including candidates inside the kernel name
    # "void attn<{lambda()#1}, {lambda()#2}>(int)" that must be rejected.
    t = load_trace(EAGER, block_bytes=block_bytes)
    ref = _kernels_by_json(EAGER)
    assert [t.names[i] for i in t.kernels.name] == [e["name"] for e in ref]
    np.testing.assert_allclose(t.kernels.dur_us, [e["dur"] for e in ref])
    assert t.kernels.correlation.tolist() == [e["args"]["correlation"] for e in ref]
    assert t.event_total == len(json.loads(EAGER.read_text())["traceEvents"])
    assert t.metadata["traceName"] == "eager.json"
    assert t.device_name == "Test GPU (cuda)"


def test_gzip_and_plain_and_bare_array_agree(tmp_path):
    plain = json.loads(EAGER.read_text())
    gz = tmp_path / "t.json.gz"
    gz.write_bytes(gzip.compress(json.dumps(plain).encode()))
    bare = tmp_path / "bare.json"  # the Chrome format allows a top-level array of events
    bare.write_text(json.dumps(plain["traceEvents"]))
    a, b, c = load_trace(EAGER), load_trace(gz), load_trace(bare)
    for t in (b, c):
        assert t.kernels.dur_us.tolist() == a.kernels.dur_us.tolist()
        assert [t.names[i] for i in t.kernels.name] == [a.names[i] for i in a.kernels.name]


def test_trace_events_after_large_metadata_and_in_the_middle(tmp_path):
    doc = json.loads(EAGER.read_text())
    events = doc.pop("traceEvents")
    text = json.dumps({"pad": ["x" * 100] * 50, "traceEvents": events, "tail": {"a": [1, 2, {"b": "]"}]}})
    p = tmp_path / "mid.json"
    p.write_text(text)
    t = load_trace(p, block_bytes=512)
    assert t.kernel_count == 42
    assert t.metadata["tail"] == {"a": [1, 2, {"b": "]"}]}


def test_lenient_arg_types_become_missing_or_parsed(tmp_path):
    events = [{"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 1.0, "dur": 2.0,
               "args": {"correlation": "12", "stream": None, "grid": "oops", "registers per thread": 3.0}}]
    p = tmp_path / "t.json"
    p.write_text(json.dumps({"traceEvents": events}))
    k = load_trace(p).kernel(0)
    assert (k.correlation, k.stream, k.grid, k.regs) == (12, -1, None, 3)


def _write(tmp_path: Path, name: str, data: bytes) -> Path:
    p = tmp_path / name
    p.write_bytes(data)
    return p


@pytest.mark.parametrize("name,data,fragment", [
    ("empty.json", b"", "empty"),
    ("text.json", b"hello world", "not JSON"),
    ("list.json", b'{"foo": [1, 2]}', "without 'traceEvents'"),
    ("bad.json", b'{"traceEvents": [{"ph": "X", "name": 1, "cat": "kernel"}]}', "unexpected type"),
    ("trunc.json", b'{"traceEvents": [{"ph": "X", "cat": "kernel", "name": "k", "ts": 1', "cut off"),
    ("broken.json", b'{"traceEvents": [{"ph": "X" "cat": "kernel"}]}', "malformed"),
    ("deep.json", b'{"a": ' + b"[" * 100000 + b"]" * 100000 + b"}", "nested too deeply"),
    ("deeparg.json", b'{"traceEvents": [{"cat": "kernel", "args": {"grid": ' + b"[" * 100000 + b"]" * 100000
     + b"}}]}", "nested too deeply"),
    ("arrays.json", b"[[1], [2]]", "Expected `object`, got `array` - at `event #0`"),
    ("open.json", b"[" * 1000, "cut off"),
])
def test_bad_input_is_one_trace_error(tmp_path, name, data, fragment):
    with pytest.raises(TraceError, match=fragment):
        load_trace(_write(tmp_path, name, data))


def test_truncated_gzip(tmp_path):
    whole = gzip.compress(EAGER.read_bytes())
    with pytest.raises(TraceError, match="truncated or corrupt gzip"):
        load_trace(_write(tmp_path, "t.json.gz", whole[: len(whole) // 2]))


def test_missing_file_and_directory(tmp_path):
    with pytest.raises(TraceError, match="not found"):
        load_trace(tmp_path / "nope.json")
    with pytest.raises(TraceError, match="no trace files"):
        load_trace(tmp_path)


def test_empty_trace_and_trace_without_kernels_load(tmp_path):
    empty = load_trace(_write(tmp_path, "e.json", b'{"traceEvents": []}'))
    assert (empty.kernel_count, empty.event_total) == (0, 0)
    doc = json.loads(EAGER.read_text())
    doc["traceEvents"] = [e for e in doc["traceEvents"] if e.get("cat") != "kernel"]
    t = load_trace(_write(tmp_path, "nok.json", json.dumps(doc).encode()))
    assert t.kernel_count == 0 and t.event_counts["cpu_op"] == 42


def test_rank_selection():
    ranks = DATA / "ranks"
    one = load_trace(ranks, rank=1)
    assert one.rank == 1 and one.names[one.kernels.name[0]] == "rank1_kernel"
    with pytest.raises(TraceError, match=r"no trace for rank 5 .*ranks found: 0, 1"):
        load_trace(ranks, rank=5)
    with pytest.raises(TraceError, match=r"holds 2 traces \(ranks: 0, 1\); pick one with --rank"):
        load_trace(ranks)
    with pytest.raises(TraceError, match="is the trace of rank 0, not 1"):
        load_trace(ranks / "trace_rank0.json", rank=1)


def test_links_false_keeps_only_device_events():
    t = load_trace(EAGER, links=False)
    assert t.kernel_count == 42 and len(t.memops) == 1
    assert len(t.launches) == len(t.ops) == len(t.annotations) == 0


# -- fuzzing: whatever the bytes, the loader returns a Trace or raises TraceError -------------------
_VALID = EAGER.read_bytes()


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cut=st.integers(0, len(_VALID)), flips=st.lists(st.tuples(st.integers(0, len(_VALID) - 1),
                                                                 st.integers(0, 255)), max_size=4),
       block=st.sampled_from([32, 1000, 1 << 20]))
def test_fuzz_mutated_trace(tmp_path_factory, cut, flips, block):
    data = bytearray(_VALID[:cut])
    for pos, value in flips:
        if pos < len(data):
            data[pos] = value
    p = tmp_path_factory.mktemp("fuzz") / "t.json"
    p.write_bytes(bytes(data))
    try:
        load_trace(p, block_bytes=block)
    except TraceError:
        pass


@settings(max_examples=60, deadline=None)
@given(doc=st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
                        lambda c: st.lists(c, max_size=4) | st.dictionaries(st.sampled_from(
                            ["traceEvents", "cat", "name", "ts", "dur", "args", "pid", "correlation", "grid"]),
                            c, max_size=5), max_leaves=20), gz=st.booleans())
def test_fuzz_arbitrary_json(tmp_path_factory, doc, gz):
    raw = json.dumps(doc).encode()
    p = tmp_path_factory.mktemp("fuzz") / ("t.json.gz" if gz else "t.json")
    p.write_bytes(gzip.compress(raw) if gz else raw)
    try:
        load_trace(p)
    except TraceError:
        pass


@pytest.mark.parametrize("block_bytes", [16, 300, 16 << 20])
def test_lists_after_trace_events_are_metadata_not_events(tmp_path, block_bytes):
    # Found by tests/test_trace_read.py: a list that ends the document ("deviceProperties": [...]}) was
    # taken for the end of traceEvents (malformed JSON, no trace), and a "}, {" in it, read while
    # events were still pending, for a cut between events.
    events = [{"ph": "X", "cat": "kernel", "name": f"k{i}", "ts": 10.0 * i, "dur": 2.0} for i in range(40)]
    tail = {"deviceProperties": [{"name": "H200"}, {"name": "H200"}], "extra": [[1], [2, {"a": "]"}]]}
    p = _write(tmp_path, "tail.json", json.dumps(dict({"traceEvents": events}, **tail)).encode())
    t = load_trace(p, block_bytes=block_bytes)
    assert (t.kernel_count, float(t.kernels.dur_us.sum())) == (40, 80.0)
    assert {k: t.metadata[k] for k in tail} == tail and t.device_name == "H200"

