"""How long a tool call of ``bench-kernel mcp`` takes, against the same command as a fresh process.

Starts the server with the MCP SDK's stdio client (as an assistant does), then times each call
round trip from the client: the analyses (decode, inventory, layers, phases on the sample trace,
which run in the server's process) and ``run`` on a CPU example (a child process per call, as the
user's code must be imported anew); beside each, ``python -m bench_kernel COMMAND ... --json`` as a
subprocess, which is what an assistant without MCP pays. Writes a Markdown table with the raw runs.

    PYTHONPATH=src python benchmarks/mcp_latency.py --repeat 5 --out benchmarks/results/mcp-latency-cpu.md
"""

from __future__ import annotations

import argparse
import datetime
import statistics
import subprocess
import sys
import time
from pathlib import Path

from common import ROOT, child_env, load_average, machine

EXAMPLE = str(ROOT / "examples" / "torch_ops.py") + ":cases"
CK_NAME = "a8w8_blockscale_1x128x128_256x16x128x256_16x16_16x16_1x2_16x16x1_16x16x1_1x32x1x8_8x8x1_1x2_intrawave_v1"


def cases(trace: str) -> list[tuple[str, str, dict, list[str]]]:
    """(label, tool, arguments, the same as CLI arguments)."""
    run_args = {"target": EXAMPLE, "method": ["host"], "max_time": 0.05}
    return [("decode (1 CK name)", "decode", {"names": [CK_NAME]}, ["decode", CK_NAME]),
            ("inventory (sample trace)", "inventory", {"trace": trace}, ["inventory", trace]),
            ("layers (sample trace)", "layers", {"trace": trace}, ["layers", trace]),
            ("phases (sample trace)", "phases", {"trace": trace}, ["phases", trace]),
            ("run (2 CPU cases, host, max-time 0.05 s)", "run", run_args,
             ["run", EXAMPLE, "--method", "host", "--max-time", "0.05"])]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeat", type=int, default=5, help="calls of each tool, and runs of each CLI command")
    ap.add_argument("--out", type=Path, default=None, help="the Markdown results file (default: stdout only)")
    args = ap.parse_args()

    import anyio
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    from bench_kernel.trace import sample_trace

    trace = str(sample_trace())
    table = cases(trace)
    mcp_ms: dict[str, list[float]] = {label: [] for label, *_ in table}
    timings: dict[str, float] = {}

    async def session() -> None:
        params = StdioServerParameters(command=sys.executable, args=["-m", "bench_kernel", "mcp"], env=child_env())
        t0 = time.perf_counter()
        async with stdio_client(params, errlog=open("/dev/null", "w")) as (read, write):  # noqa: SIM115
            async with ClientSession(read, write) as s:
                await s.initialize()
                timings["start_ms"] = (time.perf_counter() - t0) * 1000
                t1 = time.perf_counter()
                await s.list_tools()
                timings["list_ms"] = (time.perf_counter() - t1) * 1000
                for _ in range(args.repeat):
                    for label, tool, arguments, _cli in table:
                        t = time.perf_counter()
                        result = await s.call_tool(tool, arguments)
                        assert not result.is_error, result.content
                        mcp_ms[label].append((time.perf_counter() - t) * 1000)

    anyio.run(session)
    cli_ms: dict[str, list[float]] = {label: [] for label, *_ in table}
    for _ in range(args.repeat):
        for label, _tool, _arguments, argv in table:
            t = time.perf_counter()
            subprocess.run([sys.executable, "-m", "bench_kernel", *argv, "--json"], env=child_env(),
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
            cli_ms[label].append((time.perf_counter() - t) * 1000)

    def raw(values: list[float]) -> str:
        return ", ".join(f"{v:.0f}" for v in values)

    lines = ["# bench-kernel mcp: tool call latency", "",
             f"- date: {datetime.date.today().isoformat()}", f"- machine: {machine()}",
             f"- load average (1 min) at the end: {load_average():.1f}",
             f"- command: `PYTHONPATH=src python benchmarks/mcp_latency.py --repeat {args.repeat}`", "",
             f"Server start to initialized: {timings['start_ms']:.0f} ms; tools/list: {timings['list_ms']:.1f} ms.",
             "", "Each call's round trip from the SDK client (ms), against the same command as a fresh "
             "`python -m bench_kernel ... --json` process. The first call of each analysis pays its imports.",
             "", "| call | MCP median ms | CLI process median ms | MCP raw (ms) | CLI raw (ms) |", "|---|---:|---:|---|---|"]
    for label, *_ in table:
        lines.append(f"| {label} | {statistics.median(mcp_ms[label]):.0f} | {statistics.median(cli_ms[label]):.0f} | "
                     f"{raw(mcp_ms[label])} | {raw(cli_ms[label])} |")
    text = "\n".join(lines) + "\n"
    print(text)
    if args.out:
        args.out.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
