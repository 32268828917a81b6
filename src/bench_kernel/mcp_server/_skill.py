"""``bench-kernel skill``: the skill file a coding assistant installs (Claude Code:
``.claude/skills/bench-kernel/SKILL.md``; Codex and other Agent Skills readers:
``.agents/skills/bench-kernel/SKILL.md``).

Everything it says about commands is read from the CLI itself, so that it cannot drift: each
command's usage and first help line, the jobs' command lines built from the commands' own flags
(``_jobs``), the methods as ``run --method`` describes them, the verdicts as ``compare`` does, the
exit statuses as ``main`` does. The setup is the README's first two commands, verbatim, from the
checkout's README.md or, installed, from the package's metadata (the README as it was built).
"""

from __future__ import annotations

import inspect
import re
from pathlib import Path

import click

from bench_kernel.cli import cli, main
from bench_kernel.mcp_server._jobs import JOBS, Step
from bench_kernel.mcp_server._tools import TOOLS, tool_spec
from bench_kernel.records import Note

__all__ = ["skill_text", "setup_commands", "DESCRIPTION", "commands_named"]

_ROOT = Path(__file__).resolve().parent.parent.parent.parent

#: The front matter's description: what the skill does and when an assistant should use it.
DESCRIPTION = ("Measure, explain and document GPU kernel performance with bench-kernel: time a kernel "
               "(CUDA-graph, events, profiler and host methods) with roofline analysis, profile an LLM into a "
               "kernel inventory, per-layer and prefill/decode kernel maps from traces, serving benchmarks "
               "(TTFT/TPOT/throughput), kernel-name decoding (CK, CUTLASS, Triton, cuBLAS), regressions "
               "between runs, and source-level walkthroughs from Python to kernel. Use when asked to "
               "benchmark, profile, compare or explain GPU kernels or LLM inference performance.")


def setup_commands() -> list[str]:
    """The README's first two commands: its first fenced block's first two command lines."""
    readme = _ROOT / "README.md"
    if readme.is_file() and (_ROOT / "pyproject.toml").is_file():
        text = readme.read_text(encoding="utf-8")
    else:
        from importlib.metadata import metadata

        meta = metadata("bench-kernel")
        text = meta.get_payload() or meta.get("Description", "")  # type: ignore[attr-defined]
    block = re.search(r"^```[a-z]*\n(.*?)^```", text, re.S | re.M)
    lines = [ln for ln in (block.group(1).splitlines() if block else []) if ln.strip() and not ln.startswith("#")]
    if len(lines) < 2:
        raise RuntimeError("README.md's first code block does not hold two commands")
    return lines[:2]


def _command(name: str) -> click.Command:
    with click.Context(cli, info_name="bench-kernel") as ctx:
        cmd = cli.get_command(ctx, name)
    assert cmd is not None, name
    return cmd


def _usage(name: str) -> str:
    cmd = _command(name)
    with click.Context(cmd, info_name=f"bench-kernel {name}") as ctx:
        return " ".join([ctx.command_path, *cmd.collect_usage_pieces(ctx)])


def _first_line(name: str) -> str:
    return _paragraphs(_command(name).help)[0]


def _paragraphs(text: str | None) -> list[str]:
    clean = inspect.cleandoc(text or "").replace("\b", "")
    return [" ".join(p.split()) for p in clean.split("\n\n") if p.strip()]


def _step_line(step: Step) -> str:
    """A step as a command line, with the command's own flags."""
    spec = tool_spec(step.command)
    by_name = {a.name: a for a in spec.arguments}
    options: list[str] = []
    positional: list[str] = []
    for name, value in step.arguments.items():
        arg = by_name[name]
        shown = value.replace("{", "").replace("}", "").upper() if value.startswith("{") else value
        if arg.flag is None:
            positional.append(shown)
        elif arg.is_flag:
            options.append(arg.flag)
        else:
            options.append(f"{arg.flag} {shown}")
    return " ".join(["bench-kernel", step.command, *positional, *options, "--json"])


def _option_help(command: str, flag: str) -> str:
    for param in _command(command).params:
        if flag in getattr(param, "opts", ()):
            return " ".join(str(getattr(param, "help", "") or "").split())
    raise KeyError(f"{command} has no option {flag}")


def _note_fields() -> str:
    """The note record's fields as its schema describes them."""
    import msgspec

    props = msgspec.json.schema(Note)["$defs"]["Note"]["properties"]
    return "; ".join(f"`{name}`: {p.get('description', '')}" for name, p in props.items())


def commands_named(text: str) -> list[str]:
    """Every command the text names as code (`` `bench-kernel COMMAND ...` ``): what the test checks
    against the CLI."""
    return sorted(set(re.findall(r"`bench-kernel ([a-z][a-z-]*)", text)))


def skill_text() -> str:
    """The skill document (Markdown with YAML front matter)."""
    lines = ["---", "name: bench-kernel", f"description: {DESCRIPTION}", "user-invocable: true", "---", "",
             "# bench-kernel", "", " ".join(_paragraphs(cli.help)[:1]), "",
             "## Setup", "", "```sh", *setup_commands(), "```", "",
             "The first line installs bench-kernel from its checkout and times the built-in examples on this "
             "machine's device; the second runs its tests. With the `mcp` extra (`pip install "
             "'bench-kernel[mcp]'`), `bench-kernel mcp` serves every command below as an MCP tool over stdio "
             "(same arguments, named after the flags; the result is the command's `--json` document). "
             "Without it, run the commands with `--json` and read the JSON.", "",
             "## Which command does which job", ""]
    for job in JOBS:
        lines += [f"### {job.title}", ""]
        for i, step in enumerate(job.steps, 1):
            lines.append(f"{i}. `{_step_line(step)}`: {step.read}.")
        lines += ["", job.then, ""]
    lines += ["## The commands", ""]
    for name in (*TOOLS, "sample-trace"):
        lines.append(f"- `{_usage(name)}`: {_first_line(name)}")
    lines += ["", "`bench-kernel COMMAND --help` gives every option.", "",
              "## Reading the results", "",
              "Every `--json` document starts with `schema_version`; its fields are in docs/json.md "
              "(`bench-kernel mcp` serves the page as a resource).", "",
              f"**Which method answers which question** (`run --method`): {_option_help('run', '--method')} "
              "Quote `graph` for the kernels' own cost without launch overhead, `events` for what eager code "
              "pays, `kernel` for the device's time and the per-kernel breakdown, `host` only where there "
              "is no GPU.", "",
              f"**Verdicts** (`compare`): {_paragraphs(_command('compare').help)[1]}", "",
              f"**Notes** (`notes` of a result, a measurement or a document): {_note_fields()}. Read every "
              "warning before quoting a number (throttling, methods that disagree, a stop on the time bound "
              "before the precision asked for); match notes by `code`, never by their wording.", "",
              f"**Exit status**: {' '.join(_paragraphs(main.__doc__)[1:2])} An error is one line on "
              "stderr, `bench-kernel: error: ...`, naming what to fix.", ""]
    return "\n".join(lines)
