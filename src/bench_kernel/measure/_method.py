"""The protocol every timing method follows (NVBench's ``measure_cold``/``measure_hot`` siblings).

A method is built with what it needs (a flusher, the rotation), then ``run(runner, rule)`` samples
until the stopping rule is satisfied and returns a :class:`Timed`: the measurement, plus the
per-kernel breakdown for the methods that see kernels.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from bench_kernel.measure._runner import Runner
from bench_kernel.measure._stopping import StoppingRule
from bench_kernel.records import KernelStat, Measurement

__all__ = ["Method", "Timed"]


@dataclass(frozen=True)
class Timed:
    """What a method returns: its measurement and (``kernel`` method only) the per-kernel breakdown."""

    measurement: Measurement
    kernels: tuple[KernelStat, ...] = ()


@runtime_checkable
class Method(Protocol):
    """A timing method: ``name`` is one of :data:`~bench_kernel.options.METHODS`."""

    name: str

    def run(self, runner: Runner, rule: StoppingRule) -> Timed:
        """Sample ``runner``'s callable until ``rule.is_finished()``."""
        ...
