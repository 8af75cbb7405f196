"""The integrations import their peer libraries lazily: ``import gdpproof`` (and importing an
adapter module) never imports torch or Opacus.  Read from the source, like the import graph test:
every import of opacus or torch in ``gdpproof/`` sits inside a function body."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "gdpproof"
HEAVY = ("opacus", "torch")


def _heavy(node: ast.AST) -> list[str]:
    if isinstance(node, ast.Import):
        names = [a.name for a in node.names]
    elif isinstance(node, ast.ImportFrom) and not node.level:
        names = [node.module or ""]
    else:
        return []
    return [n for n in names if n.split(".")[0] in HEAVY]


def _top_level_heavy_imports(path: Path) -> list[str]:
    """Imports of torch/opacus that run when the module is imported (outside any function)."""
    found = []

    def visit(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                continue
            found.extend(f"{path.name}:{child.lineno} {n}" for n in _heavy(child))
            visit(child)

    visit(ast.parse(path.read_text(encoding="utf-8")))
    return found


def test_no_module_imports_torch_or_opacus_at_import_time():
    offenders = [hit for path in sorted(PACKAGE.rglob("*.py")) for hit in _top_level_heavy_imports(path)]
    assert offenders == []


def test_the_check_sees_a_top_level_import(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("import torch\nif True:\n    from opacus.accountants import IAccountant\n"
                   "def f():\n    import opacus\n")
    assert _top_level_heavy_imports(bad) == ["bad.py:1 torch", "bad.py:3 opacus.accountants"]


def test_without_opacus_the_class_look_up_names_the_extra(monkeypatch):
    import gdpproof.integrations.opacus as adapter

    monkeypatch.setitem(sys.modules, "opacus.accountants.accountant", None)
    monkeypatch.delitem(adapter.__dict__, "GdpproofAccountant", raising=False)
    with pytest.raises(ImportError, match=r"pip install 'gdpproof\[opacus\]'"):
        adapter.GdpproofAccountant  # noqa: B018
    with pytest.raises(AttributeError, match="no attribute 'Accountant'"):
        adapter.Accountant  # noqa: B018
