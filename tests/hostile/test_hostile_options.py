"""Negative, NaN and infinite numbers and missing folders given as options: one usage line each.

Before: ``source-trace --rank -3`` and ``--root /nonexistent`` were accepted, ``run --precision nan``
passed click's FloatRange (every comparison with NaN is False), ``--device-index -1`` reached torch.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from bench_kernel.gpu import no_gpu_driver

EAGER = str(Path(__file__).resolve().parent.parent / "data" / "trace" / "eager.json")


@pytest.mark.parametrize("argv,message", [
    (("source-trace", "--trace", EAGER, "--rank", "-3"), "Invalid value for '--rank': -3 is not in the range x>=0."),
    (("source-trace", "--trace", EAGER, "--step", "-1"), "Invalid value for '--step': -1 is not in the range x>=0."),
    (("source-trace", "--trace", EAGER, "--root", "/nonexistent"),
     "Invalid value for '--root': Directory '/nonexistent' does not exist."),
    (("run", "--precision", "nan"), "Invalid value for '--precision': 'nan' is not a finite number"),
    (("run", "--precision", "inf"), "Invalid value for '--precision': 'inf' is not a finite number"),
    (("run", "--precision", "0"), "Invalid value for '--precision': '0' must be > 0"),
    (("run", "--max-time", "-0.5"), "Invalid value for '--max-time': '-0.5' must be > 0"),
    (("run", "--max-time", "inf"), "Invalid value for '--max-time': 'inf' is not a finite number"),
    (("run", "--timeout", "nan"), "Invalid value for '--timeout': 'nan' is not a finite number (inf is allowed)"),
    (("run", "--timeout", "-inf"), "Invalid value for '--timeout': '-inf' is not a finite number (inf is allowed)"),
    (("run", "--device-index", "-1"), "Invalid value for '--device-index': -1 is not in the range x>=0."),
    (("inventory", EAGER, "--top", "0"), "Invalid value for '--top': 0 is not in the range x>=1."),
    (("inventory", EAGER, "--rank", "-1"), "Invalid value for '--rank': -1 is not in the range x>=0."),
    (("diff", EAGER, EAGER, "--top", "-2"), "Invalid value for '--top': -2 is not in the range x>=1."),
    (("timeline", EAGER, "--launch-gap-us", "nan"), "Invalid value for '--launch-gap-us': 'nan' is not a finite number"),
    (("sweep", "spec.py", "--precision", "nan"), "Invalid value for '--precision': 'nan' is not a finite number"),
    (("sweep", "spec.py", "--max-time", "inf"), "Invalid value for '--max-time': 'inf' is not a finite number"),
    (("run", "--threads", "0"), "Invalid value for '--threads': 0 is not in the range x>=1."),
    (("run", "--threads", "two"), "Invalid value for '--threads': 'two' is not a valid integer range."),
    (("sweep", "spec.py", "--threads", "-1"), "Invalid value for '--threads': -1 is not in the range x>=1."),
])
def test_bad_numbers_and_folders_are_one_usage_line(run_cli, argv, message):
    r = run_cli(*argv)
    assert r.exit_code == 2
    command = argv[0]
    assert r.stderr == f"bench-kernel: error: {message} (see 'bench-kernel {command} --help')\n"
    assert r.stdout == ""


@pytest.mark.parametrize("flag,value,message", [
    ("--flops", "nan", "flops must be a finite number >= 0, got nan"),
    ("--bytes", "inf", "bytes must be a finite number > 0, got inf"),
    ("--time-us", "-5", "time_us must be a finite number > 0, got -5.0"),
    ("--launch-us", "nan", "launch_overhead_us must be a finite number >= 0, got nan"),
])
def test_roofline_numbers(run_cli, flag, value, message):
    argv = {"--flops": "1e9", "--bytes": "1e6", "--time-us": "10", flag: value}
    r = run_cli("roofline", "--device", "H200", *[x for kv in argv.items() for x in kv])
    assert r.exit_code == 2
    assert r.stderr == f"bench-kernel: error: {message}\n"


def test_the_api_refuses_infinite_precision():
    import bench_kernel
    from bench_kernel.errors import UsageError

    with pytest.raises(UsageError, match=r"^precision must be a finite number > 0 \(relative, 0.01 = 1%\), got inf$"):
        bench_kernel.bench(lambda: None, precision=float("inf"), methods=("host",))


def test_run_plot_suffix_and_folder_are_checked_before_timing(run_cli, tmp_path):
    r = run_cli("run", "--plot", str(tmp_path / "x.pdf"), "--device", "H200")
    assert r.exit_code == 2 and r.stderr == f"bench-kernel: error: --plot {str(tmp_path / 'x.pdf')!r} must end in .png or .svg (got '.pdf')\n"
    missing = tmp_path / "nope" / "x.png"
    r = run_cli("run", "--plot", str(missing), "--device", "H200")
    assert r.exit_code == 1
    assert r.stderr == f"bench-kernel: error: cannot write {missing}: folder {missing.parent} does not exist\n"


@pytest.mark.skipif(not no_gpu_driver(), reason="this machine has a GPU driver: torch must be asked")
@pytest.mark.multiprocess
def test_roofline_without_a_gpu_fails_before_torch_is_imported():
    # Before: `run --roofline` on a laptop imported torch (2-7 s) only to learn there is no GPU. With no
    # driver on the machine there is none to find: the error comes first, torch is never loaded.
    code = ("import sys; from bench_kernel.cli import main\n"
            "rc = main(['run', 'examples/torch_ops.py:cases', '--roofline'])\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] == 'torch')); sys.exit(rc)")
    root = Path(__file__).resolve().parents[2]
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=root, timeout=120)
    assert (r.returncode, r.stdout) == (1, "[]\n")
    assert r.stderr == ("bench-kernel: error: --roofline needs a GPU to detect, or --device NAME "
                        "(see 'bench-kernel devices')\n")


def test_more_threads_than_a_machine_has_is_a_usage_line(run_cli):
    r = run_cli("run", "--threads", "99999")
    assert r.exit_code == 2 and r.stdout == ""
    assert r.stderr == ("bench-kernel: error: threads must be a whole number from 1 to 4096 (None: torch's own count), "
                        "got 99999\n")
