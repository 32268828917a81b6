"""A serving run whose recorded slices are damaged: the report refuses it in one line, and writes nothing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

H200 = Path(__file__).resolve().parents[2] / "benchmarks" / "results" / "serve-h200-prefix.json"


@pytest.mark.parametrize("slices", [{"slice_s": 2.0, "slices": [{"start_s": 0.0}]},
                                    {"slice_s": 2.0, "slices": [{"start_s": "x", "end_s": 2.0}]}])
def test_damaged_slices_are_one_error_line_and_no_report(run_cli, tmp_path, slices):
    data = json.loads(H200.read_text())
    data["points"][0]["slices"] = slices
    bad, out = tmp_path / "bad.json", tmp_path / "r.html"
    bad.write_text(json.dumps(data))
    r = run_cli("report", str(bad), "-o", str(out))
    assert r.exit_code == 1 and not out.exists()
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("bench-kernel: error: ") and "Traceback" not in r.stderr
