"""-o never costs the user's data, and every output failure is one clear line.

Before: a table command that failed after opening ``-o keep.txt`` left it empty; ``-o`` equal to the
input trace overwrote it (exit 0); a missing folder, a full disk and a closed stdout were "internal
error"s or a silent exit 1; ``-o x.xlsx`` and ``-o x.html`` wrote terminal text with exit 0.
"""

from __future__ import annotations

import errno
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

DATA = Path(__file__).resolve().parent.parent / "data" / "trace"
EAGER = DATA / "eager.json"
FORMATS = ".txt (the table as printed; also no extension), .json, .csv, .md, .xlsx, .html"


def _cli(*argv: str, **kw) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "bench_kernel", *argv], capture_output=True, text=True, **kw)


@pytest.fixture
def trace_copy(tmp_path: Path) -> Path:
    p = tmp_path / "t.json"
    p.write_bytes(EAGER.read_bytes())
    return p


# --- the output is one of the inputs ------------------------------------------------------------------

def test_output_equal_to_the_trace_is_refused_and_the_trace_kept(run_cli, trace_copy):
    before = trace_copy.read_bytes()
    r = run_cli("inventory", str(trace_copy), "-o", str(trace_copy))
    assert r.exit_code == 2
    assert r.stderr == (f"bench-kernel: error: -o {trace_copy} is also an input ({trace_copy}): it would be "
                        f"overwritten; write the output somewhere else\n")
    assert trace_copy.read_bytes() == before and r.stdout == ""


def test_the_same_file_by_another_path_or_a_link_is_refused(run_cli, trace_copy, tmp_path):
    link = tmp_path / "link.json"
    link.symlink_to(trace_copy)
    other = tmp_path / "sub"
    other.mkdir()
    for out in (link, other / ".." / "t.json"):
        r = run_cli("layers", str(trace_copy), "-o", str(out))
        assert r.exit_code == 2 and "is also an input" in r.stderr, out
    assert trace_copy.read_bytes() == EAGER.read_bytes()


@pytest.mark.parametrize("argv", [
    ("diff", "{plain}", "{t}", "-o", "{t}"),
    ("attribute", str(DATA / "graph.json.gz"), "--capture", "{t}", "-o", "{t}"),
    ("inventory", "{t}", "--steps", "{steps}", "-o", "{steps}"),
    ("decode", "x", "--rules", "{rules}", "-o", "{rules}"),
    ("run", "{target}:cases", "-o", "{target}"),
    ("run", "{target}:cases", "--plot", "{target}"),
    ("source-trace", "{target}:cases", "-o", "{target}"),
    ("source-trace", "--trace", "{t}", "-o", "{t}"),
    ("profile", "{target}:cases", "-o", "{target}"),
])
def test_every_writer_refuses_to_overwrite_an_input(run_cli, trace_copy, tmp_path, argv):
    steps, rules, target = tmp_path / "steps.json", tmp_path / "rules.tsv", tmp_path / "target.py"
    steps.write_text("{}")
    rules.write_text("id\tcategory\tfamily\ton\tpattern\n")
    target.write_text("def cases():\n    return lambda: None\n")
    before = {p: p.read_bytes() for p in (trace_copy, steps, rules, target)}
    args = [a.format(plain=EAGER, t=trace_copy, steps=steps, rules=rules, target=target) for a in argv]
    r = run_cli(*args)
    assert r.exit_code == 2, r.stderr
    assert r.stderr.startswith("bench-kernel: error: ") and "is also an input" in r.stderr
    assert r.stderr.count("\n") == 1
    assert {p: p.read_bytes() for p in before} == before


def test_a_rank_file_inside_a_trace_folder_is_refused(run_cli, tmp_path):
    ranks = tmp_path / "ranks"
    ranks.mkdir()
    for f in (DATA / "ranks").iterdir():
        (ranks / f.name).write_bytes(f.read_bytes())
    r = run_cli("inventory", str(ranks), "--rank", "0", "-o", str(ranks / "trace_rank1.json"))
    assert r.exit_code == 2 and "is also an input" in r.stderr
    assert (ranks / "trace_rank1.json").read_bytes() == (DATA / "ranks" / "trace_rank1.json").read_bytes()


# --- failures while writing never cost the old file -------------------------------------------------

