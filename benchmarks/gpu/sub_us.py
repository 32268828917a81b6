"""Why does ``graph`` read more than the profiler for a sub-microsecond kernel?

For a one-element add on an H200, bench-kernel's ``graph`` read 1.03 us per call, the seed's 100-call
graph template 0.89 and the profiler's kernel duration 0.82-0.90; an earlier calibration measured
0.72 us per CUDA-graph node (benchmarks/results/fidelity-h200.md, calibrate-h200.md). Candidates:

1. graph size: bench-kernel captures up to 1000 calls (more with input rotation), the seed 100;
2. input rotation: bench-kernel's cold graph cycles over up to 256 input sets, the seed reuses one;
3. event placement: bench-kernel records [start, replay, end] back to back for a batch of replays
   and syncs once; the seed times each replay with do_bench (an L2-flush kernel, then start/end);
4. the replay stream: bench-kernel replays on the current stream, the graph was captured on a side one;
5. the first replay uploads the graph (bench-kernel replays once before timing; the seed does not).

The experiment is factorial over what can differ: graph size N in SIZES, same vs rotated inputs,
three ways of placing events, and two replay streams; each point is a median over many replays,
reported as us per call (replay time / N). A least-squares fit t(N) = a + b*N per configuration
separates the per-replay cost ``a`` (launch, event placement) from the per-node cost ``b``. The
profiler gives the kernel's own duration and, inside replays, the start-to-start period of nodes.
Last, bench-kernel's own graph method at its default MAX_CALLS and at 100, warm and cold.

Run on a GPU: ``PYTHONPATH=src python3 benchmarks/gpu/sub_us.py`` (writes ``$OUT/sub_us.json`` and
``$OUT/sub_us.md``; about 60 s). ``benchmarks/gpu/trust.py`` runs it too.
"""

from __future__ import annotations

import json
import os
import statistics
import sys
import time
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[2]  # run with PYTHONPATH=src, as gpu_session.sh does

SIZES = (10, 50, 100, 300, 1000, 2000)
ROTATION_SETS = 256
REPLAYS = 200  # timed replays per point (after one untimed)


def _graph(fn, n: int, inputs: list, side: torch.cuda.Stream) -> torch.cuda.CUDAGraph:
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for k in range(3):
            fn(*inputs[k % len(inputs)])
    torch.cuda.current_stream().wait_stream(side)
    torch.cuda.synchronize()
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g, stream=side):
        for j in range(n):
            fn(*inputs[j % len(inputs)])
    torch.cuda.synchronize()
    return g


def _events_back_to_back(g: torch.cuda.CUDAGraph, count: int) -> list[float]:
    """bench-kernel's placement: [start, replay, end] x count, then one sync (us per replay)."""
    starts = [torch.cuda.Event(enable_timing=True) for _ in range(count)]
    ends = [torch.cuda.Event(enable_timing=True) for _ in range(count)]
    for s, e in zip(starts, ends):
        s.record()
        g.replay()
        e.record()
    ends[-1].synchronize()
    return [s.elapsed_time(e) * 1e3 for s, e in zip(starts, ends)]


def _events_isolated(g: torch.cuda.CUDAGraph, count: int) -> list[float]:
    """One replay per event pair, a sync between: the device is idle when each sample starts."""
    out = []
    for _ in range(count):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        g.replay()
        e.record()
        e.synchronize()
        out.append(s.elapsed_time(e) * 1e3)
    return out


def _events_behind_backlog(g: torch.cuda.CUDAGraph, count: int) -> list[float]:
    """A spin kernel queued before each sample, so the replay is enqueued before the start event runs."""
    from bench_kernel.gpu import sleep_us

    out = []
    for _ in range(count):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        sleep_us(50.0)
        s.record()
        g.replay()
        e.record()
        e.synchronize()
        out.append(s.elapsed_time(e) * 1e3)
    return out


PLACEMENTS = {"back_to_back": _events_back_to_back, "isolated": _events_isolated, "behind_backlog": _events_behind_backlog}


def _fit(points: dict[int, float]) -> dict[str, float]:
    """Least squares t(N) = a + b*N over (N, us per replay)."""
    ns = list(points)
    ts = [points[n] for n in ns]
    mn, mt = statistics.fmean(ns), statistics.fmean(ts)
    b = sum((n - mn) * (t - mt) for n, t in zip(ns, ts)) / sum((n - mn) ** 2 for n in ns)
    return {"per_replay_us": mt - b * mn, "per_node_us": b}


def _profiler(fn, inputs: list, side: torch.cuda.Stream) -> dict[str, float]:
    """The kernel's own duration (eager) and, inside a 100-node replay, its start-to-start period."""
    from torch.autograd import DeviceType
    from torch.profiler import ProfilerActivity, profile

    def kernels(prof) -> list[tuple[int, int]]:
        return sorted((e.start_ns(), e.duration_ns()) for e in prof.profiler.kineto_results.events()
                      if e.device_type() != DeviceType.CPU and "elementwise" in e.name())

    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(1000):
            fn(*inputs[0])
        torch.cuda.synchronize()
    eager = kernels(prof)
    g = _graph(fn, 100, inputs[:1], side)
    g.replay()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(20):
            g.replay()
        torch.cuda.synchronize()
    inside = kernels(prof)
    periods = [b[0] - a[0] for a, b in zip(inside, inside[1:]) if b[0] - a[0] < 20_000]  # within one replay
    return {"eager_kernel_us": statistics.median(d for _, d in eager) / 1e3 if eager else None,
            "graph_kernel_us": statistics.median(d for _, d in inside) / 1e3 if inside else None,
            "graph_node_period_us": statistics.median(periods) / 1e3 if periods else None,
            "graph_kernels_seen": len(inside)}


