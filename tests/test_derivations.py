"""Every derivation runs and its assertions hold (STYLE §5)."""

from __future__ import annotations

import importlib.util
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent / "derivations"
FILES = sorted(p for p in ROOT.glob("d[0-9][0-9]_*.py"))


def test_there_are_derivations_and_an_index():
    assert len(FILES) >= 4
    index = (ROOT / "README.md").read_text()
    for path in FILES:
        assert path.name in index, f"{path.name} is missing from derivations/README.md"


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_derivation(path, capsys):
    sys.path.insert(0, str(ROOT))
    try:
        spec = importlib.util.spec_from_file_location(path.stem, path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        assert module.__doc__ and "Claim" in module.__doc__
        start = time.perf_counter()
        module.main()
        assert time.perf_counter() - start < 120
    finally:
        sys.path.remove(str(ROOT))
    assert "verified" in capsys.readouterr().out
