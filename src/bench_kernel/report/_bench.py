"""Tables for benchmark results (``bench-kernel run``)."""

from __future__ import annotations

from typing import Sequence

from bench_kernel.report._table import Column, Table

__all__ = ["results_table"]


def results_table(results: Sequence) -> Table:
    """One row per case: median us per method, launch overhead, kernels per call, throughput."""
    methods = [m for m in ("graph", "events", "kernel", "host")
               if any(m in r.measurements for r in results)]
    cols = [Column("case", "case"), Column("params", "params")]
    cols += [Column(f"{m}_us", f"{m}", "duration_us") for m in methods]
    # Columns no result can fill (launch overhead and kernels without a GPU) are left out.
    optional = [
        (Column("launch_overhead_us", "launch ovh", "duration_us"), lambda r: r.launch_overhead_us),
        (Column("kernels_per_call", "kernels", "float"), lambda r: r.kernels_per_call),
        (Column("achieved_tflops", "TFLOP/s", "tflops"), lambda r: r.achieved_tflops),
        (Column("achieved_tbps", "TB/s", "tbps"), lambda r: r.achieved_tbps),
    ]
    cols += [c for c, get in optional if any(get(r) is not None for r in results)]
    if any(r.roofline is not None for r in results):
        cols += [Column("intensity", "FLOP/B", "float"), Column("pct_of_roof", "% roof", "roof_pct"),
                 Column("bound", "bound")]
    rows, notes = [], []
    for r in results:
        row = {"case": r.name, "params": " ".join(f"{k}={v}" for k, v in r.params.items()),
               "launch_overhead_us": r.launch_overhead_us, "kernels_per_call": r.kernels_per_call,
               "achieved_tflops": r.achieved_tflops, "achieved_tbps": r.achieved_tbps}
        for m in methods:
            row[f"{m}_us"] = r.median_us(m)
        if r.roofline is not None:
            row.update(intensity=r.roofline.arithmetic_intensity, pct_of_roof=r.roofline.pct_of_roof,
                       bound=r.roofline.bound)
        rows.append(row)
    # A note every case shares (no GPU, ...) is said once, not once per case.
    shared = set.intersection(*(set(r.notes) for r in results)) if len(results) > 1 else set()
    notes += [f"all cases: {n}" for n in (results[0].notes if results else ()) if n in shared]
    for r in results:
        notes += [f"{r.name}: {n}" for n in r.notes if n not in shared]
    backend = results[0].env.get("device") if results else None
    title = f"bench-kernel run on {backend}" if backend else "bench-kernel run"
    return Table(cols, rows, title=title, notes=notes)
