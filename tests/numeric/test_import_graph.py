"""The symbolic and numeric layers import one way and without circles (lazy imports count).

Walks the AST of every module of ``gdpproof/`` (imports inside functions and under
TYPE_CHECKING included), builds the graph of imports between gdpproof's own modules, and fails
on a strongly connected component that holds a module of ``gdpproof.symbolic`` or
``gdpproof.numeric``, and on any import from symbolic into numeric.  ``from . import x`` counts
as an import of the package too, as it executes the package's ``__init__``.
"""

from __future__ import annotations

import ast
from pathlib import Path

import gdpproof

ROOT = Path(gdpproof.__file__).parent


def _graph() -> dict[str, set[str]]:
    mods: dict[str, Path] = {}
    for f in ROOT.rglob("*.py"):
        rel = f.relative_to(ROOT.parent).with_suffix("")
        mods[".".join(rel.parts[:-1] if rel.name == "__init__" else rel.parts)] = f
    edges: dict[str, set[str]] = {m: set() for m in mods}
    for m, f in mods.items():
        base = m.split(".") if f.name == "__init__.py" else m.split(".")[:-1]
        for node in ast.walk(ast.parse(f.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                mod = node.module or ""
                if node.level:
                    mod = ".".join(base[: len(base) - node.level + 1] + ([mod] if mod else []))
                targets = [mod] + [f"{mod}.{a.name}" for a in node.names]
            else:
                continue
            for t in targets:
                while t and t not in mods:
                    t = t.rpartition(".")[0]
                if t and t != m:
                    edges[m].add(t)
    return edges


def _components(edges: dict[str, set[str]]) -> list[set[str]]:
    """Strongly connected components with more than one module (iterative Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[set[str]] = []
    for root in edges:
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(edges[w]))))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = set()
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.add(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    out.append(comp)
    return out


def _layered(name: str) -> bool:
    return name.startswith(("gdpproof.symbolic", "gdpproof.numeric"))


def test_no_circle_through_symbolic_or_numeric():
    circles = [sorted(c) for c in _components(_graph()) if any(_layered(m) for m in c)]
    assert not circles


def test_symbolic_never_imports_numeric():
    edges = _graph()
    upward = sorted(f"{m} -> {t}" for m, ts in edges.items() if m.startswith("gdpproof.symbolic")
                    for t in ts if t.startswith("gdpproof.numeric"))
    assert not upward


def test_mp_is_the_floor_of_numeric():
    assert not {t for t in _graph()["gdpproof.numeric._mp"] if t.startswith("gdpproof.")}


def test_the_walk_sees_lazy_imports_and_circles():
    """Imports inside functions count: the numeric package reaches evaluate only lazily."""
    assert "gdpproof.numeric.evaluate" in _graph()["gdpproof.numeric"]
    assert _components({"a": {"b"}, "b": {"a"}, "c": {"a"}}) == [{"a", "b"}]
