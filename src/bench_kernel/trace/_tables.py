"""The trace package's data tables: launch-API kinds, the Kineto arg map, the step rules.

Each table lives in ``trace/data/`` and is validated when it is read; a bad row raises
:class:`~bench_kernel.errors.InputError` naming the file, the line and the fix. The step rules may
be replaced by a user file (``--steps FILE``), so their validation messages are written for users.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal

from bench_kernel.datafile import package_text, read_package_tsv, user_file_text
from bench_kernel.errors import InputError
from bench_kernel.userregex import UserRegex, user_regex

__all__ = [
    "LAUNCH_KINDS",
    "PHASES",
    "ArgField",
    "StepRule",
    "StepRules",
    "launch_apis",
    "launch_kinds",
    "Collective",
    "collectives",
    "arg_fields",
    "load_step_rules",
    "parse_step_rules",
]

#: What a host API call does; see ``data/launch_apis.tsv``.
#: Appended only: a kind's index is stored per launch (``Trace.launch_kind``).
LAUNCH_KINDS = ("kernel", "graph", "memcpy", "memset", "sync", "capture_begin", "capture_end", "memcpy_sync",
                "stream_wait")
_ARG_TYPES = ("int", "int3", "str", "json")
_ARG_GROUPS = ("core", "shapes", "comms")
_RULE_KINDS = ("annotation", "module", "graph_launch")
#: Every key a step-rules file and one of its rules may have (anything else is a typo: an error).
_RULE_KEYS = ("name", "kind", "pattern", "phase_group", "phase_map", "phase_counts", "about")
_FILE_KEYS = ("version", "about", "rules", "gemm_ops", "gemm_ops_about")
PHASES = ("prefill", "decode", "mixed")
_PKG = "bench_kernel.trace"
_PHASE_VALUES = PHASES + ("ignore",)
#: What a step rule's match may say of its step: a phase, or "ignore" (not a step).
RulePhase = Literal["prefill", "decode", "mixed", "ignore"]


def _nonempty(row: dict[str, str], where: str) -> None:
    empty = [k for k, v in row.items() if not v]
    if empty:
        raise InputError(f"{where}: column {empty[0]!r} is empty; every cell of this table needs a value")


@lru_cache(maxsize=1)
def launch_apis() -> dict[str, tuple[str, str]]:
    """Launch-API name -> (kind, vendor), from ``data/launch_apis.tsv``, validated."""
    table: dict[str, tuple[str, str]] = {}

    def check(row: dict[str, str], where: str) -> None:
        _nonempty(row, where)
        name, kind, vendor = row["name"], row["kind"], row["vendor"]
        if kind not in LAUNCH_KINDS:
            raise InputError(f"{where}: kind {kind!r} of {name!r} is not one of {LAUNCH_KINDS}")
        if vendor not in ("cuda", "hip"):
            raise InputError(f"{where}: vendor {vendor!r} of {name!r} must be cuda or hip")
        if name in table:
            raise InputError(f"{where}: {name!r} is listed twice")
        table[name] = (kind, vendor)

    read_package_tsv(_PKG, "launch_apis.tsv", ("name", "kind", "vendor"), check)
    return table


@lru_cache(maxsize=1)
def launch_kinds() -> dict[str, str]:
    """Launch-API name -> kind (one of :data:`LAUNCH_KINDS`)."""
    return {name: kind for name, (kind, _) in launch_apis().items()}


#: Bus-bandwidth factors of nccl-tests by the text written in ``data/collectives.tsv``.
BUS_FACTORS = {"2(n-1)/n": lambda n: 2.0 * (n - 1) / n, "(n-1)/n": lambda n: (n - 1) / n, "1": lambda n: 1.0,
               "-": None}


@dataclass(frozen=True)
class Collective:
    """One row of ``data/collectives.tsv``."""

    name: str
    """all_reduce | reduce_scatter | all_gather | all_to_all | broadcast | reduce | send_recv | ..."""
    bus_factor: str
    """The nccl-tests factor as written (``2(n-1)/n``); ``-`` when there is no bus bandwidth."""
    match: re.Pattern[str]

    def busbw_factor(self, n: int) -> float | None:
        """busbw / algbw for a group of ``n`` ranks (``None``: not defined, or n < 1)."""
        f = BUS_FACTORS[self.bus_factor]
        return None if f is None or n < 1 else f(n)


@lru_cache(maxsize=1)
def collectives() -> tuple[Collective, ...]:
    """The collective name rules from ``data/collectives.tsv``, in order (first match wins)."""
    out = []

    def check(row: dict[str, str], where: str) -> None:
        _nonempty(row, where)
        name, factor, pattern = row["collective"], row["bus_factor"], row["match"]
        if factor not in BUS_FACTORS:
            raise InputError(f"{where}: bus_factor {factor!r} of {name!r} must be one of {tuple(BUS_FACTORS)}")
        try:
            out.append(Collective(name, factor, re.compile(pattern, re.IGNORECASE)))
        except re.error as e:
            raise InputError(f"{where}: match {pattern!r} of {name!r} is not a regular expression: {e}") from None

    read_package_tsv(_PKG, "collectives.tsv", ("collective", "bus_factor", "match"), check)
    return tuple(out)


@dataclass(frozen=True)
class ArgField:
    """One Kineto ``args`` key the loader decodes."""

    key: str
    """The key as Kineto writes it (``"External id"``)."""
    field: str
    """Our snake_case name (``external_id``)."""
    type: str
    """``int`` | ``int3`` | ``str`` | ``json``."""
    group: str
    """``core`` (always decoded), ``shapes`` (only with ``shapes=True``) or ``comms`` (collective
    metadata, kept only for the events that carry it)."""


@lru_cache(maxsize=1)
def arg_fields() -> tuple[ArgField, ...]:
    """The Kineto arg map from ``data/kineto_args.tsv``, validated."""
    out: list[ArgField] = []
    seen: set[str] = set()

    def check(row: dict[str, str], where: str) -> None:
        _nonempty(row, where)
        key, name, typ, group = row["key"], row["field"], row["type"], row["group"]
        if typ not in _ARG_TYPES or group not in _ARG_GROUPS:
            raise InputError(f"{where}: type {typ!r} / group {group!r} of {key!r} "
                             f"must be one of {_ARG_TYPES} / {_ARG_GROUPS}")
        if not re.fullmatch(r"[a-z][a-z0-9_]*", name) or name in seen:
            raise InputError(f"{where}: field {name!r} must be unique snake_case")
        seen.add(name)
        out.append(ArgField(key, name, typ, group))

    read_package_tsv(_PKG, "kineto_args.tsv", ("key", "field", "type", "group"), check)
    return tuple(out)


@dataclass(frozen=True)
class StepRule:
    """One way of finding steps; see ``data/steps.json`` for the meaning of each kind."""

    name: str
    kind: str
    pattern: UserRegex | None = None
    phase_group: str | None = None
    phase_map: dict[str, RulePhase] = field(default_factory=dict)
    phase_counts: dict[str, str] = field(default_factory=dict)

    def phase_of(self, groups: dict[str, str | None]) -> RulePhase | None:
        """The phase (prefill/decode/mixed/ignore) a match implies, or None when the rule has none."""
        if self.phase_group is not None:
            value = groups.get(self.phase_group)
            return self.phase_map.get(value) if value is not None else None
        if self.phase_counts:
            p = int(groups.get(self.phase_counts["prefill"]) or 0)
            d = int(groups.get(self.phase_counts["decode"]) or 0)
            if p and d:
                return "mixed"
            return "prefill" if p else ("decode" if d else "ignore")
        return None


@dataclass(frozen=True)
class StepRules:
    """The ordered step rules plus the op names whose shapes give a step's token count."""

    rules: tuple[StepRule, ...]
    gemm_ops: dict[str, int]
    """op name -> index of the input whose leading dims count the tokens."""
    source: str


