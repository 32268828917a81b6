"""The hierarchical roofline of counted work: the measured FLOPs over the bytes of each memory level
(DRAM, L2, L1), under that level's bandwidth ceiling, beside the point the model places.

Counts come from the hardware counters (``bench_kernel.counters``), the time from bench-kernel's own
method (graph, else kernel, events): a counter tool replays each kernel alone, caches flushed, so its
durations are not the call's. Ceilings are the peak table's (every figure sourced), else the cached
calibration's (``bench-kernel calibrate``): DRAM 4.8 TB/s spec and L1 33.45 TB/s derived on an H200; its L2
has no published figure and comes from calibration (11 TB/s measured, an upper estimate) when cached.

When the model's bytes or FLOPs differ from the counted ones by more than :data:`MODEL_TOLERANCE`, a
note names the likely cause, with the counts that point to it.
"""

from __future__ import annotations

from typing import Literal, Mapping

from bench_kernel.dtypes import peak_class
from bench_kernel.errors import DeviceError, UsageError
from bench_kernel.hardware import DeviceSpec, get_device, load_calibration
from bench_kernel.records import (
    Calibration,
    CounterReport,
    Level,
    LevelPoint,
    MeasuredRoofline,
    ModelCheck,
    Note,
    RoofSource,
    info,
    warning,
)

__all__ = ["LEVELS", "MODEL_TOLERANCE", "place_measured", "check_model"]

LEVELS: tuple[Level, ...] = ("dram", "l2", "l1")
#: Model and counts further apart than this (relative) get a note naming the likely cause.
MODEL_TOLERANCE = 0.25
#: Below this many bytes the fixed traffic of any launch (arguments, code, page tables) dominates.
SMALL_BYTES = 1 << 20
#: Below this many FLOPs a kernel's own bookkeeping on the FP units (index arithmetic) dominates: a
#: one-element add counts 2,048 FP32 FLOPs on an H200.
SMALL_FLOPS = 1e6
#: A second precision under this share of the counted FLOPs is bookkeeping, not worth a note.
MIXED_SHARE = 0.9








def _ceilings(spec: DeviceSpec, cal: Calibration | None) -> dict[Level, tuple[float, RoofSource]]:
    out: dict[Level, tuple[float, RoofSource]] = {"dram": (spec.memory_tbps, "spec")}
    if spec.l2_tbps:
        out["l2"] = (spec.l2_tbps, "spec")
    elif cal is not None and cal.l2_tbps:
        out["l2"] = (cal.l2_tbps, "measured")
    if spec.l1_tbps:
        out["l1"] = (spec.l1_tbps, "spec")
    return out


def _pct(ratio: float) -> str:
    return f"{ratio:.2f}x" if ratio >= 2 else f"{100 * ratio:.0f}%"


def check_model(quantity: Literal["bytes", "flops"], modelled: float | None, measured: float | None, evidence: Mapping[str, float]
                ) -> ModelCheck:
    """The model against the counts for ``quantity`` (``bytes`` or ``flops``), with the likely cause when
    they differ by more than :data:`MODEL_TOLERANCE`. ``evidence``: ``dram_write_bytes``,
    ``modelled_write_bytes`` (unknown: absent), ``l2_hit_rate_pct``, ``tensor_flops``."""
    check = ModelCheck(quantity, modelled, measured)
    r = check.ratio
    if r is None or abs(r - 1) <= MODEL_TOLERANCE:
        return check
    said = f"counted {quantity} are {_pct(r)} of the model"
    if quantity == "bytes":
        if max(modelled or 0, measured or 0) < SMALL_BYTES:
            why = "under 1 MiB, the fixed traffic of any launch (arguments, code, page tables) dominates"
        elif r > 1:
            hit = evidence.get("l2_hit_rate_pct")
            why = ("data re-read from DRAM (tiles fetched more than once; the reuse does not fit in L2"
                   + (f", L2 hit rate {hit:.0f}%" if hit is not None else "") + ") or traffic the model omits "
                   "(another kernel, a workspace, padding)")
        else:
            why = "L2-resident data: inputs already in L2, or written data still in L2 when the kernel ended"
            writes = evidence.get("dram_write_bytes")
            if writes is not None and measured and writes < 0.5 * measured:
                why += f" (only {writes / 1e6:.3g} MB of writes reached DRAM)"
    elif max(modelled or 0, measured or 0) < SMALL_FLOPS:
        why = "under a million FLOPs, the kernel's own bookkeeping on the FP units (index arithmetic) dominates"
    elif r > 1:
        why = ("masked or padded work: tiles padded to the tensor-core shape, masked elements computed and "
               "discarded (causal attention), or work the model leaves out (softmax, epilogue)")
    else:
        why = ("work the model counts that does not run (skipped causal or sparse blocks), or FLOPs on units the "
               "counters do not report here (integer, special-function, a precision without a metric on this chip)")
    return ModelCheck(quantity, modelled, measured, f"{said}: likely {why}")


