"""Every writer against device nodes, FIFOs and /dev/stdout: written as a stream, never replaced.

Before: ``profile m.py:one -o /dev/full``, run as root, renamed its temporary trace over the device
and left ``/dev/full`` a 30 KB regular file; a device node and a FIFO were replaced the same way.
Nodes are made here in the test's folder (``mknod`` needs root: tests run as root here and in CI,
and skip where it is not permitted); each must still be a device or a FIFO afterwards.
"""

from __future__ import annotations

import errno
import json
import os
import stat
import threading
from pathlib import Path

import pytest

from bench_kernel.atomic import is_stream, replacing, write_atomic

DATA = Path(__file__).resolve().parent.parent / "data" / "trace"
EAGER = DATA / "eager.json"
NULL, FULL = (1, 3), (1, 7)  # Linux's numbers for /dev/null and /dev/full
PLAIN = "def one():\n    return {'name': 'sum', 'fn': lambda: sum(range(64))}\n"


def _node(path: Path, kind: str, numbers: tuple[int, int] = NULL) -> Path:
    mode = stat.S_IFCHR if kind == "chr" else stat.S_IFBLK
    try:
        os.mknod(path, 0o666 | mode, os.makedev(*numbers))
    except PermissionError:
        pytest.skip("mknod is not permitted here (needs root)")
    return path


def _is(path: Path, kind: str) -> bool:
    test = {"chr": stat.S_ISCHR, "blk": stat.S_ISBLK, "fifo": stat.S_ISFIFO}[kind]
    return test(os.lstat(path).st_mode)


class _Reader(threading.Thread):
    """Reads a FIFO to its end, as `cat fifo` would (a writer blocks until a reader opens it)."""

    def __init__(self, path: Path) -> None:
        super().__init__(daemon=True)
        self.path, self.data = path, b""

    def run(self) -> None:
        with open(self.path, "rb") as fh:
            self.data = fh.read()


def _one_line(r, code, message):
    assert r.exit_code == code, r.stderr
    assert r.stderr == f"bench-kernel: error: {message}\n"


# --- the helper itself ---------------------------------------------------------------------------------

def test_a_character_device_is_written_in_place_not_replaced(tmp_path):
    null = _node(tmp_path / "null", "chr", NULL)
    write_atomic(null, "x" * 100_000)
    with replacing(null, ".json.gz") as tmp:
        assert tmp.parent != tmp_path and tmp.name.endswith(".json.gz")  # not beside the device
        tmp.write_bytes(b"trace")
    assert _is(null, "chr") and sorted(p.name for p in tmp_path.iterdir()) == ["null"]
    full = _node(tmp_path / "full", "chr", FULL)
    with pytest.raises(OSError) as e:
        write_atomic(full, "x")
    assert e.value.errno == errno.ENOSPC and _is(full, "chr")


