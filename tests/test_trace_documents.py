"""The trace commands' ``--json`` documents are records: what each prints decodes strictly into its
``records`` type, holds the values the analysis computes, and is the document the API returns from
the same path (``bench_kernel.trace.<command>_document``)."""

from __future__ import annotations

from pathlib import Path

import msgspec
import pytest

from bench_kernel.records import (
    AttributeOutput,
    DiffOutput,
    InventoryOutput,
    LayersOutput,
    OpsOutput,
    PhasesOutput,
    RanksOutput,
    SampleTraceOutput,
    TimelineOutput,
)
from bench_kernel.trace import (
    attribute_document,
    diff_document,
    inventory_document,
    layers_document,
    ops_document,
    phases_document,
    ranks_document,
    sample_trace,
    sample_trace_document,
    timeline_document,
)

DATA = Path(__file__).parent / "data" / "trace"
EAGER, GRAPH, CAPTURE = DATA / "eager.json", DATA / "graph.json.gz", DATA / "capture.json"
# eager.json: 1 prefill step (10x longer) and 2 decode steps of embedding + 3 x 4 layer kernels + lm_head.
DECODE_STEP_US = 1.5 + 3 * (2.0 + 5.0 + 7.0 + 1.0) + 4.0
SAMPLE = sample_trace()


def _printed(run_cli, kind: type, *argv: str):
    """The command's --json output, decoded strictly as ``kind`` (a wrong or missing field raises)."""
    r = run_cli(*argv, "--json")
    assert r.exit_code == 0, r.stderr
    return msgspec.json.decode(r.stdout, type=kind, strict=True)


def test_inventory(run_cli):
    doc = _printed(run_cli, InventoryOutput, "inventory", str(EAGER), "--top", "2", "--per-step")
    assert (doc.schema_version, doc.trace, doc.by, doc.per_step, doc.steps) == (1, str(EAGER), "name", True, 3)
    assert doc.kernel_count == 14 and doc.total_kernel_us == pytest.approx(12 * DECODE_STEP_US / 3)
    attn, gemm = doc.kernels
    assert attn.name.startswith("void attn<") and (attn.count, attn.category) == (3.0, "attention")
    assert gemm.short == "gemm_qkv_kernel" and gemm.total_us == pytest.approx(5.0 * 3 * 12 / 3)
    # the two rows and the rest are the whole; no kernel of eager.json runs outside a step
    assert attn.total_us + gemm.total_us + doc.rest.total_us == pytest.approx(doc.total_kernel_us)
    assert doc.rest.count == 14 - 6 and doc.outside_steps.count == 0
    assert [m.name for m in doc.memory_ops] == ["Memcpy DtoH (Device -> Pinned)"]
    assert doc == inventory_document(EAGER, top=2, per_step=True)


def test_inventory_by_category_leaves_the_family_empty(run_cli):
    doc = _printed(run_cli, InventoryOutput, "inventory", str(EAGER), "--by", "category")
    assert {r.family for r in doc.kernels} == {""} and doc.kernels[0].name == doc.kernels[0].category == "attention"


def test_timeline(run_cli):
    doc = _printed(run_cli, TimelineOutput, "timeline", str(SAMPLE))
    o = doc.overall
    assert doc.schema_version == 1 and (o.label, o.step, len(doc.steps), doc.step_rule) == ("all", None, 4,
                                                                                           "profiler_step")
    # wall = busy + idle, and idle is its four causes (asserted by the analysis, kept by the record)
    assert o.busy_us + o.idle_us == pytest.approx(o.wall_us)
    assert o.host_bound_us + o.sync_wait_us + o.launch_gap_us + o.dependency_wait_us == pytest.approx(o.idle_us)
    assert o.busy_pct == pytest.approx(100 * o.busy_us / o.wall_us) and o.diagnosis.startswith("host-bound")
    assert o.launches.kernel_launches == 412 and doc.collectives.calls == ()
    assert doc == timeline_document(SAMPLE)


