"""The git state of a folder: the one place bench-kernel asks git anything.

Results record the commit of the code they measured (the user's working directory for ``run``, the
spec's repository for a sweep). Git may be missing, slow or not a repository: every answer is then
None, never an error, because provenance must not fail a measurement.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

__all__ = ["git", "head_commit"]

#: A git call that takes longer than this (seconds) is given up on.
GIT_TIMEOUT_S = 5.0


def git(cwd: str | Path, *args: str) -> subprocess.CompletedProcess[str] | None:
    """``git ARGS`` run in ``cwd``; None when git cannot be run or times out."""
    try:
        return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, timeout=GIT_TIMEOUT_S)
    except (OSError, subprocess.SubprocessError):
        return None


def head_commit(cwd: str | Path, short: bool = False) -> str | None:
    """The commit checked out in the repository holding ``cwd``, or None outside one."""
    out = git(cwd, "rev-parse", *(("--short",) if short else ()), "HEAD")
    if out is None or out.returncode != 0:
        return None
    return out.stdout.strip() or None
