"""Starting ``bench-kernel mcp`` as an assistant does (a subprocess on stdio) and talking to it with
the MCP SDK's own client, from sync tests: an anyio portal runs the client in a thread of its own."""

from __future__ import annotations

import contextlib
import os
import sys
from pathlib import Path
from typing import Iterator

ROOT = Path(__file__).resolve().parent.parent
SANDBOX_DIRS = ("home", "work", "xdg-data", "xdg-cache", "xdg-config")


class Session:
    """A sync face on the client session (an anyio portal runs it in a thread of its own)."""

    def __init__(self, portal, session) -> None:
        self.portal, self.session = portal, session

    def call(self, name: str, arguments: dict, progress=None):
        return self.portal.call(lambda: self.session.call_tool(name, arguments, progress_callback=progress))

    def __getattr__(self, name):
        method = getattr(self.session, name)
        return lambda *a: self.portal.call(lambda: method(*a))


def make_sandbox(root: Path) -> Path:
    """A HOME, XDG folders and a working folder of the server's own, to see what it writes."""
    for sub in SANDBOX_DIRS:
        (root / sub).mkdir(parents=True, exist_ok=True)
    return root


def written(sandbox: Path) -> list[str]:
    """Every file under the sandbox's folders."""
    return sorted(str(p.relative_to(sandbox)) for sub in SANDBOX_DIRS for p in (sandbox / sub).rglob("*") if p.is_file())


@contextlib.contextmanager
def mcp_server(sandbox: Path) -> Iterator[Session]:
    """``bench-kernel mcp`` in ``sandbox`` (its log: ``sandbox/server.log``), initialized."""
    from anyio.from_thread import start_blocking_portal
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    env = {k: v for k, v in os.environ.items() if k != "BENCH_KERNEL_DB"}
    env.update(HOME=str(sandbox / "home"), XDG_DATA_HOME=str(sandbox / "xdg-data"),
               XDG_CACHE_HOME=str(sandbox / "xdg-cache"), XDG_CONFIG_HOME=str(sandbox / "xdg-config"),
               MPLCONFIGDIR=str(sandbox / "xdg-config"), PYTHONPATH=str(ROOT / "src"))
    params = StdioServerParameters(command=sys.executable, args=["-m", "bench_kernel", "mcp"], env=env,
                                   cwd=str(sandbox / "work"))
    with open(sandbox / "server.log", "w") as log, start_blocking_portal() as portal:
        with portal.wrap_async_context_manager(stdio_client(params, errlog=log)) as (read, write):
            with portal.wrap_async_context_manager(ClientSession(read, write)) as session:
                portal.call(session.initialize)
                yield Session(portal, session)
