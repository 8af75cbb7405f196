"""The public names and what docs/reference/*.md documents (for the API-reference tests).

The public names are the ``__all__`` lists of the *namespaces*: ``gdpproof`` itself, every
package with a non-empty ``__all__`` (``gdpproof.accounting``, ``gdpproof.audit.adapters``, ...),
and every module with one that no package above it (below ``gdpproof``) speaks for
(``gdpproof.numeric.tradeoff.solve``, ``gdpproof.symbolic.losses``, ``gdpproof.errors``, ...).

A reference page documents objects with mkdocstrings directives (``::: identifier``, with a
``members`` list for a module) and links to objects documented elsewhere with autorefs links
(``[`name`][identifier]``).
"""

from __future__ import annotations

import importlib
import pkgutil
import re
import textwrap
from functools import cache
from pathlib import Path
from typing import Any

import gdpproof

PAGES = Path(__file__).resolve().parents[2] / "docs" / "reference"

_DIRECTIVE = re.compile(r"^::: *(\S+)\n((?:(?: {4}.*)?\n)*)", re.M)
_LINK = re.compile(r"\]\[(gdpproof(?:\.\w+)*)\]")


def _all(module: str) -> list[str]:
    return list(getattr(importlib.import_module(module), "__all__", None) or [])


@cache
def namespaces() -> tuple[tuple[str, tuple[str, ...]], ...]:
    """(namespace, its ``__all__``), ``gdpproof`` first, then in the order of the package tree."""
    out = [("gdpproof", tuple(gdpproof.__all__))]
    for info in pkgutil.walk_packages(gdpproof.__path__, "gdpproof."):
        parts = info.name.split(".")
        if any(p.startswith("_") for p in parts[1:]) or not _all(info.name):
            continue
        if not info.ispkg and any(_all(".".join(parts[:i])) for i in range(2, len(parts))):
            continue  # a module of a package whose __all__ is the public surface
        out.append((info.name, tuple(_all(info.name))))
    return tuple(out)


def resolve(identifier: str) -> Any:
    """The object a dotted identifier names (the longest importable module, then attributes)."""
    parts = identifier.split(".")
    for i in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        for attr in parts[i:]:
            obj = getattr(obj, attr)
        return obj
    raise LookupError(identifier)


@cache
def pages() -> dict[str, tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]]:
    """page name -> (identifiers its directives render, the modules among them rendered without a
    ``members`` list, identifiers it links to)."""
    import yaml

    out = {}
    for page in sorted(PAGES.glob("*.md")):
        text = page.read_text(encoding="utf-8")
        rendered, implicit = [], []
        for identifier, block in _DIRECTIVE.findall(text):
            options = (yaml.safe_load(textwrap.dedent(block)) or {}).get("options", {}) if block.strip() else {}
            members = options.get("members")
            rendered.append(identifier)
            if isinstance(members, list):
                rendered += [f"{identifier}.{m}" for m in members]
            elif members is not False and isinstance(resolve(identifier), type(gdpproof)):
                implicit.append(identifier)
        out[page.name] = (tuple(rendered), tuple(implicit), tuple(_LINK.findall(text)))
    return out
