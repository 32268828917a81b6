"""Typed errors for bench-kernel: one flat hierarchy, one place.

Every error a user can cause derives from :class:`BenchKernelError`. The CLI turns any of them
into one line ``bench-kernel: error: <message>`` and the exit code below; messages name the
field, the value and, where there is one, the fix.
"""

from __future__ import annotations

__all__ = [
    "BenchKernelError",
    "UsageError",
    "InputError",
    "TraceError",
    "TargetError",
    "DeviceError",
    "MeasurementError",
    "CaptureError",
    "CorrectnessError",
    "Interrupted",
    "StoreError",
    "Unsupported",
    "TimeLimitError",
    "OutputError",
    "ServerError",
    "MissingExtraError",
]


class BenchKernelError(Exception):
    """Base of every error bench-kernel reports to a user."""

    exit_code: int = 1


class UsageError(BenchKernelError):
    """The command line or an argument is malformed (exit 2)."""

    exit_code = 2


class InputError(BenchKernelError):
    """An input file is missing, unreadable or of the wrong kind."""


class TraceError(InputError):
    """A trace file is truncated, not JSON, or not a Kineto/Chrome trace."""


class TargetError(BenchKernelError):
    """A benchmark target cannot be imported, is missing, or raises when called."""


class DeviceError(BenchKernelError):
    """An unknown device name, or a device the operation needs is absent."""


class MeasurementError(BenchKernelError):
    """A measurement could not be made (the callable raised while timed, no kernels seen, ...)."""


class CaptureError(MeasurementError):
    """The callable cannot be captured in a CUDA/HIP graph."""


class CorrectnessError(MeasurementError):
    """The callable's output does not match the reference: its time must not be reported."""


class StoreError(InputError):
    """The results database is locked, corrupted, foreign, a directory, or lacks a run asked for."""


class Unsupported(Exception):
    """Raised by a sweep provider: this point is outside what it supports.

    Not a :class:`BenchKernelError`: it is a signal from user code, recorded as ``unsupported``
    at that point (with the message as the reason), never a failure of the sweep.
    """


class Interrupted(BenchKernelError):
    """The user stopped a long command (Ctrl-C); what it finished is kept (exit 130)."""

    exit_code = 130


class TimeLimitError(MeasurementError):
    """A case ran past its time limit (``timeout_s`` / ``--timeout``) and was stopped."""


class OutputError(BenchKernelError):
    """The result cannot be written: a missing folder, a full disk, a closed stdout, ..."""


class ServerError(BenchKernelError):
    """An LLM server cannot be reached, does not start, dies, or refuses what the benchmark needs."""


class MissingExtraError(BenchKernelError):
    """An optional dependency (an extra: ``plot``, ``xlsx``, ``ray``) is not installed (exit 1).

    Exit 1, not 2: the command line was right, and the same line works once the package the message
    names is installed. (A missing torch says so too, as a :class:`DeviceError`, also exit 1.)
    """
