"""Why a point changed, from what both sides recorded: the first place to look in a regression hunt.

A verdict says that B differs from A; this module says where, from the records alone (nothing is
measured again), most telling first:

- **kernels**: the ``kernel`` method's per-kernel breakdown of both sides, matched by name: which
  kernels moved, by how much, and their share of the change;
- **kernel set**: kernels only in A (gone) or only in B (added): another library's kernel, a cuBLAS
  heuristic's or an autotuner's other pick with another name;
- **launch configuration**: the same kernel launched with another grid, block, register count or
  shared memory (Kineto records them; the ``kernel`` method stores them per kernel);
- **outside the kernels**: the kernels' device time did not change (the ``kernel`` method's own
  verdict is ``same``, or within the threshold) while ``graph`` or ``events`` moved: the change is in
  the launch or graph-replay path. Three identical H200 sweeps showed this: a first, freshly
  compiling process read 2.11 us by ``graph`` against 1.81-1.87 us in the next two, while the
  kernel's own time and name did not change;
- **noise outside the kernels**: an ``inconclusive`` point whose ``graph`` or ``events`` rounds spread
  far wider than the kernels' device time did: the noise that hides the answer is in the launch or
  replay path, and the side whose rounds spread is named. The H100's first, freshly compiling sweep
  read a compiled RMSNorm's graph rounds at 1.94, 2.88 and 2.84 us while its kernel rounds read
  2.37, 2.37 and 2.34 us (the next process's graph rounds: 2.03, 1.95, 1.93);
- **methods**: the methods both sides measured give different verdicts (one says ``slower``, another
  ``same``): the point says so rather than pick one;
- **same kernels, other speed**: identical kernel names and launch configuration, identical code,
  and the kernels' time moved: each fresh Inductor/Triton compile can pick another configuration
  under the same kernel name (22% apart on the H200, repeated when the cache is kept), so such a
  verdict is true of the kernels and says nothing of the code;
- **machine**: the GPU, driver, CUDA/HIP, torch or Triton version, the SM clock, the temperature or
  throttling differ;
- **code**: the git commit (or its dirty flag) or the spec's/target's sha256 differ.
"""

from __future__ import annotations

import math
from typing import Any, Sequence

from bench_kernel.records import (
    Comparison,
    Explanation,
    KernelDelta,
    KernelStat,
    PointResult,
    Reason,
    RunInfo,
)
from bench_kernel.results._compare import compare, samples_problem
from bench_kernel.units import first_and_more

__all__ = ["explain", "launch_text", "MOVED_SHARE"]

#: A kernel "moved" when its own change is at least this share of the call's kernel time (A's), and
#: beyond the threshold: a 1% kernel doubling moves the call 1%, which is not where to look first.
MOVED_SHARE = 0.02
#: Versions and device facts of ``BenchResult.env`` that decide speed when they differ.
_MACHINE = ("device", "driver", "cuda", "hip", "torch", "triton", "compute_capability", "sm_count")
#: The SM clocks of the two sides are said to differ when this far apart (fraction).
_CLOCK_APART = 0.04
#: An inconclusive point's noise is "outside the kernels" when its method's noise floor is at least
#: this many times the kernel method's.
NOISIER = 3.0


def launch_text(k: KernelStat) -> str | None:
    """``grid 128x1x1 block 256x1x1 regs 32 smem 0`` from what the profiler recorded, or None."""
    parts = []
    if k.grid:
        parts.append("grid " + "x".join(map(str, k.grid)))
    if k.block:
        parts.append("block " + "x".join(map(str, k.block)))
    if k.registers_per_thread is not None:
        parts.append(f"regs {k.registers_per_thread}")
    if k.shared_memory_bytes is not None:
        parts.append(f"smem {k.shared_memory_bytes}")
    return " ".join(parts) or None


def _kernels(a: Sequence[KernelStat], b: Sequence[KernelStat]) -> tuple[KernelDelta, ...]:
    """Per kernel name in either side, A against B, the largest absolute change first."""
    ka, kb = {k.name: k for k in a}, {k.name: k for k in b}
    out = []
    for name in dict.fromkeys([*ka, *kb]):
        x, y = ka.get(name), kb.get(name)
        au, bu = (x.us_per_call if x else None), (y.us_per_call if y else None)
        out.append(KernelDelta(name=name, short=(x or y).short,  # type: ignore[union-attr]
                               a_us=au, b_us=bu, ratio=bu / au if au and bu else None,
                               a_launch=launch_text(x) if x else None, b_launch=launch_text(y) if y else None))
    return tuple(sorted(out, key=lambda d: -abs((d.b_us or 0.0) - (d.a_us or 0.0))))


