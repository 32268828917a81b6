"""Read the tab-separated data tables of ``kernels/data/`` (and users' rule files), row-checked."""

from __future__ import annotations

from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Callable

from bench_kernel.errors import InputError

__all__ = ["read_tsv", "package_text", "dtype_map", "multiword_ops", "user_file_text"]


def package_text(name: str) -> str:
    """The text of ``kernels/data/<name>``."""
    return resources.files("bench_kernel.kernels").joinpath("data", name).read_text(encoding="utf-8")


def read_tsv(text: str, source: str, columns: tuple[str, ...],
             check: Callable[[dict[str, str], str], None] | None = None) -> list[dict[str, str]]:
    """Parse a TSV table whose first non-comment line is the header ``columns``.

    ``#`` lines and blank lines are skipped. ``check(row, where)`` may raise for a bad value;
    every error names ``source:line``.
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


@lru_cache(maxsize=1)
def dtype_map() -> dict[str, str]:
    """C++ element type -> short dtype (``c10::BFloat16`` -> ``bf16``), from ``data/dtypes.tsv``."""
    def check(row: dict[str, str], where: str) -> None:
        if not row["cxx_type"] or not row["dtype"].isidentifier():
            raise InputError(f"{where}: cxx_type {row['cxx_type']!r} / dtype {row['dtype']!r}: "
                             "both must be set and dtype must be an identifier")

    rows = read_tsv(package_text("dtypes.tsv"), "dtypes.tsv", ("cxx_type", "dtype"), check)
    return {r["cxx_type"]: r["dtype"] for r in rows}


@lru_cache(maxsize=1)
def multiword_ops() -> dict[str, tuple[str, ...]]:
    """Multi-word op names by first word, longest first (for splitting Inductor kernel names)."""
    by_first: dict[str, list[str]] = {}
    for lineno, line in enumerate(package_text("inductor_ops.txt").splitlines(), start=1):
        op = line.strip()
        if not op or op.startswith("#"):
            continue
        if not op.replace("_", "").isalnum() or "_" not in op.strip("_"):
            raise InputError(f"inductor_ops.txt:{lineno}: {op!r} is not a multi-word op name "
                             "(letters, digits and inner '_' only)")
        words = op.split("_")
        by_first.setdefault(words[0], []).append(op)
    return {k: tuple(sorted(v, key=lambda o: -o.count("_"))) for k, v in by_first.items()}


def user_file_text(path: str | Path) -> str:
    """Read a user's file, turning OS errors into one clear :class:`InputError`."""
    p = Path(path)
    try:
        return p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InputError(f"rules file {str(p)!r} does not exist; pass an existing TSV file") from None
    except IsADirectoryError:
        raise InputError(f"rules file {str(p)!r} is a directory; pass a TSV file") from None
    except UnicodeDecodeError as e:
        raise InputError(f"rules file {str(p)!r} is not UTF-8 text ({e.reason} at byte {e.start})") from None
    except OSError as e:
        raise InputError(f"rules file {str(p)!r} cannot be read: {e.strerror}") from None
