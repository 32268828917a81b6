"""Where the results database lives: ``--db``, then ``$BENCH_KERNEL_DB``, then the user's data dir.

The data dir follows the platform's convention, as ``platformdirs.user_data_dir`` would give it
(no dependency for three lines): ``$XDG_DATA_HOME`` or ``~/.local/share`` on Linux,
``~/Library/Application Support`` on macOS, ``%LOCALAPPDATA%`` on Windows.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

__all__ = ["DB_ENV", "default_db_path", "resolve_db_path"]

#: Environment variable that overrides the default database path.
DB_ENV = "BENCH_KERNEL_DB"
_APP = "bench-kernel"
_FILE = "results.db"


def _user_data_dir() -> Path:
    if sys.platform == "win32":
        base = os.environ.get("LOCALAPPDATA") or str(Path.home() / "AppData" / "Local")
        return Path(base) / _APP
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Application Support" / _APP
    xdg = os.environ.get("XDG_DATA_HOME")
    # XDG says a relative value is invalid and must be ignored.
    base = Path(xdg) if xdg and Path(xdg).is_absolute() else Path.home() / ".local" / "share"
    return base / _APP


def default_db_path() -> Path:
    """``$BENCH_KERNEL_DB`` if set, else ``<user data dir>/bench-kernel/results.db``."""
    env = os.environ.get(DB_ENV)
    return Path(env).expanduser() if env else _user_data_dir() / _FILE


def resolve_db_path(path: str | os.PathLike[str] | None) -> Path:
    """The database path for a ``--db`` value (None: :func:`default_db_path`)."""
    return Path(path).expanduser() if path else default_db_path()
