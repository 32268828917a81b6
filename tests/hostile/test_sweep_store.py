"""Hostile input to sweep, compare, history and the results store: one line, the right exit
status, and nothing stored (or on disk) destroyed."""

from __future__ import annotations

import json
import sqlite3
import sys

import pytest

from _sweep_helpers import write_spec
from bench_kernel.results import open_store

FAST = ["-m", "host", "--precision", "0.5", "--max-time", "0.02", "--rounds", "1"]


@pytest.fixture
def spec(tmp_path):
    return write_spec(tmp_path)


def _one_line(r, code, message):
    assert r.exit_code == code, r.stderr
    assert r.stderr == f"bench-kernel: error: {message}\n"


def test_spec_that_fails_to_import(tmp_path, run_cli):
    bad = write_spec(tmp_path, "import math\nx = 1 / 0\n")
    _one_line(run_cli("sweep", str(bad)), 1, f"importing {str(bad)!r} raised ZeroDivisionError: division by zero")


def test_spec_missing_or_without_the_name(tmp_path, spec, run_cli):
    # A sweep's SPEC is called a spec: it once read "target file 'nope.py' does not exist"
    _one_line(run_cli("sweep", str(tmp_path / "nope.py")), 1, f"spec file {str(tmp_path / 'nope.py')!r} does not exist")
    r = run_cli("sweep", f"{spec}:gemm")
    _one_line(r, 1, f"spec {spec} has no attribute 'gemm'; callables there: add, bigger, broken_axis, picky, sweep, wrong")
    nospec = tmp_path / "nospec.py"
    nospec.write_text("x = 1\n")
    _one_line(run_cli("sweep", str(nospec)), 1, f"spec {nospec} has no attribute 'sweep'")


def test_empty_axis(spec, run_cli):
    _one_line(run_cli("sweep", f"{spec}:broken_axis"), 1,
              "sweep 'broken_axis': axis 'M' is empty: give it at least one value")


def test_axis_value_that_is_not_a_scalar(tmp_path, run_cli):
    bad = write_spec(tmp_path, "import torch\ndef sweep():\n    return {'axes': {'dtype': [torch.bfloat16]},"
                               " 'providers': {'a': lambda p: (lambda: 1)}}\n")
    _one_line(run_cli("sweep", str(bad)), 1, "sweep 'sweep': axis 'dtype' value torch.bfloat16 is a dtype; axis "
                                             "values must be str, int, float or bool (map names to objects in the provider)")


def test_provider_not_in_the_spec(spec, run_cli):
    _one_line(run_cli("sweep", str(spec), "--provider", "nope", *FAST), 2,
              "provider 'nope' is not in sweep 'sweep'; its providers: add, wrong, picky")


def test_resume_of_a_missing_run(spec, tmp_path, run_cli):
    db = tmp_path / "r.db"
    _one_line(run_cli("sweep", str(spec), "--db", str(db), "--resume", "99"), 1,
              f"no run 99 in {str(db)!r} (it holds no runs; see 'bench-kernel history')")


def test_resume_of_another_specs_run(spec, tmp_path, run_cli):
    db = tmp_path / "r.db"
    assert run_cli("sweep", str(spec), "--db", str(db), "--provider", "add", *FAST).exit_code == 0
    other = tmp_path / "b" / "spec.py"
    other.parent.mkdir()
    other.write_text(spec.read_text().replace("kind", "variant"))
    with open_store(db) as store:
        old = store.run(1).source_hash
    from bench_kernel.results import file_sha256

    r = run_cli("sweep", str(other), "--db", str(db), "--resume", "1")
    _one_line(r, 1, f"run 1 was made from a spec with sha256 {old[:12]}; {other}:sweep has sha256 "
                    f"{file_sha256(other)[:12]}: its points would not be comparable, start a new run")
    with open_store(db) as store:
        assert store.run(1).n_points == 3 and store.run(1).status == "done"  # untouched


def test_db_that_is_a_directory(spec, tmp_path, run_cli):
    _one_line(run_cli("sweep", str(spec), "--db", str(tmp_path), *FAST), 1,
              f"results database {str(tmp_path)!r} is a directory; give a file path with --db or BENCH_KERNEL_DB")


