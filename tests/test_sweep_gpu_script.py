"""The H200 sweep report script, on a database of synthetic runs shaped like the GEMM sweep:
identical runs compare 'same', the slowed provider is caught, the --gpus run is attributed."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from _results_helpers import gpu_like_samples, result
from bench_kernel.results import open_store

ROOT = Path(__file__).resolve().parent.parent


def _fill(db):
    config = {"axes": {"M": [1, 8192], "N": [4096], "K": [4096]}, "providers": ["torch", "triton"],
              "baseline": "torch", "options": {"cache": "cold"}}
    with open_store(db) as store:
        for run_no, (slow, workers) in enumerate([(1.0, ["main"]), (1.0, ["main"]), (1.10, ["main"]),
                                                  (1.0, ["gpu:0", "gpu:1"])]):
            run = store.start_run(kind="sweep", name="examples/sweep_gemm.py:sweep", config=config,
                                  env={"device": "NVIDIA H200", "driver": "570", "git_commit": "abc"},
                                  command=["bench-kernel", "sweep"], total_points=4)
            for i, (m, prov) in enumerate([(1, "torch"), (1, "triton"), (8192, "torch"), (8192, "triton")]):
                base = 10.0 if m == 1 else 300.0
                factor = slow if prov == "torch" else 1.0
                for k in (1, 2, 3):  # three rounds, as sweeps store them
                    samples = (np.asarray(gpu_like_samples(1000 * k + 100 * run_no + i, median_us=base)) * factor).tolist()
                    store.save_result(run.id, result(prov, {"M": m, "N": 4096, "K": 4096}, samples, method="graph",
                                                     flops=2.0 * m * 4096 * 4096),
                                      worker=workers[i % len(workers)], wall_s=1.0 / 3, round=k)
            store.finish_run(run.id, wall_s=8.0 if run_no < 3 else 4.2)


@pytest.mark.multiprocess
def test_report_script(tmp_path):
    db = tmp_path / "r.db"
    _fill(db)
    out = tmp_path / "out"
    subprocess.run([sys.executable, str(ROOT / "benchmarks" / "gpu" / "sweep_gemm_report.py"), "--db", str(db),
                    "--multi", "4", "--exit", "same=0", "strict=0", "slow=1", "reverse=0", "multi=0", "--out", str(out)],
                   check=True, capture_output=True)
    data = json.loads((out / "sweep-gemm.json").read_text())
    verdicts = {k: [(p["provider"], p["comparison"]["verdict"]) for p in v["points"]] for k, v in data["compare"].items()}
    assert {v for _, v in verdicts["same"]} == {"same"} and {v for _, v in verdicts["multi"]} == {"same"}
    assert verdicts["slow"] == [("torch", "slower"), ("triton", "same"), ("torch", "slower"), ("triton", "same")]
    assert [v for p, v in verdicts["reverse"] if p == "torch"] == ["faster", "faster"]
    assert data["multi"]["wall_speedup"] == 8.0 / 4.2
    assert sorted(data["multi"]["points_by_gpu"]) == ["gpu:0", "gpu:1"]
    text = (out / "sweep-gemm.md").read_text()
    assert "`bench-kernel compare` exit status: 1" in text and "speed-up 1.90x on 2 GPUs" in text
    # No clocks in these runs: nothing is marked (clock), and the strict exit is reported as given.
    assert "With `--strict-clocks` (a clock-limited slowdown counts): exit status 0; 0 point(s) marked (clock)." in text
    assert "| M | torch time | torch TFLOP/s | triton time | triton TFLOP/s | triton vs torch | best |" in text
    assert data["overhead"]["points"] == 4 and data["overhead"]["mean_point_wall_s"] == 1.0
