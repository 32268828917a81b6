"""The MCP tools, prompts and skill file as generated from the CLI (no server, no SDK needed except
where a test says so): names, arguments and schemas follow the click commands; a call's command line
is the one a user would type; the skill names only commands that exist."""

from __future__ import annotations

import json
import re
from pathlib import Path

import click
import pytest
import tomllib

from bench_kernel import records
from bench_kernel.cli import COMMANDS
from bench_kernel.mcp_server import JOBS, TOOLS, ToolInputError, commands_named, setup_commands, skill_text, tool_specs

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def specs():
    return tool_specs()


def _click(command: str) -> click.Command:
    import importlib

    module, attr = COMMANDS[command].split(":")
    return getattr(importlib.import_module(module), attr)


def test_one_tool_per_command_named_after_it(specs):
    assert list(specs) == [c.replace("-", "_") for c in TOOLS]
    assert set(TOOLS) <= set(COMMANDS)
    assert "source_trace" in specs and "calibrate" not in specs and "report" not in specs


def test_every_option_is_an_argument_named_by_its_long_flag(specs):
    # Generated from the click params: an option added to a command is a tool argument the same day.
    for spec in specs.values():
        expected = []
        for p in _click(spec.command).params:
            opts = set(getattr(p, "opts", ()))
            if opts & {"--json", "--csv", "--md"} or ("--output" in opts and spec.command != "profile"):
                continue
            expected.append(p.name if isinstance(p, click.Argument) else max(p.opts, key=len)[2:].replace("-", "_"))
        assert [a.name for a in spec.arguments] == expected, spec.name
    names = {s.name: [a.name for a in s.arguments] for s in specs.values()}
    assert names["inventory"][0] == "trace" and "steps" in names["inventory"] and "per_step" in names["inventory"]
    assert names["diff"][:2] == ["trace_a", "trace_b"] and names["attribute"][0] == "graph_trace"
    assert names["sweep"][0] == "spec" and names["decode"][0] == "names" and names["run"][0] == "target"
    assert "method" in names["run"] and "time_us" in names["roofline"] and "bytes" in names["roofline"]


def test_positional_names_are_their_metavar_in_lower_case(specs):
    for spec in specs.values():
        for a in spec.arguments:
            if isinstance(a.param, click.Argument) and a.param.metavar and a.param.metavar.isidentifier():
                assert a.name == a.param.metavar.lower()


def test_schemas_follow_the_click_types(specs):
    inv = specs["inventory"].input_schema
    assert inv["required"] == ["trace"] and inv["additionalProperties"] is False
    assert inv["properties"]["by"] == {"type": "string", "enum": ["name", "category", "family"], "default": "name",
                                       "description": "Group kernels by full name, category or family."}
    assert inv["properties"]["top"]["type"] == "integer" and inv["properties"]["top"]["minimum"] == 1
    assert inv["properties"]["per_step"]["type"] == "boolean"
    run = specs["run"].input_schema["properties"]
    assert run["method"] == {"type": "array", "items": {"type": "string", "enum": ["graph", "events", "kernel", "host"]},
                             "description": run["method"]["description"]}
    assert run["max_time"]["type"] == "number" and run["max_time"]["exclusiveMinimum"] == 0
    assert specs["decode"].input_schema["properties"]["names"]["type"] == "array"


def test_nothing_is_written_where_the_arguments_do_not_say(specs):
    # profile's -o has a default (trace.json.gz in the current folder) and a sweep always stores:
    # over MCP both must be named. The rendering's -o is no argument at all.
    assert "output" in specs["profile"].input_schema["required"]
    assert "default" not in specs["profile"].input_schema["properties"]["output"]
    assert "db" in specs["sweep"].input_schema["required"]
    assert all("output" not in s.input_schema["properties"] for n, s in specs.items() if n != "profile")
    with pytest.raises(ToolInputError, match="needs the argument 'db'"):
        specs["sweep"].argv({"spec": "s.py"})
    with pytest.raises(ToolInputError, match="needs server_log"):
        specs["serve"].argv({"launch": "vllm serve m"})
    with pytest.raises(ToolInputError, match="must be a file"):
        specs["profile"].argv({"target": "t.py:f", "output": "-"})


