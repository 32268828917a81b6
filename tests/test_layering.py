"""The dependency order of the packages (docs/architecture.md), checked on every import in ``src/``.

A package may import only packages of a LOWER layer, and only the names their ``__init__`` exports
(never ``bench_kernel.<pkg>._private``). Inside one package, no two modules import each other, not even
through others: the shared part moves down into a module of its own. Function-level and
relative imports count too: a lazy import is still a dependency. The one thing not counted inside a
package is an ``if TYPE_CHECKING:`` block: it holds names for annotations, never runs, and so cannot
make a module's import order matter. Run with ``-s`` to see the import graph this test checked.
"""

from __future__ import annotations

import ast
import functools
from collections import defaultdict
from pathlib import Path

SRC = Path(__file__).resolve().parent.parent / "src" / "bench_kernel"

#: Bottom-up. Modules of one layer may not import each other (except where listed in one entry).
LAYERS: list[tuple[str, ...]] = [
    ("errors",),
    ("atomic", "datafile", "units", "vcs", "options", "userregex", "plotfile", "threads"),
    ("dtypes",),
    ("records",),
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
    ("mcp_server",),
    ("__main__",),
]
RANK = {name: i for i, layer in enumerate(LAYERS) for name in layer}


def _unit(path: Path) -> str:
    """The package (or top-level module) a source file belongs to."""
    rel = path.relative_to(SRC).parts
    return rel[0] if len(rel) > 1 else rel[0].removesuffix(".py")


def _imports(path: Path, runtime_only: bool = False) -> list[tuple[int, str, tuple[str, ...]]]:
    """(line, imported module, imported names) for every bench_kernel import in ``path``, at any depth,
    relative ones made absolute; ``runtime_only`` leaves out ``if TYPE_CHECKING:`` blocks."""
    return _parsed(path.relative_to(SRC).parts, path.read_text(encoding="utf-8"))[runtime_only]


@functools.lru_cache(maxsize=None)
def _parsed(rel: tuple[str, ...], text: str) -> tuple[list, list]:
    # Keyed by the path inside the package and the text, so that the planted copies reuse the parse.
    package = ("bench_kernel",) + rel[:-1]
    every, runtime = [], []
    todo: list[tuple[ast.AST, bool]] = [(ast.parse(text), True)]
    while todo:
        node, runs = todo.pop()
        if _is_type_checking(node):
            todo += [(n, False) for n in node.body] + [(n, runs) for n in node.orelse]  # type: ignore[attr-defined]
            continue
        found = []
        if isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if node.level:
                module = ".".join(package[: len(package) - (node.level - 1)] + ((module,) if module else ()))
            if module.split(".")[0] == "bench_kernel":
                found.append((node.lineno, module, tuple(a.name for a in node.names)))
        elif isinstance(node, ast.Import):
            found = [(node.lineno, a.name, ()) for a in node.names if a.name.split(".")[0] == "bench_kernel"]
        every += found
        runtime += found if runs else []
        todo += [(n, runs) for n in ast.iter_child_nodes(node)]
    return sorted(every), sorted(runtime)