def test_timeline_of_a_folder_of_ranks(run_cli):
    folder = DATA / "ranks_nccl"
    doc = _printed(run_cli, RanksOutput, "timeline", str(folder), "--workers", "1")
    assert doc.schema_version == 1 and [r.rank for r in doc.ranks] == [0, 1]
    assert (doc.straggler, doc.straggler_basis) == (1, "collective arrivals")
    assert [c.last_rank for c in doc.collectives] == [1, 1, 1]
    assert [t.rank for t in doc.per_rank] == [0, 1] and doc.per_rank[1].collectives.calls[0].collective == "all_reduce"
    assert doc == ranks_document(folder, workers=1)


def test_layers(run_cli):
    doc = _printed(run_cli, LayersOutput, "layers", str(EAGER), "--step", "decode")
    assert (doc.schema_version, doc.period, doc.layer_count, doc.sequences, doc.step_phase) == (1, 4, 6, 2, "decode")
    assert [p.median_us for p in doc.positions] == [2.0, 5.0, 7.0, 1.0]
    assert doc.layer_total_us == pytest.approx(15.0) and doc.total_us == pytest.approx(15.0 * 6)
    assert doc == layers_document(EAGER, step="decode")


def test_phases(run_cli):
    doc = _printed(run_cli, PhasesOutput, "phases", str(EAGER))
    assert (doc.schema_version, doc.method) == (1, "shapes")
    assert [(s.phase, s.tokens) for s in doc.steps] == [("prefill", 64), ("decode", 2), ("decode", 2)]
    assert (doc.prefill.steps, doc.decode.steps, doc.mixed.steps, doc.unknown.steps) == (1, 2, 0, 0)
    assert doc.decode.kernel_us == pytest.approx(2 * DECODE_STEP_US) == pytest.approx(sum(
        s.kernel_us for s in doc.steps if s.phase == "decode"))
    assert doc.decode.top_kernels[0].total_us == pytest.approx(doc.decode.categories["attention"])
    assert doc == phases_document(EAGER)


def test_ops(run_cli):
    doc = _printed(run_cli, OpsOutput, "ops", str(SAMPLE), "--by", "shape", "--top", "3")
    assert (doc.schema_version, doc.by, doc.time_base, doc.device, doc.device_source) == (1, "shape", "device",
                                                                                         "H200", "trace")
    assert len(doc.rows) == 3 and doc.rest_rows > 0 and all(r.shapes for r in doc.rows)
    # the rows shown, the rows left out and the kernels no op launched are all the kernel time
    assert sum(r.kernel_us for r in doc.rows) + doc.rest_us + doc.unlinked_us == pytest.approx(doc.total_kernel_us)
    assert doc.rows[0].kernel_us >= doc.rows[1].kernel_us >= doc.rows[2].kernel_us
    assert doc == ops_document(SAMPLE, by="shape", top=3)


def test_attribute(run_cli):
    doc = _printed(run_cli, AttributeOutput, "attribute", str(GRAPH), "--capture", str(CAPTURE))
    assert (doc.schema_version, doc.reference, doc.graph_launches, doc.replayed_kernels, doc.matched) == (
        1, "capture", 1, 13, 12)
    attn = [k for k in doc.kernels if k.name.startswith("void attn")]
    assert [k.module for k in attn] == ["Layer_0", "Layer_1", "Layer_2"]
    assert attn[0].stack[0].function == "capture_model" and attn[0].stack[-1].is_module
    assert doc == attribute_document(GRAPH, CAPTURE)


def test_diff(run_cli):
    doc = _printed(run_cli, DiffOutput, "diff", str(EAGER), str(GRAPH))
    assert (doc.schema_version, doc.trace_a, doc.trace_b) == (1, str(EAGER), str(GRAPH))
    assert sum(r.delta_us for r in doc.kernels) == pytest.approx(doc.delta_us)
    assert doc.delta_us == pytest.approx(doc.total_us_b - doc.total_us_a)
    status = {r.key: r.status for r in doc.kernels}
    assert status["graph_only_kernel"] == "new" and status["embedding_kernel"] == "vanished"
    assert doc == diff_document(EAGER, GRAPH)


def test_sample_trace(run_cli):
    doc = _printed(run_cli, SampleTraceOutput, "sample-trace")
    assert (doc.schema_version, doc.path) == (1, str(SAMPLE)) and "412 kernels" in doc.about
    assert doc == sample_trace_document()
