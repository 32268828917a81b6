"""What a measurement costs on a GPU, beside the snippets it replaces; where the time goes.

Run on a GPU from the repo root, all in one process (about 3 minutes on an H200; at most 7):

    OUT=out PYTHONPATH=src python3 benchmarks/gpu/speed.py [--parts clock,micro,profiler,cases,loop,run,sweep] [--repeat 3]
    python3 benchmarks/gpu/speed_report.py out/speed.json --before OLD.json -o benchmarks/results/speed-h200.md

Parts (each writes its numbers into ``$OUT/speed.json`` as it ends; a part that fails is recorded):
  clock  the SM clock (NVML, every 50 ms) while the GPU idles, under the device warm-up as the code
         has it (its record), idling again (how fast the clock falls back), under a launch-bound load
         of tiny kernels, under ``torch.cuda._sleep`` spins, and under 2048^3 GEMMs.
  micro  what the measurement's fixed steps cost: an NVML read, ``gpu_state``, a profiler session
         (empty, 200 calls, its event collection), a 1000-call graph capture, an event sample with
         flush and backlog, the flush buffer, a case warm-up.
  profiler  the profiler's first session, each way in a fresh process: ``torch.profiler.profile`` (its
         prepare/start/stop, and whether it imported ``torch._inductor``), the bare Kineto session the
         kernel method opens (``bench_kernel.measure.start_profiler``), ``import torch._inductor`` and
         ``import triton`` alone, and ``import torch`` with the CUDA context.
  cases  six cases (a 1-element add, a 4 MB and a 256 MB ``mul_``, a 1x4096^2 bf16 GEMV, an 8192^3
         bf16 GEMM, a causal SDPA): the seed's snippets (100 calls captured in a graph on a side
         stream and ``do_bench`` of its replay, plain ``do_bench``, one 10-call ``torch.profiler``
         pass with its ``key_averages().table``), then ``bench()`` as a user calls it, ``--repeat``
         times each, alternating; per call the wall, the time in each step of ``measure_case``
         (wrapped, not sampled) and the result's warm-up record; the median of the repeats is
         compared. Fidelity: a raw profiler sum with L2 flushed (against ``kernel``), each call
         right behind the flush and again launched at the method's pace, and the seed's graph
         over input sets rotated by hand past 3x L2 (against ``graph``).
  loop   ``bench()`` ten times in a row on the 4 MB ``mul_``, in a fresh process: each call's wall,
         warm-up record and wait for the profiler's first session.
  run    ``bench-kernel run`` (the built-in suite, the table as a user sees it, ``--save`` into a
         temporary store for the per-case figures), ``--repeat`` times, a fresh process each: the
         process's wall, the footer, each result's wall, timing and profiler start-up.
  sweep  ``bench-kernel sweep benchmarks/verdicts_rmsnorm.py -m graph`` (providers torch and manual): the stored run's wall
         against the time its methods measured (the sum of the measurements' wall); then the same
         sweep in this process with its steps wrapped (store claims and commits, NVML reads, inputs,
         the check, the case's warm-up, the flush buffer, the methods), per unit.
Writes ``$OUT/speed.json`` (every number) and ``$OUT/speed.md`` (the tables; the source of
benchmarks/results/speed-h200.md); prints the summary last.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import os
import pstats
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any, Callable

import torch
import torch.nn.functional as F

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))
from common import child_env  # noqa: E402

import bench_kernel  # noqa: E402
from bench_kernel.measure import _measure  # noqa: E402

MiB = 2**20
OUT = Path(os.environ.get("OUT", "out"))


def cases() -> list[tuple[str, Callable[..., Any], Callable[[], Any]]]:
    dev, bf = "cuda", torch.bfloat16
    return [
        ("add_1_element", torch.add, lambda: (torch.randn(1, device=dev), torch.randn(1, device=dev))),
        ("mul__4MB", lambda x: x.mul_(1.0001), lambda: (torch.randn(MiB, device=dev),)),
        ("mul__256MB", lambda x: x.mul_(1.0001), lambda: (torch.randn(64 * MiB, device=dev),)),
        ("gemv_1x4096x4096_bf16", F.linear,
         lambda: (torch.randn(1, 4096, device=dev, dtype=bf), torch.randn(4096, 4096, device=dev, dtype=bf))),
        ("gemm_8192^3_bf16", torch.matmul,
         lambda: (torch.randn(8192, 8192, device=dev, dtype=bf), torch.randn(8192, 8192, device=dev, dtype=bf))),
        ("sdpa_causal_1x32x4096x128_bf16", lambda q, k, v: F.scaled_dot_product_attention(q, k, v, is_causal=True),
         lambda: tuple(torch.randn(1, 32, 4096, 128, device=dev, dtype=bf) for _ in range(3))),
    ]


# ---------------------------------------------------------------- NVML sampling

class ClockTrace:
    """The SM clock (MHz) every ``period_s`` in a thread, with a label per phase."""

    def __init__(self, period_s: float = 0.05) -> None:
        import pynvml

        pynvml.nvmlInit()
        self.nvml, self.h = pynvml, pynvml.nvmlDeviceGetHandleByIndex(0)
        self.period_s, self.rows, self.label = period_s, [], "start"
        self.t0 = time.perf_counter()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        n = self.nvml
        while not self._stop.is_set():
            try:
                sm = n.nvmlDeviceGetClockInfo(self.h, n.NVML_CLOCK_SM)
                power = n.nvmlDeviceGetPowerUsage(self.h) / 1000.0
            except Exception:  # noqa: BLE001
                sm = power = None
            self.rows.append((round(time.perf_counter() - self.t0, 3), self.label, sm, power))
            time.sleep(self.period_s)

    def __enter__(self) -> "ClockTrace":
        self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._stop.set()
        self._thread.join()

    def phase(self, label: str) -> None:
        self.label = label


def _hold(fn: Callable[[], Any], seconds: float) -> int:
    calls, t0 = 0, time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        for _ in range(50):
            fn()
        torch.cuda.synchronize()
        calls += 50
    return calls


def part_clock() -> dict:
    from bench_kernel.measure import _warmup, warm_up_device

    out: dict[str, Any] = {"settles": []}
    orig = getattr(_warmup, "hold_until_settled", None)
    if orig is not None:  # keep every window of the warm-up's hold, not only its summary
        def keep(*a: Any, **k: Any) -> Any:
            settle = orig(*a, **k)
            out["settles"].append(settle.to_dict())
            return settle
        _warmup.hold_until_settled = keep
    a, b = (torch.randn(2048, 2048, device="cuda", dtype=torch.bfloat16) for _ in range(2))
    one = torch.randn(1, device="cuda")
    with ClockTrace() as tr:
        tr.phase("idle-1"); time.sleep(1.0)
        tr.phase("device-warmup")
        t0 = time.perf_counter()
        out["warmup_record"] = warm_up_device(0)
        out["warmup_wall_s"] = time.perf_counter() - t0
        tr.phase("idle-2"); time.sleep(3.0)
        tr.phase("tiny-adds"); out["tiny_add_calls"] = _hold(lambda: one.add_(1.0), 0.5)
        tr.phase("gemm2048"); out["gemm2048_calls"] = _hold(lambda: a @ b, 1.5)
        tr.phase("idle-5"); time.sleep(1.0)
        # the warm-up again, right after a load: what does it do when the clock is already up?
        tr.phase("device-warmup-again")
        out["warmup_again_record"] = warm_up_device(0)
        tr.phase("end"); time.sleep(0.2)
    out["trace"] = tr.rows
    return out


# ---------------------------------------------------------------- micro costs

def _t(fn: Callable[[], Any], reps: int = 5) -> list[float]:
    walls = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        walls.append(time.perf_counter() - t0)
    return walls


def part_micro() -> dict:
    from torch.profiler import ProfilerActivity, profile, record_function

    from bench_kernel.gpu import EventTimer, sleep_us
    from bench_kernel.measure import gpu_state
    from bench_kernel.measure._env import sm_clock_reader
    from bench_kernel.measure._inputs import L2Flusher
    from bench_kernel.measure._kernel import _collect, attribute
    from bench_kernel.measure._profiler_start import kineto_session
    from bench_kernel.measure._runner import Runner

    out: dict[str, Any] = {}
    x, y = torch.randn(1, device="cuda"), torch.randn(1, device="cuda")
    read = sm_clock_reader(0)
    out["nvml_read_s"] = _t(lambda: [read() for _ in range(100)], 3)  # per 100 reads
    out["gpu_state_s"] = _t(lambda: gpu_state(0))
    acts = [ProfilerActivity.CPU, ProfilerActivity.CUDA]

    def session(n: int) -> None:
        with profile(activities=acts):
            for _ in range(n):
                with record_function("bk::call"):
                    torch.add(x, y)
            torch.cuda.synchronize()

    t0 = time.perf_counter()
    try:  # the process's first session, step by step (where does CUPTI start?)
        first = profile(activities=acts)
        first.prepare_trace()
        t1 = time.perf_counter()
        first.start_trace()
        t2 = time.perf_counter()
        torch.add(x, y)
        torch.cuda.synchronize()
        first.stop_trace()
        t3 = time.perf_counter()
        out["profiler_first_session_steps_s"] = {"prepare": t1 - t0, "start": t2 - t1, "stop": t3 - t2}
    except Exception as e:  # noqa: BLE001 - recorded; the session below pays the first cost then
        out["profiler_first_session_steps_s"] = f"{type(e).__name__}: {e}"
    out["profiler_first_session_s"] = _t(lambda: session(1), 1) if isinstance(
        out["profiler_first_session_steps_s"], str) else [time.perf_counter() - t0]
    out["profiler_empty_session_s"] = _t(lambda: session(0))
    out["profiler_200_calls_session_s"] = _t(lambda: session(200))
    prof = kineto_session()  # what the kernel method records through, and what _collect reads
    with prof:
        for _ in range(200):
            with record_function("bk::call"):
                torch.add(x, y)
        torch.cuda.synchronize()
    out["profiler_collect_attribute_200_s"] = _t(lambda: attribute(*_collect(prof)))

    def capture(n: int) -> None:
        g, s = torch.cuda.CUDAGraph(), torch.cuda.Stream()
        s.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(s):
            torch.add(x, y)
        torch.cuda.current_stream().wait_stream(s)
        with torch.cuda.graph(g, stream=s):
            for _ in range(n):
                torch.add(x, y)
        g.replay()
        torch.cuda.synchronize()

    out["graph_capture_1000_s"] = _t(lambda: capture(1000))
    out["graph_capture_100_s"] = _t(lambda: capture(100))
    t0 = time.perf_counter()
    fl = L2Flusher(torch.cuda.get_device_properties(0).L2_cache_size, 0)
    out["flusher_first_s"] = time.perf_counter() - t0
    timer = EventTimer(200)

    def before() -> None:
        fl.flush()
        sleep_us(30.0)

    walls, spreads = [], []
    for _ in range(3):
        t0 = time.perf_counter()
        us = timer.time(lambda: torch.add(x, y), 200, before)
        walls.append(time.perf_counter() - t0)
        spreads.append(bench_kernel.records.Samples.of(us).rel_ci95)
    out["events_200_cold_samples_s"], out["events_200_cold_rel_ci95"] = walls, spreads
    runner = Runner(lambda: torch.add(x, y), [None], "add", gpu=True)
    out["runner_warmup_add_s"] = _t(runner.warmup, 3)
    out["runner_warmup_add_calls"] = runner.warmup_calls
    return out


# ---------------------------------------------------------------- the profiler's first session

PROFILER_CHILD = r"""
import json, sys, time
t0 = time.perf_counter()
import torch
out = {"import_torch_s": time.perf_counter() - t0}
t0 = time.perf_counter()
torch.ones(1, device="cuda").add_(1)
torch.cuda.synchronize()
out["cuda_init_s"] = time.perf_counter() - t0
how = sys.argv[1]
t0 = time.perf_counter()
if how == "torch.profiler":
    from torch.profiler import ProfilerActivity, profile
    p = profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA])
    a = time.perf_counter(); p.prepare_trace(); b = time.perf_counter(); p.start_trace()
    torch.ones(1, device="cuda").add_(1); torch.cuda.synchronize(); c = time.perf_counter(); p.stop_trace()
    out["steps_s"] = {"prepare": b - a, "start": c - b, "stop": time.perf_counter() - c}
