"""``--launch "CMD"``: start the server, wait until it answers, keep its log, and always stop it.

The command runs in a process group of its own (``start_new_session``), so stopping it reaches the
workers it forks (vLLM's engine core, SGLang's schedulers): SIGTERM to the group, then SIGKILL to
the group after ``stop_timeout_s``. That happens on a normal exit, on an error, on Ctrl-C and on
SIGTERM to bench-kernel (turned into KeyboardInterrupt while a server is up). If bench-kernel itself
is killed with SIGKILL, the kernel sends the server SIGTERM (``PR_SET_PDEATHSIG``, Linux): no orphan.

Readiness: ``GET /health`` or ``GET /v1/models`` answers 200 (vLLM, SGLang and transformers serve
answer both once the model is loaded). A server that exits while starting, or is not ready within
``ready_timeout_s``, is an error that quotes the last lines of its log.
"""

from __future__ import annotations

import contextlib
import os
import shlex
import signal
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any, Iterator

from bench_kernel.errors import ServerError, UsageError

__all__ = ["LaunchedServer", "launched", "url_from_command", "log_tail", "wait_ready"]

#: Lines of the server's log quoted when it fails.
TAIL_LINES = 8


def log_tail(path: Path, lines: int = TAIL_LINES) -> str:
    """The last ``lines`` non-empty lines of a log, joined by `` | `` (errors are one line)."""
    try:
        with open(path, "rb") as fh:
            fh.seek(0, os.SEEK_END)
            fh.seek(max(0, fh.tell() - 16384))
            text = fh.read().decode("utf-8", errors="replace")
    except OSError:
        return "(no log)"
    tail = [ln.strip() for ln in text.splitlines() if ln.strip()][-lines:]
    return " | ".join(tail) or "(empty log)"


def url_from_command(cmd: str) -> str:
    """The base URL a server command will listen on: its ``--host``/``--port`` (vLLM, SGLang and
    transformers serve all take these), defaulting to 127.0.0.1:8000."""
    args = shlex.split(cmd)
    host, port = "127.0.0.1", "8000"
    for i, a in enumerate(args):
        for flag in ("--host", "--port"):
            value = None
            if a == flag and i + 1 < len(args):
                value = args[i + 1]
            elif a.startswith(flag + "="):
                value = a.split("=", 1)[1]
            if value is not None:
                if flag == "--host":
                    host = value
                else:
                    port = value
    if host in ("0.0.0.0", "::", ""):
        host = "127.0.0.1"
    return f"http://{host}:{port}"


def _pdeathsig() -> None:  # runs in the child between fork and exec
    try:
        import ctypes

        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except Exception:  # noqa: BLE001 - not Linux: the process group still covers a normal exit
        pass


def _get(url: str, timeout_s: float) -> int:
    req = urllib.request.Request(url, method="GET")
    with urllib.request.urlopen(req, timeout=timeout_s) as r:  # noqa: S310 - a URL the user gave
        r.read(65536)
        return r.status


def wait_ready(base_url: str, ready_timeout_s: float, alive: Any = None, interval_s: float = 0.5) -> float:
    """Poll ``/health`` then ``/v1/models`` until one answers 200; returns the seconds it took.
    ``alive()`` (optional) returns None while the server process runs, else why not."""
    t0 = time.monotonic()
    while True:
        for path in ("/health", "/v1/models"):
            try:
                if _get(base_url.rstrip("/") + path, timeout_s=5) == 200:
                    return time.monotonic() - t0
            except (urllib.error.URLError, OSError, ValueError):
                pass
        if alive is not None and (why := alive()) is not None:
            raise ServerError(why)
        if time.monotonic() - t0 > ready_timeout_s:
            raise ServerError(f"the server at {base_url} was not ready after {ready_timeout_s:g} s "
                              f"(no 200 from /health or /v1/models)")
        time.sleep(interval_s)


class LaunchedServer:
    """A server process started from ``cmd``, its log in ``log_path``."""

    def __init__(self, cmd: str, log_path: Path, env: dict[str, str] | None = None, stop_timeout_s: float = 20.0):
        try:
            self.args = shlex.split(cmd)
        except ValueError as e:
            raise UsageError(f"--launch {cmd!r}: cannot split it into arguments ({e})") from None
        if not self.args:
            raise UsageError("--launch needs a command")
        self.cmd = cmd
        self.log_path = log_path
        self.stop_timeout_s = stop_timeout_s
        self.started_s = time.monotonic()
        try:
            self._log = open(log_path, "ab")
        except OSError as e:
            raise UsageError(f"--server-log {log_path}: cannot write it ({e.strerror or e})") from None
        try:
            self.proc = subprocess.Popen(self.args, stdin=subprocess.DEVNULL, stdout=self._log,
                                         stderr=subprocess.STDOUT, start_new_session=True,
                                         env={**os.environ, **(env or {})},
                                         preexec_fn=_pdeathsig if sys.platform.startswith("linux") else None)
        except OSError as e:
            self._log.close()
            raise ServerError(f"--launch: cannot start {self.args[0]!r}: {e.strerror or e}") from None

    @property
    def pid(self) -> int:
        return self.proc.pid

    def exit_reason(self) -> str | None:
        """None while it runs; else a line saying it exited, with its log's last lines."""
        rc = self.proc.poll()
        if rc is None:
            return None
        how = f"signal {-rc}" if rc < 0 else f"status {rc}"
        return (f"the launched server exited with {how} after {time.monotonic() - self.started_s:.0f} s; "
                f"log {self.log_path}: {log_tail(self.log_path)}")

    def stop(self) -> None:
        """SIGTERM to the process group, SIGKILL to it after ``stop_timeout_s``; waits for the leader."""
        try:
            pgid = os.getpgid(self.proc.pid)
        except ProcessLookupError:
            pgid = self.proc.pid
        for sig, wait_s in ((signal.SIGTERM, self.stop_timeout_s), (signal.SIGKILL, 10.0)):
            try:
                os.killpg(pgid, sig)
            except (ProcessLookupError, PermissionError):
                pass
            deadline = time.monotonic() + wait_s
            while time.monotonic() < deadline:
                if self.proc.poll() is not None and not _group_alive(pgid):
                    break
                time.sleep(0.1)
            else:
                continue
            break
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(timeout=5)
        self._log.close()


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
        return True
    except (ProcessLookupError, PermissionError):
        return False


@contextlib.contextmanager
def launched(cmd: str, log_path: Path | None = None, env: dict[str, str] | None = None,
             stop_timeout_s: float = 20.0) -> Iterator[LaunchedServer]:
    """Start ``cmd`` and yield it; stop it however the block ends. SIGTERM to this process while the
    block runs becomes KeyboardInterrupt, so the server is stopped then too."""
    if log_path is None:
        fd, name = tempfile.mkstemp(prefix="bench-kernel-server-", suffix=".log")
        os.close(fd)
        log_path = Path(name)

    def on_term(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt

    old = None
    with contextlib.suppress(ValueError):  # not the main thread: no handler
        old = signal.signal(signal.SIGTERM, on_term)
    server = LaunchedServer(cmd, log_path, env, stop_timeout_s)
    try:
        yield server
    finally:
        server.stop()
        if old is not None:
            signal.signal(signal.SIGTERM, old)