def _method_verdicts(a: PointResult, b: PointResult, threshold: float) -> dict[str, Comparison]:
    """Every method both sides measured with good samples, compared by the one rule."""
    out = {}
    for m, ma in a.result.measurements.items():
        mb = b.result.measurements.get(m)
        if mb is None or not ma.ok or not mb.ok or samples_problem(ma.samples) or samples_problem(mb.samples):
            continue
        out[m] = compare(ma, mb, threshold)
    return out


def _env_diff(a: dict[str, Any], b: dict[str, Any], keys: Sequence[str]) -> list[str]:
    return [f"{k} {a.get(k)} -> {b.get(k)}" for k in keys
            if a.get(k) is not None and b.get(k) is not None and str(a.get(k)) != str(b.get(k))]


def _machine(a: PointResult, b: PointResult, c: Comparison) -> list[str]:
    ea, eb = a.result.env, b.result.env
    out = _env_diff(ea, eb, _MACHINE)
    ca, cb = c.clock_a_mhz, c.clock_b_mhz
    if ca and cb and max(ca, cb) / min(ca, cb) - 1 > _CLOCK_APART:
        out.append(f"median SM clock {ca:.0f} -> {cb:.0f} MHz")
    sa, sb = (ea.get("state_after") or {}), (eb.get("state_after") or {})
    ta, tb = sa.get("temperature_c"), sb.get("temperature_c")
    if isinstance(ta, (int, float)) and isinstance(tb, (int, float)) and abs(ta - tb) >= 10:
        out.append(f"temperature {ta:.0f} -> {tb:.0f} C")
    ra, rb = sa.get("throttle_reasons"), sb.get("throttle_reasons")
    if ra != rb and (ra or rb):
        out.append(f"throttling {ra or 'none'} -> {rb or 'none'}")
    return out


def _code(a: PointResult, b: PointResult, a_run: RunInfo | None, b_run: RunInfo | None) -> tuple[list[str], bool]:
    """(what differs in the code, whether both sides recorded the code at all)."""
    ga = a.result.env.get("git_commit") or (a_run.git_commit if a_run else None)
    gb = b.result.env.get("git_commit") or (b_run.git_commit if b_run else None)
    out = []
    if ga and gb and ga != gb:
        out.append(f"git commit {str(ga)[:10]} -> {str(gb)[:10]}")
    if a_run and b_run:
        if a_run.source_hash and b_run.source_hash and a_run.source_hash != b_run.source_hash:
            out.append(f"{a_run.kind} source sha256 {a_run.source_hash[:10]} -> {b_run.source_hash[:10]}")
        if a_run.git_dirty != b_run.git_dirty and (a_run.git_dirty or b_run.git_dirty):
            out.append(f"uncommitted changes: A {bool(a_run.git_dirty)}, B {bool(b_run.git_dirty)}")
    return out, bool(ga and gb)


def _spread(p: PointResult, method: str) -> float | None:
    """max / min - 1 of ``method``'s round medians on one side; None with fewer than two rounds."""
    m = p.result.measurements.get(method)
    rounds = [x for x in (m.round_medians_us if m is not None else ()) if x]
    return max(rounds) / min(rounds) - 1 if len(rounds) > 1 else None


def _noisy_outside(a: PointResult, b: PointResult, method: str, c: Comparison, kernel: Comparison) -> Reason:
    """The reason of an inconclusive point whose noise is in the launch or replay path (module docstring)."""
    sa, sb = _spread(a, method), _spread(b, method)
    spreads = f"A's rounds spread {sa:.0%}, B's {sb:.0%}" if sa is not None and sb is not None else "its rounds spread"
    who = ("A" if sa > 2 * sb else "B" if sb > 2 * sa else None) if sa is not None and sb is not None else None
    return Reason(kind="outside-kernels", text=(
        f"the noise is outside the kernels: {method}'s noise floor +/-{c.noise_floor or 0:.1%} ({spreads}) against "
        f"the kernels' device time's +/-{kernel.noise_floor or 0:.1%} ({kernel.ratio:.3f}): the launch or "
        f"graph-replay path varied between rounds" + (f", on {who}'s side" if who else "")
        + ", not the kernels"))


def _delta(d: KernelDelta) -> float:
    """B's device time per call minus A's (a kernel missing on a side counts 0 there), us."""
    return (d.b_us or 0.0) - (d.a_us or 0.0)


def _pct(r: float) -> str:
    return f"{(r - 1) * 100:+.0f}%"


