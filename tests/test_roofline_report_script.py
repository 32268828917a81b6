"""benchmarks/roofline_report.py end to end in --smoke mode (CPU, tiny shapes)."""

from __future__ import annotations

import importlib.util
import json

import pytest

from conftest import ROOT


@pytest.mark.slow
def test_smoke_run_writes_table_plot_and_json(tmp_path, monkeypatch):
    pytest.importorskip("torch")
    pytest.importorskip("matplotlib")  # here, not at collection: every xdist worker would pay for it
    monkeypatch.setenv("BENCH_KERNEL_CACHE_DIR", str(tmp_path / "cache"))
    spec = importlib.util.spec_from_file_location("roofline_report", ROOT / "benchmarks" / "roofline_report.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.main(["--smoke", "--device", "H200", "--out", str(tmp_path)]) == 0
    md = (tmp_path / "roofline-h200.md").read_text()
    assert "SMOKE RUN" in md and "![roofline](roofline-h200.png)" in md
    data = json.loads((tmp_path / "roofline-h200.json").read_text())
    names = [d["name"] for d in data]
    assert names == ["gemm 256^3", "gemm decode 16x256x256", "sdpa B4 H32 L128 D128", "add 65536",
                     "row sum 256x4096", "add 4096 (tiny)", "copy 65536"]
    gemm = data[0]
    assert gemm["flops"] == 2 * 256**3 and gemm["bytes"] == 3 * 256 * 256 * 2
    for name in names:
        assert f"| {name} |" in md
    assert 'id="point-5"' in (tmp_path / "roofline-h200.svg").read_text()
    assert (tmp_path / "roofline-h200.png").stat().st_size > 20_000
