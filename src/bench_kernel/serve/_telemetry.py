"""GPU telemetry of a local server: NVML (``nvidia-ml-py``) or amdsmi, sampled every 100 ms while a
load point runs, so that a server that throttles under load is seen beside its latencies.

Which GPUs: those of the machine the client runs on, when the server is there too (``--launch``, or
a URL on this host). The management libraries number every GPU of the machine and ignore
``CUDA_VISIBLE_DEVICES``; when it is set (to indices or ``GPU-`` UUIDs, as the launched server will
see it) only those are read, and indices are taken in NVML's PCI order, which is CUDA's only under
``CUDA_DEVICE_ORDER=PCI_BUS_ID`` (give UUIDs to be sure on a machine of mixed GPUs).

Per sample and GPU: SM clock (MHz), power and its enforced limit (W), memory used (bytes),
utilization (%: the fraction of the last sample period in which a kernel ran, NVML's definition),
temperature (C) and the clock-event (throttle) reasons. Nothing here may fail a run: a library
that is absent or finds no GPU gives a note and no telemetry; an unreadable value is an absent one.
"""

from __future__ import annotations

import os
import threading
import time
from typing import Any, Callable, Sequence

from bench_kernel.records import GpuTelemetry, Note, warning
from bench_kernel.threads import start_background

__all__ = ["Sampler", "open_gpus", "GpuReader", "telemetry_summary", "SAMPLE_INTERVAL_S", "FIELDS"]

#: Seconds between samples: NVML's utilization counter itself is averaged over 1/6 s to 1 s, and a
#: power-capped clock moves within ~100 ms; 10 readings of 6 values a second cost the client < 1% of a core.
SAMPLE_INTERVAL_S = 0.1
#: The values read, in the order tables show them.
FIELDS = ("sm_clock_mhz", "power_w", "power_limit_w", "memory_used_bytes", "utilization_pct", "temperature_c")
#: Samples kept in a series per GPU; more are thinned evenly (the summary uses every sample).
MAX_SERIES = 3000

#: A GPU: its label, and a reader returning one sample (field -> value, absent when unreadable).
GpuReader = tuple[str, Callable[[], dict[str, Any]]]


def _visible() -> list[str] | None:
    v = os.environ.get("CUDA_VISIBLE_DEVICES")
    if v is None or not v.strip():
        return None
    return [p.strip() for p in v.split(",") if p.strip()]


def _nvml_gpus() -> list[GpuReader]:
    import pynvml

    pynvml.nvmlInit()
    n = pynvml.nvmlDeviceGetCount()
    handles = [(i, pynvml.nvmlDeviceGetHandleByIndex(i)) for i in range(n)]
    want = _visible()

    def text(x: Any) -> str:
        return x.decode() if isinstance(x, bytes) else str(x)

    out: list[GpuReader] = []
    for i, h in handles:
        uuid = text(pynvml.nvmlDeviceGetUUID(h))
        if want is not None and str(i) not in want and uuid not in want:
            continue
        label = f"{i}: {text(pynvml.nvmlDeviceGetName(h))} {uuid}"
        reasons = {"nvmlClocksThrottleReasonSwPowerCap": "sw_power_cap",
                   "nvmlClocksThrottleReasonHwSlowdown": "hw_slowdown",
                   "nvmlClocksThrottleReasonSwThermalSlowdown": "sw_thermal",
                   "nvmlClocksThrottleReasonHwThermalSlowdown": "hw_thermal",
                   "nvmlClocksThrottleReasonHwPowerBrakeSlowdown": "hw_power_brake"}
        event_reasons = getattr(pynvml, "nvmlDeviceGetCurrentClocksEventReasons", None) or \
            pynvml.nvmlDeviceGetCurrentClocksThrottleReasons

        def read(h: Any = h, reasons: dict[str, str] = reasons, event_reasons: Any = event_reasons) -> dict[str, Any]:
            reads = {
                "sm_clock_mhz": lambda: float(pynvml.nvmlDeviceGetClockInfo(h, pynvml.NVML_CLOCK_SM)),
                "power_w": lambda: pynvml.nvmlDeviceGetPowerUsage(h) / 1000.0,
                "power_limit_w": lambda: pynvml.nvmlDeviceGetEnforcedPowerLimit(h) / 1000.0,
                "memory_used_bytes": lambda: float(pynvml.nvmlDeviceGetMemoryInfo(h).used),
                "utilization_pct": lambda: float(pynvml.nvmlDeviceGetUtilizationRates(h).gpu),
                "temperature_c": lambda: float(pynvml.nvmlDeviceGetTemperature(h, pynvml.NVML_TEMPERATURE_GPU)),
                "throttle": lambda: [r for a, r in reasons.items() if event_reasons(h) & getattr(pynvml, a, 0)],
            }
            return _read_all(reads)

        out.append((label, read))
    return out


