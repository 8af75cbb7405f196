"""Every public callable has a Google-style docstring: what it is, ``Args:`` naming each
parameter, and ``Examples:`` with a ``>>>`` line (run by the doctests of the suite).

Public means listed in ``__all__`` of gdpproof, of its accounting, mechanisms, audit and
simulation packages, and of the numeric packages.  A class documents the parameters of its
constructor under ``Args:`` (or, for a result type a caller reads rather than builds, its fields
under ``Attributes:``).  Every hand-written module of the package also keeps its module docstring
to at most 15 lines, has no NumPy-style section anywhere, and names only documentation pages
(``docs/....md``) that exist.  Cost: the imports and a walk over about 130 docstrings and the
package's sources, well under a second after the package is imported.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import re
from pathlib import Path

import pytest

PACKAGES = ["gdpproof", "gdpproof.accounting", "gdpproof.mechanisms", "gdpproof.audit", "gdpproof.simulation",
            "gdpproof.numeric", "gdpproof.numeric.engine", "gdpproof.numeric.tradeoff"]

#: A section header of a Google-style docstring, on a line of its own.
SECTION = re.compile(r"^\s*(Args|Arguments|Attributes|Returns|Yields|Raises|Examples|Example|Note|Notes|Warns|"
                     r"References|See Also|Warning):\s*$", re.M)


def public_callables() -> list[tuple[str, object]]:
    """(qualified name, object) of every callable in the packages' ``__all__``, each object once."""
    seen: dict[int, tuple[str, object]] = {}
    for package in PACKAGES:
        module = importlib.import_module(package)
        for name in getattr(module, "__all__", []):
            obj = getattr(module, name)
            if callable(obj) and id(obj) not in seen:
                seen[id(obj)] = (f"{package}.{name}", obj)
    return sorted(seen.values(), key=lambda item: item[0])


def sections(doc: str) -> dict[str, str]:
    """The docstring's sections by header (``"Args"``, ...), each with its indented body."""
    found: dict[str, str] = {}
    matches = list(SECTION.finditer(doc))
    for m, nxt in zip(matches, matches[1:] + [None]):
        found[m.group(1)] = doc[m.end():nxt.start() if nxt is not None else len(doc)]
    return found


def parameters(obj: object) -> list[str]:
    """The named parameters a caller passes (not self, not ``*args``/``**kwargs``)."""
    try:
        sig = inspect.signature(obj)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return []
    kinds = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD,
             inspect.Parameter.KEYWORD_ONLY)
    return [p.name for p in sig.parameters.values() if p.kind in kinds and p.name not in ("self", "cls")]


def problems(name: str, obj: object) -> list[str]:
    """What the docstring of ``obj`` lacks, one line each (empty when it is complete)."""
    doc = inspect.getdoc(obj) if not inspect.isclass(obj) else inspect.cleandoc(obj.__doc__ or "")
    if not doc or not doc.strip():
        return [f"{name}: no docstring"]
    found = sections(doc)
    out = []
    params = parameters(obj)
    described = found.get("Args", "") + (found.get("Attributes", "") if inspect.isclass(obj) else "")
    if params and not described:
        out.append(f"{name}: takes {', '.join(params)} but has no Args: section")
    else:
        missing = [p for p in params if not re.search(rf"^\s*\**{re.escape(p)}\b[^:\n]*:", described, re.M)]
        if missing:
            out.append(f"{name}: Args: does not describe {', '.join(missing)}")
    if ">>>" not in found.get("Examples", found.get("Example", "")):
        out.append(f"{name}: no Examples: section with a >>> line")
    return out


def test_the_walk_finds_the_public_names():
    names = [name for name, _ in public_callables()]
    assert "gdpproof.account" in names and "gdpproof.mechanisms.mechanism_from_spec" in names
    assert len(names) > 100


def test_the_check_refuses_an_incomplete_docstring():
    def f(x: int, *, y: int = 0) -> int:
        """Add.

        Args:
            x: A number.

        Examples:
            >>> f(1)
            1
        """
        return x + y

    def g(x: int) -> int:
        """Numpy style.

        Parameters
        ----------
        x : int
        """
        return x

    assert problems("f", f) == ["f: Args: does not describe y"]
    assert problems("g", g) == ["g: takes x but has no Args: section", "g: no Examples: section with a >>> line"]


