"""Exit codes in one order everywhere: what is wrong on any machine first (2), then what
this machine lacks (1).

Before: ``source-trace T:cases --kernel x`` on a CPU imported T, then said "needs a GPU" with exit 1,
where ``--kernel '('`` (wrong everywhere) said exit 2 only after the import; ``sweep --gpus 0`` on a
CPU was a usage error (2) while ``calibrate`` and ``source-trace`` said the same thing with 1. The
rule: a missing GPU is a DeviceError, exit 1, because the same command line works on a GPU machine.
A wrong option is found before the target is imported; a wrong ``--case`` (or several cases and no
``--case``) needs the target's cases, so the target is imported first and the GPU asked for after
(round 3: ``source-trace t.py:cases --case zz`` said "needs a GPU" instead of "no case named 'zz'").
"""

from __future__ import annotations

import pytest

from bench_kernel.gpu import has_gpu

TARGET = ("import os, pathlib\npathlib.Path(os.environ['BK_MARK']).write_text('imported')\n"
          "def cases():\n    return [lambda: None, lambda: None]\n"
          # a target that cannot load without a GPU: the GPU is what to say, not its error
          "def cuda_cases():\n    import torch\n    return [lambda x=torch.ones(1, device='cuda'): x]\n")


@pytest.fixture
def target(tmp_path, monkeypatch):
    mark = tmp_path / "imported.mark"
    monkeypatch.setenv("BK_MARK", str(mark))
    p = tmp_path / "t.py"
    p.write_text(TARGET)
    return p, mark


def test_a_usage_error_comes_first_and_imports_nothing(run_cli, target):
    p, mark = target
    r = run_cli("source-trace", f"{p}:cases", "--kernel", "(")
    assert r.exit_code == 2 and r.stderr.startswith("bench-kernel: error: --kernel '(' is not a valid regular expression")
    assert not mark.exists()


@pytest.mark.parametrize("argv,message", [
    (("source-trace", "{t}:cases", "--case", "zz"), "no case named 'zz' among the 2 cases (cases[0], cases[1])"),
    (("source-trace", "{t}:cases", "--kernel", "x"), "{t}:cases gives 2 cases (cases[0], cases[1]): pick one with --case NAME"),
    (("source-trace", "{t}:cases"), "{t}:cases gives 2 cases (cases[0], cases[1]): pick one with --case NAME"),
])
def test_a_wrong_case_is_a_usage_error_on_any_machine(run_cli, target, argv, message):
    p, mark = target
    r = run_cli(*[a.format(t=p) for a in argv])
    assert r.exit_code == 2 and r.stderr == f"bench-kernel: error: {message.format(t=p)}\n"
    assert mark.exists()  # the cases are the target's: it had to be imported to know them


@pytest.mark.skipif(has_gpu(), reason="the no-GPU answer")
@pytest.mark.parametrize("argv", [("source-trace", "{t}:cases", "--case", "cases[0]"),
                                  ("source-trace", "{t}:cuda_cases"), ("calibrate",)])
def test_needs_a_gpu_is_exit_1_once_the_command_is_right(run_cli, target, argv):
    p, _ = target
    r = run_cli(*[a.format(t=p) for a in argv])
    assert r.exit_code == 1 and r.stderr.count("\n") == 1
    assert "needs a CUDA/HIP GPU and none is visible" in r.stderr
