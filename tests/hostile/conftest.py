"""Hostile inputs shared by the tests of this folder: traces and targets whose names are markup,
ANSI escapes and other control characters (names are data, never markup)."""

from __future__ import annotations

import gzip
import json
import textwrap
from pathlib import Path
from typing import Any

import pytest

DATA = Path(__file__).resolve().parent.parent / "data" / "trace"

#: A closing tag with nothing to close (rich raised MarkupError), a style that rich would apply and
#: swallow, an ANSI colour, a tag-like prefix, a carriage return (overwrites the line), a bidi override.
CLOSE, STYLE, ANSI, RANK, CR, BIDI = "[/]", "[bold red]x[/bold red]", "\x1b[31mgemm", "[rank0]", "ok\rEVIL", "a\u202eb"
#: The fixtures' kernel and op names -> hostile ones (tests/data/make_trace_fixtures.py).
RENAME = {"rms_norm_kernel": CLOSE, "add_kernel": STYLE, "gemm_qkv_kernel": ANSI,
          "embedding_kernel": CR, "lm_head_gemm": BIDI, "aten::linear": f"{RANK}aten::linear"}
#: What each hostile name must look like on a terminal, in CSV and in Markdown: itself, controls escaped.
SHOWN = {CLOSE: "[/]", STYLE: "[bold red]x[/bold red]", ANSI: "\\x1b[31mgemm", CR: "ok\\x0dEVIL", BIDI: "a\\u202eb"}


def _rename(obj: Any) -> Any:
    if isinstance(obj, str):
        return RENAME.get(obj, obj)
    if isinstance(obj, list):
        return [_rename(x) for x in obj]
    if isinstance(obj, dict):
        return {k: _rename(v) for k, v in obj.items()}
    return obj


def _load(name: str) -> Any:
    raw = (DATA / name).read_bytes()
    return json.loads(gzip.decompress(raw) if name.endswith(".gz") else raw)


@pytest.fixture(scope="session")
def hostile_traces(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The committed fixtures with hostile kernel and op names, under hostile FILE names too."""
    folder = tmp_path_factory.mktemp("hostile")
    out = {}
    for key, src, dst in (("eager", "eager.json", "[bold red]eager.json"), ("graph", "graph.json.gz", "[rank0]graph.json.gz"),
                          ("capture", "capture.json", "capture\x1b[0m.json")):
        text = json.dumps(_rename(_load(src)))
        path = folder / dst
        path.write_bytes(gzip.compress(text.encode()) if dst.endswith(".gz") else text.encode())
        out[key] = path
    out["plain"] = DATA / "eager.json"
    return out


HOSTILE_TARGET = f'''
import torch
NAMES = {[CLOSE, STYLE, ANSI, CR]!r}
def cases():
    return [{{"name": n, "fn": torch.add, "make_inputs": lambda: (torch.ones(64), torch.ones(64)),
              "bytes": 3 * 64 * 4, "params": {{"label": n}}}} for n in NAMES]
'''


@pytest.fixture
def hostile_target(tmp_path: Path) -> Path:
    """A target whose four cases are named [/], [bold red]x[/bold red], ESC[31mgemm and ok<CR>EVIL."""
    p = tmp_path / "hostile_target.py"
    p.write_text(textwrap.dedent(HOSTILE_TARGET))
    return p
