"""``ops`` on a trace recorded here, on a GPU: an eager warm-up, a CUDA-graph capture and its replays
in one trace, as an engine records them -- the replays are counted from the trace itself."""

from __future__ import annotations

import json

import pytest

M, K, N, REPLAYS = 256, 512, 1024, 3


@pytest.mark.gpu
def test_replays_in_the_same_trace_as_their_capture_are_counted(tmp_path):
    import torch
    from torch.profiler import ProfilerActivity, profile

    from bench_kernel.trace import load_trace, ops

    x = torch.randn(M, K, device="cuda", dtype=torch.bfloat16)
    w = torch.randn(K, N, device="cuda", dtype=torch.bfloat16)

    def step():
        return torch.relu(x @ w)

    path = tmp_path / "trace.json"
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA], record_shapes=True) as prof:
        step()  # the eager warm-up: its ops carry the shapes
        torch.cuda.synchronize()
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):  # captured on torch's side stream: launches recorded, not run
            step()
        for _ in range(REPLAYS):
            graph.replay()
        torch.cuda.synchronize()
    prof.export_chrome_trace(str(path))
    trace = load_trace(path, shapes=True)
    assert int(trace.graph_launched.sum()) >= REPLAYS * 2  # a GEMM and a ReLU per replay
    report = ops(trace)
    facts = {"notes": list(report.notes), "uncounted": [u.to_dict() for u in report.uncounted],
             "rows": [(r.op, r.calls, r.origin, r.flops) for r in report.rows]}
    (tmp_path / "ops.json").write_text(json.dumps(facts))
    [mm] = [r for r in report.rows if r.op == "aten::mm"]
    assert "capture" in mm.origin and mm.calls >= 1 + REPLAYS, facts  # warm-up + every replay
    assert mm.flops == mm.calls * 2 * M * K * N, facts
    assert not [u for u in report.uncounted if u.reason.startswith("replayed from a CUDA/HIP graph")], facts
    assert any(n.startswith("graph replays: ") for n in report.notes), facts
