"""Every notebook runs top to bottom (in one shared kernel, its namespace reset before each:
tests/notebooks_once.py), and is committed without outputs.

Notebooks are narrative and plots on the public API, with small parameters (at most a
minute each).  Skipped, with the reason, when the `notebooks` extra is not installed.
"""

from __future__ import annotations

import pytest

from .notebooks_once import NOTEBOOKS


def test_there_are_notebooks():
    assert NOTEBOOKS, "notebooks/ is empty"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_is_committed_without_outputs(path):
    nbformat = pytest.importorskip("nbformat", reason="the notebooks extra is not installed")
    nb = nbformat.read(path, as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "code":
            assert not cell.outputs and cell.execution_count is None, f"{path.name} has outputs: clear them"


@pytest.mark.timeout(300)
@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_runs(path, notebooks):
    run = notebooks.run(path)  # executed once per session: the site's build renders the same copy
    assert not run.errors, run.errors
    # a budget, not a benchmark: generous for shared CI machines (target: a minute)
    assert run.seconds < 240, f"{path.name} took {run.seconds:.0f} s"
