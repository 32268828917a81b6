"""The JSON Schema of each command's document, and its Markdown for ``docs/json.md``, generated
from the records (``_documents.DOCUMENTS``): the record is written once, and its schema and its page
cannot drift from it.

The Markdown follows the page's conventions: a command is ``## `name` `` with a line
``**schema_version N**, type `T` ``; each object shape is ``### Shape`` with a table of field, type
and meaning. Types are ``string``, ``integer``, ``number``, ``boolean``, ``null``, ``any``, a
shape's name, ``T[]``, ``map<T>`` and unions ``A | B``; a field with a fixed set of values says them
in its meaning, and a field that may be absent (``msgspec.UNSET`` until set) is written ``name?``.
A command that may print one of several documents (``_documents.OTHER_DOCUMENTS``) has a type
``A | B`` and every shape of each.
"""

from __future__ import annotations

import functools
import json
from importlib import resources
from typing import Any, Iterable

import msgspec

from bench_kernel.records._base import Record
from bench_kernel.records._documents import DOCUMENTS, OTHER_DOCUMENTS

__all__ = ["schema", "published_schema", "markdown_sections", "version"]

_REF = "#/$defs/{name}"


def _roots(command: str) -> tuple[type[Record], ...]:
    """The records ``command``'s ``--json`` may be: its document, then any other."""
    return (DOCUMENTS[command], *OTHER_DOCUMENTS.get(command, ()))


def schema(command: str) -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of ``command``'s ``--json`` document (any one of them, for a
    command with several). KeyError for a command whose document is not a record yet."""
    roots = _roots(command)
    if len(roots) == 1:
        out = msgspec.json.schema(roots[0], ref_template=_REF)
    else:
        refs, components = msgspec.json.schema_components(roots, ref_template=_REF)
        out = {"anyOf": list(refs), "$defs": components}
    out["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    out["title"] = f"bench-kernel {command} --json"
    return out


@functools.lru_cache(maxsize=None)
def _published_text(command: str) -> str:
    return (resources.files("bench_kernel.records") / "schemas" / f"{command}.json").read_text(encoding="utf-8")


def published_schema(command: str) -> dict[str, Any]:
    """:func:`schema` as the package publishes it (``schemas/<command>.json``, generated from the
    records and held equal to them by the tests): read, not rebuilt. Building every document's
    schema walks every record's annotations, 0.6 s for the MCP server's tools at each start.
    Parsed anew each call: the caller may change it. FileNotFoundError for a command without one."""
    out: dict[str, Any] = json.loads(_published_text(command))
    return out


def version(command: str) -> int:
    """The ``schema_version`` that ``command``'s document is written with."""
    return int(next(f.default for f in msgspec.structs.fields(DOCUMENTS[command]) if f.name == "schema_version"))


def _type(s: dict[str, Any]) -> str:
    """A schema as the page writes a type."""
    if "$ref" in s:
        return str(s["$ref"]).rsplit("/", 1)[-1]
    if "anyOf" in s:
        return " | ".join(dict.fromkeys(_type(x) for x in s["anyOf"]))
    if "enum" in s:
        kinds = {type(v).__name__ for v in s["enum"]}
        return "string" if kinds == {"str"} else "any"
    t = s.get("type")
    if t == "array":
        items = s.get("items")
        if items is None and "prefixItems" in s:
            inner = " | ".join(dict.fromkeys(_type(x) for x in s["prefixItems"]))
        else:
            inner = _type(items or {})
        return f"({inner})[]" if "|" in inner else f"{inner}[]"
    if t == "object":
        extra = s.get("additionalProperties")
        return f"map<{_type(extra) if isinstance(extra, dict) else 'any'}>"
    if isinstance(t, list):
        return " | ".join(t)
    return {"string": "string", "integer": "integer", "number": "number", "boolean": "boolean",
            "null": "null"}.get(t or "", "any")


def _choices(s: dict[str, Any]) -> list[Any]:
    if "enum" in s:
        # an empty string is a choice too (a field left empty): written as JSON writes it
        return ['""' if v == "" else v for v in s["enum"]]
    return [v for x in s.get("anyOf", ()) for v in _choices(x)]


def _refs(s: Any) -> list[str]:
    if isinstance(s, dict):
        own = [s["$ref"].rsplit("/", 1)[-1]] if "$ref" in s else []
        return own + [r for v in s.values() for r in _refs(v)]
    if isinstance(s, list):
        return [r for v in s for r in _refs(v)]
    return []


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _shape(name: str, comp: dict[str, Any]) -> list[str]:
    lines = [f"### {name}", "", "| field | type | meaning |", "|---|---|---|"]
    required = set(comp.get("required", ()))
    for field, s in comp.get("properties", {}).items():
        meaning = s.get("description", "")
        choices = _choices(s)
        if not meaning and len(choices) == 1:  # a tag (``tag_field``): msgspec gives it no description
            meaning = f"always `{choices[0]}`: what kind of document this is"
        elif choices and all(isinstance(c, str) for c in choices):
            meaning += f" (one of {', '.join(f'`{c}`' for c in choices)})"
        # msgspec leaves a field that may be absent (``msgspec.UNSET``) out of ``required`` and gives it
        # no default: the page writes it ``name?``.
        absent = "?" if field not in required and "default" not in s else ""
        lines.append(f"| `{field}{absent}` | `{_cell(_type(s))}` | {_cell(meaning) or '-'} |")
    return lines + [""]


def _paragraph(text: str) -> str:
    return " ".join(line.strip() for line in text.strip().splitlines()).replace("``", "`")


def markdown_sections(commands: Iterable[str]) -> dict[str, str]:
    """command -> its section of ``docs/json.md``. Each shape is written once, in the section of the
    first of ``commands`` that uses it; later sections refer to it by name."""
    commands = list(commands)
    _, components = msgspec.json.schema_components([r for c in commands for r in _roots(c)], ref_template=_REF)
    written: set[str] = set()
    out = {}
    for command in commands:
        roots = [r.__name__ for r in _roots(command)]
        lines = [f"## `{command}`", "", f"**schema_version {version(command)}**, type `{' | '.join(roots)}`", ""]
        for r in _roots(command):
            text = _paragraph(r.__doc__ or "")
            if text and len(roots) > 1:  # one paragraph per document: "`RanksOutput`: a folder of ..."
                first = text.split()[0]
                text = f"`{r.__name__}`: {text if len(first) > 1 and first.isupper() else text[:1].lower() + text[1:]}"
            if text:
                lines += [text, ""]
        todo = list(roots)
        while todo:
            name = todo.pop(0)
            if name in written or name not in components:
                continue
            written.add(name)
            lines += _shape(name, components[name])
            todo += [r for r in _refs(components[name]) if r not in written]
        out[command] = "\n".join(lines).rstrip() + "\n"
    return out
