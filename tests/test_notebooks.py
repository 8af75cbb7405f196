"""Every notebook runs top to bottom (in one shared kernel, its namespace reset before each), and is
committed without outputs.

Notebooks are narrative and plots on the public API, with small parameters (at most a
minute each).  Skipped, with the reason, when the `notebooks` extra is not installed.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

NOTEBOOKS = sorted((Path(__file__).resolve().parents[1] / "notebooks").glob("*.ipynb"))


def test_there_are_notebooks():
    assert NOTEBOOKS, "notebooks/ is empty"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_is_committed_without_outputs(path):
    nbformat = pytest.importorskip("nbformat", reason="the notebooks extra is not installed")
    nb = nbformat.read(path, as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "code":
            assert not cell.outputs and cell.execution_count is None, f"{path.name} has outputs: clear them"


@pytest.fixture(scope="module")
def kernel(tmp_path_factory):
    """One Jupyter kernel for the notebooks, started once (a kernel's start and gdpproof's imports
    cost seconds each time).  Each notebook starts with ``%reset -f``, which empties the namespace,
    so a notebook that relies on a name another one defined still fails."""
    pytest.importorskip("nbformat", reason="the notebooks extra is not installed")
    pytest.importorskip("nbclient", reason="the notebooks extra is not installed")
    pytest.importorskip("ipykernel", reason="the notebooks extra is not installed")
    pytest.importorskip("matplotlib", reason="the plot extra is not installed")
    from jupyter_client.manager import KernelManager

    root = str(NOTEBOOKS[0].parents[1])
    env = dict(os.environ)
    # the kernel imports this checkout's gdpproof even where the package is not installed
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [root, os.environ.get("PYTHONPATH")]))
    km = KernelManager(kernel_name="python3")
    km.start_kernel(cwd=str(NOTEBOOKS[0].parent), env=env)
    yield km
    km.shutdown_kernel(now=True)


@pytest.mark.timeout(300)
@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_runs(path, kernel):
    import nbclient
    import nbformat

    nb = nbformat.read(path, as_version=4)
    nb.cells.insert(0, nbformat.v4.new_code_cell("%reset -f"))
    client = nbclient.NotebookClient(nb, km=kernel, timeout=240, resources={"metadata": {"path": str(path.parent)}})
    start = time.perf_counter()
    client.execute()
    seconds = time.perf_counter() - start
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs if o.get("output_type") == "error"]
    assert not errors, errors
    # a budget, not a benchmark: generous for shared CI machines (target: a minute)
    assert seconds < 240, f"{path.name} took {seconds:.0f} s"