def _is_type_checking(node: ast.AST) -> bool:
    test = node.test if isinstance(node, ast.If) else None
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or \
        (isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


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


#: Imports inside one package that close a known cycle and are owned by another branch, by package,
#: importer and imported module, each with who removes it. The cycle check leaves these edges out;
#: the test fails when an entry is stale, so whoever merges the fix must delete the entry too. Empty:
#: the last one (trace/_trace -> _load) went with the loader branch's merge.
KNOWN_CYCLES: dict[tuple[str, str, str], str] = {}


def _module_graph(package: Path) -> dict[str, dict[str, int]]:
    """module -> {sibling module it imports: first line}, for the modules of one package.

    ``from bench_kernel.trace import x`` inside ``trace/`` is an import of the sibling module ``x`` when
    there is one, else of ``__init__`` (which imports most of the package).
    """
    siblings = {p.stem for p in package.glob("*.py")}
    prefix = f"bench_kernel.{package.name}"
    graph: dict[str, dict[str, int]] = {}
    for path in sorted(package.glob("*.py")):
        edges = graph.setdefault(path.stem, {})
        for line, module, names in _imports(path, runtime_only=True):
            if module == prefix:
                targets = [n if n in siblings else "__init__" for n in names] or ["__init__"]
            elif module.startswith(prefix + "."):
                targets = [module.split(".")[2]]
            else:
                continue
            for t in targets:
                if t != path.stem:
                    edges.setdefault(t, line)
    return graph


def _cycles(graph: dict[str, dict[str, int]]) -> list[tuple[list[str], list[str]]]:
    """(modules, one cycle through the first of them, that module repeated at its end) per strongly
    connected component of more than one module (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph.get(root, {}))))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, {})))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                comp = []
                while True:
                    m = stack.pop()
                    on_stack.discard(m)
                    comp.append(m)
                    if m == node:
                        break
                if len(comp) > 1:
                    components.append(sorted(comp))
    out = []
    for comp in components:  # walk inside the component from its first module back to it
        members, path, seen = set(comp), [comp[0]], {comp[0]}
        while True:
            nxt = sorted(t for t in graph[path[-1]] if t in members)
            back = [t for t in nxt if t == comp[0]]
            if back and len(path) > 1:
                out.append((comp, path + [comp[0]]))
                break
            step = next((t for t in nxt if t not in seen), None) or nxt[0]
            path.append(step)
            seen.add(step)
            if step == comp[0] or len(path) > len(members) + 1:
                out.append((comp, path if step == comp[0] else path + [comp[0]]))
                break
    return out


def _cycle_problems(known: dict[tuple[str, str, str], str]) -> list[str]:
    """One line per import cycle inside a package once ``known``'s imports are left out, and per stale
    entry of ``known`` (an import that no longer exists or no longer closes a cycle)."""
    problems = []
    for package in sorted(p for p in SRC.iterdir() if p.is_dir() and (p / "__init__.py").exists()):
        graph = _module_graph(package)
        for pkg, a, b in known:
            if pkg != package.name:
                continue
            if b not in graph.get(a, {}):
                problems.append(f"{pkg}/: KNOWN_CYCLES excuses {a} -> {b} ({known[pkg, a, b]}), an import that no "
                                f"longer exists: delete the entry")
                continue
            with_it = {m: dict(e) for m, e in graph.items()}
            graph[a] = {t: line for t, line in graph[a].items() if t != b}
            if not any(a in mods and b in mods for mods, _ in _cycles(with_it)):
                problems.append(f"{pkg}/: KNOWN_CYCLES excuses {a} -> {b} ({known[pkg, a, b]}), which closes no "
                                f"cycle any more: delete the entry")
        for modules, cycle in _cycles(graph):
            steps = " -> ".join(f"{a}.py:{graph[a][b]}" for a, b in zip(cycle, cycle[1:]))
            among = f"; modules in the knot: {', '.join(modules)}" if len(modules) > len(cycle) - 1 else ""
            problems.append(f"{package.name}/: import cycle {' -> '.join(cycle)} ({steps}){among}; move the "
                            f"shared part down into a module of its own")
    return problems


def test_no_import_cycles_inside_a_package():
    assert _cycle_problems(KNOWN_CYCLES) == []


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
    shutil.copytree(SRC, fake, ignore=shutil.ignore_patterns("data", "__pycache__"))  # the sources only
    (fake / "kernels" / "_bad.py").write_text("from bench_kernel.measure import bench\n"
                                              "from bench_kernel.trace._load import load_trace\n")
    monkeypatch.setattr(__import__(__name__), "SRC", fake)
    _, problems = _graph()
    assert any("kernels/_bad.py:1: kernels (layer 5) imports measure (layer 7)" in p for p in problems)
    assert any("kernels/_bad.py:2:" in p and "private bench_kernel.trace._load" in p for p in problems)


def test_the_checker_catches_cycles_relative_and_lazy_imports(tmp_path, monkeypatch):
    # A cycle through a relative import at module level and a relative import inside a function,
    # one through ``from bench_kernel.<pkg> import <module>``, and a relative upward import across
    # packages; the type-only import must not count.
    import shutil

    fake = tmp_path / "bench_kernel"
    shutil.copytree(SRC, fake)
    (fake / "roofline" / "_bad_a.py").write_text("from ._bad_b import thing\n")
    (fake / "roofline" / "_bad_b.py").write_text("thing = 1\n\n\ndef later():\n    from . import _bad_a\n")
    (fake / "results" / "_bad_c.py").write_text("from bench_kernel.results import _bad_d\n")
    (fake / "results" / "_bad_d.py").write_text("from typing import TYPE_CHECKING\n\n"
                                               "from bench_kernel.results._bad_c import x\n")
    (fake / "results" / "_bad_e.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
                                               "    from bench_kernel.results._bad_f import y\n")
    (fake / "results" / "_bad_f.py").write_text("from ._bad_e import z\n")
    (fake / "kernels" / "_bad_g.py").write_text("def f():\n    from ..measure import bench\n")
    monkeypatch.setattr(__import__(__name__), "SRC", fake)
    problems = _cycle_problems(KNOWN_CYCLES)
    assert ("roofline/: import cycle _bad_a -> _bad_b -> _bad_a (_bad_a.py:1 -> _bad_b.py:5); move the shared part "
            "down into a module of its own") in problems
    assert any(p.startswith("results/: import cycle _bad_c -> _bad_d -> _bad_c (_bad_c.py:1 -> _bad_d.py:3)")
               for p in problems)
    assert not any("_bad_e" in p for p in problems)  # the only way back is under TYPE_CHECKING
    assert len(problems) == 2
    # A relative import across packages is checked against the layers like an absolute one.
    _, layer_problems = _graph()
    assert any(f"kernels/_bad_g.py:2: kernels (layer {RANK['kernels']}) imports measure (layer {RANK['measure']})" in p
               for p in layer_problems)


def test_a_stale_cycle_exception_fails():
    problems = _cycle_problems({**KNOWN_CYCLES, ("kernels", "_decode", "_model"): "nobody",
                                ("kernels", "_model", "_decode"): "nobody"})
    assert problems == ["kernels/: KNOWN_CYCLES excuses _decode -> _model (nobody), which closes no cycle any more: "
                        "delete the entry",
                        "kernels/: KNOWN_CYCLES excuses _model -> _decode (nobody), an import that no longer exists: "
                        "delete the entry"]
