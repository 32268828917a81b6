"""The MCP tools, generated from the CLI's click commands so that they cannot drift from it.

A tool is named after its command (dashes become underscores); its arguments are the command's
options, named by their long flag (``--steps`` -> ``steps``, ``-m/--method`` -> ``method``), and its
positional arguments by their name (``trace``, ``target``, ``spec``, ``names``). A call becomes the
command line ``bench-kernel COMMAND --opt=value ... --json -- POSITIONAL...``: the CLI checks every
value, so a bad one gets the CLI's own one-line message. The output formats (``--json``, ``--csv``,
``--md``, ``-o``) are no arguments: a tool always returns the ``--json`` document.
"""

from __future__ import annotations

import importlib
import inspect
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Mapping

import click

from bench_kernel.cli import COMMANDS, ERROR_PREFIX, Number
from bench_kernel.records import DOCUMENTS, OTHER_SHAPES, published_schema

__all__ = ["TOOLS", "ToolSpec", "ToolInputError", "tool_specs", "tool_spec"]

#: The commands an assistant gets as tools. Not: ``calibrate`` (writes the user's calibration cache),
#: ``report`` (an HTML file for people), ``sample-trace`` (a resource), ``mcp`` and ``skill``.
TOOLS = ("run", "sweep", "compare", "history", "inventory", "timeline", "layers", "phases", "ops", "diff",
         "attribute", "source-trace", "decode", "roofline", "devices", "profile", "serve")

#: Options that only choose how the result is rendered or where it goes: the tool returns the document.
_RENDERING = {"--json", "--csv", "--md"}
#: Commands whose ``-o`` is something the command makes (not the rendering of its document): kept,
#: and required, so that nothing is written where the arguments do not say.
_ARTIFACT_OUTPUT = {"profile": "Where to write the trace (.json.gz is gzipped). Required here: the server "
                               "writes nothing its arguments do not name."}
#: Arguments a tool requires though its command has a default that writes somewhere unnamed.
_REQUIRED = {
    "sweep": {"db": "The results database the sweep stores each point in. Required here: the server "
                    "writes no database its arguments do not name."},
}


class ToolInputError(Exception):
    """Arguments that do not fit the tool (an unknown name, a wrong JSON type): its one-line message
    is the tool error, worded as the CLI words its own."""


@dataclass(frozen=True)
class Argument:
    """One argument of a tool: its name, the click parameter behind it, its JSON Schema."""

    name: str
    param: click.Parameter
    schema: dict[str, Any]

    @property
    def flag(self) -> str | None:
        """The long option (``--steps``); None for a positional argument."""
        if isinstance(self.param, click.Argument):
            return None
        return max(self.param.opts, key=len)

    @property
    def is_flag(self) -> bool:
        return isinstance(self.param, click.Option) and self.param.is_flag

    @property
    def many(self) -> bool:
        return bool(getattr(self.param, "multiple", False)) or self.param.nargs == -1


