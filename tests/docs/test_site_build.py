"""The documentation site builds with no warning, and shows what it should.

``mkdocs build --strict`` (the ``built_site`` fixture): a broken cross-reference or link, an
anchor that is not there, a page missing from the nav, a docstring the parser cannot read, a
notebook without an up-to-date executed copy: each is a warning, and a warning fails the build.
"""

from __future__ import annotations

import html
import re

from ..notebooks_once import NOTEBOOKS
from .reference_pages import pages


def test_the_site_builds_without_a_warning(built_site):
    site, warnings, error = built_site
    assert error is None and not warnings, "\n".join([str(error), *warnings])
    assert (site / "index.html").is_file() and (site / "404.html").is_file()


def test_the_notebooks_are_shown_with_their_outputs(built_site, notebooks):
    site, plots = built_site[0], 0
    for path in NOTEBOOKS:
        page = (site / "notebooks" / path.stem / "index.html").read_text(encoding="utf-8")
        outputs = [o for c in notebooks.run(path).nb.cells if c.cell_type == "code" for o in c.outputs]
        images = sum("image/png" in o.get("data", {}) for o in outputs)
        assert page.count('src="data:image/png;base64,') == images, path.name
        plots += images
        streams = [o["text"].strip().splitlines()[0] for o in outputs if o.get("output_type") == "stream" and o["text"].strip()]
        assert all(html.escape(line, quote=False) in page for line in streams), path.name
    assert plots >= len(NOTEBOOKS)


def test_every_reference_entry_is_rendered(built_site):
    site = built_site[0]
    for page, (rendered, _, _) in pages().items():
        folder = site / "reference" if page == "index.md" else site / "reference" / page.removesuffix(".md")
        built = (folder / "index.html").read_text(encoding="utf-8")
        ids = set(re.findall(r'id="([^"]+)"', built))
        assert not [i for i in rendered if i not in ids], page


def test_the_command_line_reference_is_on_the_site(built_site):
    from gdpproof.cli._parser import COMMANDS

    built = (built_site[0] / "reference" / "cli" / "index.html").read_text(encoding="utf-8")
    assert all(f'id="gdpproof-{c}"' in built and f"usage: gdpproof {c} " in built for c in COMMANDS)