def test_output_schema_is_the_records_schema_with_an_object_root(specs):
    for name, spec in specs.items():
        if spec.command in records.DOCUMENTS and spec.command not in records.OTHER_SHAPES:
            full = json.loads(json.dumps(records.schema(spec.command)))  # as JSON: tuples are arrays
            root = full["$defs"][full["$ref"].rsplit("/", 1)[-1]]
            assert spec.output_schema["type"] == "object"
            assert spec.output_schema["properties"] == root["properties"] and spec.output_schema["$defs"] == full["$defs"]
        else:
            assert spec.output_schema is None, name
    assert specs["run"].output_schema is not None and specs["roofline"].output_schema is not None
    assert specs["compare"].output_schema is None  # a serving comparison is another document


def test_a_call_is_the_command_line_a_user_would_type(specs):
    assert specs["inventory"].argv({"trace": "t.json", "by": "category", "top": 5, "per_step": True}) == \
        ["inventory", "--by=category", "--top=5", "--per-step", "--json", "--", "t.json"]
    assert specs["run"].argv({"target": "x.py:f", "method": ["graph", "events"], "max_time": 0.25, "roofline": False}) == \
        ["run", "--method=graph", "--method=events", "--max-time=0.25", "--json", "--", "x.py:f"]
    # A name that starts with '-' stays a name ('--' ends the options); an anchor regex too.
    assert specs["decode"].argv({"names": ["-rf", "b"]})[-3:] == ["--", "-rf", "b"]
    assert specs["layers"].argv({"trace": "t", "anchor": "-x"})[1] == "--anchor=-x"
    assert specs["phases"].argv({"trace": "t", "rank": None}) == ["phases", "--json", "--", "t"]


@pytest.mark.parametrize("args, message", [
    ({"trace": "t", "colour": 1}, "inventory has no argument 'colour'; its arguments: by, per_step, rank, steps, top, trace"),
    ({"trace": {"path": "t"}}, "argument 'trace' takes a string or a number"),
    ({"trace": "t", "top": True}, "argument 'top' takes a string or a number"),
    ({"trace": "t", "per_step": "yes"}, "argument 'per_step' takes true or false"),
    ({"trace": ["a", "b"]}, "argument 'trace' takes one value, got a list"),
])
def test_arguments_of_the_wrong_shape_are_refused_with_one_line(specs, args, message):
    with pytest.raises(ToolInputError) as e:
        specs["inventory"].argv(args)
    assert message in str(e.value) and "\n" not in str(e.value)


def test_every_job_step_names_a_tool_and_its_arguments(specs):
    by_command = {s.command: s for s in specs.values()}
    assert len(JOBS) == 6
    for job in JOBS:
        for step in job.steps:
            assert step.command in by_command, (job.name, step.command)
            assert set(step.arguments) <= {a.name for a in by_command[step.command].arguments}, (job.name, step)
            placeholders = set(re.findall(r"\{(\w+)\}", " ".join(step.arguments.values())))
            assert placeholders <= set(job.inputs), (job.name, placeholders)


def test_the_skill_has_front_matter_and_names_only_commands_that_exist():
    text = skill_text()
    front = text.split("---\n")[1]
    fields = dict(line.split(": ", 1) for line in front.strip().splitlines())
    assert fields["name"] == "bench-kernel" and fields["user-invocable"] == "true"
    assert 0 < len(fields["description"]) <= 1024  # the Agent Skills limit
    named = commands_named(text)
    assert set(named) <= set(COMMANDS), set(named) - set(COMMANDS)
    assert {"profile", "inventory", "layers", "phases", "serve", "run", "source-trace", "decode"} <= set(named)
    for job in JOBS:
        assert f"### {job.title}" in text


def test_the_skill_is_read_from_the_cli_help():
    text = skill_text()
    for command in TOOLS:
        first = " ".join(_click(command).help.split("\n\n")[0].split()).replace("\b", "")
        assert first in text, command
    assert " ".join(_click("run").params[1].help.split()) in text  # --method's help: which method is which
    assert "`bench-kernel inventory TRACE_PATH --by name --per-step --json`" in text  # flags from the command


