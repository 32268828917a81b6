"""Measurement trust on a GPU: a power-capped GEMM with and without --steady, and why a
sub-microsecond kernel reads higher under ``graph`` than under the profiler.

Run on a GPU from the repo root (about 3-4 minutes):

    OUT=out PYTHONPATH=src python3 benchmarks/gpu/trust.py

Writes ``$OUT/trust.json`` (every raw number), ``$OUT/trust.md`` (the tables, ready to become
``benchmarks/results/trust-h200.md``) and ``$OUT/sub_us.json``/``sub_us.md`` (part b).

(a) 8192^3 bf16 GEMM, 3 repeats of the default run and 3 of ``steady=True``, each after an idle
    pause (the GPU cools and boosts again, as between two runs of a user's script). Per repeat and
    method: the median, the SM clock range while sampling, the notes. Target: spread of the medians
    across repeats <= 2% with ``steady``; the default run must say it was capped. Then a raw
    profiler sum of 100 back-to-back calls in the same process, against the kernel method.
(b) ``benchmarks/gpu/sub_us.py``: the one-element add, factorial over graph size, input rotation,
    event placement and replay stream, plus bench-kernel's own graph method at MAX_CALLS and 100.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import statistics
import sys
import time
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[2]

import bench_kernel  # noqa: E402  (PYTHONPATH=src, as gpu_session.sh runs it)

N = 8192
REPEATS = 3
IDLE_S = 3.0  # between repeats: long enough for the clock to boost again
METHODS = ("graph", "events", "kernel")


def _nvml() -> dict:
    try:
        import pynvml

        pynvml.nvmlInit()
        h = pynvml.nvmlDeviceGetHandleByIndex(0)
        return {"max_sm_clock_mhz": pynvml.nvmlDeviceGetMaxClockInfo(h, pynvml.NVML_CLOCK_SM),
                "power_limit_w": pynvml.nvmlDeviceGetEnforcedPowerLimit(h) / 1000.0,
                "driver": pynvml.nvmlSystemGetDriverVersion()}
    except Exception as e:  # noqa: BLE001 - recorded, not fatal
        return {"nvml_error": f"{type(e).__name__}: {e}"}


def _raw_profiler_us(fn, calls: int = 100) -> float:
    """Device time per call of ``calls`` back-to-back calls: the sum of every device activity."""
    from torch.autograd import DeviceType
    from torch.profiler import ProfilerActivity, profile

    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(calls):
            fn()
        torch.cuda.synchronize()
    ns = sum(e.duration_ns() for e in prof.profiler.kineto_results.events() if e.device_type() != DeviceType.CPU)
    return ns / calls / 1e3


def _repeat(make, steady: bool) -> dict:
    runs = []
    for i in range(REPEATS):
        time.sleep(IDLE_S)
        t0 = time.perf_counter()
        r = bench_kernel.bench(torch.matmul, make_inputs=make, flops=2.0 * N**3, steady=steady, timeout_s=240,
                               name=f"gemm_{N}_bf16")
        wall = time.perf_counter() - t0
        row = {"repeat": i, "wall_s": wall, "notes": [n.text for n in r.notes], "steady": r.env.get("steady")}
        for m in METHODS:
            meas = r.measurements.get(m)
            clocks = [c for c in (meas.sm_clock_mhz if meas else ()) if c]
            row[m] = {"median_us": r.median_us(m), "n": meas.samples.n if meas else 0,
                      "rel_ci95": meas.samples.rel_ci95 if meas and meas.ok else None,
                      "sm_clock_mhz_min": min(clocks) if clocks else None,
                      "sm_clock_mhz_max": max(clocks) if clocks else None,
                      "sm_clock_mhz_median": statistics.median(clocks) if clocks else None}
        runs.append(row)
        print(json.dumps({"steady": steady, "repeat": i, "wall_s": round(wall, 1),
                          **{m: row[m]["median_us"] for m in METHODS}}), flush=True)
    spread = {}
    for m in METHODS:
        meds = [x[m]["median_us"] for x in runs if x[m]["median_us"]]
        spread[m] = (max(meds) - min(meds)) / statistics.median(meds) if len(meds) == REPEATS else None
    return {"runs": runs, "spread": spread}


def gemm_part() -> dict:
    a = torch.randn(N, N, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(N, N, device="cuda", dtype=torch.bfloat16)
    make = lambda: (a, b)  # noqa: E731 - one input set: a 8192^3 GEMM is compute-bound, L2 is moot
    fixed = lambda: torch.matmul(a, b)  # noqa: E731
    _raw_profiler_us(lambda: torch.ones(1, device="cuda"), 1)  # CUPTI's first start (seconds) out of the way
    out = {"default": _repeat(make, steady=False)}
    out["raw_after_default_us"] = _raw_profiler_us(fixed)
    out["steady"] = _repeat(make, steady=True)
    out["raw_after_steady_us"] = _raw_profiler_us(fixed)
    for mode in ("default", "steady"):
        kernel = statistics.median(x["kernel"]["median_us"] for x in out[mode]["runs"])
        out[f"{mode}_kernel_vs_raw"] = kernel / out[f"raw_after_{mode}_us"] - 1
    return out


def render(meta: dict, gemm: dict) -> str:
    L = [f"# Measurement trust on {meta['device']}", "",
         f"Date {meta['date']}; torch {meta['torch']}, CUDA {meta['cuda']}, driver {meta['nvml'].get('driver')}, "
         f"max SM clock {meta['nvml'].get('max_sm_clock_mhz')} MHz, power limit {meta['nvml'].get('power_limit_w')} W. "
         "Produced by `benchmarks/gpu/trust.py`; raw numbers in trust.json.", "",
         f"## (a) {N}^3 bf16 GEMM: {REPEATS} repeats, {IDLE_S:g} s idle before each", "",
         "| mode | repeat | graph us | events us | kernel us | SM MHz while sampling (graph) | wall s |",
         "|---|---:|---:|---:|---:|---|---:|"]
    for mode in ("default", "steady"):
        for x in gemm[mode]["runs"]:
            g = x["graph"]
            L.append(f"| {mode} | {x['repeat']} | " + " | ".join(
                f"{x[m]['median_us']:.1f}" if x[m]["median_us"] else "-" for m in METHODS)
                + f" | {g['sm_clock_mhz_min']}-{g['sm_clock_mhz_max']} | {x['wall_s']:.1f} |")
    L += ["", "| mode | spread graph | spread events | spread kernel | kernel vs raw profiler sum |",
          "|---|---:|---:|---:|---:|"]
    for mode in ("default", "steady"):
        s = gemm[mode]["spread"]
        L.append(f"| {mode} | " + " | ".join(f"{s[m] * 100:.2f}%" if s[m] is not None else "-" for m in METHODS)
                 + f" | {gemm[f'{mode}_kernel_vs_raw'] * 100:+.2f}% |")
    L += ["", "Notes of the first default repeat:", ""] + [f"- {n}" for n in gemm["default"]["runs"][0]["notes"]]
    L += ["", "Notes of the first steady repeat:", ""] + [f"- {n}" for n in gemm["steady"]["runs"][0]["notes"]]
    return "\n".join(L) + "\n"


def main() -> int:
    if not torch.cuda.is_available():
        print("trust.py needs a CUDA/HIP GPU", file=sys.stderr)
        return 1
    out = Path(os.environ.get("OUT") or ROOT / "benchmarks" / "results")
    out.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    meta = {"date": dt.date.today().isoformat(), "device": torch.cuda.get_device_name(0), "torch": torch.__version__,
            "cuda": torch.version.cuda, "nvml": _nvml()}
    gemm = gemm_part()
    meta["gemm_wall_s"] = time.perf_counter() - t0
    (out / "trust.json").write_text(json.dumps({"meta": meta, "gemm": gemm}, indent=1))
    text = render(meta, gemm)
    (out / "trust.md").write_text(text)
    print(text, flush=True)

    import sub_us

    sub = sub_us.run(out)
    meta["total_wall_s"] = time.perf_counter() - t0
    (out / "trust.json").write_text(json.dumps({"meta": meta, "gemm": gemm, "sub_us": sub}, indent=1))
    (out / "trust.md").write_text(text + "\n" + sub_us.render(sub))
    print(sub_us.render(sub))
    return 0


if __name__ == "__main__":
    sys.exit(main())
