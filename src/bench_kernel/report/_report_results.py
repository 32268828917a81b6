"""The report's sections for measured results: the results table, the roofline plot, and the
per-kernel breakdown of each case. Input is the results' JSON as stored (see ``_inputs``)."""

from __future__ import annotations

from typing import Any, Sequence

from bench_kernel.report._html import Markup, el, join
from bench_kernel.report._html_table import html_table
from bench_kernel.report._inputs import ResultsInput
from bench_kernel.report._svg import NO_MATPLOTLIB, figure_svg, have_matplotlib
from bench_kernel.report._table import Column, Table, format_value

__all__ = ["results_section", "roofline_plots", "kernels_section", "params_text", "point_label"]

METHOD_ORDER = ("graph", "events", "kernel", "host")
#: Per-kernel tables shown per input (a sweep of 20 points x 4 providers would make 80).
KERNEL_TABLES = 12


def params_text(params: dict[str, Any]) -> str:
    return " ".join(f"{k}={v}" for k, v in params.items())


def point_label(point: dict[str, Any]) -> str:
    """``provider k=v ...``: how a case is named in headings and plots."""
    return " ".join(x for x in (str(point["provider"]), params_text(point.get("params") or {})) if x)


def _ci_title(m: dict[str, Any]) -> str | None:
    """Hover text of a median: its 95% CI, the sample count and why sampling stopped."""
    if not m.get("ok"):
        return m.get("error")
    lo, hi = m.get("ci95_us") or (None, None)
    parts = []
    if lo is not None and hi is not None:
        rel = f" (±{m['rel_ci95']:.1%})" if m.get("rel_ci95") is not None else ""
        parts.append(f"95% CI {format_value(lo, 'duration_us')} – {format_value(hi, 'duration_us')}{rel}")
    parts.append(f"n = {m.get('n')} samples of {m.get('calls_per_sample', 1)} call(s)")
    if m.get("stop_reason"):
        parts.append(f"stopped on {m['stop_reason']}")
    return ", ".join(parts)


def _results_table(inp: ResultsInput) -> tuple[Table, dict[str, Any]]:
    pts = inp.records
    res = [p["result"] for p in pts]
    methods = [m for m in METHOD_ORDER if any(m in r.get("measurements", {}) for r in res)]
    cols = [Column("case", "case"), Column("params", "params")]
    cols += [Column(f"{m}_us", m, "duration_us") for m in methods]
    optional = [Column("launch_overhead_us", "launch ovh", "duration_us"),
                Column("kernels_per_call", "kernels", "float"), Column("achieved_tflops", "TFLOP/s", "tflops"),
                Column("achieved_tbps", "TB/s", "tbps")]
    cols += [c for c in optional if any(r.get(c.key) is not None for r in res)]
    if any(r.get("roofline") for r in res):
        cols += [Column("intensity", "FLOP/B", "float"), Column("pct_of_roof", "% of roof", "pct"),
                 Column("bound", "bound")]
    if any(p["status"] != "ok" for p in pts):
        cols.append(Column("status", "status"))
    rows = []
    for p, r in zip(pts, res):
        ok = p["status"] == "ok"
        why = p.get("error") or "; ".join(r.get("notes") or ())
        row: dict[str, Any] = {"case": p["provider"], "params": params_text(p.get("params") or {}),
                               "status": p["status"] if ok or not why else f"{p['status']}: {why}"}
        for m in methods:
            meas = r.get("measurements", {}).get(m)
            row[f"_{m}_meas"] = meas
            # A method that ran and failed (a graph capture) says so; its reason is on hover.
            row[f"{m}_us"] = None if meas is None else meas.get("median_us") if meas.get("ok") else "failed"
        if not ok:  # not timed at all: the status stands where the time would be
            row.update({f"{m}_us": None for m in methods})
            if methods:
                row[f"{methods[0]}_us"] = p["status"]
        for c in optional:
            row[c.key] = r.get(c.key)
        roof = r.get("roofline") or {}
        row.update(intensity=roof.get("arithmetic_intensity"), pct_of_roof=roof.get("pct_of_roof"),
                   bound=roof.get("bound"))
        rows.append(row)
    titles = {f"{m}_us": (lambda row, m=m: _ci_title(row[f"_{m}_meas"]) if row.get(f"_{m}_meas") else None)
              for m in methods}
    notes = ["times: median per call; hover a time for its 95% CI, sample count and stopping reason"]
    if "launch_overhead_us" in {c.key for c in cols}:
        notes.append("launch ovh = events − graph: what launching from the host adds per call")
    return Table(cols, rows, title=f"{len(pts)} case(s) from {inp.label}", notes=notes), titles


