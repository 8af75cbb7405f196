"""The README's command-line reference is what the parser says (regenerated and compared)."""

from __future__ import annotations

from pathlib import Path

from gdpproof.cli._reference import END, START, reference, update

README = Path(__file__).resolve().parents[2] / "README.md"


def test_readme_reference_matches_the_parser():
    text = README.read_text(encoding="utf-8")
    embedded = text.split(START, 1)[1].split(END, 1)[0]
    assert embedded.strip() == reference().strip(), (
        "the README's command-line reference differs from the parser: run "
        "python -m gdpproof.cli._reference --update README.md")


def test_reference_covers_every_command_and_update_detects_drift(tmp_path):
    from gdpproof.cli._parser import COMMANDS

    ref = reference()
    assert all(f"**`gdpproof {c}`**" in ref and f"usage: gdpproof {c} " in ref for c in COMMANDS)
    stale = tmp_path / "README.md"
    stale.write_text(f"intro\n{START}\n\nusage: gdpproof convert --old-option\n\n{END}\ntail\n", encoding="utf-8")
    assert update(str(stale)) is True  # a drifted copy is rewritten...
    assert "--old-option" not in stale.read_text() and stale.read_text().endswith(f"{END}\ntail\n")
    assert update(str(stale)) is False  # ...and then agrees
