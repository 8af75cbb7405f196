"""Each example notebook is executed at most once per test session.

tests/test_notebooks.py asserts that every notebook runs; the documentation site
(tests/docs/test_site_build.py) shows them with their outputs.  Both go through
:class:`NotebookRunner` (the session fixture ``notebooks`` of tests/conftest.py), which executes a
notebook the first time it is asked for, in one shared kernel (a kernel's start and gdpproof's
imports cost seconds each time; each notebook starts with ``%reset -f``, so one that relies on a
name another defined still fails), and saves the executed copy, stamped with its source's
digest, into a folder called ``notebooks`` that the site's build renders.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

NOTEBOOKS = sorted((Path(__file__).resolve().parents[1] / "notebooks").glob("*.ipynb"))


@dataclass(frozen=True)
class Run:
    """One notebook's execution: the executed notebook, its seconds and its error outputs."""

    nb: Any
    seconds: float
    errors: list


class NotebookRunner:
    """Executes the notebooks, each once, in one kernel started on first use."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder  # the executed copies (a folder called "notebooks")
        self._runs: dict[Path, Run] = {}
        self._kernel: Any = None

    def _start(self) -> Any:
        from jupyter_client.manager import KernelManager

        root = str(NOTEBOOKS[0].parents[1])
        env = dict(os.environ)
        # the kernel imports this checkout's gdpproof even where the package is not installed
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [root, os.environ.get("PYTHONPATH")]))
        km = KernelManager(kernel_name="python3")
        km.start_kernel(cwd=str(NOTEBOOKS[0].parent), env=env)
        return km

    def run(self, path: Path) -> Run:
        """The execution of ``path`` (executed now if it has not been yet this session)."""
        if path not in self._runs:
            import nbclient
            import nbformat

            from gdpproof.report.notebooks import save_executed

            if self._kernel is None:
                self._kernel = self._start()
            nb = nbformat.read(path, as_version=4)
            nb.cells.insert(0, nbformat.v4.new_code_cell("%reset -f"))
            client = nbclient.NotebookClient(nb, km=self._kernel, timeout=240,
                                             resources={"metadata": {"path": str(path.parent)}})
            start = time.perf_counter()
            try:
                client.execute()
            except nbclient.exceptions.CellExecutionError:
                pass  # the error is in the cell's outputs, asserted on by the test
            seconds = time.perf_counter() - start
            nb.cells.pop(0)  # the %reset cell is the runner's, not the notebook's
            errors = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs if o.get("output_type") == "error"]
            if not errors:
                save_executed(nb, path, self.folder)
            self._runs[path] = Run(nb, seconds, errors)
        return self._runs[path]

    def close(self) -> None:
        if self._kernel is not None:
            self._kernel.shutdown_kernel(now=True)
