"""Counting in a hostile environment: no ncu, counters not permitted, ncu failing or hanging, a child that
fails, an ncu that lacks a metric, a machine without a GPU. One clear reason each; timings always kept.

The ``ncu`` here is a test double of the ENVIRONMENT (an executable on PATH that prints what the real
tool prints in that situation); the parser itself is tested on real recorded output
(``tests/test_counters_parse.py``).
"""

from __future__ import annotations

import json
import os
import stat
import sys
import textwrap
import time
from pathlib import Path

import pytest

from bench_kernel.counters import CHILD_ERROR, RANGE_NAME, collect_ncu, collect_rocprof

DATA = Path(__file__).resolve().parent.parent / "data" / "counters"
#: NVIDIA's text for the error (https://developer.nvidia.com/ERR_NVGPUCTRPERM, "ERR_NVGPUCTRPERM" section).
PERMISSION = ("==ERROR== ERR_NVGPUCTRPERM - The user does not have permission to access NVIDIA GPU Performance "
              "Counters on the target device 0. For instructions on enabling permissions and to get more "
              "information see https://developer.nvidia.com/ERR_NVGPUCTRPERM")
CHILD = [sys.executable, "-c", "print('the child ran')"]


def fake_tool(folder: Path, body: str, name: str = "ncu") -> Path:
    """An executable ``name`` in ``folder`` running the Python ``body`` (``argv`` = its arguments)."""
    path = folder / name
    path.write_text(f"#!{sys.executable}\nimport os, sys, time\nargv = sys.argv[1:]\n"
                    f"if argv == ['--version']:\n    print('Version 2025.3.1.0 (build 1) (fake)')\n    sys.exit(0)\n"
                    + textwrap.dedent(body))
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def test_no_ncu_on_path(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))
    report = collect_ncu(CHILD, chip="gh100", timeout_s=10)
    assert not report.ok
    assert report.error == "ncu (Nsight Compute) is not on PATH: install it or add its folder to PATH to count bytes " \
                           "and FLOPs"


@pytest.mark.parametrize("status", [0, 1])
@pytest.mark.multiprocess
def test_counters_not_permitted(tmp_path, status):
    ncu = fake_tool(tmp_path, f"""
        print('==PROF== Connected to process 4242 (/usr/bin/python3.12)')
        print({PERMISSION!r})
        sys.exit({status})
    """)
    report = collect_ncu(CHILD, chip="gh100", timeout_s=10, ncu=str(ncu))
    assert report.error == ("ncu: this user may not read the GPU's performance counters (ERR_NVGPUCTRPERM); an "
                            "administrator can allow it, see https://developer.nvidia.com/ERR_NVGPUCTRPERM")
    assert report.kernels == () and report.tool_version == "2025.3.1.0"


@pytest.mark.multiprocess
def test_ncu_failing_says_its_first_error(tmp_path):
    ncu = fake_tool(tmp_path, """
        print('==ERROR== The application returned an error code (11).', file=sys.stderr)
        print('==ERROR== An error occurred while trying to profile.', file=sys.stderr)
        sys.exit(11)
    """)
    report = collect_ncu(CHILD, chip="gh100", timeout_s=10, ncu=str(ncu))
    assert report.error == "ncu failed (exit status 11): ==ERROR== The application returned an error code (11)."


@pytest.mark.slow
@pytest.mark.multiprocess
def test_hanging_ncu_is_stopped_with_its_child(tmp_path):
    pids = tmp_path / "pids"
    ncu = fake_tool(tmp_path, f"""
        import subprocess
        child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'])
        open({str(pids)!r}, 'w').write(f'{{os.getpid()}} {{child.pid}}')
        time.sleep(60)
    """)
    t0 = time.perf_counter()
    report = collect_ncu(CHILD, chip="gh100", timeout_s=2, ncu=str(ncu))
    assert time.perf_counter() - t0 < 30
    assert report.error == "ncu did not finish within 2 s (stopped it and its child)"
    for pid in map(int, pids.read_text().split()):
        assert not _running(pid)


