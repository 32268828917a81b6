"""The README and docs/ hold to what they promise a reader: a README short enough to read, links that
open, reasons instead of tracker numbers, and a table of commands that is the CLI's."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
#: Every page a reader reaches from the README.
PAGES = [README, ROOT / "benchmarks" / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
#: A tracker's number or a step of the work, where the reason itself belongs.
TRACKER_REF = re.compile(r"\b(?:issues?|sessions?) #?\d+", re.I)
#: [text](target) and ![alt](target); the target ends at the first space or ')'.
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
FENCE = re.compile(r"^```.*?^```", re.S | re.M)


def _links(page: Path) -> list[str]:
    text = FENCE.sub("", page.read_text(encoding="utf-8"))  # a code block's brackets are code, not links
    text = re.sub(r"`[^`\n]*`", "", text)
    return LINK.findall(text)


def _slug(heading: str) -> str:
    """The anchor GitHub gives a Markdown heading."""
    s = re.sub(r"[`*_]", "", heading.strip().lower())
    s = re.sub(r"[^\w\- ]", "", s)
    return s.replace(" ", "-")


def _anchors(page: Path) -> set[str]:
    text = FENCE.sub("", page.read_text(encoding="utf-8"))
    return {_slug(m) for m in re.findall(r"^#{1,6}\s+(.+?)\s*$", text, re.M)}


def test_the_readme_is_short():
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 200, f"README.md has {len(lines)} lines; the depth belongs in docs/"


def test_every_relative_link_opens_a_file_of_the_repository():
    broken = []
    for page in PAGES:
        for target in _links(page):
            if re.match(r"[a-z][a-z0-9+.-]*:", target):  # https:, mailto:
                continue
            path, _, fragment = target.partition("#")
            dest = (page.parent / path).resolve() if path else page
            where = f"{page.relative_to(ROOT)} -> {target}"
            if path.startswith("/") or not dest.is_relative_to(ROOT):
                broken.append(f"{where}: outside the repository")
            elif not dest.is_file():
                broken.append(f"{where}: no such file")
            elif fragment and dest.suffix == ".md" and fragment not in _anchors(dest):
                broken.append(f"{where}: no heading with that anchor")
    assert broken == []


def test_the_link_checker_sees_links_and_skips_code():
    # The checker must find what a reader can click, or the test above passes on nothing.
    assert "docs/pipeline.svg" in _links(README) and "docs/measurement.md" in _links(README)
    assert _slug("Reading `bench-kernel run`") == "reading-bench-kernel-run"
    assert _slug("Warming the device: once per process, again") == "warming-the-device-once-per-process-again"


#: Where no tracker number may appear (tests/, benchmarks/, tools/ and examples/ hold none either).
TRACKER_FREE = ("src",)
TEXT_SUFFIXES = {".py", ".md", ".tsv", ".txt", ".json", ".yaml", ".toml", ".sh"}


def test_no_tracker_numbers_in_the_code_or_the_docs():
    # No tracker in the repository resolves such a number: say what was observed or why, instead.
    files = [p for top in TRACKER_FREE for p in (ROOT / top).rglob("*")
             if p.is_file() and p.suffix in TEXT_SUFFIXES and "__pycache__" not in p.parts]
    hits = []
    for path in files + PAGES:
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if TRACKER_REF.search(line):
                hits.append(f"{path.relative_to(ROOT)}:{n}: {line.strip()[:100]}")
    assert hits == []


def test_the_tracker_pattern_catches_what_it_bans():
    # Spelled in pieces so that this file holds no such reference itself.
    banned = [f"({w} 24)" for w in ("issue", "Issue", "issues", "session")] + ["issue" + " #7", "Session" + " 2 ran"]
    assert all(TRACKER_REF.search(s) for s in banned)
    assert not any(TRACKER_REF.search(s) for s in ("vllm-project/vllm#39963", "github.com/NVIDIA/DCGM/issues/251",
                                                    "the profiler's first session", "gpu-tests-h200-session4.txt"))


def _table_commands() -> list[str]:
    text = README.read_text(encoding="utf-8")
    section = re.search(r"^## Commands\n(.*?)(?=^## |\Z)", text, re.S | re.M)
    assert section, "README.md needs a '## Commands' section with the table of commands"
    return re.findall(r"^\| `(?:bench-kernel )?([a-z][a-z-]*)` \|", section.group(1), re.M)


def test_the_readme_table_of_commands_is_the_clis():
    from bench_kernel.cli import cli

    table = _table_commands()
    assert len(table) == len(set(table)), "a command listed twice"
    cli_commands = set(cli.list_commands(None))
    assert sorted(set(table) - cli_commands) == [], "in the README's table, not in the CLI"
    assert sorted(cli_commands - set(table)) == [], "in the CLI, not in the README's table"


def test_the_readme_picture_is_what_its_script_draws():
    spec = importlib.util.spec_from_file_location("gen_pipeline_figure", ROOT / "tools" / "gen_pipeline_figure.py")
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    assert (ROOT / "docs" / "pipeline.svg").read_text(encoding="utf-8") == gen.svg()


def test_the_python_api_table_is_the_packages_public_names():
    import bench_kernel

    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    section = re.search(r"^## The Python API\n(.*?)(?=^## |\Z)", text, re.S | re.M)
    assert section, "docs/architecture.md needs its '## The Python API' section"
    rows = [line for line in section.group(1).splitlines() if line.startswith("| `")]
    # The last row names the report's functions, which live in their packages, not at the top.
    listed = {name for row in rows[:-1] for name in re.findall(r"`([A-Za-z_]+)`", row.split(" | ")[0])}
    listed -= {"timeline_ranks", "collective_calls"}  # named as bench_kernel.trace's, not top-level
    public = set(bench_kernel.__all__) - {"__version__"}
    assert sorted(public - listed) == [], "exported by bench_kernel, missing from docs/architecture.md"
    assert sorted(listed - public) == [], "in docs/architecture.md's table, not exported by bench_kernel"
