"""Bad inputs for the Nsight Systems and rocprofv3 readers: each is one line and exit 1, never a
traceback, an empty table or a wrong number. Names from these files are data, never markup."""

from __future__ import annotations

import json
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from _sources import ROCPROF_DOCS, ROCPROF_RUN, nsys_export
from hostile.conftest import ANSI, CLOSE, SHOWN, STYLE

RUN_CSV = ROCPROF_RUN / "4242_kernel_trace.csv"


@pytest.fixture(scope="module")
def export(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return nsys_export("nsys_fuser_h200", tmp_path_factory.mktemp("nsys"))


def _one_line(r, *needles: str) -> None:
    assert r.exit_code == 1, (r.exit_code, r.stderr)
    assert r.stdout == ""
    assert r.stderr.startswith("bench-kernel: error: ") and r.stderr.count("\n") == 1, r.stderr
    assert "Traceback" not in r.stderr
    for n in needles:
        assert n in r.stderr, (n, r.stderr)


def _sqlite(path: Path, sql: str) -> Path:
    con = sqlite3.connect(path)
    con.executescript(sql)
    con.close()
    return path


# -- SQLite ---------------------------------------------------------------------------------------

def test_an_sqlite_file_that_is_not_an_export(run_cli, tmp_path):
    db = _sqlite(tmp_path / "results.sqlite", "CREATE TABLE runs (id INTEGER); CREATE TABLE points (x TEXT);")
    _one_line(run_cli("inventory", str(db)), "an SQLite database but not an Nsight Systems export",
              "its tables: points, runs", "nsys export --type sqlite")


def test_the_results_store_is_not_a_trace(run_cli, tmp_path):
    from bench_kernel.results import open_store

    store = open_store(tmp_path / "store.db")
    store.close()
    _one_line(run_cli("timeline", str(tmp_path / "store.db")), "not an Nsight Systems export")


def test_a_rocpd_database_says_how_to_convert_it(run_cli, tmp_path):
    db = _sqlite(tmp_path / "results.db", "CREATE TABLE rocpd_kernel_dispatch (id INTEGER); "
                                          "CREATE TABLE rocpd_info_node (id INTEGER);")
    _one_line(run_cli("inventory", str(db)), "a rocprofv3 database (rocpd)", "rocpd convert -f csv")


def test_a_truncated_export(run_cli, export, tmp_path):
    data = export.read_bytes()
    cut = tmp_path / "cut.sqlite"
    cut.write_bytes(data[: len(data) // 2])
    _one_line(run_cli("inventory", str(cut)), "the SQLite file is truncated", f"{len(data) // 2:,} of the")
    tiny = tmp_path / "tiny.sqlite"
    tiny.write_bytes(data[:40])
    _one_line(run_cli("layers", str(tiny)), "a truncated SQLite file (40 bytes")


def test_a_damaged_export(run_cli, export, tmp_path):
    data = bytearray(export.read_bytes())
    page = int.from_bytes(data[16:18], "big")
    data[page:] = b"\xa5" * (len(data) - page)  # every page after the first overwritten
    bad = tmp_path / "damaged.sqlite"
    bad.write_bytes(bytes(data))
    _one_line(run_cli("timeline", str(bad)), "the SQLite file is damaged or truncated")


def test_an_export_without_a_column_the_reader_needs(run_cli, tmp_path):
    db = _sqlite(tmp_path / "old.sqlite", "CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT); "
                 "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER, end INTEGER, deviceId INTEGER, "
                 "streamId INTEGER, correlationId INTEGER); INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (1, 2, 0, 7, 1);")
    _one_line(run_cli("inventory", str(db)), "table CUPTI_ACTIVITY_KIND_KERNEL", "has no column demangledName")


def test_an_export_without_device_work(run_cli, export, tmp_path):
    empty = tmp_path / "empty.sqlite"
    shutil.copy(export, empty)
    con = sqlite3.connect(empty)
    for t in ("CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY", "CUPTI_ACTIVITY_KIND_MEMSET"):
        con.execute(f"DELETE FROM {t}")
    con.commit()
    con.close()
    _one_line(run_cli("inventory", str(empty)), "holds no kernels or memory operations", "nsys profile --trace=cuda")


def test_a_report_not_exported_and_rocprofv3_binary_outputs(run_cli, tmp_path):
    for name, needle in (("run.nsys-rep", "nsys export --type sqlite run.nsys-rep"),
                         ("run.qdrep", "export it first"),
                         ("results.pftrace", "a Perfetto trace"), ("results.otf2", "an OTF2 trace")):
        p = tmp_path / name
        p.write_bytes(b"\x00\x01binary")
        _one_line(run_cli("inventory", str(p)), needle, "--output-format csv" if "trace" in needle else "")


@pytest.mark.multiprocess
def test_an_export_through_a_pipe_is_refused_not_misread(export):
    # A pipe is read forward once by the Kineto reader (a database needs random access): one line.
    r = subprocess.run([sys.executable, "-m", "bench_kernel", "inventory", "/dev/stdin"], input=export.read_bytes(),
                       capture_output=True)
    err = r.stderr.decode()
    assert r.returncode == 1 and r.stdout == b"" and err.count("\n") == 1 and "SQLite format 3" in err, err


def test_hostile_kernel_and_range_names_are_data(run_cli, export, tmp_path):
    hostile = tmp_path / "hostile.sqlite"
    shutil.copy(export, hostile)
    con = sqlite3.connect(hostile)
    ids = [i for i, in con.execute("SELECT DISTINCT demangledName FROM CUPTI_ACTIVITY_KIND_KERNEL ORDER BY 1")]
    for i, name in zip(ids, (CLOSE, STYLE, ANSI)):
        con.execute("UPDATE StringIds SET value = ? WHERE id = ?", (name, i))
    con.commit()
    con.close()
    r = run_cli("inventory", str(hostile))
    assert r.exit_code == 0, r.stderr
    for name in (CLOSE, STYLE, ANSI):
        assert SHOWN[name] in r.stdout
    assert "\x1b[31m" not in r.stdout


# -- rocprofv3 CSV --------------------------------------------------------------------------------

def test_a_kernel_trace_without_a_column(run_cli, tmp_path):
    lines = ROCPROF_DOCS[0].read_text().splitlines()
    header = lines[0].split(",")
    drop = header.index('"End_Timestamp"')
    rows = [",".join(c for k, c in enumerate(line.split(",")) if k != drop) for line in lines]
    bad = tmp_path / "1_kernel_trace.csv"
    bad.write_text("\n".join(rows) + "\n")
    _one_line(run_cli("inventory", str(bad)), "rocprofv3 kernel trace has no column End_Timestamp")


def test_a_truncated_kernel_trace(run_cli, tmp_path):
    text = ROCPROF_DOCS[0].read_text()
    cut = tmp_path / "2_kernel_trace.csv"
    cut.write_text(text[: text.rindex(",1550151853")])  # the last row cut before its End_Timestamp
    _one_line(run_cli("inventory", str(cut)), "line 10 has 10 of the header's 22 fields", "truncated or damaged")


def test_a_timestamp_that_is_not_a_number(run_cli, tmp_path):
    text = ROCPROF_DOCS[1].read_text().replace(",8819330200067564,", ",8819330200067x64,")
    bad = tmp_path / "3_kernel_trace.csv"
    bad.write_text(text)
    _one_line(run_cli("inventory", str(bad)), "line 2: Start_Timestamp '8819330200067x64' is not an integer")


def test_a_kernel_trace_with_only_its_header(run_cli, tmp_path):
    header = tmp_path / "6_kernel_trace.csv"
    header.write_text(ROCPROF_DOCS[0].read_text().splitlines()[0] + "\n")
    _one_line(run_cli("inventory", str(header)), "holds no dispatches (only its header)")


def test_an_empty_or_foreign_csv(run_cli, tmp_path):
    foreign = tmp_path / "other.csv"
    foreign.write_text("Kind,Start_Timestamp,Value\nA,1,2\n")
    _one_line(run_cli("inventory", str(foreign)), "a CSV that is not a rocprofv3 kernel trace",
              "no column Kernel_Name, End_Timestamp")


def test_a_sibling_trace_passed_instead_of_the_kernel_trace(run_cli):
    for name, what in (("4242_hip_api_trace.csv", "HIP API trace"), ("4242_memory_copy_trace.csv", "memory copy"),
                       ("4242_marker_api_trace.csv", "ROCTx marker trace")):
        _one_line(run_cli("timeline", str(ROCPROF_RUN / name)), what, "pass the kernel_trace.csv beside it")


def test_a_damaged_sibling_is_named(run_cli, tmp_path):
    for p in ROCPROF_RUN.glob("4242_*.csv"):
        shutil.copy(p, tmp_path / p.name)
    api = tmp_path / "4242_hip_api_trace.csv"
    api.write_text(api.read_text()[:-20])
    _one_line(run_cli("timeline", str(tmp_path / "4242_kernel_trace.csv")), "4242_hip_api_trace.csv: line",
              "truncated or damaged")


# -- rocprofv3 JSON -------------------------------------------------------------------------------

def test_a_truncated_json(run_cli, tmp_path):
    data = (ROCPROF_RUN / "4242_results.json").read_bytes()
    cut = tmp_path / "results.json"
    cut.write_bytes(data[: len(data) * 2 // 3])
    _one_line(run_cli("inventory", str(cut)), "this rocprofv3 JSON is truncated")


def test_a_json_of_the_wrong_shape(run_cli, tmp_path):
    doc = json.loads((ROCPROF_RUN / "4242_results.json").read_text())
    doc["rocprofiler-sdk-tool"][0]["buffer_records"]["kernel_dispatch"][0]["start_timestamp"] = "soon"
    bad = tmp_path / "results.json"
    bad.write_text(json.dumps(doc))
    _one_line(run_cli("inventory", str(bad)), "not the JSON rocprofv3 writes", "start_timestamp")
    (tmp_path / "empty.json").write_text('{"rocprofiler-sdk-tool": {}}')
    _one_line(run_cli("inventory", str(tmp_path / "empty.json")), "not the JSON rocprofv3 writes")
    (tmp_path / "none.json").write_text('{"rocprofiler-sdk-tool": []}')
    _one_line(run_cli("inventory", str(tmp_path / "none.json")), "holds no kernel dispatches")

