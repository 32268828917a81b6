"""rocprofv3 kernel traces (CSV, JSON) as a trace source: numbers checked against the files with csv/json.

The two ``kernel_trace.csv`` of AMD's documentation are real (two column layouts); the run folder
is built (tests/data/sources/README.md). There is no AMD GPU here.
"""

from __future__ import annotations

import json
from collections import Counter

import numpy as np
import pytest

from _sources import ROCPROF_DOCS, ROCPROF_RUN, csv_rows, union_us
from bench_kernel.errors import TraceError
from bench_kernel.trace import find_steps, inventory, layers, load_trace, ops, phases, timeline

RUN_CSV = ROCPROF_RUN / "4242_kernel_trace.csv"
RUN_JSON = ROCPROF_RUN / "4242_results.json"


def _us(row: dict[str, str], a: str = "Start_Timestamp", b: str = "End_Timestamp") -> tuple[float, float]:
    return int(row[a]) / 1e3, int(row[b]) / 1e3


@pytest.mark.parametrize("path", ROCPROF_DOCS, ids=lambda p: p.parent.name)
def test_docs_kernel_trace_counts_times_and_streams(path):
    rows = csv_rows(path)
    t = load_trace(path)
    inv = inventory(t)
    assert inv.kernel_count == t.kernel_count == len(rows)
    total = sum(int(r["End_Timestamp"]) - int(r["Start_Timestamp"]) for r in rows) / 1e3
    assert inv.total_kernel_us == pytest.approx(total, abs=1e-9)
    assert sum(r.total_us for r in inv.kernels) == pytest.approx(inv.total_kernel_us, rel=1e-12)
    assert sum(r.count for r in inv.kernels) == inv.kernel_count
    assert Counter({r.name: r.count for r in inv.kernels}) == Counter(r["Kernel_Name"] for r in rows)
    stream = "Stream_Id" if "Stream_Id" in rows[0] else "Queue_Id"
    per: dict[int, list] = {}
    for r in rows:
        per.setdefault(int(r[stream]), []).append(_us(r))
    tl = timeline(t)
    assert {b.stream: b.busy_us for b in tl.overall.streams} == pytest.approx(
        {k: union_us(v) for k, v in per.items()}, abs=1e-3)
    assert tl.overall.busy_us == pytest.approx(union_us([iv for v in per.values() for iv in v]), abs=1e-3)
    assert t.backend == "hip"
    assert any("only the kernel trace was read" in n for n in t.load_notes)


