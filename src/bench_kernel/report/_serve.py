"""Tables of a serving benchmark (``bench-kernel serve``): latency statistics, throughput, the
client's own lateness, failures, a sweep's points and the profiled window's kernels.

Latencies are milliseconds in the records (``ttft_ms``); the tables show them through the
``duration_ms`` hint, which formats a time as every other duration is (``1.5 ms``, ``850 µs``).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Sequence

from msgspec import UNSET

from bench_kernel.report._table import Column, Table
from bench_kernel.serve import ServeComparison, ServeOutput, ServePoint

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
        s = p.metrics[key]
        rows.append({"metric": name, "n": s.n, "mean": s.mean, "std": s.std, "p50": s.p50, "p90": s.p90,
                     "p95": s.p95, "p99": s.p99})
    cols = [Column("metric", "Metric"), Column("n", "N", "int")] + [
        Column(k, k, "duration_ms") for k in ("mean", "std", "p50", "p90", "p95", "p99")]
    return Table(cols, rows, title=title)


def _g(x: float | None, spec: str) -> str:
    return format(math.nan if x is None else x, spec)


def _throughput_table(p: ServePoint) -> Table:
    t, r, g = p.throughput, p.requests, p.goodput
    rows: list[dict[str, Any]] = [
        {"what": "requests completed / failed", "value": f"{r.completed} / {r.failed}"},
        {"what": "duration", "value": f"{p.duration_s:.3f} s"},
        {"what": "requests/s", "value": _g(t.requests_per_s, ".4g")},
        {"what": "output tokens/s", "value": _g(t.output_tokens_per_s, ".4g")},
        {"what": "total tokens/s", "value": _g(t.total_tokens_per_s, ".4g")},
        {"what": "peak output tokens/s (1 s buckets)", "value": f"{t.peak_output_tokens_per_s:.4g}"},
        {"what": "mean concurrency (sum E2E / duration)", "value": _g(t.mean_concurrency, ".3g")},
        {"what": "input / output tokens", "value": f"{r.input_tokens} / {r.output_tokens}"},
        {"what": "token chunks / output tokens", "value": f"{r.chunks} / {r.output_tokens}"},
    ]
    if g.good_requests is not None:
        targets = " ".join(f"{k.removesuffix('_ms')}:{v:g}" for k, v in g.targets_ms.items())
        rows.append({"what": f"goodput ({targets} ms)",
                     "value": f"{_g(g.requests_per_s, '.4g')} req/s ({g.good_requests} of {r.completed + r.failed} met)"})
    late, lag = p.client.lateness_ms, p.client.loop_lag_ms
    if late.n:
        rows.append({"what": "client send lateness p50 / p99 / max",
                     "value": f"{_g(late.p50, '.3g')} / {_g(late.p99, '.3g')} / {_g(late.max, '.3g')} ms"})
    if lag.n:
        rows.append({"what": "client event-loop lag p50 / p99 / max",
                     "value": f"{_g(lag.p50, '.3g')} / {_g(lag.p99, '.3g')} / {_g(lag.max, '.3g')} ms"
                              + (" (client-bound)" if p.client.client_bound else "")})
    for kind, count in r.failures.items():
        rows.append({"what": f"failed: {kind}", "value": str(count)})
    return Table([Column("what", "Throughput and accounting"), Column("value", "Value")], rows)


def _sweep_table(run: ServeOutput) -> Table:
    rows = []
    points = run.all_points
    for i, p in enumerate(points):
        m, t = p.metrics, p.throughput
        rows.append({"i": i + 1, "load": _load(p) + (f" (run {p.repeat + 1})" if p.repeat is not UNSET else ""),
                     "ok": p.requests.completed, "failed": p.requests.failed,
                     "rps": t.requests_per_s, "otps": t.output_tokens_per_s, "conc": t.mean_concurrency,
                     "good": p.goodput.requests_per_s, "ttft50": m["ttft_ms"].p50, "ttft99": m["ttft_ms"].p99,
                     "tpot50": m["tpot_ms"].p50, "itl50": m["itl_ms"].p50,
                     "icl50": m["icl_ms"].p50, "e2e50": m["e2el_ms"].p50,
                     "late99": p.client.lateness_ms.p99, "status": p.status})
    cols = [Column("i", "#", "int"), Column("load", "Load"), Column("ok", "Done", "int"),
            Column("failed", "Failed", "int"), Column("rps", "req/s", "float"), Column("otps", "out tok/s", "float"),
            Column("conc", "Mean conc", "float"), Column("good", "Goodput req/s", "float"),
            Column("ttft50", "TTFT p50", "duration_ms"), Column("ttft99", "TTFT p99", "duration_ms"),
            Column("tpot50", "TPOT p50", "duration_ms"), Column("itl50", "ITL p50", "duration_ms"),
            Column("icl50", "ICL p50", "duration_ms"), Column("e2e50", "E2E p50", "duration_ms"),
            Column("late99", "Send late p99", "duration_ms"), Column("status", "Status")]
    title = f"{run.server.model} at {run.server.url}: {run.sweep or 'list'} sweep, {len(points)} points"
    if run.slo_request_rate:
        title += f"; highest rate meeting the SLO: {run.slo_request_rate:.3g} req/s"
    return Table(cols, rows, title=title)


def _profile_tables(run: ServeOutput) -> list[Table]:
    w = run.profile
    if not w:
        return []
    rows: list[dict[str, Any]] = [
        {"what": "window", "value": f"{w.point.requests.completed} requests at {_load(w.point)}; /start_profile "
                                    f"{w.start_profile_s:.2f} s, /stop_profile {w.stop_profile_s:.1f} s, "
                                    f"export {w.export_s:.1f} s"},
        {"what": "traces", "value": ", ".join(w.traces) or "-"},
    ]
    notes = []
    if w.error:
        notes.append(f"the trace could not be read: {w.error}")
    v = w.view
    tables = []
    if v is not None:
        m = w.point.metrics
        rows += [{"what": "kernels / device time", "value": f"{v.kernels} / {v.kernel_us / 1e3:.4g} ms"},
                 {"what": "steps by phase", "value": ", ".join(f"{k} {n}" for k, n in v.steps.items()) or "-"},
                 {"what": "decode step (median wall)", "value": "-" if v.decode_step_us is None
                  else f"{v.decode_step_us / 1e3:.4g} ms (served ITL p50 "
                       f"{(m['itl_ms'].p50 or m['icl_ms'].p50 or math.nan):.4g} ms)"},
                 {"what": "kernels per decode / prefill step",
                  "value": f"{_num(v.kernels_per_decode_step)} / {_num(v.kernels_per_prefill_step)}"}]
        notes += list(v.notes)
        top = [{"phase": ph, "short": k.short or k.name, "count": k.count, "total_us": k.total_us}
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


def serve_tables(run: ServeOutput) -> list[Table]:
    """The tables ``bench-kernel serve`` prints: one point in detail, or a sweep's points in rows;
    then the server's view, the GPUs, the repeats, turns, prefixes and slices where the run has them."""
    from bench_kernel.report._serve_extra import extra_tables

    notes: list[Note | str] = list(run.notes)  # one point: the run's notes and the point's own
    if run.aborted:
        notes.insert(0, f"PARTIAL RUN: {run.aborted}")
    points = run.all_points
    if run.sweep is None and len(points) == 1:
        p = points[0]
        title = f"{run.server.model} at {run.server.url}: {p.load.describe()}, {run.dataset} prompts"
        if run.server.version:
            title += f" (server {run.server.version})"
        lat = _latency_table(p, title)
        thr = _throughput_table(p)
        _split(notes, thr)
        return [lat, thr] + extra_tables(run) + _profile_tables(run)
    sweep = _sweep_table(run)
    _split(notes, sweep)
    for i, p in enumerate(points):
        _split(list(p.notes), sweep, f"point {i + 1}: ")
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
