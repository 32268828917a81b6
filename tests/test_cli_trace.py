"""The trace commands: JSON schemas, CSV columns, and one-line errors with non-zero exits."""

from __future__ import annotations

import csv
import gzip
import io
import json
from pathlib import Path

import pytest

DATA = Path(__file__).parent / "data" / "trace"
EAGER, GRAPH, CAPTURE = str(DATA / "eager.json"), str(DATA / "graph.json.gz"), str(DATA / "capture.json")
TOTAL_US = 12 * (1.5 + 3 * (2.0 + 5.0 + 7.0 + 1.0) + 4.0)


def _json(run_cli, *argv):
    r = run_cli(*argv, "--json")
    assert r.exit_code == 0, r.stderr
    return json.loads(r.stdout)


def test_inventory_json_schema(run_cli):
    d = _json(run_cli, "inventory", EAGER)
    assert {"kernel_count", "total_kernel_us", "kernels"} <= d.keys()
    assert d["kernel_count"] == 42 and d["total_kernel_us"] == pytest.approx(TOTAL_US)
    row = d["kernels"][0]
    assert set(row) == {"name", "short", "family", "category", "count", "total_us", "avg_us", "min_us", "max_us", "pct"}
    assert sum(k["total_us"] for k in d["kernels"]) == pytest.approx(d["total_kernel_us"])


def test_inventory_csv_has_the_seed_columns(run_cli):
    r = run_cli("inventory", EAGER, "--csv", "--top", "3")
    assert r.exit_code == 0, r.stderr
    rows = list(csv.DictReader(io.StringIO(r.stdout)))
    assert list(rows[0]) == ["name", "count", "total_us", "avg_us", "pct", "short", "category"]
    assert len(rows) == 3 and rows[0]["name"].startswith("void attn<") and float(rows[0]["count"]) == 9


def test_inventory_table_and_output_file(run_cli, tmp_path):
    r = run_cli("inventory", EAGER, "--by", "category")
    assert r.exit_code == 0 and "42 kernels" in r.stdout and "memcpy/memset are not kernels" in r.stdout
    out = tmp_path / "inv.md"
    assert run_cli("inventory", EAGER, "-o", str(out)).exit_code == 0
    assert out.read_text().startswith("### eager.json: 42 kernels")


def test_inventory_per_step(run_cli):
    d = _json(run_cli, "inventory", EAGER, "--per-step")
    assert d["per_step"] and d["steps"] == 3 and d["total_kernel_us"] == pytest.approx(TOTAL_US / 3)


def test_layers_json_schema(run_cli):
    d = _json(run_cli, "layers", EAGER, "--step", "decode")
    assert {"period", "layer_count", "anchor", "layer_total_us", "positions"} <= d.keys()
    assert (d["period"], d["layer_count"]) == (4, 6)
    assert set(d["positions"][0]) == {"pos", "name", "short", "category", "min_us", "median_us", "mean_us", "max_us"}


def test_phases_json_schema(run_cli):
    d = _json(run_cli, "phases", EAGER)
    assert d["method"] == "shapes"
    assert (d["prefill"]["steps"], d["decode"]["steps"]) == (1, 2)
    assert {"steps", "kernel_us", "categories"} <= d["decode"].keys()
    assert sum(d["decode"]["categories"].values()) == pytest.approx(d["decode"]["kernel_us"])


def test_attribute_json_and_table(run_cli):
    d = _json(run_cli, "attribute", GRAPH, "--capture", CAPTURE)
    assert (d["matched"], d["replayed_kernels"]) == (12, 13)
    assert d["kernels"][0]["op"] == "aten::rms_norm" and d["kernels"][0]["stack"][0]["file"] == "runner.py"
    r = run_cli("attribute", GRAPH, "--capture", CAPTURE)
    assert r.exit_code == 0 and "matched 12 of 13 replayed kernels (92.3%)" in " ".join(r.stdout.split())


def test_diff_json(run_cli):
    d = _json(run_cli, "diff", EAGER, EAGER)
    assert d["per_step"] and d["delta_us"] == 0 and len(d["kernels"]) == 6
    assert {k["status"] for k in d["kernels"]} == {"unchanged"}
    r = run_cli("diff", EAGER, EAGER)
    assert "no kernel changed: all 6 have the same count and time in both (listed in --json)" in r.stdout
    assert "┃ Kernel" not in r.stdout  # one line, not headers over no rows


def test_layers_says_when_the_anchor_runs_several_times_per_layer(run_cli, tmp_path):
    doc = json.loads(Path(EAGER).read_text())
    for e in doc["traceEvents"]:
        if e.get("cat") == "kernel" and e["name"] == "add_kernel":
            e["name"] = "gemm_qkv_kernel"
    p = tmp_path / "twice.json"
    p.write_text(json.dumps(doc))
    r = run_cli("layers", str(p), "--anchor", "gemm_qkv")
    assert r.exit_code == 0 and "period 4 kernels x 9 layers" in r.stdout
    assert "the anchor runs 2 times per unit: the period spans 2 of its runs" in r.stdout


@pytest.mark.parametrize("make,argv,fragment", [
    (lambda p: p.write_bytes(gzip.compress(b'{"traceEvents": [' * 50)[:40]), ("inventory",), "truncated or corrupt gzip"),
    (lambda p: p.write_text("not json at all"), ("inventory",), "not JSON"),
    (lambda p: p.write_text('{"schemaVersion": 1}'), ("layers",), "without 'traceEvents'"),
    (lambda p: p.write_text('{"traceEvents": []}'), ("inventory",), "no kernel events"),
    (lambda p: p.write_text('{"traceEvents": []}'), ("phases",), "no kernel events"),
    (lambda p: p.write_text('{"traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "a", "ts": 1, "dur": 1}]}'),
     ("layers",), "no kernel events"),
])
def test_bad_input_is_one_line_and_nonzero(run_cli, tmp_path, make, argv, fragment):
    p = tmp_path / ("t.json.gz" if "gzip" in fragment else "t.json")
    make(p)
    r = run_cli(*argv, str(p))
    assert r.exit_code == 1 and r.stdout == ""
    assert r.stderr.startswith("bench-kernel: error: ") and r.stderr.count("\n") == 1 and fragment in r.stderr


def test_rank_errors_list_the_ranks(run_cli):
    r = run_cli("inventory", str(DATA / "ranks"), "--rank", "7")
    assert r.exit_code == 1 and "ranks found: 0, 1" in r.stderr and r.stderr.count("\n") == 1
    d = _json(run_cli, "inventory", str(DATA / "ranks"), "--rank", "1")
    assert d["rank"] == 1 and d["kernels"][0]["name"] == "rank1_kernel"


def test_usage_errors_exit_2(run_cli):
    # A valid --anchor the trace has no kernel for is the trace's answer (rc 1); a bad regex is usage.
    r = run_cli("layers", EAGER, "--anchor", "nothing_like_this")
    assert r.exit_code == 1 and "matches none of the 6 kernel names" in r.stderr
    r = run_cli("layers", EAGER, "--anchor", "(")
    assert r.exit_code == 2 and "--anchor '(' is not a valid regular expression" in r.stderr
    r = run_cli("inventory", EAGER, "--by", "op")
    assert r.exit_code == 2 and r.stderr.startswith("bench-kernel: error: ")
    r = run_cli("attribute", GRAPH)
    assert r.exit_code == 2 and "--capture" in r.stderr


def test_missing_file(run_cli, tmp_path):
    r = run_cli("diff", EAGER, str(tmp_path / "nope.json.gz"))
    assert r.exit_code == 1 and "trace file not found" in r.stderr
