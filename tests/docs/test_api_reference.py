"""The API reference (docs/reference/*.md) documents every public name, each once.

Every name of every public ``__all__`` list (tests/docs/reference_pages.py says which lists)
is rendered by an mkdocstrings directive, either at its own path or, when the same object is
rendered at another public path (``gdpproof.accounting.account`` is ``gdpproof.account``), with a
link to it on the page of its namespace.  A new public name without an entry fails here; the
site's build (tests/docs/test_site_build.py) then checks that every entry renders and every
link resolves.
"""

from __future__ import annotations

import pytest

from .reference_pages import PAGES, namespaces, pages, resolve

pytest.importorskip("yaml", reason="PyYAML (a dependency of the docs extra) is not installed")


def _rendered() -> dict[str, str]:
    """identifier -> the page rendering it."""
    return {ident: page for page, (rendered, _, _) in pages().items() for ident in rendered}


def test_every_public_name_has_an_entry():
    rendered = _rendered()
    home = {(id(resolve(i)), i.rsplit(".", 1)[-1]): i for i in rendered}
    missing = []
    for namespace, names in namespaces():
        page = rendered.get(namespace)
        links = set(pages()[page][2]) if page else set()
        for name in names:
            identifier = f"{namespace}.{name}"
            if identifier in rendered:
                continue
            there = home.get((id(resolve(identifier)), name))
            if there is None or not {identifier, there} & links:
                missing.append(identifier)
    assert not missing, (
        f"public names without an entry in docs/reference/: {missing}.  Add each to the `members:` list "
        "of its namespace's directive, or, if the same object is documented at another public path, "
        "link to it on its namespace's page: [`name`][that.path]")


def test_each_object_is_rendered_once_and_is_public():
    seen: dict[tuple[int, str], str] = {}
    twice = []
    public = {f"{n}.{name}" for n, names in namespaces() for name in names} | {n for n, _ in namespaces()}
    private = []
    for identifier in (i for _, (rendered, _, _) in pages().items() for i in rendered):
        key = (id(resolve(identifier)), identifier.rsplit(".", 1)[-1])
        if key in seen:
            twice.append((seen[key], identifier))
        seen[key] = identifier
        if identifier not in public:
            private.append(identifier)
    assert not twice, f"rendered twice (render one, link to it from the other page): {twice}"
    assert not private, f"not public names: {private}"


def test_module_directives_list_their_members_and_pages_hold_no_doctests():
    # a module's directive without a `members` list would render whatever mkdocstrings picks
    implicit = [i for _, (_, modules, _) in pages().items() for i in modules]
    assert not implicit, f"module directives without a `members:` list (or `members: false`): {implicit}"
    doctests = [p.name for p in PAGES.glob("*.md") if any(line.lstrip().startswith(">>>")
                                                           for line in p.read_text(encoding="utf-8").splitlines())]
    assert not doctests, f"reference pages are directives, not examples (the docstrings' run as doctests): {doctests}"
