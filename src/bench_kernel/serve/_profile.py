"""``--profile``: record the server's kernels under load and read them with ``bench_kernel.trace``.

The server records; we ask. vLLM (``--profiler-config '{"profiler": "torch", "torch_profiler_dir":
DIR}'``, or ``VLLM_TORCH_PROFILER_DIR`` before 0.32), SGLang and ATOM (``SGLANG_TORCH_PROFILER_DIR``
or ``--torch-profiler-dir``) answer ``POST /start_profile`` and ``POST /stop_profile`` and write one
trace per rank into DIR. The window is bounded (N requests or S seconds) so the trace stays small.

The export is asynchronous and slow: a vLLM CPU build blocked 81 s in ``/stop_profile`` (SERVING.md).
So: a long timeout on ``/stop_profile``, then wait until the new trace files stop growing and each
one reads to its end (a complete gzip member), then pick one file per rank (``rank_N/...``,
``rank0.<ts>.pt.trace.json.gz``, SGLang's ``...-TP-N...``) and analyse rank 0.
"""

from __future__ import annotations

import gzip
import re
import time
import urllib.error
import urllib.request
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from bench_kernel.errors import BenchKernelError, ServerError

__all__ = ["post_profile", "wait_for_traces", "rank_of", "KernelView", "kernel_view", "TRACE_SUFFIXES"]

TRACE_SUFFIXES = (".json", ".json.gz")
_RANK = re.compile(r"(?:rank[_-]?|-TP-|tp[_-]?)(\d+)", re.IGNORECASE)
_TOP = 5


def post_profile(base_url: str, what: str, timeout_s: float) -> float:
    """``POST /start_profile`` or ``/stop_profile``; returns the seconds it took."""
    t0 = time.monotonic()
    req = urllib.request.Request(base_url.rstrip("/") + f"/{what}_profile", data=b"{}", method="POST",
                                 headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=timeout_s) as r:  # noqa: S310 - the user's server
            r.read(65536)
    except urllib.error.HTTPError as e:
        hint = (" (vLLM needs --profiler-config with a torch_profiler_dir; SGLang SGLANG_TORCH_PROFILER_DIR)"
                if e.code in (404, 405, 500) else "")
        raise ServerError(f"POST /{what}_profile answered HTTP {e.code}{hint}") from None
    except (urllib.error.URLError, OSError) as e:
        raise ServerError(f"POST /{what}_profile failed after {time.monotonic() - t0:.0f} s: "
                          f"{getattr(e, 'reason', e)}") from None
    return time.monotonic() - t0


def rank_of(path: Path) -> int:
    """The rank a trace file belongs to, from its name or folder (0 when none is named)."""
    for part in reversed(path.parts[-2:]):
        m = _RANK.search(part)
        if m:
            return int(m.group(1))
    return 0


def _complete(path: Path) -> bool:
    """Whether a trace file reads to its end: a gzip stream that ends, or JSON that closes."""
    try:
        if path.name.endswith(".gz"):
            d = zlib.decompressobj(16 + zlib.MAX_WBITS)
            with open(path, "rb") as fh:
                while chunk := fh.read(1 << 20):
                    d.decompress(chunk, 0)
            return d.eof
        with open(path, "rb") as fh:
            fh.seek(0, 2)
            fh.seek(max(0, fh.tell() - 64))
            return fh.read().rstrip().endswith(b"}")
    except (OSError, zlib.error, EOFError, gzip.BadGzipFile):
        return False


def wait_for_traces(folder: Path, since: float, timeout_s: float, settle_s: float = 3.0) -> list[Path]:
    """The trace files written in ``folder`` (recursively) after ``since`` (epoch s), one per rank
    (the newest), once their sizes held still for ``settle_s`` and each is complete."""
    deadline = time.monotonic() + timeout_s
    last: dict[Path, int] = {}
    still_since = time.monotonic()
    while True:
        found = {p: p.stat().st_size for p in folder.rglob("*") if p.is_file()
                 and p.name.endswith(TRACE_SUFFIXES) and p.stat().st_mtime >= since - 1}
        if found != last:
            last, still_since = found, time.monotonic()
        elif found and time.monotonic() - still_since >= settle_s and all(_complete(p) for p in found):
            break
        if time.monotonic() > deadline:
            if not found:
                raise ServerError(f"no trace appeared in {folder} within {timeout_s:g} s of /stop_profile: is it "
                                  f"the server's profiler folder?")
            raise ServerError(f"the traces in {folder} were still being written after {timeout_s:g} s "
                              f"({len(found)} files); raise --profile-timeout")
        time.sleep(0.5)
    # Files that name their rank win over those that name none (vLLM's API-server trace,
    # vm_<pid>.async_llm.<ts>.pt.trace.json.gz, sits beside rank0.<ts>.pt.trace.json.gz).
    ranked = [p for p in last if any(_RANK.search(part) for part in p.parts[-2:])] or list(last)
    newest: dict[int, Path] = {}
    for p in sorted(ranked, key=lambda q: q.stat().st_mtime):
        newest[rank_of(p)] = p
    return [newest[r] for r in sorted(newest)]