def test_a_full_disk_keeps_the_old_file_and_says_so(run_cli, tmp_path, monkeypatch):
    keep = tmp_path / "keep.txt"
    keep.write_text("precious\n")

    def full(fd: int) -> None:  # the disk fills up while the new file is flushed
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr("bench_kernel.cli._common.os.fsync", full)
    r = run_cli("inventory", str(EAGER), "-o", str(keep))
    assert r.exit_code == 1
    assert r.stderr == (f"bench-kernel: error: cannot write {keep}: No space left on device "
                        f"({keep} was left as it was)\n")
    assert keep.read_text() == "precious\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["keep.txt"]  # no temporary file left


def test_dev_full_is_one_line(run_cli):
    r = run_cli("inventory", str(EAGER), "--json", "-o", "/dev/full")
    assert r.exit_code == 1
    assert r.stderr == "bench-kernel: error: cannot write /dev/full: No space left on device\n"


def test_a_failed_command_leaves_an_existing_output_alone(run_cli, tmp_path):
    keep = tmp_path / "keep.txt"
    keep.write_text("precious\n")
    bad = tmp_path / "bad.json"
    bad.write_text('{"traceEvents": [')
    r = run_cli("inventory", str(bad), "-o", str(keep))
    assert r.exit_code == 1 and "internal error" not in r.stderr
    assert keep.read_text() == "precious\n"


def test_a_rewritten_file_keeps_its_permissions(run_cli, tmp_path):
    out = tmp_path / "out.json"
    out.write_text("old")
    out.chmod(0o640)
    assert run_cli("decode", "x", "-o", str(out)).exit_code == 0
    assert json.loads(out.read_text())["kernels"][0]["name"] == "x"
    assert out.stat().st_mode & 0o777 == 0o640


def test_missing_folder_is_one_line_before_any_work(run_cli, tmp_path):
    out = tmp_path / "nope" / "x.json"
    r = run_cli("inventory", str(EAGER), "-o", str(out))
    assert r.exit_code == 1
    assert r.stderr == f"bench-kernel: error: cannot write {out}: folder {out.parent} does not exist\n"


def test_dash_is_stdout(run_cli):
    r = run_cli("decode", "x", "--json", "-o", "-")
    assert r.exit_code == 0 and json.loads(r.stdout)["kernels"][0]["name"] == "x"
    assert not Path("-").exists()


# --- formats ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("name,message", [
    ("x.pdf", f"cannot write {{p}}: unknown output format '.pdf'; -o takes {FORMATS}"),
    ("x.xls", f"cannot write {{p}}: unknown output format '.xls'; -o takes {FORMATS}"),
])
def test_unknown_extension_is_an_error_naming_the_formats(run_cli, tmp_path, name, message):
    p = tmp_path / name
    r = run_cli("inventory", str(EAGER), "-o", str(p))
    assert r.exit_code == 2
    assert r.stderr == f"bench-kernel: error: {message.format(p=p)}\n"
    assert not p.exists()


@pytest.mark.parametrize("name", ["x.txt", "x"])
def test_txt_and_no_extension_write_the_table(run_cli, tmp_path, name):
    p = tmp_path / name
    assert run_cli("inventory", str(EAGER), "-o", str(p)).exit_code == 0
    assert p.read_text().startswith("eager.json: 42 kernels, 606 µs")


def test_xlsx_one_sheet_per_table_raw_values_units_in_headers(run_cli, tmp_path):
    openpyxl = pytest.importorskip("openpyxl")
    p = tmp_path / "inv.xlsx"
    r = run_cli("inventory", str(EAGER), "-o", str(p))
    assert r.exit_code == 0, r.stderr
    wb = openpyxl.load_workbook(p)
    assert wb.sheetnames == ["kernels", "memory ops", "notes", "environment"]
    kernels = list(wb.worksheets[0].values)
    assert kernels[0] == ("Kernel", "Category", "Count", "Total (us)", "Avg (us)", "Min (us)", "Max (us)",
                          "Share (%)")
    first = dict(zip(kernels[0], kernels[1]))
    assert first["Kernel"] == "attn<lambda, lambda>" and first["Total (us)"] == 252.0 and first["Count"] == 9
    assert sum(row[3] for row in kernels[1:]) == pytest.approx(606.0)  # raw microseconds, they add up
    assert list(wb.worksheets[1].values)[1] == ("Memcpy DtoH (Device -> Pinned)", 1, 3.0, 4096)
    notes = [row[1] for row in wb["notes"].values]
    assert "memcpy/memset are not kernels: listed separately, not in the kernel total" in notes
    assert "title: eager.json: 42 kernels, 606 µs" in notes  # the title the sheet name shortens
    env = dict(list(wb["environment"].values)[1:])
    assert env["trace"].endswith("eager.json") and env["bench-kernel"]