def test_a_fifo_gets_the_bytes(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    reader = _Reader(fifo)
    reader.start()
    with replacing(fifo, ".json") as tmp:
        tmp.write_text('{"a": 1}')
    reader.join(30)
    assert reader.data == b'{"a": 1}' and _is(fifo, "fifo")


def test_a_block_device_a_directory_and_a_socket_are_never_written(tmp_path):
    blk = _node(tmp_path / "disk", "blk", (7, 200))  # a loop device that does not exist: harmless if opened
    for bad, what in ((blk, "a block device"), (tmp_path, "a directory")):
        with pytest.raises(OSError) as e:
            write_atomic(bad, "x")
        assert e.value.strerror.startswith(f"it is {what}; bench-kernel writes only regular files")
    assert _is(blk, "blk")


def test_what_counts_as_a_stream():
    assert is_stream("/dev/null") and is_stream("/dev/stdout") and is_stream("/proc/self/fd/1")
    assert not is_stream(__file__) and not is_stream("/nonexistent/new.json")


def test_a_file_behind_dev_stdout_is_rewritten_in_place(tmp_path):
    # `bench-kernel ... -o /dev/stdout > out.json`: renaming over out.json would leave the shell's
    # descriptor on the old, unlinked file, and the output nowhere.
    out = tmp_path / "out.json"
    with open(out, "w") as fh:
        link = Path(f"/proc/self/fd/{fh.fileno()}")
        assert is_stream(link)
        write_atomic(link, "written")
        ino = os.fstat(fh.fileno()).st_ino
    assert out.read_text() == "written" and out.stat().st_ino == ino


# --- every command that writes -------------------------------------------------------------------------

@pytest.mark.parametrize("fmt", ["--json", "--csv"])
def test_table_output_into_devices_and_a_fifo(run_cli, tmp_path, fmt):
    null, full, fifo = _node(tmp_path / "null", "chr", NULL), _node(tmp_path / "full", "chr", FULL), tmp_path / "fifo"
    os.mkfifo(fifo)
    expected = run_cli("inventory", str(EAGER), fmt).stdout
    assert run_cli("inventory", str(EAGER), fmt, "-o", str(null)).exit_code == 0
    assert run_cli("inventory", str(EAGER), fmt, "-o", "/dev/null").exit_code == 0
    _one_line(run_cli("inventory", str(EAGER), fmt, "-o", str(full)), 1,
              f"cannot write {full}: No space left on device")
    reader = _Reader(fifo)
    reader.start()
    assert run_cli("inventory", str(EAGER), fmt, "-o", str(fifo)).exit_code == 0
    reader.join(30)
    assert reader.data.decode() == expected
    assert _is(null, "chr") and _is(full, "chr") and _is(fifo, "fifo") and _is(Path("/dev/null"), "chr")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fifo", "full", "null"]  # no temporary left


def test_a_block_device_as_output_is_refused_before_any_work(run_cli, tmp_path):
    blk = _node(tmp_path / "disk", "blk", (7, 200))
    _one_line(run_cli("inventory", str(EAGER), "--json", "-o", str(blk)), 1,
              f"cannot write {blk}: it is a block device; bench-kernel writes only regular files, character "
              f"devices (/dev/null) and pipes")
    assert _is(blk, "blk")


def test_profile_into_devices_and_a_fifo(run_cli, tmp_path):
    pytest.importorskip("torch")
    target = tmp_path / "m.py"
    target.write_text(PLAIN)
    full, null, fifo = _node(tmp_path / "full", "chr", FULL), _node(tmp_path / "null", "chr", NULL), tmp_path / "fifo"
    os.mkfifo(fifo)
    _one_line(run_cli("profile", f"{target}:one", "--steps", "1", "-o", str(full)), 1,
              f"cannot write {full}: No space left on device")
    r = run_cli("profile", f"{target}:one", "--steps", "2", "--json", "-o", str(null))
    assert r.exit_code == 0, r.stderr
    assert json.loads(r.stdout)["steps"] == 2  # the summary is read from the trace before it leaves
    reader = _Reader(fifo)
    reader.start()
    r = run_cli("profile", f"{target}:one", "--steps", "3", "--json", "-o", str(fifo))
    reader.join(60)
    assert r.exit_code == 0, r.stderr
    assert json.loads(r.stdout)["path"] == str(fifo)
    names = [e["name"] for e in json.loads(reader.data)["traceEvents"] if e.get("cat") == "user_annotation"]
    assert sorted(n for n in names if n.startswith("ProfilerStep#")) == ["ProfilerStep#1", "ProfilerStep#2",
                                                                            "ProfilerStep#3"]
    assert _is(full, "chr") and _is(null, "chr") and _is(fifo, "fifo")
    assert sorted(p.name for p in tmp_path.iterdir() if p.name != "__pycache__") == ["fifo", "full", "m.py", "null"]


def test_report_plot_and_source_trace_into_device_nodes(run_cli, tmp_path):
    # A node may carry any name: x.html, p.svg, doc.md are devices here.
    html, svg, md = (_node(tmp_path / n, "chr", FULL) for n in ("x.html", "p.svg", "doc.md"))
    _one_line(run_cli("report", str(EAGER), "-o", str(html)), 1, f"cannot write {html}: No space left on device")
    moe = DATA.parent / "source_trace" / "moe_L2.json.gz"
    _one_line(run_cli("source-trace", "--trace", str(moe), "--step", "0", "-o", str(md)), 1,
              f"cannot write {md}: No space left on device")
    pytest.importorskip("matplotlib")
    r = run_cli("roofline", "--flops", "1e12", "--bytes", "1e9", "--time-us", "2000", "--device", "H200",
                "--plot", str(svg))
    assert r.exit_code == 1 and "No space left on device" in r.stderr and r.stderr.count("\n") == 1
    assert all(_is(p, "chr") for p in (html, svg, md))


def test_the_calibration_cache_never_replaces_a_node(tmp_path):
    from _hardware_helpers import make_calibration
    from bench_kernel.hardware import calibration_path, save_calibration

    cal = make_calibration()
    node = _node(calibration_path(cal.device, cal.driver, tmp_path), "chr", NULL)
    assert save_calibration(cal, tmp_path) == node and _is(node, "chr")


@pytest.mark.parametrize("dash", ["-", "/dev/stdout"])
@pytest.mark.multiprocess
@pytest.mark.slow
def test_profile_to_stdout_writes_the_trace_there_and_the_summary_to_stderr(tmp_path, dash):
    # Before: -o - made a file named '-'; -o /dev/stdout sent the trace to stderr (fd 1 points there
    # while the target runs, so that what it prints cannot mix with the output).
    import subprocess
    import sys

    pytest.importorskip("torch")
    target = tmp_path / "m.py"
    target.write_text(PLAIN.replace("def one():", "def one():\n    print('target output')"))
    r = subprocess.run([sys.executable, "-m", "bench_kernel", "profile", f"{target}:one", "--steps", "2", "-o", dash],
                       capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert r.returncode == 0, r.stderr
    steps = [e["name"] for e in json.loads(r.stdout)["traceEvents"] if e.get("name", "").startswith("ProfilerStep#")]
    assert sorted(steps) == ["ProfilerStep#1", "ProfilerStep#2"]
    from bench_kernel.cli.profile import NO_GPU_NOTE, NO_KERNELS_NOTE
    from bench_kernel.gpu import has_gpu

    empty = NO_KERNELS_NOTE if has_gpu() else NO_GPU_NOTE  # no GPU, no kernels: said there, in one line
    assert r.stderr.splitlines()[:2] == ["target output", f"stdout: 2 steps recorded: {empty}"]
    assert all(line.startswith("note: ") for line in r.stderr.splitlines()[2:])
    assert sorted(p.name for p in tmp_path.iterdir() if p.name != "__pycache__") == ["m.py"]
