"""The command line's front door: a bare ``bench-kernel``, shell completion, a mistyped command.

(A reader that closes the pipe early is in ``hostile/test_hostile_cli_output.py``.)
"""

from __future__ import annotations

import pytest

from bench_kernel.cli import _COMMANDS, cli


def test_bare_command_prints_the_help_and_succeeds(run_cli):
    r = run_cli()
    assert (r.exit_code, r.stderr) == (0, "")
    assert r.stdout.startswith("Usage: bench-kernel [OPTIONS] COMMAND [ARGS]...\n")
    assert run_cli("--help").stdout == r.stdout  # the same page, not one folded error line
    listed = r.stdout.split("Commands:\n", 1)[1].split()
    assert all(name in listed for name in _COMMANDS)


@pytest.mark.parametrize(("typed", "suggested"), [
    ("invntory", "did you mean 'inventory'?"),
    ("inv", "did you mean 'inventory'?"),          # a prefix
    ("timline", "did you mean 'timeline'?"),
    ("sweeep", "did you mean 'sweep'?"),
])
def test_a_mistyped_command_gets_a_suggestion(run_cli, typed, suggested):
    r = run_cli(typed, "trace.json")
    assert r.exit_code == 2
    assert r.stderr == f"bench-kernel: error: no such command {typed!r}; {suggested}\n"


def test_a_command_like_nothing_lists_the_commands(run_cli):
    r = run_cli("frobnicate")
    assert r.exit_code == 2
    assert r.stderr == f"bench-kernel: error: no such command 'frobnicate'; the commands are {', '.join(sorted(_COMMANDS))}\n"


@pytest.mark.parametrize(("shell", "marker"), [("bash", "_bench_kernel_completion()"), ("zsh", "#compdef bench-kernel"),
                                               ("fish", "function _bench_kernel_completion")])
@pytest.mark.multiprocess
def test_completion_script(run_cli, monkeypatch, shell, marker):
    # `eval "$(_BENCH_KERNEL_COMPLETE=bash_source bench-kernel)"` in ~/.bashrc, as click documents it.
    monkeypatch.setenv("_BENCH_KERNEL_COMPLETE", f"{shell}_source")
    r = run_cli()
    assert (r.exit_code, r.stderr) == (0, "")
    assert marker in r.stdout and "_BENCH_KERNEL_COMPLETE" in r.stdout


def _complete(run_cli, monkeypatch, words: str) -> list[str]:
    monkeypatch.setenv("_BENCH_KERNEL_COMPLETE", "bash_complete")
    monkeypatch.setenv("COMP_WORDS", words)
    monkeypatch.setenv("COMP_CWORD", str(len(words.split()) - (0 if words.endswith(" ") else 1)))
    r = run_cli()
    assert (r.exit_code, r.stderr) == (0, "")
    return [line.split(",", 1)[1] for line in r.stdout.splitlines()]


def test_completion_of_commands_and_options(run_cli, monkeypatch):
    assert _complete(run_cli, monkeypatch, "bench-kernel in") == ["inventory"]
    assert _complete(run_cli, monkeypatch, "bench-kernel sw") == ["sweep"]
    assert _complete(run_cli, monkeypatch, "bench-kernel inventory --to") == ["--top"]
    assert _complete(run_cli, monkeypatch, "bench-kernel run --cache ") == ["cold", "warm"]


#: What completing one command imports: click and that command's module, never torch; numpy only for
#: serve (its package, whose schema version the module names). Measured on a 2-core machine (least
#: CPU of 5 TABs): before, 0.24-0.26 s per TAB with bytecode cached and 0.83-0.85 s without (this
#: machine sets PYTHONDONTWRITEBYTECODE), as every TAB imported the report, records and results
#: packages and listing the commands imported every command's module; now 0.04-0.11 s (0.23-0.29 s
#: without a cache), serve 0.22 s (0.79 s).
#: One interpreter imports the CLI as a TAB's process does first; each completion then runs in a fork
#: of it, which holds what a fresh process holds at that point, so what one completion imports is seen
#: in its own fork alone, without an interpreter start per completion (0.15-0.2 s of CPU each).
_COMPLETION_PROBE = """
import json, os, sys, tempfile, traceback
from bench_kernel.cli import main
done = {}
for words, cword in json.loads(sys.argv[1]):
    out, err = tempfile.TemporaryFile(), tempfile.TemporaryFile()
    pid = os.fork()
    if pid == 0:
        os.dup2(out.fileno(), 1)
        os.dup2(err.fileno(), 2)
        os.environ.update(_BENCH_KERNEL_COMPLETE="bash_complete", COMP_WORDS=words, COMP_CWORD=cword)
        code = 0
        try:
            main()
            sys.stderr.write(" ".join(m for m in ("torch", "numpy", "bench_kernel.report_model", "bench_kernel.results")
                                      if m in sys.modules))
        except SystemExit as e:  # as the interpreter ends on it
            if e.code is None or isinstance(e.code, int):
                code = e.code or 0
            else:
                print(e.code, file=sys.stderr)
                code = 1
        except BaseException:
            traceback.print_exc()
            code = 1
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    status = os.waitpid(pid, 0)[1]
    out.seek(0)
    err.seek(0)
    done[words] = [os.waitstatus_to_exitcode(status), out.read().decode(), err.read().decode()]
print(json.dumps(done))
"""
_COMPLETED = ["bench-kernel ", "bench-kernel r"] + [f"bench-kernel {c} --" for c in sorted(_COMMANDS)]


