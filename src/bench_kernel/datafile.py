"""The one reader of bench-kernel's data tables (and of users' table files), row-checked.

Every table is tab-separated text under a package's ``data/`` folder: ``#`` lines and blank lines
are comments, the first other line is the header naming the columns, and every row has exactly
that many cells. Each error names ``source:line`` and what to fix, as an :class:`InputError`, so a
typo in a table never becomes a silently wrong answer.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path
from typing import Callable

from bench_kernel.errors import InputError

__all__ = ["package_text", "read_tsv", "read_package_tsv", "user_file_text"]


def package_text(package: str, name: str) -> str:
    """The text of ``<package>/data/<name>`` (``package`` as ``bench_kernel.kernels``)."""
    # One name per joinpath: before Python 3.11 a Traversable's joinpath takes exactly one.
    return resources.files(package).joinpath("data").joinpath(name).read_text(encoding="utf-8")


def read_tsv(text: str, source: str, columns: tuple[str, ...],
             check: Callable[[dict[str, str], str], None] | None = None) -> list[dict[str, str]]:
    """Parse a TSV table whose first non-comment line is the header ``columns``.

    Cells are stripped. ``check(row, where)`` may raise for a bad value; every error names
    ``source:line``.
    """
    rows: list[dict[str, str]] = []
    header_seen = False
    for lineno, line in enumerate(text.splitlines(), start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        cells = line.rstrip("\r\n").split("\t")
        where = f"{source}:{lineno}"
        if not header_seen:
            if tuple(c.strip() for c in cells) != columns:
                raise InputError(f"{where}: header is {cells!r}; expected tab-separated columns {list(columns)}")
            header_seen = True
            continue
        if len(cells) != len(columns):
            raise InputError(f"{where}: {len(cells)} tab-separated cells, expected {len(columns)} "
                             f"({', '.join(columns)}); separate cells with one TAB")
        row = {c: v.strip() for c, v in zip(columns, cells)}
        if check is not None:
            check(row, where)
        rows.append(row)
    if not header_seen:
        raise InputError(f"{source}: no header line; expected tab-separated columns {list(columns)}")
    return rows


def read_package_tsv(package: str, name: str, columns: tuple[str, ...],
                     check: Callable[[dict[str, str], str], None] | None = None) -> list[dict[str, str]]:
    """:func:`read_tsv` over ``<package>/data/<name>``; errors name ``<package path>/data/<name>:line``."""
    source = f"{package.replace('.', '/')}/data/{name}"
    return read_tsv(package_text(package, name), source, columns, check)


def user_file_text(path: str | Path, what: str = "file") -> str:
    """Read a user's text file, turning OS errors into one clear :class:`InputError`.

    ``what`` names the file in the message (``"rules file"``, ``"steps file"``).
    """
    p = Path(path)
    try:
        return p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InputError(f"{what} {str(p)!r} does not exist") from None
    except IsADirectoryError:
        raise InputError(f"{what} {str(p)!r} is a directory, not a file") from None
    except UnicodeDecodeError as e:
        raise InputError(f"{what} {str(p)!r} is not UTF-8 text ({e.reason} at byte {e.start})") from None
    except OSError as e:
        raise InputError(f"{what} {str(p)!r} cannot be read: {e.strerror}") from None
