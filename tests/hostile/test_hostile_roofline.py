"""--roofline on cases that move no tensor data: "no bytes to place" for that case, the run goes on.

Before: a case whose counted bytes were 0 (``lambda: x.view(16, 16)``, plain Python) failed the whole
run with exit 1, blaming a ``'bytes'`` value the user never gave ("must be a finite number > 0, got
0.0"). A case that STATES 0 bytes is still refused: that value is the user's.
"""

from __future__ import annotations

import json

import pytest

pytest.importorskip("torch")

FAST = ["-m", "host", "--precision", "0.5", "--max-time", "0.02", "--rounds", "1", "--roofline", "--device", "H200"]
TARGET = '''
import torch

x = torch.ones(256)

def cases():
    return [{"name": "view", "fn": lambda: x.view(16, 16)},
            {"name": "python", "fn": lambda: sum(range(100))},
            {"name": "add", "fn": torch.add, "make_inputs": lambda: (torch.ones(256), torch.ones(256))}]

def stated_zero():
    return {"name": "stated", "fn": lambda: x.view(16, 16), "bytes": 0}

def sweep():
    return {"axes": {"n": [16]}, "providers": {"view": lambda p: (lambda: x.view(p["n"], -1)),
                                              "reshape": lambda p: (lambda: x.reshape(p["n"], -1))}}
'''
NO_BYTES = "roofline: no bytes to place: one call read and wrote no tensor data (0 bytes counted)"


@pytest.fixture
def target(tmp_path):
    p = tmp_path / "zero_bytes.py"
    p.write_text(TARGET)
    return p


def test_a_case_that_moves_no_data_is_not_placed_and_the_run_goes_on(run_cli, target):
    r = run_cli("run", f"{target}:cases", *FAST, "--json")
    assert r.exit_code == 0, r.stderr
    assert r.stderr == ""
    by = {x["name"]: x for x in json.loads(r.stdout)["results"]}
    assert list(by) == ["view", "python", "add"]
    for name in ("view", "python"):
        assert by[name]["bytes"] is None and by[name]["flops"] == 0.0 and by[name]["roofline"] is None
        assert NO_BYTES in [n["text"] for n in by[name]["notes"]]
    assert by["add"]["bytes"] == 3 * 256 * 4 and by["add"]["roofline"]["bound"] == "memory"


def test_the_table_says_it_under_the_case(run_cli, target):
    r = run_cli("run", f"{target}:cases", *FAST)
    assert r.exit_code == 0 and f"note: view: {NO_BYTES}" in r.stdout and f"note: python: {NO_BYTES}" in r.stdout


@pytest.mark.multiprocess
def test_a_sweep_point_that_moves_no_data(run_cli, target, tmp_path):
    r = run_cli("sweep", str(target), "--db", str(tmp_path / "r.db"), *FAST, "--json")
    assert r.exit_code == 0, r.stderr
    points = {p["provider"]: p for p in json.loads(r.stdout)["points"]}
    for name in ("view", "reshape"):
        assert points[name]["status"] == "ok" and NO_BYTES in [n["text"] for n in points[name]["result"]["notes"]]


def test_zero_bytes_stated_by_the_case_is_still_the_users_error(run_cli, target):
    r = run_cli("run", f"{target}:stated_zero", *FAST)
    assert r.exit_code == 1
    assert r.stderr == (f"bench-kernel: error: {target}:stated_zero(): case 'stated': 'bytes' (bytes one call moves) must be a "
                        f"finite number > 0, got 0 (leave it out to have it counted with --roofline)\n")
