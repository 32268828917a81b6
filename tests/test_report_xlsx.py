"""The xlsx a performance engineer pivots on, read back with openpyxl: every cell's type and value.

Built from real records (``_report_helpers``: H200-like results placed with the real peak table)
through the same path as ``run -o x.xlsx`` and ``compare -o x.xlsx``."""

from __future__ import annotations

import io

import pytest
from _report_helpers import ENV, h200_results, store_sweeps

from bench_kernel.records import Measurement
from bench_kernel.report import comparison_table, render_body, results_table

openpyxl = pytest.importorskip("openpyxl")


def _book(tables, data=None):
    return openpyxl.load_workbook(io.BytesIO(render_body("xlsx", data, tables)))


def _sheet(ws) -> list[dict]:
    rows = list(ws.values)
    return [dict(zip(rows[0], r)) for r in rows[1:]]


@pytest.fixture(scope="module")
def results():
    r = h200_results()
    # One case whose graph capture failed: "failed" where the time would be.
    failed = Measurement.failed("graph", "capture failed: cudaErrorStreamCaptureUnsupported")
    r[1] = r[1].replace(measurements={**r[1].measurements, "graph": failed})
    return r


def test_run_results_sheet_numbers_axes_cis_and_units_once(results):
    wb = _book([results_table(results)], {"results": [r.to_dict() for r in results]})
    assert wb.sheetnames == ["results", "notes", "environment"]
    ws = wb.worksheets[0]
    header = [c.value for c in ws[1]]
    # Units appear once: "TFLOP/s" is not "TFLOP/s (TFLOP/s)"; durations say us.
    assert "TFLOP/s" in header and "TB/s" in header and "% roof" in header and "Busy % (%)" not in header
    assert not any("(TFLOP/s)" in h or "(TB/s)" in h for h in header)
    assert "graph (us)" in header and "graph CI low (us)" in header and "graph CI high (us)" in header
    rows = _sheet(ws)
    # One column per axis, numbers kept as numbers; no joined "M=128 N=4096" string column.
    assert "params" not in header and [r["M"] for r in rows[:3]] == [128, 1024, 8192]
    assert all(r["N"] == 4096 for r in rows[:3]) and rows[3]["n"] == 1 << 26
    big = results[2]
    lo, hi = big.measurements["graph"].samples.ci95_us
    assert rows[2]["graph (us)"] == pytest.approx(big.median_us("graph"))
    assert (rows[2]["graph CI low (us)"], rows[2]["graph CI high (us)"]) == (pytest.approx(lo), pytest.approx(hi))
    assert lo < rows[2]["graph (us)"] < hi
    assert rows[2]["% roof"] == pytest.approx(big.roofline.pct_of_roof)
    # No strings in number columns: the failed capture is an empty cell with the word as a comment.
    numeric = [h for h in header if h.endswith(("(us)", "(%)", "TFLOP/s", "TB/s", "samples", "kernels", "FLOP/B", "% roof"))]
    for row_cells in ws.iter_rows(min_row=2):
        for cell in row_cells:
            if header[cell.column - 1] in numeric:
                assert cell.value is None or isinstance(cell.value, (int, float)), (header[cell.column - 1], cell.value)
    failed_cell = ws.cell(3, header.index("graph (us)") + 1)
    assert failed_cell.value is None and failed_cell.comment.text == "failed"
    assert rows[1]["events (us)"] == pytest.approx(results[1].median_us("events"))


def test_environment_sheet_names_where_it_ran(results):
    wb = _book([results_table(results)], {"results": [r.to_dict() for r in results]})
    env = dict(list(wb["environment"].values)[1:])
    assert env["device"] == "NVIDIA H200" and env["driver"] == ENV["driver"] and env["torch"] == ENV["torch"]
    assert env["sm_count"] == 132 and isinstance(env["sm_count"], int)
    assert env["state_before.sm_clock_mhz"] == 1980 and env["git_commit"] == "abc1234"


def test_compare_sheet_ci_bounds_are_numbers_and_params_per_axis(tmp_path):
    from bench_kernel.results import compare_points, open_store

    db = tmp_path / "r.db"
    store_sweeps(db)
    with open_store(db) as store:
        a, b = store.points(store.run(1)), store.points(store.run(2))
        run = store.run(2)
    rc = compare_points(a, b)
    wb = _book([comparison_table(rc)], {"run": run.to_dict()})
    assert wb.sheetnames == ["comparison", "notes", "environment"]
    rows = _sheet(wb.worksheets[0])
    slow = next(r for r in rows if r["provider"] == "triton" and r["M"] == 8192)
    assert isinstance(slow["CI low (x)"], float) and slow["CI low (x)"] > 1.0 and slow["verdict"] == "slower"
    assert slow["B / A (x)"] == pytest.approx(next(m.comparison.ratio for m in rc.rows
                                                   if m.provider == "triton" and m.params["M"] == 8192))
    env = dict(list(wb["environment"].values)[1:])
    assert env["run.id"] == 2 and env["run.kind"] == "sweep" and env["run.command"] == "bench-kernel sweep sweep_gemm.py"


def test_sheet_names_are_short_names_not_mangled_titles():
    from bench_kernel.report import Column, Table

    t = [Table([Column("a", "a", "int")], [{"a": 1}], title="x: [weird]/title*?", sheet="kernels"),
         Table([Column("a", "a", "int")], [{"a": 2}], title="a very long title: that goes on and on past 31 chars"),
         Table([Column("a", "a", "int")], [{"a": 3}], sheet="kernels")]
    assert _book(t).sheetnames == ["kernels", "a very long title that goes on", "kernels (2)", "notes", "environment"]
