"""The report's summary: where each input was measured (device, driver, versions, date, commit),
the notes that say what to distrust gathered in one place at the top, and apart from them the
notes that only say how the results were made (each note's own ``kind``), so a warning stands out."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, Sequence

from bench_kernel.report._html import Markup, el, join
from bench_kernel.report._table import format_value
from bench_kernel.report_model import ResultsInput, TraceInput

if TYPE_CHECKING:  # read only; importing them would load numpy for every command
    from bench_kernel.records import Note

__all__ = ["summary_section", "distrust_notes"]

#: env key -> label, in the order a reader looks for them.
_ENV_FACTS = (("device", "device"), ("backend", "backend"), ("driver", "driver"), ("cuda", "CUDA"),
              ("hip", "HIP"), ("torch", "torch"), ("triton", "triton"), ("python", "Python"),
              ("compute_capability", "compute capability"), ("sm_count", "SMs"), ("cpu_threads", "CPU threads"),
              ("platform", "platform"))


#: Facts that should agree between inputs that are compared: a differing one is marked.
_COMPARED = {label for _, label in _ENV_FACTS} | {"L2", "memory", "git commit"}


def _state(env: dict[str, Any]) -> str | None:  # Any: the machine's facts, JSON as recorded
    """SM clock and temperature before -> after, when NVML was there to read them."""
    before, after = env.get("state_before") or {}, env.get("state_after") or {}
    parts = []
    for key, unit, label in (("sm_clock_mhz", "MHz", "SM clock"), ("temperature_c", "°C", "temperature")):
        if before.get(key) is not None or after.get(key) is not None:
            parts.append(f"{label} {before.get(key, '?')} → {after.get(key, '?')} {unit}")
    return ", ".join(parts) or None


#: (label, value) facts: a value is text, a number or markup, shown as it is
Pairs = list[tuple[str, object]]


def _facts(pairs: Pairs) -> Markup:
    items = []
    for label, value in pairs:
        if value is None or value == "":
            continue
        items += [el("dt", None, label), el("dd", None, value)]
    return el("dl", {"class": "facts"}, *items)


def _facts_table(labels: Sequence[str], columns: Sequence[Pairs]) -> Markup:
    """Facts of several inputs side by side: a row per fact, a column per input; a fact whose
    values differ between inputs is marked (a driver or clock that changed is worth a look)."""
    by_col = [{k: v for k, v in pairs if v is not None and v != ""} for pairs in columns]
    order = list(dict.fromkeys(k for pairs in columns for k, v in pairs if v is not None and v != ""))
    rows = []
    for key in order:
        values = [col.get(key) for col in by_col]
        shown = {re.sub(r"<[^>]+>", "", str(v)) for v in values if v is not None}
        differs = key in _COMPARED and len(shown) > 1
        rows.append(el("tr", {"class": "differs" if differs else None}, el("th", {"scope": "row"}, key),
                       *(el("td", {"class": "name"}, "" if v is None else v) for v in values)))
    head = el("tr", None, el("th", None, ""), *(el("th", {"scope": "col"}, label) for label in labels))
    return el("div", {"class": "table-wrap"}, el("table", {"class": "facts"}, el("thead", None, head),
                                                 el("tbody", None, *rows)))


def _results_facts(inp: ResultsInput) -> Pairs:
    env, run = inp.env, inp.run
    pairs: Pairs = [("source", inp.source)]
    if run is not None:
        pairs += [("run", f"{run.id} ({run.kind}, {run.status})" if run.id is not None else run.kind),
                  ("name", run.name)]
    pairs.append((inp.dated_by, inp.written_at))
    pairs += [(label, env.get(key)) for key, label in _ENV_FACTS]
    if env.get("l2_bytes"):
        pairs.append(("L2", format_value(env["l2_bytes"], "bytes")))
    if env.get("memory_bytes"):
        pairs.append(("memory", format_value(env["memory_bytes"], "bytes")))
    pairs.append(("clocks", _state(env)))
    commit = (run.git_commit if run is not None else None) or env.get("git_commit")
    if commit:
        # Short as git shows it (runs store the full hash, run --json the short one); full on hover.
        short = el("span", {"title": commit if len(commit) > 7 else None}, commit[:7])
        dirty = run is not None and run.git_dirty
        pairs.append(("git commit", join([short, " (uncommitted changes)" if dirty else None])))
    if run is not None and run.command:
        pairs.append(("command", el("code", None, " ".join(run.command))))
    pairs.append(("cases", len(inp.points)))
    return pairs


def _trace_facts(inp: TraceInput) -> Pairs:
    inv = inp.inventory
    pairs: Pairs = [("source", inp.source), ("device", inp.device), ("kernels", f"{inp.kernel_count:,}"),
                    ("kernel time", format_value(inv.total_kernel_us, "duration_us"))]
    if inp.timeline is not None:  # the main finding on most traces: is the GPU busy, and if not, why
        o = inp.timeline.overall
        verdict = o.diagnosis.split(":", 1)[0] if ":" in o.diagnosis else None
        pairs.append(("GPU busy", f"{o.busy_pct:.1f}% of {format_value(o.wall_us, 'duration_us')}"
                                  + (f" ({verdict})" if verdict else "")))
    return pairs


def _named(labels: list[str], total: int) -> str:
    """Which cases a note is about: all, a few by name, or a count and the first names."""
    if len(labels) == total and total > 1:
        return "all cases"
    if len(labels) <= 3:
        return "; ".join(labels)
    return f"{len(labels)} cases ({'; '.join(labels[:2])}; …)"


def _input_notes(inp: ResultsInput) -> tuple[list[str], list[str]]:
    """One input's (warnings, information), each note said once: a note shared by several cases
    names them together, untimed points are counted per provider and reason."""
    from bench_kernel.records import params_text

    notes, info = [], []
    run = inp.run
    if run is not None and run.status != "done":
        notes.append(f"the run is {run.status}: {run.n_points} of {run.total_points or '?'} points stored")
    if run is not None and run.git_dirty:
        notes.append(f"the spec's repository had uncommitted changes at {run.git_commit}")
    untimed: dict[tuple[str, str, str], list[str]] = {}
    by_note: dict[Note, list[str]] = {}
    held_s: list[float] = []
    clocked = False
    for p in inp.points:
        why = p.error or ""
        if p.status != "ok":
            untimed.setdefault((p.provider, p.status, why), []).append(params_text(p.params))
        for n in p.result.notes:
            if n.code == "steady-held" and "held_s" in n.data:  # summed up in one line below
                held_s.append(float(n.data["held_s"]))
                clocked = clocked or bool(n.data.get("sm_clock_mhz"))
            elif n.text != why:
                by_note.setdefault(n, []).append(p.label)
    per_provider = {name: sum(1 for p in inp.points if p.provider == name) for name, _, _ in untimed}
    for (name, status, why), where in untimed.items():
        at = (f"at all {len(where)} points" if len(where) == per_provider[name] and len(where) > 1
              else "at " + "; ".join(w or "its only point" for w in where[:3]) + (" …" if len(where) > 3 else ""))
        notes.append(f"{name}: {status} {at}" + (f": {why}" if why else ""))
    total = len(inp.points)
    if held_s:
        info.append(f"measured with --steady: {len(held_s)} of {total} cases held the load "
                    f"{min(held_s):.1f}-{max(held_s):.1f} s until " + ("time and SM clock settled; their times are "
                    "the sustained (possibly power-capped) ones" if clocked else "the per-call time settled"))
    for n, labels in by_note.items():
        (info if n.kind == "info" else notes).append(f"{_named(labels, total)}: {n.text}")
    return notes, info


def distrust_notes(inputs: Sequence[ResultsInput | TraceInput]) -> tuple[list[str], list[str]]:
    """(What a reader should not take at face value, how the results were made): every result's
    notes, each said once with the cases it is about, classed by their ``kind``; untimed points,
    unfinished or dirty runs, mixed devices and analyses of a trace that do not apply are warnings."""
    notes: list[str] = []
    info: list[str] = []
    devices = []
    for inp in inputs:
        if isinstance(inp, TraceInput):
            devices.append(inp.device)
            notes += [f"{inp.label}: {name} not shown: {why}" for name, why in inp.missing.items()]
            continue
        devices.append(inp.env.get("device"))
        prefix = f"{inp.label}: " if len(inputs) > 1 else ""
        warn, know = _input_notes(inp)
        notes += [prefix + n for n in warn]
        info += [prefix + n for n in know]
    known = sorted({d for d in devices if d})
    if len(known) > 1:
        notes.insert(0, f"the inputs come from different devices ({', '.join(known)}): compare them with care")
    return list(dict.fromkeys(notes)), list(dict.fromkeys(info))


def summary_section(inputs: Sequence[ResultsInput | TraceInput]) -> Markup:
    """Facts per input (side by side when there are several), then the notes to distrust (or a
    line saying there are none)."""
    columns = [_results_facts(i) if isinstance(i, ResultsInput) else _trace_facts(i) for i in inputs]
    parts = [_facts(columns[0]) if len(inputs) == 1 else _facts_table([i.label for i in inputs], columns)]
    notes, info = distrust_notes(inputs)
    if notes:
        parts.append(el("div", {"class": "notes", "role": "note"}, el("h3", None, "What to distrust"),
                        el("ul", None, *(el("li", None, n) for n in notes))))
    elif any(isinstance(i, ResultsInput) for i in inputs):
        parts.append(el("p", {"class": "muted"}, "Nothing to distrust: every method reached its precision and "
                                                 "nothing was flagged."))
    else:  # traces alone: no method was timed, so none reached (or missed) a precision
        parts.append(el("p", {"class": "muted"}, "Nothing to distrust: the trace's analyses flagged nothing."))
    if info:
        parts.append(el("div", {"class": "info-notes"}, el("h3", None, "How it was measured"),
                        el("ul", None, *(el("li", None, n) for n in info))))
    return join(parts)
