"""The device's management interface: SM clock, temperature, power (NVML on NVIDIA, amdsmi on AMD).

Which device. torch's index is not the management library's: NVML and amdsmi number every GPU of
the machine and ignore ``CUDA_VISIBLE_DEVICES``/``HIP_VISIBLE_DEVICES``, so under
``CUDA_VISIBLE_DEVICES=3`` torch's device 0 is NVML's device 3, and looking NVML up by torch's
index reads another GPU's clock. The device is found by what both sides know about it:
  1. its PCI address, built from torch's properties (``pci_domain_id``, ``pci_bus_id``,
     ``pci_device_id`` -> ``0000:06:00.0``, CUDA's own ``cudaDeviceGetPCIBusId`` layout) and looked
     up with ``nvmlDeviceGetHandleByPciBusId_v2``, or without ``_v2`` where nvidia-ml-py lacks it
     (the H200 image's does: the first GPU run fell back to the UUID) (amdsmi: the processor whose
     BDF matches);
  2. else its UUID (torch's ``uuid`` -> ``nvmlDeviceGetHandleByUUID("GPU-...")``): a UUID is the
     same everywhere, where an address may be virtualised differently (on the project's H200 VM
     torch's ``pci_bus_id=0, pci_device_id=6`` and NVML's ``00000000:00:06.0`` agree);
  3. else torch's index, with a note (``Monitor.lookup``) that it may be another GPU.
A PCI match is checked against the UUID where both are known: a wrong GPU is worse than none.

amdsmi support is written from its documentation (``amdsmi_get_clock_info`` returns ``clk``,
``min_clk``, ``max_clk`` since ROCm 6, ``cur_clk`` before) and has not run on AMD hardware here:
AMD runs get clocks (and clock-aware verdicts) only where it works, and nothing fails where it does not.
Nothing here may fail a measurement: an unreadable value is an absent one.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any, Callable, Sequence

__all__ = ["Monitor", "monitor", "pci_bus_id", "amd_clock_mhz", "amd_power_w"]


def pci_bus_id(domain: int, bus: int, device: int) -> str:
    """``domain:bus:device.0`` in hex, as ``cudaDeviceGetPCIBusId`` and NVML write it (8-digit domain)."""
    return f"{domain:08x}:{bus:02x}:{device:02x}.0"


def _text(x: Any) -> str:
    return x.decode() if isinstance(x, bytes) else str(x)


def _mhz(x: Any) -> float | None:
    """A clock value as amdsmi gives it (an int, or "N/A" where unsupported) -> MHz or None."""
    return float(x) if isinstance(x, (int, float)) and not isinstance(x, bool) and x > 0 else None


def amd_clock_mhz(info: dict[str, Any]) -> tuple[float | None, float | None]:
    """(current, max) MHz from ``amdsmi_get_clock_info``'s dict: ``clk``/``max_clk`` (ROCm 6+) or
    ``cur_clk``/``max_clk`` (ROCm 5)."""
    return _mhz(info.get("clk", info.get("cur_clk"))), _mhz(info.get("max_clk"))


def amd_power_w(info: dict[str, Any]) -> float | None:
    """Socket power (W) from ``amdsmi_get_power_info``'s dict (current, else average: older ROCm)."""
    for key in ("current_socket_power", "average_socket_power"):
        v = info.get(key)
        if isinstance(v, (int, float)) and not isinstance(v, bool) and v > 0:
            return float(v)
    return None


@dataclass(frozen=True)
class Monitor:
    """Readers of one device's state; each returns None when it cannot read."""

    backend: str  # "nvml" | "amdsmi"
    #: how the device was found: "pci 00000000:06:00.0", "uuid GPU-...", or "index 0 (...)" with why
    lookup: str
    sm_clock: Callable[[], float | None]
    readers: dict[str, Callable[[], Any]]

    def state(self, keys: Sequence[str] | None = None) -> dict[str, Any]:
        """Every readable value (``sm_clock_mhz``, ``max_sm_clock_mhz``, ``temperature_c``, ...), or
        those of ``keys`` only (each is a call into NVML or amdsmi, ~0.2 ms on the H200)."""
        out: dict[str, Any] = {}
        for key, read in self.readers.items():
            if keys is not None and key not in keys:
                continue
            try:
                v = read()
            except Exception:  # noqa: BLE001 - one unreadable counter must not hide the others
                continue
            if v is not None:
                out[key] = v
        return out


def _safe(read: Callable[[], Any]) -> Callable[[], Any]:
    def wrapped() -> Any:
        try:
            return read()
        except Exception:  # noqa: BLE001 - a failed reading is an absent one
            return None
    return wrapped


def _torch_ids(index: int) -> tuple[str | None, str | None]:
    """(PCI bus id, UUID) of torch's device ``index``, each None where torch does not say."""
    try:
        import torch

        p = torch.cuda.get_device_properties(index)
    except Exception:  # noqa: BLE001
        return None, None
    pci = None
    if all(isinstance(getattr(p, k, None), int) for k in ("pci_domain_id", "pci_bus_id", "pci_device_id")):
        # torch's stub lacks the pci_* properties its CUDA builds have (torch.numa ignores it the same way)
        pci = pci_bus_id(p.pci_domain_id, p.pci_bus_id, p.pci_device_id)  # type: ignore[attr-defined]
    uuid = str(getattr(p, "uuid", "") or "") or None
    return pci, uuid


