"""Runs the report's checks: progress, timing, and the summary that :mod:`gdpproof.report.render` writes."""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from .._progress import Progress
from .._version import __version__
from ..errors import GdpproofError, InvalidParameterError
from ..numeric.certify import _check_request
from .checks import Check, CheckResult, Outcome, report_checks
from .figures import figure_png
from .render import write_files

__all__ = ["CheckRun", "run_checks", "summarize", "write_report"]


@dataclass(frozen=True)
class CheckRun:
    """A check, what it found, and how long it took (wall-clock seconds)."""

    check: Check
    result: CheckResult
    seconds: float

    def row(self) -> dict[str, Any]:
        """The check's row of summary.json."""
        return {"check": self.check.name, "passed": self.result.passed, "status": self.result.outcome.value,
                "section": self.check.section, "detail": self.result.detail, "data": self.result.data,
                "seconds": f"{self.seconds:.3f}"}


def run_one(check: Check) -> CheckRun:
    """Run one check.  A :class:`GdpproofError` it raises (a value that cannot be certified, say) is its
    failure; any other exception is a bug and propagates."""
    t0 = time.perf_counter()
    try:
        result = check.run()
    except GdpproofError as exc:
        result = CheckResult(Outcome.FAILED, f"{type(exc).__name__}: {exc}")
    return CheckRun(check, result, time.perf_counter() - t0)


def run_checks(checks: Sequence[Check], *, progress: bool = True, stream: TextIO | None = None) -> list[CheckRun]:
    """Run the checks in order.  Progress on ``stream`` (stderr by default): a redrawn bar on a terminal,
    one line per check otherwise (a bar's carriage returns garble a log)."""
    stream = sys.stderr if stream is None else stream
    bar = Progress(len(checks), "report", unit="checks", enabled=progress and stream.isatty(), stream=stream)
    start = time.perf_counter()
    runs = []
    for i, check in enumerate(checks, 1):
        bar.advance(0, note=check.name)  # the check now running
        run = run_one(check)
        runs.append(run)
        ok = run.result.passed
        if progress and not bar.enabled:
            eta = (time.perf_counter() - start) / i * (len(checks) - i)
            print(f"[{i:>2}/{len(checks)}] {'ok  ' if ok else 'FAIL'} {check.name} "
                  f"({run.seconds:.2f} s, ~{eta:.0f} s left)", file=stream, flush=True)
        bar.advance(1, note="" if ok else f"FAILED: {check.name}")
    bar.close()
    return runs


def summarize(runs: Sequence[CheckRun], *, digits: int, quick: bool, index: Path) -> dict[str, Any]:
    """The summary (what summary.json holds): one row per check, ``passed`` and ``total``."""
    rows = [r.row() for r in runs]
    return {"gdpproof": __version__, "digits": digits, "certified": "arb", "quick": quick,
            "passed": sum(r["passed"] for r in rows), "total": len(rows), "checks": rows, "index": str(index)}


def write_report(out: str | os.PathLike[str], *, digits: int = 30, progress: bool = True,
                 quick: bool = False) -> dict:
    """Run every check and write ``index.html`` and ``summary.json`` into ``out``.

    ``quick=True`` skips the derivations (run by the test suite), the peer audits and the
    numerical-composition figures, for a report in well under a minute.  Returns the summary dictionary (also written as
    JSON), with ``passed`` and ``total``.
    """
    _check_request(digits, "up")
    folder = Path(out)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InvalidParameterError(f"out={str(out)!r} cannot be created: {exc.strerror}") from None
    runs = run_checks(report_checks(digits, quick=quick), progress=progress)
    figure = figure_png(quick=quick)
    summary = summarize(runs, digits=digits, quick=quick, index=folder / "index.html")
    write_files(folder, summary, figure)
    return summary
