"""``python -m bench_kernel.mcp_server._child FD COMMAND ...``: the CLI, for one tool call of the MCP
server, with its progress written to file descriptor FD as one JSON line ``[done, total, message]``
each (stdout is the document, stderr the CLI's messages, as for ``bench-kernel``)."""

from __future__ import annotations

import json
import os
import signal
import sys

from bench_kernel.cli import main as cli_main

__all__ = ["main"]


def main(argv: list[str]) -> int:
    # Ctrl-C (the server's cancel) is KeyboardInterrupt here, as in a terminal, whatever the server
    # inherited (a client may start it with SIGINT ignored, and children inherit that).
    signal.signal(signal.SIGINT, signal.default_int_handler)
    stream = os.fdopen(int(argv[0]), "w", buffering=1, encoding="utf-8")

    def progress(done: int, total: int | None, message: str) -> None:
        try:
            stream.write(json.dumps([done, total, message]) + "\n")
        except (OSError, ValueError):  # the server stopped listening: the work goes on regardless
            pass

    return cli_main(argv[1:], progress=progress)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