@pytest.mark.parametrize("kind", ["text", "foreign"])
def test_db_that_is_not_ours_is_never_touched(spec, tmp_path, run_cli, kind):
    db = tmp_path / "precious.db"
    if kind == "text":
        db.write_text("my notes\n" * 100)
        message = f"{str(db)!r} is not a SQLite database; bench-kernel leaves it untouched: give another --db"
    else:
        with sqlite3.connect(db) as c:
            c.execute("CREATE TABLE orders (id INTEGER)")
            c.execute("INSERT INTO orders VALUES (1)")
        message = (f"{str(db)!r} is a SQLite database of another program (orders); bench-kernel leaves it "
                   f"untouched: give another --db")
    before = db.read_bytes()
    _one_line(run_cli("sweep", str(spec), "--db", str(db), *FAST), 1, message)
    _one_line(run_cli("history", "--db", str(db)), 1, message)
    _one_line(run_cli("run", "--save", "--db", str(db), *FAST), 1, message)
    assert db.read_bytes() == before


def test_locked_db_waits_then_one_line(spec, tmp_path, run_cli, monkeypatch):
    db = tmp_path / "r.db"
    open_store(db).close()
    monkeypatch.setenv("BENCH_KERNEL_DB_TIMEOUT", "0.2")
    holder = sqlite3.connect(db, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    try:
        r = run_cli("sweep", str(spec), "--db", str(db), *FAST)
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    _one_line(r, 1, f"results database {str(db)!r} is locked by another process (waited 0.2 s while starting a "
                    f"run); retry when it is done, or set BENCH_KERNEL_DB_TIMEOUT")


@pytest.mark.slow
@pytest.mark.multiprocess
def test_a_worker_that_dies(spec, tmp_path, run_cli, monkeypatch):
    db = tmp_path / "r.db"
    monkeypatch.setenv("SWEEP_TEST_DIE_AT", "2:exit")
    r = run_cli("sweep", str(spec), "--db", str(db), "--workers", "1", *FAST, "--json")
    _one_line(r, 1, "1 point(s) failed or gave a wrong result (wrong M=2 kind=a: error); the reasons are in the "
                    "table notes and in run 1")
    dead = next(p for p in json.loads(r.stdout)["points"] if p["status"] == "error")
    assert dead["error"] == "worker host:0 died (exit code 3) while running this point; its last output: provider crashed hard"
    with open_store(db) as store:
        assert store.run(1).n_points == 9  # everything else measured and stored


def test_ctrl_c_keeps_what_was_measured(spec, tmp_path, run_cli, monkeypatch):
    db = tmp_path / "r.db"
    monkeypatch.setenv("SWEEP_TEST_STOP_AT", "3")
    _one_line(run_cli("sweep", str(spec), "--db", str(db), *FAST), 130,
              "interrupted after 7 of 9 points; they are stored in run 1: finish it with --resume 1")


@pytest.mark.parametrize("args,code,message", [
    (["--plot", "p.pdf", "--x", "M"], 2, "--plot 'p.pdf' must end in .png or .svg (got '.pdf')"),
    (["--plot", "p.png"], 2, "--plot FILE and --x AXIS go together"),
    (["--plot", "p.png", "--x", "Q"], 2, "--x 'Q' is not an axis of {spec}:sweep; its axes: M, kind"),
    (["--workers", "0"], 2, "--workers must be >= 1, got 0"),
    (["--workers", "2", "--gpus", "0"], 2, "choose one of --workers, --gpus and --backend ray"),
    (["--workers", "2", "-m", "graph"], 2, "--workers runs host processes with the host method; use --gpus for GPU methods"),
    (["--address", "x:1"], 2, "--address is for --backend ray"),
])
def test_bad_sweep_options(spec, tmp_path, run_cli, args, code, message):
    _one_line(run_cli("sweep", str(spec), "--db", str(tmp_path / "r.db"), *args), code, message.format(spec=spec))


def test_gpus_without_a_gpu_is_the_machine_not_the_command_line(spec, tmp_path, run_cli):
    # Every "needs a GPU" exits 1 (DeviceError): the same command line is right on a GPU machine.
    # It is said before the spec is imported, and after what is wrong on any machine (exit 2).
    from bench_kernel.gpu import has_gpu

    if has_gpu():
        pytest.skip("the no-GPU message")
    _one_line(run_cli("sweep", str(tmp_path / "not_imported.py"), "--gpus", "0"), 1,
              "--gpus 0: no CUDA/HIP GPU is visible here; use --workers N for host workers")


def test_ray_backend_without_ray(spec, tmp_path, run_cli, monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)  # as if the [ray] extra were not installed
    _one_line(run_cli("sweep", str(spec), "--db", str(tmp_path / "r.db"), "--backend", "ray", *FAST), 1,
              "--backend ray needs Ray: pip install 'bench-kernel[ray]'")


def test_output_file_survives_a_failed_sweep(tmp_path, run_cli):
    out = tmp_path / "keep.json"
    out.write_text('{"keep": true}')
    bad = write_spec(tmp_path, "x = 1 / 0\n")
    assert run_cli("sweep", str(bad), "-o", str(out)).exit_code == 1
    assert out.read_text() == '{"keep": true}'


def test_compare_bad_references(tmp_path, run_cli, spec):
    db = tmp_path / "r.db"
    _one_line(run_cli("compare", "foo", "latest", "--db", str(db)), 1,
              "'foo' is neither a results file nor a stored run (an id, 'latest' or 'latest~N', optionally "
              "followed by ':PROVIDER')")
    _one_line(run_cli("compare", "1", "2", "--db", str(db)), 1,
              f"no run 1 in {str(db)!r} (it holds no runs; see 'bench-kernel history')")
    junk = tmp_path / "junk.json"
    junk.write_text('{"hello": 1}')
    _one_line(run_cli("compare", str(junk), str(junk)), 1,
              f"{str(junk)!r} is not a bench-kernel results file (no 'results' or 'points' list); expected the "
              f"--json output of 'bench-kernel run' or 'bench-kernel sweep'")
    assert run_cli("sweep", str(spec), "--db", str(db), "--provider", "add", *FAST).exit_code == 0
    _one_line(run_cli("compare", "1:add", "1", "--db", str(db)), 2,
              "give a provider on both sides (12:torch 12:triton) or on neither")
    _one_line(run_cli("compare", "1:add", "1:zzz", "--db", str(db)), 2,
              "provider 'zzz' is not in run 1; its providers: add")
    _one_line(run_cli("compare", "1", "1", "--db", str(db), "--threshold", "5"), 2,
              "--threshold must be a fraction in [0, 1) (0.04 = 4%), got 5.0")


def test_compare_strict_clocks_takes_no_value(tmp_path, run_cli):
    _one_line(run_cli("compare", "1", "2", "--db", str(tmp_path / "r.db"), "--strict-clocks=yes"), 2,
              "Option '--strict-clocks' does not take a value.")


@pytest.mark.parametrize("clocks,shown", [
    ('"fast"', "Expected `array`, got `str` - at `$.measurements[...].sm_clock_mhz`"),
    ("[1980, -1515]", "Expected `float` >= 0.0 - at `$.measurements[...].sm_clock_mhz[1]`"),
    ('[1980, "1515"]', "Expected `float | null`, got `str` - at `$.measurements[...].sm_clock_mhz[1]`"),
    ("[1980, Infinity]", "Expected `float` <= 100000.0 - at `$.measurements[...].sm_clock_mhz[1]`"),
    ("[1980, true]", "Expected `float | null`, got `bool` - at `$.measurements[...].sm_clock_mhz[1]`"),
])
def test_compare_results_file_with_clocks_that_are_not_clocks(tmp_path, run_cli, clocks, shown):
    # A clock that is not one would make a verdict 'clock-limited' on a wrong number: refused.
    from _results_helpers import clocked_point

    result = clocked_point("k", {"M": 1}, 10.0, 1980, seed=0, n=6).result.to_dict()
    result["measurements"]["graph"]["sm_clock_mhz"] = "CLOCKS"
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"results": [result]}).replace('"CLOCKS"', clocks))  # raw JSON: Infinity too
    for flags in ((), ("--strict-clocks",)):
        _one_line(run_cli("compare", str(bad), str(bad), *flags), 1,
                  f"{str(bad)!r} is not a bench-kernel results file (ValidationError: {shown}); expected the --json "
                  f"output of 'bench-kernel run' or 'bench-kernel sweep'")


