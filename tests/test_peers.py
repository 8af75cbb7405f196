"""Installed peer libraries use the same conventions and agree in the benign regime.

A first cross-check, not the audit (that grid concentrates where implementations fail):
dp_accounting's analytic Gaussian mechanism (Balle & Wang 2018) against the certified values,
with sensitivity 1 so that sigma = 1/mu.  Skipped when the `peers` extra is not installed.
"""

from __future__ import annotations

import pytest

import gdpproof

gm = pytest.importorskip("dp_accounting.gaussian_mechanism", reason="the peers extra (dp-accounting) is not installed")

GRID = [(sigma, delta) for sigma in (0.5, 1.0, 3.0) for delta in (1e-3, 1e-5, 1e-9)]


@pytest.mark.parametrize(("sigma", "delta"), GRID)
def test_dp_accounting_epsilon_agrees(sigma, delta):
    theirs = gm.get_epsilon_gaussian(sigma, delta)
    ours = float(gdpproof.epsilon_from_delta(1 / sigma, delta, digits=20))
    # their bisection stops at tol = 1e-12 (absolute): agreement to 1e-9 relative is expected
    assert theirs == pytest.approx(ours, rel=1e-9, abs=1e-11)


@pytest.mark.parametrize(("epsilon", "delta"), [(0.5, 1e-5), (1.0, 1e-5), (4.0, 1e-9)])
def test_dp_accounting_sigma_agrees(epsilon, delta):
    theirs = gm.get_sigma_gaussian(epsilon, delta)
    ours = float(gdpproof.sigma_from_epsilon_delta(epsilon, delta, digits=20))
    assert theirs == pytest.approx(ours, rel=1e-9)
