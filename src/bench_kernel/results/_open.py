"""Opening the results store: the file checked, created or migrated, or read without writing.

Never destructive: a path that is a directory, a file that is not SQLite, or a SQLite database
of another program is refused with one :class:`StoreError` and left as it was. A reader
(``create=False``) writes nothing: it opens the file read-only, upgrades an older schema in a copy
in memory, and reads a database that does not exist yet as an empty store.
"""

from __future__ import annotations

import os
import sqlite3
import time
from pathlib import Path

from bench_kernel.errors import StoreError
from bench_kernel.results._paths import resolve_db_path
from bench_kernel.results._schema import APP_ID, SCHEMA_VERSION, migrate
from bench_kernel.results._store import DEFAULT_TIMEOUT_S, TIMEOUT_ENV, Store

__all__ = ["open_store"]

_SQLITE_MAGIC = b"SQLite format 3\x00"


def _timeout(timeout_s: float | None) -> float:
    if timeout_s is not None:
        return timeout_s
    raw = os.environ.get(TIMEOUT_ENV)
    try:
        return float(raw) if raw else DEFAULT_TIMEOUT_S
    except ValueError:
        raise StoreError(f"{TIMEOUT_ENV}={raw!r} is not a number of seconds") from None


def _check_file(path: Path) -> None:
    if path.is_dir():
        raise StoreError(f"results database {str(path)!r} is a directory; give a file path "
                         f"with --db or BENCH_KERNEL_DB")
    if path.exists() and path.stat().st_size > 0:
        try:
            with path.open("rb") as fh:
                head = fh.read(len(_SQLITE_MAGIC))
        except OSError as e:
            raise StoreError(f"cannot read results database {str(path)!r}: {e.strerror}") from None
        if head != _SQLITE_MAGIC:
            raise StoreError(f"{str(path)!r} is not a SQLite database; bench-kernel leaves it "
                             f"untouched: give another --db")


def _open_connection(path: Path, timeout_s: float) -> sqlite3.Connection:
    try:
        conn = sqlite3.connect(str(path), timeout=timeout_s, isolation_level=None)
    except sqlite3.Error as e:
        raise StoreError(f"cannot open results database {str(path)!r}: {e}") from None
    return conn


def _open_read_only(path: Path, timeout_s: float) -> sqlite3.Connection:
    """A connection that cannot write (``mode=ro``): readers must work on a database the user may
    not write (``history`` once failed with "unable to open database file" on a read-only
    mount). A WAL database needs its ``-shm`` index, which a read-only folder cannot get: there the
    file is opened ``immutable``, safe because nothing can write beside it either (a writer needs
    its ``-wal`` file in that same folder)."""
    uri = path.resolve().as_uri()
    try:
        conn = sqlite3.connect(f"{uri}?mode=ro", uri=True, timeout=timeout_s, isolation_level=None)
        conn.execute("SELECT count(*) FROM sqlite_master").fetchone()  # opening is lazy: open it here
        return conn
    except sqlite3.OperationalError:
        if os.access(path.parent, os.W_OK):
            raise
    try:
        return sqlite3.connect(f"{uri}?mode=ro&immutable=1", uri=True, timeout=timeout_s, isolation_level=None)
    except sqlite3.Error as e:
        raise StoreError(f"cannot open results database {str(path)!r}: {e}") from None


def open_store(path: str | os.PathLike[str] | None = None, *, timeout_s: float | None = None,
               create: bool = True) -> Store:
    """Open (creating or migrating as needed) the results database at ``path``.

    path: a file; None means ``$BENCH_KERNEL_DB``, else ``<user data dir>/bench-kernel/results.db``.
    timeout_s: how long a locked database is waited for, seconds (default 10, or
        ``$BENCH_KERNEL_DB_TIMEOUT``).
    create: False for commands that only read (history, compare, report, a pytest baseline): the
        file is opened read-only (it may belong to someone else, or sit on a read-only mount), one
        of an older schema is upgraded in a copy in memory, and a database that does not exist yet
        is an empty store in memory: no file is written or left behind.
    Raises StoreError, with the reason in one line, for a directory, a file that is not SQLite,
    another program's database, a newer schema, a corrupted file or a lock held too long.
    """
    db = resolve_db_path(path)
    wait = _timeout(timeout_s)
    _check_file(db)
    if not create and not db.exists():
        conn = _open_connection(Path(":memory:"), wait)
        store = Store(conn, db, wait)  # named after the file, so messages say which database holds nothing
        _prepare(store, conn, db)
        return store
    try:
        db.parent.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise StoreError(f"cannot create the folder of results database {str(db)!r}: {e.strerror}") from None
    if not create:
        try:
            conn = _open_read_only(db, wait)
        except sqlite3.Error as e:
            raise StoreError(f"cannot open results database {str(db)!r} to read it: {e}") from None
    else:
        conn = _open_connection(db, wait)
    store = Store(conn, db, wait)
    try:
        _prepare(store, conn, db, read_only=not create)
    except BaseException:
        store.close()
        raise
    return store


def _prepare(store: Store, conn: sqlite3.Connection, db: Path, read_only: bool = False) -> None:
    try:
        # One snapshot: read one by one, the marks and the tables could straddle another process's
        # migration of a new file (no mark yet, its tables already there: "another program's").
        conn.execute("BEGIN")
        try:
            app_id = conn.execute("PRAGMA application_id").fetchone()[0]
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        finally:
            conn.execute("COMMIT")
    except sqlite3.DatabaseError as e:
        raise store.error(e, "reading its header") from None
    if app_id != APP_ID and (tables or app_id or version):
        shown = ", ".join(sorted(tables)[:6]) or "no tables"
        raise StoreError(f"{str(db)!r} is a SQLite database of another program ({shown}); bench-kernel "
                         f"leaves it untouched: give another --db")
    if version > SCHEMA_VERSION:
        raise StoreError(f"results database {str(db)!r} has schema version {version}, newer than this "
                         f"bench-kernel reads ({SCHEMA_VERSION}): upgrade bench-kernel")
    if read_only:
        if version < SCHEMA_VERSION:  # upgraded in a copy: a reader writes nothing
            memory = sqlite3.connect(":memory:", isolation_level=None)
            try:
                conn.backup(memory)
                migrate(memory, version if app_id == APP_ID else 0)
            except sqlite3.Error as e:
                memory.close()
                raise store.error(e, f"reading it (schema version {version}, upgraded in memory)") from None
            store.use_connection(memory)
        return
    try:
        # WAL: readers (history, report) never block a sweep that writes, nor the reverse.
        # FULL: a committed point survives even a power cut, not only a killed process.
        _set_wal(conn, store.timeout_s)
        conn.execute("PRAGMA synchronous = FULL")
        if version < SCHEMA_VERSION:
            migrate(conn, version if app_id == APP_ID else 0)
    except sqlite3.Error as e:
        raise store.error(e, f"upgrading its schema from version {version}") from None


def _set_wal(conn: sqlite3.Connection, timeout_s: float) -> None:
    """Put the file in WAL mode, waiting up to ``timeout_s`` for a lock another process holds.

    Switching a new file to WAL needs it alone, and SQLite answers "database is locked" at once
    there, without its busy wait: of two processes that open one new database together, the second
    failed. Retried until the first has switched it (then it is a no-op) or the time is up."""
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            conn.execute("PRAGMA journal_mode = WAL").fetchone()
            return
        except sqlite3.OperationalError as e:
            if "locked" not in str(e) or time.monotonic() >= deadline:
                raise
            time.sleep(0.01)
