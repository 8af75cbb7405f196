"""Each check of the report runs at most once per test session.

The full report runs in the suite (tests/report/test_report.py), and so do its parts that have
tests of their own: every derivation (tests/test_derivations.py) and the quick report.  They all
go through :func:`run_once`, which runs a check the first time it is asked for and hands the same
:class:`~gdpproof.report.runner.CheckRun` to every later caller: a slow check runs once, and
every test that needs it asserts on that one result.
"""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

import pytest

from gdpproof.cli import main
from gdpproof.report import runner
from gdpproof.report.checks import Check, report_checks

_RUNS: dict[tuple[str, str], runner.CheckRun] = {}

#: The digits at which the suite runs the report's checks (the report's default is 30).
DIGITS = 20

_run_one = runner.run_one  # the real one, before a test patches the runner to use run_once


def run_once(check: Check) -> runner.CheckRun:
    """``runner.run_one(check)``, computed once per session (checks are told apart by name and arguments)."""
    key = (check.name, repr(check.run))
    if key not in _RUNS:
        _RUNS[key] = _run_one(check)
    return _RUNS[key]


def check_named(name: str) -> Check:
    """The report's check called ``name`` (at :data:`DIGITS`)."""
    matches = [c for c in report_checks(DIGITS) if c.name == name]
    if len(matches) != 1:
        raise LookupError(f"the report has {len(matches)} checks named {name!r}")
    return matches[0]


def run_report(out: Path, *extra: str) -> tuple[int, str, dict]:
    """``gdpproof report --out out`` (at :data:`DIGITS`, without the notebooks) through the command
    line, its checks computed by :func:`run_once`: (exit code, stdout, summary.json)."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(runner, "run_one", run_once)
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            # --no-notebooks: tests/test_notebooks.py runs them; the renderer is tested on its own
            code = main(["report", "--out", str(out), "--digits", str(DIGITS), "--quiet", "--no-notebooks", *extra])
    return code, buf.getvalue(), json.loads((out / "summary.json").read_text())
