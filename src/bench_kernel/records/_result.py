"""Everything measured about one callable: :class:`BenchResult`."""

from __future__ import annotations

from typing import Annotated, Any, Sequence

import msgspec

from bench_kernel.records._base import Record, derive, doc, finite, from_builtins
from bench_kernel.records._counters import CounterReport
from bench_kernel.records._measurement import Check, KernelStat, Measurement
from bench_kernel.records._notes import Note, notes_from
from bench_kernel.records._roofline import MeasuredRoofline, RooflineResult

__all__ = ["BenchResult", "RESULT_SCHEMA_VERSION", "PRIMARY_ORDER", "upgrade_result"]

#: The version of a stored or printed BenchResult. 2: notes are records (code, kind, text, data).
RESULT_SCHEMA_VERSION = 2
#: The method whose time speaks for a callable: the first of these that measured.
PRIMARY_ORDER = ("graph", "kernel", "events", "host")


#: Param values JSON holds as they are.
_LABELS = (str, int, float, bool, type(None))


def _label(v: Any) -> Any:
    """A param value as plain JSON: a list or dict of labels as it is, a numpy scalar as its number,
    anything else as its text."""
    try:
        return msgspec.to_builtins(v, enc_hook=_text)
    except (TypeError, ValueError, OverflowError):
        return str(v)


def _text(o: Any) -> Any:
    if hasattr(o, "item") and hasattr(o, "dtype") and getattr(o, "ndim", 0) == 0:
        return o.item()
    return str(o)


class BenchResult(Record, frozen=True):
    """Everything measured about one callable."""

    name: Annotated[str, doc("the case's name")]
    params: Annotated[dict[str, Any], doc("the case's parameters (shape axes, dtype, ...), as given; a value JSON cannot hold (a torch.dtype, an object) as its text")] = {}
    measurements: Annotated[dict[str, Measurement], doc("by method name: one per method asked for")] = {}
    kernels: Annotated[tuple[KernelStat, ...], doc("per-kernel breakdown of one call (the kernel method); empty without it")] = ()
    env: Annotated[dict[str, Any], doc("the machine: `device`, `backend` (`cuda`, `hip`, `cpu`), `python`, `platform`, `git_commit`, `torch`, `triton`, `cpu_threads` (torch's intra-op threads, where the measured code loaded torch); on a GPU also `device_index`, `sm_count`, `l2_bytes`, `memory_bytes`, `compute_capability`, `cuda`, `hip`, `driver`, NVML's `state_before` (`sm_clock_mhz`, `mem_clock_mhz`, `max_sm_clock_mhz`, `temperature_c`, `power_w`, `throttle_reasons`) and `state_after` (`sm_clock_mhz`, `temperature_c`, `throttle_reasons`), `smi`, `device_warmup` (what was done to bring the GPU to its working clock for this result or run: `action` `held`/`skipped`, `why`, `held_s`, `settled`, `sm_clock_before_mhz`, `sm_clock_after_mhz`, `windows`), `profiler_start_s` (seconds spent opening the process's first profiler session), `counting_s` (seconds counting work after timing); with rounds in a sweep, `rounds`")] = {}
    correct: Annotated[bool | None, doc("the output matched the reference; null without a reference. A wrong result has no time")] = None
    flops: Annotated[float | None, doc("FLOPs of one call, as given or counted")] = None
    bytes: Annotated[float | None, doc("minimal bytes moved by one call, as given or counted")] = None
    notes: Annotated[tuple[Note, ...], doc("what to know (`info`) or distrust (`warning`): fallbacks, throttling, counting, methods that disagree, ...")] = ()
    roofline: Annotated[RooflineResult | None, doc("the placement under the device's roofs (`--roofline`)")] = None
    counters: Annotated[CounterReport | None, doc("what the hardware counters measured for one call (`--counters`): counts only, never times")] = None
    measured_roofline: Annotated[MeasuredRoofline | None, doc("the counted work on the DRAM/L2/L1 roofline, beside the modelled point (`--counters`)")] = None
    check: Annotated[Check | None, doc("the correctness check against the reference, with the error measured (null: no reference)")] = None
    wall_s: Annotated[float | None, doc("wall time this result cost, seconds: loading the inputs, every method's warm-up and sampling, counting and placing")] = None
    schema_version: Annotated[int, doc("the record's own version (what the results store and `compare` read back)")] = RESULT_SCHEMA_VERSION
    # Derived:
    primary_method: Annotated[str | None, doc("derived: the method that speaks for the case: `graph`, else `kernel`, `events`, `host`")] = None
    time_us: Annotated[float | None, doc("derived: the primary method's median per call")] = None
    launch_overhead_us: Annotated[float | None, doc("derived: events − graph median: what launching from the host adds per call")] = None
    graph_gap_us: Annotated[float | None, doc("derived: graph − kernel median: idle device time between kernels inside a graph")] = None
    kernels_per_call: Annotated[float | None, doc("derived: kernel launches per call (memcpy/memset not counted); null without the kernel method")] = None
    achieved_tflops: Annotated[float | None, doc("derived: `flops` over `time_us`")] = None
    achieved_tbps: Annotated[float | None, doc("derived: `bytes` over `time_us`")] = None

    def __post_init__(self) -> None:
        if any(not isinstance(v, _LABELS) for v in self.params.values()):
            # Params are labels: the store keeps (and matches points by) the text of a value JSON
            # cannot hold, and CSV prints it; --json must say the same, not fail on the object.
            derive(self, params={k: v if isinstance(v, _LABELS) else _label(v) for k, v in self.params.items()})
        # A method that measured speaks even when its samples are damaged (NaN): its time is then
        # null, and a comparison names the damage instead of skipping the point.
        medians = {k: m.median_us for k, m in self.measurements.items() if m.ok}
        primary = next((m for m in PRIMARY_ORDER if m in medians), None)
        t = medians.get(primary) if primary else None
        e, g, k = medians.get("events"), medians.get("graph"), medians.get("kernel")
        derive(self, schema_version=RESULT_SCHEMA_VERSION, primary_method=primary, time_us=finite(t),
               launch_overhead_us=finite(e - g) if e is not None and g is not None else None,
               graph_gap_us=finite(g - k) if g is not None and k is not None else None,
               kernels_per_call=sum(x.count_per_call for x in self.kernels if x.kind == "kernel") if self.kernels else None,
               achieved_tflops=finite(self.flops / (t * 1e-6) / 1e12) if self.flops is not None and t else None,
               achieved_tbps=finite(self.bytes / (t * 1e-6) / 1e12) if self.bytes is not None and t else None)

    def __hash__(self) -> int:
        return hash((self.name, tuple(self.measurements)))

    def median_us(self, method: str) -> float | None:
        """The median per call of ``method`` (microseconds), None where it did not measure (NaN where
        it measured damaged samples: a comparison then says so)."""
        m = self.measurements.get(method)
        return m.median if m is not None and m.ok else None

    def with_work(self, *, flops: float | None, bytes: float | None, notes: Sequence[Note] = ()) -> "BenchResult":
        """This result with the work of one call (FLOP, bytes) set, and ``notes`` that say where it came from."""
        return msgspec.structs.replace(self, flops=flops, bytes=bytes, notes=self.notes + tuple(notes))

    def with_notes(self, *notes: Note) -> "BenchResult":
        """This result with ``notes`` added after its own."""
        return msgspec.structs.replace(self, notes=self.notes + tuple(notes))

    @classmethod
    def from_dict(cls, data: Any) -> "BenchResult":
        """A result as stored or printed, of this version or an older one (``upgrade_result``)."""
        return from_builtins(upgrade_result(data), cls)


