"""Bad rounds and bad tolerances, as a new user types them: one usage line each."""

from __future__ import annotations

import pytest

pytest_plugins = ["pytester"]

SPEC = """
def sweep():
    return {"axes": {"n": [1]}, "providers": {"a": lambda p: (lambda: None)}, "rtol": RTOL}
"""


@pytest.mark.parametrize("command", ["run", "sweep"])
@pytest.mark.parametrize("value,message", [
    ("0", "Invalid value for '--rounds': 0 is not in the range x>=1."),
    ("-2", "Invalid value for '--rounds': -2 is not in the range x>=1."),
    ("two", "Invalid value for '--rounds': 'two' is not a valid integer range."),
    ("2.5", "Invalid value for '--rounds': '2.5' is not a valid integer range."),
])
def test_bad_rounds_are_one_usage_line(run_cli, command, value, message):
    r = run_cli(command, "spec.py", "--rounds", value)
    assert (r.exit_code, r.stdout) == (2, "")
    assert r.stderr == f"bench-kernel: error: {message} (see 'bench-kernel {command} --help')\n"


def test_too_many_rounds_is_one_usage_line(run_cli, tmp_path):
    spec = tmp_path / "s.py"
    spec.write_text(SPEC.replace("RTOL", "None"))
    r = run_cli("sweep", str(spec), "--db", str(tmp_path / "r.db"), "--rounds", "1000")
    assert (r.exit_code, r.stdout) == (2, "")
    assert r.stderr == ("bench-kernel: error: rounds must be a whole number from 1 to 100 (None: the per-method "
                        "default), got 1000\n")


@pytest.mark.parametrize("rtol,shown", [("-1e-3", "-0.001"), ("float('nan')", "nan"), ("'tight'", "'tight'"),
                                        ("True", "True")])
def test_a_spec_with_a_bad_tolerance_is_one_error_line(run_cli, tmp_path, rtol, shown):
    spec = tmp_path / "s.py"
    spec.write_text(SPEC.replace("RTOL", rtol))
    r = run_cli("sweep", str(spec), "--db", str(tmp_path / "r.db"), "-m", "host")
    assert r.exit_code != 0 and r.stdout == ""
    assert r.stderr == (f"bench-kernel: error: sweep 'sweep': 'rtol' must be a finite number >= 0 (None: the "
                        f"default), got {shown}\n")


def test_a_case_with_a_bad_tolerance_names_the_case(run_cli, tmp_path):
    target = tmp_path / "t.py"
    target.write_text("def cases():\n    return [{'fn': lambda: 1, 'name': 'k', 'atol': -1}]\n")
    r = run_cli("run", f"{target}:cases", "-m", "host")
    assert r.exit_code != 0 and r.stdout == ""
    assert r.stderr.startswith("bench-kernel: error: ") and r.stderr.count("\n") == 1
    assert "'atol' must be a finite number >= 0 (None: the default), got -1" in r.stderr and "'k'" in r.stderr


def test_pytest_rounds_option_refuses_zero(pytester):
    pytester.makepyfile("def test_x(kernel_bench):\n    pass\n")
    r = pytester.runpytest("--kernel-bench-rounds", "0", "-p", "no:cacheprovider")
    assert r.ret == pytest.ExitCode.USAGE_ERROR
    r.stderr.fnmatch_lines(["*kernel_bench: rounds must be a whole number from 1 to 100*got 0*"])


def _results_file(path, samples: list[float]):
    """A ``run --json`` file of one real host result, one round."""
    import json

    from _results_helpers import result

    path.write_text(json.dumps({"results": [result("k", {"n": 65536}, samples).to_dict()]}))
    return str(path)


def test_cmpf_slow3x_one_round_a_side_is_slower_and_fails(run_cli, tmp_path):
    # One round per side gave 'unknown' and exit 0 for a 3.00x slowdown: a CI gate passed it. The
    # host's floor (x2) bounds the interval now, and 3x is beyond it.
    from _results_helpers import gpu_like_samples

    a = _results_file(tmp_path / "a.json", gpu_like_samples(1))
    b = _results_file(tmp_path / "b.json", [3.0 * x for x in gpu_like_samples(1)])
    r = run_cli("compare", a, b)
    assert r.exit_code == 1 and r.stderr.count("\n") == 1
    assert r.stderr.startswith("bench-kernel: error: 1 significant regression(s) of b.json against a.json; worst: k "
                               "n=65536: slower: ")
    assert "ratio 3.000 (99% CI 1.034-8.700; 1+1 rounds, the method's documented worst run-to-run noise" in r.stderr


def test_a_change_within_the_floor_is_inconclusive_and_fails_only_when_asked(run_cli, tmp_path):
    from _results_helpers import gpu_like_samples

    a = _results_file(tmp_path / "a.json", gpu_like_samples(1))
    b = _results_file(tmp_path / "b.json", [1.3 * x for x in gpu_like_samples(1)])
    r = run_cli("compare", a, b)
    assert (r.exit_code, r.stderr) == (0, "") and "0 same, 1 inconclusive" in r.stdout
    gate = run_cli("compare", a, b, "--fail-on", "inconclusive")
    assert gate.exit_code == 1 and gate.stderr.count("\n") == 1
    assert gate.stderr.startswith("bench-kernel: error: 1 inconclusive point(s) (--fail-on inconclusive); first: k "
                                  "n=65536: inconclusive: ")


@pytest.mark.parametrize("value", ["never", "unknown", ""])
def test_a_bad_fail_on_is_one_usage_line(run_cli, value):
    r = run_cli("compare", "a.json", "b.json", "--fail-on", value)
    assert (r.exit_code, r.stdout) == (2, "")
    assert r.stderr == (f"bench-kernel: error: Invalid value for '--fail-on': '{value}' is not one of 'slower', "
                        f"'inconclusive'. (see 'bench-kernel compare --help')\n")


def test_pytest_fail_on_refuses_a_bad_choice(pytester):
    pytester.makepyfile("def test_x(kernel_bench):\n    pass\n")
    r = pytester.runpytest("--kernel-bench-fail-on", "never", "-p", "no:cacheprovider")
    assert r.ret == pytest.ExitCode.USAGE_ERROR
    r.stderr.fnmatch_lines(["*--kernel-bench-fail-on: invalid choice: 'never'*"])