def test_xlsx_without_openpyxl_is_one_line(run_cli, tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "openpyxl", None)  # as if the extra were not installed
    p = tmp_path / "x.xlsx"
    r = run_cli("decode", "x", "-o", str(p))
    assert r.exit_code == 1
    assert r.stderr == ("bench-kernel: error: writing .xlsx needs openpyxl: pip install 'bench-kernel[xlsx]' "
                        "(or pip install openpyxl)\n")
    assert not p.exists()


def test_html_is_the_report_written_whole(run_cli, tmp_path):
    p = tmp_path / "x.html"
    assert run_cli("inventory", str(EAGER), "-o", str(p)).exit_code == 0
    text = p.read_text()
    assert text.lstrip().lower().startswith("<!doctype html") and "attn&lt;lambda, lambda&gt;" in text
    assert sorted(x.name for x in tmp_path.iterdir()) == ["x.html"]


def test_flag_wins_over_extension(run_cli, tmp_path):
    p = tmp_path / "x.html"
    assert run_cli("decode", "x", "--json", "-o", str(p)).exit_code == 0
    assert json.loads(p.read_text())["kernels"][0]["name"] == "x"


# --- stdout -------------------------------------------------------------------------------------------

@pytest.mark.multiprocess
def test_closed_stdout_ends_quietly():
    # `bench-kernel decode x | head -0`: the reader is gone before anything is written. Closing the
    # pipe is the reader's choice, not an error: no message, exit 0 (as `git log | head` does).
    p = subprocess.Popen([sys.executable, "-m", "bench_kernel", "decode", "x"], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    p.stdout.close()
    err = p.stderr.read()
    assert (p.wait(timeout=60), err) == (0, "")


@pytest.mark.multiprocess
@pytest.mark.parametrize("fmt", [(), ("--json",)])
@pytest.mark.slow
def test_a_reader_that_stops_early_ends_the_output_quietly(fmt):
    # `... | head -1`: 2,500 names print far more than a pipe holds (64 KiB: 70+ bytes a row), so the
    # writer is still writing when the reader closes its end: the EPIPE arrives mid-output, every time.
    names = "\n".join(f"void at::native::kernel_{i}<float>(float*)" for i in range(2500)) + "\n"
    p = subprocess.Popen([sys.executable, "-m", "bench_kernel", "decode", *fmt], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    p.stdin.write(names.encode())
    p.stdin.close()
    first = p.stdout.readline()
    p.stdout.close()
    err = p.stderr.read()
    assert first.strip()  # it was writing
    assert (p.wait(timeout=60), err) == (0, b"")


@pytest.mark.multiprocess
@pytest.mark.parametrize("fmt", [(), ("--json",)])
def test_full_stdout_is_one_line(fmt):
    with open("/dev/full", "w") as full:
        r = subprocess.run([sys.executable, "-m", "bench_kernel", "decode", "x", *fmt], stdout=full,
                           stderr=subprocess.PIPE, text=True)
    assert r.returncode == 1
    assert r.stderr == "bench-kernel: error: cannot write to stdout: No space left on device\n"


# --- run --plot ---------------------------------------------------------------------------------------

@pytest.mark.slow  # a whole run with its roofline placement: 3 s quiet, 7-20 s on a fresh or busy machine
def test_a_plot_that_fails_keeps_the_results(run_cli, tmp_path, monkeypatch):
    target = tmp_path / "t.py"
    target.write_text("import torch\ndef cases():\n    return {'name': 'add', 'fn': torch.add, "
                      "'make_inputs': lambda: (torch.ones(256), torch.ones(256)), 'flops': 256, 'bytes': 3072}\n")
    out, plot = tmp_path / "res.json", tmp_path / "r.png"
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # plotting cannot work: matplotlib is missing
    monkeypatch.setitem(sys.modules, "matplotlib.figure", None)
    r = run_cli("run", f"{target}:cases", "-m", "host", "--max-time", "0.02", "--rounds", "1", "--device", "H200",
                "--plot", str(plot), "-o", str(out))
    assert r.exit_code == 1
    assert r.stderr == (f"wrote {out}: 1 result(s)\n"  # the results went out first, and it says so
                        f"bench-kernel: error: --plot {plot}: plotting needs matplotlib: pip install "
                        f"'bench-kernel[plot]'\n")
    data = json.loads(out.read_text())
    assert [x["name"] for x in data["results"]] == ["add"] and data["results"][0]["roofline"] is not None
    assert not plot.exists()
