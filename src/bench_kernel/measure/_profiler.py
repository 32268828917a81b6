"""Record a Kineto trace of a callable with what the trace analyses need: the one profiling routine.

``bench-kernel profile`` (``bench_kernel.orchestrate.profile``) and the live Source Trace
(``bench_kernel.source_trace.document_call``) both record through :func:`record_trace`, so a trace
from either carries the same things: input shapes (``record_shapes``, for ``ops`` and the document's
shapes), Python stacks (``with_stack``, for paths), ``nn.Module`` markers (``with_modules``, for
layers and repeated structure), and one ``ProfilerStep#N`` annotation per call (for ``--step``).

The warm-up calls run before the recording: JIT compilation, autotuning and lazy initialisation
happen there, not in the recorded steps. The recording is the bare Kineto session of the ``kernel``
method (``_profiler_start``), not ``torch.profiler.profile``, whose first session imports
``torch._inductor`` and ``torch._dynamo`` (1.8 s on the project's 2-core CPU machine, 5.9 s on an
H200) to ask one of their settings. What the wrapper adds is added here: the
``ProfilerStep#N`` range around each step (numbered after the warm-up calls, as its schedule
numbers them), the recorded flags and a process group's ``distributedInfo`` in the metadata, and
the gzip of a ``.gz`` name.
"""

from __future__ import annotations

import contextlib
import os
import sys
import tempfile
from pathlib import Path
from typing import Any, Callable, Iterator

from bench_kernel.atomic import is_stream, replacing
from bench_kernel.errors import InputError, OutputError, UsageError
from bench_kernel.measure._memory import check_fits, heap_bytes
from bench_kernel.measure._profiler_start import add_trace_metadata, kineto_session, save_trace, start_profiler
from bench_kernel.measure._runner import guard

__all__ = ["record_trace", "check_writable", "check_steps", "MAX_STEPS"]

#: The most steps one trace records. Each recorded step stays in memory until the trace is written
#: (about 0.1 MB for a one-op step with Python stacks on the CPU, measured; a model step holds
#: thousands of kernels), so a request beyond this is refused before anything runs; below it, the
#: recording watches its own memory (``_memory.MemoryWatch``).
MAX_STEPS = 1_000_000
#: A recording of more steps than this is first probed: recordings of PROBE_STEPS steps, stopped and
#: dropped, measure what one step costs in memory (``_memory``: the cost appears once the profiler stops).
PROBE_ABOVE = 16
PROBE_STEPS = (2, 6)


def check_steps(steps: int, warmup: int) -> None:
    """``--steps`` and ``--warmup`` as a recording takes them (UsageError otherwise)."""
    if steps < 1:
        raise UsageError(f"--steps {steps}: record at least one step")
    if steps > MAX_STEPS:
        raise UsageError(f"--steps {steps}: one trace records at most {MAX_STEPS:,} steps (each stays in memory "
                         f"until the trace is written); record fewer")
    if warmup < 0:
        raise UsageError(f"--warmup {warmup}: cannot be negative")
    if warmup > MAX_STEPS:
        raise UsageError(f"--warmup {warmup}: at most {MAX_STEPS:,} warm-up calls")


def check_writable(path: Path) -> Path:
    """``path`` resolved, after checking that a file can be created beside it (InputError if not).

    Called before anything runs, so a bad ``-o`` fails in a second, not after a model's warm-up.
    """
    path = Path(path)
    if path.is_dir():
        raise InputError(f"-o {path}: is a directory; give a file name such as {path / 'trace.json.gz'}")
    try:
        if is_stream(path):  # /dev/null, a FIFO, /dev/stdout: written as a stream, never replaced
            return path
    except OSError as e:  # a block device, a socket: never written
        raise InputError(f"-o {path}: {e.strerror}") from None
    parent = path.resolve().parent
    if not parent.is_dir():
        raise InputError(f"-o {path}: folder {parent} does not exist")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise InputError(f"-o {path}: cannot write in folder {parent} (permission denied)")
    if path.exists() and not os.access(path, os.W_OK):
        raise InputError(f"-o {path}: the file exists and is not writable")
    return path


