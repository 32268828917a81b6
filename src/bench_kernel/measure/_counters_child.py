"""The child process that the counter tool watches: rebuild the case, warm it up, make ONE call to count.

``python -m bench_kernel.measure._counters_child SPEC_JSON`` with SPEC ``{"loader": "module:function",
"kwargs": {...}, "warmup": 3, "range": "bk_counters", "device_index": 0}`` (a :class:`CaseOrigin` and how
to run it). The warm-up calls (JIT compilation, autotuning, cuBLAS heuristics) run outside the NVTX
range, so only the counted call's launches are profiled; that call is the last GPU work before the
process ends, which is how rocprofv3 (without an NVTX filter) finds it.

The target's own prints go to stderr: stdout carries the counter tool's CSV. A failure is one line
``bench-kernel-child: error: ...`` on stderr and exit status 3.
"""

from __future__ import annotations

import importlib
import json
import os
import sys
from typing import Any

from bench_kernel.counters import CHILD_ERROR
from bench_kernel.gpu import has_gpu

EXIT_FAILED = 3


def _loader(spec: str) -> Any:
    module, _, name = spec.partition(":")
    return getattr(importlib.import_module(module), name)


def run(spec: dict[str, Any]) -> None:
    """Rebuild the case of ``spec``, warm it up, then make the counted call inside the NVTX range."""
    import torch

    from bench_kernel.measure._inputs import call_with

    case = _loader(spec["loader"])(**spec["kwargs"])
    if not has_gpu():
        raise RuntimeError("no CUDA/HIP GPU is visible to the child process")
    torch.cuda.set_device(int(spec.get("device_index", 0)))
    inputs = case.make_inputs() if case.make_inputs is not None else None
    for _ in range(int(spec.get("warmup", 3))):
        call_with(case.fn, inputs)
    torch.cuda.synchronize()
    torch.cuda.nvtx.range_push(spec["range"])
    call_with(case.fn, inputs)
    torch.cuda.synchronize()
    torch.cuda.nvtx.range_pop()


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    sys.stdout.flush()
    os.dup2(2, 1)  # the target's prints must not land in the tool's CSV
    try:
        run(json.loads(args[0]))
    except BaseException as e:  # noqa: BLE001 - user code: any failure is one line for the parent
        text = " ".join(str(e).split()) or "(no message)"
        sys.stderr.write(f"{CHILD_ERROR}{type(e).__name__}: {text[:500]}\n")
        sys.stderr.flush()
        os._exit(EXIT_FAILED)
    sys.stderr.flush()
    # os._exit: compile worker pools and atexit hooks launch nothing on the GPU after the counted call,
    # and cannot keep the tool waiting (NVIDIA's nsight-python ends its profiled runs the same way).
    os._exit(0)


if __name__ == "__main__":
    main()
