"""Serving runs as report inputs: a ``bench-kernel serve --json`` file or a stored serving run
(``bench-kernel serve --save``), kept as the run's own JSON (``ServeOutput.to_dict()``, every request
record included) for ``report`` to draw."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench_kernel.errors import InputError, StoreError

__all__ = ["ServeInput", "serve_file", "serve_stored", "looks_like_serve", "PLAIN_RUN"]

#: A stored run without a provider: the only form a serving run is named by.
PLAIN_RUN = re.compile(r"\d+|latest(~\d+)?")


@dataclass(frozen=True)
class ServeInput:
    """A serving run: ``data`` is ``ServeOutput.to_dict()`` (with its request records)."""

    label: str
    source: str
    data: dict[str, Any]

    @property
    def points(self) -> list[dict[str, Any]]:
        return list(self.data.get("points") or [self.data])


def looks_like_serve(head: bytes) -> bool:
    """Whether the first bytes of a (not gzipped) JSON file are ``bench-kernel serve`` output:
    serve writes ``"kind": "serve"`` first; a hand-made file may put it anywhere near the top."""
    return b'"traceEvents"' not in head and re.search(rb'"kind"\s*:\s*"serve"', head) is not None


def serve_file(path: Path) -> ServeInput:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as e:
        raise InputError(f"{str(path)!r}: a serving run that cannot be read ({e})") from None
    if not isinstance(data, dict):
        raise InputError(f"{str(path)!r}: a serving run must be a JSON object")
    return ServeInput(path.name, str(path), data)


def serve_stored(store: Any, ref: str) -> ServeInput | None:
    """The stored serving run ``ref`` names; None when it names another kind of run or none (the
    results loader then says what is wrong with it)."""
    from bench_kernel.results import serve_points

    if not PLAIN_RUN.fullmatch(ref):
        return None
    try:
        run = store.run(ref)
    except StoreError:
        return None
    if run.kind != "serve":
        return None
    data = {"kind": "serve", "status": {"done": "complete", "interrupted": "interrupted"}.get(run.status, "partial"),
            "server": run.env.get("server") or {}, "config": run.config, "sweep": run.config.get("sweep"),
            "dataset": run.config.get("dataset"), "points": serve_points(store, run)}
    return ServeInput(f"run {run.id}", f"{ref} in {store.path}", data)
