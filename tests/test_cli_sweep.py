"""The sweep, compare and history commands and run --save, through the CLI on the host method."""

from __future__ import annotations

import csv
import io
import json
import re

import numpy as np
import pytest
from rich.console import Console

from _results_helpers import gpu_like_samples, result, rounds_measurement, rounds_point
from _sweep_helpers import write_spec
from bench_kernel.report import ProgressBar
from bench_kernel.results import open_store

FAST = ["-m", "host", "--precision", "0.5", "--max-time", "0.02", "--rounds", "1"]


@pytest.fixture
def spec(tmp_path):
    return write_spec(tmp_path)


@pytest.fixture
def swept(spec, tmp_path, run_cli):
    """One stored sweep and its --json output."""
    db = tmp_path / "r.db"
    r = run_cli("sweep", str(spec), "--db", str(db), *FAST, "--json")
    assert r.exit_code == 1, r.stderr  # the spec's 'wrong' provider is wrong at M=2
    return db, json.loads(r.stdout)


def test_sweep_table_shows_times_speedups_statuses_and_best(spec, tmp_path, run_cli):
    db = tmp_path / "r.db"
    r = run_cli("sweep", str(spec), "--db", str(db), *FAST, "--best")
    assert r.exit_code == 1
    out = r.stdout
    assert re.search(r"sweep .*spec\.py:sweep on \S+ \(run 1\) \| kind=a", " ".join(out.split()))
    header = next(line for line in out.splitlines() if "add time" in line)
    assert [h.strip() for h in header.strip("┃ ").split("┃")] == [
        "M", "add time", "add TB/s", "wrong time", "wrong vs add", "picky time", "picky TB/s", "picky vs add", "best"]
    rows: dict[str, str] = {}
    for line in out.splitlines():
        if re.match(r"│\s+\d+ │", line):
            rows.setdefault(line.split("│")[1].strip(), line)  # the pivot's rows come first
    assert list(rows) == ["1", "2", "3"]
    assert "WRONG" in rows["2"] and "unsupported" in rows["3"] and "WRONG" not in rows["1"]
    assert "note: wrong: mismatch at M=2: wrong result, not timed: out[0]: 2 != reference 1" in out
    assert "note: picky: unsupported at M=3: M > 2 is not supported" in out
    assert "fastest per point:" in out and "fastest is" in out and "inconclusive (the data cannot tell)" in out
    assert r.stderr == ("bench-kernel: error: 1 point(s) failed or gave a wrong result (wrong M=2 kind=a: mismatch); "
                        "the reasons are in the table notes and in run 1\n")
    ok = run_cli("sweep", str(spec), "--db", str(db), *FAST, "--provider", "add")
    assert ok.exit_code == 0 and ok.stderr == f"stored as run 2 in {db}\n"


def test_sweep_json_is_what_the_store_holds(swept):
    db, data = swept
    assert set(data) == {"schema_version", "run", "points", "best"}
    assert data["run"]["id"] == 1 and data["run"]["n_points"] == 9 and data["run"]["config"]["baseline"] == "add"
    with open_store(db) as store:
        stored = [p.to_dict() for p in store.points(1)]
    assert sorted(map(json.dumps, stored)) == sorted(map(json.dumps, data["points"]))
    ok = next(p for p in data["points"] if p["provider"] == "add" and p["params"]["M"] == 3)
    host = ok["result"]["measurements"]["host"]
    assert host["n"] >= 1 and host["n"] + host["disturbed"] == len(host["samples_us"])  # raw samples, not only the median