@pytest.mark.parametrize("path", ROCPROF_DOCS, ids=lambda p: p.parent.name)
def test_docs_kernel_record_fields(path):
    rows = sorted(csv_rows(path), key=lambda r: int(r["Start_Timestamp"]))
    t = load_trace(path)
    for i, r in enumerate(rows):
        k = t.kernel(i)
        block = tuple(int(r[f"Workgroup_Size_{a}"]) for a in "XYZ")
        items = tuple(int(r[f"Grid_Size_{a}"]) for a in "XYZ")
        assert k.name == r["Kernel_Name"] and k.correlation == int(r["Correlation_Id"])
        assert k.block == block
        assert k.grid == tuple(-(-n // b) for n, b in zip(items, block))  # work-items -> workgroups
        assert k.device == int(r["Agent_Id"].removeprefix("Agent "))
        assert k.smem_bytes == int(r.get("LDS_Block_Size", r.get("Group_Segment_Size")))
        assert k.launch is None and k.op is None


def test_run_folder_reads_the_api_copy_and_marker_traces_beside_the_kernel_trace():
    t = load_trace(RUN_CSV)
    api = csv_rows(ROCPROF_RUN / "4242_hip_api_trace.csv")
    by_corr = {int(r["Correlation_Id"]): r for r in api}
    kernels = sorted(csv_rows(RUN_CSV), key=lambda r: int(r["Start_Timestamp"]))
    for i, r in enumerate(kernels):
        k = t.kernel(i)
        call = by_corr[int(r["Correlation_Id"])]
        assert k.launch.name == call["Function"] and k.launch.kind == "kernel"
        assert (k.launch.start_us, k.launch.pid, k.launch.tid) == (
            pytest.approx(int(call["Start_Timestamp"]) / 1e3), int(call["Process_Id"]), int(call["Thread_Id"]))
    assert len(t.launches) == len(api)
    copies = csv_rows(ROCPROF_RUN / "4242_memory_copy_trace.csv")
    assert len(t.memops) == len(copies)
    assert t.memops.dur_us.sum() == pytest.approx(sum(b - a for a, b in map(_us, copies)))
    assert {t.names[i] for i in t.memops.name} == {"Memcpy HtoD"}
    markers = [r for r in csv_rows(ROCPROF_RUN / "4242_marker_api_trace.csv")
               if int(r["End_Timestamp"]) > int(r["Start_Timestamp"])]
    steps = find_steps(t)
    expected = [r for r in markers if r["Function"].startswith("ProfilerStep#")]
    assert [(s.name, s.start_us, s.end_us) for s in steps] == [
        (r["Function"], pytest.approx(_us(r)[0]), pytest.approx(_us(r)[1])) for r in expected]
    assert {t.names[i] for i in t.python.name} == {r["Function"] for r in markers if r["Function"].startswith("nn.Module")}


def test_json_and_csv_of_one_run_give_the_same_trace():
    a, b = load_trace(RUN_CSV), load_trace(RUN_JSON)
    assert a.kernel_count == b.kernel_count == len(csv_rows(RUN_CSV))
    for i in range(a.kernel_count):
        ka, kb = a.kernel(i), b.kernel(i)
        assert (ka.name, ka.start_us, ka.dur_us, ka.stream, ka.device, ka.correlation, ka.grid, ka.block) == (
            kb.name, kb.start_us, kb.dur_us, kb.stream, kb.device, kb.correlation, kb.grid, kb.block)
        assert ka.launch.name == kb.launch.name and ka.launch.start_us == kb.launch.start_us
    assert [(s.name, s.start_us, s.end_us) for s in find_steps(a)] == [
        (s.name, s.start_us, s.end_us) for s in find_steps(b)]
    assert a.memops.bytes.tolist() == [-1]  # the CSV has no byte count; the JSON has one
    data = json.loads(RUN_JSON.read_text())["rocprofiler-sdk-tool"][0]
    assert b.memops.bytes.tolist() == [r["bytes"] for r in data["buffer_records"]["memory_copy"]]
    gpu = next(g for g in data["agents"] if g["type"] == 2)
    assert b.device_name == gpu["product_name"] and a.device_name is None


def test_json_kernel_names_come_from_kernel_symbols_by_id():
    data = json.loads(RUN_JSON.read_text())["rocprofiler-sdk-tool"][0]
    names = {s["kernel_id"]: s["formatted_kernel_name"] for s in data["kernel_symbols"]}
    records = sorted(data["buffer_records"]["kernel_dispatch"], key=lambda r: r["start_timestamp"])
    t = load_trace(RUN_JSON)
    assert [t.kernel(i).name for i in range(t.kernel_count)] == [names[r["dispatch_info"]["kernel_id"]] for r in records]
    total = sum(r["end_timestamp"] - r["start_timestamp"] for r in records) / 1e3
    assert inventory(t).total_kernel_us == pytest.approx(total, abs=1e-9)


@pytest.mark.parametrize("path", [RUN_CSV, RUN_JSON], ids=["csv", "json"])
def test_run_phases_and_layers(path):
    t = load_trace(path)
    kernels = sorted(csv_rows(RUN_CSV), key=lambda r: int(r["Start_Timestamp"]))
    api = {int(r["Correlation_Id"]): int(r["Start_Timestamp"]) for r in csv_rows(ROCPROF_RUN / "4242_hip_api_trace.csv")}
    steps = [r for r in csv_rows(ROCPROF_RUN / "4242_marker_api_trace.csv") if r["Function"].startswith("ProfilerStep#")]
    per_step = [sum(int(k["End_Timestamp"]) - int(k["Start_Timestamp"]) for k in kernels
                    if int(s["Start_Timestamp"]) <= api[int(k["Correlation_Id"])] <= int(s["End_Timestamp"])) / 1e3
                for s in steps]
    rep = phases(t)
    assert rep.method == "kernel_time"
    floor = min(per_step)
    assert rep.phases["prefill"].kernel_us == pytest.approx(sum(x for x in per_step if x >= 2 * floor))
    assert rep.phases["decode"].kernel_us == pytest.approx(sum(x for x in per_step if x < 2 * floor))
    names = [k["Kernel_Name"] for k in kernels]
    attn = [i for i, n in enumerate(names) if "FmhaFwd" in n]
    lay = layers(t)
    assert lay.period == Counter(np.diff(attn).tolist()).most_common(1)[0][0] and lay.layer_count == len(attn)


def test_ops_and_stacks_are_refused_in_one_line():
    t = load_trace(RUN_JSON, shapes=True)
    with pytest.raises(TraceError, match=r"ops needs the input shapes and dtypes of each op, and a rocprofv3 trace "
                                         r"does not record it"):
        ops(t)
    with pytest.raises(TraceError, match="Python stack of each launch, and a rocprofv3 trace does not record it"):
        t.stack(0)


def test_cli_on_rocprof_outputs(run_cli):
    for path in (*ROCPROF_DOCS, RUN_CSV, RUN_JSON):
        r = run_cli("inventory", str(path), "--json")
        assert r.exit_code == 0, r.stderr
        rows = csv_rows(path) if path.suffix == ".csv" else None
        if rows is not None:
            assert json.loads(r.stdout)["kernel_count"] == len(rows)
    for cmd in ("timeline", "layers", "phases"):
        r = run_cli(cmd, str(RUN_JSON), "--json")
        assert r.exit_code == 0, (cmd, r.stderr)
    r = run_cli("source-trace", "--trace", str(RUN_CSV), "--step", "0")
    assert r.exit_code == 1 and r.stderr.count("\n") == 1 and "rocprofv3 trace does not record it" in r.stderr
