"""Write what the records generate: each command's JSON Schema (``src/bench_kernel/records/schemas/``,
published with the package) and its section of ``docs/json.md``.

    python tools/gen_json_docs.py           # write them
    python tools/gen_json_docs.py --check   # exit 1 if a committed file differs (tests/test_json_schema.py)

Every command's section is generated from its record (``bench_kernel.records.DOCUMENTS``); the
page's head, above the first section, is kept as it is.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from bench_kernel.records import DOCUMENTS, markdown_sections, schema  # noqa: E402

DOC = ROOT / "docs" / "json.md"
SCHEMAS = ROOT / "src" / "bench_kernel" / "records" / "schemas"
_SECTION = re.compile(r"^## `(?P<name>[a-z-]+)`\s*$", re.M)


def page(text: str) -> str:
    """``text`` (docs/json.md) with every generated section made anew, in the order of the page."""
    starts = [(m.start(), m["name"]) for m in _SECTION.finditer(text)]
    head = text[: starts[0][0]] if starts else text
    bodies = {name: text[pos: starts[i + 1][0] if i + 1 < len(starts) else len(text)]
              for i, (pos, name) in enumerate(starts)}
    order = [name for _, name in starts] + [c for c in DOCUMENTS if c not in bodies]
    made = markdown_sections([c for c in order if c in DOCUMENTS])
    out = [head]
    for name in order:
        if name in made:
            out.append(f"{made[name]}\n")
        else:
            out.append(bodies[name])
    return "".join(out).rstrip() + "\n"


def files() -> dict[Path, str]:
    """Every generated file and its text."""
    out = {DOC: page(DOC.read_text(encoding="utf-8"))}
    for command in DOCUMENTS:
        out[SCHEMAS / f"{command}.json"] = json.dumps(schema(command), indent=2, ensure_ascii=False) + "\n"
    return out


def main(argv: list[str]) -> int:
    check = "--check" in argv
    stale = []
    for path, text in files().items():
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            stale.append(path)
            if not check:
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(text, encoding="utf-8")
    for path in stale:
        shown = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
        print(f"{'stale' if check else 'wrote'}: {shown}")
    return 1 if check and stale else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
