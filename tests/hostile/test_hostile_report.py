"""``bench-kernel report``: every bad input is one line and exit 1 (2 for usage), ``-o`` never
destroys a file, and names from traces and targets are text in the HTML, never markup."""

from __future__ import annotations

import gzip
import json
import re
from pathlib import Path

import pytest

DATA = Path(__file__).resolve().parent.parent / "data" / "trace"
EAGER = DATA / "eager.json"
#: Kernel names of the eager fixture -> names that are HTML, an attribute breaker, an entity,
#: rich markup, and control characters (ESC, CR, a bidi override).
HOSTILE = {"rms_norm_kernel": "<script>window.__pwned=1</script>", "add_kernel": 'x" onmouseover="alert(1)',
           "gemm_qkv_kernel": "a&amp;b&lt;", "embedding_kernel": "[/]", "lm_head_gemm": "\x1b[31mred\rEVIL\u202eb"}


def _err(r) -> str:
    assert r.stderr.count("\n") == 1, r.stderr  # one line, no traceback
    return r.stderr


@pytest.fixture
def hostile_trace(tmp_path: Path) -> Path:
    text = EAGER.read_text()
    for old, new in HOSTILE.items():
        text = text.replace(f'"{old}"', json.dumps(new))
    p = tmp_path / "hostile.json"
    p.write_text(text)
    return p


MISSING = ("does not exist (expected a --json results file, a trace, or a stored run: an id, 'latest' or "
           "'latest~N', optionally ':PROVIDER')")


def test_missing_input(run_cli, tmp_path):
    r = run_cli("report", str(tmp_path / "nope.json"), "-o", str(tmp_path / "r.html"))
    assert r.exit_code == 1
    assert _err(r) == f"bench-kernel: error: report input '{tmp_path / 'nope.json'}' {MISSING}\n"
    assert not (tmp_path / "r.html").exists()


def test_json_that_is_neither_results_nor_a_trace(run_cli, tmp_path):
    p = tmp_path / "other.json"
    p.write_text('{"foo": 1, "bar": [2]}')
    r = run_cli("report", str(p), "-o", str(tmp_path / "r.html"))
    assert r.exit_code == 1
    assert _err(r) == (f"bench-kernel: error: '{p}' is neither a bench-kernel results file (the --json output of "
                       f"run or sweep) nor a Kineto trace: {p}: JSON without 'traceEvents' (found ['bar', 'foo']); "
                       f"not a Kineto/Chrome trace\n")


def test_results_file_with_records_that_are_not_results(run_cli, tmp_path):
    p = tmp_path / "bad.json"
    p.write_text('{"results": [{"foo": 1}]}')
    r = run_cli("report", str(p), "-o", str(tmp_path / "r.html"))
    assert r.exit_code == 1
    assert _err(r) == (f"bench-kernel: error: '{p}' is not a bench-kernel results file (ValidationError: Object missing required field `name`); "
                       f"expected the --json output of 'bench-kernel run' or 'bench-kernel sweep'\n")


def test_truncated_results_file(run_cli, tmp_path):
    p = tmp_path / "cut.json"
    p.write_text('{"results": [{"name": "gemm", "measurements": {')
    r = run_cli("report", str(p), "-o", str(tmp_path / "r.html"))
    assert r.exit_code == 1
    assert _err(r) == (f"bench-kernel: error: '{p}' is not a bench-kernel results file (invalid JSON at line 1: "
                       f"Expecting property name enclosed in double quotes; truncated?); expected the --json output "
                       f"of 'bench-kernel run' or 'bench-kernel sweep'\n")


@pytest.mark.parametrize("gz", [False, True])
def test_truncated_trace(run_cli, tmp_path, gz):
    raw = EAGER.read_bytes()[:3000]
    p = tmp_path / ("cut.json.gz" if gz else "cut.json")
    p.write_bytes(gzip.compress(EAGER.read_bytes())[:1500] if gz else raw)
    r = run_cli("report", str(p), "-o", str(tmp_path / "r.html"))
    assert r.exit_code == 1
    assert _err(r).startswith(f"bench-kernel: error: {p}: ")
    assert ("truncated" in r.stderr) and "neither" not in r.stderr


def test_a_trace_without_kernels(run_cli, tmp_path):
    p = tmp_path / "empty.json"
    p.write_text('{"traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "aten::add", "ts": 1, "dur": 2, '
                 '"pid": 1, "tid": 1}]}')
    r = run_cli("report", str(p), "-o", str(tmp_path / "r.html"))
    assert r.exit_code == 1
    assert _err(r).startswith(f"bench-kernel: error: {p}: ") and "kernel" in r.stderr


