"""The footer that says what a run cost and where the time went."""

from __future__ import annotations

from typing import TYPE_CHECKING

from bench_kernel.units import format_duration_us

if TYPE_CHECKING:  # read only; importing orchestrate would load the measuring code for every command
    from bench_kernel.orchestrate import RunCost

__all__ = ["cost_line"]


def cost_line(cost: RunCost) -> str:
    """``took 4.1 s: timing 2.3 s, warm-up 150 ms, ...`` from an ``orchestrate.RunCost``; parts
    under 5 ms are left out, the timing never."""
    def s(x: float) -> str:
        return format_duration_us(x * 1e6)

    parts = [("timing", cost.timing_s), ("loading", cost.load_s), ("warm-up", cost.warmup_s),
             ("profiler start-up", cost.profiler_s), ("counting", cost.counting_s),
             ("other (checks, inputs, case warm-ups)", cost.other_s)]
    shown = [f"{name} {s(x)}" for name, x in parts if name == "timing" or x >= 0.005]
    return f"took {s(cost.total_s)}: {', '.join(shown)}"
