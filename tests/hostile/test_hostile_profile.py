"""Bad input to ``bench-kernel profile``: one error line, the exit code, and -o never destroyed."""

from __future__ import annotations

import os
import re
import sys
import textwrap

import pytest

pytest.importorskip("torch")

RAISES = textwrap.dedent('''
    def boom(x):
        raise RuntimeError("boom at step")

    def cases():
        return {"name": "boom", "fn": boom, "make_inputs": lambda: (1,)}

    def bad_inputs():
        return {"name": "bad_inputs", "fn": boom, "make_inputs": lambda: 1 / 0}
''')


@pytest.fixture
def target(tmp_path):
    (tmp_path / "raises.py").write_text(RAISES)
    return tmp_path / "raises.py"


def _one_line(r, code: int, message: str) -> None:
    assert r.exit_code == code, (r.stdout, r.stderr)
    assert r.stderr == f"bench-kernel: error: {message}\n"


def test_target_file_that_does_not_exist(run_cli, tmp_path):
    _one_line(run_cli("profile", f"{tmp_path}/nope.py:cases", "-o", str(tmp_path / "t.json.gz")), 1,
              f"target file '{tmp_path}/nope.py' does not exist")


@pytest.mark.slow
def test_callable_that_raises(run_cli, target, tmp_path):
    _one_line(run_cli("profile", f"{target}:cases", "-o", str(tmp_path / "t.json.gz")), 1,
              "case 'boom' raised RuntimeError during profiling: boom at step")
    assert list(tmp_path.glob("*.json.gz")) == [] and list(tmp_path.glob(".*tmp*")) == []


def test_make_inputs_that_raises(run_cli, target, tmp_path):
    _one_line(run_cli("profile", f"{target}:bad_inputs", "-o", str(tmp_path / "t.json.gz")), 1,
              "case 'bad_inputs' raised ZeroDivisionError during make_inputs: division by zero")


@pytest.mark.parametrize("steps", ["0", "-1"])
def test_steps_below_one(run_cli, target, tmp_path, steps):
    _one_line(run_cli("profile", f"{target}:cases", "--steps", steps, "-o", str(tmp_path / "t.json.gz")), 2,
              f"--steps {steps}: record at least one step")


def test_negative_warmup(run_cli, target, tmp_path):
    _one_line(run_cli("profile", f"{target}:cases", "--warmup", "-2", "-o", str(tmp_path / "t.json.gz")), 2,
              "--warmup -2: cannot be negative")


def test_output_in_a_folder_that_does_not_exist(run_cli, target, tmp_path):
    out = tmp_path / "missing" / "t.json.gz"
    _one_line(run_cli("profile", f"{target}:cases", "-o", str(out)), 1,
              f"-o {out}: folder {out.parent} does not exist")


def test_output_that_is_a_directory(run_cli, target, tmp_path):
    _one_line(run_cli("profile", f"{target}:cases", "-o", str(tmp_path)), 1,
              f"-o {tmp_path}: is a directory; give a file name such as {tmp_path / 'trace.json.gz'}")


@pytest.mark.parametrize("args,code", [(["--steps", "0"], 2), ([], 1)], ids=["usage", "raising-callable"])
def test_an_existing_output_survives_a_failure(run_cli, target, tmp_path, args, code):
    out = tmp_path / "keep.json.gz"
    out.write_bytes(b"precious bytes")
    r = run_cli("profile", f"{target}:cases", *args, "-o", str(out))
    assert r.exit_code == code and r.stderr.startswith("bench-kernel: error: ") and r.stderr.count("\n") == 1
    assert out.read_bytes() == b"precious bytes"
    # no temporary file left behind (the target's own bytecode cache is Python's, not ours)
    assert sorted(p.name for p in tmp_path.iterdir() if p.name != "__pycache__") == ["keep.json.gz", "raises.py"]


# --- the size of the request ----------------------------------------------------------------------------
# Before: --steps 99999999999999999999 grew to the 5.7 GB address-space cap and died with SIGABRT after
# 72 s, saying nothing.

PLAIN = "import torch\na, b = torch.ones(64), torch.ones(64)\ndef one():\n    return lambda: torch.add(a, b)\n"


def test_an_absurd_step_count_is_refused_before_the_target_loads(run_cli, tmp_path):
    target = tmp_path / "never.py"
    target.write_text("raise SystemExit('imported')\n")
    out = tmp_path / "t.json.gz"
    _one_line(run_cli("profile", f"{target}:one", "--steps", "99999999999999999999", "-o", str(out)), 2,
              "--steps 99999999999999999999: one trace records at most 1,000,000 steps (each stays in memory "
              "until the trace is written); record fewer")
    assert not out.exists()


@pytest.mark.skipif(sys.platform != "linux", reason="RLIMIT_AS and mallinfo2 are Linux's and glibc's")
@pytest.mark.multiprocess
@pytest.mark.slow
def test_a_recording_that_would_not_fit_stops_before_it_starts(tmp_path):
    # 50,000 one-op steps need ~4 GiB once the profiler stops (~80 KiB each, measured); in an
    # address space capped at 2.5 GiB that must be one line, not a SIGABRT after a minute.
    import resource
    import subprocess

    target = tmp_path / "plain.py"
    target.write_text(PLAIN)
    out = tmp_path / "t.json.gz"
    out.write_bytes(b"precious")
    cap = 2_500 * 2**20

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (cap, cap))

    # No GPU in the child: a CUDA context alone reserves more address space than the cap.
    env = {**os.environ, "CUDA_VISIBLE_DEVICES": "", "HIP_VISIBLE_DEVICES": ""}
    r = subprocess.run([sys.executable, "-m", "bench_kernel", "profile", f"{target}:one", "--steps", "50000",
                        "-o", str(out)], capture_output=True, text=True, preexec_fn=limit, timeout=300, env=env)
    assert r.returncode == 1, r.stderr
    assert re.fullmatch(r"bench-kernel: error: recording 50000 steps would take about [\d.]+ GiB of memory "
                        r"\(\d+ KiB per step, measured on two short recordings\), more than half of the [\d.]+ "
                        r"(GiB|MiB) left \(its address space \(RLIMIT_AS\)\); at most about \d+ steps fit here: "
                        r"record fewer --steps\n", r.stderr), r.stderr
    assert out.read_bytes() == b"precious"
    assert sorted(p.name for p in tmp_path.iterdir() if p.name != "__pycache__") == ["plain.py", "t.json.gz"]


def test_the_probe_leaves_no_trace_in_the_recording(run_cli, tmp_path):
    # Above 16 steps the memory probe records 9 calls first: none of them may appear in the trace.
    import gzip
    import json

    target = tmp_path / "plain.py"
    target.write_text(PLAIN)
    out = tmp_path / "t.json.gz"
    r = run_cli("profile", f"{target}:one", "--steps", "20", "--warmup", "0", "-o", str(out), "--json")
    assert r.exit_code == 0, r.stderr
    events = json.loads(gzip.decompress(out.read_bytes()))["traceEvents"]
    steps = [e["name"] for e in events if e.get("name", "").startswith("ProfilerStep#")]
    adds = [e for e in events if e.get("name") == "aten::add"]
    assert len(steps) == 20 and len(adds) == 20 and json.loads(r.stdout)["steps"] == 20
