"""Sharding a sweep over local worker processes: one per GPU (``--gpus``) or N on the host
(``--workers``).

Each worker is a fresh ``python -m bench_kernel.sweeps._worker`` that imports the spec by
its path (factories are code, not data), pinned to its GPU with ``CUDA_VISIBLE_DEVICES`` and
``HIP_VISIBLE_DEVICES`` set before it starts, so torch in it sees exactly one device, as index 0.
The queue is dynamic: a worker gets its next point when it returns the last, so one slow point
never idles the others. Only this (the main) thread touches the store: it claims each point
before handing it out and saves each result as it arrives. A worker that dies (segfault,
``os._exit``, OOM killer) turns its point into an ``error`` naming the signal and its last
stderr line, and is replaced; nothing already stored is touched.
"""

from __future__ import annotations

import collections
import json
import os
import queue
import signal
import subprocess
import sys
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Callable

from bench_kernel.errors import TargetError
from bench_kernel.records import BenchResult, PointResult, warning

__all__ = ["Slot", "Unit", "LocalPool", "gpu_slots", "host_slots"]

#: A worker that dies this many times in a row before becoming ready is given up on.
MAX_START_FAILURES = 2


@dataclass(frozen=True)
class Unit:
    """One provider at one point (its round ``round``), numbered in sweep order."""

    index: int
    provider: str
    point: dict[str, Any]
    round: int = 1


@dataclass(frozen=True)
class Slot:
    """One worker: its label in the results and the environment it starts with."""

    label: str
    env: dict[str, str]
    threads: int | None = None


def gpu_slots(indices: list[int]) -> list[Slot]:
    """One slot per GPU index (as this process sees them), each seeing only its GPU.

    Indices are mapped through an inherited ``CUDA_VISIBLE_DEVICES`` so ``--gpus 0`` under
    ``CUDA_VISIBLE_DEVICES=2,3`` pins physical GPU 2; the label names that physical index.
    """
    inherited = os.environ.get("CUDA_VISIBLE_DEVICES") or os.environ.get("HIP_VISIBLE_DEVICES")
    visible = [v.strip() for v in inherited.split(",")] if inherited else None
    slots = []
    for i in indices:
        physical = visible[i] if visible is not None else str(i)
        slots.append(Slot(f"gpu:{physical}", {"CUDA_VISIBLE_DEVICES": physical, "HIP_VISIBLE_DEVICES": physical}))
    return slots