def results_section(inputs: Sequence[ResultsInput], caption: bool = True) -> Markup:
    """One sortable table per input: per case the median of each method, throughput, roofline."""
    return join(html_table(table, titles=titles, caption=caption)
                for table, titles in (_results_table(inp) for inp in inputs))


def _placed(inputs: Sequence[ResultsInput]) -> tuple[dict[tuple[str, str], list[tuple[str, Any]]], list[str]]:
    from bench_kernel.roofline import RooflineResult

    groups: dict[tuple[str, str], list[tuple[str, Any]]] = {}
    problems = []
    for inp in inputs:
        for p in inp.records:
            roof = p["result"].get("roofline")
            if not roof or p["status"] != "ok":
                continue
            try:
                r = RooflineResult.from_dict(roof)
            except (KeyError, TypeError, ValueError) as e:
                problems.append(f"{point_label(p)}: its stored roofline is incomplete ({type(e).__name__}: {e})")
                continue
            groups.setdefault((r.device, r.dtype), []).append((point_label(p), r))
    return groups, problems


def roofline_plots(inputs: Sequence[ResultsInput], start: int = 0) -> tuple[list[Markup], list[str]]:
    """Inline SVG rooflines (one per device and dtype) of every placed case, and notes on what
    could not be drawn. ``start`` numbers the plots' id prefixes."""
    from bench_kernel.errors import BenchKernelError

    groups, notes = _placed(inputs)
    if not groups:
        return [], notes
    if not have_matplotlib():
        return [], notes + [NO_MATPLOTLIB]
    from bench_kernel.roofline import build_figure

    figures = []
    for i, ((device, dtype), labelled) in enumerate(groups.items()):
        # Points are numbered, names go in the caption: names drawn beside close points overlap.
        points = {str(j): r for j, (_, r) in enumerate(labelled, 1)}
        try:
            fig = build_figure(points, device, dtype)
        except BenchKernelError as e:
            notes.append(f"roofline plot for {device} {dtype} left out: {e}")
            continue
        key = el("ol", {"class": "plot-key"}, *(el("li", None, label) for label, _ in labelled))
        caption = el("figcaption", None, f"Roofline on {device}, {dtype}: each case at its stored placement "
                                         f"(% = share of the spec roof). Points:", key)
        figures.append(el("figure", {"class": "plot", "data-plot": "roofline"},
                          figure_svg(fig, f"roof{start + i}", f"Roofline plot, {device} {dtype}"), caption))
    return figures, notes


def _kernel_table(point: dict[str, Any]) -> Table:
    r = point["result"]
    rows = [dict(k, share_pct=100.0 * k.get("share", 0.0)) for k in r.get("kernels") or ()]
    total = sum(k.get("us_per_call") or 0.0 for k in rows)
    kernel_us = (r.get("measurements", {}).get("kernel") or {}).get("median_us")
    title = (f"{point_label(point)}: {len(rows)} device activities, {format_value(total, 'duration_us')} per call"
             + (f" (kernel method median {format_value(kernel_us, 'duration_us')})" if kernel_us else ""))
    cols = [Column("short", "kernel"), Column("category", "category"), Column("kind", "kind"),
            Column("count_per_call", "per call", "float"), Column("us_per_call", "time per call", "duration_us"),
            Column("share_pct", "share", "pct")]
    return Table(cols, rows, title=title)


def _share_cell(row: dict[str, Any]) -> Markup:
    pct = row.get("share_pct") or 0.0
    bar = el("span", {"class": "share", "style": f"width:{min(pct, 100.0) * 0.6:.1f}px", "aria-hidden": "true"})
    return join([format_value(pct, "pct"), bar])


def kernels_section(inputs: Sequence[ResultsInput]) -> Markup | None:
    """Per case measured by the ``kernel`` method: every kernel of one call, its time and share;
    the full kernel name on hover. At most :data:`KERNEL_TABLES` cases per input (a sweep has
    dozens): the rest are named in a note."""
    parts: list[Any] = []
    for inp in inputs:
        with_kernels = [p for p in inp.records if p["result"].get("kernels")]
        for p in with_kernels[:KERNEL_TABLES]:
            parts.append(html_table(_kernel_table(p), hover={"short": "name"}, cells={"share_pct": _share_cell}))
        if len(with_kernels) > KERNEL_TABLES:
            parts.append(el("p", {"class": "muted"}, f"{inp.label}: the breakdown of {len(with_kernels) - KERNEL_TABLES} "
                                                     f"more case(s) is in the results file or the store"))
    return join(parts) if parts else None
