"""The ``bench-kernel`` command line: parse, call the Python API, render. Nothing is computed here.

Each command lives in its own module (``cli/<command>.py`` exposing ``command``) and is imported
only when invoked, so ``bench-kernel decode`` never pays for torch.
"""

from __future__ import annotations

import difflib
import importlib
import os
import sys
import types
from typing import Sequence

import click

from bench_kernel.cli._common import ERROR_PREFIX, Invocation, Progress, print_error
from bench_kernel.cli._numbers import Number
from bench_kernel.errors import BenchKernelError

__all__ = ["main", "console", "cli", "COMMANDS", "Progress", "ERROR_PREFIX", "Number"]

# command name -> "module:attribute". The only registry of commands: add a line per command.
_COMMANDS: dict[str, str] = {
    "run": "bench_kernel.cli.run:command",
    "decode": "bench_kernel.cli.decode:command",
    "calibrate": "bench_kernel.cli.calibrate:command",
    "devices": "bench_kernel.cli.devices:command",
    "roofline": "bench_kernel.cli.roofline:command",
    "source-trace": "bench_kernel.cli.source_trace:command",
    "attribute": "bench_kernel.cli.attribute:command",
    "diff": "bench_kernel.cli.diff:command",
    "inventory": "bench_kernel.cli.inventory:command",
    "layers": "bench_kernel.cli.layers:command",
    "phases": "bench_kernel.cli.phases:command",
    "profile": "bench_kernel.cli.profile:command",
    "sweep": "bench_kernel.cli.sweep:command",
    "compare": "bench_kernel.cli.compare:command",
    "history": "bench_kernel.cli.history:command",
    "timeline": "bench_kernel.cli.timeline:command",
    "report": "bench_kernel.cli.report:command",
    "ops": "bench_kernel.cli.ops:command",
    "serve": "bench_kernel.cli.serve:command",
    "sample-trace": "bench_kernel.cli.sample_trace:command",
    # The shell for coding assistants sits one layer above the CLI (its tools are these commands):
    # reached by name, as every command is.
    "mcp": "bench_kernel.mcp_server:mcp_command",
    "skill": "bench_kernel.mcp_server:skill_command",
}

#: The commands by name (read-only): what the MCP server and the skill file are generated from.
COMMANDS = types.MappingProxyType(_COMMANDS)

#: The variable click's shell completion reads (``_BENCH_KERNEL_COMPLETE=bash_source bench-kernel``).
_COMPLETE_VAR = "_BENCH_KERNEL_COMPLETE"


def _suggest(name: str) -> str:
    """'; did you mean ...?' for a mistyped command: its prefix matches, else the closest names."""
    close = [c for c in sorted(_COMMANDS) if c.startswith(name)] or difflib.get_close_matches(name, _COMMANDS, n=3, cutoff=0.75)
    if not close:
        return f"; the commands are {', '.join(sorted(_COMMANDS))}"
    return f"; did you mean {' or '.join(repr(c) for c in close)}?"


class _LazyGroup(click.Group):
    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(_COMMANDS)

    def resolve_command(self, ctx: click.Context, args: list[str]) -> tuple:
        name = args[0] if args else ""
        if name not in _COMMANDS and not name.startswith("-"):
            ctx.fail(f"no such command {name!r}{_suggest(name)}")
        return super().resolve_command(ctx, args)

    def shell_complete(self, ctx: click.Context, incomplete: str) -> list:
        """The command names that start with ``incomplete``, without importing a command's module
        (click's own asks each command for its help line: every module, numpy and all, per TAB)."""
        from click.shell_completion import CompletionItem

        names = [CompletionItem(name) for name in sorted(_COMMANDS) if name.startswith(incomplete)]
        return names + click.Command.shell_complete(self, ctx, incomplete)

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        target = _COMMANDS.get(name)
        if target is None:
            return None
        module, attr = target.split(":")
        return getattr(importlib.import_module(module), attr)


@click.group(cls=_LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="bench-kernel", prog_name="bench-kernel")
def cli() -> None:
    """Measure, explain and document GPU kernel performance.

    Add --debug anywhere to see tracebacks instead of one-line errors.
    """


def main(argv: Sequence[str] | None = None, *, progress: Progress | None = None) -> int:
    """Run the CLI on ``argv`` (default ``sys.argv[1:]``) and return the exit status.

    0 success, 1 runtime error (bad file, failing target, ...), 2 usage error, 130 interrupted
    (Ctrl-C). "internal error" is reserved for bugs of bench-kernel itself.

    progress: told as long work advances (``Invocation.progress``), besides what the terminal shows.
    """
    instruction = os.environ.get(_COMPLETE_VAR)
    if instruction:
        # What click's own entry does first; we skip that entry (below), so we call it ourselves.
        from click.shell_completion import shell_complete

        return shell_complete(cli, {}, "bench-kernel", _COMPLETE_VAR, instruction)
    args = list(sys.argv[1:] if argv is None else argv)
    debug = "--debug" in args or os.environ.get("BENCH_KERNEL_DEBUG") == "1"
    args = [a for a in args if a != "--debug"]
    if not args:
        # A bare `bench-kernel` asks what there is: the help, as `--help` prints it.
        with click.Context(cli, info_name="bench-kernel") as ctx:
            click.echo(cli.get_help(ctx))
        return 0
    try:
        # Not cli.main(): click turns Ctrl-C into a blank line and Abort (exit 1); we want 130.
        with cli.make_context("bench-kernel", args, obj=Invocation(tuple(args), debug, progress)) as ctx:
            rv = cli.invoke(ctx)
        return rv if isinstance(rv, int) else 0
    except click.exceptions.Exit as e:
        return e.exit_code
    except click.exceptions.Abort:
        print_error("aborted")
        return 1
    except click.UsageError as e:
        if debug:
            raise
        hint = f" (see 'bench-kernel {e.ctx.command_path.split(' ', 1)[1]} --help')" if e.ctx and " " in e.ctx.command_path else ""
        print_error(e.format_message() + hint)
        return 2
    except click.ClickException as e:
        if debug:
            raise
        print_error(e.format_message())
        return e.exit_code or 1
    except BenchKernelError as e:
        if debug:
            raise
        print_error(str(e))
        return e.exit_code
    except KeyboardInterrupt:
        print_error("interrupted")
        return 130
    except BrokenPipeError:
        # `bench-kernel inventory t.json | head`: the reader stopped reading, which is its choice and
        # no error of ours; exit quietly and successfully, as `git log | head` does.
        _silence_stdout()
        return 0
    except Exception as e:  # noqa: BLE001 - the promise is one line, never a traceback
        if debug:
            raise
        print_error(f"internal error: {type(e).__name__}: {e} (rerun with --debug for the traceback)")
        return 1


def console() -> None:
    """The ``bench-kernel`` script and ``python -m bench_kernel``: :func:`main`, then the process
    ends with its status (without torch's teardown where it can: ``_exit``)."""
    from bench_kernel.cli._exit import leave

    leave(main())


def _silence_stdout() -> None:
    # Python flushes stdout at exit; into a closed pipe that prints "Exception ignored ...".
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, AttributeError, ValueError):
        pass
    try:
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - also for a stdout with no file descriptor
    except OSError:
        pass
