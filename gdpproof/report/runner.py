"""Runs the report's checks: progress, timing, and the summary that :mod:`gdpproof.report.render` writes."""

from __future__ import annotations

import json
import os
import platform
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, TextIO

from .._progress import Progress
from .._version import __version__
from ..errors import GdpproofError, bad
from ..numeric.engine.certify import check_request
from .checks import PEER_AUDITS, Check, CheckResult, Outcome, report_checks
from .figures import topic_figures
from .notebooks import render_notebooks
from .render import write_files

__all__ = ["CheckRun", "run_checks", "summarize", "environment", "measured_durations", "write_report"]


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


def _notebooks(folder: Path, progress: bool, stream: TextIO | None = None) -> list[dict[str, str]]:
    """The notebooks rendered, with progress as the checks have it (a bar on a terminal, a line
    per notebook otherwise)."""
    from .notebooks import NOTEBOOKS

    stream = sys.stderr if stream is None else stream
    total = len(list(NOTEBOOKS.glob("*.ipynb")))
    bar = Progress(max(total, 1), "notebooks", unit="notebooks", enabled=progress and stream.isatty(), stream=stream,
                   eta=False)
    if progress and not bar.enabled and total:
        print(f"notebooks: running {total} (minutes)", file=stream, flush=True)
    done = [0]

    def one(name: str) -> None:
        done[0] += 1
        if progress and not bar.enabled:
            print(f"[{done[0]:>2}/{total}] notebook {name}", file=stream, flush=True)
        bar.advance(1, note=name)

    rows = render_notebooks(folder, progress=one)
    bar.close()
    return rows


def run_checks(checks: Sequence[Check], *, progress: bool = True, stream: TextIO | None = None,
               measured: Mapping[str, float] | None = None) -> list[CheckRun]:
    """Run the checks in order.  Progress on ``stream`` (stderr by default): a redrawn bar on a terminal,
    one line per check otherwise (a bar's carriage returns garble a log).

    The time left is shown only when ``measured`` (check name -> seconds, from an earlier
    report's summary.json) has a duration for every check still to run: it is their sum.  The
    checks' durations differ by four orders of magnitude, so an average over the checks done
    would say nothing; without measurements there is no estimate.
    """
    stream = sys.stderr if stream is None else stream
    bar = Progress(len(checks), "report", unit="checks", enabled=progress and stream.isatty(), stream=stream,
                   eta=False)
    runs = []
    for i, check in enumerate(checks, 1):
        bar.advance(0, note=check.name)  # the check now running
        run = run_one(check)
        runs.append(run)
        mark = {Outcome.FAILED: "FAIL", Outcome.SKIPPED: "skip"}.get(run.result.outcome, "ok  ")
        left = _time_left(checks[i:], measured)
        if progress and not bar.enabled:
            eta = "" if left is None else f", ~{left:.0f} s left by the last report's timings"
            print(f"[{i:>2}/{len(checks)}] {mark} {check.name} ({run.seconds:.2f} s{eta})", file=stream, flush=True)
        note = f"FAILED: {check.name}" if not run.result.passed else \
            ("" if left is None else f"~{left:.0f} s left (last report's timings)")
        bar.advance(1, note=note)
    bar.close()
    return runs


def _time_left(remaining: Sequence[Check], measured: Mapping[str, float] | None) -> float | None:
    """The measured seconds of the remaining checks; None when there are none or one was never measured."""
    if measured is None or not remaining or any(c.name not in measured for c in remaining):
        return None
    return sum(measured[c.name] for c in remaining)


def measured_durations(summary_json: Path) -> dict[str, float] | None:
    """Each check's seconds in an earlier report's summary.json (None if there is none to read)."""
    try:
        data = json.loads(summary_json.read_text())
        return {str(r["check"]): float(r["seconds"]) for r in data["checks"]}
    except (OSError, ValueError, KeyError, TypeError):
        return None