def _rule(i: int, raw: Any, source: str) -> StepRule:
    where = f"{source}: rules[{i}]"
    if not isinstance(raw, dict):
        raise InputError(f"{where} must be an object, got {type(raw).__name__}")
    name, kind = raw.get("name"), raw.get("kind")
    if not isinstance(name, str) or not name:
        raise InputError(f"{where}: 'name' must be a non-empty string")
    unknown = [k for k in raw if k not in _RULE_KEYS]
    if unknown:
        # A misspelt key ("patern", "phase-map") was ignored, and the rule silently did something else.
        raise InputError(f"{where} ({name}): unknown key {unknown[0]!r}; a rule's keys are {', '.join(_RULE_KEYS)}")
    if kind not in _RULE_KINDS:
        raise InputError(f"{where} ({name}): 'kind' is {kind!r}; use one of {_RULE_KINDS}")
    pattern = None
    if "pattern" in raw:  # a user's file may hold any regex: time-bounded like every user regex
        pattern = user_regex(raw["pattern"], f"{where} ({name}): 'pattern'", error=InputError)
    if kind == "annotation" and pattern is None:
        raise InputError(f"{where} ({name}): an annotation rule needs a 'pattern' regex")
    groups = set(pattern.groupindex) if pattern else set()
    phase_group = raw.get("phase_group")
    phase_map = raw.get("phase_map", {})
    phase_counts = raw.get("phase_counts", {})
    if phase_group is not None and phase_group not in groups:
        raise InputError(f"{where} ({name}): phase_group {phase_group!r} is not a named group of the pattern "
                         f"(groups: {sorted(groups)})")
    if not isinstance(phase_map, dict) or any(v not in _PHASE_VALUES for v in phase_map.values()):
        raise InputError(f"{where} ({name}): phase_map values must be among {_PHASE_VALUES}")
    if phase_map and phase_group is None:
        raise InputError(f"{where} ({name}): phase_map needs a phase_group naming the regex group it reads")
    if phase_counts:
        if set(phase_counts) != {"prefill", "decode"} or not set(phase_counts.values()) <= groups:
            raise InputError(f"{where} ({name}): phase_counts must map 'prefill' and 'decode' to named groups "
                             f"of the pattern (groups: {sorted(groups)})")
    return StepRule(name, kind, pattern, phase_group, dict(phase_map), dict(phase_counts))


