"""Nothing lost, nothing silent (round 3 of the hostile-input battery).

Before, each of these passed quietly or as an internal error: two cases named ``x`` under ``--save``
were both timed and one dropped ("stored as run 1", exit 0); a trace with two ``traceEvents`` keys
gave the first one's 12 kernels where Python's json reads the last (0); ``flops=10**400``, a params
object ``--json`` could not write, ``history --limit 99999999999999999999`` and ``compare`` of a
huge run id were internal errors; ``diff`` with nothing changed, ``profile`` without a GPU and
``compare`` with nothing matched printed headers over no rows; ``run -o results.xlsx`` said nothing
at all; a trace-only report said every method reached its precision; ``run --roofline --device
H200`` on a CPU put host times under an H200 roof unlabelled; ``sweep nospec.py`` called the spec a
target; ``diff``'s per-step mean counts (53.25) and titles in "us" did not say what they were.
"""

from __future__ import annotations

import gzip
import json
import re
import textwrap
from pathlib import Path

import pytest

from bench_kernel.gpu import has_gpu

DATA = Path(__file__).resolve().parent.parent / "data" / "trace"
EAGER = DATA / "eager.json"
FAST = ["-m", "host", "--max-time", "0.02", "--precision", "0.5", "--rounds", "1"]

TARGET = textwrap.dedent("""
    import torch

    class Opaque:
        def __str__(self):
            return "opaque-label"

    def dup_names():
        return [{"name": "x", "fn": lambda: torch.ones(8) + 1}, {"name": "x", "fn": lambda: torch.ones(8) * 2}]

    def huge_flops():
        return [{"name": "b", "fn": lambda: torch.ones(8) + 1, "flops": 10**400}]

    def opaque_params():
        return [{"name": "c", "fn": lambda: torch.ones(8) + 1, "params": {"p": Opaque(), "dtype": torch.float16}}]

    def two():
        return [{"name": "a", "fn": lambda: torch.ones(8) + 1}, {"name": "b", "fn": lambda: torch.ones(8) * 2}]

    def other():
        return [{"name": "zz", "fn": lambda: torch.ones(8) + 1}]
""")


@pytest.fixture
def target(tmp_path: Path) -> Path:
    p = tmp_path / "t.py"
    p.write_text(TARGET)
    return p


def _one_line(r, code: int, message: str) -> None:
    assert r.exit_code == code, r.stderr
    assert r.stderr == f"bench-kernel: error: {message}\n"


# --- lost ----------------------------------------------------------------------------------------

def test_two_cases_that_are_one_stored_point_are_refused_before_timing(run_cli, target, tmp_path):
    db = tmp_path / "dup.db"
    r = run_cli("run", f"{target}:dup_names", "--save", "--db", str(db), *FAST)
    _one_line(r, 2, "cases 1 and 2 are both 'x': a point is stored once, so --save would keep only one; give each "
                    "case its own name or params")
    assert r.stdout == ""  # nothing timed, nothing claimed stored
    from bench_kernel.results import open_store

    with open_store(db) as store:
        assert store.runs() == []
    # without a store both are shown: nothing is lost there
    assert run_cli("run", f"{target}:dup_names", *FAST, "--json").exit_code == 0


@pytest.mark.parametrize("doc", [
    '{{"traceEvents": {ev}, "x": 1, "traceEvents": []}}',  # Python's json reads the last one: 0 kernels
    '{{"traceEvents": [], "x": {{"traceEvents": 1}}, "traceEvents": {ev}}}',
    '{{"traceEvents": {{}}, "traceEvents": {ev}}}',
], ids=["after", "before", "before-an-object"])
def test_a_trace_with_two_traceevents_keys_is_refused(run_cli, tmp_path, doc):
    events = json.dumps(json.loads(EAGER.read_text())["traceEvents"])
    p = tmp_path / "two.json.gz"
    p.write_bytes(gzip.compress(doc.format(ev=events).encode()))
    _one_line(run_cli("inventory", str(p)), 1,
              f"{p}: the document has two top-level 'traceEvents' keys: JSON readers disagree on which one counts "
              "(Python's json takes the last, a streaming reader the first); not read. Keep one 'traceEvents' array")


def test_a_traceevents_key_nested_in_metadata_is_still_read(run_cli, tmp_path):
    events = json.loads(EAGER.read_text())["traceEvents"]
    p = tmp_path / "nested.json"
    p.write_text(json.dumps({"distributedInfo": {"traceEvents": [1]}, "traceEvents": events}))
    r = run_cli("inventory", str(p), "--json")
    assert r.exit_code == 0, r.stderr
    assert json.loads(r.stdout)["kernel_count"] == run_json(run_cli, "inventory", str(EAGER))["kernel_count"]


