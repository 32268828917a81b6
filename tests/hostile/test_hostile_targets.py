"""Targets that exit, raise BaseExceptions, print, or carry impossible work figures.

Before: sys.exit(0) anywhere in a target ended ``run`` with exit 0 and nothing measured, other codes
passed straight through, a BaseException subclass printed a traceback, a target's print() landed in
``--json`` output, and NaN/inf/negative/string flops and bytes gave inf or negative TFLOP/s.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import bench_kernel
from _hardware_helpers import needs_no_gpu
from bench_kernel.errors import TargetError
from bench_kernel.measure import Case

EXITING = """
import sys
class Boom(BaseException):
    pass
def in_fn():
    return {"name": "x", "fn": lambda: sys.exit(0)}
def in_fn_code():
    return {"name": "x", "fn": lambda: sys.exit(3)}
def in_fn_message():
    return {"name": "x", "fn": lambda: sys.exit("bye")}
def in_fn_bare():
    return {"name": "x", "fn": lambda: sys.exit()}
def in_make_inputs():
    return {"name": "x", "fn": lambda a: a, "make_inputs": lambda: sys.exit(0)}
def in_reference():
    return {"name": "x", "fn": lambda: 1, "reference": lambda: sys.exit(0)}
def in_factory():
    sys.exit(0)
def base_in_fn():
    def f():
        raise Boom("not an Exception")
    return {"name": "x", "fn": f}
def base_in_factory():
    raise Boom()
def one_of_several():
    return [{"name": "ok", "fn": lambda: None}, {"name": "x", "fn": lambda: sys.exit(0)}]
"""


@pytest.fixture
def exiting(tmp_path: Path) -> Path:
    p = tmp_path / "exiting.py"
    p.write_text(textwrap.dedent(EXITING))
    return p


@pytest.mark.parametrize("func,message", [
    ("in_fn", "case 'x' called sys.exit(0) during warm-up"),
    ("in_fn_code", "case 'x' called sys.exit(3) during warm-up"),
    ("in_fn_message", "case 'x' called sys.exit('bye') during warm-up"),
    ("in_fn_bare", "case 'x' called sys.exit() during warm-up"),
    ("in_make_inputs", "case 'x' called sys.exit(0) during make_inputs"),
    ("in_reference", "case 'x' called sys.exit(0) during the correctness check"),
    ("in_factory", "{t}:in_factory() called sys.exit(0)"),
    ("base_in_fn", "case 'x' raised Boom (a BaseException) during warm-up: not an Exception"),
    ("base_in_factory", "{t}:base_in_factory() raised Boom (a BaseException)"),
])
def test_exits_and_base_exceptions_are_one_line_exit_1(run_cli, exiting, func, message):
    r = run_cli("run", f"{exiting}:{func}", "-m", "host", "--max-time", "0.02", "--rounds", "1")
    assert r.exit_code == 1
    assert r.stderr == f"bench-kernel: error: {message.format(t=exiting)}\n"
    assert r.stdout == ""


def test_an_exiting_case_among_several_is_reported_and_the_rest_measured(run_cli, exiting):
    r = run_cli("run", f"{exiting}:one_of_several", "-m", "host", "--max-time", "0.02", "--rounds", "1", "--json")
    assert r.exit_code == 1
    assert r.stderr == "bench-kernel: error: case 'x' called sys.exit(0) during warm-up\n"
    assert [x["name"] for x in json.loads(r.stdout)["results"]] == ["ok"]


@pytest.mark.parametrize("body,message", [
    ("import sys\nsys.exit(0)\n", "importing '{p}' called sys.exit(0)"),
    ("import sys\nsys.exit(2)\n", "importing '{p}' called sys.exit(2)"),
    ("class B(BaseException):\n    pass\nraise B('at import')\n", "importing '{p}' raised B (a BaseException): at import"),
])
def test_exit_at_import_is_one_line(run_cli, tmp_path, body, message):
    p = tmp_path / "imp.py"
    p.write_text(body)
    r = run_cli("run", f"{p}:cases", "-m", "host")
    assert r.exit_code == 1
    assert r.stderr == f"bench-kernel: error: {message.format(p=p)}\n"


def test_keyboard_interrupt_from_a_target_still_interrupts(run_cli, tmp_path):
    p = tmp_path / "ki.py"
    p.write_text("def cases():\n    def f():\n        raise KeyboardInterrupt\n    return f\n")
    r = run_cli("run", f"{p}:cases", "-m", "host")
    assert r.exit_code == 130
    assert r.stderr == "bench-kernel: error: interrupted\n"


def test_api_raises_one_measurement_error_for_sys_exit():
    from bench_kernel.errors import MeasurementError

    with pytest.raises(MeasurementError, match=r"^case 'quits' called sys.exit\(0\) during warm-up$"):
        bench_kernel.bench(lambda: sys.exit(0), name="quits", methods=("host",), max_time_s=0.02)


# --- what a target prints goes to stderr, never into machine-readable stdout --------------------------

PRINTING = """
import os, torch
print("import says hi")
def cases():
    print("factory says hi")
    def fn(x):
        print("fn says hi")
        os.write(1, b"C-level write to fd 1\\n")  # what a C extension's printf does
        return x + 1
    dev = "cuda" if torch.cuda.is_available() else "cpu"  # source-trace needs a kernel on a GPU
    return {"name": "p", "fn": fn, "make_inputs": lambda: (torch.ones(8, device=dev),), "reference": lambda x: x + 1}
