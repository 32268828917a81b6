"""The profiler sessions of the ``kernel`` method, and the process's first one, paid apart from any samples.

A session is ``torch.autograd.profiler.profile(use_kineto=True)``: the Kineto session that
``torch.profiler.profile`` wraps, without the wrapper. The wrapper's ``prepare_trace`` asks
``hasattr(torch, "_inductor")``, and torch answers a lazy attribute by importing it: the process's
first ``torch.profiler`` session imported ``torch._inductor``, ``torch._dynamo`` and with them
triton, seconds of Python imports that read as "CUPTI starting" (``prepare_trace`` 5.2-5.9 s on the
project's H200 against 0.02 s for the bare Kineto session, ~5 ms for each later session:
benchmarks/results/speed-h200.md; 4.2-5.0 s on a 2-core CPU machine with no CUDA at all, against
0.04 s for the bare session). A bench-kernel
session imports neither, unless the code under test already did.

What is left of the first session (Kineto's start and CUPTI's attach) is still paid once per process
before the ``kernel`` method's first samples, on the main thread: :func:`start_profiler` opens and
closes an empty session and says how long it took; the method records it
(``env["profiler_start_s"]``) and ``run``'s footer names it. Not in a background thread: tried on
the H200, Kineto printed "ERROR: External init callback must run in same thread as registerClient"
(its client init is skipped off the registering thread) and the methods timed meanwhile read wrong
(an ``events`` round at +/-211%, a memory-bound add's ``graph`` 21% above its kernels).
"""

from __future__ import annotations

import gzip
import json
import shutil
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

__all__ = ["kineto_session", "start_profiler", "add_trace_metadata", "save_trace"]

_LOCK = threading.Lock()
_STARTED: list[float] = []


def kineto_session(device: bool = True, *, record_shapes: bool = False, with_stack: bool = False,
                   with_modules: bool = False) -> Any:
    """A profiler session (not yet entered) of CPU ops and, with ``device`` and a GPU, device
    activity: ``torch.autograd.profiler.profile``; its events are ``session.kineto_results.events()``.
    The flags record input shapes, Python stacks and ``nn.Module`` markers too."""
    import torch
    from torch.autograd import profiler as autograd_profiler

    use_device = "cuda" if device and torch.cuda.is_available() else None  # HIP answers as "cuda" too
    return autograd_profiler.profile(use_cpu=True, use_device=use_device, use_kineto=True,
                                     record_shapes=record_shapes, with_stack=with_stack, with_modules=with_modules)


def add_trace_metadata(*flags: str) -> None:
    """Inside a session, what ``torch.profiler.profile`` adds to its trace: each recorded flag
    (``"record_shapes"``, ``"with_stack"``, ``"with_modules"``) as ``"1"``, and in a process group its
    backend, rank and world size as ``distributedInfo`` (multi-rank readers use it)."""
    import torch

    for flag in flags:
        torch.autograd._add_metadata_json(flag, "1")
    dist = torch.distributed
    if not (dist.is_available() and dist.is_initialized()):
        return
    info: dict[str, Any] = {"backend": dist.get_backend(), "rank": dist.get_rank(),
                            "world_size": dist.get_world_size()}
    torch.autograd._add_metadata_json("distributedInfo", json.dumps(info))


def save_trace(session: Any, path: Path) -> None:
    """Write a stopped session's Chrome trace to ``path``, gzipped when its name ends in ``.gz``."""
    if not path.name.endswith(".gz"):
        session.kineto_results.save(str(path))
        return
    with tempfile.TemporaryDirectory(dir=path.parent) as folder:
        plain = Path(folder) / "trace.json"
        session.kineto_results.save(str(plain))
        with open(plain, "rb") as src, gzip.open(path, "wb", compresslevel=6) as dst:
            shutil.copyfileobj(src, dst, 1 << 20)


def start_profiler() -> float:
    """Open and close one empty profiler session if none was opened in this process yet; the
    seconds it took (0.0 when one already was). A failure is left for the real session to raise."""
    with _LOCK:
        if _STARTED:
            return 0.0
        t0 = time.perf_counter()
        try:
            with kineto_session():
                pass
        except Exception:  # noqa: BLE001 - the kernel method's own session reports what is wrong
            pass
        _STARTED.append(time.perf_counter() - t0)
        return _STARTED[0]
