"""How much does ``bench-kernel serve``'s client add to what it measures?

Against the scripted server (tests/serve_scripted.py, a separate process) streaming as fast as it
can (0 ms TTFT and ITL, TOKENS tokens per request, one token per chunk), at 1, 64 and 256
concurrent streams on this machine:
  - send lateness: the client's own delay between a request being due and being sent (p50/p99/max);
  - event-loop lag: how late the loop's 10 ms probe woke (p50/p99/max);
  - read delay: client receive time - the server's write time of each chunk (both CLOCK_MONOTONIC);
  - ITL error: |client gap - server gap| between consecutive chunks of one request (p50/p99/mean).
A second pass at ITL 20 ms shows the same at a realistic decode pace.

The server's write times come from the ``"t"`` each scripted chunk carries; the benchmark reads
them by wrapping ``StreamState._chunk`` (instrumentation of this script only: the library never
reads ``t``). Run: ``python benchmarks/serve_client_overhead.py [-o benchmarks/results/serve-client-overhead.md]``.
"""

from __future__ import annotations

import argparse
import datetime
import sys
import time
from pathlib import Path

import numpy as np
from common import ROOT, load_average, machine  # noqa: E402  (benchmarks/common.py, beside this script)

sys.path.insert(0, str(ROOT / "tests"))  # the scripted server is the tests' (tests/serve_scripted.py)

import bench_kernel.serve._sse as sse  # noqa: E402
from bench_kernel.serve import Endpoint, Load, Prompt, connect, run_point  # noqa: E402
from serve_scripted import start  # noqa: E402

TOKENS = 64
_SEEN: dict[int, list[tuple[float, float]]] = {}
_orig = sse.StreamState._chunk


def _chunk(self, obj, t):  # type: ignore[no-untyped-def]
    if isinstance(obj, dict) and "t" in obj and obj.get("choices"):
        ch = obj["choices"][0]
        if (ch.get("delta") or {}).get("content"):
            _SEEN.setdefault(id(self), []).append((time.perf_counter(), float(obj["t"])))
    return _orig(self, obj, t)


sse.StreamState._chunk = _chunk


def _q(xs: list[float]) -> str:
    if not xs:
        return "-"
    p = np.percentile(xs, [50, 99])
    return f"{p[0]:.3f} / {p[1]:.3f} / {max(xs):.3f}"


def measure(url: str, streams: int, requests: int) -> dict:
    _SEEN.clear()
    info = connect(url, "m")
    prompts = tuple(Prompt("x hello", 2, TOKENS) for _ in range(requests))
    cpu0, wall0 = time.process_time(), time.perf_counter()
    p = run_point(info, Endpoint(url, "chat", "m", continuous_usage=False), prompts, Load(max_concurrency=streams),
                  num_prompts=requests)
    cpu, wall = time.process_time() - cpu0, time.perf_counter() - wall0
    delay, err = [], []
    for pairs in _SEEN.values():
        delay += [(c - s) * 1e3 for c, s in pairs]
        err += [abs((c1 - c0) - (s1 - s0)) * 1e3 for (c0, s0), (c1, s1) in zip(pairs, pairs[1:])]
    m = p.requests
    return {"streams": streams, "requests": requests, "completed": m.completed, "chunks": m.chunks,
            "late": [r.lateness_ms for r in p.records], "lag": list(_lag(p)), "delay": delay, "err": err,
            "tok_s": p.throughput.output_tokens_per_s, "duration_s": p.duration_s,
            "client_bound": p.client.client_bound,
            # the client's own CPU: independent of how loaded the machine is, it says where the limit is
            "cpu_us_per_chunk": cpu / max(1, m.chunks) * 1e6, "cpu_share": cpu / wall}


def _lag(p):  # the loop-lag samples are summarised in the metrics; recompute the tail from them
    lag = p.client.loop_lag_ms
    return [lag.p50, lag.p99, lag.max] if lag.n else []


def run(itl_ms: float, plan: list[tuple[int, int]]) -> list[dict]:
    srv = start({"default": {"tokens": TOKENS, "itl_ms": itl_ms, "ttft_ms": itl_ms}, "models": ["m"]})
    try:
        measure(srv.url, 4, 8)  # warm: connections, imports
        return [measure(srv.url, s, n) for s, n in plan]
    finally:
        srv.stop()


def table(rows: list[dict], title: str) -> str:
    out = [f"### {title}", "",
           "| streams | requests | chunks | out tok/s | send lateness p50 / p99 / max (ms) | loop lag p50 / p99 / max "
           "(ms) | read delay p50 / p99 / max (ms) | ITL error p50 / p99 / max (ms) | mean ITL error (ms) | "
           "client CPU per chunk (µs) | client CPU (share of one core) |",
           "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        lag = r["lag"]
        lag_s = f"{lag[0]:.3f} / {lag[1]:.3f} / {lag[2]:.3f}" if lag else "-"
        out.append(f"| {r['streams']} | {r['completed']}/{r['requests']} | {r['chunks']} | {r['tok_s']:.0f} | "
                   f"{_q(r['late'])} | {lag_s} | {_q(r['delay'])} | {_q(r['err'])} | "
                   f"{np.mean(r['err']) if r['err'] else float('nan'):.3f} | {r['cpu_us_per_chunk']:.1f} | "
                   f"{r['cpu_share']:.0%} |")
    return "\n".join(out) + "\n"


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("-o", "--output", type=Path, default=None)
    args = ap.parse_args()
    plan = [(1, 20), (64, 256), (256, 512)]
    fast = run(0.0, plan)
    paced = run(20.0, plan)
    head = (f"# bench-kernel serve: the client's own overhead\n\n"
            f"Date: {datetime.date.today()}; machine: {machine()} (shared; load average {load_average():.1f} "
            f"at the end); "
            f"scripted server in a separate process on the same cores; {TOKENS} tokens per request, one per "
            f"chunk. Made by `python benchmarks/serve_client_overhead.py`.\n\n")
    body = table(fast, "ITL 0 ms (the server streams as fast as it can)") + "\n" + table(
        paced, "ITL 20 ms (a realistic decode pace)")
    text = head + body
    print(text)
    if args.output:
        args.output.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
