"""Loading TARGET strings in every form, and every way they can be wrong."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import pytest

from bench_kernel.errors import InputError, TargetError, UsageError
from bench_kernel.measure import Case, as_cases, load_target


def _write(tmp_path: Path, body: str, name: str = "target.py") -> Path:
    p = tmp_path / name
    p.write_text(textwrap.dedent(body))
    return p


def test_file_target_returning_a_zero_argument_callable(tmp_path):
    p = _write(tmp_path, """
        def kernel():
            return 42
        def cases():
            return kernel
    """)
    [case] = load_target(f"{p}:cases")
    assert case.fn() == 42
    assert case.label == "kernel" and case.make_inputs is None


def test_file_target_can_import_its_siblings(tmp_path):
    _write(tmp_path, "VALUE = 7\n", name="helper_mod_for_bk.py")
    p = _write(tmp_path, """
        import helper_mod_for_bk
        def cases():
            return {"fn": lambda: helper_mod_for_bk.VALUE, "name": "sib"}
    """)
    [case] = load_target(f"{p}:cases")
    assert case.fn() == 7 and case.name == "sib"


def test_dict_object_and_list_cases(tmp_path):
    p = _write(tmp_path, """
        class Obj:
            fn = staticmethod(lambda x: x + 1)
            make_inputs = staticmethod(lambda: (1,))
            flops = 10
            name = "obj"
        def cases():
            return [
                {"fn": lambda a, b: a * b, "make_inputs": lambda: (2, 3), "bytes": 8, "params": {"n": 2}},
                Obj(),
            ]
    """)
    first, second = load_target(f"{p}:cases")
    assert first.fn(*first.make_inputs()) == 6 and first.bytes == 8 and first.params == {"n": 2}
    assert first.label == "cases[0]"  # a lambda gets the target's name and index
    assert second.name == "obj" and second.flops == 10 and second.fn(*second.make_inputs()) == 2


def test_module_target(tmp_path, monkeypatch):
    pkg = tmp_path / "bk_demo_pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "ops.py").write_text("def cases():\n    return lambda: 'ok'\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    [case] = load_target("bk_demo_pkg.ops:cases")
    assert case.fn() == "ok"
    sys.modules.pop("bk_demo_pkg.ops", None)
    sys.modules.pop("bk_demo_pkg", None)


@pytest.mark.parametrize("body,target_suffix,error,fragment", [
    ("def cases(:\n", "cases", TargetError, "SyntaxError"),
    ("import no_such_module_xyz\n", "cases", TargetError, "ModuleNotFoundError"),
    ("def other():\n    pass\n", "cases", TargetError, "has no attribute 'cases'; callables there: other"),
    ("def cases():\n    raise ValueError('boom')\n", "cases", TargetError, "raised ValueError: boom"),
    ("def cases():\n    return 3\n", "cases", TargetError, "got int"),
    ("def cases():\n    return {'make_inputs': lambda: ()}\n", "cases", TargetError, "no callable 'fn'"),
    ("def cases():\n    return {'fn': print, 'flop': 1}\n", "cases", TargetError, "unknown case key(s) flop"),
    ("def cases():\n    return []\n", "cases", TargetError, "empty list"),
    ("def cases():\n    return {'fn': print, 'bytes': -1}\n", "cases", TargetError, "'bytes' (bytes one call moves) must be a finite number > 0, got -1"),
    ("cases = 3\n", "cases", TargetError, "not a function"),
])
def test_bad_targets(tmp_path, body, target_suffix, error, fragment):
    p = _write(tmp_path, body)
    with pytest.raises(error) as e:
        load_target(f"{p}:{target_suffix}")
    assert fragment in str(e.value)


def test_missing_file_and_bad_syntax_of_target(tmp_path):
    with pytest.raises(InputError, match="does not exist"):
        load_target(f"{tmp_path}/nope.py:cases")
    with pytest.raises(UsageError, match="must be"):
        load_target("just_a_name")
    with pytest.raises(TargetError, match="cannot import module"):
        load_target("no_such_pkg_abc.mod:cases")


def test_as_cases_passes_case_instances_through():
    c = Case(fn=print, name="p")
    assert as_cases([c, c]) == [c, c]
