"""The sample trace shipped with bench-kernel, so every trace command can be tried at once.

A real Kineto trace recorded on an NVIDIA H200 (torch 2.11, CUDA 13) by ``bench-kernel profile
tools/sample_trace_target.py:forwards --steps 4 --warmup 4``: a 2-layer random-weight Llama (hidden
256, bf16, eager, SDPA) on 2 prompts of 32 tokens, one forward per ``ProfilerStep``: the prefill,
then three decodes with the KV cache (so ``phases`` tells them apart: 1 prefill step, 3 decode
steps of 103 kernels each). 412 kernels, 671.6 µs of kernel time; the GPU is busy 3.3% of the time
(host-bound: a tiny model launches faster than the GPU runs it). Recorded with input shapes,
Python stacks and module markers; 153 KB. Its totals are checked against the raw events in
``tests/test_sample_trace.py``.
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["SAMPLE_TRACE_ABOUT", "sample_trace"]

#: One line on what the sample holds, for ``bench-kernel sample-trace``.
SAMPLE_TRACE_ABOUT = ("H200, torch 2.11: a 2-layer random-weight Llama on 2x32-token prompts, one forward per "
                      "ProfilerStep (1 prefill + 3 decodes); 412 kernels, 671.6 µs of kernel time, "
                      "shapes, stacks and module markers")


def sample_trace() -> Path:
    """The path of the sample trace (``bench-kernel sample-trace`` prints it)."""
    return Path(__file__).resolve().parent / "data" / "sample_llama_generate.json.gz"
