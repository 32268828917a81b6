"""The streaming reader across block boundaries: whatever the block size, the event sizes
and where the cuts fall, plain or gzipped, every field set loads exactly what ``json.load`` reads.

The documents are generated: events of every table the loader fills, with padding of random size
(so block boundaries fall anywhere inside and between events), separators of random whitespace,
names and unread arguments that hold the reader's cut candidate ``}, {`` inside strings and nested
objects, and metadata before and after ``traceEvents``. The reference is ``json.load`` of the
same bytes, read by this file's own code, never by the loader's.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bench_kernel.trace import load_trace
from bench_kernel.trace._read import EventReader

MODULE = "nn.Module: "
#: Every field set the loader decodes: the Event struct without and with the shapes fields, and
#: the tables each option keeps (links=False: device events only; stacks: every Python frame).
FIELD_SETS = ({"links": False}, {}, {"shapes": True}, {"stacks": True}, {"shapes": True, "stacks": True})

_tricky = st.sampled_from(["k", "void attn<{lambda()#1}, {lambda()#2}>(int)", 'q"}, {"x', "]}", "é ∑ 🙂",
                           "a\\b", "nn.Module: Layer_0", "x},{y"])
_pad = st.integers(0, 1500).map(lambda n: "p" * n)
_dims = st.lists(st.lists(st.integers(0, 4096), max_size=3), max_size=4)
_junk = st.recursive(st.none() | st.integers() | _tricky,
                     lambda c: st.lists(c, max_size=3) | st.dictionaries(st.sampled_from(["a", "b", "}, {"]), c,
                                                                         max_size=3), max_leaves=8)


@st.composite
def _event(draw, i: int) -> dict[str, Any]:
    """One event of a random table; ``i`` makes its start time (and so its identity) unique."""
    kind = draw(st.sampled_from(["kernel", "cpu_op", "cuda_runtime", "python_function", "user_annotation",
                                 "gpu_memcpy", "comm_op", "ac2g"]))
    name = draw(_tricky) + draw(_pad)
    ts, dur = 1000.0 + 3.0 * i, float(draw(st.integers(0, 50)))
    e: dict[str, Any] = {"ph": "X", "cat": kind, "name": name, "pid": 7, "tid": draw(st.integers(1, 3)),
                         "ts": ts, "dur": dur}
    args: dict[str, Any] = {"unread": draw(_junk), "pad": draw(_pad)}
    if kind == "kernel":
        args.update(correlation=i, stream=7, device=0, grid=[draw(st.integers(1, 9)), 1, 1], block=[128, 1, 1])
    elif kind == "cuda_runtime":
        args.update(correlation=i, cbid=211)
        e["name"] = "cudaLaunchKernel"
    elif kind in ("cpu_op", "comm_op"):
        args.update({"External id": i, "Input Dims": draw(_dims), "Input type": draw(st.lists(_tricky, max_size=3)),
                     "Concrete Inputs": draw(st.lists(st.sampled_from(["", "0.5", "[1, -1]"]), max_size=3))})
        if draw(st.booleans()):
            args["Input Strides"] = draw(_dims)
        if kind == "comm_op":
            e["cat"], e["name"] = "cpu_op", "record_param_comms"
            args.update({"Collective name": "allreduce", "Process Group Ranks": [0, 1], "In msg nelems": 64})
    elif kind == "python_function":
        e["name"] = (MODULE + name) if draw(st.booleans()) else f"model.py({i}): forward"
    elif kind == "gpu_memcpy":
        args.update(correlation=i, stream=7, device=0, bytes=draw(st.integers(0, 1 << 20)))
    elif kind == "ac2g":
        e = {"ph": "s", "id": i, "pid": 7, "tid": 7, "ts": ts, "cat": "ac2g", "name": "ac2g"}
        return e
    e["args"] = args
    return e


@st.composite
def _document(draw) -> bytes:
    n = draw(st.integers(0, 40))
    events = [draw(_event(i)) for i in range(n)]
    sep = draw(st.sampled_from([",", ", ", ",\n", " ,\n\t ", "\n,\n"]))
    head = {"schemaVersion": 1, "deviceProperties": [{"name": "Test GPU", "note": "}, {"}], "pad": draw(_pad)}
    tail = {"traceName": "t}, {]", "after": draw(_junk)}
    body = sep.join(json.dumps(e, ensure_ascii=draw(st.booleans())) for e in events)
    lead = draw(st.sampled_from(["", " ", "\n\n"]))
    text = lead + json.dumps(head)[:-1] + ', "traceEvents": [' + body + "], " + json.dumps(tail)[1:]
    return text.encode()


def _freeze(v: Any) -> Any:
    return tuple(_freeze(x) for x in v) if isinstance(v, list) else v


def _expected(doc: dict, *, links: bool = True, shapes: bool = False, stacks: bool = False) -> dict[str, Any]:
    """What a load must hold, read from json.load's document by rules written out here."""
    ev = doc["traceEvents"]
    links = links or shapes or stacks
    kernels = sorted((e for e in ev if e.get("cat") == "kernel"), key=lambda e: e["ts"])
    ops = [e for e in ev if e.get("cat") == "cpu_op"] if links else []
    py = [e for e in ev if e.get("cat") == "python_function" and (stacks or e["name"].startswith(MODULE))] if links else []
    out = {
        "total": len(ev),
        "metadata": {k: v for k, v in doc.items() if k != "traceEvents"},
        "kernels": [(e["name"], e["ts"], e["dur"], e["args"]["correlation"], e["args"]["grid"][0]) for e in kernels],
        "memops": sorted((e["ts"], e["args"]["bytes"]) for e in ev if e.get("cat") == "gpu_memcpy"),
        "launches": [(e["name"], e["args"]["correlation"]) for e in ev if e.get("cat") == "cuda_runtime"] if links else [],
        "ops": [(e["name"], e["ts"], e["dur"], e["args"]["External id"]) for e in ops],
        "python": [(e["name"], e["ts"]) for e in py],
        "annotations": [(e["name"], e["tid"]) for e in ev if e.get("cat") == "user_annotation"] if links else [],
        "comms": [(e["args"]["Collective name"], "[0, 1]") for e in ops if "Collective name" in e["args"]],
    }
    if shapes:
        out["shapes"] = [tuple(_freeze(e["args"].get(k)) for k in ("Input Dims", "Input type", "Concrete Inputs",
                                                                     "Input Strides")) for e in ops]
    return out