def _nvml(index: int) -> Monitor | None:
    import pynvml

    pynvml.nvmlInit()
    pci, uuid = _torch_ids(index)
    handle, lookup = None, None
    if pci is not None:
        try:
            by_pci = getattr(pynvml, "nvmlDeviceGetHandleByPciBusId_v2", None) or pynvml.nvmlDeviceGetHandleByPciBusId
            h = by_pci(pci)
            same = uuid is None or _text(pynvml.nvmlDeviceGetUUID(h)).removeprefix("GPU-") == uuid.removeprefix("GPU-")
            if same:
                handle, lookup = h, f"pci {pci}"
        except Exception:  # noqa: BLE001 - not found: try the UUID
            pass
    if handle is None and uuid is not None:
        try:
            handle = pynvml.nvmlDeviceGetHandleByUUID(uuid if uuid.startswith("GPU-") else f"GPU-{uuid}")
            lookup = f"uuid {uuid}" + (f" (no NVML device at pci {pci})" if pci else "")
        except Exception:  # noqa: BLE001
            handle = None
    if handle is None:
        handle = pynvml.nvmlDeviceGetHandleByIndex(index)
        lookup = (f"index {index}: neither torch's PCI address ({pci}) nor its UUID ({uuid}) found the device "
                  f"in NVML; under CUDA_VISIBLE_DEVICES this may be another GPU's clock")
    h = handle
    sm = _safe(lambda: float(pynvml.nvmlDeviceGetClockInfo(h, pynvml.NVML_CLOCK_SM)))
    readers = {
        "sm_clock_mhz": lambda: pynvml.nvmlDeviceGetClockInfo(h, pynvml.NVML_CLOCK_SM),
        "mem_clock_mhz": lambda: pynvml.nvmlDeviceGetClockInfo(h, pynvml.NVML_CLOCK_MEM),
        "max_sm_clock_mhz": lambda: pynvml.nvmlDeviceGetMaxClockInfo(h, pynvml.NVML_CLOCK_SM),
        "temperature_c": lambda: pynvml.nvmlDeviceGetTemperature(h, pynvml.NVML_TEMPERATURE_GPU),
        "power_w": lambda: pynvml.nvmlDeviceGetPowerUsage(h) / 1000.0,
        "throttle_reasons": lambda: _throttle_reasons(pynvml, h),
    }
    return Monitor("nvml", lookup or "", sm, readers)


def _throttle_reasons(pynvml: Any, handle: Any) -> list[str]:
    mask = pynvml.nvmlDeviceGetCurrentClocksEventReasons(handle) if hasattr(
        pynvml, "nvmlDeviceGetCurrentClocksEventReasons") else pynvml.nvmlDeviceGetCurrentClocksThrottleReasons(handle)
    names = {
        "nvmlClocksThrottleReasonSwPowerCap": "sw_power_cap",
        "nvmlClocksThrottleReasonHwSlowdown": "hw_slowdown",
        "nvmlClocksThrottleReasonSwThermalSlowdown": "sw_thermal",
        "nvmlClocksThrottleReasonHwThermalSlowdown": "hw_thermal",
        "nvmlClocksThrottleReasonHwPowerBrakeSlowdown": "hw_power_brake",
    }
    return [label for attr, label in names.items() if mask & getattr(pynvml, attr, 0)]


def _amdsmi(index: int) -> Monitor | None:
    import amdsmi

    amdsmi.amdsmi_init()
    pci, _uuid = _torch_ids(index)
    handles = amdsmi.amdsmi_get_processor_handles()
    handle, lookup = None, None
    if pci is not None:
        want = pci.split(":", 1)[1]  # bus:device.function: amdsmi writes a 4-digit domain
        for h in handles:
            try:
                if _text(amdsmi.amdsmi_get_gpu_device_bdf(h)).lower().endswith(want):
                    handle, lookup = h, f"pci {pci}"
                    break
            except Exception:  # noqa: BLE001
                continue
    if handle is None:
        if index >= len(handles):
            return None
        handle = handles[index]
        lookup = f"index {index}: torch's PCI address ({pci}) matched no amdsmi device; this may be another GPU"
    h = handle
    gfx = amdsmi.AmdSmiClkType.GFX

    def clocks() -> tuple[float | None, float | None]:
        return amd_clock_mhz(amdsmi.amdsmi_get_clock_info(h, gfx))

    readers = {
        "sm_clock_mhz": lambda: clocks()[0],
        "max_sm_clock_mhz": lambda: clocks()[1],
        "temperature_c": lambda: amdsmi.amdsmi_get_temp_metric(h, amdsmi.AmdSmiTemperatureType.HOTSPOT,
                                                               amdsmi.AmdSmiTemperatureMetric.CURRENT),
        "power_w": lambda: amd_power_w(amdsmi.amdsmi_get_power_info(h)),
    }
    return Monitor("amdsmi", lookup or "", _safe(lambda: clocks()[0]), readers)


@functools.lru_cache(maxsize=8)
def monitor(index: int = 0) -> Monitor | None:
    """The management-interface readers of torch's device ``index`` (module docstring), or None
    when no library is installed or none finds a device."""
    try:
        import torch

        hip = bool(torch.version.hip)
    except Exception:  # noqa: BLE001 - no torch: no device to read
        return None
    try:
        return _amdsmi(index) if hip else _nvml(index)
    except Exception:  # noqa: BLE001 - library absent, wrong driver: no readings, no failure
        return None