def summarize(runs: Sequence[CheckRun], *, digits: int, quick: bool, index: Path,
              seconds: float | None = None) -> dict[str, Any]:
    """The summary (what summary.json holds): one row per check; gdpproof's own checks counted as
    ``passed``, ``skipped``, ``failed`` and ``total``, and the peer audits apart (``peer_audits``:
    how many ran, how many were skipped, how many of those that ran have material unsafe findings,
    and their findings by severity), since a peer's findings are results about the peer; the date
    (UTC), the total duration and the environment (:func:`environment`, with the version of every
    peer audited)."""
    rows = [r.row() for r in runs]
    own = [r.result.outcome for r in runs if r.check.section != PEER_AUDITS]
    audits = [r for r in runs if r.check.section == PEER_AUDITS]
    ran = [r for r in audits if r.result.outcome is Outcome.RAN]
    peers = {r.check.name.split(": ", 1)[-1]: r.result.data.get("report", {}).get("version", "") for r in ran}
    reports = [r.result.data.get("report", {}) for r in ran]
    by_severity: dict[str, int] = {}
    for report in reports:
        for f in report.get("findings", []):
            by_severity[f["severity"]] = by_severity.get(f["severity"], 0) + 1
    total = sum(r.seconds for r in runs) if seconds is None else seconds
    return {"gdpproof": __version__, "digits": digits, "certified": "arb", "quick": quick,
            "passed": sum(o is Outcome.PASSED for o in own), "skipped": sum(o is Outcome.SKIPPED for o in own),
            "failed": sum(o is Outcome.FAILED for o in own), "total": len(own),
            "peer_audits": {"ran": len(ran), "skipped": sum(r.result.outcome is Outcome.SKIPPED for r in audits),
                            "failed": sum(r.result.outcome is Outcome.FAILED for r in audits),
                            "with_material_unsafe": sum(report.get("ok") is False for report in reports),
                            "findings": by_severity},
            "date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
            "seconds": f"{total:.1f}", "environment": environment(peers), "checks": rows, "index": str(index)}


#: The distributions gdpproof's results depend on (their versions go into summary.json).
CORE = ("sympy", "mpmath", "numpy", "scipy", "hypothesis", "python-flint")


def environment(peers: Mapping[str, str] | None = None) -> dict[str, Any]:
    """Python, the platform, and the versions of gdpproof, its core dependencies and the peers audited."""
    from importlib import metadata

    def version(dist: str) -> str:
        try:
            return metadata.version(dist)
        except metadata.PackageNotFoundError:
            return "not installed"

    return {"python": platform.python_version(), "implementation": platform.python_implementation(),
            "platform": platform.platform(), "machine": platform.machine(), "gdpproof": __version__,
            "dependencies": {d: version(d) for d in CORE}, "peers": dict(peers or {})}


def write_report(out: str | os.PathLike[str], *, digits: int = 30, progress: bool = True,
                 quick: bool = False, notebooks: bool = True) -> dict:
    """Run every check and write ``index.html`` and ``summary.json`` into ``out``.

    ``quick=True`` skips the derivations (run by the test suite), the peer audits, the
    numerical-composition figures and the notebooks, for a report in well under a minute.
    Otherwise, with ``notebooks=True``, the example notebooks of a source checkout are executed
    and rendered into ``out/notebooks/`` (:mod:`gdpproof.report.notebooks`).

    Returns the summary dictionary (also written as JSON), with ``passed``, ``skipped``,
    ``failed`` and ``total``, the date, the duration and the environment.  The time left is
    estimated from the durations in an earlier ``out/summary.json``, or not shown.
    """
    check_request(digits, "up")
    folder = Path(out)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise bad("out", str(out), f"cannot be created: {exc.strerror}") from None
    start = time.perf_counter()
    runs = run_checks(report_checks(digits, quick=quick), progress=progress,
                      measured=measured_durations(folder / "summary.json"))
    figures = topic_figures(quick=quick)
    rendered = _notebooks(folder, progress) if notebooks and not quick else []
    summary = summarize(runs, digits=digits, quick=quick, index=folder / "index.html",
                        seconds=time.perf_counter() - start)
    summary["notebooks"] = rendered
    summary["figures"] = [{"title": f.title, "caption": f.caption} for f in figures]
    write_files(folder, summary, figures)
    return summary
