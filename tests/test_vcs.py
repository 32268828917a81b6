"""The one git reader: a commit inside a repository, None outside one (never an error)."""

from __future__ import annotations

import subprocess

from bench_kernel.vcs import head_commit


def test_head_commit_inside_and_outside_a_repository(tmp_path):
    assert head_commit(tmp_path) is None
    repo = tmp_path / "repo"
    repo.mkdir()
    for args in (["init", "-q"], ["-c", "user.email=a@b", "-c", "user.name=a", "commit", "-q", "--allow-empty", "-m", "x"]):
        subprocess.run(["git", *args], cwd=repo, check=True)
    full = subprocess.run(["git", "rev-parse", "HEAD"], cwd=repo, capture_output=True, text=True).stdout.strip()
    assert head_commit(repo) == full and len(full) == 40
    assert full.startswith(head_commit(repo, short=True)) and len(head_commit(repo, short=True)) < 40