def upgrade_result(d: dict[str, Any]) -> dict[str, Any]:
    """A result's JSON of an older ``schema_version`` in today's shape (a stored run is read as
    long as this bench-kernel knows its version; a newer one is refused with a ValueError).

    1 -> 2: notes were strings (each becomes a warning with code ``untyped``: its kind was never
    recorded); a placement's roofs did not name their source.
    """
    version = d.get("schema_version", 1)
    if not isinstance(version, int) or version > RESULT_SCHEMA_VERSION or version < 1:
        raise ValueError(f"BenchResult schema_version {version!r}; this bench-kernel reads 1 to {RESULT_SCHEMA_VERSION}")
    if version == RESULT_SCHEMA_VERSION:
        return d
    d = dict(d)
    d["notes"] = [n.to_dict() for n in notes_from(d.get("notes") or ())]
    d["measurements"] = {k: {**m, "notes": [n.to_dict() for n in notes_from(m.get("notes") or ())]}
                         for k, m in (d.get("measurements") or {}).items()}
    for key in ("roofline", "measured_roofline", "counters"):
        part = d.get(key)
        if isinstance(part, dict):
            part = {**part, "notes": [n.to_dict() for n in notes_from(part.get("notes") or ())]}
            if key == "roofline":
                part.setdefault("source", "spec")
                if isinstance(part.get("measured"), dict):
                    part["measured"] = {"source": "measured", **part["measured"]}
            d[key] = part
    d["schema_version"] = RESULT_SCHEMA_VERSION
    return d
