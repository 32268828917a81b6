"""``-o`` and ``--plot`` against every input, by identity.

Before: ``-o`` was compared only with click path arguments, so ``compare a.json 2 -o a.json``
overwrote its input file; ``compare``, ``history``, ``run --save`` and ``sweep`` with ``-o`` equal
to ``--db`` replaced the whole results database with JSON; ``sweep s.py -o s.py`` overwrote the spec
and ``report x.html -o x.html`` an input. Each is refused with one line (exit 2) before any work:
nothing imported, measured or opened, every input byte-for-byte as it was.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

FAST = ["-m", "host", "--precision", "0.5", "--max-time", "0.02", "--rounds", "1"]
#: A target and a spec of plain Python that leave a marker file when imported: proof of "before any work".
TARGET = ("import os, pathlib\npathlib.Path(os.environ['BK_MARK']).write_text('imported')\n"
          "def cases():\n    return {'name': 'sum', 'fn': lambda: sum(range(50))}\n"
          "def sweep():\n    return {'axes': {'n': [1, 2]}, 'providers': {'a': lambda p: (lambda: sum(range(p['n'])))}}\n")


@pytest.fixture
def world(tmp_path, run_cli, monkeypatch):
    """A target, a results database with runs 1 and 2, a run --json file, a report: every input kind."""
    mark = tmp_path / "imported.mark"
    monkeypatch.setenv("BK_MARK", str(mark))
    w = {"tmp": tmp_path, "mark": mark, "target": tmp_path / "t.py", "db": tmp_path / "r.db",
         "json": tmp_path / "a.json", "html": tmp_path / "x.html"}
    w["target"].write_text(TARGET)
    for _ in range(2):
        r = run_cli("run", f"{w['target']}:cases", *FAST, "--save", "--db", str(w["db"]), "--json", "-o", str(w["json"]))
        assert r.exit_code == 0, r.stderr
    assert run_cli("report", str(w["json"]), "-o", str(w["html"])).exit_code == 0
    mark.unlink()
    return w


def _refused(r, out, inp, option="-o"):
    assert r.exit_code == 2, r.stderr
    assert r.stderr == (f"bench-kernel: error: {option} {out} is also an input ({inp}): it would be overwritten; "
                        f"write the output somewhere else\n")
    assert r.stdout == ""


def _snapshot(w):
    return {p: p.read_bytes() for p in w["tmp"].iterdir() if p.is_file() and not p.is_symlink()}


@pytest.mark.parametrize("argv,out,inp", [
    (("compare", "{json}", "2", "--db", "{db}", "--json", "-o", "{json}"), "{json}", "{json}"),
    (("compare", "{json}:sum", "2:sum", "--db", "{db}", "--json", "-o", "{json}"), "{json}", "{json}"),
    (("compare", "1", "2", "--db", "{db}", "--json", "-o", "{db}"), "{db}", "{db}"),
    (("history", "--db", "{db}", "--json", "-o", "{db}"), "{db}", "{db}"),
    (("history", "--db", "{db}", "--json", "-o", "{db}-wal"), "{db}-wal", "{db}-wal"),
    (("run", "{target}:cases", "--save", "--db", "{db}", "--json", "-o", "{db}"), "{db}", "{db}"),
    (("sweep", "{target}", "--db", "{db}", "--json", "-o", "{db}"), "{db}", "{db}"),
    (("sweep", "{target}", "--db", "{db}", "--json", "-o", "{target}"), "{target}", "{target}"),
    (("sweep", "{target}:sweep", "--db", "{db}", "--json", "-o", "{target}"), "{target}", "{target}"),
    (("report", "{html}", "-o", "{html}"), "{html}", "{html}"),
    (("serve", "--url", "http://127.0.0.1:9", "--save", "--db", "{db}", "--json", "-o", "{db}"), "{db}", "{db}"),
    (("report", "1", "--db", "{db}", "-o", "{html}"), None, None),  # a stored run: its database is the input
])
def test_an_output_that_is_an_input_is_refused_before_any_work(world, run_cli, argv, out, inp):
    w = world
    if out is None:  # -o the database itself cannot end in .html: name it by a link that does
        link = w["tmp"] / "db.html"
        link.symlink_to(w["db"])
        argv = ("report", "1", "--db", "{db}", "-o", str(link))
        out, inp = str(link), "{db}"
    fmt = {k: str(v) for k, v in w.items()}
    before = _snapshot(w)
    r = run_cli(*[a.format(**fmt) for a in argv])
    _refused(r, out.format(**fmt), inp.format(**fmt))
    assert _snapshot(w) == before and not w["mark"].exists()


def test_the_same_file_by_a_hard_link_a_symlink_or_another_spelling(world, run_cli):
    w = world
    hard, soft = w["tmp"] / "hard.json", w["tmp"] / "soft.db"
    os.link(w["json"], hard)
    soft.symlink_to(w["db"])
    before = _snapshot(w)
    _refused(run_cli("compare", str(w["json"]), "1", "--db", str(w["db"]), "--json", "-o", str(hard)),
             hard, w["json"])
    _refused(run_cli("history", "--db", str(soft), "--json", "-o", str(w["db"])), w["db"], soft)
    other = w["tmp"] / "sub" / ".." / "r.db"
    (w["tmp"] / "sub").mkdir()
    _refused(run_cli("history", "--db", str(w["db"]), "--csv", "-o", str(other)), other, w["db"])
    assert _snapshot(w) == before


def test_the_default_database_is_an_input_too(world, run_cli, monkeypatch):
    # No --db: the store is $BENCH_KERNEL_DB (set for every test by conftest), else the data dir.
    w = world
    monkeypatch.setenv("BENCH_KERNEL_DB", str(w["db"]))
    before = _snapshot(w)
    _refused(run_cli("history", "--json", "-o", str(w["db"])), w["db"], w["db"])
    _refused(run_cli("compare", "1", "2", "--json", "-o", str(w["db"])), w["db"], w["db"])
    _refused(run_cli("run", f"{w['target']}:cases", "--save", "-o", str(w["db"])), w["db"], w["db"])
    _refused(run_cli("sweep", str(w["target"]), "--json", "-o", str(w["db"])), w["db"], w["db"])
    assert _snapshot(w) == before and not w["mark"].exists()
    # Without --save, run opens no database: its default path is not an input (nothing refused).
    r = run_cli("run", f"{w['target']}:cases", *FAST, "--json", "-o", str(w["tmp"] / "fine.json"))
    assert r.exit_code == 0, r.stderr


def test_plot_against_inputs_and_against_o(world, run_cli):
    w = world
    before = _snapshot(w)
    _refused(run_cli("sweep", str(w["target"]), "--db", str(w["db"]), "--plot", str(w["target"]), "--x", "n"),
             w["target"], w["target"], "--plot")
    svg = w["tmp"] / "p.svg"
    _refused(run_cli("sweep", str(w["target"]), "--db", str(w["db"]), "--plot", str(svg), "--x", "n", "-o", str(svg)),
             svg, svg, "--plot")
    _refused(run_cli("run", f"{w['target']}:cases", "--plot", str(w["target"])), w["target"], w["target"], "--plot")
    assert _snapshot(w) == before and not svg.exists() and not w["mark"].exists()


def test_a_module_target_is_found_without_importing_it(tmp_path, run_cli, monkeypatch):
    # package.module:func: its file is an input too, found on sys.path without running the package.
    pkg = tmp_path / "bkpkg"
    pkg.mkdir()
    mark = tmp_path / "imported.mark"
    monkeypatch.setenv("BK_MARK", str(mark))
    (pkg / "__init__.py").write_text(TARGET)  # the package's __init__ is user code: it must not run
    (pkg / "cases_mod.py").write_text("def cases():\n    return lambda: None\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    mod = pkg / "cases_mod.py"
    before = mod.read_bytes()
    _refused(run_cli("run", "bkpkg.cases_mod:cases", "-o", str(mod)), mod, mod)
    _refused(run_cli("profile", "bkpkg.cases_mod:cases", "-o", str(mod)), mod, mod)
    _refused(run_cli("source-trace", "bkpkg.cases_mod:cases", "-o", str(mod)), mod, mod)
    assert mod.read_bytes() == before and not mark.exists()


def test_measure_target_file_names_what_load_target_would_import(tmp_path, monkeypatch):
    from bench_kernel.measure import target_file

    (tmp_path / "flat.py").write_text("x = 1\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert target_file("flat:x") == tmp_path / "flat.py"
    assert target_file("dir/file.py:f") == Path("dir/file.py")
    assert target_file("json:dumps") == Path(os.__file__).parent / "json" / "__init__.py"
    assert target_file("json.decoder:x") == Path(os.__file__).parent / "json" / "decoder.py"
    assert target_file("flat.sub:x") is None  # a module has no submodules
    assert target_file("no_such_module_anywhere:f") is None and target_file("sys:x") is None  # built in
