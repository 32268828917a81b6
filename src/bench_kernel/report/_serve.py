"""Tables of a serving benchmark (``bench-kernel serve``): latency statistics, throughput, the
client's own lateness, failures, a sweep's points and the profiled window's kernels.

Latencies are milliseconds in the records (``ttft_ms``); the tables show them through the
``duration_ms`` hint, which formats a time as every other duration is (``1.5 ms``, ``850 µs``).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Sequence

from bench_kernel.report._table import Column, Table
from bench_kernel.serve import ServeComparison, ServePoint, ServeRun

if TYPE_CHECKING:
    from bench_kernel.records import Note

__all__ = ["serve_tables", "serve_comparison_table"]

_NAMES = {"ttft_ms": "TTFT", "ttfvo_ms": "TTF visible output", "tpot_ms": "TPOT", "itl_ms": "ITL (per token)",
          "icl_ms": "ICL (per chunk)", "e2el_ms": "E2E latency"}


def _load(p: ServePoint) -> str:
    return p.load.describe()


def _latency_table(p: ServePoint, title: str) -> Table:
    rows = []
    for key, name in _NAMES.items():
        s = p.metrics.metrics[key]
        rows.append({"metric": name, "n": s["n"], **{k: s[k] for k in ("mean", "std", "p50", "p90", "p95",
                                                                            "p99")}})
    cols = [Column("metric", "Metric"), Column("n", "N", "int")] + [
        Column(k, k, "duration_ms") for k in ("mean", "std", "p50", "p90", "p95", "p99")]
    return Table(cols, rows, title=title)


def _throughput_table(p: ServePoint) -> Table:
    m = p.metrics
    rows: list[dict[str, Any]] = [
        {"what": "requests completed / failed", "value": f"{m.completed} / {m.failed}"},
        {"what": "duration", "value": f"{m.duration_s:.3f} s"},
        {"what": "requests/s", "value": f"{m.requests_per_s:.4g}"},
        {"what": "output tokens/s", "value": f"{m.output_tokens_per_s:.4g}"},
        {"what": "total tokens/s", "value": f"{m.total_tokens_per_s:.4g}"},
        {"what": "peak output tokens/s (1 s buckets)", "value": f"{m.peak_output_tokens_per_s:.4g}"},
        {"what": "mean concurrency (sum E2E / duration)", "value": f"{m.mean_concurrency:.3g}"},
        {"what": "input / output tokens", "value": f"{m.input_tokens} / {m.output_tokens}"},
        {"what": "token chunks / output tokens", "value": f"{m.chunks} / {m.output_tokens}"},
    ]
    if m.good_requests is not None:
        targets = " ".join(f"{k.removesuffix('_ms')}:{v:g}" for k, v in m.goodput_targets_ms.items())
        rows.append({"what": f"goodput ({targets} ms)",
                     "value": f"{m.goodput_per_s:.4g} req/s ({m.good_requests} of {m.completed + m.failed} met)"})
    late, lag = m.lateness_ms, m.loop_lag_ms
    if late["n"]:
        rows.append({"what": "client send lateness p50 / p99 / max",
                     "value": f"{late['p50']:.3g} / {late['p99']:.3g} / {late['max']:.3g} ms"})
    if lag["n"]:
        rows.append({"what": "client event-loop lag p50 / p99 / max",
                     "value": f"{lag['p50']:.3g} / {lag['p99']:.3g} / {lag['max']:.3g} ms"
                              + (" (client-bound)" if m.client_bound else "")})
    for kind, count in m.failures.items():
        rows.append({"what": f"failed: {kind}", "value": str(count)})
    return Table([Column("what", "Throughput and accounting"), Column("value", "Value")], rows)


def _sweep_table(run: ServeRun) -> Table:
    rows = []
    for i, p in enumerate(run.points):
        m = p.metrics.metrics
        t = p.metrics
        rows.append({"i": i + 1, "load": _load(p) + (f" (run {p.repeat + 1})" if p.repeat is not None else ""),
                     "ok": t.completed, "failed": t.failed,
                     "rps": t.requests_per_s, "otps": t.output_tokens_per_s, "conc": t.mean_concurrency,
                     "good": t.goodput_per_s, "ttft50": m["ttft_ms"]["p50"], "ttft99": m["ttft_ms"]["p99"],
                     "tpot50": m["tpot_ms"]["p50"], "itl50": m["itl_ms"]["p50"],
                     "icl50": m["icl_ms"]["p50"], "e2e50": m["e2el_ms"]["p50"],
                     "late99": t.lateness_ms["p99"], "status": p.status})
    cols = [Column("i", "#", "int"), Column("load", "Load"), Column("ok", "Done", "int"),
            Column("failed", "Failed", "int"), Column("rps", "req/s", "float"), Column("otps", "out tok/s", "float"),
            Column("conc", "Mean conc", "float"), Column("good", "Goodput req/s", "float"),
            Column("ttft50", "TTFT p50", "duration_ms"), Column("ttft99", "TTFT p99", "duration_ms"),
            Column("tpot50", "TPOT p50", "duration_ms"), Column("itl50", "ITL p50", "duration_ms"),
            Column("icl50", "ICL p50", "duration_ms"), Column("e2e50", "E2E p50", "duration_ms"),
            Column("late99", "Send late p99", "duration_ms"), Column("status", "Status")]
    title = f"{run.server.model} at {run.server.url}: {run.sweep or 'list'} sweep, {len(run.points)} points"
    if run.slo_rate is not None:
        title += f"; highest rate meeting the SLO: {run.slo_rate:.3g} req/s"
    return Table(cols, rows, title=title)


def _profile_tables(run: ServeRun) -> list[Table]:
    w = run.profile
    if w is None:
        return []
    rows: list[dict[str, Any]] = [
        {"what": "window", "value": f"{w.point.metrics.completed} requests at {_load(w.point)}; /start_profile "
                                    f"{w.start_s:.2f} s, /stop_profile {w.stop_s:.1f} s, export {w.export_s:.1f} s"},
        {"what": "traces", "value": ", ".join(w.traces) or "-"},
    ]
    notes = []
    if w.error:
        notes.append(f"the trace could not be read: {w.error}")
    v = w.view
    tables = []
    if v is not None:
        m = w.point.metrics.metrics
        rows += [{"what": "kernels / device time", "value": f"{v.kernels} / {v.kernel_us / 1e3:.4g} ms"},
                 {"what": "steps by phase", "value": ", ".join(f"{k} {n}" for k, n in v.steps.items()) or "-"},
                 {"what": "decode step (median wall)", "value": "-" if v.decode_step_us is None
                  else f"{v.decode_step_us / 1e3:.4g} ms (served ITL p50 "
                       f"{(m['itl_ms']['p50'] or m['icl_ms']['p50'] or math.nan):.4g} ms)"},
                 {"what": "kernels per decode / prefill step",
                  "value": f"{_num(v.kernels_per_decode_step)} / {_num(v.kernels_per_prefill_step)}"}]
        notes += list(v.notes)
        top = [{"phase": ph, "short": k.get("short") or k.get("name"), "count": k["count"], "total_us": k["total_us"]}
               for ph, ks in (("prefill", v.top_prefill), ("decode", v.top_decode)) for k in ks]
        top += [{"phase": "cpu op", "short": k["name"], "count": k["count"], "total_us": k["total_us"]}
                for k in v.top_ops if not v.kernels]
        if top:
            tables.append(Table([Column("phase", "Phase"), Column("short", "Kernel / op"),
                                 Column("count", "Count", "int"), Column("total_us", "Total", "duration_us")], top,
                                title="Top kernels of the profiled window"))
    return [Table([Column("what", "Profiled window"), Column("value", "Value")], rows, notes=notes)] + tables


def _num(x: float | None) -> str:
    return "-" if x is None else f"{x:.4g}"


def _split(notes: Sequence[Note | str], table: Table, prefix: str = "") -> None:
    """Warnings into the table's notes, the rest (how it was made) into its info lines."""
    for n in notes:
        text = f"{prefix}{n}"
        kind = "warning" if isinstance(n, str) else n.kind  # a line of text is a warning (PARTIAL RUN)
        (table.info if kind == "info" else table.notes).append(text)


