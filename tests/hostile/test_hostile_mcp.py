"""Bad input to the MCP server's tools: each is a tool error carrying one line, the CLI's own where the
CLI judges it, never a traceback; and a target that prints to stdout cannot corrupt the protocol."""

from __future__ import annotations

import importlib.util
import json
import sys
import textwrap
from pathlib import Path

import pytest

# Found, not imported: the SDK takes 1-3 s to import, at collection in every xdist worker, and only
# the tests that talk to a server (or build its results) need it; they import it then.
if importlib.util.find_spec("mcp") is None:
    pytest.skip("could not import 'mcp': the [mcp] extra is not installed", allow_module_level=True)

from bench_kernel.mcp_server import tool_specs  # noqa: E402
from bench_kernel.mcp_server._call import invoke_here  # noqa: E402
from bench_kernel.mcp_server._server import result_of  # noqa: E402
from bench_kernel.trace import sample_trace  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from _mcp_client import make_sandbox, mcp_server  # noqa: E402

SPECS = tool_specs()


def _call(tool: str, arguments: dict):
    """A call as the server makes it, in this process (the analyses' path)."""
    from bench_kernel.mcp_server import ToolInputError

    spec = SPECS[tool]
    try:
        argv = spec.argv(arguments)
    except ToolInputError as e:
        return None, str(e)
    return result_of(spec, invoke_here(argv)), None


@pytest.mark.parametrize("tool, arguments, cli_argv", [
    ("inventory", {"trace": "/nonexistent/t.json"}, ["inventory", "/nonexistent/t.json"]),
    ("inventory", {"trace": "{sample}", "by": "colour"}, ["inventory", "{sample}", "--by", "colour"]),
    ("inventory", {"trace": "{sample}", "top": 0}, ["inventory", "{sample}", "--top", "0"]),
    ("inventory", {"trace": "{sample}", "top": "many"}, ["inventory", "{sample}", "--top", "many"]),
    ("inventory", {}, ["inventory"]),  # the command's own "Missing argument 'TRACE'"
    ("layers", {"trace": "{sample}", "anchor": "("}, ["layers", "{sample}", "--anchor", "("]),
    ("phases", {"trace": str(Path(__file__))}, ["phases", str(Path(__file__))]),  # not a trace
    ("diff", {"trace_a": "{sample}"}, ["diff", "{sample}"]),
    ("roofline", {"flops": 1e12, "bytes": 1e9, "time_us": -1}, ["roofline", "--flops", "1e12", "--bytes", "1e9",
                                                                 "--time-us", "-1"]),
    ("roofline", {"flops": 1e12, "bytes": 1e9, "time_us": 5, "device": "no-such-gpu"},
     ["roofline", "--flops", "1e12", "--bytes", "1e9", "--time-us", "5", "--device", "no-such-gpu"]),
    ("compare", {"a": "/nonexistent/a.json", "b": "/nonexistent/b.json"}, ["compare", "/nonexistent/a.json",
                                                                          "/nonexistent/b.json"]),
    ("devices", {"names": ["no-such-gpu"]}, ["devices", "no-such-gpu"]),
])
def test_a_bad_value_is_a_tool_error_with_the_cli_line(run_cli, tool, arguments, cli_argv):
    sample = str(sample_trace())
    arguments = {k: v.replace("{sample}", sample) if isinstance(v, str) else v for k, v in arguments.items()}
    result, refused = _call(tool, arguments)
    assert refused is None
    cli = run_cli(*[a.replace("{sample}", sample) for a in cli_argv], "--json")
    assert cli.exit_code != 0 and cli.stdout == ""
    assert result.is_error and result.structured_content is None
    assert result.content[0].text == cli.stderr.strip() and cli.stderr.count("\n") == 1
    assert result.content[0].text.startswith("bench-kernel: error: ") and "Traceback" not in result.content[0].text


@pytest.mark.parametrize("tool, arguments, message", [
    ("inventory", {"trace": "t", "colour": "red"}, "inventory has no argument 'colour'"),
    ("inventory", {"trace": {"nested": 1}}, "argument 'trace' takes a string or a number"),
    ("inventory", {"trace": "t", "per_step": 1}, "argument 'per_step' takes true or false"),
    ("run", {"method": "graph", "max_time": [1, 2]}, "argument 'max_time' takes one value, got a list"),
    ("sweep", {"spec": "s.py"}, "sweep needs the argument 'db'"),
    ("profile", {"target": "t.py:f"}, "profile needs the argument 'output'"),
    ("profile", {"target": "t.py:f", "output": "-"}, "profile's output must be a file"),
    ("serve", {"launch": "vllm serve m"}, "serve with launch needs server_log"),
])
def test_arguments_that_fit_no_command_line_are_refused_before_it_runs(tool, arguments, message):
    result, refused = _call(tool, arguments)
    assert result is None and message in refused and "\n" not in refused


def test_a_name_that_looks_like_an_option_is_a_name(run_cli):
    result, _ = _call("decode", {"names": ["--help", "-rf"]})
    assert not result.is_error
    assert [k["name"] for k in result.structured_content["kernels"]] == ["--help", "-rf"]


# A server of its own and a run whose child imports torch: 6-20 s on 2 busy cores.
@pytest.mark.slow
@pytest.mark.multiprocess
def test_a_target_that_prints_to_stdout_cannot_corrupt_the_protocol(tmp_path):
    # print(), sys.stdout.write and a write to file descriptor 1 at import, in the factory and in fn:
    # over stdio the protocol is stdout, so any of them reaching it would break the session.
    target = tmp_path / "noisy.py"
    target.write_text(textwrap.dedent('''
        import os, sys
        print("IMPORT-NOISE")
        os.write(1, b"FD1-NOISE\\n")
        def cases():
            sys.stdout.write("FACTORY-NOISE\\n")
            def fn():
                print("CALL-NOISE")
                os.write(1, b"CALL-FD1\\n")
            return [{"name": "noisy", "fn": fn}]
    '''))
    sandbox = make_sandbox(tmp_path / "sandbox")
    with mcp_server(sandbox) as server:
        result = server.call("run", {"target": f"{target}:cases", "method": ["host"], "max_time": 0.02})
        assert not result.is_error, result.content
        assert [r["name"] for r in result.structured_content["results"]] == ["noisy"]
        after = server.call("decode", {"names": ["x"]})  # the session still works
        assert not after.is_error and after.structured_content["kernels"][0]["name"] == "x"
    log = (sandbox / "server.log").read_text()
    assert all(noise in log for noise in ("IMPORT-NOISE", "FD1-NOISE", "FACTORY-NOISE", "CALL-NOISE", "CALL-FD1"))
    assert json.loads(result.content[0].text) == result.structured_content
