"""`transformers serve` with the /start_profile and /stop_profile routes vLLM and SGLang have.

transformers serve has no profiler routes (SERVING.md). This wrapper adds them to the FastAPI app it
builds and then runs the real CLI unchanged: ``python tests/serve_profiling_wrapper.py DIR serve
MODEL --host ... --port ...``. Generation runs on a thread of its own, so the profiler is started
with ``profile_all_threads``: without it the trace holds 0 ops. /stop_profile writes
``DIR/rank0.<time>.pt.trace.json.gz`` as vLLM names its traces. Each outermost model call while
profiling is a ``ProfilerStep#N`` range (transformers annotates no steps of its own).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path


def main() -> int:
    out = Path(sys.argv[1])
    import fastapi
    import torch
    from torch.profiler import ProfilerActivity, _ExperimentalConfig, profile

    state: dict = {}

    def start_profile() -> dict:
        acts = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if torch.cuda.is_available() else [])
        prof = profile(activities=acts, record_shapes=True,
                       experimental_config=_ExperimentalConfig(profile_all_threads=True))
        prof.start()
        state["prof"] = prof
        return {"status": "started"}

    def stop_profile() -> dict:
        prof = state.pop("prof", None)
        if prof is None:
            return {"status": "not started"}
        prof.stop()
        out.mkdir(parents=True, exist_ok=True)
        path = out / f"rank0.{int(time.time() * 1000)}.pt.trace.json.gz"
        prof.export_chrome_trace(str(path))
        return {"status": "stopped", "trace": str(path)}

    # Patched on FastAPI itself, not on transformers' server module (whose layout changes between
    # releases: 5.17 on the H200, 5.24 here): transformers serve builds exactly one app.
    original_init = fastapi.FastAPI.__init__

    def init(self, *args, **kwargs):
        original_init(self, *args, **kwargs)
        self.add_api_route("/start_profile", start_profile, methods=["POST"])
        self.add_api_route("/stop_profile", stop_profile, methods=["POST"])

    fastapi.FastAPI.__init__ = init

    # transformers marks no steps in its traces. Each outermost model call (one prefill or decode
    # forward) becomes a ``ProfilerStep#N`` range, the profiler's own step name, so that ``phases``
    # and ``timeline`` find the steps (and split them by the GEMM shapes record_shapes keeps).
    import threading

    from transformers import PreTrainedModel

    local = threading.local()
    steps = [0]
    base_call = torch.nn.Module.__call__

    def call(self, *args, **kwargs):
        if "prof" not in state or getattr(local, "depth", 0):
            return base_call(self, *args, **kwargs)
        local.depth = 1
        steps[0] += 1
        try:
            with torch.profiler.record_function(f"ProfilerStep#{steps[0]}"):
                return base_call(self, *args, **kwargs)
        finally:
            local.depth = 0

    PreTrainedModel.__call__ = call
    torch.set_num_threads(1)
    from transformers.cli.transformers import main as cli_main

    sys.argv = ["transformers", *sys.argv[2:]]
    return cli_main() or 0


if __name__ == "__main__":
    sys.exit(main())