@contextlib.contextmanager
def _without_kineto_chatter() -> Iterator[None]:
    """Drop the ``USDT: ... profiler_start`` lines Kineto (torch 2.13) prints to file descriptor 2.

    They are not errors, and the promise is one error line on stderr. Everything else written to
    stderr meanwhile (the user's warnings) is passed on once the session ends.
    """
    sys.stderr.flush()
    try:
        saved = os.dup(2)
    except OSError:  # no stderr at all: nothing to keep clean
        yield
        return
    with tempfile.TemporaryFile() as tmp:
        os.dup2(tmp.fileno(), 2)
        try:
            yield
        finally:
            sys.stderr.flush()
            os.dup2(saved, 2)
            os.close(saved)
            tmp.seek(0)
            kept = [ln for ln in tmp.read().decode(errors="replace").splitlines(True) if not ln.startswith("USDT:")]
            if kept:
                sys.stderr.write("".join(kept))


def record_trace(call: Callable[[], Any], path: str | Path, *, steps: int, warmup: int = 1,
                 label: str = "call") -> Path:
    """Run ``call()`` ``warmup + steps`` times under the PyTorch profiler and write the trace to ``path``.

    The recorded trace holds ``steps`` profiler steps (one per call, ``ProfilerStep#N``) with CPU
    ops and, when a GPU is present, its kernels; shapes, Python stacks and module markers.
    ``path`` ending in ``.gz`` is gzipped. The file appears whole or not at all: the trace is
    written to a temporary file beside it and renamed, so a failure never destroys an existing
    file; a device or a pipe (``/dev/null``, a FIFO) is written to as a stream, never replaced. A
    raising ``call`` becomes a MeasurementError naming ``label``; so does a recording that would not
    fit in the memory left: above ``PROBE_ABOVE`` steps, 9 more calls are recorded (and dropped)
    first to measure what a step costs, and a request that would not fit is refused before the real
    recording starts (``_memory.check_fits``).
    """
    check_steps(steps, warmup)
    from bench_kernel.gpu import has_gpu, import_torch

    torch = import_torch("recording a trace runs the PyTorch profiler")
    from torch.autograd.profiler import record_function

    path = check_writable(Path(path))
    gpu = has_gpu()
    suffix = ".json.gz" if path.name.endswith(".gz") else ".json"

    def session(active: int, warm: int) -> Any:
        """The stopped session of ``active`` recorded steps after ``warm`` unrecorded calls."""
        start_profiler()  # the process's first Kineto session, not in any recorded step
        for _ in range(warm):
            call()
            if gpu:
                torch.cuda.synchronize()
        with kineto_session(record_shapes=True, with_stack=True, with_modules=True) as prof:
            add_trace_metadata("record_shapes", "with_stack", "with_modules")
            for i in range(active):
                with record_function(f"ProfilerStep#{warm + i}"):
                    call()
                    if gpu:
                        torch.cuda.synchronize()
        return prof

    def grown(n: int) -> int:  # heap bytes a recording of n steps holds once stopped, as it peaks
        before = heap_bytes() or 0
        prof = session(n, 0)  # noqa: F841 - held while the heap is read
        return (heap_bytes() or 0) - before

    def bytes_per_step() -> float:
        if heap_bytes() is None:
            return 0.0  # nothing to measure with: not checked
        session(1, 0)  # the profiler's one-time start-up is no step's cost
        few, more = (grown(n) for n in PROBE_STEPS)
        return max(0.0, (more - few) / (PROBE_STEPS[1] - PROBE_STEPS[0]))

    def run(tmp: Path) -> None:
        if steps > PROBE_ABOVE:
            check_fits(bytes_per_step(), steps, fix="record fewer --steps")
        save_trace(session(steps, warmup), tmp)  # a call that raised leaves nothing written

    # Whole or not at all, and a device or a pipe is written to, never renamed over (atomic.py).
    try:
        with replacing(path, suffix) as tmp, _without_kineto_chatter():
            guard(label, "profiling", lambda: run(tmp))  # the user's own OSErrors become MeasurementErrors here
    except OSError as e:  # writing the trace: a full disk, /dev/full, a reader that closed the FIFO
        kept = " (the old file was left as it was)" if path.is_file() else ""
        raise OutputError(f"cannot write {path}: {e.strerror or e}{kept}") from None
    return path