@pytest.fixture(scope="module")
def completions() -> dict[str, list]:
    """words -> [exit status, stdout, stderr] of completing them, each in a fork of one interpreter."""
    import json
    import subprocess
    import sys

    words = [[w, str(len(w.split()) - (0 if w.endswith(" ") else 1))] for w in _COMPLETED]
    r = subprocess.run([sys.executable, "-c", _COMPLETION_PROBE, json.dumps(words)], capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


@pytest.mark.slow
@pytest.mark.multiprocess
@pytest.mark.parametrize("words", _COMPLETED)
def test_completion_imports_no_torch(completions, words):
    returncode, stdout, stderr = completions[words]
    assert returncode == 0 and stdout, stderr
    loaded = stderr.split()
    assert "torch" not in loaded
    command = words.split()[1] if len(words.split()) > 1 and words.endswith("--") else None
    if command not in ("serve", "compare", "report"):  # these name defaults from results or serve
        assert loaded == [], f"{words!r} imported {loaded}"


def test_every_command_loads(run_cli):
    # The registry is a table of strings: a typo there would only show when that command is typed.
    for name in _COMMANDS:
        assert cli.get_command(None, name).name == name  # type: ignore[arg-type]


def test_the_lazy_report_names_are_its_exports_and_all_resolve():
    # report/__init__ lists each name for type checkers and again for __getattr__: the two must agree
    import ast

    import bench_kernel.report as report

    tree = ast.parse(open(report.__file__, encoding="utf-8").read())
    checked = {a.name for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)
               and (node.module or "").startswith("bench_kernel.report.") for a in node.names}
    assert set(report.__all__) == set(report._EXPORTS) == checked
    assert all(getattr(report, name) is not None for name in report.__all__)


class _Exited(Exception):
    pass


def _leave(monkeypatch, *, torch_loaded, thread=None):
    """What ``_exit.leave(3)`` does: (how it ended, its status, whether atexit handlers ran)."""
    import atexit
    import sys
    import types

    from bench_kernel.cli import _exit

    ran = []
    monkeypatch.setattr(atexit, "_run_exitfuncs", lambda: ran.append(True))
    monkeypatch.setattr(_exit.os, "_exit", lambda code: (_ for _ in ()).throw(_Exited(code)))
    if torch_loaded:
        monkeypatch.setitem(sys.modules, "torch", sys.modules.get("torch") or types.ModuleType("torch"))
    else:
        monkeypatch.delitem(sys.modules, "torch", raising=False)
    try:
        _exit.leave(3)
    except SystemExit as e:
        return "sys.exit", e.code, bool(ran)
    except _Exited as e:
        return "os._exit", e.args[0], bool(ran)
    finally:
        if thread is not None:
            thread.set()


def test_the_console_leaves_without_torchs_teardown_but_runs_the_exit_handlers(monkeypatch):
    assert _leave(monkeypatch, torch_loaded=True) == ("os._exit", 3, True)
    assert _leave(monkeypatch, torch_loaded=False) == ("sys.exit", 3, False)


def test_a_thread_that_exit_would_wait_for_is_waited_for(monkeypatch):
    import threading

    stop = threading.Event()
    waiting = threading.Thread(target=stop.wait, daemon=False)
    waiting.start()
    try:
        assert _leave(monkeypatch, torch_loaded=True, thread=stop) == ("sys.exit", 3, False)
    finally:
        stop.set()
        waiting.join()


TARGET_WITH_ATEXIT = '''
import atexit, pathlib, sys
import torch
def cases():
    atexit.register(lambda: pathlib.Path(sys.argv[0]).parent.joinpath("MARK").write_text("ran"))
    return [{"fn": torch.add, "make_inputs": lambda: (torch.ones(8), torch.ones(8)), "name": "add"}]
'''


@pytest.mark.multiprocess
@pytest.mark.slow
def test_python_m_bench_kernel_keeps_its_status_and_a_targets_exit_handlers(tmp_path):
    import subprocess
    import sys

    target = tmp_path / "t.py"
    target.write_text(TARGET_WITH_ATEXIT.replace("sys.argv[0]", repr(str(target))))
    p = subprocess.run([sys.executable, "-m", "bench_kernel", "run", f"{target}:cases", "-m", "host", "--rounds", "1",
                        "--max-time", "0.01", "--json"], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr[-2000:]
    assert '"name": "add"' in p.stdout  # the whole document reached the pipe before the process ended
    assert (tmp_path / "MARK").read_text() == "ran"
    bad = subprocess.run([sys.executable, "-m", "bench_kernel", "run", f"{target}:nothing"], capture_output=True,
                         text=True, timeout=120)
    assert bad.returncode == 1 and bad.stderr.startswith("bench-kernel: error: ")
