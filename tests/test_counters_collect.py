"""How a case reaches the child process the counter tool watches: origins, the child's command and its
behaviour when the case cannot run (CPU-only checks; the GPU side is tests/test_counters_gpu.py)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from bench_kernel.counters import CHILD_ERROR, RANGE_NAME, ncu_command
from bench_kernel.errors import TargetError
from bench_kernel.measure import CaseOrigin, child_command, function_origin, load_target, target_case

TARGET = """
print("the target prints while it loads")

def first():
    return 1

def cases():
    return [{"name": "a", "fn": first}, {"name": "b", "fn": first}]
"""


def helper(x):
    return x


def test_loaded_cases_know_how_to_be_rebuilt(tmp_path):
    path = tmp_path / "t.py"
    path.write_text(TARGET)
    a, b = load_target(f"{path}:cases")
    assert b.origin == CaseOrigin("bench_kernel.measure:target_case", {"target": f"{path}:cases", "index": 1,
                                                                        "label": "b"})
    assert target_case(**b.origin.kwargs).label == "b"
    # A different size: a rewrite within the same second of the same size would be read from the
    # bytecode cached at the first import (Python checks the source's mtime in seconds, and its size).
    path.write_text(TARGET.replace('"name": "a"', '"name": "zz"'))
    with pytest.raises(TargetError, match="case 0 is now 'zz', not 'a'; the target changed"):
        target_case(**a.origin.kwargs)


def test_function_origin_only_for_importable_functions():
    assert function_origin(helper, None) == CaseOrigin("bench_kernel.measure:function_case",
                                                       {"fn": f"{__name__}:helper", "make_inputs": None})
    assert function_origin(lambda: 1, None) is None
    assert function_origin(helper, lambda: (1,)) is None  # inputs built by a lambda cannot travel

    def local():
        return 1

    assert function_origin(local, None) is None


def test_child_command_carries_the_origin_and_the_range():
    cmd = child_command(CaseOrigin("m:f", {"x": 1}), device_index=2, warmup=5)
    assert cmd[:3] == [sys.executable, "-m", "bench_kernel.measure._counters_child"]
    assert json.loads(cmd[3]) == {"loader": "m:f", "kwargs": {"x": 1}, "warmup": 5, "range": RANGE_NAME,
                                  "device_index": 2}
    ncu = ncu_command("ncu", ["dram__bytes_read.sum"], cmd)
    assert ncu[ncu.index("--nvtx-include") + 1] == f"{RANGE_NAME}/" and "/" not in RANGE_NAME
    assert ncu[-4:] == cmd


@pytest.mark.slow
@pytest.mark.multiprocess
def test_child_failure_is_one_line_and_the_targets_prints_leave_stdout(tmp_path):
    path = tmp_path / "t.py"
    path.write_text(TARGET.replace("return 1", "raise RuntimeError('kernel exploded')"))
    origin = load_target(f"{path}:cases")[0].origin
    p = subprocess.run(child_command(origin, warmup=1), capture_output=True, text=True, timeout=120)
    assert p.returncode == 3
    assert p.stdout == ""  # stdout is the counter tool's CSV: nothing of the target's lands there
    assert "the target prints while it loads" in p.stderr
    (line,) = [ln for ln in p.stderr.splitlines() if ln.startswith(CHILD_ERROR)]
    from bench_kernel.gpu import has_gpu

    # Without a GPU the child stops before the call; with one, the call's own error comes back.
    assert line == CHILD_ERROR + ("RuntimeError: kernel exploded" if has_gpu() else
                                  "RuntimeError: no CUDA/HIP GPU is visible to the child process")
