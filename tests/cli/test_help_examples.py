"""Each command's --help shows runnable examples; they are parsed out of the parser's epilogs and
run here, so that the help and the code cannot drift apart (issue 18)."""

from __future__ import annotations

import argparse
import shlex
from pathlib import Path

import pytest

from gdpproof.cli import main
from gdpproof.cli._parser import COMMANDS, build_parser

ROOT = Path(__file__).resolve().parents[2]

#: examples that take seconds (a DP-SGD calibration, a peer audit, the report, the shipped tables'
#: recomputation): parsed, not run, to keep the suite's cost down; their commands are tested
#: elsewhere (tests/test_calibration.py, tests/audit, tests/report, tests/reference).
PARSED_ONLY = {"calibrate dpsgd", "audit accountant", "report", "tables"}


def _subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    actions = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return dict(actions[0].choices) if actions else {}


def _examples(command: str) -> list[str]:
    """The example lines of ``command``'s epilog (and its subcommands'), from the parser."""
    p = _subparsers(build_parser(command))[command]
    lines = [line.strip() for line in (p.epilog or "").splitlines() if line.startswith("  gdpproof ")]
    for name, q in _subparsers(p).items():
        own = [line.strip() for line in (q.epilog or "").splitlines() if line.startswith("  gdpproof ")]
        assert own and set(own) <= set(lines), (command, name)  # each subcommand shows its own examples
        assert all(e.startswith(f"gdpproof {command} {name} ") for e in own)
    return lines


CASES = [(c, e) for c in COMMANDS for e in _examples(c)]


def test_every_command_shows_examples_in_its_help(capsys):
    for command in COMMANDS:
        examples = _examples(command)
        assert examples and all(e.startswith(f"gdpproof {command} ") for e in examples), command
        assert main([command, "--help"]) == 0
        out = capsys.readouterr().out
        assert all(f"  {e}\n" in out for e in examples), out  # shown whole, not wrapped


@pytest.mark.parametrize(("command", "example"), CASES, ids=[e[9:60] for _, e in CASES])
def test_help_example_runs(command, example, capsys, monkeypatch):
    argv = shlex.split(example)[1:]
    monkeypatch.chdir(ROOT)  # examples name files relative to a clone (examples/, gdpproof/reference/data/)
    if any(" ".join(argv).startswith(p) for p in PARSED_ONLY):
        args = build_parser(command).parse_args(argv)
        assert args.command == command
        return
    code = main(argv)
    out, err = capsys.readouterr()
    assert code == 0, err
    assert out.strip() and "gdpproof: error" not in err