def explain(a: PointResult, b: PointResult, method: str, c: Comparison, *, a_run: RunInfo | None = None,
            b_run: RunInfo | None = None) -> Explanation:
    """What both sides recorded that bears on ``c`` (B against A by ``method``; module docstring)."""
    t = c.threshold
    reasons: list[Reason] = []
    deltas = _kernels(a.result.kernels, b.result.kernels)
    total_a = sum(k.us_per_call for k in a.result.kernels) or math.nan
    both = [d for d in deltas if d.a_us is not None and d.b_us is not None]
    moved = [d for d in both if d.ratio is not None and abs(math.log(d.ratio)) > math.log1p(t)
             and abs(_delta(d)) >= MOVED_SHARE * total_a]
    gone = [d for d in deltas if d.b_us is None]
    added = [d for d in deltas if d.a_us is None]
    verdicts = _method_verdicts(a, b, t)
    kernel = verdicts.get("kernel")
    if moved:
        change = sum(_delta(d) for d in moved)
        reasons.append(Reason(kind="kernels", text="kernels moved: " + first_and_more(
            [f"{d.short} {d.a_us:.4g} -> {d.b_us:.4g} us ({_pct(d.ratio)})" for d in moved], 3, "; ")  # type: ignore[arg-type]
            + f": {change:+.4g} us per call of {total_a:.4g}"))
    if gone or added:
        parts = ([f"gone: {', '.join(d.short for d in gone[:3])}"] if gone else []) + \
                ([f"added: {', '.join(d.short for d in added[:3])}"] if added else [])
        reasons.append(Reason(kind="kernel-set", text="kernel set changed (another library, heuristic or "
                                                      "autotuner pick): " + "; ".join(parts)))
    relaunched = [d for d in both if d.a_launch and d.b_launch and d.a_launch != d.b_launch]
    if relaunched:
        d = relaunched[0]
        reasons.append(Reason(kind="launch-config", text=f"launch configuration of {d.short}: {d.a_launch} -> "
                                                         f"{d.b_launch}" + (f" (+{len(relaunched) - 1} more kernels)"
                                                                            if len(relaunched) > 1 else "")))
    kernels_held = kernel is not None and kernel.verdict in ("same", "inconclusive") and \
        abs(math.log(kernel.ratio)) <= math.log1p(t)
    if method != "kernel" and c.verdict in ("slower", "faster") and kernels_held:
        reasons.append(Reason(kind="outside-kernels", text=(
            f"outside the kernels: {method} {c.ratio:.3f} but the kernels' device time {kernel.ratio:.3f} "  # type: ignore[union-attr]
            f"({kernel.verdict}): the launch or graph-replay path moved (a first, freshly compiling process "  # type: ignore[union-attr]
            f"replays slower), not the kernels")))
    noisy_outside = (method != "kernel" and c.verdict == "inconclusive" and kernels_held and c.noise_floor is not None
                     and kernel.noise_floor is not None and kernel.noise_floor * NOISIER < c.noise_floor)  # type: ignore[union-attr]
    if noisy_outside:
        reasons.append(_noisy_outside(a, b, method, c, kernel))  # type: ignore[arg-type]
    directions = {m: x.verdict for m, x in verdicts.items()}
    if len({v for v in directions.values() if v in ("slower", "faster")}) > 1 or (
            any(v in ("slower", "faster") for v in directions.values()) and "same" in directions.values()):
        reasons.append(Reason(kind="methods", text="methods tell different stories: " + ", ".join(
            f"{m} {x.verdict} {x.ratio:.3f}" for m, x in verdicts.items())))
    code, recorded = _code(a, b, a_run, b_run)
    same_kernels = bool(both) and not gone and not added and not relaunched
    kernels_moved = kernel is not None and kernel.verdict in ("slower", "faster")
    if same_kernels and kernels_moved and not code:
        reasons.append(Reason(kind="kernels", text=(
            f"the same kernels (names{', launch configuration' if both[0].a_launch else ''}) ran "
            f"{_pct(kernel.ratio)} by their device time" + (" on the same code" if recorded else "")  # type: ignore[union-attr]
            + ": a fresh Inductor/Triton compile or autotune can pick another configuration under the same "
              "name; with a kept cache the pick repeats, so this verdict is about the kernels, not the code")))
    machine = _machine(a, b, c)
    if machine:
        reasons.append(Reason(kind="machine", text="the machine differs: " + "; ".join(machine)))
    if code:
        reasons.append(Reason(kind="code", text="the code differs: " + "; ".join(code)))
    if c.verdict == "inconclusive":  # what it would take, then where the noise or a difference is
        summary = (f"cannot tell at this noise (noise floor +/-{c.noise_floor or 0:.1%})"
                   + (f": about {c.rounds_needed} rounds a side would resolve it" if c.rounds_needed else "")
                   + (f"; {reasons[0].text}" if reasons else ""))
    elif reasons:
        summary = reasons[0].text
    elif not a.result.kernels or not b.result.kernels:
        summary = ("nothing both sides recorded differs but the time; no kernel breakdown on "
                   + ("either side" if not a.result.kernels and not b.result.kernels else "one side")
                   + " (time both with -m kernel to see which kernels moved)")
    else:
        summary = "nothing both sides recorded differs but the time: the same kernels, launch configuration, machine and code"
    return Explanation(summary=summary, reasons=tuple(reasons), kernels=deltas[:20],
                       method_verdicts={m: x.verdict for m, x in verdicts.items()})
