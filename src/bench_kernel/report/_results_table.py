"""The results table: one row per measured case, built from the typed records, for every format.

``bench-kernel run`` prints it, ``-o x.csv|.md|.xlsx`` writes it and the HTML report shows it: one
definition, so the formats cannot drift apart (they once did: the HTML lost the over-roof mark).
Rows come from ``PointResult``s (a stored run, a results file) or ``BenchResult``s (a run that
just finished); cells hold raw values and each format renders them by their column's hint.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping, Sequence

from bench_kernel.options import METHODS
from bench_kernel.report._table import Column, Table, format_value

if TYPE_CHECKING:  # read only; importing them would load numpy for every command
    from bench_kernel.records import BenchResult, Measurement, PointResult, RooflineResult

__all__ = ["results_table", "as_points", "NEGATIVE_OVERHEAD"]

#: Why a negative events - graph is not shown as a launch overhead.
NEGATIVE_OVERHEAD = ("launch ovh is left blank where events read below graph: launching cannot save time, so "
                     "there the two methods measured different conditions (an SM clock that moved between them, "
                     "a graph node's own cost on a tiny kernel, another L2 state), not a launch cost")


def as_points(results: Sequence[PointResult | BenchResult]) -> list[PointResult]:
    """``PointResult``s as given; a ``BenchResult`` becomes the point a ``run --save`` would store."""
    from bench_kernel.records import PointResult, status_of

    return [r if isinstance(r, PointResult) else PointResult(r.name, dict(r.params), status_of(r), r)
            for r in results]


def _detail(m: Measurement) -> str:
    """Hover text of a median: its 95% CI, the sample count and why sampling stopped."""
    if not m.ok:
        return m.error or "no samples"
    s = m.samples
    lo, hi = m.ci95
    parts = []
    if s.n and lo == lo and hi == hi:  # NaN: too few samples for an interval
        parts.append(f"95% CI {format_value(lo, 'duration_us')} – {format_value(hi, 'duration_us')} (±{m.rel_ci:.1%})")
    parts.append(f"n = {s.n} samples of {m.calls_per_sample} call(s)" + (f" in {m.rounds} rounds" if m.rounds > 1 else ""))
    if m.stop_reason:
        parts.append(f"stopped on {m.stop_reason}")
    return ", ".join(parts)


def _l2(measurements: Mapping[str, Measurement], methods: Sequence[str]) -> str | None:
    """What the L2 held for each method that ran (``Measurement.cache``): one word when they agree."""
    caches = {m: measurements[m].cache for m in methods if m in measurements and measurements[m].ok}
    if not caches:
        return None
    if len(set(caches.values())) == 1:
        return next(iter(caches.values()))
    return ", ".join(f"{m} {c}" for m, c in caches.items())


def _axes(points: Sequence[PointResult]) -> list[str]:
    return list(dict.fromkeys(k for p in points for k in p.params))


def results_table(results: Sequence[PointResult | BenchResult], *, title: str | None = None,
                  result_notes: bool = True) -> Table:
    """One row per case: the median per method (hover: CI and samples), what the L2 held, launch
    overhead, kernels per call, throughput and, when placed, intensity, % of roof and bound.

    results: ``PointResult``s or ``BenchResult``s. result_notes: the cases' own notes under the
    table (the terminal); the HTML report gathers them in its summary instead.
    """
    from bench_kernel.records import params_text

    points = as_points(results)
    res = [p.result for p in points]
    methods = [m for m in METHODS if any(m in r.measurements for r in res)]
    reserved = {"case", "params", "l2", "status", "bound", "intensity", "pct_of_roof"}
    axes = {a: (a if a not in reserved and not a.endswith("_us") else f"param_{a}") for a in _axes(points)}
    cols = [Column("case", "case"), Column("params", "params", only="display")]
    cols += [Column(key, axis, "text", justify="right", only="raw") for axis, key in axes.items()]
    for m in methods:
        cols.append(Column(f"{m}_us", m, "duration_us", detail=f"{m}_detail"))
        cols += [Column(f"{m}_ci95_low_us", f"{m} CI low", "duration_us", only="raw"),
                 Column(f"{m}_ci95_high_us", f"{m} CI high", "duration_us", only="raw"),
                 Column(f"{m}_n", f"{m} samples", "int", only="raw")]
    rows, negative = [], []
    roofs: list[RooflineResult | None] = []
    for p in points:
        r, ok = p.result, p.status == "ok"
        why = p.error or "; ".join(n.text for n in r.notes)
        roof = r.roofline if ok else None
        roofs.append(roof)
        row: dict[str, Any] = {"case": p.provider, "params": params_text(p.params),
                               "status": p.status if ok or not why else f"{p.status}: {why}",
                               "l2": _l2(r.measurements, methods) if ok else None,
                               "kernels_per_call": r.kernels_per_call, "achieved_tflops": r.achieved_tflops,
                               "achieved_tbps": r.achieved_tbps}
        row.update({key: p.params.get(axis) for axis, key in axes.items()})
        for m in methods:
            meas = r.measurements.get(m)
            if meas is None:
                continue
            row[f"{m}_detail"] = _detail(meas)
            if not meas.ok:  # a method that ran and failed (a graph capture) says so; its reason on hover
                row[f"{m}_us"] = "failed"
                continue
            lo, hi = meas.ci95_us or (None, None)  # of the median shown (across the rounds when there are several)
            row.update({f"{m}_us": meas.median_us, f"{m}_n": meas.samples.n,
                        f"{m}_ci95_low_us": lo if lo == lo else None, f"{m}_ci95_high_us": hi if hi == hi else None})
        if not ok:  # not timed at all: the status stands where the time would be
            row.update({f"{m}_us": None for m in methods})
            if methods:
                row[f"{methods[0]}_us"] = p.status
        ovh = r.launch_overhead_us
        if ovh is not None and ovh < 0:
            negative.append(f"{p.label} ({format_value(ovh, 'duration_us')})")
            ovh = None
        row["launch_overhead_us"] = ovh
        if roof is not None:
            row.update(intensity=roof.arithmetic_intensity, pct_of_roof=roof.pct_of_roof, bound=roof.bound)
        rows.append(row)
    if any(row.get("l2") for row in rows):
        cols.append(Column("l2", "L2"))
    # Columns no result can fill (launch overhead and kernels without a GPU) are left out.
    optional = [Column("launch_overhead_us", "launch ovh", "duration_us"), Column("kernels_per_call", "kernels", "float"),
                Column("achieved_tflops", "TFLOP/s", "tflops"), Column("achieved_tbps", "TB/s", "tbps")]
    launch_shown = any(r.launch_overhead_us is not None for r in res)
    cols += [c for c in optional if any(row.get(c.key) is not None for row in rows)
             or (c.key == "launch_overhead_us" and launch_shown)]
    if any(roof is not None for roof in roofs):
        cols += [Column("intensity", "FLOP/B", "float"), Column("pct_of_roof", "% roof", "roof_pct"),
                 Column("bound", "bound")]
    if any(p.status != "ok" for p in points):
        cols.append(Column("status", "status"))
    counts = sorted({m.rounds for r in res for m in r.measurements.values() if m.ok})
    rounds = "" if not counts or counts[-1] <= 1 else \
        f" (the median of {counts[-1] if len(counts) == 1 else f'{counts[0]}-{counts[-1]}'} rounds' medians)"
    notes = [f"times: median per call{rounds}; L2: what the cache held as each method ran (cold: input sets "
             "rotated past L2 or L2 flushed; warm: one input set, no make_inputs, or no GPU)"] if rows else []
    if launch_shown:
        notes.append("launch ovh = events − graph: what launching from the host adds per call")
    if negative:
        notes.append(f"{NEGATIVE_OVERHEAD}: {'; '.join(negative)}")
    info: list[str] = []
    if result_notes:
        # A note every case shares (no GPU, ...) is said once, not once per case.
        shared = set.intersection(*(set(r.notes) for r in res)) if len(res) > 1 else set()
        said = [("all cases", n) for n in (res[0].notes if res else ()) if n in shared]
        said += [(p.provider, n) for p in points for n in p.result.notes if n not in shared]
        for who, n in said:
            (info if n.kind == "info" else notes).append(f"{who}: {n.text}")
    if title is None:
        device = res[0].env.get("device") if res else None
        title = f"bench-kernel run on {device}" if device else "bench-kernel run"
    return Table(cols, rows, title=title, notes=notes, info=info, sheet="results")