@pytest.mark.parametrize("args,message", [
    (["--name", "x", "--where", "M"], "--where 'M': expected AXIS=VALUE, e.g. M=1024"),
    (["--plot", "h.png"], "--where and --plot need --name PATTERN"),
    (["--limit", "0"], "--limit must be >= 1, got 0"),
    (["--name", "x", "--plot", "h.pdf"], "--plot 'h.pdf' must end in .png or .svg (got '.pdf')"),
])
def test_bad_history_options(tmp_path, run_cli, args, message):
    _one_line(run_cli("history", "--db", str(tmp_path / "r.db"), *args), 2, message)


def test_run_db_without_save(run_cli, tmp_path):
    _one_line(run_cli("run", "--db", str(tmp_path / "r.db")), 2, "--db is where --save stores the run: add --save")


@pytest.mark.parametrize("args", [("history",), ("compare", "1", "2"), ("report", "1", "-o", "{tmp}/r.html")])
def test_reading_commands_leave_no_database_behind(run_cli, tmp_path, args):
    # history/compare/report on a database that does not exist yet used to create an empty one
    db = tmp_path / "never.db"
    r = run_cli(*[a.format(tmp=tmp_path) for a in args], "--db", str(db))
    assert not db.exists()
    if args[0] == "history":
        assert r.exit_code == 0
    else:
        assert r.exit_code == 1 and r.stderr == (f"bench-kernel: error: no run 1 in {str(db)!r} (it holds no runs; "
                                                 "see 'bench-kernel history')\n")