@pytest.mark.parametrize("fmt", ["--csv", "--md"])
def test_sweep_csv_and_markdown(spec, tmp_path, run_cli, fmt):
    r = run_cli("sweep", str(spec), "--db", str(tmp_path / "r.db"), *FAST, fmt)
    if fmt == "--csv":
        rows = list(csv.DictReader(io.StringIO(r.stdout)))
        assert [row["axis:M"] for row in rows] == ["1", "2", "3"]
        assert rows[1]["wrong:us"] == "WRONG" and float(rows[0]["add:us"]) > 0
        assert rows[2]["picky:us"] == "unsupported"
    else:
        assert r.stdout.startswith("### sweep ") and "| M | add time | add TB/s |" in r.stdout


@pytest.mark.parametrize("suffix", [".png", ".svg"])
def test_sweep_plot(spec, tmp_path, run_cli, suffix):
    out = tmp_path / f"plot{suffix}"
    r = run_cli("sweep", str(spec), "--db", str(tmp_path / "r.db"), *FAST, "--plot", str(out), "--x", "M")
    assert r.exit_code == 1 and f"plot: {out}" in r.stderr
    data = out.read_bytes()
    if suffix == ".png":
        assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 10_000
    else:
        text = data.decode()
        assert 'id="provider-0"' in text and 'id="provider-2"' in text and 'id="provider-3"' not in text
        date = re.search(r"(\d{4}-\d{2}-\d{2})", text).group(1)
        assert "spec.py:sweep on" in text and date in text  # device and date in the title


def test_progress_bar_shows_done_total_and_the_current_point():
    buf = io.StringIO()
    console = Console(file=buf, force_terminal=True, width=120)
    with ProgressBar(console) as bar:
        bar(0, 6, "")
        bar(3, 6, "triton_128 M=[bold]16")
        console.file.flush()
        bar._progress.refresh()
    text = buf.getvalue()
    assert "3/6" in text and "triton_128 M=[bold]16" in text and "ETA" in text  # markup is shown as text
    quiet = Console(file=io.StringIO(), force_terminal=False)
    with ProgressBar(quiet) as bar:
        bar(1, 2, "x")
    assert quiet.file.getvalue() == ""  # no redraws in a log file


def test_compare_two_runs_and_their_exit_status(tmp_path, run_cli):
    db = tmp_path / "r.db"
    with open_store(db) as store:
        for i, factor in enumerate((1.0, 1.0, 1.10)):
            run = store.start_run(kind="sweep", name="s", config={"providers": ["k"]}, env={})
            for m in (1, 2):
                meas = rounds_measurement(10 * i + m, 3, median_us=100.0 * (factor if m == 2 else 1), between=0.003,
                                          method="host")
                store.save_result(run.id, rounds_point("k", {"M": m}, meas).result)
            store.finish_run(run.id)
    same = run_cli("compare", "1", "2", "--db", str(db))
    assert same.exit_code == 0 and same.stderr == ""
    assert "A = run 1, B = run 2: 0 faster, 0 slower, 2 same, 0 inconclusive, 0 unmatched" in same.stdout
    assert "A (geo mean of round minima)" in " ".join(same.stdout.split())  # the statistic the ratio is of
    assert "noise floor (the CI's half-width" in same.stdout and "2 from their rounds" in same.stdout
    slow = run_cli("compare", "latest~1", "latest", "--db", str(db), "--json")
    assert slow.exit_code == 1
    data = json.loads(slow.stdout)
    cs = [p["comparison"] for p in data["points"]]
    assert [c["verdict"] for c in cs] == ["same", "slower"] and data["counts"]["slower"] == 1
    assert cs[1]["ratio"] == pytest.approx(1.10, abs=0.03) and cs[1]["ratio"] == pytest.approx(cs[1]["b_us"] / cs[1]["a_us"])
    assert cs[1]["a_rounds"] == cs[1]["b_rounds"] == 3
    assert 0 < cs[1]["noise_floor"] < 0.1 and data["noise_floors"]["rounds"] == 2
    assert data["points"][1]["explanation"]["summary"].startswith("nothing both sides recorded differs but the time")
    assert data["points"][0]["explanation"] is None and (data["failed"], data["fail_on"]) == (True, "slower")
    assert slow.stderr.startswith("bench-kernel: error: 1 significant regression(s) of run 3 against run 2; worst: "
                                  "k M=2: slower: B ")
    back = run_cli("compare", "3", "2", "--db", str(db), "--json")
    assert back.exit_code == 0
    assert [p["comparison"]["verdict"] for p in json.loads(back.stdout)["points"]] == ["same", "faster"]
    # why a changed point changed, one line under the table
    assert "note: why k M=2 is slower: nothing both sides recorded differs but the time" in " ".join(
        run_cli("compare", "2", "3", "--db", str(db)).stdout.split())