@pytest.mark.parametrize("name, obj", public_callables(), ids=lambda v: v if isinstance(v, str) else "")
def test_public_docstring_is_google_style(name, obj):
    assert not problems(name, obj), "\n".join(problems(name, obj))


# --- every module of the package: short module docstrings, Google sections only, links that exist

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "gdpproof"

#: The most lines (from the opening quotes to the closing ones) a module docstring may take: what
#: the module is, what it offers, and where its reasoning lives in docs/.
MODULE_DOCSTRING_LINES = 15

#: A NumPy-style section header: a known section name on a line of its own, underlined by dashes.
NUMPY_SECTION = re.compile(r"^[ \t]*(Parameters|Other Parameters|Returns|Yields|Receives|Raises|Warns|"
                           r"Attributes|Methods|Examples|Notes|References|See Also|Warnings)[ \t]*\n[ \t]*-{3,}[ \t]*$",
                           re.M)

#: A repository path of a documentation page named in the code, with an optional #anchor.
DOCS_PATH = re.compile(r"\bdocs/[A-Za-z0-9_./-]+\.md\b")


def hand_written_modules() -> list[tuple[str, str]]:
    """(repository path, source) of every module of the package that is not generated."""
    out = []
    for path in sorted(PACKAGE.rglob("*.py")):
        source = path.read_text(encoding="utf-8")
        if "generated" not in source.split("\n", 1)[0]:
            out.append((path.relative_to(ROOT).as_posix(), source))
    return out


def module_docstring_lines(source: str) -> int:
    """The lines a module's docstring takes in the source, quotes included (0 without one)."""
    body = ast.parse(source).body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
            and isinstance(body[0].value.value, str):
        return body[0].end_lineno - body[0].lineno + 1  # type: ignore[operator]
    return 0


def numpy_sections(source: str) -> list[str]:
    """The NumPy-style section headers in a source, as 'line N: Header'."""
    return [f"line {source.count(chr(10), 0, m.start()) + 1}: {m.group(1)}" for m in NUMPY_SECTION.finditer(source)]


def test_the_module_checks_can_fail():
    long_doc = '"""' + "\n".join(["A line."] * MODULE_DOCSTRING_LINES) + '\n"""\nx = 1\n'
    assert module_docstring_lines(long_doc) == MODULE_DOCSTRING_LINES + 1
    assert module_docstring_lines('"""One line."""\n') == 1 and module_docstring_lines("x = 1\n") == 0
    numpy = 'def f(x):\n    """F.\n\n    Parameters\n    ----------\n    x : int\n    """\n'
    assert numpy_sections(numpy) == ["line 4: Parameters"]
    assert numpy_sections('def f(x):\n    """F.\n\n    Args:\n        x: A number.\n    """\n') == []
    assert DOCS_PATH.findall("see ``docs/proofs/finite.md`` and docs/guides/a-b.md#x.") == [
        "docs/proofs/finite.md", "docs/guides/a-b.md"]


def test_module_docstrings_are_short():
    long = [f"{path}: {n} lines" for path, source in hand_written_modules()
            if (n := module_docstring_lines(source)) > MODULE_DOCSTRING_LINES]
    assert not long, (f"module docstrings over {MODULE_DOCSTRING_LINES} lines (say what the module is and "
                      "link the docs/ page where its reasoning lives):\n" + "\n".join(long))


def test_no_numpy_style_sections():
    found = [f"{path} {where}" for path, source in hand_written_modules()
             for where in numpy_sections(source)]
    assert not found, "NumPy-style sections (write Google style: Args:, Returns:, Examples:):\n" + "\n".join(found)


def test_docs_pages_named_in_the_code_exist():
    missing = sorted({f"{path}: {page}" for path, source in hand_written_modules()
                      for page in DOCS_PATH.findall(source) if not (ROOT / page).is_file()})
    assert not missing, "the code names documentation pages that do not exist:\n" + "\n".join(missing)