def _running(pid: int) -> bool:
    """True while ``pid`` runs (a zombie waiting for a reaper that is not ours does not run)."""
    try:
        os.kill(pid, 0)  # signal 0 only checks; this test started the process
    except ProcessLookupError:
        return False
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.multiprocess
def test_no_kernel_in_the_range(tmp_path):
    # ncu's complete output when its NVTX filter matched nothing (recorded on the H200)
    ncu = fake_tool(tmp_path, f"print(open({str(DATA / 'ncu_no_kernels_h200.txt')!r}).read())")
    report = collect_ncu(CHILD, chip="gh100", timeout_s=10, ncu=str(ncu))
    assert report.error.startswith(f"ncu counted no kernel in the NVTX range {RANGE_NAME!r} (No kernels were "
                                   f"profiled): does the call launch GPU work")


@pytest.mark.slow
@pytest.mark.multiprocess
def test_the_child_runs_under_the_tool_and_its_failure_is_repeated(tmp_path):
    # The double runs what follows its options, as ncu does; the child fails while rebuilding the case.
    ncu = fake_tool(tmp_path, "import subprocess\nsys.exit(subprocess.call(argv[argv.index('--metrics') + 2:]))\n")
    target = tmp_path / "target.py"
    target.write_text("def cases():\n    raise ValueError('no such shape')\n")
    spec = {"loader": "bench_kernel.measure:target_case", "kwargs": {"target": f"{target}:cases", "index": 0,
                                                                     "label": "cases"},
            "warmup": 1, "range": RANGE_NAME, "device_index": 0}
    child = [sys.executable, "-m", "bench_kernel.measure._counters_child", json.dumps(spec)]
    report = collect_ncu(child, chip="gh100", timeout_s=60, ncu=str(ncu))
    assert report.error.startswith("the counted call failed in the child process: TargetError: ")
    assert "raised ValueError: no such shape" in report.error


@pytest.mark.multiprocess
def test_a_failing_child_is_said_even_when_ncu_exits_0(tmp_path):
    ncu = fake_tool(tmp_path, f"""
        print('==PROF== Connected to process 7 (/usr/bin/python3.12)')
        print({CHILD_ERROR!r} + 'TargetError: cannot import module mypkg', file=sys.stderr)
        print('==WARNING== No kernels were profiled.')
    """)
    report = collect_ncu(CHILD, chip="gh100", timeout_s=10, ncu=str(ncu))
    assert report.error == "the counted call failed in the child process: TargetError: cannot import module mypkg"


@pytest.mark.multiprocess
def test_a_metric_this_ncu_lacks_is_dropped_once(tmp_path):
    calls = tmp_path / "calls"
    ncu = fake_tool(tmp_path, f"""
        metrics = argv[argv.index('--metrics') + 1].split(',')
        open({str(calls)!r}, 'a').write(str(len(metrics)) + '\\n')
        if 'sm__ops_path_tensor_src_fp8.sum' in metrics:
            print('==ERROR== Failed to find metric sm__ops_path_tensor_src_fp8.sum', file=sys.stderr)
            sys.exit(1)
        print(open({str(DATA / 'ncu_raw_h200_suite.csv')!r}).read())
    """)
    report = collect_ncu(CHILD, chip="gh100", timeout_s=20, ncu=str(ncu), range_name="bk_gemm_4096_bf16")
    counts = [int(n) for n in calls.read_text().split()]
    assert len(counts) == 2 and counts[1] == counts[0] - 1
    assert report.ok and [n.text for n in report.notes] == ["this ncu does not know sm__ops_path_tensor_src_fp8.sum: "
                                                            "counted without them"]
    assert report.kernels[0].tensor_flops["bf16"] == 2 * 4096**3
    assert "--cache-control" in report.command and report.command[report.command.index("--cache-control") + 1] == "all"
    assert report.command[report.command.index("--clock-control") + 1] == "none"


def test_rocprofv3_missing_or_without_launch_count(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))
    assert collect_rocprof(CHILD, chip="gfx942", timeout_s=5, last_n=1).error.startswith(
        "rocprofv3 (ROCm) is not on PATH")
    rocprof = fake_tool(tmp_path, "sys.exit(0)", name="rocprofv3")
    assert collect_rocprof(CHILD, chip="gfx942", timeout_s=5, last_n=0, rocprof=str(rocprof)).error.startswith(
        "no kernel launches per call are known")


