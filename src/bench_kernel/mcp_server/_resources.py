"""What the MCP server offers to read: the sample trace and the documentation pages.

The pages are ``docs/*.md``. An installed wheel carries them as package data (``bench_kernel/docs``,
``pyproject.toml``'s force-include); a source checkout (an editable install) reads them from the
repository's ``docs/``.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass
from pathlib import Path

__all__ = ["Page", "docs_folder", "pages", "SAMPLE_URI", "sample_trace_file"]

#: The sample trace's description (``sample-trace --json``: its path and what it holds).
SAMPLE_URI = "bench-kernel://sample-trace"
_PACKAGE = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class Page:
    """One documentation page: its URI, name, title (its first heading) and file."""

    uri: str
    name: str
    title: str
    path: Path

    def text(self) -> str:
        return self.path.read_text(encoding="utf-8")


def docs_folder() -> Path | None:
    """Where the documentation pages are: the wheel's package data, else the checkout's ``docs/``."""
    for folder in (_PACKAGE / "docs", _PACKAGE.parent.parent / "docs"):
        if folder.is_dir() and any(folder.glob("*.md")):
            return folder
    return None


def _title(path: Path) -> str:
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("#"):
            return line.lstrip("#").strip()
    return path.stem


def pages() -> list[Page]:
    """Every page, by file name."""
    folder = docs_folder()
    if folder is None:
        return []
    return [Page(f"bench-kernel://docs/{p.name}", p.name, _title(p), p) for p in sorted(folder.glob("*.md"))]


def sample_trace_file() -> tuple[str, str]:
    """The sample trace itself: its ``file://`` URI and its bytes (gzipped JSON), base64."""
    from bench_kernel.trace import sample_trace

    path = sample_trace()
    return path.as_uri(), base64.b64encode(path.read_bytes()).decode("ascii")