@dataclass(frozen=True)
class KernelView:
    """The kernels of the profiled window beside its serving metrics (rank 0's trace)."""

    traces: tuple[str, ...]
    kernels: int
    kernel_us: float
    phase_method: str | None
    steps: dict[str, int]
    #: median wall time of a decode step (host annotation interval), µs; None without decode steps
    decode_step_us: float | None
    #: median kernels per decode step, and per prefill step
    kernels_per_decode_step: float | None
    kernels_per_prefill_step: float | None
    top_prefill: tuple[dict[str, Any], ...]
    top_decode: tuple[dict[str, Any], ...]
    #: a trace without kernels (a CPU server): its costliest CPU ops, inclusive time
    top_ops: tuple[dict[str, Any], ...] = ()
    ops: int = 0
    analyses: dict[str, Any] = field(default_factory=dict)
    notes: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        from dataclasses import asdict

        return asdict(self)


def _top_ops(trace: Any) -> tuple[int, tuple[dict[str, Any], ...]]:
    o = trace.ops
    if not len(o):
        return 0, ()
    names, inv = np.unique(o.name, return_inverse=True)
    per = np.bincount(inv, weights=o.dur_us, minlength=len(names))
    cnt = np.bincount(inv, minlength=len(names))
    top = tuple({"name": trace.names[int(names[i])], "count": int(cnt[i]), "total_us": float(per[i])}
                for i in np.argsort(-per)[:_TOP])
    return int(len(o)), top


def kernel_view(traces: list[Path]) -> KernelView:
    """Run ``inventory``, ``phases``, ``timeline`` and ``layers`` on rank 0's trace; each analysis that
    cannot run says why in ``notes`` instead of losing the others."""
    from bench_kernel.trace import (
        annotated_tokens,
        find_steps,
        inventory,
        kernel_steps,
        layers,
        load_trace,
        phases,
        timeline,
    )

    notes: list[str] = []
    t = load_trace(traces[0], shapes=True)
    n_ops, top_ops = _top_ops(t)
    analyses: dict[str, Any] = {}
    med = (lambda xs: float(np.median(xs)) if len(xs) else None)
    if not t.kernel_count:
        # A CPU server: no kernels, but the engine's step annotations still give the phases and the
        # decode step's wall time, and the ops give the per-step work.
        steps = find_steps(t)
        by: dict[str, list[int]] = {}
        for i, s in enumerate(steps):
            by.setdefault(s.phase or "unknown", []).append(i)
        dec = by.get("decode", [])
        notes.append(f"the trace has no device kernels (a CPU server): {n_ops} CPU ops in {len(steps)} steps; "
                     f"the costliest ops are listed (inclusive time: nested ops count in their callers)")
        analyses["steps"] = [dict(s.to_dict(), tokens=annotated_tokens(s)) for s in steps]
        return KernelView(tuple(map(str, traces)), 0, 0.0, "annotation" if by.keys() - {"unknown"} else None,
                          {p: len(ix) for p, ix in by.items()},
                          med([steps[i].end_us - steps[i].start_us for i in dec]), None, None, (), (),
                          top_ops, n_ops, analyses, tuple(notes))
    for name, fn in (("inventory", lambda: inventory(t, top=10)), ("timeline", lambda: timeline(t)),
                     ("layers", lambda: layers(t, step="decode"))):
        try:
            analyses[name] = fn().to_dict()
        except (BenchKernelError, ValueError) as e:
            notes.append(f"{name}: {e}")
    try:
        rep = phases(t)
    except (BenchKernelError, ValueError) as e:
        notes.append(f"phases: {e}")
        return KernelView(tuple(map(str, traces)), t.kernel_count, float(t.kernels.dur_us.sum()), None, {}, None,
                          None, None, (), (), top_ops, n_ops, analyses, tuple(notes))
    analyses["phases"] = rep.to_dict()
    steps = list(rep.steps)
    which = kernel_steps(t, steps)
    per_step = np.bincount(which[which >= 0], minlength=len(steps))
    by = {p: [i for i, s in enumerate(steps) if s.phase == p] for p in ("prefill", "decode", "mixed", "unknown")}
    dec = by["decode"]
    return KernelView(
        tuple(map(str, traces)), t.kernel_count, rep.total_kernel_us, rep.method,
        {p: len(ix) for p, ix in by.items() if ix},
        med([steps[i].end_us - steps[i].start_us for i in dec]),
        med([per_step[i] for i in dec]), med([per_step[i] for i in by["prefill"]]),
        tuple(k.to_dict() for k in rep.prefill.top_kernels), tuple(k.to_dict() for k in rep.decode.top_kernels),
        top_ops, n_ops, analyses,
        tuple(notes) + rep.notes)
