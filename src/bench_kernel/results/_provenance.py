"""Where a run's code came from: the spec/target file's hash, and its repository's commit.

A stored run is only as useful as the answer to "what exactly was measured?": the SHA-256 of the
file that defined it (``--resume`` refuses a run whose file changed) and the git commit of the
repository holding that file, with a dirty flag when tracked files differ from the commit or
the file itself is not tracked.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench_kernel.vcs import git, head_commit

__all__ = ["Provenance", "provenance", "file_sha256"]



@dataclass(frozen=True)
class Provenance:
    """The file a run was defined in, its content hash, and its git state (None: not in git)."""

    path: str
    sha256: str
    git_commit: str | None = None
    git_dirty: bool | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"path": self.path, "sha256": self.sha256, "git_commit": self.git_commit,
                "git_dirty": self.git_dirty}


def file_sha256(path: str | Path) -> str:
    """Hex SHA-256 of a file's bytes."""
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def provenance(path: str | Path) -> Provenance:
    """Hash ``path`` and read the commit and dirty flag of the git repository holding it."""
    p = Path(path).resolve()
    digest = file_sha256(p)
    head = head_commit(p.parent)
    if head is None:
        return Provenance(str(p), digest)
    status = git(p.parent, "status", "--porcelain", "--untracked-files=no")
    tracked = git(p.parent, "ls-files", "--error-unmatch", p.name)
    dirty = bool(status is None or status.returncode != 0 or status.stdout.strip()
                 or tracked is None or tracked.returncode != 0)
    return Provenance(str(p), digest, head, dirty)