def _bench_kernel_graph(fn, make) -> dict[str, dict]:
    """bench-kernel's own graph method: default MAX_CALLS and 100, warm and cold."""
    import bench_kernel
    import bench_kernel.measure._graph as graph_module  # a benchmark may turn the knob it studies

    out = {}
    default = graph_module.MAX_CALLS
    for max_calls in (default, 100):
        graph_module.MAX_CALLS = max_calls
        for cache in ("warm", "cold"):
            r = bench_kernel.bench(fn, make_inputs=make, methods=("graph", "kernel"), cache=cache, timeout_s=120)
            m = r.measurements["graph"]
            out[f"max{max_calls}_{cache}"] = {"graph_us": r.median_us("graph"), "kernel_us": r.median_us("kernel"),
                                              "calls_per_sample": m.calls_per_sample, "n": m.samples.n,
                                              "notes": [n.text for n in r.notes]}
    graph_module.MAX_CALLS = default
    return out


def run(out_dir: Path) -> dict:
    """The whole experiment; returns (and writes) the raw numbers."""
    t0 = time.perf_counter()
    dev = "cuda"
    make = lambda: (torch.randn(1, device=dev), torch.randn(1, device=dev))  # noqa: E731
    same = [make()]
    rotated = [make() for _ in range(ROTATION_SETS)]
    side = torch.cuda.Stream()
    fn = torch.add
    points: dict[str, dict[int, float]] = {}
    for inputs_name, inputs in (("same", same), ("rotated", rotated)):
        for n in SIZES:
            g = _graph(fn, n, inputs, side)
            g.replay()  # upload
            torch.cuda.synchronize()
            for pname, placement in PLACEMENTS.items():
                for stream_name in ("current", "side"):
                    ctx = torch.cuda.stream(side) if stream_name == "side" else torch.cuda.stream(torch.cuda.current_stream())
                    with ctx:
                        us = statistics.median(placement(g, REPLAYS if pname == "back_to_back" else REPLAYS // 2))
                    points.setdefault(f"{inputs_name}/{pname}/{stream_name}", {})[n] = us
            del g
    # The first replay (upload) against the second, for a 1000-node graph.
    g = _graph(fn, 1000, same, side)
    first = _events_isolated(g, 1)[0]
    second = _events_isolated(g, 1)[0]
    del g
    result = {
        "device": torch.cuda.get_device_name(0), "torch": torch.__version__, "cuda": torch.version.cuda,
        "sizes": list(SIZES), "rotation_sets": ROTATION_SETS, "replays": REPLAYS,
        "us_per_call": {k: {str(n): t / n for n, t in v.items()} for k, v in points.items()},
        "us_per_replay": {k: {str(n): t for n, t in v.items()} for k, v in points.items()},
        "fits": {k: _fit(v) for k, v in points.items()},
        "upload": {"first_replay_us": first, "second_replay_us": second},
        "profiler": _profiler(fn, same, side),
        "bench_kernel": _bench_kernel_graph(fn, make),
    }
    result["wall_s"] = time.perf_counter() - t0
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / "sub_us.json").write_text(json.dumps(result, indent=1))
    (out_dir / "sub_us.md").write_text(render(result))
    return result


def render(r: dict) -> str:
    """The raw numbers as Markdown tables, ready for benchmarks/results/trust-h200.md."""
    L = [f"## Sub-microsecond kernels: a one-element add on {r['device']} (torch {r['torch']}, CUDA {r['cuda']})", "",
         "us per call = median replay time / N; fits t(N) = a + b*N (a: per replay, b: per node).", "",
         "| inputs / events / stream | " + " | ".join(f"N={n}" for n in r["sizes"]) + " | a (us/replay) | b (us/node) |",
         "|---|" + "---:|" * (len(r["sizes"]) + 2)]
    for k, per in r["us_per_call"].items():
        fit = r["fits"][k]
        L.append(f"| {k} | " + " | ".join(f"{per[str(n)]:.3f}" for n in r["sizes"])
                 + f" | {fit['per_replay_us']:.2f} | {fit['per_node_us']:.3f} |")
    p = r["profiler"]
    L += ["", f"Profiler: eager kernel {p['eager_kernel_us']} us, the same kernel inside a graph "
          f"{p['graph_kernel_us']} us, node start-to-start period {p['graph_node_period_us']} us "
          f"({p['graph_kernels_seen']} graph kernels seen).",
          f"Upload: first replay of a 1000-node graph {r['upload']['first_replay_us']:.1f} us, second "
          f"{r['upload']['second_replay_us']:.1f} us.", "",
          "| bench-kernel graph method | graph us | kernel us | calls per sample | samples |", "|---|---:|---:|---:|---:|"]
    for k, v in r["bench_kernel"].items():
        L.append(f"| {k} | {v['graph_us']:.3f} | {v['kernel_us']:.3f} | {v['calls_per_sample']} | {v['n']} |")
    L += ["", f"Wall: {r['wall_s']:.1f} s."]
    return "\n".join(L) + "\n"


def main() -> int:
    if not torch.cuda.is_available():
        print("sub_us.py needs a CUDA/HIP GPU", file=sys.stderr)
        return 1
    out = Path(os.environ.get("OUT") or ROOT / "benchmarks" / "results")
    r = run(out)
    print(render(r))
    return 0


if __name__ == "__main__":
    sys.exit(main())
