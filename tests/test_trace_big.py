"""Every trace command on a trace of many read blocks (`ops` and `phases` once crashed on any
trace longer than one block, and no test read one).

The trace is built at test time from shared data by ``../shared/tools/big_trace.py`` (copies of a
real H200 trace with shifted timestamps and ids; a few seconds) and never committed. Copies do not
overlap, so every total of a command on it is the copy count times the total on the source trace,
and every per-step or per-layer figure is the source's.
"""

from __future__ import annotations

import gzip
import json
import math
import re
import subprocess
import sys
from pathlib import Path

import pytest

from bench_kernel.trace import load_trace

SOURCE = "h200__llama_eager_generate.json.gz"
SIZE_MB = 100


@pytest.fixture(scope="module")
def big(traces_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, int]:
    """(a trace of >= 100 MB, copies of the source it holds); gzipped traces of many blocks are
    tests/test_trace_read.py's."""
    tool = traces_dir.parent.parent / "tools" / "big_trace.py"
    if not tool.is_file():
        pytest.skip(f"{tool} is absent")
    folder = tmp_path_factory.mktemp("big")
    plain = folder / "big.json"
    done = subprocess.run([sys.executable, str(tool), str(traces_dir / SOURCE), str(plain), str(SIZE_MB)],
                          capture_output=True, text=True, check=True)
    copies = int(re.match(r"(\d+) repetitions", done.stdout).group(1))
    return plain, copies


def _json(run_cli, *argv: str) -> dict:
    r = run_cli(*argv, "--json")
    assert (r.exit_code, r.stderr) == (0, ""), r.stderr
    return json.loads(r.stdout)


def _close(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-6)


@pytest.mark.slow
@pytest.mark.multiprocess
def test_every_trace_command_on_a_100_mb_trace(big, traces_dir, run_cli):
    plain, copies = big
    src = str(traces_dir / SOURCE)
    assert plain.stat().st_size >= SIZE_MB * 10**6 and copies >= 2
    block = 16 << 20  # the loader's default block: the trace must span several
    assert plain.stat().st_size > 5 * block

    inv, inv1 = _json(run_cli, "inventory", str(plain)), _json(run_cli, "inventory", src)
    assert inv["kernel_count"] == copies * inv1["kernel_count"]
    assert _close(inv["total_kernel_us"], copies * inv1["total_kernel_us"])
    rows1 = {r["name"]: r for r in inv1["kernels"]}
    for r in inv["kernels"]:
        assert r["count"] == copies * rows1[r["name"]]["count"] and _close(r["max_us"], rows1[r["name"]]["max_us"])

    tl, tl1 = _json(run_cli, "timeline", str(plain)), _json(run_cli, "timeline", src)
    assert len(tl["steps"]) == copies * len(tl1["steps"])
    for key in ("busy_us", "compute_us", "memcpy_us"):
        assert _close(tl["overall"][key], copies * tl1["overall"][key]), key

    lay, lay1 = _json(run_cli, "layers", str(plain)), _json(run_cli, "layers", src)
    assert (lay["period"], lay["layer_count"], lay["sequences"]) == (lay1["period"], copies * lay1["layer_count"],
                                                                     copies * lay1["sequences"])
    assert _close(lay["layer_total_us"], lay1["layer_total_us"]) and _close(lay["total_us"], copies * lay1["total_us"])

    ph, ph1 = _json(run_cli, "phases", str(plain)), _json(run_cli, "phases", src)
    assert _close(ph["total_kernel_us"], copies * ph1["total_kernel_us"])
    for phase in ("prefill", "decode"):
        assert ph[phase]["steps"] == copies * ph1[phase]["steps"]
        assert _close(ph[phase]["kernel_us"], copies * ph1[phase]["kernel_us"])

    # ops reads recorded shapes: the load that crashed.
    one_ops, ops = _json(run_cli, "ops", src), _json(run_cli, "ops", str(plain))
    ops1 = {r["op"]: r for r in one_ops["rows"]}
    assert _close(ops["total_kernel_us"], copies * one_ops["total_kernel_us"])
    assert {r["op"] for r in ops["rows"]} == set(ops1)
    for r in ops["rows"]:
        one = ops1[r["op"]]
        assert (r["calls"], r["kernels"]) == (copies * one["calls"], copies * one["kernels"]), r["op"]
        assert _close(r["kernel_us"], copies * one["kernel_us"]), r["op"]
        if one["flops"] is None:  # an op whose arguments cannot tell its FLOPs says so, in every copy
            assert (r["flops"], r["achieved_tflops"]) == (None, None)
        else:
            assert _close(r["flops"], copies * one["flops"]) and _close(r["achieved_tflops"], one["achieved_tflops"])

    # Per step, the copies are the source: every kernel and category unchanged.
    d = _json(run_cli, "diff", str(plain), src)
    assert (d["per_step"], d["steps_a"], d["steps_b"]) == (True, copies * d["steps_b"], d["steps_b"])
    assert {r["status"] for r in d["kernels"] + d["categories"]} == {"unchanged"}
    assert abs(d["delta_us"]) < 1e-6


@pytest.mark.slow
def test_a_real_cpu_trace_of_many_blocks_loads_with_shapes(traces_dir, run_cli):
    # A CPU-only `transformers serve` trace: 20.7 MB of JSON, no kernels, 48,783 ops with shapes.
    path = traces_dir / "cpu_serve__transformers_serve.json.gz"
    with gzip.open(path, "rb") as f:
        doc = json.load(f)
    ops = [e for e in doc["traceEvents"] if e.get("cat") == "cpu_op"]
    t = load_trace(path, shapes=True, block_bytes=1 << 20)
    assert (t.event_total, len(t.ops)) == (len(doc["traceEvents"]), len(ops))
    assert _close(float(t.ops.dur_us.sum()), sum(e["dur"] for e in ops))
    assert [_thaw(v) for v in t.ops.input_dims.tolist()] == [e["args"].get("Input Dims") for e in ops]
    o = _json(run_cli, "ops", str(path))
    # no kernels: the ops are counted on the host (tests/test_trace_ops_serving.py
    # checks the numbers), where this test once saw an empty table
    assert o["time_base"] == "host" and "aten::mm" in {r["op"] for r in o["rows"]}


def _thaw(v):
    return [_thaw(x) for x in v] if isinstance(v, tuple) else v
