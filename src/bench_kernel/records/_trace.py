"""The records of a trace's analyses (``bench_kernel.trace``): a Python frame and a step of a trace,
the kernel inventory (``inventory``), what changed between two traces (``diff``) and graph-replayed
kernels attributed from their capture (``attribute``). Times are microseconds, on the trace's clock.

Each analysis names the trace(s) it read and carries what the loader left out or repaired
(``load_notes``): a record read on its own still says where it came from and what to distrust.
"""

from __future__ import annotations

from typing import Annotated, Literal

from bench_kernel.records._base import Record, doc
from bench_kernel.records._kernels import Category, Family

__all__ = ["MODULE_PREFIX", "Frame", "Phase", "Step", "InventoryRow", "CountTime", "MemoryOpRow", "Inventory",
           "GroupBy", "DiffRow", "DiffStatus", "TraceDiff", "AttributedKernel", "Attribution", "TRACE_NAME",
           "RANK", "LOAD_NOTES", "UNSURE_BELOW"]

#: How the profiler names the frame of an nn.Module call (``with_modules``): "nn.Module: LlamaMLP_0".
MODULE_PREFIX = "nn.Module: "

#: Matches below this confidence are counted (and flagged) as unsure by ``attribute``.
UNSURE_BELOW = 0.5

#: The meanings shared by the trace fields of every analysis.
TRACE_NAME = "the trace file"
RANK = "the trace's rank: its `distributedInfo.rank`, else `rank<N>` in its file name; null: neither says"
LOAD_NOTES = "what the loader left out or repaired, one line each (named by file when there are several traces)"


class Frame(Record, frozen=True):
    """One Python frame of a call stack."""

    file: Annotated[str | None, doc("source file as the profiler recorded it; null for built-ins and module "
                                    "markers")]
    line: Annotated[int | None, doc("1-based line number; null with no file")]
    function: Annotated[str, doc("function name; for a module marker the whole text, e.g. "
                                 "`nn.Module: LlamaMLP_0`")]

    @property
    def is_module(self) -> bool:
        """True for the ``nn.Module: X`` markers the profiler adds with ``with_modules``."""
        return self.file is None and self.function.startswith(MODULE_PREFIX)


Phase = Literal["prefill", "decode", "mixed", "unknown"]


class Step(Record, frozen=True):
    """One iteration of the workload (an engine step, a profiler step, a model forward)."""

    index: Annotated[int, doc("its order in the trace, from 0")]
    name: Annotated[str, doc("the annotation or module that made it a step")]
    start_us: Annotated[float, doc("start of its host-side interval (a kernel belongs to the step whose "
                                   "interval holds its launch)")]
    end_us: Annotated[float, doc("end of its host-side interval")]
    phase: Annotated[Phase | None, doc(
        "what it served, from its annotation or from `phases`; `mixed`: prefill and decode together; null: not "
        "decided (`phases` says `unknown`)")]
    source: Annotated[str, doc("the step rule that found it (`vllm`, `sglang`, `profiler_step`, "
                               "`model_module`, ...; `data/steps.json`)")]
    fields: Annotated[dict[str, str], doc("what the rule's regex read from the name (batch size, token "
                                          "count, ...)")]


# -- inventory ----------------------------------------------------------------------------------

GroupBy = Literal["name", "category", "family"]


class InventoryRow(Record, frozen=True):
    """One group of kernels: one name, category or family."""

    name: Annotated[str, doc("the group: a full kernel name (`--by name`), else the category or family")]
    short: Annotated[str, doc("its short name (the category or family itself when grouped by one)")]
    family: Annotated[Family | Literal[""], doc("kernel family; empty when grouped by category")]
    category: Annotated[Category | Literal[""], doc("kernel category; empty when grouped by family")]
    count: Annotated[float, doc("executions (a mean per step with `--per-step`)")]
    total_us: Annotated[float, doc("summed duration (per step with `--per-step`)")]
    avg_us: Annotated[float, doc("mean duration of one execution")]
    min_us: Annotated[float, doc("shortest execution")]
    max_us: Annotated[float, doc("longest execution")]
    pct: Annotated[float, doc("share of `total_kernel_us`, percent")]