@dataclass(frozen=True)
class ToolSpec:
    """A tool: name, the command it runs, description, arguments and their schema, the output schema."""

    name: str
    command: str
    description: str
    arguments: tuple[Argument, ...]
    required: tuple[str, ...]
    output_schema: dict[str, Any] | None
    check: Callable[[Mapping[str, Any]], str | None] | None = None
    #: Arguments this tool requires though the command does not (they would write somewhere unnamed).
    added: tuple[str, ...] = ()

    @property
    def input_schema(self) -> dict[str, Any]:
        return {"type": "object", "properties": {a.name: a.schema for a in self.arguments},
                "required": list(self.required), "additionalProperties": False}

    def argv(self, arguments: Mapping[str, Any] | None) -> list[str]:
        """The command line (after ``bench-kernel``) of a call with ``arguments``; ToolInputError for
        arguments that are no argument of this tool or are of the wrong JSON type."""
        given = {k: v for k, v in (arguments or {}).items() if v is not None}
        by_name = {a.name: a for a in self.arguments}
        unknown = sorted(set(given) - set(by_name))
        if unknown:
            raise ToolInputError(f"{self.name} has no argument {unknown[0]!r}; its arguments: "
                                 f"{', '.join(sorted(by_name)) or 'none'}")
        # What the command itself requires it says itself (its one line); here only what the tool adds.
        missing = [n for n in self.required if n not in given and n in self.added]
        if missing:
            raise ToolInputError(f"{self.name} needs the argument {missing[0]!r}: "
                                 f"{by_name[missing[0]].schema.get('description', '')}".rstrip(": "))
        if self.check is not None:
            problem = self.check(given)
            if problem:
                raise ToolInputError(problem)
        options: list[str] = []
        positional: list[str] = []
        for arg in self.arguments:
            if arg.name not in given:
                continue
            value = given[arg.name]
            if arg.is_flag:
                if not isinstance(value, bool):
                    raise ToolInputError(f"{self.name}: argument {arg.name!r} takes true or false, got {value!r}")
                options += [arg.flag] if value else []  # type: ignore[list-item]
                continue
            values = value if isinstance(value, list) and arg.many else [value]
            if isinstance(value, list) and not arg.many:
                raise ToolInputError(f"{self.name}: argument {arg.name!r} takes one value, got a list")
            texts = [_text(self.name, arg.name, v) for v in values]
            if arg.flag is None:
                positional += texts
            else:  # --opt=value: a value that starts with '-' is still a value
                options += [f"{arg.flag}={t}" for t in texts]
        # '--' ends the options: a positional value that starts with '-' (a name) is no option.
        return [self.command, *options, "--json", *(["--", *positional] if positional else [])]


def _text(tool: str, name: str, value: Any) -> str:
    """A JSON scalar as the command line writes it; the CLI then checks it as it checks any value."""
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        raise ToolInputError(f"{tool}: argument {name!r} takes a string or a number, got {value!r}")
    return str(value)


def _bounds(schema: dict[str, Any], low: float | None, high: float | None, low_open: bool = False,
            high_open: bool = False) -> dict[str, Any]:
    for bound, key, open_ in ((low, "minimum", low_open), (high, "maximum", high_open)):
        if bound is not None and math.isfinite(bound):
            schema["exclusive" + key.capitalize() if open_ else key] = bound
    return schema


def _value_schema(kind: click.ParamType) -> dict[str, Any]:
    """The JSON Schema of one value of a click type."""
    if isinstance(kind, click.Choice):
        return {"type": "string", "enum": [str(c) for c in kind.choices]}
    if isinstance(kind, click.IntRange):
        return _bounds({"type": "integer"}, kind.min, kind.max, kind.min_open, kind.max_open)
    if isinstance(kind, click.FloatRange):
        return _bounds({"type": "number"}, kind.min, kind.max, kind.min_open, kind.max_open)
    if isinstance(kind, Number):
        return _bounds({"type": "number"}, kind.min, kind.max, kind.min_open)
    if kind is click.INT:
        return {"type": "integer"}
    if kind is click.FLOAT:
        return {"type": "number"}
    return {"type": "string"}


def _default(param: click.Parameter) -> Any:
    value = param.default
    if value is None or callable(value) or type(value).__name__ == "Sentinel":
        return None
    if isinstance(value, Path):
        return str(value)
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value if isinstance(value, (str, int, float, bool)) else None


def _argument(param: click.Parameter, help_text: str | None = None, usage: str = "") -> Argument:
    if isinstance(param, click.Option):
        name = max(param.opts, key=len).lstrip("-").replace("-", "_")
        text = help_text or param.help or ""
        if param.is_flag:
            schema: dict[str, Any] = {"type": "boolean", "default": False}
        else:
            schema = _value_schema(param.type)
            if param.multiple:
                schema = {"type": "array", "items": schema}
            else:
                default = _default(param)
                if default is not None:
                    schema["default"] = default
            if isinstance(param.type, click.Path):
                text = f"{text} (a path)".strip()
    else:
        assert param.name is not None
        name = param.name
        metavar = (param.metavar or param.name).strip("[].").upper()
        text = help_text or f"{metavar}, the positional argument of `{usage}`: the description says what it takes"
        schema = _value_schema(param.type)
        if param.nargs == -1:
            schema = {"type": "array", "items": schema}
    if text:
        schema["description"] = " ".join(inspect.cleandoc(text).replace("\b", "").split())
    return Argument(name, param, schema)


