"""Low-level device access shared by everything that touches a GPU.

Whether torch and a GPU are there (:func:`has_gpu`, :func:`require_gpu`), the backlog kernel that
keeps the device busy while the host enqueues (:func:`sleep_us`), and the one event timer
(:func:`time_each_us`, :class:`EventTimer`). Below ``hardware`` (calibration) and ``measure`` (the
timing methods), so neither reaches into the other. torch is imported lazily.
"""

from bench_kernel.gpu._backlog import cycles_per_us, sleep_us
from bench_kernel.gpu._events import EventTimer, time_each_us
from bench_kernel.gpu._presence import TORCH_MISSING, has_gpu, has_torch, import_torch, no_gpu_driver, require_gpu

__all__ = ["TORCH_MISSING", "EventTimer", "cycles_per_us", "has_gpu", "has_torch", "import_torch", "no_gpu_driver",
           "require_gpu", "sleep_us", "time_each_us"]
