"""bench-kernel for coding assistants: an MCP server whose tools are the CLI's commands, and the skill
file that says which command does which job.

A shell beside the CLI, one layer above it: its tools ARE the CLI's commands (their click parameters
generate the tools' arguments, and each call runs the command with ``--json``), so it imports ``cli``;
the CLI reaches its two commands (``mcp``, ``skill``) by module name through its command table, as
it reaches every command. Nothing here imports the ``mcp`` SDK at module level: ``bench-kernel skill``
and the tool specs work without the ``mcp`` extra.
"""

from bench_kernel.mcp_server._commands import MCP_MISSING, mcp_command, skill_command
from bench_kernel.mcp_server._jobs import JOBS, Job, Step
from bench_kernel.mcp_server._skill import DESCRIPTION, commands_named, setup_commands, skill_text
from bench_kernel.mcp_server._tools import TOOLS, ToolInputError, ToolSpec, tool_spec, tool_specs

__all__ = ["mcp_command", "skill_command", "MCP_MISSING", "JOBS", "Job", "Step", "skill_text", "setup_commands",
           "DESCRIPTION", "commands_named", "TOOLS", "ToolSpec", "ToolInputError", "tool_spec", "tool_specs"]
