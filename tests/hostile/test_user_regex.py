"""Users' own regexes: a rule regex ``(a+)+$`` ran 207 s and a 40-character variant never
ended. Every place a user's regex is accepted goes through ``bench_kernel.userregex``: each case
here is its input, the exact line and the exit code.

The per-search bound is lowered for these tests (a runaway regex then costs 0.05 s, not 1 s).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench_kernel import userregex
from bench_kernel.errors import InputError, UsageError
from bench_kernel.trace import load_step_rules, load_trace
from bench_kernel.userregex import user_regex

#: A name on which ``(a|a)+$`` backtracks 2**40 times before it fails.
LONG = "a" * 40 + "b"
RUNAWAY = "(a|a)+$"
WHY = ("it backtracks catastrophically: a repeat over alternatives that can match the same text ('(a|a)+'), "
       "nested repeats or many '.*' can take exponential time on a long name; rewrite it without them")


@pytest.fixture(autouse=True)
def _short_bound(monkeypatch):
    monkeypatch.setattr(userregex, "SEARCH_S", 0.05)


def _trace(tmp_path: Path) -> Path:
    """Three layers of (gemm, LONG, add) kernels inside one ProfilerStep annotation."""
    events, t = [{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#0", "pid": 1, "tid": 1, "ts": 0.0,
                  "dur": 1000.0}], 10.0
    for _layer in range(3):
        for name in ("gemm_kernel", LONG, "add_kernel"):
            c = len(events)
            events += [{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": t,
                        "dur": 1.0, "args": {"correlation": c}},
                       {"ph": "X", "cat": "kernel", "name": name, "pid": 0, "tid": 7, "ts": t + 2, "dur": 3.0,
                        "args": {"correlation": c, "stream": 7, "device": 0}}]
            t += 10.0
    p = tmp_path / "t.json"
    p.write_text(json.dumps({"traceEvents": events}))
    return p


def _only_error(r, code: int) -> str:
    assert (r.exit_code, r.stdout) == (code, "") and r.stderr.count("\n") == 1 and "Traceback" not in r.stderr
    return r.stderr


def test_the_textbook_runaway_now_answers(tmp_path, run_cli):
    # `(a+)+$` is matched in linear time: the answer, at once (no kernel name ends in "a").
    r = run_cli("layers", str(_trace(tmp_path)), "--anchor", "(a+)+$")
    assert _only_error(r, 1).startswith("bench-kernel: error: --anchor '(a+)+$' matches none of the 3 kernel names")
    rx = user_regex("(a+)+$", "--anchor")
    assert rx.search(LONG) is None and rx.search("xaaa").group() == "aaa"


def test_layers_anchor_that_backtracks_for_ever(tmp_path, run_cli):
    r = run_cli("layers", str(_trace(tmp_path)), "--anchor", RUNAWAY)
    assert _only_error(r, 2) == (f"bench-kernel: error: --anchor '{RUNAWAY}' was stopped after 0.05 s on one "
                                 f"41-character name: {WHY}\n")


def test_layers_anchor_without_a_match_is_a_runtime_error(tmp_path, run_cli):
    # A valid regex the trace has no kernel for once gave rc 2 (usage) where it is rc 1.
    r = run_cli("layers", str(_trace(tmp_path)), "--anchor", "flash_fwd")
    assert _only_error(r, 1).startswith("bench-kernel: error: --anchor 'flash_fwd' matches none of the 3 kernel names")


def test_source_trace_kernel(tmp_path, run_cli):
    r = run_cli("source-trace", "--trace", str(_trace(tmp_path)), "--kernel", RUNAWAY)
    assert _only_error(r, 2) == (f"bench-kernel: error: --kernel '{RUNAWAY}' was stopped after 0.05 s on one "
                                 f"41-character name: {WHY}\n")


def test_find_kernels_in_the_api(tmp_path):
    t = load_trace(_trace(tmp_path))
    with pytest.raises(UsageError, match=r"^find_kernels pattern '\(a\|a\)\+\$' was stopped after 0\.05 s"):
        t.find_kernels(RUNAWAY)
    assert t.find_kernels("^add").tolist() == [2, 5, 8]


def _steps_file(tmp_path: Path, pattern) -> Path:
    p = tmp_path / "steps.json"
    p.write_text(json.dumps({"version": 1, "rules": [{"name": "mine", "kind": "annotation", "pattern": pattern}]}))
    return p


@pytest.mark.parametrize("command", ["inventory", "timeline", "phases"])
def test_a_step_rule_that_backtracks_for_ever(tmp_path, run_cli, command):
    trace = _trace(tmp_path)
    doc = json.loads(trace.read_text())
    doc["traceEvents"][0]["name"] = LONG  # the step annotation's name is what the rule reads
    trace.write_text(json.dumps(doc))
    steps = _steps_file(tmp_path, RUNAWAY)
    args = [command, str(trace), "--steps", str(steps)] + (["--per-step"] if command == "inventory" else [])
    r = run_cli(*args)
    assert _only_error(r, 1) == (f"bench-kernel: error: {steps}: rules[0] (mine): 'pattern' '{RUNAWAY}' was stopped "
                                 f"after 0.05 s on one 41-character name: {WHY}\n")


@pytest.mark.parametrize("pattern,fragment", [(5, "'pattern' 5 is not a regular expression (a string)"),
                                              ("(?P<x", "'pattern' '(?P<x' is not a valid regular expression: ")])
def test_a_step_rule_that_is_not_a_regex(tmp_path, pattern, fragment):
    with pytest.raises(InputError, match="^" + __import__("re").escape(f"{tmp_path / 'steps.json'}: rules[0] (mine): "
                                                                       f"{fragment}")):
        load_step_rules(_steps_file(tmp_path, pattern))


def test_decode_rules_file_that_backtracks_for_ever(tmp_path, run_cli):
    rules = tmp_path / "rules.tsv"
    rules.write_text(f"id\tcategory\tfamily\ton\tpattern\nmine\tgemm\t*\tname\t{RUNAWAY}\n")
    r = run_cli("decode", LONG, "--rules", str(rules))
    assert _only_error(r, 1) == (f"bench-kernel: error: {rules}:2: pattern '{RUNAWAY}' was stopped after 0.05 s on "
                                 f"one 41-character name: {WHY}\n")


def test_many_slow_searches_stop_at_the_total(monkeypatch):
    # A regex slow on every name, each search under the per-search bound, stops once its slow searches
    # add up to TOTAL_S. The clock here advances 1 s per reading: every search "takes" 1 s.
    class Clock:
        now = 0.0

        def monotonic(self) -> float:
            self.now += 1.0
            return self.now

    monkeypatch.setattr(userregex, "time", Clock())
    monkeypatch.setattr(userregex, "SEARCH_S", 10.0)
    monkeypatch.setattr(userregex, "TOTAL_S", 2.5)
    rx = user_regex("a", "--anchor")
    assert [rx.search("xa").group() for _ in range(3)] == ["a", "a", "a"]  # 2.5 s of slow searches spent
    with pytest.raises(UsageError, match=r"^--anchor 'a' was stopped after 2\.5 s of slow searches: it backtracks"):
        rx.search("xa")
