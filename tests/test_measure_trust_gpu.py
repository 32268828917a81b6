"""On a GPU: per-sample clocks, the steady mode, and what the time limit can and cannot interrupt.
Timing claims are in benchmarks/gpu/trust.py and benchmarks/results/, not here."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import time

import pytest

# Processes: a stuck kernel ends a child run.
pytestmark = [pytest.mark.gpu, pytest.mark.multiprocess]


def _add_case():
    import torch

    return dict(fn=torch.add, make_inputs=lambda: (torch.randn(1 << 24, device="cuda"),) * 2, methods=("graph", "events"))


def test_every_sample_has_its_sm_clock_when_nvml_is_there():
    pytest.importorskip("pynvml")
    import bench_kernel

    r = bench_kernel.bench(**_add_case())
    for m in ("graph", "events"):
        meas = r.measurements[m]
        assert len(meas.sm_clock_mhz) == meas.samples.n > 0
        assert all(c is None or 100 < c < 5000 for c in meas.sm_clock_mhz)
        assert r.to_dict()["measurements"][m]["sm_clock_mhz"] == list(meas.sm_clock_mhz)


def test_steady_holds_the_load_and_records_each_hold():
    import bench_kernel

    r = bench_kernel.bench(**_add_case(), steady=True)
    holds = r.env["steady"]
    rounds = r.measurements["graph"].rounds
    assert rounds == r.measurements["events"].rounds >= 1
    assert len(holds) == 2 * rounds  # one hold before each method, in each round (H200: 3 rounds, 6 holds)
    assert all(h["windows"] and h["held_s"] > 0 for h in holds)
    assert r.notes[0].text.startswith("steady: ")
    # each method sampled for at least the steady minimum
    assert all(r.measurements[m].wall_s >= 1.0 for m in ("graph", "events"))


def test_a_gpu_wait_is_not_interrupted_but_the_limit_reports_it_after():
    # A 3 s spin kernel behind a synchronize: the signal cannot cut the C wait; the exception lands
    # when it returns, and the case is reported as timed out (not hung, not measured).
    import torch

    import bench_kernel
    from bench_kernel.errors import TimeLimitError
    from bench_kernel.gpu import cycles_per_us

    cycles = int(3e6 * cycles_per_us(0))

    def long_kernel() -> None:
        torch.cuda._sleep(cycles)
        torch.cuda.synchronize()

    t0 = time.perf_counter()
    long_kernel()  # the spin alone: its length follows the clock, so the check below is relative to it
    alone_s = time.perf_counter() - t0
    assert alone_s > 1.5
    t0 = time.perf_counter()
    with pytest.raises(TimeLimitError, match=r"^case 'long_kernel' timed out after 1 s during warm-up$"):
        bench_kernel.bench(long_kernel, methods=("graph",), timeout_s=1.0)
    # it waited for the kernel (the C call was not cut short at the 1 s limit)
    assert time.perf_counter() - t0 >= 0.9 * alone_s


def test_a_gpu_kernel_stuck_past_the_grace_ends_the_run_with_results_written(tmp_path):
    target = tmp_path / "stuck.py"
    target.write_text(textwrap.dedent("""
        import torch
        from bench_kernel.gpu import cycles_per_us
        def cases():
            def stuck():
                torch.cuda._sleep(int(60e6 * cycles_per_us(0)))  # a minute on the device
                torch.cuda.synchronize()
            return [{"name": "ok", "fn": torch.add,
                     "make_inputs": lambda: (torch.ones(1024, device="cuda"),) * 2},
                    {"name": "stuck", "fn": stuck}]
    """))
    out = tmp_path / "res.json"
    t0 = time.perf_counter()
    r = subprocess.run([sys.executable, "-m", "bench_kernel", "run", f"{target}:cases", "--timeout", "2",
                        "-m", "graph", "-o", str(out)], capture_output=True, text=True, timeout=120)
    assert time.perf_counter() - t0 < 50
    assert r.returncode == 1
    assert r.stderr.splitlines()[-1].startswith("bench-kernel: error: case 'stuck' timed out after 2 s in code "
                                                "that cannot be interrupted")
    assert [x["name"] for x in json.loads(out.read_text())["results"]] == ["ok"]