def place_measured(report: CounterReport, time_us: float, *, device: str | DeviceSpec, name: str | None = None,
                   time_method: str = "graph", model_flops: float | None = None, model_bytes: float | None = None,
                   model_dtype: str | None = None, calibration: Calibration | bool = True) -> MeasuredRoofline:
    """Place the counted work of ``report`` (one call, every kernel summed) timed at ``time_us`` (bench-kernel's
    ``time_method``) on ``device``'s hierarchical roofline, beside the model's ``model_flops``/``model_bytes``.

    UsageError for a report without counts or a time that is not > 0; DeviceError for an unknown device.
    """
    if not report.ok:
        raise UsageError(f"no counts to place: {report.error or 'the report holds no kernel'}")
    if not (time_us > 0):
        raise UsageError(f"time_us must be > 0, got {time_us!r}")
    spec = get_device(device)
    cal = calibration if isinstance(calibration, Calibration) else (
        load_calibration(spec.name) if calibration else None)
    total = report.total
    assert total is not None  # report.ok: it holds kernels
    by_precision = total.flops_by_precision()
    flops = sum(by_precision.values())
    notes: list[Note] = []
    dtype = peak_class(max(by_precision, key=by_precision.__getitem__)) if by_precision else peak_class(
        model_dtype or "fp32")
    if not flops:
        notes.append(info("zero-flops-counted", "0 FLOPs counted: pure data movement, placed by its bytes only"))
    elif by_precision[max(by_precision, key=by_precision.__getitem__)] / flops < MIXED_SHARE:
        share = by_precision[max(by_precision, key=by_precision.__getitem__)] / flops
        notes.append(info("mixed-precisions", f"mixed precisions ({', '.join(sorted(by_precision))}): the roof is "
                          f"{dtype}'s, {100 * share:.0f}% of the counted FLOPs", share=share))
    peak: float | None
    peak_source: RoofSource | None
    try:
        peak, peak_source = spec.peak(dtype), "spec"
    except DeviceError:
        peak, peak_source = None, None
    ceilings = _ceilings(spec, cal)
    level_bytes: dict[Level, float | None] = {"dram": total.dram_bytes, "l2": total.l2_bytes, "l1": total.l1_bytes}
    levels = tuple(LevelPoint(level, b, flops / b if flops and b else None, b / time_us / 1e6,
                              *(ceilings.get(level) or (None, None)))
                   for level, b in level_bytes.items() if b)
    missing = [level for level in LEVELS if level not in ceilings]
    if missing:
        notes.append(info("no-ceiling", f"no ceiling for {', '.join(missing)}: no figure in the peak table and no "
                          f"cached calibration (run 'bench-kernel calibrate')", levels=missing))
    evidence = {k: v for k, v in (("dram_write_bytes", total.dram_write_bytes),
                                  ("l2_hit_rate_pct", total.l2_hit_rate_pct)) if v is not None}
    checks = (check_model("bytes", model_bytes, total.dram_bytes, evidence),
              check_model("flops", model_flops, total.flops, evidence))
    notes += [warning(f"model-{c.quantity}-differs", c.note, ratio=c.ratio) for c in checks if c.note]
    return MeasuredRoofline(name=name, device=spec.name, dtype=dtype, time_us=time_us, time_method=time_method,
                            flops=flops, flops_by_precision=by_precision,
                            tensor_flops=sum(total.tensor_flops.values()), compute_peak_tflops=peak,
                            compute_source=peak_source, levels=levels, checks=checks, model_flops=model_flops,
                            model_bytes=model_bytes, notes=tuple(notes))
