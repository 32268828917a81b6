"""The documents are records: their JSON Schemas and their sections of docs/json.md are generated from
them (tools/gen_json_docs.py) and must be committed as generated; what a command prints must read
back as its record, field for field."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import msgspec
import pytest

from bench_kernel.records import (
    DOCUMENTS,
    OTHER_DOCUMENTS,
    RunOutput,
    markdown_sections,
    published_schema,
    schema,
    version,
)

ROOT = Path(__file__).resolve().parent.parent
GEN = ROOT / "tools" / "gen_json_docs.py"


def _generated():
    sys.path.insert(0, str(GEN.parent))
    try:
        import gen_json_docs
    finally:
        sys.path.remove(str(GEN.parent))
    return gen_json_docs


def test_the_committed_schemas_and_page_are_what_the_records_generate():
    stale = [str(p.relative_to(ROOT)) for p, text in _generated().files().items()
             if not p.exists() or p.read_text(encoding="utf-8") != text]
    assert stale == [], f"run: python tools/gen_json_docs.py (stale: {stale})"


def test_the_check_fails_on_a_page_that_drifted(tmp_path, monkeypatch):
    gen = _generated()
    page = tmp_path / "json.md"
    page.write_text(gen.DOC.read_text(encoding="utf-8").replace("| `median_us` |", "| `median_ms` |"))
    monkeypatch.setattr(gen, "DOC", page)
    assert gen.main(["--check"]) == 1


def test_every_schema_is_the_json_schema_of_its_record():
    for command, doc_type in DOCUMENTS.items():
        s = schema(command)
        refs = [s["$ref"]] if "$ref" in s else [r["$ref"] for r in s["anyOf"]]
        roots = [r.rsplit("/", 1)[-1] for r in refs]
        assert roots == [t.__name__ for t in (doc_type, *OTHER_DOCUMENTS.get(command, ()))], command
        for root in roots:  # every document a command may print has its version, first
            props = list(s["$defs"][root]["properties"])
            assert s["$defs"][root]["properties"]["schema_version"]["default"] == version(command)
            # serve's second, after its tag "kind" (how report tells a serving run from other JSON)
            assert props[:2] == ["kind", "schema_version"] if command == "serve" else props[0] == "schema_version"


def test_a_command_with_several_documents_has_each_in_its_schema_and_section():
    s = schema("timeline")
    assert s["anyOf"] == [{"$ref": "#/$defs/TimelineOutput"}, {"$ref": "#/$defs/RanksOutput"}]
    section = markdown_sections(["timeline"])["timeline"]
    assert f"**schema_version {version('timeline')}**, type `TimelineOutput | RanksOutput`" in section
    assert "### TimelineOutput" in section and "### RanksOutput" in section and "### TimelineReport" in section
    # a folder's per-rank timelines are one trace's timeline without a version of their own
    assert "| `per_rank` | `TimelineReport[]` |" in section


def test_a_section_names_its_version_and_every_shape_once():
    sections = markdown_sections(DOCUMENTS)
    text = "".join(sections.values())
    shapes = [line for line in text.splitlines() if line.startswith("### ")]
    assert len(shapes) == len(set(shapes))
    assert f"**schema_version {version('run')}**, type `RunOutput`" in sections["run"]
    # a choice of values is listed in the field's meaning, from its Literal type
    assert "(one of `compare`, `events`, `graph`, `host`, `kernel`)" in sections["run"]


def test_a_value_outside_a_choice_is_refused_when_read():
    good = RunOutput().to_dict()
    assert msgspec.convert(good, RunOutput) == RunOutput()
    bad = {"schema_version": 2, "results": [{"name": "x", "measurements": {"m": {"method": "wallclock"}}}]}
    with pytest.raises(msgspec.ValidationError, match="Invalid enum value 'wallclock'"):
        msgspec.convert(bad, RunOutput)


def test_the_published_schema_read_is_the_records_schema_and_a_fresh_copy():
    # The MCP server reads the published file instead of building the schema at each start.
    for command in DOCUMENTS:
        assert published_schema(command) == json.loads(json.dumps(schema(command))), command
    first = published_schema("run")
    first["$defs"].clear()
    assert published_schema("run")["$defs"], "a caller's change reached the next reader"
    with pytest.raises(FileNotFoundError):
        published_schema("no-such-command")


@pytest.mark.multiprocess
def test_the_schemas_ship_with_the_package():
    # The published files are package data: readable from an installed bench_kernel, not only this checkout.
    out = subprocess.run([sys.executable, "-c", "import importlib.resources as r, json; "
                          "print(json.loads(r.files('bench_kernel.records').joinpath('schemas/run.json').read_text())"
                          "['title'])"], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "bench-kernel run --json"
