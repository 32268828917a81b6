"""Running one command for a tool call, as ``bench-kernel COMMAND ... --json`` would run it.

The document a tool returns is what the CLI prints, byte for byte, because it IS the CLI that runs:
``bench_kernel.cli.main`` with the tool's command line. Two ways, by what the command runs:

- The commands that run the user's code or drive long work (``run``, ``sweep``, ``profile``,
  ``source-trace``, ``serve``) run in a child process, as a fresh ``bench-kernel`` does: the user's
  modules are imported anew on every call (an edited kernel is never measured stale from a cached
  import), a custom op registered at import does not clash with itself, a case's time limit is
  enforced with signals on the child's main thread, a case stuck in a GPU wait ends that child
  (with what it finished), never the server, and cancelling a call is Ctrl-C to the child. Their
  progress (cases, points, serving phases) comes back on a pipe of its own.
- The analyses (traces, names, stored results, peak tables) run in the server's process, in a
  worker thread, with stdout and stderr captured: no process start, modules already imported.
  They run no user code.

Either way the command's stderr is captured (for its ``bench-kernel: error:`` lines) and echoed to
the server's own stderr, which MCP clients keep as the server's log.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import signal
import subprocess
import sys
from dataclasses import dataclass
from typing import Any, Awaitable, Callable, TextIO

from bench_kernel.cli import ERROR_PREFIX, main

__all__ = ["Invoked", "IN_A_CHILD", "invoke_here", "invoke_child", "CHILD_MODULE"]

#: Commands run in a child process (the module docstring says why).
IN_A_CHILD = frozenset({"run", "sweep", "profile", "source-trace", "serve"})
#: The child's entry (``python -m``): the CLI with a progress pipe.
CHILD_MODULE = "bench_kernel.mcp_server._child"
#: How long a cancelled child gets to stop after Ctrl-C (it writes what it finished), seconds.
_STOP_S = 20.0


@dataclass(frozen=True)
class Invoked:
    """What one command printed and returned."""

    exit_code: int
    stdout: str
    stderr: str

    @property
    def errors(self) -> list[str]:
        """The ``bench-kernel: error: ...`` lines, as the CLI printed them."""
        return [line for line in self.stderr.splitlines() if line.startswith(ERROR_PREFIX)]


class _Echo(io.StringIO):
    """A stderr that keeps what is written and passes it on to the server's stderr."""

    def __init__(self, echo: TextIO | None) -> None:
        super().__init__()
        self._echo = echo

    def write(self, text: str) -> int:
        if self._echo is not None:
            with contextlib.suppress(Exception):  # a closed log must not fail the call
                self._echo.write(text)
                self._echo.flush()
        return super().write(text)


def invoke_here(argv: list[str], echo: TextIO | None = None) -> Invoked:
    """Run ``bench-kernel ARGV`` in this process, stdout and stderr captured. Calls must not overlap:
    stdout and stderr are the process's (the server runs one call at a time)."""
    out, err = io.StringIO(), _Echo(echo)
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(argv)
    return Invoked(code, out.getvalue(), err.getvalue())


#: ``progress(done, total, message)`` as the child reports it.
AsyncProgress = Callable[[int, "int | None", str], Awaitable[None]]


async def invoke_child(argv: list[str], progress: AsyncProgress | None = None,
                       echo: TextIO | None = None) -> Invoked:
    """Run ``bench-kernel ARGV`` in a child process; cancelled, the child gets Ctrl-C (SIGINT), then
    SIGKILL after :data:`_STOP_S`."""
    import anyio

    read_fd, write_fd = os.pipe()
    try:
        process = await anyio.open_process(
            [sys.executable, "-m", CHILD_MODULE, str(write_fd), *argv],
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, pass_fds=(write_fd,))
    except BaseException:
        os.close(read_fd)
        raise
    finally:
        os.close(write_fd)
    chunks: dict[str, list[bytes]] = {"out": [], "err": []}

    async def drain(stream: Any, key: str) -> None:
        async for chunk in stream:
            chunks[key].append(chunk)
            if key == "err" and echo is not None:
                with contextlib.suppress(Exception):
                    echo.write(chunk.decode("utf-8", "replace"))
                    echo.flush()

    async def told() -> None:
        # Read without a worker thread: a thread blocked in read() would hold a cancelled call until
        # the child closed the pipe (a thread cannot be cancelled).
        os.set_blocking(read_fd, False)
        pending = b""
        try:
            while True:
                await anyio.wait_readable(read_fd)
                try:
                    data = os.read(read_fd, 65536)
                except BlockingIOError:
                    continue
                if not data:
                    return
                *lines, pending = (pending + data).split(b"\n")
                for line in lines:
                    try:
                        done, total, message = json.loads(line)
                    except (ValueError, TypeError):
                        continue
                    if progress is not None:
                        await progress(int(done), None if total is None else int(total), str(message))
        finally:
            os.close(read_fd)

    try:
        async with anyio.create_task_group() as group:
            group.start_soon(drain, process.stdout, "out")
            group.start_soon(drain, process.stderr, "err")
            group.start_soon(told)
            code = await process.wait()
    except BaseException:
        with anyio.CancelScope(shield=True):
            if process.returncode is None:
                process.send_signal(signal.SIGINT)
                with anyio.move_on_after(_STOP_S):
                    await process.wait()
                if process.returncode is None:
                    process.kill()
                    await process.wait()
        raise
    return Invoked(code, b"".join(chunks["out"]).decode("utf-8", "replace"),
                   b"".join(chunks["err"]).decode("utf-8", "replace"))
