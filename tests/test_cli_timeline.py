"""``bench-kernel timeline``: JSON schema, the table, CSV, a directory of ranks, --rank."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

DATA = Path(__file__).parent / "data" / "trace"
EAGER, NCCL = str(DATA / "eager.json"), str(DATA / "ranks_nccl")


def _json(run_cli, *argv):
    r = run_cli(*argv, "--json")
    assert r.exit_code == 0, r.stderr
    return json.loads(r.stdout)


def test_timeline_json_schema(run_cli):
    d = _json(run_cli, "timeline", EAGER)
    assert {"schema_version", "trace", "rank", "device", "overall", "step_rule", "steps", "collectives", "queue_depth",
            "short_kernel_names", "notes", "load_notes"} == d.keys()
    assert d["load_notes"] == []  # a clean trace: the loader left nothing out
    o = d["overall"]
    assert {"wall_us", "busy_us", "busy_pct", "idle_us", "host_bound_us", "sync_wait_us", "launch_gap_us",
            "dependency_wait_us", "compute_us", "comm_us", "exposed_comm_us", "comm_overlap_pct", "memcpy_us",
            "exposed_memcpy_us", "streams", "launches", "diagnosis"} <= o.keys()
    assert d["step_rule"] == "profiler_step" and len(d["steps"]) == 3
    assert o["busy_us"] + o["idle_us"] == pytest.approx(o["wall_us"])
    assert o["comm_overlap_pct"] is None  # no communication: no overlap to speak of, not 0%
    assert 0 < len(d["queue_depth"]) <= 100 and d["queue_depth"][0]["start_us"] == o["start_us"]


def test_timeline_table(run_cli):
    r = run_cli("timeline", EAGER)
    assert r.exit_code == 0, r.stderr
    text = " ".join(r.stdout.split())
    assert "eager.json: GPU busy" in text and "3 steps by rule profiler_step" in text
    assert "ProfilerStep#2" in text and "note: step 2:" in text and "Launches (whole trace)" in text


def test_timeline_csv_is_one_row_per_window(run_cli):
    r = run_cli("timeline", EAGER, "--csv")
    rows = list(csv.DictReader(io.StringIO(r.stdout)))
    assert [x["label"] for x in rows] == ["all", "ProfilerStep#0", "ProfilerStep#1", "ProfilerStep#2"]
    assert float(rows[0]["busy_us"]) + float(rows[0]["host_bound_us"]) + float(rows[0]["sync_wait_us"]) \
        + float(rows[0]["launch_gap_us"]) + float(rows[0]["dependency_wait_us"]) == pytest.approx(float(rows[0]["wall_us"]))


def test_max_steps_limits_the_table_not_the_json(run_cli):
    r = run_cli("timeline", EAGER, "--max-steps", "1")
    assert "ProfilerStep#1" not in r.stdout and "2 more steps in --json" in r.stdout
    assert len(_json(run_cli, "timeline", EAGER, "--max-steps", "1")["steps"]) == 3


def test_directory_of_ranks(run_cli):
    d = _json(run_cli, "timeline", NCCL, "--workers", "1")
    assert (d["straggler"], d["straggler_basis"]) == (1, "collective arrivals")
    assert [x["rank"] for x in d["ranks"]] == [0, 1] and len(d["per_rank"]) == 2
    assert {c["last_rank"] for c in d["collectives"]} == {1}
    r = run_cli("timeline", NCCL, "--workers", "1")
    assert "2 ranks; straggler rank 1" in " ".join(r.stdout.split()) and "Collective skew" in r.stdout


def test_rank_picks_one_file(run_cli):
    d = _json(run_cli, "timeline", NCCL, "--rank", "1")
    assert d["rank"] == 1 and d["trace"].endswith("trace_rank1.json") and "overall" in d
