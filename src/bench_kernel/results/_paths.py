"""Where the results database lives: ``--db``, then ``$BENCH_KERNEL_DB``, then the user's data dir.

The data dir is the platform's, from ``platformdirs``: ``$XDG_DATA_HOME`` or ``~/.local/share`` on
Linux, ``~/Library/Application Support`` on macOS, ``%LOCALAPPDATA%`` on Windows.
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["DB_ENV", "default_db_path", "resolve_db_path", "store_files"]

#: Environment variable that overrides the default database path.
DB_ENV = "BENCH_KERNEL_DB"
_APP = "bench-kernel"
_FILE = "results.db"


def _user_data_dir() -> Path:
    from platformdirs import user_data_path

    return user_data_path(_APP, appauthor=False)


def default_db_path() -> Path:
    """``$BENCH_KERNEL_DB`` if set, else ``<user data dir>/bench-kernel/results.db``."""
    env = os.environ.get(DB_ENV)
    return Path(env).expanduser() if env else _user_data_dir() / _FILE


def resolve_db_path(path: str | os.PathLike[str] | None) -> Path:
    """The database path for a ``--db`` value (None: :func:`default_db_path`)."""
    return Path(path).expanduser() if path else default_db_path()


def store_files(path: str | os.PathLike[str] | None) -> list[Path]:
    """The database a ``--db`` value names and SQLite's files beside it (``-wal``, ``-shm``,
    ``-journal``): inputs that no output may overwrite."""
    db = resolve_db_path(path)
    return [db] + [db.with_name(db.name + s) for s in ("-wal", "-shm", "-journal")]