def test_the_skill_setup_is_the_readme_first_two_commands_verbatim():
    readme = (ROOT / "README.md").read_text()
    block = re.search(r"```(?:sh|bash|console)?\n(.*?)```", readme, re.S).group(1)
    first_two = [line for line in block.splitlines() if line and not line.startswith("#")][:2]
    assert setup_commands() == first_two
    assert "```sh\n" + "\n".join(first_two) + "\n```" in skill_text()


def test_the_skill_command_prints_it(run_cli):
    r = run_cli("skill")
    assert r.exit_code == 0 and r.stdout == skill_text() and r.stderr == ""


def test_the_mcp_command_lists_every_tool_in_its_help():
    from bench_kernel.mcp_server import mcp_command

    listed = re.search(r"\((run, .*?)\)", " ".join(mcp_command.help.split())).group(1).split(", ")
    assert listed == [c.replace("-", "_") for c in TOOLS]


def test_the_docs_travel_in_the_wheel_and_the_extra_is_pinned():
    meta = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert meta["tool"]["hatch"]["build"]["targets"]["wheel"]["force-include"] == {"docs": "bench_kernel/docs"}
    extra = meta["project"]["optional-dependencies"]["mcp"]
    assert extra == ["mcp>=2.3,<3"] and extra[0] in meta["project"]["optional-dependencies"]["test"]
    pins = dict(line.split("==") for line in (ROOT / ".ci" / "constraints.txt").read_text().splitlines()
                if line and not line.startswith("#"))
    assert pins["mcp"] == "2.3.0"


def test_the_docs_pages_are_the_checkouts(tmp_path):
    from bench_kernel.mcp_server._resources import pages

    found = {p.name: p for p in pages()}
    assert set(found) == {p.name for p in (ROOT / "docs").glob("*.md")} and "assistants.md" in found
    assert found["json.md"].uri == "bench-kernel://docs/json.md" and found["json.md"].text().startswith("#")


def test_a_prompt_chains_the_tools_with_the_given_arguments():
    pytest.importorskip("mcp")
    from bench_kernel.mcp_server._server import prompt_text

    job = {j.name: j for j in JOBS}["layer_sequence"]
    text = prompt_text(job, {"trace": "/t/graph.json.gz"})
    assert "1. Call `layers(trace=/t/graph.json.gz, step=decode)`" in text
    assert "2. Call `attribute(graph_trace=/t/graph.json.gz)`" in text  # the capture not given: left out
    text = prompt_text(job, {"trace": "g.json", "capture": "c.json"})
    assert "`attribute(graph_trace=g.json, capture=c.json)`" in text


def test_a_result_is_the_document_and_an_error_is_the_cli_line(run_cli):
    pytest.importorskip("mcp")
    from bench_kernel.mcp_server._call import Invoked, invoke_here
    from bench_kernel.mcp_server._server import result_of

    specs = tool_specs()
    got = invoke_here(specs["decode"].argv({"names": ["ck_tile_gemm_x"]}))
    cli = run_cli("decode", "--json", "--", "ck_tile_gemm_x")
    result = result_of(specs["decode"], got)
    assert not result.is_error and result.structured_content == json.loads(cli.stdout)
    assert json.loads(result.content[0].text) == json.loads(cli.stdout)
    bad = result_of(specs["inventory"], invoke_here(specs["inventory"].argv({"trace": "/nonexistent/t.json"})))
    line = run_cli("inventory", "/nonexistent/t.json", "--json").stderr.strip()
    assert bad.is_error and bad.content[0].text == line and line.startswith("bench-kernel: error: ")
    # A document with a non-zero status (a regression, a failed case) is still the result, with the lines.
    mixed = result_of(specs["compare"], Invoked(1, '{"schema_version": 1}', "bench-kernel: error: slower\n"))
    assert not mixed.is_error and mixed.structured_content == {"schema_version": 1}
    assert mixed.content[1].text == "exit status 1\nbench-kernel: error: slower"


def test_without_the_sdk_mcp_says_what_to_install(run_cli, monkeypatch):
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "mcp" else real(name, *a))
    r = run_cli("mcp")
    assert (r.exit_code, r.stdout) == (1, "")
    assert r.stderr == "bench-kernel: error: bench-kernel mcp needs the MCP SDK: pip install 'bench-kernel[mcp]'\n"
