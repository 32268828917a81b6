"""The sample trace shipped with bench-kernel, so every trace command can be tried at once.

A real Kineto trace recorded on an NVIDIA H200 (torch 2.11, CUDA 13) by ``bench-kernel profile
tools/sample_trace_target.py:step --steps 1 --warmup 1``: a 2-layer random-weight Llama (hidden 256,
bf16, eager, SDPA) generating 3 tokens for 2 prompts of 32 tokens, one ``ProfilerStep`` holding the
prefill and two decode forwards. 454 kernels, 692.6 us of kernel time; the GPU is busy 3.7% of the
time (host-bound: a tiny model launches faster than the GPU runs it). Recorded with input shapes,
Python stacks and module markers; 302 KB. Its totals are checked against the raw events in
``tests/test_sample_trace.py``.
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["SAMPLE_TRACE_ABOUT", "sample_trace"]

#: One line on what the sample holds, for ``bench-kernel sample-trace``.
SAMPLE_TRACE_ABOUT = ("H200, torch 2.11: a 2-layer random-weight Llama generating 3 tokens for 2x32-token prompts "
                      "(1 prefill + 2 decode forwards in one ProfilerStep); 454 kernels, 692.6 us of kernel time, "
                      "shapes, stacks and module markers")


def sample_trace() -> Path:
    """The path of the sample trace (``bench-kernel sample-trace`` prints it)."""
    return Path(__file__).resolve().parent / "data" / "sample_llama_generate.json.gz"