def run_json(run_cli, *argv: str) -> dict:
    r = run_cli(*argv, "--json")
    assert r.exit_code == 0, r.stderr
    return json.loads(r.stdout)


# --- internal errors where a user error belongs ------------------------------------------------------

def test_flops_beyond_a_float_is_the_case_error(run_cli, target):
    _one_line(run_cli("run", f"{target}:huge_flops", *FAST), 1,
              f"{target}:huge_flops()[0]: case 'b': 'flops' (FLOP of one call) must be a finite number >= 0, got an "
              "integer of 401 digits (beyond a float's range) (leave it out to have it counted with --roofline)")


def test_params_json_cannot_hold_are_written_as_their_text(run_cli, target):
    data = run_json(run_cli, "run", f"{target}:opaque_params", *FAST)
    assert data["results"][0]["params"] == {"p": "opaque-label", "dtype": "torch.float16"}
    csv = run_cli("run", f"{target}:opaque_params", *FAST, "--csv")
    assert csv.exit_code == 0 and "c,opaque-label,torch.float16," in csv.stdout  # the --csv twin says the same


def test_huge_limits_and_run_ids_are_answers_not_sqlite_overflows(run_cli, target, tmp_path):
    db = str(tmp_path / "r.db")
    assert run_cli("run", f"{target}:two", "--save", "--db", db, *FAST).exit_code == 0
    r = run_cli("history", "--db", db, "--limit", "99999999999999999999", "--json")
    assert r.exit_code == 0 and [run["id"] for run in json.loads(r.stdout)["runs"]] == [1]  # "all of them"
    _one_line(run_cli("compare", "99999999999999999999", "1", "--db", db), 1,
              f"no run 99999999999999999999 in {db!r} (it holds runs 1..1; see 'bench-kernel history')")
    _one_line(run_cli("compare", "1", "latest~99999999999999999999", "--db", db), 1,
              f"no run 'latest~99999999999999999999' in {db!r}: it holds 1 run(s)")


# --- quiet or empty output -----------------------------------------------------------------------

def test_diff_with_nothing_changed_says_so_in_one_line(run_cli):
    r = run_cli("diff", str(EAGER), str(EAGER))
    assert r.exit_code == 0
    last = r.stdout.rstrip("\n").splitlines()[-1]
    assert re.fullmatch(r"no kernel changed: all \d+ have the same count and time in both \(listed in --json\)", last)
    assert "┃ Kernel" not in r.stdout  # no headers over nothing
    md = run_cli("diff", str(EAGER), str(EAGER), "--md")
    assert "| Kernel |" not in md.stdout and "no kernel changed" in md.stdout


def test_diff_says_per_step_and_microseconds_where_it_means_them(run_cli):
    from bench_kernel.trace import sample_trace

    r = run_cli("diff", str(sample_trace()), str(sample_trace()), "--md")
    assert "Count A per step" in r.stdout and "Time A per step" in r.stdout  # 53.25 is a mean per step
    title = r.stdout.splitlines()[0]
    assert title.endswith("167.9 µs -> 167.9 µs per step (+0)") and " us" not in title


def test_compare_with_nothing_matched_says_so_in_one_line(run_cli, target, tmp_path):
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    assert run_cli("run", f"{target}:two", *FAST, "-o", str(a)).exit_code == 0
    assert run_cli("run", f"{target}:other", *FAST, "-o", str(b)).exit_code == 0
    r = run_cli("compare", str(a), str(b))
    assert r.exit_code == 0
    assert r.stdout.splitlines() == [
        f"compare {a.name} (A) -> {b.name} (B): nothing compared: no point of A ({a.name}) matches one of B "
        f"({b.name}) by name and params (3 unmatched, each below)",
        f"note: not compared: a: only in A ({a.name})", f"note: not compared: b: only in A ({a.name})",
        f"note: not compared: zz: only in B ({b.name})"]


@pytest.mark.skipif(has_gpu(), reason="the answer of a machine without a GPU")
def test_profile_without_a_gpu_says_so_in_one_line(run_cli, target, tmp_path):
    from bench_kernel.cli.profile import NO_GPU_NOTE

    out = tmp_path / "t.json.gz"
    r = run_cli("profile", f"{target}:other", "--steps", "1", "-o", str(out))
    assert r.exit_code == 0 and r.stdout == f"{out}: 1 steps recorded: {NO_GPU_NOTE}\n"


