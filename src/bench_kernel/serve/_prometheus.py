"""The Prometheus text exposition format (version 0.0.4, and OpenMetrics' text as servers write
it), read into families, and what a load point's scrapes of ``/metrics`` say.

A small parser of our own rather than ``prometheus_client``'s: the format is a few line rules
(https://prometheus.io/docs/instrumenting/exposition_formats/), the client would be a dependency
for 100 lines, and scrapes are parsed after the load point, off the client's event loop.

Rules read here:
- ``# HELP name text`` and ``# TYPE name counter|gauge|histogram|summary|untyped``; other ``#``
  lines are comments (``# EOF`` ends OpenMetrics).
- a sample is ``name{label="value",...} value [timestamp]``; label values escape ``\\\\``, ``\\"``
  and ``\\n``; values may be ``+Inf``, ``-Inf`` or ``NaN``.
- a sample belongs to the family its TYPE line names, directly or through a suffix: ``_bucket``,
  ``_sum``, ``_count`` (histograms and summaries), ``_total`` (OpenMetrics counters, whose TYPE
  names the family without it); prometheus_client, which vLLM and SGLang use, writes counters as
  ``# TYPE vllm:prompt_tokens_total counter`` and each family's creation time as a ``_created``
  gauge, which carries nothing about the load and is dropped.

Over a point (first and last scrape, and every one between): a gauge is a series (min, mean,
max); a counter a delta (a reset, last < first, is counted from 0 and said); a histogram the
deltas of its buckets, with the mean and quantiles by linear interpolation inside a bucket, as
PromQL's ``histogram_quantile`` computes them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Iterable, Sequence

__all__ = ["Family", "parse_exposition", "point_summary", "histogram_quantile", "TYPES"]

TYPES = ("counter", "gauge", "histogram", "summary", "untyped")
_SUFFIXES = ("_bucket", "_sum", "_count", "_total")

Labels = tuple[tuple[str, str], ...]


@dataclass
class Family:
    """One metric family of one scrape: its type, help, and samples ``(sample name, labels, value)``."""

    name: str
    type: str = "untyped"
    help: str = ""
    samples: list[tuple[str, Labels, float]] = field(default_factory=list)


def _value(text: str) -> float:
    t = text.strip()
    if t in ("+Inf", "Inf", "inf", "+inf"):
        return math.inf
    if t in ("-Inf", "-inf"):
        return -math.inf
    return float(t)  # "NaN" parses too


def _labels(text: str, where: str) -> tuple[Labels, str]:
    """Parse ``{a="x",b="y"}`` at the start of ``text``; returns the labels and the rest."""
    out: list[tuple[str, str]] = []
    i = 1
    n = len(text)
    while True:
        while i < n and text[i] in " ,":
            i += 1
        if i < n and text[i] == "}":
            return tuple(sorted(out)), text[i + 1:]
        eq = text.find("=", i)
        if eq < 0:
            raise ValueError(f"{where}: a label without '='")
        name = text[i:eq].strip()
        if eq + 1 >= n or text[eq + 1] != '"':
            raise ValueError(f"{where}: label {name!r} has no quoted value")
        j = eq + 2
        buf: list[str] = []
        while j < n and text[j] != '"':
            if text[j] == "\\" and j + 1 < n:
                buf.append({"n": "\n", "\\": "\\", '"': '"'}.get(text[j + 1], "\\" + text[j + 1]))
                j += 2
            else:
                buf.append(text[j])
                j += 1
        if j >= n:
            raise ValueError(f"{where}: label {name!r}'s value is not closed")
        out.append((name, "".join(buf)))
        i = j + 1


def _family_of(name: str, families: dict[str, Family]) -> Family:
    if name in families:
        return families[name]
    for suffix in _SUFFIXES:
        if name.endswith(suffix) and name[: -len(suffix)] in families:
            return families[name[: -len(suffix)]]
    fam = families[name] = Family(name)  # a sample without a TYPE line: untyped, as the format says
    return fam


def parse_exposition(text: str) -> tuple[dict[str, Family], int]:
    """The families of one scrape and how many lines could not be read (they are skipped: one
    odd line must not lose a scrape). ``_created`` families are dropped (module docstring)."""
    families: dict[str, Family] = {}
    bad = 0
    for no, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line:
            continue
        if line.startswith("#"):
            parts = line.split(None, 3)
            if len(parts) >= 3 and parts[1] in ("HELP", "TYPE"):
                fam = families.setdefault(parts[2], Family(parts[2]))
                rest = parts[3] if len(parts) > 3 else ""
                if parts[1] == "TYPE":
                    fam.type = rest.strip() if rest.strip() in TYPES else "untyped"
                else:
                    fam.help = rest.replace("\\n", "\n").replace("\\\\", "\\")
            continue
        try:
            brace = line.find("{")
            space = line.find(" ")
            if brace >= 0 and (space < 0 or brace < space):
                name = line[:brace]
                labels, rest = _labels(line[brace:], f"line {no}")
            else:
                name, _, rest = line.partition(" ")
                labels = ()
            fields = rest.split()
            if not name or not fields:
                raise ValueError(f"line {no}: no value")
            value = _value(fields[0])
        except ValueError:
            bad += 1
            continue
        _family_of(name, families).samples.append((name, labels, value))
    for key in [k for k, f in families.items() if k.endswith("_created") and f.type in ("gauge", "untyped")]:
        base = key[: -len("_created")]
        if base in families or base + "_total" in families:
            del families[key]
    return {k: f for k, f in families.items() if f.samples}, bad


def histogram_quantile(q: float, buckets: Sequence[tuple[float, float]]) -> float | None:
    """PromQL's ``histogram_quantile``: ``buckets`` are (upper bound ``le``, cumulative count),
    ascending, the last ``+Inf``. Linear inside the bucket the rank falls in; the lowest bucket
    starts at 0; a rank in the ``+Inf`` bucket gives the highest finite bound. None when empty."""
    if not buckets or buckets[-1][1] <= 0:
        return None
    total = buckets[-1][1]
    rank = q * total
    prev_le, prev_count = 0.0, 0.0
    for le, count in buckets:
        if count >= rank:
            if math.isinf(le):
                return prev_le
            if count == prev_count:
                return le
            return prev_le + (le - prev_le) * (rank - prev_count) / (count - prev_count)
        prev_le, prev_count = le, count
    return prev_le


def _by_labels(fam: Family, suffix: str = "", drop: str | None = None) -> dict[Labels, list[tuple[Labels, float]]]:
    out: dict[Labels, list[tuple[Labels, float]]] = {}
    for name, labels, value in fam.samples:
        if name != fam.name + suffix and not (suffix == "" and name == fam.name + "_total"):
            continue
        key = tuple(kv for kv in labels if kv[0] != drop) if drop else labels
        out.setdefault(key, []).append((labels, value))
    return out


def _scalar(fam: Family) -> dict[Labels, float]:
    return {k: v[-1][1] for k, v in _by_labels(fam).items()}


def _buckets(fam: Family) -> dict[Labels, list[tuple[float, float]]]:
    out: dict[Labels, list[tuple[float, float]]] = {}
    for key, items in _by_labels(fam, "_bucket", drop="le").items():
        bs = []
        for labels, value in items:
            le = dict(labels).get("le")
            if le is not None:
                try:
                    bs.append((_value(le), value))
                except ValueError:
                    continue
        out[key] = sorted(bs)
    return out


def _gauge_series(name: str, scrapes: Sequence[tuple[float, dict[str, Family]]]) -> list[dict[str, Any]]:
    series: dict[Labels, tuple[list[float], list[float]]] = {}
    for t, fams in scrapes:
        if name not in fams:
            continue
        for labels, v in _scalar(fams[name]).items():
            ts, vs = series.setdefault(labels, ([], []))
            ts.append(round(t, 3))
            vs.append(v)
    out = []
    for labels, (ts, vs) in series.items():
        finite = [v for v in vs if math.isfinite(v)]
        out.append({"labels": dict(labels), "t_s": ts, "values": vs,
                    "min": min(finite) if finite else None, "max": max(finite) if finite else None,
                    "mean": sum(finite) / len(finite) if finite else None})
    return out


def _counter_deltas(first: Family, last: Family, notes: list[str]) -> list[dict[str, Any]]:
    a, b = _scalar(first), _scalar(last)
    out = []
    for labels, end in b.items():
        start = a.get(labels, 0.0)
        delta = end - start
        if delta < 0:  # the server restarted (or reset) during the point: count from 0
            notes.append(f"{last.name}{dict(labels) or ''} fell from {start:g} to {end:g}: a reset; counted from 0")
            delta = end
        out.append({"labels": dict(labels), "start": start, "end": end, "delta": delta})
    return out


def _histogram_deltas(first: Family, last: Family, notes: list[str]) -> list[dict[str, Any]]:
    a, b = _buckets(first), _buckets(last)
    sa, sb = _scalar_of(first, "_sum"), _scalar_of(last, "_sum")
    out = []
    for labels, bs in b.items():
        before = dict(a.get(labels, []))
        delta = [(le, c - before.get(le, 0.0)) for le, c in bs]
        s = sb.get(labels, 0.0) - sa.get(labels, 0.0)
        if any(c < 0 for _, c in delta):
            notes.append(f"{last.name}{dict(labels) or ''}: bucket counts fell: a reset; counted from 0")
            delta, s = bs, sb.get(labels, 0.0)
        count = delta[-1][1] if delta else 0.0
        out.append({"labels": dict(labels), "count": count, "sum": s, "mean": s / count if count else None,
                    **{f"p{int(q * 100)}": histogram_quantile(q, delta) for q in (0.5, 0.9, 0.99)},
                    "buckets": [[le if math.isfinite(le) else "+Inf", c] for le, c in delta]})
    return out


def _scalar_of(fam: Family, suffix: str) -> dict[Labels, float]:
    return {k: v[-1][1] for k, v in _by_labels(fam, suffix).items()}


def point_summary(scrapes: Iterable[tuple[float, dict[str, Family]]]) -> tuple[dict[str, dict[str, Any]], list[str]]:
    """Per family, under its Prometheus name: what the point's scrapes ``(t_s, families)`` say
    (module docstring). Needs two scrapes for a delta; the notes say what could not be judged."""
    scrapes = list(scrapes)
    notes: list[str] = []
    out: dict[str, dict[str, Any]] = {}
    if not scrapes:
        return out, notes
    first, last = scrapes[0][1], scrapes[-1][1]
    for name, fam in last.items():
        head = {"type": fam.type, "help": fam.help}
        before = first.get(name, Family(name, fam.type))
        if fam.type == "counter":
            out[name] = {**head, "series": _counter_deltas(before, fam, notes)}
        elif fam.type == "histogram":
            out[name] = {**head, "series": _histogram_deltas(before, fam, notes)}
        elif fam.type == "summary":
            # a summary's quantiles are the server's own over its lifetime, not this point's: its
            # count and sum deltas are what belongs to the point
            out[name] = {**head, "series": _counter_deltas(_sub(before, "_count"), _sub(fam, "_count"), notes)}
        else:
            out[name] = {**head, "series": _gauge_series(name, scrapes)}
    if len(scrapes) < 2:
        notes.append("one scrape of /metrics in the point: counters and histograms have no delta")
    return out, notes


def _sub(fam: Family, suffix: str) -> Family:
    return Family(fam.name, "counter", fam.help, [(fam.name, lab, v) for n, lab, v in fam.samples
                                                   if n == fam.name + suffix])
