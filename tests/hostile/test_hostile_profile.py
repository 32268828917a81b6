"""Bad input to ``bench-kernel profile``: one error line, the exit code, and -o never destroyed."""

from __future__ import annotations

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
