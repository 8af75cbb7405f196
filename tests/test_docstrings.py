"""Every public callable has a Google-style docstring: what it is, ``Args:`` naming each
parameter, and ``Examples:`` with a ``>>>`` line (run by the doctests of the suite).

Public means listed in ``__all__`` of gdpproof, of its accounting, mechanisms, audit and
simulation packages, and of the numeric packages.  A class documents the parameters of its
constructor under ``Args:`` (or, for a result type a caller reads rather than builds, its fields
under ``Attributes:``).  Cost: the imports and a walk over about 130 docstrings, well under a
second after the package is imported.
"""

from __future__ import annotations

import importlib
import inspect
import re

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