def parse_step_rules(data: Any, source: str) -> StepRules:
    """Validate a step-rules document (the ``steps.json`` format) and return it."""
    if not isinstance(data, dict) or not isinstance(data.get("rules"), list):
        raise InputError(f"{source}: expected an object with a 'rules' list (see bench_kernel/trace/data/steps.json)")
    if data.get("version") != 1:
        raise InputError(f"{source}: 'version' is {data.get('version')!r}; this bench-kernel reads version 1")
    unknown = [k for k in data if k not in _FILE_KEYS]
    if unknown:
        raise InputError(f"{source}: unknown key {unknown[0]!r}; the file's keys are {', '.join(_FILE_KEYS)}")
    rules = tuple(_rule(i, r, source) for i, r in enumerate(data["rules"]))
    names = [r.name for r in rules]
    if len(set(names)) != len(names):
        raise InputError(f"{source}: rule names must be unique, got {names}")
    gemm = data.get("gemm_ops", {})
    if not isinstance(gemm, dict) or not all(isinstance(k, str) and type(v) is int and v >= 0
                                             for k, v in gemm.items()):
        raise InputError(f"{source}: 'gemm_ops' must map op names to an input index, e.g. {{\"aten::mm\": 0}}")
    return StepRules(rules, dict(gemm), source)


@lru_cache(maxsize=1)
def _packaged_step_rules() -> StepRules:
    return parse_step_rules(json.loads(package_text(_PKG, "steps.json")), "steps.json")


def _read_step_rules(p: Path) -> StepRules:
    text = user_file_text(p, "step rules")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise InputError(f"step rules {p} is not valid JSON: {e}") from None
    return parse_step_rules(data, str(p))


def load_step_rules(path: str | Path | None = None) -> StepRules:
    """The step rules: the packaged ``data/steps.json``, or a user file in the same format."""
    return _packaged_step_rules() if path is None else _read_step_rules(Path(path))
