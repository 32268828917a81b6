"""The CLI shell itself: one-line errors, exit codes, output formats."""

from __future__ import annotations

import json

from bench_kernel.cli._common import dumps
from bench_kernel.report import Column, Table, format_value, to_csv, to_markdown


def test_unknown_command_is_one_line_usage_error(run_cli):
    r = run_cli("no-such-command")
    assert r.exit_code == 2
    assert r.stderr.startswith("bench-kernel: error: ")
    assert r.stderr.count("\n") == 1
    assert "no-such-command" in r.stderr


def test_version(run_cli):
    r = run_cli("--version")
    assert r.exit_code == 0
    assert "0.1.0" in r.stdout


def test_dumps_turns_nan_into_null():
    assert json.loads(dumps({"a": float("nan"), "b": [1.5, float("inf")]})) == {"a": None, "b": [1.5, None]}


def test_format_value_by_hint():
    assert format_value(0.5, "duration_us") == "500 ns"
    assert format_value(12.3456, "duration_us") == "12.35 µs"
    assert format_value(2500.0, "duration_us") == "2.5 ms"
    assert format_value(3_000_000.0, "duration_us") == "3 s"
    assert format_value(12.345, "pct") == "12.3%"
    assert format_value(1234567, "int") == "1,234,567"
    assert format_value(50 * 1024 * 1024, "bytes") == "50 MiB"
    assert format_value(None, "duration_us") == "-"
    assert [format_value(v, "ratio") for v in (1.0312, 12.5, 0.1, 0.0912, 0.0009, 0.0)] == [
        "1.03x", "12.50x", "0.10x", "0.0912x", "0.0009x", "0.00x"]


def test_csv_keeps_raw_values_and_markdown_formats():
    t = Table([Column("name", "Name"), Column("total_us", "Total", "duration_us")],
              [{"name": "a|b", "total_us": 1500.0}], title="T", notes=["n1"])
    assert to_csv(t) == "name,total_us\na|b,1500.0\n"
    md = to_markdown(t)
    assert "| a\\|b | 1.5 ms |" in md
    assert md.rstrip().endswith("- n1")