def test_an_unknown_run_id_names_the_database_and_what_it_holds(run_cli, tmp_path):
    from _report_helpers import store_sweeps

    db = tmp_path / "results.db"
    store_sweeps(db)
    r = run_cli("report", "12345", "--db", str(db), "-o", str(tmp_path / "r.html"))
    assert r.exit_code == 1
    assert _err(r) == (f"bench-kernel: error: no run 12345 in '{db}' (it holds runs 1..2; see "
                       f"'bench-kernel history')\n")
    r = run_cli("report", "1:cublas", "--db", str(db), "-o", str(tmp_path / "r.html"))
    assert r.exit_code == 2
    assert _err(r) == "bench-kernel: error: provider 'cublas' is not in run 1; its providers: torch, triton\n"
    assert not (tmp_path / "r.html").exists()


def test_a_database_that_is_not_one(run_cli, tmp_path):
    junk = tmp_path / "junk.db"
    junk.write_text("not sqlite")
    r = run_cli("report", "latest", "--db", str(junk), "-o", str(tmp_path / "r.html"))
    assert r.exit_code == 1
    assert _err(r) == (f"bench-kernel: error: '{junk}' is not a SQLite database; bench-kernel leaves it untouched: "
                       f"give another --db\n")
    assert junk.read_text() == "not sqlite"


def test_a_threshold_out_of_range(run_cli, tmp_path):
    r = run_cli("report", str(EAGER), "--threshold", "1.5", "-o", str(tmp_path / "r.html"))
    assert r.exit_code == 2
    assert _err(r) == "bench-kernel: error: --threshold must be a fraction in [0, 1) (0.04 = 4%), got 1.5\n"


@pytest.mark.parametrize("name", ["r.pdf", "r.json", "r"])
def test_output_that_is_not_html_is_a_usage_error_naming_the_formats(run_cli, tmp_path, name):
    out = tmp_path / name
    r = run_cli("report", str(EAGER), "-o", str(out))
    assert r.exit_code == 2
    got = Path(name).suffix or "no extension"
    assert _err(r) == (f"bench-kernel: error: -o '{out}': the report is HTML, so the file must end in .html or .htm "
                       f"(got '{got}'); for a PDF, open the HTML in a browser and print it\n")
    assert not out.exists()


def test_output_in_a_missing_folder_or_onto_a_folder(run_cli, tmp_path):
    # The checks every -o goes through (cli._common.check_output_path), before any input is read.
    r = run_cli("report", str(EAGER), "-o", str(tmp_path / "no" / "r.html"))
    assert r.exit_code == 1
    assert _err(r) == f"bench-kernel: error: cannot write {tmp_path / 'no' / 'r.html'}: folder {tmp_path / 'no'} does not exist\n"
    d = tmp_path / "d.html"
    d.mkdir()
    r = run_cli("report", str(EAGER), "-o", str(d))
    assert r.exit_code == 2
    assert _err(r) == f"bench-kernel: error: -o {d} is a directory: give a file name\n"


def test_a_failing_input_leaves_an_existing_report_untouched(run_cli, tmp_path):
    out = tmp_path / "r.html"
    out.write_text("yesterday's report")
    r = run_cli("report", str(EAGER), str(tmp_path / "nope.json"), "-o", str(out))
    assert r.exit_code == 1
    assert out.read_text() == "yesterday's report"
    assert [p.name for p in tmp_path.iterdir()] == ["r.html"]  # no temporary file left behind


def test_no_input_is_a_usage_error(run_cli, tmp_path):
    r = run_cli("report", "-o", str(tmp_path / "r.html"))
    assert r.exit_code == 2
    assert _err(r).startswith("bench-kernel: error: Missing argument 'INPUT...'")


def test_names_with_html_quotes_entities_markup_and_controls_are_text(run_cli, hostile_trace, tmp_path):
    out = tmp_path / "r.html"
    r = run_cli("report", str(hostile_trace), "-o", str(out))
    assert r.exit_code == 0, r.stderr
    html = out.read_text()
    assert len(re.findall(r"<script\b", html)) == 1  # ours, at the end
    assert "&lt;script&gt;window.__pwned=1&lt;/script&gt;" in html
    assert 'x&quot; onmouseover=&quot;alert(1)' in html and 'onmouseover="' not in html
    assert "a&amp;amp;b&amp;lt;" in html  # an entity in a name is shown, not decoded
    assert "<td class=\"name nowrap\">[/]</td>" in html
    assert "\\x1b[31mred\\x0dEVIL\\u202eb" in html and "\x1b" not in html and "\u202e" not in html