def test_one_round_runs_are_bounded_by_the_floor_unless_the_store_has_the_points_history(tmp_path, run_cli):
    db = tmp_path / "r.db"
    with open_store(db) as store:
        for i, us in enumerate((100.0, 101.0, 99.0, 100.5, 100.0, 130.0)):  # runs 1-5 alike, run 6 30% slower
            run = store.start_run(kind="sweep", name="s.py:sweep", config={"providers": ["k"]}, env={"device": "cpu"})
            r = result("k", {"M": 1}, (np.asarray(gpu_like_samples(i)) * us / 100.0).tolist())
            store.save_result(run.id, r.replace(env={**r.env, "device": "cpu"}))
            store.finish_run(run.id)
    alone = tmp_path / "alone.db"
    with open_store(db) as src, open_store(alone) as dst:  # the same two runs with no history around them
        for rid in (5, 6):
            run = dst.start_run(kind="sweep", name="s.py:sweep", config={"providers": ["k"]}, env={"device": "cpu"})
            dst.save_result(run.id, src.points(rid)[0].result)
    floor = run_cli("compare", "1", "2", "--db", str(alone))  # 30% is within the host's floor of x2.9
    assert floor.exit_code == 0 and "±190.0% (floor)" in floor.stdout
    assert "0 faster, 0 slower, 0 same, 1 inconclusive" in floor.stdout
    assert re.search(r"inconclusive: the CI spans the threshold's band; rounds a side that would likely resolve it, "
                     r"from the measured noise: k M=1: \d+", " ".join(floor.stdout.split()))
    assert "(floor): 1 point(s) with one round on each side and no stored history" in " ".join(floor.stdout.split())
    gate = run_cli("compare", "1", "2", "--db", str(alone), "--fail-on", "inconclusive")
    assert gate.exit_code == 1 and gate.stderr.startswith(
        "bench-kernel: error: 1 inconclusive point(s) (--fail-on inconclusive); first: k M=1: inconclusive: ")
    # the host: one round saw one moment of the CPU, which a history cannot vouch for (an identical
    # one-round run once read x2.76): the floor holds, and 30% stays inconclusive
    hist = run_cli("compare", "5", "6", "--db", str(db), "--json")
    assert hist.exit_code == 0, hist.stderr
    (p,) = json.loads(hist.stdout)["points"]
    assert (p["comparison"]["verdict"], p["comparison"]["noise"]["source"]) == ("inconclusive", "floor")
    # a GPU method's one round is narrowed by the point's history: runs 1-4 alike, so 30% is slower
    gpu = tmp_path / "gpu.db"
    with open_store(gpu) as store:
        for i, us in enumerate((100.0, 101.0, 99.0, 100.5, 100.0, 130.0)):
            run = store.start_run(kind="sweep", name="s.py:sweep", config={"providers": ["k"]}, env={"device": "gpu"})
            r = result("k", {"M": 1}, (np.asarray(gpu_like_samples(i)) * us / 100.0).tolist(), method="graph")
            store.save_result(run.id, r.replace(env={**r.env, "device": "gpu"}))
            store.finish_run(run.id)
    hist = run_cli("compare", "5", "6", "--db", str(gpu), "--json")
    assert hist.exit_code == 1, hist.stderr
    (p,) = json.loads(hist.stdout)["points"]
    c = p["comparison"]
    assert (c["verdict"], c["noise"]["source"], c["noise"]["n"]) == ("slower", "history", 4)  # runs 1-4


