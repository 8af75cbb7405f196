"""The site's command-line reference (docs/reference/cli.md) is what the parser says (regenerated
and compared)."""

from __future__ import annotations

from pathlib import Path

from gdpproof.cli._reference import END, START, reference, update

PAGE = Path(__file__).resolve().parents[2] / "docs" / "reference" / "cli.md"


def test_the_site_reference_matches_the_parser():
    text = PAGE.read_text(encoding="utf-8")
    embedded = text.split(START, 1)[1].split(END, 1)[0]
    assert embedded.strip() == reference().strip(), (
        "docs/reference/cli.md differs from the parser: run "
        "python -m gdpproof.cli._reference --update docs/reference/cli.md")


def test_reference_covers_every_command_and_update_detects_drift(tmp_path):
    from gdpproof.cli._parser import COMMANDS, EXAMPLES

    ref = reference()
    assert all(f"## `gdpproof {c}`\n" in ref and f"usage: gdpproof {c} " in ref for c in COMMANDS)
    # every option's help and every example of --help is there
    assert "--noise-multiplier SIGMA" in ref and "the name Opacus and" in ref
    assert all(f"  {e}\n" in ref for c in COMMANDS for e in EXAMPLES[c])
    stale = tmp_path / "cli.md"
    stale.write_text(f"intro\n{START}\n\nusage: gdpproof convert --old-option\n\n{END}\ntail\n", encoding="utf-8")
    assert update(str(stale)) is True  # a drifted copy is rewritten...
    assert "--old-option" not in stale.read_text() and stale.read_text().endswith(f"{END}\ntail\n")
    assert update(str(stale)) is False  # ...and then agrees