# --- readers never write -------------------------------------------------------------------------------
# Before: history could not read a database its user may not write ("unable to open database file"
# on a read-only mount), and a reader upgraded an older file in place.

def test_a_reader_upgrades_an_older_file_in_memory_not_on_disk(tmp_path, run_cli):
    from _results_helpers import result, v1_database

    db = tmp_path / "old.db"
    v1_database(db, result("torch", {"M": 16}, [10.0, 11.0, 12.0, 13.0, 14.0]))
    before = db.read_bytes()
    r = run_cli("history", "--db", str(db), "--name", "torch", "--json")
    assert r.exit_code == 0, r.stderr
    points = json.loads(r.stdout)["points"]
    assert [p["point"]["result"]["measurements"]["host"]["median_us"] for p in points] == [12.0]
    assert db.read_bytes() == before and sorted(p.name for p in tmp_path.iterdir()) == ["old.db"]
    with sqlite3.connect(db) as c:
        assert c.execute("PRAGMA user_version").fetchone()[0] == 1


@pytest.mark.multiprocess
@pytest.mark.slow
def test_readers_work_on_a_read_only_mount(spec, tmp_path, run_cli):
    # A bind mount remounted read-only in a mount namespace of its own: even root cannot write there.
    import shutil
    import subprocess

    if shutil.which("unshare") is None or subprocess.run(["unshare", "-m", "true"]).returncode != 0:
        pytest.skip("needs unshare -m (root, or a user namespace)")
    folder = tmp_path / "ro"
    folder.mkdir()
    db = folder / "r.db"
    for _ in range(2):
        assert run_cli("sweep", str(spec), "--db", str(db), *FAST, "--provider", "add").exit_code == 0
    before = sorted(p.name for p in folder.iterdir())
    assert before == ["r.db"]  # as a finished writer leaves it: WAL mode, no -wal or -shm file beside it
    bk = f"{sys.executable} -m bench_kernel"
    script = (f"mount --bind {folder} {folder} && mount -o remount,bind,ro {folder} && "
              f"{{ touch {folder}/probe 2>/dev/null && exit 9; "
              f"{bk} history --db {db} --json && {bk} compare 1 1 --db {db} --json > /dev/null && "
              f"{bk} report 1 2 --db {db} -o {tmp_path}/r.html; }}")
    r = subprocess.run(["unshare", "-m", "sh", "-c", script], capture_output=True, text=True, timeout=300)
    if r.returncode == 32 or "mount:" in r.stderr:
        pytest.skip(f"cannot remount read-only here: {r.stderr.strip()[:200]}")
    assert r.returncode == 0, r.stderr  # 9: the mount was writable, the test proves nothing
    assert [run["id"] for run in json.loads(r.stdout.split("\n}\n")[0] + "\n}")["runs"]] == [2, 1]
    assert (tmp_path / "r.html").stat().st_size > 0
    assert sorted(p.name for p in folder.iterdir()) == before
