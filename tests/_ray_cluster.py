"""One local Ray instance for the tests that need it, shared by pytest-xdist's workers.

Each ``ray.init()`` that starts a local instance waits at most 30 s for its raylet (hard-coded in
Ray); on a 2-core machine at load ~9 that start timed out and failed the Ray tests. Here the
instance is started once for them, as ``ray start --head --block`` (its processes end with it),
with attempts of their own (``BENCH_KERNEL_TEST_RAY_START_S`` in all, default 300 s); the tests
connect to it through ``RAY_ADDRESS``, which takes about 2 s. Where it cannot start at all, the
tests skip and say why.

The workers of one session share it through a state file under the session's base temporary
folder, behind a lock (the fixture's scope says how long each holds it): the first starts it, each registers as a user, and the last to leave
stops it (by the process id written there). Its temporary folder is its own, so no other Ray on
the machine finds it (``ray.init()`` without an address joins the last ``ray start`` cluster
recorded in the default one).
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Iterator

START_ENV = "BENCH_KERNEL_TEST_RAY_START_S"
#: ``ray start`` waits 30 s for its raylet, and then gives up: an attempt is a little longer than that.
ATTEMPT_S = 90.0
CPUS = 2


class CannotStart(RuntimeError):
    """No local Ray instance could be started within the attempts (the tests skip, saying this)."""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _gone(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] == "Z"  # a zombie has ended
    except (OSError, IndexError):
        return True


def _attempt(ray: Path, temp: Path, log: Path, deadline: float) -> tuple[subprocess.Popen, str]:
    port = _free_port()
    argv = [str(ray), "start", "--head", "--block", "--port", str(port), "--node-ip-address", "127.0.0.1",
            "--num-cpus", str(CPUS), "--include-dashboard", "false", "--disable-usage-stats",
            "--object-store-memory", str(100 * 2**20), "--temp-dir", str(temp)]
    with open(log, "w") as out:
        proc = subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                start_new_session=True)
    while time.monotonic() < deadline:
        text = log.read_text(errors="replace")
        if "Ray runtime started" in text:
            return proc, f"127.0.0.1:{port}"
        if proc.poll() is not None:
            break
        time.sleep(0.5)
    exited = proc.poll()
    tail = log.read_text(errors="replace").strip().splitlines()[-3:]  # before the stop adds its own lines
    _stop(proc.pid, proc)
    how = f"exited with status {exited}" if exited is not None else "was not up in time"
    raise CannotStart(f"`ray start` {how}: {' / '.join(tail) or 'no output'}")


def _start(folder: Path) -> tuple[subprocess.Popen, str, str]:
    ray = Path(sys.executable).with_name("ray")
    if not ray.exists():
        raise CannotStart(f"no `ray` command beside {sys.executable}")
    budget_s = float(os.environ.get(START_ENV) or 300)
    end = time.monotonic() + budget_s
    errors = []
    while time.monotonic() < end:
        # short: Ray's socket paths live under it, and a Unix socket path has at most 107 bytes
        temp = Path(tempfile.mkdtemp(prefix="bkray-", dir="/tmp"))
        try:
            proc, address = _attempt(ray, temp, folder / "ray-start.log", min(end, time.monotonic() + ATTEMPT_S))
            return proc, address, str(temp)
        except CannotStart as e:
            errors.append(str(e))
            shutil.rmtree(temp, ignore_errors=True)
            time.sleep(2)
    raise CannotStart(f"a local Ray instance did not start in {budget_s:g} s ({START_ENV}); "
                      f"{len(errors)} attempt(s), the last: {errors[-1] if errors else 'none'}")


def _stop(pid: int, proc: subprocess.Popen | None = None) -> None:
    """End ``ray start --block`` (it ends the processes it started), then its group if it lingers."""
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGTERM)
    end = time.monotonic() + 30
    while time.monotonic() < end and not (proc.poll() is not None if proc else _gone(pid)):
        time.sleep(0.2)
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)  # its own session (start_new_session): only what it started
    if proc is not None:
        proc.wait(timeout=10)


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    with open(path, "a") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


_mine: dict[int, subprocess.Popen] = {}


@contextlib.contextmanager
def one_test_at_a_time(folder: Path) -> Iterator[None]:
    """Held by each test that uses the shared instance: xdist's workers run them one after another.
    A test that holds every CPU of the instance (a job that cannot be placed) would otherwise make
    another worker's sweep wait for a CPU, and its points fail on a placement time that is not theirs."""
    with _locked(folder / "ray-test.lock"):
        yield


@contextlib.contextmanager
def shared_instance(folder: Path) -> Iterator[str]:
    """The address of the shared local Ray instance, started here if no worker holds one now."""
    state, lock = folder / "ray.json", folder / "ray.lock"
    with _locked(lock):
        info = json.loads(state.read_text()) if state.exists() else None
        if info is None or _gone(info["pid"]):
            proc, address, temp = _start(folder)
            _mine[proc.pid] = proc
            info = {"pid": proc.pid, "address": address, "temp": temp, "users": 0}
        info["users"] += 1
        state.write_text(json.dumps(info))
    try:
        yield info["address"]
    finally:
        with _locked(lock):
            info = json.loads(state.read_text())
            info["users"] -= 1
            if info["users"] > 0:
                state.write_text(json.dumps(info))
            else:
                state.unlink()
                _stop(info["pid"], _mine.pop(info["pid"], None))
                shutil.rmtree(info["temp"], ignore_errors=True)
