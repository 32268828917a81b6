"""``bench-kernel mcp``: the Model Context Protocol server over stdio (the official ``mcp`` SDK).

Tools: the CLI's commands (``_tools``), each returning its ``--json`` document as structured content
(``_call`` runs them). Resources: the sample trace and the documentation pages. Prompts: the jobs of
``_jobs``, each a chain of tool calls.

Calls run one at a time, in the order they arrive: two measurements at once would disturb each
other's timings, and an analysis that waits for a measurement costs seconds, not a wrong number.
stdout is the protocol's: the SDK points file descriptor 1 at stderr while it serves (what a
library or a C extension prints lands in the log, never in a message), and each command's own
stdout is captured, in this process or in its child.
"""

from __future__ import annotations

import json
import sys
from typing import Any

from bench_kernel.cli import ERROR_PREFIX
from bench_kernel.mcp_server._call import IN_A_CHILD, Invoked, invoke_child, invoke_here
from bench_kernel.mcp_server._jobs import JOBS, Job
from bench_kernel.mcp_server._resources import SAMPLE_URI, pages, sample_trace_file
from bench_kernel.mcp_server._tools import ToolInputError, ToolSpec, tool_specs

__all__ = ["build_server", "serve_stdio", "result_of", "prompt_text"]

_INSTRUCTIONS = ("bench-kernel measures, explains and documents GPU kernel performance. Each tool is a "
                 "bench-kernel command and returns that command's --json document. Trace tools take a path: "
                 f"read {SAMPLE_URI} for a real H200 trace to try them on. Calls run one at a time.")


def result_of(spec: ToolSpec, invoked: Invoked) -> Any:
    """The tool's result: the document as structured content (and as text, for clients that read only
    text), or a tool error with the CLI's error lines when the command printed no document."""
    import mcp_types as types

    errors = invoked.errors
    text = invoked.stdout.strip()
    document = None
    if text:
        try:
            document = json.loads(text)
        except ValueError:
            document = None
    meta = {"bench-kernel/exit_code": invoked.exit_code, "bench-kernel/errors": errors}
    if not isinstance(document, dict):
        message = "\n".join(errors) or (f"{ERROR_PREFIX}{spec.command} exited with status {invoked.exit_code} "
                                        f"and printed no JSON document")
        return types.CallToolResult(content=[types.TextContent(text=message)], is_error=True, _meta=meta)
    content: list[Any] = [types.TextContent(text=text)]
    if invoked.exit_code:
        # A document and a non-zero status: a regression (compare), a case that failed or gave a wrong
        # result (run): the document holds the details, the lines say what the CLI said.
        content.append(types.TextContent(text="\n".join([f"exit status {invoked.exit_code}", *errors])))
    return types.CallToolResult(content=content, structured_content=document, _meta=meta)


def _error(message: str) -> Any:
    import mcp_types as types

    content: list[Any] = [types.TextContent(text=f"{ERROR_PREFIX}{message}")]
    return types.CallToolResult(content=content, is_error=True)


class _Told:
    """Progress as MCP wants it: a value that grows with every notification. ``done`` counts finished
    units; messages within one unit add hundredths (at most 99 of them are sent per unit)."""

    def __init__(self, ctx: Any) -> None:
        self.ctx, self.last, self.said = ctx, -1.0, 0
        self.unit: int | None = None

    async def __call__(self, done: int, total: int | None, message: str) -> None:
        if done != self.unit:
            self.unit, self.said = done, 0
        value = done + min(self.said, 99) / 100
        self.said += 1
        if value <= self.last:
            return
        self.last = value
        await self.ctx.session.report_progress(value, None if total is None else float(total), message)


def prompt_text(job: Job, arguments: dict[str, str]) -> str:
    """The prompt of ``job``: what to do, the tool calls in order, what to read in each result."""
    lines = [f"{job.title}, with the bench-kernel tools.", ""]
    given = {k: v for k, v in arguments.items() if v}
    for name, what in job.inputs.items():
        optional = what.startswith("?")
        value = given.get(name)
        lines.append(f"- {name}: {value if value else ('not given' if optional else '(ask the user)')} "
                     f"({what.lstrip('? ')})")
    lines.append("")
    for i, step in enumerate(job.steps, 1):
        args = {}
        for k, v in step.arguments.items():
            filled = v.format(**{n: given.get(n, f"<{n}>") for n in job.inputs})
            if filled.startswith("<") and job.inputs.get(v.strip("{}"), "").startswith("?"):
                continue  # an optional input not given: the argument is left out
            args[k] = filled
        call = ", ".join(f"{k}={v}" for k, v in args.items())
        lines.append(f"{i}. Call `{step.command.replace('-', '_')}({call})`. Read: {step.read}.")
    lines += ["", job.then, "A tool error carries the CLI's one-line message: fix the argument it names and "
              "call again. Quote numbers with their units, as the documents give them."]
    return "\n".join(lines)


