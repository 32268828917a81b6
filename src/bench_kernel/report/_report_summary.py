"""The report's summary: where each input was measured (device, driver, versions, date, commit)
and the notes that say what to distrust, gathered in one place at the top."""

from __future__ import annotations

from typing import Any, Sequence

from bench_kernel.report._html import Markup, el, join
from bench_kernel.report._inputs import ResultsInput, TraceInput
from bench_kernel.report._report_results import point_label
from bench_kernel.report._table import format_value

__all__ = ["summary_section", "distrust_notes"]

#: env key -> label, in the order a reader looks for them.
_ENV_FACTS = (("device", "device"), ("backend", "backend"), ("driver", "driver"), ("cuda", "CUDA"),
              ("hip", "HIP"), ("torch", "torch"), ("triton", "triton"), ("python", "Python"),
              ("compute_capability", "compute capability"), ("sm_count", "SMs"), ("cpu_threads", "CPU threads"),
              ("platform", "platform"))


def _env(inp: ResultsInput) -> dict[str, Any]:
    if inp.run and inp.run.get("env"):
        return dict(inp.run["env"])
    return dict(inp.points[0]["result"].get("env") or {}) if inp.points else {}


def _state(env: dict[str, Any]) -> str | None:
    """SM clock and temperature before -> after, when NVML was there to read them."""
    before, after = env.get("state_before") or {}, env.get("state_after") or {}
    parts = []
    for key, unit, label in (("sm_clock_mhz", "MHz", "SM clock"), ("temperature_c", "°C", "temperature")):
        if before.get(key) is not None or after.get(key) is not None:
            parts.append(f"{label} {before.get(key, '?')} → {after.get(key, '?')} {unit}")
    return ", ".join(parts) or None


def _facts(pairs: Sequence[tuple[str, Any]]) -> Markup:
    items = []
    for label, value in pairs:
        if value is None or value == "":
            continue
        items += [el("dt", None, label), el("dd", None, value)]
    return el("dl", {"class": "facts"}, *items)


def _results_facts(inp: ResultsInput) -> Markup:
    env, run = _env(inp), inp.run or {}
    pairs: list[tuple[str, Any]] = [("source", inp.source)]
    if run:
        pairs += [("run", f"{run.get('id')} ({run.get('kind')}, {run.get('status')})" if run.get("id") is not None
                   else run.get("kind")), ("name", run.get("name"))]
    pairs.append((inp.dated_by, inp.written_at))
    pairs += [(label, env.get(key)) for key, label in _ENV_FACTS]
    if env.get("l2_bytes"):
        pairs.append(("L2", format_value(env["l2_bytes"], "bytes")))
    if env.get("memory_bytes"):
        pairs.append(("memory", format_value(env["memory_bytes"], "bytes")))
    pairs.append(("clocks", _state(env)))
    commit = run.get("git_commit") or env.get("git_commit")
    if commit:
        pairs.append(("git commit", f"{commit}{' (uncommitted changes)' if run.get('git_dirty') else ''}"))
    if run.get("command"):
        pairs.append(("command", el("code", None, " ".join(run["command"]))))
    pairs.append(("cases", len(inp.points)))
    return _facts(pairs)


def _trace_facts(inp: TraceInput) -> Markup:
    inv = inp.inventory
    return _facts([("source", inp.source), ("device", inp.device), ("kernels", f"{inp.kernel_count:,}"),
                   ("kernel time", format_value(inv.total_kernel_us, "duration_us"))])


def distrust_notes(inputs: Sequence[ResultsInput | TraceInput]) -> list[str]:
    """What a reader should not take at face value: every result's notes (a note all cases of an
    input share is said once), untimed points, unfinished or dirty runs, mixed devices."""
    notes: list[str] = []
    devices = []
    for inp in inputs:
        if isinstance(inp, TraceInput):
            devices.append(inp.device)
            notes += [f"{inp.label}: {name} not shown: {why}" for name, why in inp.missing.items()]
            continue
        devices.append(_env(inp).get("device"))
        run = inp.run or {}
        if run.get("status") not in (None, "done"):
            notes.append(f"{inp.label}: the run is {run['status']}: {run.get('n_points', len(inp.points))} of "
                         f"{run.get('total_points') or '?'} points stored")
        if run.get("git_dirty"):
            notes.append(f"{inp.label}: the spec's repository had uncommitted changes at {run.get('git_commit')}")
        per_point = [set(p["result"].get("notes") or ()) for p in inp.points]
        shared = set.intersection(*per_point) if len(per_point) > 1 else set()
        prefix = f"{inp.label}: " if len(inputs) > 1 else ""
        first = inp.points[0]["result"].get("notes") or () if inp.points else ()
        notes += [f"{prefix}all cases: {n}" for n in first if n in shared]
        for p in inp.points:
            why = p.get("error")
            if p["status"] != "ok":
                notes.append(f"{prefix}{point_label(p)}: {p['status']}" + (f": {why}" if why else ""))
            notes += [f"{prefix}{point_label(p)}: {n}" for n in p["result"].get("notes") or () if n not in shared
                      and n != why]
    known = sorted({d for d in devices if d})
    if len(known) > 1:
        notes.insert(0, f"the inputs come from different devices ({', '.join(known)}): compare them with care")
    return list(dict.fromkeys(notes))


def summary_section(inputs: Sequence[ResultsInput | TraceInput]) -> Markup:
    """Facts per input, then the notes to distrust (or a line saying there are none)."""
    parts = []
    for inp in inputs:
        if len(inputs) > 1:
            parts.append(el("h3", None, inp.label))
        parts.append(_results_facts(inp) if isinstance(inp, ResultsInput) else _trace_facts(inp))
    notes = distrust_notes(inputs)
    if notes:
        parts.append(el("div", {"class": "notes", "role": "note"}, el("h3", None, "What to distrust"),
                        el("ul", None, *(el("li", None, n) for n in notes))))
    else:
        parts.append(el("p", {"class": "muted"}, "No notes: every method reached its precision and nothing was "
                                                 "flagged."))
    return join(parts)