def test_run_to_a_file_says_what_it_wrote(run_cli, target, tmp_path):
    out = tmp_path / "results.xlsx"
    r = run_cli("run", f"{target}:two", *FAST, "-o", str(out))
    assert r.exit_code == 0 and r.stdout == ""
    assert r.stderr.splitlines()[-1] == f"wrote {out}: 2 result(s)"
    assert out.read_bytes()[:2] == b"PK"


def test_a_long_run_off_a_terminal_says_now_and_then_that_it_is_alive(monkeypatch):
    import io

    from rich.console import Console

    from bench_kernel.report import ProgressLines

    monkeypatch.delenv("BENCH_KERNEL_PROGRESS")  # conftest turns them off for every other test
    now = [0.0]
    buf = io.StringIO()
    lines = ProgressLines(Console(file=buf, width=200), "cases", clock=lambda: now[0])
    for t, done in ((1.0, 0), (11.0, 1), (20.0, 2), (40.0, 3), (75.0, 4)):
        now[0] = t
        lines(done, 10, f"case {done}: host, round 1 of 5")
    assert buf.getvalue().splitlines() == [
        "1 of 10 cases done after 0m 11s; now: case 1: host, round 1 of 5",  # the first after 10 s, not before
        "4 of 10 cases done after 1m 15s; now: case 4: host, round 1 of 5"]  # then every 30 s at most
    monkeypatch.setenv("BENCH_KERNEL_PROGRESS", "0")
    off = ProgressLines(Console(file=buf, width=200), "cases", clock=lambda: now[0])
    now[0] = 500.0
    off(5, 10, "case 5")
    assert len(buf.getvalue().splitlines()) == 2


def test_a_trace_only_report_does_not_speak_of_methods(run_cli, tmp_path):
    out = tmp_path / "r.html"
    r = run_cli("report", str(EAGER), "-o", str(out))
    assert r.exit_code == 0, r.stderr
    page = out.read_text()
    assert "every method reached its precision" not in page  # a trace has no methods
    assert "Nothing to distrust: the trace&#x27;s analyses flagged nothing." in page


@pytest.mark.skipif(has_gpu(), reason="host times of a CPU under a GPU's roofs")
def test_cpu_times_under_a_gpu_roof_are_labelled(run_cli, target, tmp_path):
    png = tmp_path / "rl.svg"
    r = run_cli("run", f"{target}:other", *FAST, "--roofline", "--device", "H200", "--plot", str(png), "--json")
    assert r.exit_code == 0, r.stderr
    [res] = json.loads(r.stdout)["results"]
    note = next(n for n in res["notes"] if n["code"] == "roofline-cpu-times")
    assert note["kind"] == "warning" and "host wall-clock times of this machine's CPU" in note["text"]
    assert "placed under the H200's roofs" in note["text"] and "not how fast the H200 runs it" in note["text"]
    assert "(host wall clock), not on the H200" in png.read_text()  # the plot's title says it too


# --- units and names -----------------------------------------------------------------------------

def test_a_sweep_spec_is_called_a_spec(run_cli, tmp_path):
    _one_line(run_cli("sweep", str(tmp_path / "nospec.py")), 1,
              f"spec file {str(tmp_path / 'nospec.py')!r} does not exist")
    (tmp_path / "nospec.py").write_text("x = 1\n")
    _one_line(run_cli("sweep", str(tmp_path / "nospec.py")), 1, f"spec {tmp_path / 'nospec.py'} has no attribute 'sweep'")


def test_source_trace_of_a_module_counts_per_call_of_the_module(run_cli):
    # The sample trace calls LlamaAttention 8 times (2 layers x 4 steps) with 136 kernels: 17 a call.
    from bench_kernel.trace import sample_trace

    r = run_cli("source-trace", "--trace", str(sample_trace()), "--module", "LlamaAttention")
    assert r.exit_code == 0, r.stderr
    assert "`LlamaAttention` runs 17 kernels on the device per call" in r.stdout
    assert "| kernels per call | 17 (11 distinct call sites) |" in r.stdout
    one = run_cli("source-trace", "--trace", str(sample_trace()), "--module", "LlamaAttention_0")
    assert "| kernels per call | 17 (11 distinct call sites) |" in one.stdout  # a call of one instance: the same
