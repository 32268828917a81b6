"""The tables of a serving run beyond the client's latencies: the server's own view (``/metrics``)
beside the client's, the GPUs' telemetry, the spread across ``--num-runs``, the turns of a
multi-turn run, the shared prefixes, and the time slices. Every number here is the record's, in
the unit the record names; only the text is made here."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from bench_kernel.report._table import Column, Table
from bench_kernel.serve import ServeOutput, ServePoint

if TYPE_CHECKING:
    import msgspec

__all__ = ["extra_tables", "view_text"]


def _num(x: float | None, unit: str) -> str:
    if x is None:
        return "-"
    if unit == "ms":
        return f"{x:.4g} ms"
    if unit == "fraction":
        return f"{x:.1%}"
    return f"{x:,.4g}"


def view_text(values: dict[str, float | None] | None, kind: str, unit: str) -> str:
    """One side of a view row: a histogram's p50 / p99 / mean (n), a counter's delta, a gauge's mean / max."""
    if not values:
        return "-"
    if kind == "histogram" or "p50" in values:
        n = values.get("count")
        return (f"p50 {_num(values.get('p50'), unit)}, p99 {_num(values.get('p99'), unit)}, mean "
                f"{_num(values.get('mean'), unit)}" + (f" (n {n:.0f})" if n is not None else ""))
    if "delta" in values:
        return _num(values["delta"], unit)
    return f"mean {_num(values.get('mean'), unit)}, max {_num(values.get('max'), unit)}"


def _view_table(p: ServePoint, label: str) -> Table:
    sm = p.server_metrics
    rows = [{"what": r.what, "metric": r.metric, "server": view_text(r.server, r.kind, r.unit),
             "client": view_text(r.client, r.kind, r.unit) if r.client else "-"} for r in (sm.view if sm else ())]
    t = Table([Column("what", "What"), Column("server", "Server (/metrics)"), Column("client", "Client"),
               Column("metric", "Prometheus name")], rows,
              title=f"The server's view beside the client's{label}: {sm.scrapes if sm else 0} scrapes of /metrics")
    t.info.append("server histograms are bucketed: their quantiles are interpolated inside a bucket")
    return t


def _gpu_table(points: list[tuple[str, ServePoint]]) -> Table:
    rows = []
    for label, p in points:
        for g in p.gpu_telemetry or ():
            s = g.summary
            mem = s["memory_used_bytes"]["max"]
            rows.append({"point": label, "gpu": g.gpu, "n": g.samples,
                         "clk": f"{_num(s['sm_clock_mhz']['min'], '')} / {_num(s['sm_clock_mhz']['p50'], '')} / "
                                f"{_num(s['sm_clock_mhz']['max'], '')}",
                         "power": f"{_num(s['power_w']['mean'], '')} / {_num(s['power_w']['max'], '')} of "
                                  f"{_num(s['power_limit_w']['max'], '')}",
                         "mem": None if mem is None else mem / 2 ** 30, "util": s["utilization_pct"]["mean"],
                         "temp": s["temperature_c"]["max"],
                         "throttle": ", ".join(f"{r} {x:.0%}" for r, x in g.throttle.items()) or "-"})
    cols = [Column("point", "Point"), Column("gpu", "GPU"), Column("n", "Samples", "int"),
            Column("clk", "SM clock min / p50 / max (MHz)"), Column("power", "Power mean / max of limit (W)"),
            Column("mem", "Memory max (GiB)", "float"), Column("util", "Util mean", "pct"),
            Column("temp", "Temp max (C)", "float"), Column("throttle", "Clock-event reasons")]
    return Table(cols, rows, title="GPU telemetry under the load (NVML/amdsmi, every 100 ms)")


