"""A lint over the tests themselves: patterns of a test that cannot fail, or that passes for the wrong reason.

- ``pytest.raises(Exception)`` (or ``BaseException``) without ``match=``: any bug raises something.
- ``assert <exit code> in (a, b)``: one of the codes is right, and the test should say which.
- ``assert x in (..., [], ...)``: one of the accepted outcomes is that nothing happened.
- ``assert True``, or any other constant: it holds whatever the code does.
- a list, dict or set made empty in a test and then only asserted on (``ran = []`` ...
  ``assert not ran``): nothing can fill it, so the assert holds.
- ``assert NAME == <literal>`` where ``NAME`` is a constant imported from bench_kernel whose value is
  that literal: it restates the source, and only an edit of the constant can fail it.

Each finding names the file and line. ``check`` runs on any source, so the test below proves each
rule fires on a planted bad snippet.
"""

from __future__ import annotations

import ast
import importlib
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
TESTS = ROOT / "tests"
#: names that hold a process's exit status
_EXIT_NAMES = {"exit_code", "returncode", "code", "rc", "status", "exit_status"}


def _name(node: ast.AST) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


def _is_pytest_raises(call: ast.Call) -> bool:
    f = call.func
    return (isinstance(f, ast.Attribute) and f.attr == "raises" and _name(f.value) == "pytest") or \
        (isinstance(f, ast.Name) and f.id == "raises")


def _broad_raises(call: ast.Call) -> bool:
    if not _is_pytest_raises(call) or not call.args:
        return False
    kinds = call.args[0].elts if isinstance(call.args[0], ast.Tuple) else [call.args[0]]
    broad = any(_name(k) in ("Exception", "BaseException") for k in kinds)
    return broad and not any(k.arg == "match" for k in call.keywords)


def _exit_code_in_choices(test: ast.expr) -> bool:
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.In)):
        return False
    choices = test.comparators[0]
    return _name(test.left) in _EXIT_NAMES and isinstance(choices, (ast.Tuple, ast.List, ast.Set)) \
        and len(choices.elts) > 1


def _accepts_nothing(test: ast.expr) -> bool:
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.In)):
        return False
    choices = test.comparators[0]
    return isinstance(choices, (ast.Tuple, ast.List)) and any(
        isinstance(c, (ast.List, ast.Tuple, ast.Dict, ast.Set)) and not getattr(c, "elts", getattr(c, "keys", None))
        or isinstance(c, ast.Constant) and c.value is None for c in choices.elts)


def _never_filled(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> list[ast.Name]:
    """Empty containers made in ``fn`` whose every later use is inside an assert."""
    made = {}
    for node in ast.walk(fn):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) and (
                isinstance(node.value, (ast.List, ast.Set)) and not node.value.elts
                or isinstance(node.value, ast.Dict) and not node.value.keys):
            made[node.targets[0].id] = node.targets[0]
    if not made:  # most tests: then no more walks (the suite's lint took 7 s with three per test)
        return []
    in_asserts = {id(n) for a in ast.walk(fn) if isinstance(a, ast.Assert) for n in ast.walk(a)}
    uses: dict[str, list[ast.Name]] = {}
    for node in ast.walk(fn):
        if isinstance(node, ast.Name) and node.id in made and node is not made[node.id]:
            uses.setdefault(node.id, []).append(node)
    return [made[k] for k, us in uses.items() if all(id(u) in in_asserts for u in us)]


def _bench_kernel_constants(tree: ast.Module) -> dict[str, tuple[str, str]]:
    """Local name -> (module, name) for the ALL_CAPS names a file imports from bench_kernel."""
    out = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "bench_kernel":
            for a in node.names:
                if a.name.isupper():
                    out[a.asname or a.name] = (node.module, a.name)
    return out


def _value(module: str, name: str) -> object:
    """The constant's value, or a sentinel equal to nothing when it cannot be imported."""
    try:
        return getattr(importlib.import_module(module), name)
    except (ImportError, AttributeError):
        return object()


def _restated_constant(test: ast.expr, constants: dict[str, tuple[str, str]]) -> str | None:
    """``NAME == literal`` (either way round, or one clause of an ``and``) of a constant defined as that literal."""
    clauses = test.values if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And) else [test]
    for c in clauses:
        if not (isinstance(c, ast.Compare) and len(c.ops) == 1 and isinstance(c.ops[0], ast.Eq)):
            continue
        for a, b in ((c.left, c.comparators[0]), (c.comparators[0], c.left)):
            if isinstance(a, ast.Name) and a.id in constants:
                try:
                    literal = ast.literal_eval(b)
                except ValueError:
                    continue
                if _value(*constants[a.id]) == literal:
                    return a.id
    return None


