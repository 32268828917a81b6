"""Open every ``[name](path:line)`` / ``[name](path#Lline)`` link of Source Trace documents and check
that the line names the function (or is a decorator line right above its ``def``).

    python3 benchmarks/gpu/check_doc_links.py examples/source_trace_*.md [--json OUT.json]

A link resolves relative to the document's folder, else against ``sys.path`` (installed packages are
shown package-relative, as Kineto records them), else as an absolute path. GitHub URLs (ATen files
at a tag) are listed, not fetched: this runs without network. Exit 1 when any local link is wrong
or does not resolve.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

_LINK = re.compile(r"\[([^\]]+)\]\(([^)\s]+?)(?::(\d+)|#L(\d+))?\)")


def _resolve(link: str, doc_dir: Path) -> Path | None:
    p = Path(link)
    if p.is_absolute():
        return p if p.is_file() else None
    for base in [doc_dir, *map(Path, filter(None, sys.path))]:
        if (base / link).is_file():
            return (base / link).resolve()
    return None


def _names_function(lines: list[str], line: int, name: str) -> bool:
    text = lines[line - 1]
    if name in text:
        return True
    # Kineto records a function's first line: a decorator's, for a decorated function
    j = line - 1
    while j < len(lines) and j < line + 10 and lines[j].lstrip().startswith("@"):
        j += 1
    return j < len(lines) and re.search(rf"\bdef {re.escape(name)}\b", lines[j]) is not None


def check(doc: Path) -> dict:
    ok, bad, urls = 0, [], 0
    for name, target, colon, anchor in _LINK.findall(doc.read_text(encoding="utf-8")):
        if target.startswith("http"):
            urls += 1
            continue
        line = int(colon or anchor or 0)
        path = _resolve(target, doc.parent)
        fn = name.split(".")[-1]
        if path is None:
            bad.append({"link": f"{target}:{line}", "name": name, "why": "file not found"})
        elif fn.startswith("<"):  # <module>, <lambda>: the file is the check
            ok += 1
        elif line and not _names_function(path.read_text(errors="replace").splitlines(), line, fn):
            bad.append({"link": f"{target}:{line}", "name": name, "why": "line does not name the function",
                        "text": path.read_text(errors="replace").splitlines()[line - 1].strip()[:120]})
        else:
            ok += 1
    return {"document": str(doc), "checked": ok, "wrong": bad, "urls": urls}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("docs", nargs="+", type=Path)
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args(argv)
    results = [check(d) for d in args.docs]
    for r in results:
        print(f"{r['document']}: {r['checked']} links checked, {len(r['wrong'])} wrong, {r['urls']} URLs")
        for w in r["wrong"]:
            print(f"  WRONG {w}")
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))
    return 1 if any(r["wrong"] for r in results) or not any(r["checked"] for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())
