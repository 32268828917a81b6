"""``bench-kernel run`` on the CPU: JSON schema, formats, one-line errors with exit codes."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

from _hardware_helpers import needs_no_gpu
from bench_kernel.errors import TargetError

# The targets build CPU tensors and the runs ask for the host method, so these tests mean the same
# on a GPU machine; only the ones about falling back without a GPU are marked needs_no_gpu.

TARGET = """
import torch
def cases():
    return [
        {"name": "add", "fn": torch.add, "make_inputs": lambda: (torch.randn(256), torch.randn(256)),
         "bytes": 3 * 256 * 4, "params": {"n": 256}},
        {"name": "mul", "fn": lambda x: x * 3, "make_inputs": lambda: (torch.randn(256),),
         "reference": lambda x: x * 3},
    ]
def wrong():
    return {"name": "bad", "fn": lambda x: x + 1, "make_inputs": lambda: (torch.randn(8),),
            "reference": lambda x: x - 1}
def raises():
    def boom():
        raise ZeroDivisionError("division by zero")
    return boom
def mixed():
    return [cases()[0], raises()]
"""


@pytest.fixture
def target(tmp_path):
    p = tmp_path / "t.py"
    p.write_text(textwrap.dedent(TARGET))
    return p


def test_json_schema(run_cli, target):
    r = run_cli("run", f"{target}:cases", "--json", "--max-time", "0.05", "-m", "host", "--rounds", "1")
    assert r.exit_code == 0, r.stderr
    data = json.loads(r.stdout)
    assert [x["name"] for x in data["results"]] == ["add", "mul"]
    add, mul = data["results"]
    m = add["measurements"]["host"]
    for key in ("median_us", "iqr_us", "ci95_us", "n", "min_us", "mean_us", "calls_per_sample", "cache", "samples_us"):
        assert key in m
    assert m["median_us"] > 0 and m["n"] >= 1 and m["n"] + m["disturbed"] == len(m["samples_us"])  # those that waited for a CPU are left out
    assert m["ci95_us"][0] <= m["median_us"] <= m["ci95_us"][1]
    assert add["params"] == {"n": 256} and add["bytes"] == 3 * 256 * 4
    assert add["achieved_tbps"] == pytest.approx(3 * 256 * 4 / (m["median_us"] * 1e-6) / 1e12)
    assert mul["correct"] is True and add["correct"] is None
    assert {"env", "notes", "kernels", "launch_overhead_us", "graph_gap_us"} <= set(add)
    # every result says what it cost, at least the time its method sampled
    assert all(x["wall_s"] >= sum(m["wall_s"] for m in x["measurements"].values()) > 0 for x in data["results"])
    assert "took " not in r.stdout + r.stderr  # the JSON says it per result; the footer is the table's
    table = run_cli("run", f"{target}:cases", "--max-time", "0.05", "-m", "host")
    assert table.exit_code == 0, table.stderr
    footer = [ln for ln in table.stdout.splitlines() if ln.startswith("took ")]
    assert len(footer) == 1 and ": timing " in footer[0], table.stdout
    assert table.stdout.rstrip().endswith(footer[0]) and "took " not in table.stderr


@pytest.mark.parametrize("fmt,check", [
    # raw values: a column per axis (n) and the CI's two bounds as numbers, for pivoting
    ("--csv", lambda out: out.splitlines()[0].startswith("case,n,host_us,host_ci95_low_us,host_ci95_high_us,host_n,l2")),
    ("--md", lambda out: out.startswith("### bench-kernel run") and "| add |" in out),
])
def test_csv_and_markdown(run_cli, target, fmt, check):
    r = run_cli("run", f"{target}:cases", fmt, "--max-time", "0.05", "-m", "host", "--rounds", "1")
    assert r.exit_code == 0, r.stderr
    assert check(r.stdout)


def test_output_file_takes_format_from_extension(run_cli, target, tmp_path):
    out = tmp_path / "res.json"
    r = run_cli("run", f"{target}:cases", "-o", str(out), "--max-time", "0.05", "-m", "host", "--rounds", "1")
    assert r.exit_code == 0
    assert len(json.loads(out.read_text())["results"]) == 2


def test_wrong_result_exits_1_with_reason(run_cli, target):
    r = run_cli("run", f"{target}:wrong", "--json", "-m", "host")
    assert r.exit_code == 1
    assert r.stderr.startswith("bench-kernel: error: case 'bad': wrong result, not timed: out: relative error")
    assert json.loads(r.stdout)["results"][0]["measurements"] == {}


def test_one_failing_case_of_several_reports_and_continues(run_cli, target):
    r = run_cli("run", f"{target}:mixed", "--json", "--max-time", "0.05", "-m", "host", "--rounds", "1")
    assert r.exit_code == 1
    assert "bench-kernel: error: case 'boom' raised ZeroDivisionError during warm-up" in r.stderr
    assert [x["name"] for x in json.loads(r.stdout)["results"]] == ["add"]


@pytest.mark.parametrize("args,code,fragment", [
    (("run", "missing.py:cases"), 1, "target file 'missing.py' does not exist"),
    (("run", "{t}:nope"), 1, "has no attribute 'nope'"),
    (("run", "{t}:raises"), 1, "'boom' raised ZeroDivisionError during warm-up: division by zero"),
    (("run", "no_such_mod_q:cases"), 1, "cannot import module 'no_such_mod_q'"),
    (("run", "{t}:cases", "--method", "warp"), 2, "'warp' is not one of"),
    (("run", "nocolon"), 2, "must be 'path/to/file.py:func'"),
    (("run", "{t}:cases", "--json", "--csv"), 2, "choose one output format"),
])
def test_bad_input_is_one_line(run_cli, target, args, code, fragment):
    r = run_cli(*[a.format(t=target) for a in args], *(() if "--method" in args else ("-m", "host")))
    assert r.exit_code == code, r.stderr
    assert r.stderr.startswith("bench-kernel: error: ")
    assert r.stderr.count("\n") == 1, r.stderr
    assert fragment in r.stderr
    assert "Traceback" not in r.stderr


def test_debug_raises_the_error_itself(run_cli, target):
    with pytest.raises(TargetError, match="has no attribute 'nope'"):
        run_cli("run", f"{target}:nope", "--debug")


@needs_no_gpu
def test_builtin_suite_on_cpu(run_cli):
    r = run_cli("run", "--json", "--max-time", "0.02", "--precision", "0.5", "--rounds", "1")
    assert r.exit_code == 0, r.stderr
    names = [x["name"] for x in json.loads(r.stdout)["results"]]
    assert names == ["gemm", "gemv", "rmsnorm", "softmax", "add", "copy"]
    assert "no GPU found" in r.stderr


def test_the_written_line_counts_a_case_its_reference_refused_as_failed(run_cli, tmp_path):
    t = tmp_path / "t.py"
    t.write_text("def cases():\n    return [{'name': 'ok', 'fn': lambda: 1, 'reference': lambda: 1},\n"
                 "            {'name': 'wrong', 'fn': lambda: 1, 'reference': lambda: 2}]\n")
    out = tmp_path / "r.json"
    r = run_cli("run", f"{t}:cases", "-m", "host", "--max-time", "0.02", "--precision", "0.5", "--rounds", "1",
                "-o", str(out))
    assert r.exit_code == 1
    assert r.stderr.splitlines()[0] == f"wrote {out}: 2 result(s), 1 failed case(s)"
    assert [x["correct"] for x in json.loads(out.read_text())["results"]] == [True, False]


def test_a_bad_device_for_the_suite_is_one_line_not_one_per_case(run_cli):
    r = run_cli("run", "--roofline", "--device", "H2000", "--max-time", "0.01")
    assert r.exit_code == 1
    assert r.stderr.count("bench-kernel: error:") == 1 and "unknown device 'H2000'" in r.stderr
    assert r.stdout == ""


def test_make_inputs_that_raises_names_the_case(run_cli, tmp_path):
    t = tmp_path / "t.py"
    t.write_text("def cases():\n    return {'name': 'bad', 'fn': print, 'make_inputs': lambda: 1 / 0}\n")
    r = run_cli("run", f"{t}:cases", "-m", "host")
    assert r.exit_code == 1 and r.stderr.count("\n") == 1
    assert "'bad' raised ZeroDivisionError during make_inputs: division by zero" in r.stderr


@pytest.mark.parametrize("args,code", [(("--precision", "-1"), 2), (("--max-time", "0"), 2),
                                       (("--roofline", "--device", "H2000"), 1)])
def test_bad_options_for_the_suite_print_only_the_error(run_cli, args, code):
    r = run_cli("run", *args)
    assert r.exit_code == code
    assert r.stderr.startswith("bench-kernel: error: ") and r.stderr.count("\n") == 1


@pytest.mark.multiprocess
def test_run_without_torch_is_one_clear_line():
    # torch hidden from the import system: the suite needs it, and says how to get it
    code = ("import sys; sys.modules['torch'] = None\n"
            "from bench_kernel.cli import main\n"
            "sys.exit(main(['run']))")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode == 1
    assert r.stderr == ("bench-kernel: error: the built-in suite times torch ops: PyTorch is not installed; install "
                        "it (pip install 'bench-kernel[torch]', or your own CUDA/ROCm build of torch)\n")