def check(source: str, filename: str = "<test>") -> list[str]:
    """The findings of the lint in one test file's source: ``file:line: what``."""
    tree = ast.parse(source, filename)
    constants = _bench_kernel_constants(tree)
    found = []
    for node in ast.walk(tree):
        where = f"{filename}:{getattr(node, 'lineno', 0)}"
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name.startswith("test"):
            found += [f"{filename}:{n.lineno}: {n.id} is made empty and only asserted on: nothing fills it"
                      for n in _never_filled(node)]
        if isinstance(node, ast.Call) and _broad_raises(node):
            found.append(f"{where}: pytest.raises(Exception) without match=: name the error, or match its message")
        if not isinstance(node, ast.Assert):
            continue
        if isinstance(node.test, ast.Constant):
            found.append(f"{where}: assert of a constant ({node.test.value!r}) holds whatever the code does")
        elif _accepts_nothing(node.test):
            found.append(f"{where}: one of the outcomes this assert accepts is that nothing happened")
        elif _exit_code_in_choices(node.test):
            found.append(f"{where}: an exit code asserted to be one of several: say which one is right")
        elif name := _restated_constant(node.test, constants):
            found.append(f"{where}: {name} compared with the literal that is its value: test what it does instead")
    return found


def _test_files() -> list[Path]:
    return sorted(p for p in TESTS.rglob("*.py") if "data" not in p.relative_to(TESTS).parts)


def test_no_test_in_the_suite_matches_a_banned_pattern():
    found = [f for p in _test_files() for f in check(p.read_text(), str(p.relative_to(ROOT)))]
    assert found == [], "\n".join(found)


@pytest.mark.parametrize("snippet, finding", [
    ("def test_x():\n    with pytest.raises(Exception):\n        f()\n", "pytest.raises(Exception) without match="),
    ("def test_x():\n    with pytest.raises((ValueError, BaseException)):\n        f()\n", "without match="),
    ("def test_x(run_cli):\n    assert run_cli('x').exit_code in (0, 1)\n", "one of several"),
    ("def test_x():\n    assert proc.returncode in [1, 2], proc.stderr\n", "one of several"),
    ("def test_x():\n    assert True\n", "assert of a constant (True)"),
    ("def test_x():\n    assert [t for t in started if t] in ([], ['watchdog'])\n", "nothing happened"),
    ("def test_x():\n    ran = []\n    g()\n    assert not ran\n", "ran is made empty and only asserted on"),
    ("from bench_kernel.kernels import MAX_NAME_CHARS\n"
     "def test_x():\n    assert MAX_NAME_CHARS == 8_192\n", "MAX_NAME_CHARS compared with the literal"),
    ("from bench_kernel.kernels import MAX_NAME_CHARS\n"
     "def test_x():\n    assert 8192 == MAX_NAME_CHARS and f()\n", "MAX_NAME_CHARS compared with the literal"),
])
def test_the_lint_fails_on_a_planted_bad_test(tmp_path, snippet, finding):
    bad = tmp_path / "test_bad.py"
    bad.write_text(textwrap.dedent(snippet))
    [message] = check(bad.read_text(), str(bad))
    assert message.startswith(f"{bad}:") and finding in message


@pytest.mark.parametrize("snippet", [
    "def test_x():\n    with pytest.raises(Exception, match='no such shape'):\n        f()\n",
    "def test_x():\n    with pytest.raises(ValueError):\n        f()\n",
    "def test_x(run_cli):\n    assert run_cli('x').exit_code == 1\n",
    "def test_x():\n    assert name in ('a', 'b')\n",
    "def test_x():\n    ran = []\n    g(lambda: ran.append(1))\n    assert ran == [1]\n",
    "from bench_kernel.kernels import MAX_NAME_CHARS\ndef test_x():\n    assert len(cut(s)) == MAX_NAME_CHARS\n",
    "from bench_kernel.kernels import MAX_NAME_CHARS\ndef test_x():\n    assert MAX_NAME_CHARS == 4096\n",
])
def test_the_lint_passes_what_can_fail(snippet):
    assert check(textwrap.dedent(snippet)) == []
