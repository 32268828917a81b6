"""Nsight Systems SQLite exports as a trace source: every number checked against SQL on the fixture.

``fuser`` is a real H200 export (nsys 2025.1.1, NVIDIA/Fuser); ``llama`` and ``graph_level`` are
built in the documented schema (tests/data/sources/README.md says what each covers).
"""

from __future__ import annotations

import json
import math
import re
import sqlite3
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from _sources import nsys_export, query, union_us
from bench_kernel.errors import TraceError
from bench_kernel.trace import (
    find_steps,
    inventory,
    layers,
    load_step_rules,
    load_trace,
    ops,
    phases,
    timeline,
)

KERNEL_NS = "SELECT start, end, streamId, deviceId FROM CUPTI_ACTIVITY_KIND_KERNEL"
#: An NVTX range's text: inline, or a registered string (nsys writes either).
NVTX_TEXT = "COALESCE(text, (SELECT value FROM StringIds WHERE id = textId))"


@pytest.fixture(scope="module")
def exports(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("nsys")
    return {k: nsys_export(n, folder) for k, n in
            (("fuser", "nsys_fuser_h200"), ("llama", "nsys_llama_steps"), ("graph_level", "nsys_graph_level"))}


@pytest.fixture(scope="module")
def fuser(exports):
    return load_trace(exports["fuser"], shapes=True)


@pytest.fixture(scope="module")
def llama(exports):
    return load_trace(exports["llama"], shapes=True)


def _api(name: str) -> str:
    return re.sub(r"_v\d{4,}$", "", name)


# -- the real export ----------------------------------------------------------------------------

def test_kernels_and_total_time_equal_the_export(exports, fuser):
    (n, total_ns), = query(exports["fuser"], "SELECT count(*), sum(end - start) FROM CUPTI_ACTIVITY_KIND_KERNEL")
    inv = inventory(fuser)
    assert inv.kernel_count == fuser.kernel_count == n == 18
    assert inv.total_kernel_us == pytest.approx(total_ns / 1e3, abs=1e-9)
    assert sum(r.total_us for r in inv.kernels) == pytest.approx(inv.total_kernel_us, rel=1e-12)
    assert sum(r.count for r in inv.kernels) == inv.kernel_count
    by_name = Counter()
    for name, dur in query(exports["fuser"], "SELECT s.value, k.end - k.start FROM CUPTI_ACTIVITY_KIND_KERNEL k "
                                             "JOIN StringIds s ON s.id = k.demangledName"):
        by_name[name] += dur
    assert {r.name: r.total_us for r in inv.kernels} == pytest.approx({k: v / 1e3 for k, v in by_name.items()})


def test_kernel_record_fields_come_from_its_row(exports, fuser):
    rows = query(exports["fuser"], "SELECT k.start, k.end, s.value, k.streamId, k.deviceId, k.correlationId, k.gridX, "
                                   "k.gridY, k.gridZ, k.blockX, k.blockY, k.blockZ, k.registersPerThread, "
                                   "k.staticSharedMemory + k.dynamicSharedMemory FROM CUPTI_ACTIVITY_KIND_KERNEL k "
                                   "JOIN StringIds s ON s.id = k.demangledName ORDER BY k.start")
    for i, r in enumerate(rows):
        k = fuser.kernel(i)
        assert (k.start_us, k.dur_us) == pytest.approx((r[0] / 1e3, (r[1] - r[0]) / 1e3))
        assert (k.name, k.stream, k.device, k.correlation) == (r[2], r[3], r[4], r[5])
        assert (k.grid, k.block, k.regs, k.smem_bytes) == (tuple(r[6:9]), tuple(r[9:12]), r[12], r[13])
    assert fuser.device_name == query(exports["fuser"], "SELECT name FROM TARGET_INFO_GPU")[0][0] == "NVIDIA H200"
    assert fuser.backend == "cuda"


def test_each_kernel_links_to_the_api_call_of_its_correlation_id(exports, fuser):
    expected = {c: _api(n) for c, n in query(
        exports["fuser"], "SELECT r.correlationId, s.value FROM CUPTI_ACTIVITY_KIND_RUNTIME r JOIN StringIds s "
                          "ON s.id = r.nameId WHERE r.correlationId IN (SELECT correlationId FROM "
                          "CUPTI_ACTIVITY_KIND_KERNEL)")}
    got = {k.correlation: k.launch.name for k in fuser.iter_kernels()}
    assert got == expected
    assert Counter(got.values()) == {"cudaLaunchKernel": 9, "cuLaunchKernel": 6, "cuLaunchKernelEx": 3}
    assert {k.launch.kind for k in fuser.iter_kernels()} == {"kernel"}  # names found in launch_apis.tsv


def test_memory_operations_equal_the_export(exports, fuser):
    copies = query(exports["fuser"], "SELECT end - start, bytes FROM CUPTI_ACTIVITY_KIND_MEMCPY")
    sets = query(exports["fuser"], "SELECT end - start, bytes FROM CUPTI_ACTIVITY_KIND_MEMSET")
    inv = inventory(fuser)
    by = {m.name: m for m in inv.memory_ops}
    assert sum(m.count for m in inv.memory_ops) == len(copies) + len(sets) == 6
    assert by["Memset"].count == len(sets) and by["Memset"].bytes == sum(b for _, b in sets)
    assert sum(m.total_us for m in inv.memory_ops) == pytest.approx(sum(d for d, _ in copies + sets) / 1e3)
    assert sum(m.bytes for m in inv.memory_ops) == sum(b for _, b in copies + sets)


def test_timeline_stream_busy_is_the_union_of_the_export_rows(exports, fuser):
    rows = query(exports["fuser"], KERNEL_NS + " UNION ALL SELECT start, end, streamId, deviceId FROM "
                 "CUPTI_ACTIVITY_KIND_MEMCPY UNION ALL SELECT start, end, streamId, deviceId FROM CUPTI_ACTIVITY_KIND_MEMSET")
    tl = timeline(fuser)
    per = {}
    for s, e, stream, dev in rows:
        per.setdefault((dev, stream), []).append((s / 1e3, e / 1e3))
    assert {(b.device, b.stream): b.busy_us for b in tl.overall.streams} == pytest.approx(
        {k: union_us(v) for k, v in per.items()}, abs=1e-3)
    assert tl.overall.busy_us == pytest.approx(union_us([iv for v in per.values() for iv in v]), abs=1e-3)
    assert tl.overall.wall_us == pytest.approx((max(r[1] for r in rows) - min(r[0] for r in rows)) / 1e3, abs=1e-3)
    syncs = query(exports["fuser"], "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME r JOIN StringIds s ON "
                  "s.id = r.nameId WHERE s.value LIKE '%Synchronize%'")[0][0]
    assert tl.overall.sync_calls == syncs == 3
    assert tl.overall.launches.kernel_launches == fuser.kernel_count


def test_nvtx_ranges_are_steps_by_a_rules_file(exports, fuser, tmp_path):
    rules = tmp_path / "steps.json"
    rules.write_text(json.dumps({"version": 1, "rules": [
        {"name": "nvfuser", "kind": "annotation", "pattern": "^FusionExecutorCache::runFusionWithInputs$"}]}))
    steps = find_steps(fuser, load_step_rules(rules))
    windows = query(exports["fuser"], f"SELECT start, end FROM NVTX_EVENTS WHERE {NVTX_TEXT} = "
                    "'FusionExecutorCache::runFusionWithInputs' ORDER BY start")
    assert [t for s in steps for t in (s.start_us, s.end_us)] == pytest.approx([t / 1e3 for w in windows for t in w])
    assert len(steps) == 2
    inv = inventory(fuser, per_step=True, rules=load_step_rules(rules))
    launched = query(exports["fuser"], "SELECT count(*), sum(k.end - k.start) FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN "
                     "CUPTI_ACTIVITY_KIND_RUNTIME r ON r.correlationId = k.correlationId JOIN NVTX_EVENTS n ON "
                     f"r.start >= n.start AND r.start <= n.end WHERE {NVTX_TEXT.replace('text', 'n.text')} = "
                     "'FusionExecutorCache::runFusionWithInputs'")[0]
    assert inv.kernel_count * 2 == launched[0] and inv.outside_steps.count == fuser.kernel_count - launched[0]
    assert inv.total_kernel_us * 2 == pytest.approx(launched[1] / 1e3)


def test_nvtx_names_link_kernels_to_their_innermost_enclosing_range(exports, fuser):
    # ExecutorRunFusion::cuLaunchKernel is the innermost NVTX range around each nvFuser launch
    k = next(k for k in fuser.iter_kernels() if k.launch.name == "cuLaunchKernel")
    assert k.op.name == "ExecutorRunFusion::cuLaunchKernel"
    assert k.op.start_us <= k.launch.start_us <= k.op.start_us + k.op.dur_us


# -- the built export: PyTorch steps, emit_nvtx, modules and CUDA graphs -------------------------

def test_profiler_steps_are_the_nvtx_ranges(exports, llama):
    windows = query(exports["llama"], "SELECT text, start, end FROM NVTX_EVENTS WHERE text LIKE 'ProfilerStep#%' "
                                      "ORDER BY start")
    steps = find_steps(llama)
    assert [(s.name, s.start_us, s.end_us, s.source) for s in steps] == [
        (t, pytest.approx(a / 1e3), pytest.approx(b / 1e3), "profiler_step") for t, a, b in windows]


def test_graph_replayed_kernels_carry_their_graph_launch(exports, llama):
    graph = query(exports["llama"], "SELECT k.correlationId FROM CUPTI_ACTIVITY_KIND_KERNEL k WHERE k.graphNodeId "
                                    "IS NOT NULL")
    launches = query(exports["llama"], "SELECT r.correlationId FROM CUPTI_ACTIVITY_KIND_RUNTIME r JOIN StringIds s "
                                       "ON s.id = r.nameId WHERE s.value LIKE 'cudaGraphLaunch%'")
    assert int(llama.graph_launched.sum()) == len(graph) == 24
    assert {k.correlation for k in llama.iter_kernels() if k.graph_launched} == {c for c, in launches}
    assert {k.launch.name for k in llama.iter_kernels() if k.graph_launched} == {"cudaGraphLaunch"}
    tl = timeline(llama)
    assert (tl.overall.launches.graph_launches, tl.overall.launches.graph_kernels) == (len(launches), len(graph))


def test_emit_nvtx_op_ranges_are_ops_and_module_ranges_are_modules(exports, llama):
    # the op of an eager kernel is the innermost emit_nvtx range around its launch, suffix cut
    nvtx = query(exports["llama"], "SELECT text, start, end FROM NVTX_EVENTS")
    launches = query(exports["llama"], "SELECT r.start, k.correlationId FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN "
                                       "CUPTI_ACTIVITY_KIND_RUNTIME r ON r.correlationId = k.correlationId "
                                       "WHERE k.graphNodeId IS NULL")
    eager = {k.correlation: k for k in llama.iter_kernels() if not k.graph_launched}
    for t, corr in launches:
        around = [(s, text) for text, s, e in nvtx if s <= t <= e and ", seq = " in text]
        assert eager[corr].op.name == max(around)[1].split(", seq = ")[0]
    assert {llama.names[i] for i in llama.python.name} == {
        text for text, _, _ in nvtx if text.startswith("nn.Module: ")}
    assert all(", seq" not in llama.names[i] for i in llama.ops.name)


def test_phases_split_the_steps_by_kernel_time(exports, llama):
    rep = phases(llama)
    assert rep.method == "kernel_time"  # no phase annotation and no shapes in an nsys export
    windows = query(exports["llama"], "SELECT start, end FROM NVTX_EVENTS WHERE text LIKE 'ProfilerStep#%' "
                                      "ORDER BY start")
    per_step = []
    for a, b in windows:
        (n, ns), = query(exports["llama"], "SELECT count(*), sum(k.end - k.start) FROM CUPTI_ACTIVITY_KIND_KERNEL k "
                         "JOIN CUPTI_ACTIVITY_KIND_RUNTIME r ON r.correlationId = k.correlationId "
                         "WHERE r.start BETWEEN ? AND ?", a, b)
        per_step.append((n, ns / 1e3))
    heavy = max(t for _, t in per_step)
    prefill = [(n, t) for n, t in per_step if t >= 2 * min(t for _, t in per_step)]
    assert (rep.phases["prefill"].steps, rep.phases["prefill"].kernel_count) == (len(prefill), sum(n for n, _ in prefill))
    assert rep.phases["prefill"].kernel_us == pytest.approx(heavy)
    assert rep.phases["decode"].kernel_us == pytest.approx(sum(t for _, t in per_step) - heavy)
    total = sum(p.kernel_us for p in rep.phases.values())
    assert total == pytest.approx(sum(t for _, t in per_step))


def test_layers_find_the_repeating_unit_from_the_kernel_sequence(exports, llama):
    names = [n for n, in query(exports["llama"], "SELECT s.value FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN StringIds s "
                                                 "ON s.id = k.demangledName ORDER BY k.start")]
    attn = [i for i, n in enumerate(names) if "flash_fwd" in n]
    period = Counter(np.diff(attn).tolist()).most_common(1)[0][0]
    rep = layers(llama)
    assert rep.period == period and rep.layer_count == len(attn)
    # module ranges break the offset tie: each unit starts where a decoder layer's range begins
    first = llama.kernel(rep.unit_starts[0])
    assert "rms_norm" in first.name


def test_graph_level_replays_are_device_time_with_a_note(exports):
    t = load_trace(exports["graph_level"])
    rows = query(exports["graph_level"], "SELECT end - start FROM CUPTI_ACTIVITY_KIND_GRAPH_TRACE")
    kernels = query(exports["graph_level"], "SELECT end - start FROM CUPTI_ACTIVITY_KIND_KERNEL")
    inv = inventory(t)
    assert inv.kernel_count == len(rows) + len(kernels) == 3
    assert inv.total_kernel_us == pytest.approx(sum(d for d, in rows + kernels) / 1e3)
    graph_rows = [r for r in inv.kernels if r.name.startswith("CUDA graph (graphExecId")]
    assert sum(r.count for r in graph_rows) == len(rows)
    assert any("traced whole" in n and "--cuda-graph-trace=node" in n for n in t.load_notes)
    assert int(t.graph_launched.sum()) == len(rows)


def test_commands_that_need_what_an_export_lacks_say_so_in_one_line(llama, fuser):
    with pytest.raises(TraceError, match=r"ops needs the input shapes and dtypes of each op, and an Nsight Systems "
                                         r"export does not record it: record a Kineto trace"):
        ops(llama)
    with pytest.raises(TraceError, match="needs the Python stack of each launch, and an Nsight Systems export"):
        llama.kernel(0, stack=True)


def test_kernels_of_several_processes_are_said_to_be_analysed_together(exports, tmp_path):
    two = tmp_path / "two.sqlite"
    two.write_bytes(exports["fuser"].read_bytes())
    con = sqlite3.connect(two)
    con.execute("UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET globalPid = globalPid + (1 << 24) WHERE rowid % 2 = 0")
    con.commit()
    con.close()
    (procs,), = query(two, "SELECT COUNT(DISTINCT globalPid) FROM CUPTI_ACTIVITY_KIND_KERNEL")
    assert [n for n in load_trace(two).load_notes if "processes" in n] == [
        f"kernels of {procs} processes in one export (all ranks of a job?): they are analysed together as one "
        f"trace, and their NVTX steps are all found"]
    assert not any("processes" in n for n in load_trace(exports["fuser"]).load_notes)


def test_links_false_reads_device_work_only(exports):
    t = load_trace(exports["fuser"], links=False)
    assert t.kernel_count == 18 and len(t.memops) == 6
    assert len(t.launches) == len(t.annotations) == 0 and not t.links
    assert math.isclose(inventory(t).total_kernel_us, inventory(load_trace(exports["fuser"])).total_kernel_us)


# -- the CLI ------------------------------------------------------------------------------------

def test_cli_inventory_timeline_layers_phases_on_an_export(run_cli, exports):
    r = run_cli("inventory", str(exports["fuser"]), "--json")
    assert r.exit_code == 0, r.stderr
    data = json.loads(r.stdout)
    (n, ns), = query(exports["fuser"], "SELECT count(*), sum(end - start) FROM CUPTI_ACTIVITY_KIND_KERNEL")
    assert data["kernel_count"] == n and data["total_kernel_us"] == pytest.approx(ns / 1e3)
    assert data["device"] == "NVIDIA H200"
    for cmd in ("timeline", "layers", "phases"):
        r = run_cli(cmd, str(exports["llama"]), "--json")
        assert r.exit_code == 0, (cmd, r.stderr)
        assert json.loads(r.stdout)
    r = run_cli("phases", str(exports["llama"]), "--json")
    assert json.loads(r.stdout)["method"] == "kernel_time"


def test_cli_ops_source_trace_and_attribute_refuse_in_one_line(run_cli, exports):
    llama = str(exports["llama"])
    for argv, needs in ((("ops", llama), "input shapes and dtypes"),
                        (("source-trace", "--trace", llama, "--step", "0"), "Python stack"),
                        (("attribute", llama, "--capture", llama), "Python stack")):
        r = run_cli(*argv)
        assert r.exit_code == 1 and r.stdout == "", argv
        assert r.stderr.startswith("bench-kernel: error: nsys_llama_steps.sqlite: ") and r.stderr.count("\n") == 1
        assert needs in r.stderr and "Nsight Systems export does not record it" in r.stderr


def test_cli_diff_and_report_take_an_export(run_cli, exports, tmp_path):
    r = run_cli("diff", str(exports["llama"]), str(exports["fuser"]), "--json")
    assert r.exit_code == 0, r.stderr
    data = json.loads(r.stdout)
    (ns_a,), = query(exports["llama"], "SELECT sum(end - start) FROM CUPTI_ACTIVITY_KIND_KERNEL")
    (ns_b,), = query(exports["fuser"], "SELECT sum(end - start) FROM CUPTI_ACTIVITY_KIND_KERNEL")
    assert (data["total_us_a"], data["total_us_b"]) == (pytest.approx(ns_a / 1e3), pytest.approx(ns_b / 1e3))
    assert sum(k["total_us_b"] for k in data["kernels"]) == pytest.approx(ns_b / 1e3)
    out = tmp_path / "r.html"
    r = run_cli("report", str(exports["llama"]), "-o", str(out))
    assert r.exit_code == 0, r.stderr
    assert "flash::flash_fwd_kernel" in out.read_text()