def _repeats_table(run: ServeOutput) -> Table:
    rows = []
    repeats = run.repeats or ()
    for rep in repeats:
        load = (rep.load.max_concurrency, rep.load.request_rate)
        for s in rep.stats:
            rows.append({"load": f"rate {'inf' if load[1] is None else load[1]}, conc {load[0] or '-'}",
                         "metric": s.metric, "unit": s.unit, "runs": ", ".join(f"{v:.4g}" for v in s.values),
                         "mean": s.mean, "ci": "-" if s.ci_low is None else f"{s.ci_low:.4g}-{s.ci_high:.4g}",
                         "hw": s.rel_half_width})
    level = repeats[0].confidence if repeats else 0.95
    cols = [Column("load", "Load"), Column("metric", "Metric"), Column("unit", "Unit"), Column("runs", "Each run"),
            Column("mean", "Geo. mean", "float"), Column("ci", f"{level:.0%} CI of it"),
            Column("hw", "+/- (relative)", "ratio")]
    t = Table(cols, rows, title=f"Across {max((r.runs for r in repeats), default=0)} runs of each load point")
    t.info.append("a t-interval of the runs' values: what a repeat of the benchmark would show, which the "
                  "requests of one run cannot")
    return t


def _turns_table(p: ServePoint) -> Table:
    rows = [msgspecless(t) for t in p.turns or ()]
    cols = [Column("turn", "Turn", "int"), Column("requests", "Requests", "int"), Column("completed", "Done", "int"),
            Column("input_tokens_mean", "Input tokens (mean)", "float"), Column("ttft_p50_ms", "TTFT p50", "duration_ms"),
            Column("ttft_p99_ms", "TTFT p99", "duration_ms"), Column("e2el_p50_ms", "E2E p50", "duration_ms")]
    return Table(cols, rows, title="Per turn of the conversations (each turn sends the history)")


def _groups_table(p: ServePoint) -> Table:
    g = p.prefix_groups
    rows = [msgspecless(g)] if g else []
    cols = [Column("groups", "Prefixes", "int"), Column("first_n", "First requests", "int"),
            Column("first_ttft_p50_ms", "Their TTFT p50", "duration_ms"), Column("rest_n", "Later requests", "int"),
            Column("rest_ttft_p50_ms", "Their TTFT p50", "duration_ms"), Column("rest_over_first", "Later / first", "ratio")]
    return Table(cols, rows, title="Shared prefixes: each prefix's first request against its later ones",
                 info=["the first request of a prefix fills the cache; well below 1x is prefix caching at work"])


def _slices_table(p: ServePoint) -> Table:
    assert p.slices
    rows = [dict(msgspecless(s), span=f"{s.start_s:g}-{s.end_s:g} s") for s in p.slices.slices]
    cols = [Column("span", "Slice"), Column("sent", "Sent", "int"), Column("completed", "Done", "int"),
            Column("output_tokens_per_s", "Out tok/s", "float"), Column("ttft_p50_ms", "TTFT p50", "duration_ms"),
            Column("ttft_p99_ms", "TTFT p99", "duration_ms"), Column("itl_p50_ms", "ITL p50", "duration_ms")]
    return Table(cols, rows, title=f"Time slices of {p.slices.slice_s:g} s ({p.load.describe()})")


def msgspecless(record: msgspec.Struct) -> dict[str, Any]:
    """``record``'s fields as plain JSON values (Any: each field's own type)."""
    import msgspec

    return msgspec.to_builtins(record)  # type: ignore[no-any-return]


def extra_tables(run: ServeOutput) -> list[Table]:
    """The tables of what the run has beyond the client's latencies (module docstring)."""
    points = run.all_points
    many = len(points) > 1
    labelled = [(f"point {i + 1}" if many else "the point", p) for i, p in enumerate(points)]
    out: list[Table] = []
    for label, p in labelled:
        if p.server_metrics and p.server_metrics.view:
            out.append(_view_table(p, f" ({label})" if many else ""))
    if any(p.gpu_telemetry for p in points):
        out.append(_gpu_table(labelled))
    if run.repeats:
        out.append(_repeats_table(run))
    for _, p in labelled:
        if p.turns:
            out.append(_turns_table(p))
        if p.prefix_groups:
            out.append(_groups_table(p))
        if p.slices:
            out.append(_slices_table(p))
    return out