def host_slots(n: int) -> list[Slot]:
    """``n`` host workers with no GPU visible, sharing the cores between them."""
    threads = max(1, (os.cpu_count() or 1) // n)
    return [Slot(f"host:{i}", {"CUDA_VISIBLE_DEVICES": "", "HIP_VISIBLE_DEVICES": ""}, threads) for i in range(n)]


def _how(returncode: int | None) -> str:
    if returncode is None:
        return "no exit status"
    if returncode < 0:
        try:
            return f"killed by {signal.Signals(-returncode).name}"
        except ValueError:
            return f"killed by signal {-returncode}"
    return f"exit code {returncode}"


@dataclass(frozen=True)
class _Process:
    """A started worker process and its two pipes (made with both, so neither is None)."""

    popen: subprocess.Popen[str]
    stdin: IO[str]
    stdout: IO[str]


class _Worker(threading.Thread):
    """Owns one worker process: feeds it units from ``inbox``, reports to ``events``."""

    def __init__(self, slot: Slot, setup: dict[str, Any], events: "queue.Queue[tuple]", logdir: Path) -> None:
        super().__init__(name=f"bench-kernel-{slot.label}", daemon=True)
        self.slot, self.setup, self.events = slot, setup, events
        self.inbox: "queue.Queue[Unit | None]" = queue.Queue()
        self.log = logdir / f"{slot.label.replace(':', '-')}.log"
        self.proc: subprocess.Popen[str] | None = None
        self.stopping = False

    def _tail(self) -> str:
        try:
            lines = [ln.strip() for ln in self.log.read_text(errors="replace").splitlines() if ln.strip()]
        except OSError:
            return ""
        return lines[-1][:300] if lines else ""

    def _spawn(self) -> _Process:
        env = {**os.environ, **self.slot.env, "PYTHONUNBUFFERED": "1"}
        with self.log.open("a") as err:
            # self.proc is for kill(), from the main thread
            self.proc = popen = subprocess.Popen([sys.executable, "-m", "bench_kernel.sweeps._worker"],
                                                 stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=err,
                                                 env=env, text=True, bufsize=1)
        # Both pipes were asked for, so Popen made both (its stubs say Optional for every call)
        assert popen.stdin is not None and popen.stdout is not None
        return _Process(popen, popen.stdin, popen.stdout)

    def _start(self) -> _Process | None:
        """A new worker process that has imported the spec, or None (said on ``events``) if it did not."""
        proc = self._spawn()
        try:
            proc.stdin.write(json.dumps({**self.setup, "label": self.slot.label,
                                         "threads": self.slot.threads}) + "\n")
            proc.stdin.flush()
            line = proc.stdout.readline()
        except OSError:
            line = ""
        msg = json.loads(line) if line.strip() else None
        if msg and msg.get("ready"):
            self.events.put(("ready", self, msg.get("env") or {}))
            return proc
        if msg and msg.get("fatal"):
            self.events.put(("fatal", self, msg["fatal"]))
        else:
            tail = self._tail()
            self.events.put(("fatal", self, f"worker {self.slot.label} died while starting "
                             f"({_how(proc.popen.wait())})" + (f": {tail}" if tail else "")))
        return None

    def run(self) -> None:
        failures = 0
        proc = self._start()
        while True:
            if proc is None:
                failures += 1
                if failures >= MAX_START_FAILURES or self.stopping:
                    self.events.put(("exited", self, None))
                    return
                proc = self._start()
                continue
            failures = 0
            unit = self.inbox.get()
            if unit is None:
                self._quit(proc)
                return
            reply = self._ask(proc, unit)
            if reply is not None:
                self.events.put(("result", self, (unit, reply)))
                continue
            tail = self._tail()
            how = _how(proc.popen.wait())
            self.events.put(("died", self, (unit, f"worker {self.slot.label} died ({how}) while running "
                                             f"this point" + (f"; its last output: {tail}" if tail else ""))))
            proc = None if self.stopping else self._start()
            if self.stopping:
                self.events.put(("exited", self, None))
                return

    def _ask(self, proc: _Process, unit: Unit) -> dict[str, Any] | None:
        try:
            proc.stdin.write(json.dumps({"unit": unit.index, "provider": unit.provider,
                                         "point": unit.point, "round": unit.round}) + "\n")
            proc.stdin.flush()
            line = proc.stdout.readline()
        except OSError:
            return None
        return json.loads(line)["point"] if line.strip() else None

    def _quit(self, proc: _Process) -> None:
        try:
            proc.stdin.write(json.dumps({"quit": True}) + "\n")
            proc.stdin.close()
            proc.popen.wait(timeout=30)
        except (OSError, subprocess.TimeoutExpired):
            proc.popen.kill()
        self.events.put(("exited", self, None))

    def kill(self) -> None:
        self.stopping = True
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
        self.inbox.put(None)


class LocalPool:
    """Worker processes for ``slots``: :meth:`start`, then :meth:`run` the units (once per round:
    the workers stay up between calls), then :meth:`close`."""

    def __init__(self, target: str, options: dict[str, Any], slots: list[Slot]) -> None:
        self._tmp = tempfile.TemporaryDirectory(prefix="bench-kernel-workers-")
        self.events: "queue.Queue[tuple]" = queue.Queue()
        setup = {"target": target, "options": options}
        self.workers = [_Worker(s, setup, self.events, Path(self._tmp.name)) for s in slots]
        self._idle: list[_Worker] = []  # started and waiting for a unit
        self._alive = len(self.workers)
        self._last_fatal = "no reason given"

    def start(self) -> dict[str, dict[str, Any]]:
        """Start every worker and wait until each has imported the spec; label -> its env."""
        for w in self.workers:
            w.start()
        envs: dict[str, dict[str, Any]] = {}
        while len(envs) < len(self.workers):
            kind, w, payload = self.events.get()
            if kind == "ready":
                envs[w.slot.label] = payload
                self._idle.append(w)
            elif kind == "fatal":
                raise TargetError(payload)
        return envs

    def run(self, units: list[Unit], claim: Callable[[Unit, str], bool],
            done: Callable[[Unit, PointResult], None], began: Callable[[Unit], None] | None = None) -> None:
        """Hand out ``units`` dynamically; ``claim`` may refuse one, ``done`` gets each result.
        Returns when every unit is done; the workers wait, idle, for the next call (a sweep's next
        round: a GPU worker keeps its CUDA context and compiled kernels) until :meth:`close`."""
        pending = collections.deque(units)
        busy: dict[_Worker, Unit] = {}

        def assign(w: _Worker) -> None:
            while pending:
                u = pending.popleft()
                if claim(u, w.slot.label):
                    busy[w] = u
                    if began:
                        began(u)
                    w.inbox.put(u)
                    return
            self._idle.append(w)

        idle, self._idle = self._idle, []
        for w in idle:
            assign(w)
        while self._alive and (pending or busy):
            kind, w, payload = self.events.get()
            if kind == "ready":  # restarted after its process died
                assign(w)
            elif kind == "result":
                unit, data = payload
                busy.pop(w, None)
                done(unit, PointResult.from_dict(data))
                assign(w)
            elif kind == "died":
                unit, reason = payload
                busy.pop(w, None)
                empty = BenchResult(name=unit.provider, params=dict(unit.point), notes=(warning("point-error", reason),))
                done(unit, PointResult(unit.provider, dict(unit.point), "error", empty, error=reason,
                                       worker=w.slot.label))
            elif kind == "fatal":
                self._last_fatal = payload  # the worker retries once, then exits
            elif kind == "exited":
                self._alive -= 1
        if pending:
            raise TargetError(f"every worker stopped with {len(pending)} point(s) not run ({self._last_fatal}); "
                              f"what was measured is stored: resume the run to finish it")

    def close(self) -> None:
        """Stop every worker (killing any still running) and remove their logs."""
        for w in self.workers:
            w.kill()
        for w in self.workers:
            w.join(timeout=5)
        self._tmp.cleanup()