def serve_tables(run: ServeRun) -> list[Table]:
    """The tables ``bench-kernel serve`` prints: one point in detail, or a sweep's points in rows;
    then the server's view, the GPUs, the repeats, turns, prefixes and slices where the run has them."""
    from bench_kernel.report._serve_extra import extra_tables

    notes: list[Note | str] = list(run.notes)
    if run.aborted:
        notes.insert(0, f"PARTIAL RUN: {run.aborted}")
    if run.sweep is None and len(run.points) == 1:
        p = run.points[0]
        title = f"{run.server.model} at {run.server.url}: {p.load.describe()}, {run.dataset} prompts"
        if run.server.version:
            title += f" (server {run.server.version})"
        lat = _latency_table(p, title)
        thr = _throughput_table(p)
        _split(notes + list(p.notes) + list(p.metrics.notes), thr)
        return [lat, thr] + extra_tables(run) + _profile_tables(run)
    sweep = _sweep_table(run)
    _split(notes, sweep)
    for i, p in enumerate(run.points):
        _split(list(p.notes) + list(p.metrics.notes), sweep, f"point {i + 1}: ")
    return [sweep] + extra_tables(run) + _profile_tables(run)


def serve_comparison_table(rc: ServeComparison) -> Table:
    """``compare`` of two serving runs: per load and latency metric, both values in the unit they are
    stored in (the row's ``unit``), B/A, its interval and how it was made, and the verdict."""
    units = {r.unit for r in rc.rows} or {"ms"}
    unit = units.pop() if len(units) == 1 else "see each row"
    rows = [{"load": _load_text(r.load), "metric": _NAMES.get(r.metric, r.metric), "stat": r.statistic,
             "a": r.a, "b": r.b, "ratio": r.ratio,
             "ci": "-" if r.ci_low is None else f"{r.ci_low:.3f}-{r.ci_high:.3f} ({r.confidence:.0%}, {r.method})",
             "runs": f"{r.a_runs}/{r.b_runs}", "n": f"{r.a_n}/{r.b_n}", "verdict": r.verdict} for r in rc.rows]
    cols = [Column("load", "Load"), Column("metric", "Metric"), Column("stat", "Of"),
            Column("a", f"{rc.a_label} ({unit})", "float"), Column("b", f"{rc.b_label} ({unit})", "float"),
            Column("ratio", "B/A", "ratio"), Column("ci", "CI of B/A"), Column("runs", "Runs A/B"),
            Column("n", "Samples A/B"), Column("verdict", "Verdict", "verdict")]
    notes = [f"not compared: {k}: {w}" for k, w in rc.unmatched]
    notes += sorted({r.note for r in rc.rows if r.note})
    return Table(cols, rows, title=f"{rc.b_label} against {rc.a_label}: latency per load point", notes=notes)


def _load_text(load: dict[str, Any]) -> str:  # Any: the load as recorded (JSON: rate, concurrency, ...)
    rate = load.get("request_rate")
    parts = [f"rate {'inf' if rate is None else f'{rate:g}/s'}"]
    if load.get("max_concurrency"):
        parts.append(f"concurrency {load['max_concurrency']}")
    return ", ".join(parts)
