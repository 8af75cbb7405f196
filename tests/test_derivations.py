"""Every derivation runs and its assertions hold (tests/test_derivations.py).

A derivation runs once in the suite: as the report's check ``derivation dNN_...`` (the full
report, tests/report/test_report.py, shows the same run), through tests/report/once.py.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from gdpproof.report.checks import Outcome

from .report.once import check_named, run_once

ROOT = Path(__file__).resolve().parent.parent / "derivations"
FILES = sorted(p for p in ROOT.glob("d[0-9][0-9]_*.py"))


def test_there_are_derivations_and_an_index():
    assert len(FILES) >= 4
    index = (ROOT / "README.md").read_text()
    for path in FILES:
        assert path.name in index, f"{path.name} is missing from derivations/README.md"


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_derivation(path):
    doc = ast.get_docstring(ast.parse(path.read_text()))
    assert doc and "Claim" in doc
    run = run_once(check_named(f"derivation {path.stem}"))  # runs the file's main(), printing captured
    assert run.result.outcome is Outcome.PASSED, run.result.detail
    assert run.seconds < 120
    assert "verified" in run.result.detail
