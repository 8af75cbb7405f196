"""The verification report: runs gdpproof's checks end to end and writes HTML and JSON.

``write_report(out)`` evaluates every trade-off family at certified precision, cross-checks the
ball-arithmetic route against the lambdified mpmath route and the float64 path, checks validity
and duality, composition, the CLT, subsampling, DP-SGD, Monte Carlo, the shipped tables, drawn
properties, the peer libraries and the derivations, and writes ``out/index.html`` (tables and,
when matplotlib is installed, plots) and ``out/summary.json`` (every number as a decimal string).

Three parts, none holding mathematics of its own (every value comes from the library):
:mod:`gdpproof.report.checks` (one function per check, each returning a ``CheckResult``;
``report_checks`` lists them), :mod:`gdpproof.report.runner` (runs them, with progress and
timing, into a summary; ``write_report``) and :mod:`gdpproof.report.render` (writes
``summary.json`` and ``index.html``; :mod:`gdpproof.report.figures` draws the figure).
"""

from __future__ import annotations

from .runner import write_report

__all__ = ["write_report"]