elif how == "bench_kernel":
    from bench_kernel.measure import start_profiler
    out["start_profiler_s"] = start_profiler()
elif how == "import_inductor":
    import torch._inductor  # noqa: F401
elif how == "import_triton":
    import triton  # noqa: F401
out["wall_s"] = time.perf_counter() - t0
out["inductor_imported"] = "torch._inductor" in sys.modules
out["triton_imported"] = "triton" in sys.modules
if how in ("torch.profiler", "bench_kernel"):  # a later session, for scale
    from bench_kernel.measure._profiler_start import kineto_session
    t0 = time.perf_counter()
    with kineto_session():
        torch.ones(1, device="cuda").add_(1)
    out["second_session_s"] = time.perf_counter() - t0
print(json.dumps(out))
"""


def part_profiler() -> dict:
    """Each way of opening the first session, in a fresh process of its own (what a run pays)."""
    out: dict[str, Any] = {}
    for how in ("torch.profiler", "bench_kernel", "import_inductor", "import_triton"):
        t0 = time.perf_counter()
        p = subprocess.run([sys.executable, "-c", PROFILER_CHILD, how], env=child_env(), capture_output=True,
                           text=True, timeout=90)
        row: dict[str, Any] = {"rc": p.returncode, "process_wall_s": round(time.perf_counter() - t0, 3)}
        try:
            row.update(json.loads(p.stdout.strip().splitlines()[-1]))
        except (IndexError, ValueError):
            row["stderr_tail"] = p.stderr[-1500:]
        row["kineto_error_line"] = "External init callback" in p.stderr
        out[how] = row
        print(json.dumps({"profiler": how, **{k: v for k, v in row.items() if k != "stderr_tail"}}), flush=True)
    return out


# ---------------------------------------------------------------- phases of measure_case

class Phases:
    """Wall time spent in named functions of ``measure_case``, by wrapping them (not sampling)."""

    WRAPPED = {
        "check": (_measure, "_check"), "plan_inputs": (_measure, "_plan_inputs"),
        "gpu_state": (_measure, "gpu_state"), "flusher": (_measure, "L2Flusher"),
        "stability_notes": (_measure, "stability_notes"), "agreement_note": (_measure, "agreement_note"),
        "merge": (_measure, "merge_measurements"),
    }

    def __init__(self) -> None:
        self.acc: dict[str, float] = {}
        self.methods: list[dict] = []
        self._saved: list[tuple[Any, str, Any]] = []

    def _wrap(self, owner: Any, attr: str, label: str) -> None:
        orig = getattr(owner, attr)
        acc = self.acc

        def wrapped(*a: Any, **k: Any) -> Any:
            t0 = time.perf_counter()
            try:
                return orig(*a, **k)
            finally:
                acc[label] = acc.get(label, 0.0) + time.perf_counter() - t0

        self._saved.append((owner, attr, orig))
        setattr(owner, attr, wrapped)

    def __enter__(self) -> "Phases":
        for label, (owner, attr) in self.WRAPPED.items():
            if hasattr(owner, attr):
                self._wrap(owner, attr, label)
        from bench_kernel.measure._runner import Runner

        self._wrap(Runner, "warmup", "case_warmup")
        for cls_name in ("GraphMethod", "EventsMethod", "KernelMethod", "HostMethod"):
            cls = getattr(_measure, cls_name, None)
            if cls is None:
                continue
            orig, methods = cls.run, self.methods

            def run(self_: Any, runner: Any, rule: Any, _orig: Any = orig, _methods: Any = methods) -> Any:
                t0 = time.perf_counter()
                t = _orig(self_, runner, rule)
                m = t.measurement
                _methods.append({"method": m.method, "wall_s": round(time.perf_counter() - t0, 4),
                                "n": m.samples.n, "stop": m.stop_reason, "rel_ci95": round(m.samples.rel_ci95, 5)
                                if m.samples.n else None, "median_us": m.samples.median_us if m.samples.n else None})
                return t

            self._saved.append((cls, "run", orig))
            cls.run = run
        return self

    def __exit__(self, *exc: Any) -> None:
        for owner, attr, orig in reversed(self._saved):
            setattr(owner, attr, orig)

    def summary(self) -> dict:
        by_method: dict[str, float] = {}
        for m in self.methods:
            by_method[m["method"]] = by_method.get(m["method"], 0.0) + m["wall_s"]
        return {"steps_s": {k: round(v, 4) for k, v in self.acc.items()},
                "methods_s": {k: round(v, 4) for k, v in by_method.items()}, "method_rounds": self.methods}


def snippets(fn: Callable[[], Any]) -> dict:
    """The seed's three snippets on one input set; the wall of each (s) and what each read (us)."""
    import triton.testing as tt
    from torch.profiler import ProfilerActivity, profile

    walls = {}
    t0 = time.perf_counter()
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for _ in range(3):
            fn()
    torch.cuda.current_stream().wait_stream(s)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g, stream=s):
        for _ in range(100):
            fn()
    torch.cuda.synchronize()
    graph_us = tt.do_bench(g.replay, return_mode="median") * 1e3 / 100
    walls["graph_do_bench_s"] = time.perf_counter() - t0
    del g
    t0 = time.perf_counter()
    events_us = tt.do_bench(fn, return_mode="median") * 1e3
    walls["do_bench_s"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        for _ in range(10):
            fn()
        torch.cuda.synchronize()
    table = prof.key_averages().table(sort_by="cuda_time_total", row_limit=10)
    walls["profiler_table_s"] = time.perf_counter() - t0
    return {**{k: round(v, 4) for k, v in walls.items()}, "wall_s": round(sum(walls.values()), 4),
            "graph_us": graph_us, "do_bench_us": events_us, "table_lines": len(table.splitlines())}


def raw_profiler_us(call: Callable[[int], Any], flush: Callable[[], Any], calls: int = 100,
                    marked: bool = False) -> float:
    """A plain torch.profiler sum of device time per call (``call(i)`` for the i-th), ``flush()``
    before each: the flush's kernels are found by profiling it alone, then left out. ``marked``
    wraps each flush and call in ``record_function``, as the ``kernel`` method launches them."""
    from torch.autograd import DeviceType
    from torch.autograd.profiler import record_function
    from torch.profiler import ProfilerActivity, profile

    from bench_kernel.measure._kernel import CALL_MARK, FLUSH_MARK

    for i in range(3):
        flush()
        call(i)
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as p_flush:
        flush()
        torch.cuda.synchronize()
    drop = {e.name() for e in p_flush.profiler.kineto_results.events() if e.device_type() != DeviceType.CPU}
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for i in range(calls):
            if marked:
                with record_function(FLUSH_MARK):
                    flush()
                with record_function(CALL_MARK):
                    call(i)
            else:  # nothing between the launches: the call runs right behind the flush
                flush()
                call(i)
        torch.cuda.synchronize()
    total = sum(e.duration_ns() for e in prof.profiler.kineto_results.events()
                if e.device_type() != DeviceType.CPU and e.name() not in drop)
    return total / calls / 1e3


def raw_cold_kernel_us(fn: Callable[[], Any], l2_bytes: int, calls: int = 100, paced: bool = False) -> float:
    """:func:`raw_profiler_us` of ``fn``, L2 flushed by a read of 2x L2 before each call: what
    ``kernel`` cold must match. ``paced`` launches each flush and call inside ``record_function``,
    at the ``kernel`` method's pace: a call of a few microseconds launched right behind the flush
    reads ~6% slower than one the host launched a little later (``kernel_vs_raw.py``)."""
    buf = torch.randint(0, 100, (2 * l2_bytes // 4,), dtype=torch.int32, device="cuda")
    return raw_profiler_us(lambda _i: fn(), lambda: buf.max(), calls, marked=paced)


def hand_rotated_graph_us(fn: Callable[..., Any], make: Callable[[], Any], l2_bytes: int) -> float | None:
    """The seed's graph template over input sets rotated by hand, beyond 3x L2 between two uses of
    one (what ``graph`` cold must match); None when 256 sets cannot reach past 2x L2."""
    import triton.testing as tt

    from bench_kernel.measure import iter_tensors

    first = make()
    size = sum(t.numel() * t.element_size() for t in iter_tensors(first))
    k = min(256, 1 + -(-3 * l2_bytes // size))
    if (k - 1) * size < 2 * l2_bytes:
        return None
    sets = [first] + [make() for _ in range(k - 1)]
    n = max(1, -(-100 // k)) * k
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for args in sets[:3]:
            fn(*args)
    torch.cuda.current_stream().wait_stream(s)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g, stream=s):
        for j in range(n):
            fn(*sets[j % k])
    torch.cuda.synchronize()
    us = tt.do_bench(g.replay, return_mode="median") * 1e3 / n
    del g, sets
    return us


def _bench_call(fn: Any, make: Any) -> dict:
    with Phases() as ph:
        t0 = time.perf_counter()
        r = bench_kernel.bench(fn, make_inputs=make)
        wall = time.perf_counter() - t0
    return {"wall_s": round(wall, 4), "result_wall_s": r.wall_s,
            "medians_us": {m: r.median_us(m) for m in r.measurements},
            "rounds": {m: x.rounds for m, x in r.measurements.items()},
            "warmup": r.env.get("device_warmup"), "notes": list(r.notes)[:12], **ph.summary()}


def part_cases(repeat: int, profile_cases: int) -> dict:
    rows = []
    for name, fn, make in cases():
        inputs = make()
        fixed = lambda fn=fn, inputs=inputs: fn(*inputs)  # noqa: E731  (bound: each case its own)
        row: dict[str, Any] = {"case": name, "snippets": [], "bench": []}
        for _ in range(repeat):  # alternating, so a drifting clock reaches both alike
            row["snippets"].append(snippets(fixed))
            row["bench"].append(_bench_call(fn, make))
        l2 = torch.cuda.get_device_properties(0).L2_cache_size
        try:
            row["raw_cold_kernel_us"] = raw_cold_kernel_us(fixed, l2)
            row["raw_paced_kernel_us"] = raw_cold_kernel_us(fixed, l2, paced=True)
            row["hand_rotated_graph_us"] = hand_rotated_graph_us(fn, make, l2)
        except Exception as e:  # noqa: BLE001 - recorded
            row["fidelity_error"] = f"{type(e).__name__}: {e}"
        if len(rows) < profile_cases:
            pr = cProfile.Profile()
            pr.enable()
            bench_kernel.bench(fn, make_inputs=make)
            pr.disable()
            buf = io.StringIO()
            pstats.Stats(pr, stream=buf).sort_stats("cumulative").print_stats(35)
            row["cprofile"] = buf.getvalue()[-9000:]
        med = statistics.median
        row["snippets_wall_s"] = med(s["wall_s"] for s in row["snippets"])
        row["bench_wall_s"] = med(b["wall_s"] for b in row["bench"])
        row["ratio"] = row["bench_wall_s"] / row["snippets_wall_s"]
        for m in ("graph", "kernel", "events"):
            vals = [b["medians_us"].get(m) for b in row["bench"] if b["medians_us"].get(m)]
            row[f"bk_{m}_us"] = med(vals) if vals else None
        raw, rot = row.get("raw_cold_kernel_us"), row.get("hand_rotated_graph_us")
        row["kernel_vs_raw_cold"] = row["bk_kernel_us"] / raw - 1 if raw and row["bk_kernel_us"] else None
        paced = row.get("raw_paced_kernel_us")
        row["kernel_vs_raw_paced"] = row["bk_kernel_us"] / paced - 1 if paced and row["bk_kernel_us"] else None
        row["graph_vs_hand_rotated"] = row["bk_graph_us"] / rot - 1 if rot and row["bk_graph_us"] else None
        rows.append(row)
        print(json.dumps({k: row[k] for k in ("case", "snippets_wall_s", "bench_wall_s", "ratio")}), flush=True)
        del inputs
        torch.cuda.empty_cache()
    return {"rows": rows}


LOOP = r"""
import json, time
import torch
import bench_kernel
x = lambda: (torch.randn(1 << 20, device="cuda"),)
calls = []
for _ in range(10):
    t0 = time.perf_counter()
    r = bench_kernel.bench(lambda t: t.mul_(1.0001), make_inputs=x)
    calls.append({"wall_s": round(time.perf_counter() - t0, 4), "result_wall_s": r.wall_s,
                  "warmup": r.env.get("device_warmup"), "profiler_start_s": r.env.get("profiler_start_s"),
                  "rounds": {m: k.rounds for m, k in r.measurements.items()}})
print(json.dumps(calls))
"""


def part_loop() -> dict:
    """bench() ten times in a row in a fresh process: the first call pays the warm-up and the
    profiler's first session, the others should not."""
    t0 = time.perf_counter()
    p = subprocess.run([sys.executable, "-c", LOOP], env=child_env(), capture_output=True, text=True, timeout=120)
    if p.returncode != 0:
        return {"failed": p.stderr[-2000:]}
    return {"process_wall_s": round(time.perf_counter() - t0, 2), "calls": json.loads(p.stdout.strip().splitlines()[-1])}


def part_run(repeat: int) -> dict:
    runs = [_one_run(i) for i in range(repeat)]
    return {"runs": runs, "wall_s": statistics.median(r["wall_s"] for r in runs), "rc": max(r["rc"] for r in runs),
            "cases": runs[-1]["cases"]}


def _one_run(i: int) -> dict:
    """``bench-kernel run`` as the README has it (the table, its footer), stored in a temporary
    database for the per-case figures (``--save``: one commit a case, as a user's ``--save``)."""
    db = Path(tempfile.mkdtemp(prefix="speed-run-")) / "r.db"
    t0 = time.perf_counter()
    try:
        p = subprocess.run([sys.executable, "-m", "bench_kernel", "run", "--save", "--db", str(db)], env=child_env(),
                           capture_output=True, text=True, timeout=90)
    except subprocess.TimeoutExpired as e:
        return {"rc": 124, "wall_s": round(time.perf_counter() - t0, 2), "footer": None, "cases": [],
                "stderr_tail": str(e.stderr or "")[-1500:], "kineto_error_line": None}
    wall = time.perf_counter() - t0
    footer = next((ln for ln in (p.stdout + "\n" + p.stderr).splitlines() if ln.startswith("took ")), None)
    cases: list[dict] = []
    if db.exists():
        from bench_kernel.results import open_store

        with open_store(str(db)) as store:
            for pt in store.points(store.run("latest")):
                r = pt.result
                cases.append({"name": r.name, "wall_s": r.wall_s,
                              "timing_s": round(sum(m.wall_s for m in r.measurements.values()), 3),
                              "profiler_start_s": r.env.get("profiler_start_s"),
                              "warmup": r.env.get("device_warmup")})
    return {"rc": p.returncode, "wall_s": round(wall, 2), "footer": footer, "stdout_tail": p.stdout[-2500:],
            "stderr_tail": p.stderr[-1500:], "kineto_error_line": "External init callback" in p.stderr,
            "cases": cases}


def part_sweep() -> dict:
    db = Path(tempfile.mkdtemp(prefix="speed-sweep-")) / "r.db"
    t0 = time.perf_counter()
    p = subprocess.run([sys.executable, "-m", "bench_kernel", "sweep", str(ROOT / "benchmarks" / "verdicts_rmsnorm.py"),
                        "-m", "graph", "--provider", "torch", "--provider", "manual", "--db", str(db),
                        "--json", "-o", os.devnull], env=child_env(),
                       capture_output=True, text=True, timeout=90)
    wall = time.perf_counter() - t0
    from bench_kernel.results import open_store

    with open_store(str(db)) as store:
        run = store.run("latest")
        points = store.points(run.id)
    measured = sum(m.wall_s for pt in points for m in pt.result.measurements.values())
    out = {"rc": p.returncode, "process_wall_s": round(wall, 2), "run_wall_s": run.wall_s,
           "measured_s": round(measured, 3), "overhead": run.wall_s / measured - 1 if measured else None,
           "points": len(points), "rounds": sum(len(pt.result.env.get("rounds") or [1]) for pt in points),
           "stderr_tail": p.stderr[-1500:]}
    try:
        out["in_process"] = _sweep_in_process()
    except Exception as e:  # noqa: BLE001 - recorded; the CLI's figures above stand
        import traceback

        out["in_process"] = {"failed": f"{type(e).__name__}: {e}", "traceback": traceback.format_exc()[-3000:]}
    return out


def _sweep_in_process() -> dict:
    """The same sweep in this process with its steps wrapped: where a unit's time goes (s in all)."""
    from bench_kernel.measure import _runner
    from bench_kernel.results import _store
    from bench_kernel.sweeps import _unit, load_spec, run_sweep

    db = Path(tempfile.mkdtemp(prefix="speed-sweep-inproc-")) / "r.db"
    spec = load_spec(str(ROOT / "benchmarks" / "verdicts_rmsnorm.py"))
    with Phases() as ph:
        for label, owner, attr in (("store_claim", _store.Store, "claim_point"), ("store_save", _store.Store, "save_result"),
                                   ("case_at", _unit, "case_at"), ("bench_case", _unit, "bench_case"),
                                   ("runner_init", _runner.Runner, "__init__"),
                                   ("ensure_warm", _measure, "ensure_warm"), ("mark_busy", _measure, "mark_busy"),
                                   ("machine_load", _measure, "machine_load")):
            ph._wrap(owner, attr, label)
        t0 = time.perf_counter()
        res = run_sweep(spec, options={"methods": ("graph",)}, providers=["torch", "manual"], store=str(db))
        wall = time.perf_counter() - t0
    summary = ph.summary()
    units = len(ph.methods) and sum(1 for m in ph.methods if m["method"] == "graph")
    measured = sum(m.wall_s for pt in res.points for m in pt.result.measurements.values())
    return {"wall_s": round(wall, 3), "run_wall_s": res.run.wall_s, "measured_s": round(measured, 3),
            "overhead": (res.run.wall_s or wall) / measured - 1 if measured else None, "units": units,
            "steps_s": summary["steps_s"], "methods_s": summary["methods_s"],
            "per_unit_ms": {k: round(v / units * 1e3, 2) for k, v in summary["steps_s"].items()} if units else {}}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--parts", default="clock,micro,profiler,cases,loop,run,sweep")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--budget-s", type=float, default=400.0,
                    help="a part not started by then is skipped (each child process has its own timeout)")
    ap.add_argument("--profile-cases", type=int, default=0, help="cProfile one extra bench() of the first N cases")
    args = ap.parse_args(argv)
    OUT.mkdir(parents=True, exist_ok=True)
    t_start = time.perf_counter()
    torch.ones(1, device="cuda").add_(1)
    torch.cuda.synchronize()
    res: dict[str, Any] = {"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
                           "device": torch.cuda.get_device_name(0), "torch": torch.__version__,
                           "commit": _commit(), "driver": _driver(),
                           "init_s": round(time.perf_counter() - t_start, 2)}
    parts = {"clock": part_clock, "micro": part_micro, "profiler": part_profiler, "cases": lambda: part_cases(args.repeat, args.profile_cases),
             "loop": part_loop, "run": lambda: part_run(args.repeat), "sweep": part_sweep}
    for name in args.parts.split(","):
        t0 = time.perf_counter()
        if t0 - t_start > args.budget_s:
            res[name] = {"failed": f"skipped: {t0 - t_start:.0f} s had passed, over --budget-s {args.budget_s:g}"}
            continue
        try:
            res[name] = parts[name]()
        except Exception as e:  # noqa: BLE001 - recorded; the other parts still run
            import traceback

            res[name] = {"failed": f"{type(e).__name__}: {e}", "traceback": traceback.format_exc()[-3000:]}
        res.setdefault("part_wall_s", {})[name] = round(time.perf_counter() - t0, 1)
        (OUT / "speed.json").write_text(json.dumps(res, indent=1, default=str))
        print(f"part {name}: {res['part_wall_s'][name]} s", flush=True)
    try:  # the quick page; benchmarks/gpu/speed_report.py makes the committed one from speed.json
        text = render(res)
    except Exception as e:  # noqa: BLE001 - speed.json is written already: that is what counts
        text = f"speed.md not rendered ({type(e).__name__}: {e}); see speed.json\n"
    (OUT / "speed.md").write_text(text)
    print(text[-6000:])
    return 0


def _commit() -> str | None:
    p = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    dirty = subprocess.run(["git", "-C", str(ROOT), "status", "--porcelain", "--untracked-files=no"],
                           capture_output=True, text=True).stdout.strip()
    return (p.stdout.strip() + ("+dirty" if dirty else "")) if p.returncode == 0 else None


def _driver() -> str | None:
    try:
        from bench_kernel.hardware import driver_version

        return driver_version()
    except Exception:  # noqa: BLE001
        return None


def _fmt(x: Any, nd: int = 3) -> str:
    return "-" if x is None else f"{x:.{nd}f}" if isinstance(x, float) else str(x)


def render(res: dict) -> str:
    L = [f"# bench-kernel's own cost on {res['device']} ({res['date']})", "",
         f"torch {res['torch']}. Script: `benchmarks/gpu/speed.py`, all parts in one process; raw numbers in "
         f"`speed.json`. Part walls: {res.get('part_wall_s')}.", ""]
    cs = res.get("cases") or {}
    if cs.get("rows"):
        L += ["## bench() against the seed's snippets (wall s per case, median of the repeats)", "",
              "| case | snippets | bench() | bench / snippets | bench() walls | warm-up records |", "|---|---:|---:|---:|---|---|"]
        for r in cs["rows"]:
            L.append(f"| {r['case']} | {r['snippets_wall_s']:.3f} | {r['bench_wall_s']:.3f} | {r['ratio']:.2f} | "
                     f"{', '.join(_fmt(b['wall_s']) for b in r['bench'])} | "
                     f"{'; '.join(json.dumps(b['warmup']) for b in r['bench'])} |")
        L += ["", "Fidelity (medians of bench()'s repeats against hand-made references, us per call):", "",
              "| case | bk kernel cold | raw profiler sum, L2 flushed | kernel vs raw | bk graph cold | hand-rotated graph | graph vs hand-rotated |",
              "|---|---:|---:|---:|---:|---:|---:|"]
        for r in cs["rows"]:
            pct = lambda x: "-" if x is None else f"{x * 100:+.2f}%"  # noqa: E731
            L.append(f"| {r['case']} | {_fmt(r.get('bk_kernel_us'))} | {_fmt(r.get('raw_cold_kernel_us'))} | "
                     f"{pct(r.get('kernel_vs_raw_cold'))} | {_fmt(r.get('bk_graph_us'))} | "
                     f"{_fmt(r.get('hand_rotated_graph_us'))} | {pct(r.get('graph_vs_hand_rotated'))} |")
        L += ["", "Where bench()'s time went (first repeat, s): steps of measure_case, and each method's rounds.", ""]
        for r in cs["rows"]:
            b = r["bench"][0]
            L.append(f"- {r['case']}: steps {b['steps_s']}; methods {b['methods_s']}")
    lp = res.get("loop") or {}
    if lp.get("calls"):
        L += ["", f"## bench() ten times in a loop (4 MB mul_), a fresh process ({lp.get('process_wall_s')} s)", "",
              "| call | wall s | profiler start s | rounds | warm-up |", "|---:|---:|---:|---|---|"]
        L += [f"| {i + 1} | {c['wall_s']:.3f} | {_fmt(c.get('profiler_start_s'))} | {c.get('rounds')} | "
              f"{json.dumps(c['warmup'])} |" for i, c in enumerate(lp["calls"])]
    rn = res.get("run") or {}
    if "wall_s" in rn:
        L += ["", f"## bench-kernel run (built-in suite): median {rn['wall_s']} s, a fresh process each (rc {rn['rc']})", ""]
        L += [f"- run {i + 1}: {r['wall_s']} s; footer: `{r.get('footer')}`" for i, r in enumerate(rn.get("runs", []))]
        L += [f"- {c['name']}: wall {c['wall_s']} s, timing {c['timing_s']} s" for c in rn.get("cases", [])]
    sw = res.get("sweep") or {}
    if "run_wall_s" in sw:
        L += ["", f"## sweep: run wall {sw['run_wall_s']:.2f} s, methods measured {sw['measured_s']:.2f} s, "
              f"overhead {_fmt(sw['overhead'])} ({sw['points']} points; process {sw['process_wall_s']} s)"]
    ck = res.get("clock") or {}
    if ck.get("warmup_record"):
        L += ["", f"## device warm-up: {json.dumps(ck['warmup_record'])[:600]}",
              f"again right after a load: {json.dumps(ck.get('warmup_again_record'))[:600]}"]
    return "\n".join(L) + "\n"


if __name__ == "__main__":
    sys.exit(main())
