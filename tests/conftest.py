"""Shared test configuration: Hypothesis profiles, a guard on global precision state, and a
table journal key of the suite's own (``GDPPROOF_KEY_FILE``).

Profiles
--------
``default``  25 examples per property, no deadline (certified evaluation has variable cost).
``ci``       100 examples, derandomized (reproducible on every run), no deadline, and the
             ``too_slow`` health check suppressed (certified values can take milliseconds).

Select one with the environment variable ``HYPOTHESIS_PROFILE`` (``default`` if unset), e.g.
``HYPOTHESIS_PROFILE=ci python -m pytest -p no:cacheprovider -q tests``.

Neither profile writes an example database: the suite leaves no ``.hypothesis`` directory
behind, and ``ci`` is reproducible by derandomization rather than by replaying a database.
"""

from __future__ import annotations

import os

import flint
import mpmath
import pytest
from hypothesis import HealthCheck, settings

settings.register_profile("default", max_examples=25, deadline=None, database=None)
# CI: derandomized, 100 examples per property (200 cost about 40 s more of the 300 s budget)
settings.register_profile(
    "ci",
    max_examples=100,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))


@pytest.fixture(autouse=True, scope="session")
def _journal_key_file(tmp_path_factory):
    """Table journals written by the suite are signed with a key made in a temporary folder, never
    the user's own (``~/.config/gdpproof/journal.key``); subprocesses and notebook kernels started
    from ``os.environ`` inherit it."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("GDPPROOF_KEY_FILE", str(tmp_path_factory.mktemp("journal-key") / "journal.key"))
        yield


@pytest.fixture(autouse=True)
def _global_precision_unchanged():
    """Fail any test that leaves ``mpmath.mp.prec`` (or python-flint's precision) changed.

    gdpproof promises to run mpmath code in private contexts and arb code under a precision
    that is restored afterwards; a leak would silently change every later computation of the
    caller.  The previous value is restored before failing so one leak does not cascade.
    """
    mp_before = mpmath.mp.prec
    flint_before = flint.ctx.prec
    yield
    mp_after = mpmath.mp.prec
    flint_after = flint.ctx.prec
    mpmath.mp.prec = mp_before
    flint.ctx.prec = flint_before
    if mp_after != mp_before:
        pytest.fail(f"the test left mpmath.mp.prec changed: {mp_before} -> {mp_after}")
    if flint_after != flint_before:
        pytest.fail(f"the test left flint.ctx.prec changed: {flint_before} -> {flint_after}")


@pytest.fixture(scope="session")
def notebooks(tmp_path_factory):
    """The example notebooks, each executed once per session (tests/notebooks_once.py); skipped,
    with the reason, when the ``notebooks`` extra is not installed."""
    for module in ("nbformat", "nbclient", "ipykernel"):
        pytest.importorskip(module, reason="the notebooks extra is not installed")
    pytest.importorskip("matplotlib", reason="the plot extra is not installed")
    from .notebooks_once import NotebookRunner

    runner = NotebookRunner(tmp_path_factory.mktemp("executed") / "notebooks")
    yield runner
    runner.close()


@pytest.fixture(scope="session")
def full_report(tmp_path_factory):
    """``gdpproof report`` run once per session (tests/report/once.py): (exit code, stdout,
    summary.json, output folder).  tests/report asserts on it; the browser test opens it."""
    from .report.once import run_report

    out = tmp_path_factory.mktemp("report")
    code, stdout, summary = run_report(out)
    return code, stdout, summary, out