def build_server() -> Any:
    """The server: tools, resources and prompts on the SDK's low-level ``Server``."""
    from importlib.metadata import version

    import anyio
    import mcp_types as types
    from mcp.server.lowlevel import Server

    specs = tool_specs()
    tools = [types.Tool(name=s.name, description=s.description, input_schema=s.input_schema,
                        output_schema=s.output_schema) for s in specs.values()]
    one_at_a_time = anyio.Lock()
    jobs = {j.name: j for j in JOBS}

    async def list_tools(ctx: Any, params: Any) -> Any:
        return types.ListToolsResult(tools=tools)

    async def call_tool(ctx: Any, params: Any) -> Any:
        spec = specs.get(params.name)
        if spec is None:
            return _error(f"no tool named {params.name!r}; the tools: {', '.join(sorted(specs))}")
        try:
            argv = spec.argv(params.arguments)
        except ToolInputError as e:
            return _error(str(e))
        async with one_at_a_time:
            if spec.command in IN_A_CHILD:
                invoked = await invoke_child(argv, _Told(ctx), echo=sys.stderr)
            else:
                invoked = await anyio.to_thread.run_sync(invoke_here, argv, sys.stderr)
        return result_of(spec, invoked)

    async def list_resources(ctx: Any, params: Any) -> Any:
        from bench_kernel.trace import SAMPLE_TRACE_ABOUT

        file_uri, _ = sample_trace_file()
        found = [types.Resource(uri=SAMPLE_URI, name="sample-trace", mime_type="application/json",
                                description=f"Where the sample trace is and what it holds: {SAMPLE_TRACE_ABOUT}"),
                 types.Resource(uri=file_uri, name="sample-trace-file", mime_type="application/gzip",
                                description="The sample trace itself (a gzipped Kineto JSON trace)")]
        found += [types.Resource(uri=p.uri, name=p.name, title=p.title, mime_type="text/markdown",
                                 description=f"bench-kernel's documentation: {p.title}") for p in pages()]
        return types.ListResourcesResult(resources=found)

    async def read_resource(ctx: Any, params: Any) -> Any:
        from mcp.shared.exceptions import MCPError

        uri = str(params.uri)
        if uri == SAMPLE_URI:
            invoked = await anyio.to_thread.run_sync(invoke_here, ["sample-trace", "--json"], sys.stderr)
            contents: list[Any] = [types.TextResourceContents(uri=uri, mime_type="application/json",
                                                              text=invoked.stdout.strip())]
            return types.ReadResourceResult(contents=contents)
        file_uri, blob = sample_trace_file()
        if uri == file_uri:
            return types.ReadResourceResult(contents=[types.BlobResourceContents(
                uri=uri, mime_type="application/gzip", blob=blob)])
        for page in pages():
            if page.uri == uri:
                return types.ReadResourceResult(contents=[types.TextResourceContents(
                    uri=uri, mime_type="text/markdown", text=page.text())])
        raise MCPError(code=types.INVALID_PARAMS, message=f"no resource {uri!r}")

    async def list_prompts(ctx: Any, params: Any) -> Any:
        return types.ListPromptsResult(prompts=[types.Prompt(
            name=j.name, title=j.title, description=j.title + ": " + " -> ".join(s.command for s in j.steps),
            arguments=[types.PromptArgument(name=n, description=w.lstrip("? "), required=not w.startswith("?"))
                       for n, w in j.inputs.items()]) for j in JOBS])

    async def get_prompt(ctx: Any, params: Any) -> Any:
        from mcp.shared.exceptions import MCPError

        job = jobs.get(params.name)
        if job is None:
            raise MCPError(code=types.INVALID_PARAMS, message=f"no prompt {params.name!r}; the prompts: "
                                                              f"{', '.join(jobs)}")
        text = prompt_text(job, dict(params.arguments or {}))
        return types.GetPromptResult(description=job.title, messages=[
            types.PromptMessage(role="user", content=types.TextContent(text=text))])

    return Server("bench-kernel", version=version("bench-kernel"), instructions=_INSTRUCTIONS,
                  on_list_tools=list_tools, on_call_tool=call_tool, on_list_resources=list_resources,
                  on_read_resource=read_resource, on_list_prompts=list_prompts, on_get_prompt=get_prompt)


def serve_stdio() -> None:
    """Serve MCP on stdin/stdout until the client closes stdin."""
    import anyio
    from mcp.server.stdio import stdio_server

    server = build_server()

    async def serve() -> None:
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())

    sys.stdout.flush()
    anyio.run(serve)
