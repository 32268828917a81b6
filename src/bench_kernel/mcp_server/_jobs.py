"""The jobs an assistant is asked to do, each as a chain of commands: the MCP server's prompts and the
skill file's menu are both written from these, and a test checks every command and argument named
here against the CLI.

A step names a command, the arguments it is called with (``{name}`` is filled from the job's own
arguments) and what to read in its document.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Job", "Step", "JOBS"]


@dataclass(frozen=True)
class Step:
    """One command of a job: ``arguments`` by the tool's argument names; ``read`` what to look at."""

    command: str
    arguments: dict[str, str]
    read: str


@dataclass(frozen=True)
class Job:
    """name: the prompt's name; title: the menu's line; inputs: the job's arguments (name -> what it is,
    a trailing '?' marks an optional one)."""

    name: str
    title: str
    inputs: dict[str, str]
    steps: tuple[Step, ...]
    then: str = ""


JOBS: tuple[Job, ...] = (
    Job("kernel_inventory", "Profile an LLM and extract its GPU kernels into a kernel inventory",
        {"target": "the model's step as a target (path/to/file.py:func or package.module:func)",
         "trace_path": "where to write the trace (.json.gz)"},
        (Step("profile", {"target": "{target}", "output": "{trace_path}"},
              "`kernels_per_step` and `device_us_per_step`; `top`, the costliest kernels; a `diagnosis` when "
              "the trace cannot answer (no GPU, no kernels)"),
         Step("inventory", {"trace": "{trace_path}", "by": "name", "per_step": "true"},
              "one row per kernel: count, total/avg/min/max time and share of the device time; the parts sum "
              "to the total"),
         Step("inventory", {"trace": "{trace_path}", "by": "category"}, "where the time goes by category "
              "(GEMM, attention, norm, communication, ...)"),
         Step("decode", {"names": "NAME..."},
              "for each costly kernel's `name` (from the inventory): its family, tile shapes, data types, "
              "layout")),
        then="Give the inventory as a table (kernel, short name, category, count per step, time per step, "
             "share) and say which kernels dominate."),
    Job("layer_sequence", "The per-layer kernel sequence from a CUDA-graph trace",
        {"trace": "the trace of the graph replays", "capture": "? the trace recorded while the graph was "
                                                              "captured (its Python stacks)"},
        (Step("layers", {"trace": "{trace}", "step": "decode"},
              "the repeating layer: `period` kernels a layer, `layer_count` layers, and per position "
              "(`positions`) the kernel with its min/median/mean/max time; `left_out`, what did not fit"),
         Step("attribute", {"graph_trace": "{trace}", "capture": "{capture}"},
              "(with a capture trace) each replayed kernel matched to the Python stack that launched it "
              "at capture")),
        then="Write the layer's kernel sequence in order, one line per position, with its time and the "
             "module or source line it comes from."),
    Job("serving_benchmark", "Launch a server and run a throughput benchmark",
        {"launch": "the command that starts an OpenAI-compatible server (vllm serve MODEL ...)",
         "server_log": "where to keep the server's log", "request_rate": "? requests per second, or a "
                                                                          "list 1,2,4 for a sweep"},
        (Step("serve", {"launch": "{launch}", "server_log": "{server_log}", "request_rate": "{request_rate}"},
              "per point: TTFT, TPOT, ITL and end-to-end latency percentiles, request and token "
              "throughput, goodput; the client's own lateness (if flagged, the numbers are the client's)"),),
        then="Report throughput and latency per rate; name the rate past which latency rises."),
    Job("kernel_microbenchmark", "A single-kernel micro-benchmark with roofline analysis",
        {"target": "the kernel as a target returning a case (fn, make_inputs, reference, flops, bytes)"},
        (Step("run", {"target": "{target}", "roofline": "true"},
              "per method the median and its 95% CI (`measurements`), the launch overhead (events - graph), "
              "the kernels of one call; `roofline`: achieved TFLOP/s and TB/s, the bound (compute or "
              "memory) and the fraction of the roof; `notes`, warnings first"),
         Step("decode", {"names": "NAME..."},
              "for each kernel's `name` in the result's `kernels`: which implementation ran (family, tiles, "
              "dtypes)")),
        then="Say which method's number answers the question asked, how far below its roof the kernel "
             "runs, and what the notes warn of."),
    Job("source_walkthrough", "A source-level walkthrough: how a Python call reaches each kernel",
        {"target": "the callable as a target (path/to/file.py:func or package.module:func)"},
        (Step("source-trace", {"target": "{target}"},
              "each kernel's call chain, file:line by file:line from the user's code through the framework "
              "to the kernel's source; repeated layers folded"),),
        then="Walk through the chain of the costliest kernels in order, quoting the file:line of each hop."),
    Job("prefill_decode_map", "The prefill-versus-decode kernel map",
        {"trace": "a trace of a generate loop or a serving engine (prefill and decode steps)"},
        (Step("phases", {"trace": "{trace}"},
              "`prefill`, `decode` and `mixed`: each phase's steps, kernel count and time, its time by "
              "category and its top kernels"),
         Step("layers", {"trace": "{trace}", "step": "prefill"}, "the prefill layer's kernel sequence"),
         Step("layers", {"trace": "{trace}", "step": "decode"}, "the decode layer's kernel sequence")),
        then="Lay the two sequences side by side: which kernels change between prefill and decode (GEMM "
             "against GEMV, attention variants) and what share of the time each takes."),
)
