"""Where links point: ``path:line`` (the seed's form) or GitHub's ``#L<line>``, and the tags of
installed packages (``data/package_repos.tsv``), so a link shows the code that actually ran.
"""

from __future__ import annotations

import functools
import re
from importlib import metadata
from typing import Literal

from bench_kernel.datafile import read_package_tsv
from bench_kernel.errors import InputError, UsageError

__all__ = ["LinkStyle", "LINK_STYLES", "check_link_style", "package_url", "torch_tag", "github_blob", "frame_target"]

LinkStyle = Literal["path", "github"]
LINK_STYLES: tuple[LinkStyle, ...] = ("path", "github")
_RELEASE = re.compile(r"^\d+(\.\d+)*$")


def check_link_style(style: str) -> LinkStyle:
    """``style`` as the link style it names (the tuple's own value, so typed as one); UsageError for any other."""
    for known in LINK_STYLES:
        if style == known:
            return known
    raise UsageError(f"--link-style {style!r}: choose one of {', '.join(LINK_STYLES)}")


@functools.lru_cache(maxsize=1)
def _repos() -> dict[str, dict[str, str]]:
    def check(row: dict[str, str], where: str) -> None:
        if row["repo"].count("/") != 1 or "{version}" not in row["tag"] and row["tag"] != "main":
            raise InputError(f"{where}: repo must be owner/name and tag contain {{version}}, got {row!r}")

    rows = read_package_tsv("bench_kernel.source_trace", "package_repos.tsv",
                            ("package", "dist", "repo", "tag", "subdir"), check)
    return {r["package"]: r for r in rows}


@functools.lru_cache(maxsize=64)
def _installed_tag(package: str) -> str | None:
    """``v2.13.0`` for the installed release of ``package`` (local part dropped); None for a dev
    build (no tag holds its code) or when it is not installed."""
    row = _repos().get(package)
    if row is None:
        return None
    try:
        version = metadata.version(row["dist"]).split("+", 1)[0]
    except metadata.PackageNotFoundError:
        return None
    return row["tag"].format(version=version) if _RELEASE.match(version) else None


def torch_tag() -> str | None:
    """The tag of the installed torch release (``v2.13.0``), or None."""
    return _installed_tag("torch")


def github_blob(repo: str, ref: str, path: str, line: int | None = None) -> str:
    return f"https://github.com/{repo}/blob/{ref}/{path}" + (f"#L{line}" if line else "")


def package_url(display: str, line: int | None) -> str | None:
    """The GitHub URL of an installed package's file (``torch/nn/modules/linear.py``) at its tag."""
    top = display.split("/", 1)[0]
    row = _repos().get(top)
    tag = _installed_tag(top) if row else None
    if row is None or tag is None:
        return None
    sub = "" if row["subdir"] == "." else row["subdir"] + "/"
    return github_blob(row["repo"], tag, sub + display, line)


def frame_target(link: str, line: int | None, url: str | None, style: str) -> str:
    """What a Markdown link points at: ``link:line``, or ``url`` / ``link#Lline`` for GitHub."""
    if style == "github":
        if url:
            return url
        return f"{link}#L{line}" if line else link
    return f"{link}:{line}" if line else link