class CountTime(Record, frozen=True):
    """Kernels and their summed time."""

    count: Annotated[float, doc("kernels (a mean per step with `--per-step`)")]
    total_us: Annotated[float, doc("their summed duration")]


class MemoryOpRow(Record, frozen=True):
    """Memcpy/memset activities of one name: device work, but not kernels."""

    name: Annotated[str, doc("the runtime activity (`Memcpy HtoD (Pageable -> Device)`, `Memset (Device)`)")]
    count: Annotated[int, doc("how many")]
    total_us: Annotated[float, doc("summed duration")]
    bytes: Annotated[int, doc("bytes moved or set (0 where the trace records none)")]


class Inventory(Record, frozen=True, kw_only=True):
    """The kernel inventory of one trace: count and time per kernel name, category or family.
    Memcpy/memset are listed apart (`memory_ops`), so `total_kernel_us` is the kernels' time only, and
    the rows plus `rest` sum to it."""

    trace: Annotated[str, doc(TRACE_NAME)]
    rank: Annotated[int | None, doc(RANK)] = None
    device: Annotated[str | None, doc("the device the trace names (its `deviceProperties`)")] = None
    by: Annotated[GroupBy, doc("what a row groups (`--by`)")]
    kernel_count: Annotated[float, doc("kernels counted (a mean per step with `--per-step`)")]
    total_kernel_us: Annotated[float, doc("their summed duration (per step with `--per-step`): the rows' "
                                          "totals plus `rest`")]
    per_step: Annotated[bool, doc("counts and times are divided by `steps` (`--per-step`)")]
    steps: Annotated[int | None, doc("steps found and divided by (`--per-step`); null without")]
    kernels: Annotated[tuple[InventoryRow, ...], doc("the groups, longest total first (at most `--top`)")]
    rest: Annotated[CountTime, doc("what `--top` left out (zero when not limited)")]
    outside_steps: Annotated[CountTime, doc("kernels launched outside every step, left out with `--per-step` "
                                            "(zero without)")]
    memory_ops: Annotated[tuple[MemoryOpRow, ...], doc("memcpy/memset, longest first, apart from the kernels")]
    load_notes: Annotated[tuple[str, ...], doc(LOAD_NOTES)] = ()


# -- diff -----------------------------------------------------------------------------------------

DiffStatus = Literal["unchanged", "changed", "new", "vanished"]


class DiffRow(Record, frozen=True):
    """One category or kernel short name, in trace A and trace B."""

    key: Annotated[str, doc("the category, or the kernel's short name (made distinct over both traces)")]
    status: Annotated[DiffStatus, doc("`unchanged`: same count and time; `new`: only in B; `vanished`: only "
                                      "in A")]
    count_a: Annotated[float, doc("executions in A (a mean per step when `per_step`)")]
    count_b: Annotated[float, doc("executions in B (a mean per step when `per_step`)")]
    total_us_a: Annotated[float, doc("time in A")]
    total_us_b: Annotated[float, doc("time in B")]
    delta_us: Annotated[float, doc("`total_us_b` − `total_us_a`")]
    delta_pct: Annotated[float | None, doc("`delta_us` relative to A's time, percent; null for a kernel new in "
                                           "B")]


