"""The two commands of this package, registered in the CLI's command table by module name:
``bench-kernel mcp`` (the server) and ``bench-kernel skill`` (the skill file)."""

from __future__ import annotations

import click

from bench_kernel.errors import MissingExtraError

__all__ = ["mcp_command", "skill_command"]

#: What to install when the SDK is missing.
MCP_MISSING = "bench-kernel mcp needs the MCP SDK: pip install 'bench-kernel[mcp]'"


@click.command("mcp")
def mcp_command() -> None:
    """Serve the bench-kernel commands as MCP tools over stdio, for coding assistants.

    Each tool is a command (run, sweep, compare, history, inventory, timeline, layers, phases, ops,
    diff, attribute, source_trace, decode, roofline, devices, profile, serve) with the command's
    options as arguments, and returns its --json document as structured content. Resources: the
    sample trace and the documentation; prompts: the jobs of 'bench-kernel skill'. Register it with
    an assistant as the command `bench-kernel mcp` (docs/assistants.md).
    """
    import importlib.util

    if importlib.util.find_spec("mcp") is None:
        raise MissingExtraError(MCP_MISSING)
    from bench_kernel.mcp_server._server import serve_stdio

    serve_stdio()


@click.command("skill")
def skill_command() -> None:
    """Print the skill file a coding assistant installs (SKILL.md: front matter, then which command
    does which job and how to read the results).

    \b
        mkdir -p .claude/skills/bench-kernel
        bench-kernel skill > .claude/skills/bench-kernel/SKILL.md
    """
    from bench_kernel.mcp_server._skill import skill_text

    click.echo(skill_text(), nl=False)