def _loaded(t: Any, shapes: bool) -> dict[str, Any]:
    n = t.names
    K, O, L, P, A, M, C = t.kernels, t.ops, t.launches, t.python, t.annotations, t.memops, t.comms
    out = {
        "total": t.event_total,
        "metadata": t.metadata,
        "kernels": [(n[a], b, c, d, g) for a, b, c, d, g in zip(K.name.tolist(), K.start_us.tolist(),
                                                                 K.dur_us.tolist(), K.correlation.tolist(),
                                                                 K.grid[:, 0].tolist())],
        "memops": sorted(zip(M.start_us.tolist(), M.bytes.tolist())),
        "launches": [(n[a], b) for a, b in zip(L.name.tolist(), L.correlation.tolist())],
        "ops": [(n[a], b, c, d) for a, b, c, d in zip(O.name.tolist(), O.start_us.tolist(), O.dur_us.tolist(),
                                                      O.external_id.tolist())],
        "python": [(n[a], b) for a, b in zip(P.name.tolist(), P.start_us.tolist())],
        "annotations": [(n[a], b) for a, b in zip(A.name.tolist(), A.tid.tolist())],
        "comms": [(n[a], n[b]) for a, b in zip(C.collective.tolist(), C.pg_ranks.tolist())],
    }
    if shapes:
        out["shapes"] = list(zip(O.input_dims.tolist(), O.input_types.tolist(), O.concrete_inputs.tolist(),
                                 O.input_strides.tolist()))
    return out


@pytest.mark.slow
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=_document(), block=st.integers(1, 700) | st.sampled_from([4096, 1 << 16]), gz=st.booleans())
def test_every_field_set_equals_json_load_at_any_block_size(tmp_path_factory, data, block, gz):
    p = tmp_path_factory.mktemp("read") / ("t.json.gz" if gz else "t.json")
    p.write_bytes(gzip.compress(data, compresslevel=1) if gz else data)
    doc = json.loads(data)
    for opts in FIELD_SETS:
        t = load_trace(p, block_bytes=block, **opts)
        assert _loaded(t, opts.get("shapes", False)) == _expected(doc, **opts), (opts, block)
        assert t.load_notes == ()


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=_document(), block=st.integers(1, 700), gz=st.booleans())
def test_a_consumer_that_keeps_raw_views_of_every_chunk(tmp_path_factory, data, block, gz):
    # msgspec.Raw values view the reader's buffer. Kept across chunks they once made it raise
    # BufferError; they must also still read what the file held after the reader went on
    # (a buffer reused under them would show other bytes).
    p = tmp_path_factory.mktemp("raw") / ("t.json.gz" if gz else "t.json")
    p.write_bytes(gzip.compress(data) if gz else data)
    dec = msgspec.json.Decoder(list[msgspec.Raw])
    reader = EventReader(p, dec.decode, block_bytes=block)
    kept = [raw for chunk in reader for raw in chunk]
    assert [msgspec.json.decode(r) for r in kept] == json.loads(data)["traceEvents"]
    assert reader.count == len(kept)


def test_shapes_across_many_blocks_of_a_real_layout(tmp_path):
    # The regression as users met it: a load with shapes (what `ops` does) of a trace of many blocks.
    base = json.loads((Path(__file__).parent / "data" / "trace" / "eager.json").read_text())
    events = []
    for r in range(40):
        for e in json.loads(json.dumps(base["traceEvents"])):
            e["ts"] = e.get("ts", 0) + r * 10_000.0
            for key in ("correlation", "External id"):
                if key in e.get("args", {}):
                    e["args"][key] += r * 1000
            events.append(e)
    doc = dict(base, traceEvents=events)
    text = json.dumps(doc).encode()
    assert len(text) > 100 * 4096
    for name, data in (("many.json", text), ("many.json.gz", gzip.compress(text, compresslevel=1))):
        p = tmp_path / name
        p.write_bytes(data)
        for opts in ({"shapes": True}, {"shapes": True, "stacks": True}):
            t = load_trace(p, block_bytes=4096, **opts)
            assert _loaded(t, opts.get("shapes", False)) == _expected(doc, **opts), (name, opts)
