"""A missing optional dependency (an extra) is one rule everywhere: one line naming the pip install,
exit 1 (the command line was right; installing the package makes the same line work).

Before: a missing matplotlib or Ray exited 2 (usage) and a missing openpyxl 1.
"""

from __future__ import annotations

import sys

import pytest

from _sweep_helpers import write_spec

FAST = ["-m", "host", "--precision", "0.5", "--max-time", "0.02", "--rounds", "1"]
PLOT = "plotting needs matplotlib: pip install 'bench-kernel[plot]'"


def _hide(monkeypatch, *modules: str) -> None:
    for m in modules:
        monkeypatch.setitem(sys.modules, m, None)  # as if the extra were not installed


@pytest.mark.parametrize("case", ["roofline --plot", "sweep --plot", "sweep --backend ray", "-o x.xlsx"])
@pytest.mark.multiprocess
def test_every_missing_extra_exits_1_with_the_install_line(case, run_cli, monkeypatch, tmp_path):
    spec = write_spec(tmp_path)
    db = str(tmp_path / "r.db")
    argv, message = {
        "roofline --plot": (["roofline", "--flops", "1e12", "--bytes", "1e9", "--time-us", "1000", "--device", "H200",
                             "--plot", str(tmp_path / "r.png")], PLOT),
        "sweep --plot": (["sweep", str(spec), "--db", db, *FAST, "--plot", str(tmp_path / "s.png"), "--x", "M"], PLOT),
        "sweep --backend ray": (["sweep", str(spec), "--db", db, *FAST, "--backend", "ray"],
                                "--backend ray needs Ray: pip install 'bench-kernel[ray]'"),
        "-o x.xlsx": (["decode", "x", "-o", str(tmp_path / "x.xlsx")],
                      "writing .xlsx needs openpyxl: pip install 'bench-kernel[xlsx]' (or pip install openpyxl)"),
    }[case]
    _hide(monkeypatch, "matplotlib", "matplotlib.figure", "ray", "openpyxl")
    r = run_cli(*argv)
    assert (r.exit_code, r.stderr) == (1, f"bench-kernel: error: {message}\n")
    assert not any(p.suffix in (".png", ".xlsx") for p in tmp_path.iterdir())
