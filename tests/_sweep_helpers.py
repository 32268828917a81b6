"""A small sweep spec for the CPU tests: pure-Python providers, cheap on the host method.

Environment hooks make one spec serve every scenario: ``SWEEP_TEST_LOG`` (a file where each
factory call of a non-baseline provider appends "provider M"), ``SWEEP_TEST_HANG_AT`` (at that M,
``wrong``'s factory creates the file ``SWEEP_TEST_READY`` and then sleeps until the process is
killed), ``SWEEP_TEST_STOP_AT`` (Ctrl-C at that M), ``SWEEP_TEST_DIE_AT`` ("M:how", the process dies
there: ``exit``, C's ``_exit(3)`` as a C extension would call it, which no Python code can intercept
(``os._exit`` is the point's error: measure/_exits.py), or ``kill``).
"""

from __future__ import annotations

SPEC = '''
import ctypes, os, signal, sys, time
from bench_kernel import Unsupported

def _log(tag):
    if os.environ.get("SWEEP_TEST_LOG"):
        with open(os.environ["SWEEP_TEST_LOG"], "a") as fh:
            fh.write(tag + "\\n")

def _hooks(p):
    if os.environ.get("SWEEP_TEST_HANG_AT") == str(p["M"]):
        open(os.environ["SWEEP_TEST_READY"], "w").close()  # every unit before this one is stored
        time.sleep(600)
    if os.environ.get("SWEEP_TEST_STOP_AT") == str(p["M"]):
        raise KeyboardInterrupt
    die = os.environ.get("SWEEP_TEST_DIE_AT", "")
    if die.split(":")[0] == str(p["M"]):
        print("about to die", flush=True)  # user output must not corrupt the worker protocol
        sys.stderr.write("provider crashed hard\\n")
        sys.stderr.flush()
        if die.endswith("kill"):
            os.kill(os.getpid(), signal.SIGKILL)
        ctypes.CDLL(None)._exit(3)

def add(p):
    n = p["M"]
    return {"fn": lambda x: [v + 1 for v in x], "make_inputs": lambda: (list(range(n)),), "bytes": 8.0 * n}

def wrong(p):
    _log(f"wrong {p['M']}")
    _hooks(p)
    return {"fn": lambda x: [v + (2 if p["M"] == 2 else 1) for v in x], "make_inputs": lambda: (list(range(p["M"])),)}

def picky(p):
    _log(f"picky {p['M']}")
    if p["M"] > 2:
        raise Unsupported("M > 2 is not supported")
    return add(p)

def sweep():
    return {"axes": {"M": [1, 2, 3], "kind": ["a"]}, "providers": {"add": add, "wrong": wrong, "picky": picky}}

def bigger():
    return {"axes": {"M": [1, 2, 3, 4, 5, 6], "kind": ["a", "b"]}, "providers": {"add": add, "wrong": wrong}}

def broken_axis():
    return {"axes": {"M": []}, "providers": {"add": add}}
'''

#: Fast sampling, one round: the tests check what is stored, not how precise the times are
#: (rounds have tests of their own: test_sweep_rounds.py).
FAST = dict(methods=("host",), precision=0.5, max_time_s=0.02, rounds=1)


def write_spec(tmp_path, text: str = SPEC):
    p = tmp_path / "spec.py"
    p.write_text(text)
    return p