def _output_schema(command: str) -> dict[str, Any] | None:
    """The document's JSON Schema with an object at its root (MCP asks for one): the root type's
    shape is lifted out of ``$defs``, where the others still refer to it. None for a command whose
    output may be another document (``OTHER_SHAPES``): a promised schema would refuse it."""
    if command not in DOCUMENTS or command in OTHER_SHAPES:
        return None
    full = published_schema(command)
    ref = full.get("$ref")
    if ref is None:
        return full
    root = full["$defs"][ref.rsplit("/", 1)[-1]]
    return {"$schema": full["$schema"], "title": full["title"], **root, "$defs": full["$defs"]}


def _serve_check(given: Mapping[str, Any]) -> str | None:
    if given.get("launch") and not given.get("server_log"):
        return ("serve with launch needs server_log (FILE): the launched server's log would otherwise be "
                "left in a temporary file, and the server writes nothing its arguments do not name")
    return None


def _profile_check(given: Mapping[str, Any]) -> str | None:
    if str(given.get("output", "")).strip() in ("-", "/dev/stdout", "/dev/fd/1"):
        return "profile's output must be a file: the tool returns the summary, not the trace"
    return None


_CHECKS: dict[str, Callable[[Mapping[str, Any]], str | None]] = {"serve": _serve_check, "profile": _profile_check}


def _command(name: str) -> click.Command:
    module, attr = COMMANDS[name].split(":")
    command = getattr(importlib.import_module(module), attr)
    assert isinstance(command, click.Command)
    return command


def tool_spec(command: str) -> ToolSpec:
    """The tool of one command of :data:`TOOLS`."""
    cmd = _command(command)
    with click.Context(cmd, info_name=f"bench-kernel {command}") as ctx:
        usage = " ".join([ctx.command_path, *cmd.collect_usage_pieces(ctx)])
    arguments: list[Argument] = []
    required: list[str] = []
    added: list[str] = []
    for param in cmd.params:
        opts = set(getattr(param, "opts", ()))
        if opts & _RENDERING or (opts & {"--output"} and command not in _ARTIFACT_OUTPUT):
            continue
        forced = {**_REQUIRED.get(command, {}), **({"output": _ARTIFACT_OUTPUT[command]} if command in _ARTIFACT_OUTPUT else {})}
        probe = _argument(param, usage=usage)
        arg = _argument(param, forced.get(probe.name), usage) if probe.name in forced else probe
        if arg.name in forced:
            arg.schema.pop("default", None)
        arguments.append(arg)
        if param.required or arg.name in forced:
            required.append(arg.name)
        if arg.name in forced and not param.required:
            added.append(arg.name)
    names = [a.name for a in arguments]
    assert len(set(names)) == len(names), f"{command}: two arguments named alike: {names}"
    text = inspect.cleandoc(cmd.help or "").replace("\b\n", "").replace("\b", "")
    description = (f"{text}\n\nReturns the `bench-kernel {command} --json` document as structured content "
                   f"(docs/json.md). A bad argument is a tool error with the CLI's message ({ERROR_PREFIX}...).")
    return ToolSpec(name=command.replace("-", "_"), command=command, description=description,
                    arguments=tuple(arguments), required=tuple(required), output_schema=_output_schema(command),
                    check=_CHECKS.get(command), added=tuple(added))


def tool_specs() -> dict[str, ToolSpec]:
    """Every tool by its name."""
    return {spec.name: spec for spec in map(tool_spec, TOOLS)}
