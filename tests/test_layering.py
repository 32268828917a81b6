"""The dependency order of the packages (README, "Layout"), checked on every import in ``src/``.

A package may import only packages of a LOWER layer, and only the names their ``__init__`` exports
(never ``bench_kernel.<pkg>._private``). Function-level imports count too: a lazy import is still a
dependency. Run with ``-s`` to see the import graph this test checked.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

SRC = Path(__file__).resolve().parent.parent / "src" / "bench_kernel"

#: Bottom-up. Modules of one layer may not import each other (except where listed in one entry).
LAYERS: list[tuple[str, ...]] = [
    ("errors",),
    ("atomic", "datafile", "units", "vcs", "options", "userregex"),
    ("dtypes",),
    ("gpu",),
    ("kernels", "hardware"),
    ("counters",),
    ("measure", "roofline"),
    ("trace",),
    ("results",),
    ("source_trace",),
    ("orchestrate", "serve"),
    ("sweeps",),
    ("report_model",),
    ("report",),
    ("cli", "pytest_plugin"),
    ("__main__",),
]
RANK = {name: i for i, layer in enumerate(LAYERS) for name in layer}


def _unit(path: Path) -> str:
    """The package (or top-level module) a source file belongs to."""
    rel = path.relative_to(SRC).parts
    return rel[0] if len(rel) > 1 else rel[0].removesuffix(".py")


def _imports(path: Path) -> list[tuple[int, str, tuple[str, ...]]]:
    """(line, imported module, imported names) for every absolute bench_kernel import in ``path``."""
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and (node.module or "").startswith("bench_kernel"):
            out.append((node.lineno, node.module, tuple(a.name for a in node.names)))
        elif isinstance(node, ast.Import):
            out += [(node.lineno, a.name, ()) for a in node.names if a.name.startswith("bench_kernel")]
    return out


def _graph() -> tuple[dict[str, set[str]], list[str]]:
    edges: dict[str, set[str]] = defaultdict(set)
    problems = []
    for path in sorted(SRC.rglob("*.py")):
        me = _unit(path)
        if me == "__init__":  # the lazy facade of the whole package re-exports every layer
            continue
        assert me in RANK, f"{path.relative_to(SRC)}: package {me!r} is in no layer of LAYERS; add it"
        for line, module, names in _imports(path):
            parts = module.split(".")
            if len(parts) == 1:
                problems.append(f"{path.relative_to(SRC)}:{line}: imports the bench_kernel facade")
                continue
            target = parts[1]
            if target == me:
                continue
            edges[me].add(target)
            where = f"{path.relative_to(SRC)}:{line}"
            if RANK[target] >= RANK[me]:
                problems.append(f"{where}: {me} (layer {RANK[me]}) imports {target} (layer {RANK[target]})")
            private = [p for p in parts[2:] if p.startswith("_")] + [n for n in names if n.startswith("_")]
            if private:
                problems.append(f"{where}: {me} imports private {module}{'.' + private[-1] if names else ''}")
    return edges, problems


def test_every_import_follows_the_layers():
    edges, problems = _graph()
    print("\nimport graph (package -> packages it imports), bottom-up:")
    for layer in LAYERS:
        for name in layer:
            if name in edges:
                print(f"  {name:<14} -> {', '.join(sorted(edges[name], key=RANK.get))}")
    assert problems == []


def test_every_package_is_in_a_layer():
    packages = {p.name for p in SRC.iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    modules = {p.stem for p in SRC.glob("*.py")} - {"__init__"}
    missing = sorted((packages | modules) - set(RANK))
    assert missing == []


def test_the_checker_catches_an_upward_and_a_private_import(tmp_path, monkeypatch):
    # The check itself must be able to fail: plant both kinds of violation in a copy of a module.
    import shutil

    fake = tmp_path / "bench_kernel"
    shutil.copytree(SRC, fake)
    (fake / "kernels" / "_bad.py").write_text("from bench_kernel.measure import bench\n"
                                              "from bench_kernel.trace._load import load_trace\n")
    monkeypatch.setattr(__import__(__name__), "SRC", fake)
    _, problems = _graph()
    assert any("kernels/_bad.py:1: kernels (layer 4) imports measure (layer 6)" in p for p in problems)
    assert any("kernels/_bad.py:2:" in p and "private bench_kernel.trace._load" in p for p in problems)
