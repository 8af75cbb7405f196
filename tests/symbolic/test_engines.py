"""The symbolic layer computes no numbers itself: TradeOff's numeric methods call registered engines."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import gdpproof
from gdpproof.errors import GdpproofError
from gdpproof.symbolic import engines

SYMBOLIC = Path(gdpproof.__file__).parent / "symbolic"


def test_missing_engine_is_a_clear_error():
    with pytest.raises(GdpproofError, match=r"no numeric engine 'no_such_engine'.*import gdpproof\.numeric"):
        engines.lookup("no_such_engine")


def test_unregistered_engine_names_itself_and_the_cure(monkeypatch):
    saved = engines.lookup("tradeoff_value")
    engines.unregister("tradeoff_value")
    try:
        with pytest.raises(GdpproofError, match=r"'tradeoff_value'.*`import gdpproof\.numeric`"):
            gdpproof.gaussian(1).evaluate("0.05", digits=5)
    finally:
        engines.register("tradeoff_value", saved)
    assert str(gdpproof.gaussian(1).evaluate("0.05", digits=5)) == "0.74048"  # registered again


def test_importing_numeric_registers_every_engine_tradeoff_uses():
    import gdpproof.numeric  # noqa: F401

    used = set()
    tree = ast.parse((SYMBOLIC / "tradeoff.py").read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "lookup"
                and node.args and isinstance(node.args[0], ast.Constant)):
            used.add(node.args[0].value)
    assert len(used) == 10  # the nine numeric methods and the likelihood-ratio spot check's float_values
    assert used <= set(engines.registered())


def test_register_rejects_non_callables():
    with pytest.raises(TypeError, match="must be callable"):
        engines.register("x", 3)


def test_symbolic_imports_nothing_of_numeric():
    """Not even lazily inside a function, nor under TYPE_CHECKING, nor through importlib."""
    offenders = []
    for f in sorted(SYMBOLIC.glob("*.py")):
        text = f.read_text(encoding="utf-8")
        if "import_module" in text or "__import__" in text:
            offenders.append(f"{f.name}: dynamic import")
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.ImportFrom):
                mod = node.module or ""
                names = {a.name for a in node.names}
                if node.level >= 2 and (mod.split(".")[0] == "numeric" or (not mod and "numeric" in names)):
                    offenders.append(f"{f.name}: from {'.' * node.level}{mod} import {sorted(names)}")
                if mod.startswith("gdpproof.numeric") or (mod == "gdpproof" and "numeric" in names):
                    offenders.append(f"{f.name}: from {mod}")
            elif isinstance(node, ast.Import):
                offenders += [f"{f.name}: import {a.name}" for a in node.names if a.name.startswith("gdpproof.numeric")]
    assert not offenders