def test_child_error_marker_is_the_one_the_child_prints():
    from bench_kernel.measure import _counters_child

    assert _counters_child.CHILD_ERROR == CHILD_ERROR


@pytest.fixture
def no_gpu():
    """Skip on a machine with a GPU: these tests take the path of one without."""
    pytest.importorskip("torch")
    from bench_kernel.gpu import has_gpu

    if has_gpu():
        pytest.skip("this machine has a GPU: the no-GPU path is not taken")


def test_run_counters_on_a_machine_without_gpu_keeps_the_timings(run_cli, tmp_path, no_gpu):
    target = tmp_path / "t.py"
    target.write_text("import torch\n\ndef cases():\n    return [{'name': 'add', 'fn': torch.add,\n"
                      "             'make_inputs': lambda: (torch.ones(256), torch.ones(256))}]\n")
    r = run_cli("run", f"{target}:cases", "--counters", "--method", "host", "--max-time", "0.05", "--device", "H200",
                "--rounds", "1", "--json")
    assert r.exit_code == 0, r.stderr
    (result,) = json.loads(r.stdout)["results"]
    assert result["measurements"]["host"]["median_us"] > 0
    assert result["counters"]["error"] == "no GPU: hardware counters need a CUDA or ROCm device"
    assert "counters: no GPU: hardware counters need a CUDA or ROCm device (the timings above are unaffected)" \
        in [n["text"] for n in result["notes"]]


def test_roofline_counters_file_errors(run_cli, tmp_path):
    base = ["roofline", "--flops", "1e9", "--bytes", "1e6", "--time-us", "10", "--device", "H200"]
    r = run_cli(*base, "--counters", str(tmp_path / "nope.csv"))
    assert (r.exit_code, r.stderr) == (1, f"bench-kernel: error: counter file '{tmp_path}/nope.csv' does not exist\n")
    trace = Path(__file__).resolve().parent.parent / "data" / "trace" / "eager.json"
    r = run_cli(*base, "--counters", str(trace))
    assert r.exit_code == 1 and r.stderr.startswith(f"bench-kernel: error: {trace}: no Nsight Compute CSV table")
    r = run_cli(*base, "--nvtx-range", "bk_x")
    assert (r.exit_code, r.stderr) == (2, "bench-kernel: error: --nvtx-range selects launches of --counters FILE: "
                                          "add --counters\n")
    r = run_cli(*base, "--counters", str(DATA / "ncu_raw_h200_suite.csv"), "--nvtx-range", "bk_nothing")
    assert (r.exit_code, r.stderr) == (1, f"bench-kernel: error: {DATA / 'ncu_raw_h200_suite.csv'}: no kernel launch "
                                          f"in the NVTX range 'bk_nothing'\n")


def test_sweep_counters_without_gpu_stores_the_reason_with_each_point(run_cli, tmp_path, no_gpu):
    spec = tmp_path / "spec.py"
    spec.write_text("import torch\n\ndef case(p):\n    return {'fn': torch.add, 'make_inputs': lambda: "
                    "(torch.ones(p['n']), torch.ones(p['n']))}\n\n"
                    "sweep = {'axes': {'n': [64, 128]}, 'providers': {'torch': case}}\n")
    db = tmp_path / "r.db"
    r = run_cli("sweep", str(spec), "--counters", "--method", "host", "--max-time", "0.02", "--device", "H200",
                "--db", str(db), "--rounds", "1", "--json")
    assert r.exit_code == 0, r.stderr
    data = json.loads(r.stdout)
    assert data["run"]["config"]["options"]["counters"] is True
    errors = [p["result"]["counters"]["error"] for p in data["points"]]
    assert errors == ["no GPU: hardware counters need a CUDA or ROCm device"] * 2
    assert all(p["status"] == "ok" and p["result"]["measurements"]["host"]["median_us"] > 0 for p in data["points"])