def test_compare_two_providers_of_one_run_and_a_json_file(swept, tmp_path, run_cli):
    db, data = swept
    r = run_cli("compare", "1:add", "1:picky", "--db", str(db))
    # two providers' host timings on a loaded CI machine: their verdicts are noise, so the exit
    # status is checked against the comparison's own regressions, not against a fixed value
    table = r.stdout
    r = run_cli("compare", "1:add", "1:picky", "--db", str(db), "--json")
    regressions = json.loads(r.stdout)["regressions"]
    assert r.exit_code == (1 if regressions else 0), r.stderr
    assert "add -> picky" in table and "not compared: add at M=3 kind=a: B is unsupported: M > 2 is not supported" in table
    f = tmp_path / "sweep.json"
    f.write_text(json.dumps(data))
    r = run_cli("compare", str(f), "1", "--db", str(db), "--json")
    rc = json.loads(r.stdout)
    assert rc["a"] == "sweep.json" and rc["b"] == "run 1"
    # one round on each side, and no other run of this spec in the store: the floor bounds the CI, so
    # a file against the run it came from is inconclusive (no "same" without shown noise)
    cs = [p["comparison"] for p in rc["points"]]
    assert {c["verdict"] for c in cs} == {"inconclusive"} and all(c["ratio"] == 1.0 for c in cs)
    assert {c["noise"]["source"] for c in cs} == {"floor"}
    assert len(rc["points"]) == 7 and {p["method"] for p in rc["points"]} == {"host"}
    assert [u["reason"] for u in rc["unmatched"]] == [
        "mismatch in A and B: wrong result, not timed: out[0]: 2 != reference 1",
        "unsupported in A and B: M > 2 is not supported"]


def test_run_save_then_history(tmp_path, run_cli):
    target = tmp_path / "t.py"
    target.write_text("def cases():\n    return [{'name': 'inc', 'fn': lambda x: x + 1, 'make_inputs': lambda: (3,),"
                      " 'params': {'n': 3}}]\n")
    db = tmp_path / "r.db"
    for _ in range(2):
        r = run_cli("run", f"{target}:cases", "--save", "--db", str(db), *FAST)
        assert r.exit_code == 0, r.stderr
    assert "stored as run 2 in" in r.stderr
    r = run_cli("history", "--db", str(db), "--json")
    runs = json.loads(r.stdout)["runs"]
    assert [(x["id"], x["kind"], x["name"], x["status"], x["n_points"]) for x in runs] == [
        (2, "run", f"{target}:cases", "done", 1), (1, "run", f"{target}:cases", "done", 1)]
    assert runs[0]["source_path"] == str(target) and runs[0]["command"][:2] == ["bench-kernel", "run"]
    r = run_cli("history", "--db", str(db), "--name", "in*", "--where", "n=3", "--plot", str(tmp_path / "h.svg"))
    assert r.exit_code == 0 and r.stdout.count("│ inc ") == 2
    assert 'id="case-0"' in (tmp_path / "h.svg").read_text()
    r = run_cli("compare", "1", "2", "--db", str(db), "--json")
    assert [p["provider"] for p in json.loads(r.stdout)["points"]] == ["inc"]


def test_history_lists_a_killed_run_as_such(tmp_path, run_cli):
    db = tmp_path / "r.db"
    with open_store(db) as store:
        store.start_run(kind="sweep", name="s.py:sweep", config={}, env={"device": "H200"}, total_points=4)
    r = run_cli("history", "--db", str(db), "--csv")
    (row,) = csv.DictReader(io.StringIO(r.stdout))
    assert (row["status"], row["points"], row["device"]) == ("running or killed", "0/4", "H200")
