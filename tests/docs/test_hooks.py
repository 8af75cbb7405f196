"""The site's hooks (mkdocs_hooks.py): docstrings as Markdown, and executed notebooks that must be
up to date."""

from __future__ import annotations

import doctest
import importlib.util
from pathlib import Path
from types import SimpleNamespace

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def hooks():
    pytest.importorskip("mkdocs", reason="the docs extra is not installed")
    spec = importlib.util.spec_from_file_location("mkdocs_hooks", ROOT / "mkdocs_hooks.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_docstrings_as_markdown(hooks):
    assert doctest.testmod(hooks).failed == 0
    md = hooks.markdown_docstring
    # a Google Examples: section is left to the parser; a NumPy one beside other NumPy sections too
    google = "Summary.\n\nExamples:\n    >>> 1\n    1"
    assert md(google) == google
    numpy = "S.\n\nParameters\n----------\nx : int\n    X.\n\nExamples\n--------\n>>> 1\n1"
    assert md(numpy) == numpy.replace(">>> 1\n1", "\n```pycon\n>>> 1\n1\n```")
    assert md("See :class:`gdpproof.TradeOff` and :func:`~gdpproof.account`.") == "See `gdpproof.TradeOff` and `account`."


def test_the_site_refuses_a_missing_or_stale_notebook(hooks, tmp_path, monkeypatch):
    nbformat = pytest.importorskip("nbformat", reason="the notebooks extra is not installed")
    from gdpproof.report.notebooks import executed_copy, save_executed

    source = tmp_path / "src" / "01_x.ipynb"
    source.parent.mkdir()
    nbformat.write(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("1 + 1")]), source)
    folder = tmp_path / "executed" / "notebooks"
    with pytest.raises(FileNotFoundError):
        executed_copy(source, folder)
    copy = save_executed(nbformat.read(source, as_version=4), source, folder)
    assert executed_copy(source, folder) == copy
    config = SimpleNamespace(site_dir=str(tmp_path / "site"), use_directory_urls=True)
    monkeypatch.setattr(hooks, "NOTEBOOKS", source.parent)
    monkeypatch.setenv(hooks.EXECUTED, str(folder))
    files = list(hooks.on_files(hooks.Files([]), config))
    assert [f.src_uri for f in files] == ["notebooks/01_x.ipynb"] and Path(files[0].abs_src_path) == copy
    nbformat.write(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("1 + 2")]), source)  # edited since
    with pytest.raises(ValueError, match="another version"):
        executed_copy(source, folder)
    with pytest.raises(hooks.PluginError, match="no up-to-date executed copy of 01_x.ipynb"):
        hooks.on_files(hooks.Files([]), config)
