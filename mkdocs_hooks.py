"""MkDocs hooks of the documentation site (mkdocs.yml): the example notebooks, with their outputs.

The notebooks are committed without outputs (tests/test_notebooks.py checks it).  The site shows
executed copies, added as ``notebooks/NAME.ipynb`` pages that mkdocs-jupyter renders:

* in the test suite, the copies tests/test_notebooks.py saved when it executed the notebooks (the
  folder named by the environment variable ``GDPPROOF_EXECUTED_NOTEBOOKS``), so the suite runs
  each notebook once;
* otherwise (``make docs``), the notebooks are executed here, each in a fresh kernel, into
  ``build/notebooks/`` (once per process: ``mkdocs serve`` does not run them on every edit).

Each copy records the SHA-256 of the notebook it was executed from; a copy of another version
of the notebook is refused (a stale page fails the build).  A notebook that raises fails it too.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.plugins import event_priority
from mkdocs.structure.files import File, Files
from mkdocs.structure.pages import Page

ROOT = Path(__file__).resolve().parent
NOTEBOOKS = ROOT / "notebooks"
#: set by the test suite: the folder of the executed copies tests/test_notebooks.py saved
EXECUTED = "GDPPROOF_EXECUTED_NOTEBOOKS"
#: where ``make docs`` executes them
BUILD = ROOT / "build" / "notebooks"

_executed_here: list[Path] = []  # the folder, once this process has executed the notebooks


def _folder() -> Path:
    """The folder of the executed copies (executing the notebooks first when needed)."""
    if os.environ.get(EXECUTED):
        return Path(os.environ[EXECUTED])
    if not _executed_here:
        from gdpproof.report.notebooks import execute_notebooks, save_executed

        for path, nb, status, detail in execute_notebooks(sorted(NOTEBOOKS.glob("*.ipynb"))):
            if status != "rendered":
                raise PluginError(f"notebook {path.name} failed: {detail}")
            save_executed(nb, path, BUILD)
        _executed_here.append(BUILD)
    return _executed_here[0]


@event_priority(100)  # before mkdocs-jupyter's on_files, which takes over the .ipynb files it is given
def on_files(files: Files, config: MkDocsConfig) -> Files:
    """Add the executed copy of every notebook as the page ``notebooks/NAME.ipynb``."""
    from gdpproof.report.notebooks import executed_copy

    folder = _folder()
    if folder.name != "notebooks":  # the page's path below the folder's parent is notebooks/NAME.ipynb
        raise PluginError(f"{EXECUTED}={folder}: the folder of the executed notebooks must be called 'notebooks'")
    for source in sorted(NOTEBOOKS.glob("*.ipynb")):
        try:
            executed_copy(source, folder)
        except (OSError, ValueError) as exc:
            raise PluginError(f"no up-to-date executed copy of {source.name} in {folder}: {exc}") from exc
        # a File on disk, not File.generated: mkdocs-jupyter's wrapper loses a generated file's path
        files.append(File(f"notebooks/{source.name}", src_dir=str(folder.parent), dest_dir=config.site_dir,
                          use_directory_urls=config.use_directory_urls))
    return files


#: nbconvert's page template loads MathJax and Mermaid from a CDN (and, with no MathJax address,
#: a script with an empty src, the page itself); the notebooks use neither, and the site must work
#: offline (the browser test fails on a console error or a request that cannot load)
_SCRIPT = re.compile(r"<script\b[^>]*>.*?</script>", re.S)
_UNWANTED = re.compile(r'mathjax|mermaid|\bsrc="(?:https?:)?//|\bsrc=""', re.I)


def on_page_content(html: str, page: Page, config: MkDocsConfig, files: Files) -> str:
    """Drop the MathJax and Mermaid scripts of a notebook page."""
    if page.file.src_uri.endswith(".ipynb"):
        return _SCRIPT.sub(lambda m: "" if _UNWANTED.search(m.group(0)) else m.group(0), html)
    return html


# --- docstrings as Markdown (a griffe extension, listed in mkdocs.yml's mkdocstrings options) -----

#: a Sphinx role, ``:class:`~gdpproof.x.Name``` -> a code span (``Name``; ``~`` keeps the last part)
_ROLE = re.compile(r":(?:py:)?(?:class|func|meth|mod|data|attr|exc|obj|const|ref|term):`(~?)([^`<]+?)(?:\s*<[^`]*>)?`")
_SECTION = re.compile(r"^(\s*)(?:Examples?|Example usage):\s*$")
#: a NumPy-style section header (a title underlined with dashes)
_NUMPY = re.compile(r"^[ \t]*(\w[\w ]*)\n[ \t]*-{3,}[ \t]*$", re.M)


def _google_examples(text: str) -> str:
    """A NumPy ``Examples`` section as a Google ``Examples:`` one, in a docstring that has no other
    NumPy section (one that has is read by the NumPy parser, which knows the section; in one that
    has not, the underlined title would be a Markdown heading in the page's table of contents)."""
    headers = [m for m in _NUMPY.finditer(text)]
    if [m.group(1) for m in headers] != ["Examples"]:
        return text
    head, body = text[:headers[0].start()], text[headers[0].end():].strip("\n")
    return head + "Examples:\n" + "\n".join("    " + line if line.strip() else "" for line in body.split("\n"))


def markdown_docstring(text: str) -> str:
    r"""A docstring's text made readable as Markdown, without changing what it says.

    Doctest lines (``>>>`` and their output, up to a blank line) become ``pycon`` code blocks,
    except in a Google ``Examples:`` section (which the parser renders itself): Markdown would
    read ``>>>`` as nested quotes and ``x[0][1]`` as a link.  Sphinx roles become code spans.  A
    NumPy ``Examples`` section alone becomes a Google one.

    >>> prompt = ">" * 3
    >>> markdown_docstring(f"Text :func:`~a.b.f`.\n\n{prompt} f()[0][1]\n2").splitlines()
    ['Text `f`.', '', '```pycon', '>>> f()[0][1]', '2', '```']
    >>> markdown_docstring(f"Summary.\n\nExamples\n--------\n{prompt} 1 + 1\n2").splitlines()
    ['Summary.', '', 'Examples:', '    >>> 1 + 1', '    2']
    """
    text = _google_examples(_ROLE.sub(lambda m: f"`{m.group(2).rsplit('.', 1)[-1] if m.group(1) else m.group(2)}`", text))
    lines, out, section = text.split("\n"), [], None
    i = 0
    while i < len(lines):
        line = lines[i]
        indent = len(line) - len(line.lstrip())
        if section is not None and line.strip() and indent <= section:
            section = None
        header = _SECTION.match(line)
        if header:
            section = len(header.group(1))
        if section is None and line.lstrip().startswith(">>>"):
            pad = line[:indent]
            if out and out[-1].strip():
                out.append("")
            out.append(pad + "```pycon")
            while i < len(lines) and lines[i].strip() and lines[i].startswith(pad):
                out.append(lines[i])
                i += 1
            out += [pad + "```", ""] if i < len(lines) else [pad + "```"]
            continue
        out.append(line)
        i += 1
    return "\n".join(out)


try:
    import griffe
except ImportError:  # the docs extra is not installed: the hooks above need mkdocs anyway
    griffe = None

if griffe is not None:
    class MarkdownDocstrings(griffe.Extension):
        """Apply :func:`markdown_docstring` to every docstring griffe loads."""

        def on_instance(self, *, obj: griffe.Object, **kwargs: object) -> None:
            if obj.docstring is not None:
                obj.docstring.value = markdown_docstring(obj.docstring.value)

        def on_class_members(self, *, cls: griffe.Class, **kwargs: object) -> None:
            """A class constructed by ``__new__`` alone (``Certified``, a Decimal) has its
            signature there: give it an ``__init__`` of the same parameters, so the class's
            signature and the Args of its docstring are read against them."""
            new = cls.members.get("__new__")
            if isinstance(new, griffe.Function) and "__init__" not in cls.members:
                cls.set_member("__init__", griffe.Function("__init__", parameters=new.parameters, lineno=new.lineno,
                                                           endlineno=new.endlineno))
