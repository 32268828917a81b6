"""atomic.py: the one whole-or-nothing write behind -o, the report, record_trace and the calibration cache."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from bench_kernel.atomic import replacing, write_atomic


def test_a_failure_mid_write_leaves_the_old_file_and_no_temporary(tmp_path):
    out = tmp_path / "r.html"
    out.write_text("yesterday")
    with pytest.raises(RuntimeError):
        with replacing(out) as tmp:
            tmp.write_text("half of to")
            raise RuntimeError("the disk filled up")
    assert out.read_text() == "yesterday" and [p.name for p in tmp_path.iterdir()] == ["r.html"]


def test_a_rewrite_keeps_the_mode_and_a_new_file_follows_the_umask(tmp_path):
    old = tmp_path / "old.csv"
    old.write_text("a")
    old.chmod(0o640)
    write_atomic(old, "b")
    assert old.read_text() == "b" and stat.S_IMODE(old.stat().st_mode) == 0o640
    umask = os.umask(0o022)
    try:
        write_atomic(tmp_path / "new.csv", b"x")
    finally:
        os.umask(umask)
    assert stat.S_IMODE((tmp_path / "new.csv").stat().st_mode) == 0o644


def test_a_symlink_is_written_through_not_replaced(tmp_path):
    target = tmp_path / "real.json"
    target.write_text("{}")
    link = tmp_path / "link.json"
    link.symlink_to(target)
    write_atomic(link, '{"a": 1}')
    assert link.is_symlink() and target.read_text() == '{"a": 1}'


def test_a_device_is_written_in_place():
    write_atomic("/dev/null", "anything")  # cannot be renamed over: written directly, no error
    with pytest.raises(OSError):
        write_atomic("/dev/full", "x" * 10)


def test_the_suffix_lets_a_writer_choose_its_format_by_name(tmp_path):
    out = tmp_path / "t.json.gz"
    with replacing(out, ".json.gz") as tmp:
        assert tmp.name.endswith(".json.gz") and tmp.parent == tmp_path
        tmp.write_bytes(b"\x1f\x8b")
    assert out.read_bytes() == b"\x1f\x8b"


def test_every_writer_goes_through_it():
    # The four that once had their own temporary-file code: none writes its own now.
    src = Path(__file__).resolve().parent.parent / "src" / "bench_kernel"
    for rel in ("cli/_common.py", "cli/report.py", "measure/_profiler.py", "hardware/_calibration.py"):
        text = (src / rel).read_text(encoding="utf-8")
        assert "os.replace" not in text and "token_hex" not in text, rel
    owners = [p.relative_to(src).as_posix() for p in src.rglob("*.py") if "os.replace(" in p.read_text(encoding="utf-8")]
    assert owners == ["atomic.py"]