def _amd_gpus() -> list[GpuReader]:
    import amdsmi

    from bench_kernel.measure import amd_clock_mhz, amd_power_w

    amdsmi.amdsmi_init()
    out: list[GpuReader] = []
    want = _visible() if os.environ.get("HIP_VISIBLE_DEVICES") is None else \
        [p.strip() for p in os.environ["HIP_VISIBLE_DEVICES"].split(",") if p.strip()]
    for i, h in enumerate(amdsmi.amdsmi_get_processor_handles()):
        if want is not None and str(i) not in want:
            continue

        def read(h: Any = h) -> dict[str, Any]:
            reads = {
                "sm_clock_mhz": lambda: amd_clock_mhz(amdsmi.amdsmi_get_clock_info(h, amdsmi.AmdSmiClkType.GFX))[0],
                "power_w": lambda: amd_power_w(amdsmi.amdsmi_get_power_info(h)),
                "power_limit_w": lambda: float(amdsmi.amdsmi_get_power_cap_info(h)["power_cap"]) / 1e6,
                "memory_used_bytes": lambda: float(amdsmi.amdsmi_get_gpu_vram_usage(h)["vram_used"]) * 2 ** 20,
                "utilization_pct": lambda: float(amdsmi.amdsmi_get_gpu_activity(h)["gfx_activity"]),
                "temperature_c": lambda: float(amdsmi.amdsmi_get_temp_metric(
                    h, amdsmi.AmdSmiTemperatureType.HOTSPOT, amdsmi.AmdSmiTemperatureMetric.CURRENT)),
            }
            return _read_all(reads)

        out.append((f"{i}: AMD GPU {amdsmi.amdsmi_get_gpu_device_bdf(h)}", read))
    return out


def _read_all(reads: dict[str, Callable[[], Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, read in reads.items():
        try:
            v = read()
        except Exception:  # noqa: BLE001 - one unreadable value must not hide the others
            continue
        if v is not None:
            out[key] = v
    return out


def open_gpus() -> tuple[list[GpuReader], str | None]:
    """The GPUs to read and, when there are none, why (one line): NVML first, then amdsmi."""
    why = []
    for name, opener, pkg in (("NVML", _nvml_gpus, "nvidia-ml-py"), ("amdsmi", _amd_gpus, "amdsmi")):
        try:
            gpus = opener()
        except ImportError:
            why.append(f"{name} is not installed (pip install {pkg})")
            continue
        except Exception as e:  # noqa: BLE001 - no driver, no device: no telemetry, no failure
            why.append(f"{name}: {type(e).__name__}: {e}")
            continue
        if gpus:
            return gpus, None
        why.append(f"{name} sees no GPU" + (" among CUDA_VISIBLE_DEVICES" if _visible() else ""))
    return [], "no GPU telemetry: " + "; ".join(why)


class Sampler:
    """Read every GPU every ``interval_s`` in a thread, from :meth:`start` to :meth:`stop`;
    :meth:`stop` gives times in seconds from ``t0`` (``time.perf_counter``'s clock)."""

    def __init__(self, gpus: Sequence[GpuReader], interval_s: float = SAMPLE_INTERVAL_S):
        self.gpus = list(gpus)
        self.interval_s = interval_s
        self.samples: list[list[tuple[float, dict[str, Any]]]] = [[] for _ in self.gpus]
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="bench-kernel-gpu-telemetry", daemon=True)

    def _once(self) -> None:
        for out, (_, read) in zip(self.samples, self.gpus):
            out.append((time.perf_counter(), read()))

    def _loop(self) -> None:
        self._once()
        while not self._stop.wait(self.interval_s):
            self._once()

    def start(self) -> "Sampler":
        start_background(self._thread)
        return self

    def stop(self, t0: float) -> tuple[GpuTelemetry, ...]:
        self._stop.set()
        self._thread.join(timeout=5)
        return tuple(telemetry_summary(label, [(t - t0, v) for t, v in s], self.interval_s)
                     for (label, _), s in zip(self.gpus, self.samples))


def _stats(values: list[float]) -> dict[str, float | None]:
    if not values:
        return {"min": None, "mean": None, "p50": None, "max": None}
    v = sorted(values)
    mid = len(v) // 2
    p50 = v[mid] if len(v) % 2 else (v[mid - 1] + v[mid]) / 2
    return {"min": v[0], "mean": sum(v) / len(v), "p50": p50, "max": v[-1]}


def telemetry_summary(label: str, samples: Sequence[tuple[float, dict[str, Any]]], interval_s: float) -> GpuTelemetry:
    """One GPU's samples as a summary per field, a series and the throttle fractions, with notes."""
    notes: list[Note] = []
    summary = {f: _stats([float(s[f]) for _, s in samples if isinstance(s.get(f), (int, float))]) for f in FIELDS}
    step = max(1, -(-len(samples) // MAX_SERIES))
    kept = samples[::step]
    series: dict[str, list[float | None]] = {"t_s": [round(t, 4) for t, _ in kept]}
    for f in FIELDS:
        series[f] = [s.get(f) for _, s in kept]
    reasons: dict[str, int] = {}
    for _, s in samples:
        for r in s.get("throttle") or ():
            reasons[r] = reasons.get(r, 0) + 1
    throttle = {r: n / len(samples) for r, n in sorted(reasons.items())} if samples else {}
    active = {r: x for r, x in throttle.items() if x >= 0.05}
    clk = summary["sm_clock_mhz"]
    if active:
        notes.append(warning("gpu-throttled", f"GPU {label}: clock-event reasons active: " +
                             ", ".join(f"{r} in {x:.0%} of samples" for r, x in active.items()) +
                             (f"; SM clock {clk['min']:.0f}-{clk['max']:.0f} MHz" if clk["min"] is not None else ""),
                             reasons=active, sm_clock_min_mhz=clk["min"], sm_clock_max_mhz=clk["max"]))
    elif clk["min"] is not None and clk["max"] and clk["min"] < 0.85 * clk["max"]:
        notes.append(warning("gpu-clock-swing", f"GPU {label}: the SM clock swung {clk['min']:.0f}-{clk['max']:.0f} MHz "
                             f"under the load", sm_clock_min_mhz=clk["min"], sm_clock_max_mhz=clk["max"]))
    return GpuTelemetry(gpu=label, samples=len(samples), interval_s=interval_s, summary=summary, series=series,
                        throttle=throttle, notes=tuple(notes))