"""


@pytest.fixture
def printing(tmp_path: Path) -> Path:
    p = tmp_path / "printing.py"
    p.write_text(textwrap.dedent(PRINTING))
    return p


@pytest.mark.slow
@pytest.mark.multiprocess
@pytest.mark.parametrize("fmt,parse", [
    ("--json", lambda out: json.loads(out)["results"][0]["name"]),
])
def test_prints_and_fd_writes_go_to_stderr(printing, fmt, parse):
    # a real process: the C-level write to fd 1 is only caught by pointing fd 1 at stderr
    r = subprocess.run([sys.executable, "-m", "bench_kernel", "run", f"{printing}:cases", fmt, "-m", "host",
                        "--max-time", "0.02", "--rounds", "1"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert parse(r.stdout) == "p"
    assert "says hi" not in r.stdout and "C-level" not in r.stdout
    for said in ("import says hi", "factory says hi", "fn says hi", "C-level write to fd 1"):
        assert said in r.stderr


def test_prints_go_to_stderr_in_process_too(run_cli, printing):
    r = run_cli("run", f"{printing}:cases", "--json", "-m", "host", "--max-time", "0.02", "--rounds", "1")
    assert r.exit_code == 0
    assert json.loads(r.stdout)["results"][0]["correct"] is True
    assert "import says hi" in r.stderr and "fn says hi" in r.stderr
    r = run_cli("run", f"{printing}:cases", "--csv", "-m", "host", "--max-time", "0.02", "--rounds", "1")
    assert r.exit_code == 0 and r.stdout.splitlines()[1].startswith("p,")


def test_profile_json_stays_parseable_when_the_target_prints(run_cli, printing, tmp_path):
    r = run_cli("profile", f"{printing}:cases", "--steps", "1", "--json", "-o", str(tmp_path / "t.json.gz"))
    assert r.exit_code == 0, r.stderr
    assert json.loads(r.stdout)["steps"] == 1
    assert "fn says hi" in r.stderr


def _source_trace(printing: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "bench_kernel", "source-trace", f"{printing}:cases", "--json"],
                          capture_output=True, text=True)


@pytest.mark.gpu
@pytest.mark.multiprocess
def test_source_trace_json_stays_parseable_when_the_target_prints(printing):
    r = _source_trace(printing)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["subject"] == "p"  # the document of case p: stdout is its JSON alone
    assert "fn says hi" in r.stderr and "says hi" not in r.stdout


@pytest.mark.slow
@pytest.mark.multiprocess
@needs_no_gpu
def test_source_trace_stdout_stays_empty_when_the_target_prints_and_fails(printing):
    r = _source_trace(printing)
    assert r.returncode == 1
    assert r.stdout == ""
    # The target is imported to pick its case (a wrong --case is wrong on any machine), so what it
    # prints comes first, on stderr; then the one error line: no GPU
    assert r.stderr.splitlines() == ["import says hi", "factory says hi",
                                     "bench-kernel: error: source-trace of a callable needs a CUDA/HIP GPU and none "
                                     "is visible (torch.cuda.is_available() is False); use --trace for a recorded trace"]


# --- a case's fields are checked where the case is made ------------------------------------------------

def _noop() -> None:
    pass


@pytest.mark.parametrize("field,value,message", [
    ("flops", math.nan, "'flops' (FLOP of one call) must be a finite number >= 0, got nan"),
    ("flops", math.inf, "'flops' (FLOP of one call) must be a finite number >= 0, got inf"),
    ("flops", -1.0, "'flops' (FLOP of one call) must be a finite number >= 0, got -1.0"),
    ("flops", "1e9", "'flops' (FLOP of one call) must be a finite number >= 0, got '1e9'"),
    ("flops", True, "'flops' (FLOP of one call) must be a finite number >= 0, got True"),
    ("bytes", 0, "'bytes' (bytes one call moves) must be a finite number > 0, got 0"),
    ("bytes", -math.inf, "'bytes' (bytes one call moves) must be a finite number > 0, got -inf"),
    ("params", [1, 2], "'params' must be a dict of labels, got list"),
    ("name", 7, "'name' must be a string, got int"),
    ("make_inputs", 3, "'make_inputs' must be callable, got int"),
])
def test_bad_case_fields_name_the_case_and_the_field(field, value, message):
    with pytest.raises(TargetError) as e:
        Case(fn=_noop, **{field: value})
    tail = " (leave it out to have it counted with --roofline)" if field in ("flops", "bytes") else ""
    assert str(e.value) == f"case '_noop': {message}{tail}"


def test_the_api_refuses_nan_flops_before_timing():
    with pytest.raises(TargetError, match=r"^case 'f': 'flops' \(FLOP of one call\) must be a finite number"):
        bench_kernel.bench(_noop, flops=math.nan, name="f", methods=("host",))


def test_zero_flops_is_a_valid_copy():
    assert Case(fn=_noop, flops=0, bytes=8).flops == 0


def test_a_target_with_nan_bytes_is_one_line(run_cli, tmp_path):
    p = tmp_path / "nan.py"
    p.write_text("def cases():\n    return {'name': 'n', 'fn': print, 'bytes': float('nan')}\n")
    r = run_cli("run", f"{p}:cases", "-m", "host")
    assert r.exit_code == 1
    assert r.stderr == (f"bench-kernel: error: {p}:cases(): case 'n': 'bytes' (bytes one call moves) must be a "
                        f"finite number > 0, got nan (leave it out to have it counted with --roofline)\n")
