"""docs/json.md read as a schema, and a checker of a command's JSON against it (tests/test_json_docs.py).

The page documents each command as ``## `name` `` with a line ``**schema_version N**, type `T` ``,
and each object shape as ``### Shape`` with a table ``| field | type | meaning |``. Types:
``string``, ``integer``, ``number`` (an integer is a number too), ``boolean``, ``null``, ``any``, a
shape's name, ``T[]`` (an array of T), ``map<T>`` (an object with free keys, each value a T), unions
``A | B`` and parentheses ``(A | B)[]``. A field written ``name?`` may be absent; every other field
must be there. A row ``| `...` | `Shape` | ... |`` includes every field of ``Shape``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

BASE = {"string", "integer", "number", "boolean", "null", "any"}
_COMMAND = re.compile(r"^## `(?P<name>[a-z-]+)`\s*$")
_VERSION = re.compile(r"^\*\*schema_version (?P<v>\d+)\*\*, type `(?P<type>[^`]+)`")
_SHAPE = re.compile(r"^### (?P<name>[A-Z][A-Za-z0-9]*)\s*$")
_ROW = re.compile(r"^\| `(?P<field>[a-z_0-9]+|\.\.\.)(?P<opt>\??)` \| `(?P<type>[^`]+)` \| (?P<meaning>.*) \|\s*$")


@dataclass
class Shape:
    name: str
    fields: dict[str, tuple[str, bool]] = field(default_factory=dict)  # name -> (type, optional)
    includes: list[str] = field(default_factory=list)


@dataclass
class Doc:
    commands: dict[str, tuple[int, str]]  # name -> (schema_version, root type)
    shapes: dict[str, Shape]
    problems: list[str]


def parse(path: Path) -> Doc:
    commands: dict[str, tuple[int, str]] = {}
    shapes: dict[str, Shape] = {}
    problems: list[str] = []
    command: str | None = None
    shape: Shape | None = None
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if m := _COMMAND.match(line):
            command, shape = m["name"], None
            if command in commands:
                problems.append(f"{path.name}:{n}: command {command!r} documented twice")
        elif (m := _VERSION.match(line)) and command is not None:
            commands[command] = (int(m["v"]), m["type"])
        elif m := _SHAPE.match(line):
            if m["name"] in shapes:
                problems.append(f"{path.name}:{n}: shape {m['name']!r} documented twice")
            shape = shapes[m["name"]] = Shape(m["name"])
        elif line.startswith("## "):
            command = shape = None
        elif line.startswith("| `") and shape is not None:
            m = _ROW.match(line)
            if m is None:
                problems.append(f"{path.name}:{n}: a field row must read | `name` | `type` | meaning |: {line!r}")
                continue
            if not m["meaning"].strip():
                problems.append(f"{path.name}:{n}: {shape.name}.{m['field']} has no meaning")
            t = m["type"].replace("\\|", "|")  # a | in a Markdown table cell is written \|
            if m["field"] == "...":
                shape.includes.append(t)
            else:
                shape.fields[m["field"]] = (t, bool(m["opt"]))
    for s in shapes.values():  # includes, after every shape is read (one level: an included shape includes none)
        for inc in s.includes:
            if inc not in shapes or shapes[inc].includes:
                problems.append(f"{s.name}: includes {inc!r}, which is not a shape without includes of its own")
            else:
                s.fields = {**shapes[inc].fields, **s.fields}
    for name, (_, root) in commands.items():
        problems += [f"command {name!r}: {p}" for p in _type_problems(root, shapes)]
    for s in shapes.values():
        for f, (t, _) in s.fields.items():
            problems += [f"{s.name}.{f}: {p}" for p in _type_problems(t, shapes)]
    return Doc(commands, shapes, problems)


def _split_union(t: str) -> list[str]:
    parts, depth, cur = [], 0, ""
    for ch in t:
        if ch in "<(":
            depth += 1
        elif ch in ">)":
            depth -= 1
        if ch == "|" and depth == 0:
            parts.append(cur.strip())
            cur = ""
        else:
            cur += ch
    return parts + [cur.strip()]


def _names(t: str) -> list[str]:
    out = []
    for alt in _split_union(t):
        while alt.endswith("[]"):
            alt = alt[:-2]
        if alt.startswith("(") and alt.endswith(")"):
            out += _names(alt[1:-1])
        elif alt.startswith("map<") and alt.endswith(">"):
            out += _names(alt[4:-1])
        else:
            out.append(alt)
    return out


def _type_problems(t: str, shapes: dict[str, Shape]) -> list[str]:
    return [f"unknown type {n!r} in `{t}`" for n in _names(t) if n not in BASE and n not in shapes]


def used_shapes(doc: Doc) -> set[str]:
    """Every shape reachable from a command's root type."""
    seen: set[str] = set()
    todo = [n for _, root in doc.commands.values() for n in _names(root)]
    while todo:
        n = todo.pop()
        if n in doc.shapes and n not in seen:
            seen.add(n)
            todo += [x for t, _ in doc.shapes[n].fields.values() for x in _names(t)] + doc.shapes[n].includes
    return seen


def check(value: Any, t: str, doc: Doc, where: str = "$") -> list[str]:
    """Where ``value`` departs from type ``t``: one message per departure (empty when it conforms)."""
    best: list[str] | None = None
    for alt in _split_union(t):
        errs = _check_one(value, alt, doc, where)
        if not errs:
            return []
        if best is None or len(errs) < len(best):
            best = errs
    if len(_split_union(t)) > 1 and best and all(e.endswith("is not an object") for e in best):
        return [f"{where}: {_kind(value)} is none of `{t}`"]
    return best or []


def _kind(v: Any) -> str:
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "boolean"
    if isinstance(v, int):
        return "integer"
    if isinstance(v, float):
        return "number"
    if isinstance(v, str):
        return "string"
    if isinstance(v, list):
        return "array"
    return "object"


def _check_one(value: Any, t: str, doc: Doc, where: str) -> list[str]:
    if t.startswith("(") and t.endswith(")"):
        return check(value, t[1:-1], doc, where)
    if t.endswith("[]"):
        if not isinstance(value, list):
            return [f"{where}: {_kind(value)}, documented as `{t}`"]
        return [e for i, v in enumerate(value) for e in check(v, t[:-2], doc, f"{where}[{i}]")]
    if t.startswith("map<") and t.endswith(">"):
        if not isinstance(value, dict):
            return [f"{where}: {_kind(value)}, documented as `{t}`"]
        return [e for k, v in value.items() for e in check(v, t[4:-1], doc, f"{where}.{k}")]
    if t == "any":
        return []
    if t in BASE:
        kind = _kind(value)
        ok = kind == t or (t == "number" and kind == "integer")
        return [] if ok else [f"{where}: {kind}, documented as `{t}`"]
    shape = doc.shapes[t]
    if not isinstance(value, dict):
        return [f"{where}: {_kind(value)} is not an object ({t})"]
    errs = [f"{where}.{k}: not documented in {t} (a {_kind(v)}: add a row to docs/json.md)"
            for k, v in value.items() if k not in shape.fields]
    for f, (ft, optional) in shape.fields.items():
        if f not in value:
            if not optional:
                errs.append(f"{where}.{f}: documented in {t} but absent (mark it `{f}?` if it may be)")
            continue
        errs += check(value[f], ft, doc, f"{where}.{f}")
    return errs
