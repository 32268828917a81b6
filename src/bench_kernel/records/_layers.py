"""The records of a trace's repeating structure (``bench_kernel.trace``): its steps split into
prefill and decode (``phases``) and the per-layer kernel sequence (``layers``). Times are
microseconds."""

from __future__ import annotations

from typing import Annotated, Literal

from bench_kernel.records._base import Record, doc
from bench_kernel.records._trace import LOAD_NOTES, RANK, TRACE_NAME, Step

__all__ = ["LayerPosition", "LeftOut", "LayerReport", "StepPhase", "PhaseMethod", "TopKernel", "PhaseSummary",
           "OutsideSteps", "PhaseStep", "PhaseReport"]

#: The phases ``--step`` can pick.
StepPhase = Literal["prefill", "decode", "mixed"]


# -- layers ---------------------------------------------------------------------------------------


class LayerPosition(Record, frozen=True):
    """One position of the repeating unit, over every unit kept."""

    pos: Annotated[int, doc("position in the unit, from 0")]
    name: Annotated[str, doc("kernel name")]
    short: Annotated[str, doc("its short name")]
    category: Annotated[str, doc("its category")]
    min_us: Annotated[float, doc("shortest over the units")]
    median_us: Annotated[float, doc("median over the units")]
    mean_us: Annotated[float, doc("mean over the units")]
    max_us: Annotated[float, doc("longest over the units")]


class LeftOut(Record, frozen=True):
    """Units not counted, for one reason."""

    count: Annotated[int, doc("units left out (whole steps, for a step without the anchor)")]
    reason: Annotated[str, doc("why: a layer of another length, another kernel sequence, cut off by a step's "
                               "start or end, ...")]


class LayerReport(Record, frozen=True, kw_only=True):
    """The repeating per-layer kernel sequence of a trace, with each position's times over the
    layers. Found from an anchor kernel that runs a fixed number of times per unit; models whose
    layers alternate between two kinds repeat every two layers, and a unit is then a pair."""

    trace: Annotated[str, doc(TRACE_NAME)]
    rank: Annotated[int | None, doc(RANK)] = None
    period: Annotated[int, doc("kernels per repeating unit (a layer, or a pair of alternating layers)")]
    layer_count: Annotated[int, doc("units kept: all of the dominant kernel sequence")]
    anchor: Annotated[str, doc("the short name of the kernel the units were aligned on (`|`-joined when "
                               "`--anchor` matched several)")]
    anchor_offset: Annotated[int, doc("positions of the unit before the anchor kernel")]
    anchor_per_unit: Annotated[int, doc("times the anchor runs in one unit (1 for an anchor found "
                                        "automatically)")]
    layer_total_us: Annotated[float, doc("mean kernel time of one unit: the sum of the positions' means")]
    total_us: Annotated[float, doc("kernel time of all units kept: `layer_total_us` × `layer_count`")]
    positions: Annotated[tuple[LayerPosition, ...], doc("one per kernel of a unit, in order")]
    left_out: Annotated[tuple[LeftOut, ...], doc("units not counted, and why; most first")]
    sequences: Annotated[int, doc("sequences searched: the steps (of `--step`'s phase), else 1 for the whole "
                                  "trace")]
    unit_starts: Annotated[tuple[int, ...], doc("the kernel index (start-time order) of each unit's first "
                                                "kernel")]
    step_phase: Annotated[StepPhase | None, doc("the phase `--step` kept; null: every step")] = None
    load_notes: Annotated[tuple[str, ...], doc(LOAD_NOTES)] = ()


# -- phases ---------------------------------------------------------------------------------------

PhaseMethod = Literal["annotation", "shapes", "kernel_time", "none"]


class TopKernel(Record, frozen=True):
    """One of a phase's costliest kernels."""

    short: Annotated[str, doc("its short name")]
    name: Annotated[str, doc("its full name")]
    count: Annotated[int, doc("executions in the phase's steps")]
    total_us: Annotated[float, doc("their summed duration")]


class PhaseSummary(Record, frozen=True):
    """The kernels launched by the steps of one phase."""

    steps: Annotated[int, doc("steps of this phase")]
    kernel_count: Annotated[int, doc("kernels they launched")]
    kernel_us: Annotated[float, doc("their summed duration")]
    categories: Annotated[dict[str, float], doc("kernel time by category, largest first; sums to `kernel_us`")]
    top_kernels: Annotated[tuple[TopKernel, ...], doc("the five costliest kernels by total time")]


class OutsideSteps(Record, frozen=True):
    """Kernels launched outside every step."""

    count: Annotated[int, doc("kernels")]
    kernel_us: Annotated[float, doc("their summed duration")]


class PhaseStep(Step, frozen=True):
    """One step, its phase decided, with its tokens and kernel time."""

    tokens: Annotated[int | None, doc("tokens it processed: the largest leading size of a GEMM's activation "
                                      "(recorded shapes), else what its annotation says; null: neither")]
    kernel_us: Annotated[float, doc("kernel time it launched")]


class PhaseReport(Record, frozen=True, kw_only=True):
    """A trace's steps split into prefill and decode, each phase's kernels summed. The phases' kernel
    times and `outside_steps` sum to `total_kernel_us`."""

    trace: Annotated[str, doc(TRACE_NAME)]
    rank: Annotated[int | None, doc(RANK)] = None
    prefill: Annotated[PhaseSummary, doc("steps called prefill")]
    decode: Annotated[PhaseSummary, doc("steps called decode")]
    mixed: Annotated[PhaseSummary, doc("steps serving prefill and decode together")]
    unknown: Annotated[PhaseSummary, doc("steps whose phase could not be told")]
    method: Annotated[PhaseMethod, doc(
        "how phases were told: `annotation` (the engine's step annotation), `shapes` (token counts from the "
        "GEMM shapes, split at their largest gap), `kernel_time` (a heuristic: at least twice the cheapest "
        "step's kernel time is prefill), `none` (no steps found)")]
    total_kernel_us: Annotated[float, doc("all kernel time of the trace")]
    outside_steps: Annotated[OutsideSteps, doc("kernels launched outside every step")]
    steps: Annotated[tuple[PhaseStep, ...], doc("every step, in trace order")]
    notes: Annotated[tuple[str, ...], doc("what to know (a heuristic used, phases not told apart, ...)")] = ()
    load_notes: Annotated[tuple[str, ...], doc(LOAD_NOTES)] = ()

    @property
    def phases(self) -> dict[str, PhaseSummary]:
        """Phase name -> its summary: ``prefill``, ``decode``, ``mixed``, ``unknown``."""
        return {"prefill": self.prefill, "decode": self.decode, "mixed": self.mixed, "unknown": self.unknown}
