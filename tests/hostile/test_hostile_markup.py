"""Names are data, never markup: every table command on traces and targets whose kernel,
op, case and file names are rich markup, ANSI escapes and control characters.

Before: ``[/]`` made every table command fail with "internal error: MarkupError", ``[bold red]x[/bold red]``
printed ``x``, ``[rank0]`` vanished, and ESC sequences reached the terminal raw.
"""

from __future__ import annotations

import json

import pytest

from bench_kernel.report import Column, Table, printable, to_csv, to_markdown
from hostile.conftest import ANSI, BIDI, CLOSE, CR, RANK, SHOWN, STYLE

#: The visible forms that each command's table must contain, verbatim.
LAYER_NAMES = [SHOWN[CLOSE], SHOWN[STYLE], SHOWN[ANSI]]


def _clean(r) -> None:
    """The run worked and nothing a terminal would act on reached stdout or stderr."""
    assert r.exit_code == 0, r.stderr
    assert "internal error" not in r.stderr and "MarkupError" not in r.stderr
    for stream in (r.stdout, r.stderr):
        assert "\x1b" not in stream and "\r" not in stream and "\u202e" not in stream


@pytest.mark.parametrize("command,extra", [
    ("inventory", ()), ("inventory", ("--per-step",)),
    ("layers", ()), ("phases", ()),
])
def test_trace_table_commands_show_names_verbatim(run_cli, hostile_traces, command, extra):
    r = run_cli(command, str(hostile_traces["eager"]), *extra)
    _clean(r)
    for shown in LAYER_NAMES:
        assert shown in r.stdout, (command, shown)
    assert "[bold red]eager.json" in r.stdout  # the file name in the title, tags and all


def test_inventory_shows_the_bidi_and_cr_names_escaped(run_cli, hostile_traces):
    r = run_cli("inventory", str(hostile_traces["eager"]))
    _clean(r)
    assert SHOWN[BIDI] in r.stdout


@pytest.mark.parametrize("command,shown", [("timeline", []), ("ops", [f"{RANK}aten::linear"])])
def test_timeline_and_ops_show_names_verbatim(run_cli, hostile_traces, command, shown):
    r = run_cli(command, str(hostile_traces["eager"]))
    _clean(r)
    assert r.stdout.startswith("[bold red]eager.json: ")
    for name in shown:
        assert name in r.stdout


def test_diff_shows_new_and_vanished_hostile_names(run_cli, hostile_traces):
    r = run_cli("diff", str(hostile_traces["plain"]), str(hostile_traces["eager"]), "--top", "50")
    _clean(r)
    for shown in LAYER_NAMES + [SHOWN[BIDI]]:
        assert shown in r.stdout
    assert "eager.json -> [bold red]eager.json" in r.stdout


def test_attribute_shows_kernel_op_and_file_names(run_cli, hostile_traces):
    r = run_cli("attribute", str(hostile_traces["graph"]), "--capture", str(hostile_traces["capture"]))
    _clean(r)
    assert r.stdout.startswith("[rank0]graph.json.gz: matched 12 of 13 replayed kernels")
    assert "capture\\x1b[0m.json" in r.stdout  # the ESC in the capture's file name, shown escaped
    assert f"{RANK}aten::linear" in r.stdout
    for shown in LAYER_NAMES:
        assert shown in r.stdout


def test_decode_table_and_tree(run_cli):
    r = run_cli("decode", CLOSE, STYLE, ANSI, f"{RANK}kernel")
    _clean(r)
    for shown in (SHOWN[CLOSE], SHOWN[STYLE], SHOWN[ANSI], "[rank0]kernel"):
        assert shown in r.stdout
    tree = run_cli("decode", "--tree", ANSI)
    _clean(tree)
    assert SHOWN[ANSI] in tree.stdout


def test_run_case_names_in_table_and_notes(run_cli, hostile_target):
    r = run_cli("run", f"{hostile_target}:cases", "-m", "host", "--max-time", "0.02", "--precision", "0.5",
                "--rounds", "1")
    _clean(r)
    for name in (CLOSE, STYLE, ANSI, CR):
        assert SHOWN[name] in r.stdout


@pytest.mark.parametrize("fmt", ["--md", "--csv"])
def test_markdown_and_csv_escape_controls_and_keep_markup(run_cli, hostile_traces, fmt):
    r = run_cli("inventory", str(hostile_traces["eager"]), fmt)
    _clean(r)
    for shown in LAYER_NAMES:
        assert shown in r.stdout


def test_json_keeps_the_exact_names(run_cli, hostile_traces):
    # JSON is data for programs: the names stay exactly what the trace holds (JSON escapes controls).
    r = run_cli("inventory", str(hostile_traces["eager"]), "--json")
    assert r.exit_code == 0
    names = {row["name"] for row in json.loads(r.stdout)["kernels"]}
    assert {CLOSE, STYLE, ANSI, CR, BIDI} <= names


def test_error_lines_escape_names(run_cli):
    r = run_cli("inventory", f"missing{ANSI}.json")
    assert r.exit_code == 1
    assert r.stderr == "bench-kernel: error: trace file not found: missing\\x1b[31mgemm.json\n"
    r = run_cli("devices", CLOSE)
    assert r.exit_code == 1 and r.stderr.startswith("bench-kernel: error: unknown device '[/]'")


def test_source_trace_document_escapes_controls(run_cli, hostile_traces):
    r = run_cli("source-trace", "--trace", str(hostile_traces["eager"]), "--kernel", "gemm", "--step", "1")
    _clean(r)
    assert SHOWN[ANSI] in r.stdout


def test_printable_escapes_every_control_and_keeps_everything_else():
    assert printable("a\x1b[31mb\x07c\x7fd\x9be\u202ef") == "a\\x1b[31mb\\x07c\\x7fd\\x9be\\u202ef"
    assert printable("[bold]x[/bold] µs → ok") == "[bold]x[/bold] µs → ok"
    assert printable("two\nlines\tand tab", keep="\n") == "two\nlines\\x09and tab"


def test_renderers_take_any_table_of_hostile_text():
    t = Table([Column("name", "Name [/]"), Column("us", "Time", "duration_us")],
              [{"name": STYLE, "us": 1.0}, {"name": ANSI, "us": 2.0}], title=f"T {CLOSE}", notes=[f"n {CR}"])
    md = to_markdown(t)
    assert md.splitlines()[0] == "### T [/]"
    assert "| [bold red]x[/bold red] | 1 µs |" in md and "| \\x1b[31mgemm | 2 µs |" in md
    assert md.rstrip().endswith("- n ok\\x0dEVIL")
    assert to_csv(t) == "name,us\n[bold red]x[/bold red],1.0\n\\x1b[31mgemm,2.0\n"
