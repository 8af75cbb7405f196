"""The documentation site, built once per test session (``built_site``)."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from ..notebooks_once import NOTEBOOKS

ROOT = Path(__file__).resolve().parents[2]


class _Collect(logging.Handler):
    """Keeps the warnings (and errors) mkdocs and its plugins log during a build."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(f"{record.levelname} {record.name}: {record.getMessage()}")


@pytest.fixture(scope="session")
def built_site(tmp_path_factory, notebooks):
    """``mkdocs build --strict`` of mkdocs.yml into a temporary folder, in this process, with the
    notebooks executed by tests/test_notebooks.py (``notebooks``: each runs once per session).
    Returns (site folder, the warnings logged, the build's error or None).  Skipped, with the
    reason, when the docs extra is not installed."""
    pytest.importorskip("mkdocs", reason="the docs extra is not installed")
    pytest.importorskip("mkdocstrings_handlers.python", reason="the docs extra is not installed")
    pytest.importorskip("mkdocs_jupyter", reason="the docs extra is not installed")
    from mkdocs.commands.build import build
    from mkdocs.config import load_config
    from mkdocs.exceptions import MkDocsException

    failing = [p.name for p in NOTEBOOKS if notebooks.run(p).errors]
    if failing:
        pytest.fail(f"the site shows the notebooks with their outputs, and these fail: {failing} "
                    "(see tests/test_notebooks.py)")
    site = tmp_path_factory.mktemp("site") / "site"
    collect = _Collect()
    logger = logging.getLogger("mkdocs")
    logger.addHandler(collect)
    error = None
    try:
        with pytest.MonkeyPatch.context() as mp:
            mp.setenv("GDPPROOF_EXECUTED_NOTEBOOKS", str(notebooks.folder))
            mp.setenv("NO_MKDOCS_2_WARNING", "1")
            mp.chdir(ROOT)  # mkdocs.yml's paths (the hooks, the griffe extension) are the repository's
            build(load_config(str(ROOT / "mkdocs.yml"), site_dir=str(site)))
    except MkDocsException as exc:
        error = f"{type(exc).__name__}: {exc}"
    finally:
        logger.removeHandler(collect)
    return site, collect.messages, error
