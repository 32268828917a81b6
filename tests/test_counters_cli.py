"""``bench-kernel roofline --counters FILE``: the model checked against counts a user already has."""

from __future__ import annotations

import json
from pathlib import Path

DATA = Path(__file__).parent / "data" / "counters"


def test_roofline_checks_the_model_against_an_ncu_csv(run_cli, tmp_path):
    r = run_cli("roofline", "--flops", str(2 * 8192 * 8192), "--bytes", str(8192 * 8192 * 2), "--time-us", "35",
                "--device", "H200", "--no-measured", "--counters", str(DATA / "ncu_raw_h200_suite.csv"),
                "--nvtx-range", "bk_gemv_bf16", "--json")
    assert r.exit_code == 0, r.stderr
    data = json.loads(r.stdout)
    assert data["counters"]["total"]["tensor_flops"]["bf16"] == 1_073_741_824
    placed = data["measured_roofline"]
    flops_check = next(c for c in placed["checks"] if c["quantity"] == "flops")
    assert flops_check["ratio"] == 8.0 and "masked or padded work" in flops_check["note"]
    assert placed["time_us"] == 35 and placed["levels"][0]["ceiling_tbps"] == 4.8
    assert data["roofline"]["pct_of_roof"] > 0  # the model's own placement is still there


def test_roofline_counters_markdown_and_plot(run_cli, tmp_path):
    import pytest

    pytest.importorskip("matplotlib")
    plot = tmp_path / "h.svg"
    r = run_cli("roofline", "--flops", "67108864", "--bytes", str(2 * 4 * (1 << 26)), "--time-us", "126",
                "--device", "H200", "--no-measured", "--dtype", "fp32",
                "--counters", str(DATA / "ncu_raw_h200_mul256.csv"), "--plot", str(plot), "--md")
    assert r.exit_code == 0, r.stderr
    assert "| one call | 512 MiB | 488 MiB | 0.95x | 778 MiB | 512 MiB | 0.06711 | 0.06711 | 1.00x |" in r.stdout
    assert 'id="point-0-dram"' in plot.read_text()