class TraceDiff(Record, frozen=True, kw_only=True):
    """What changed from trace A to trace B, per kernel category and per kernel, largest change
    first. Deltas are B − A; when both traces have steps, counts and times are per step (traces of
    different lengths compare) and kernels outside every step are left out of both. Each list's
    deltas sum to `delta_us`."""

    trace_a: Annotated[str, doc("trace A, the baseline")]
    trace_b: Annotated[str, doc("trace B")]
    per_step: Annotated[bool, doc("counts and times are per step (both traces have steps)")]
    steps_a: Annotated[int | None, doc("A's steps (null unless `per_step`)")]
    steps_b: Annotated[int | None, doc("B's steps (null unless `per_step`)")]
    total_us_a: Annotated[float, doc("A's kernel time")]
    total_us_b: Annotated[float, doc("B's kernel time")]
    delta_us: Annotated[float, doc("`total_us_b` − `total_us_a`")]
    categories: Annotated[tuple[DiffRow, ...], doc("per kernel category, largest change first")]
    kernels: Annotated[tuple[DiffRow, ...], doc("per kernel short name, largest change first")]
    notes: Annotated[tuple[str, ...], doc("what to know (totals not normalised, ...)")] = ()
    load_notes: Annotated[tuple[str, ...], doc(LOAD_NOTES)] = ()


# -- attribute ------------------------------------------------------------------------------------


class AttributedKernel(Record, frozen=True):
    """One kernel replayed from a graph, and what the reference trace says launched it."""

    launch: Annotated[int, doc("which graph launch replayed it (from 0, in time order)")]
    pos: Annotated[int, doc("its position within that replay")]
    kernel_index: Annotated[int, doc("its index among the graph trace's kernels (start-time order)")]
    name: Annotated[str, doc("kernel name")]
    short: Annotated[str, doc("its short name")]
    dur_us: Annotated[float, doc("duration")]
    matched: Annotated[bool, doc("a reference kernel of the same name was aligned with it")]
    op: Annotated[str | None, doc("the CPU op that launched it when captured; null when unmatched or none")]
    module: Annotated[str | None, doc("the innermost `nn.Module` around the reference launch (e.g. "
                                      "`LlamaAttention_3`), if recorded")]
    stack: Annotated[tuple[Frame, ...], doc("the Python stack of the reference launch, outermost first "
                                            "(empty when unmatched)")]
    confidence: Annotated[float, doc(
        "0-1: the share of the (up to four) matched pairs beside it in the alignment that agree with it; 0 "
        "when unmatched")]
    op_index: Annotated[int | None, doc("the op's index among the reference trace's ops (its shapes, for "
                                        "`ops --capture`); null when unmatched")] = None


class Attribution(Record, frozen=True, kw_only=True):
    """The kernels a graph trace replayed, each given the op, module and Python stack of the launch
    it was aligned with in a reference trace (the graph's capture, or an eager run of the same
    model). A kernel is matched only by an equal name, never by position."""

    graph_trace: Annotated[str, doc("the trace with the graph replays")]
    capture_trace: Annotated[str, doc("the reference: the capture (or eager) trace")]
    reference: Annotated[Literal["capture", "eager"], doc(
        "`capture`: the launches inside its stream captures; `eager`: its executed kernels")]
    region: Annotated[Literal["captures", "module forwards", "whole trace"], doc(
        "the part of the reference matched: its captures, each top-level `nn.Module` call, or the whole trace "
        "(no module markers: kernels outside the model forward may match)")]
    reference_kernels: Annotated[int, doc("kernels in the reference windows")]
    reference_named: Annotated[int, doc("of them, those whose name is known (a CUDA capture records none)")]
    graph_launches: Annotated[int, doc("graph launches in the graph trace")]
    replayed_kernels: Annotated[int, doc("kernels they replayed")]
    matched: Annotated[int, doc("of them, matched to a reference kernel")]
    match_rate: Annotated[float, doc("`matched` / `replayed_kernels` (0 when nothing was replayed)")]
    unsure: Annotated[int, doc(f"matches with a confidence below {UNSURE_BELOW:g} (their op and stack are a "
                               f"guess)")]
    kernels: Annotated[tuple[AttributedKernel, ...], doc("every replayed kernel, in replay order")]
    notes: Annotated[tuple[str, ...], doc("what to know")] = ()
    load_notes: Annotated[tuple[str, ...], doc(LOAD_NOTES)] = ()
