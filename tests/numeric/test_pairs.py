"""The pairs discretization (gdpproof.numeric.pairs): dominating and dominated grid masses."""

from __future__ import annotations

import mpmath
import numpy as np
import pytest

import gdpproof.numeric.pairs as pairs
from gdpproof.errors import InvalidParameterError, PrecisionError
from gdpproof.numeric.intlattice import grid_step_exact
from gdpproof.numeric.pld import (GaussianLoss, RandomizedResponseLoss, SubsampledGaussianLoss, compose_losses,
                                  delta_bracket, epsilon_bracket)


def test_four_gaussians_hold_g1():
    # G_{1/2} four times is G_1: delta(eps) = Phi(-eps + 1/2) - e^eps Phi(-eps - 1/2)
    c = compose_losses([(GaussianLoss(0.5), 4)], grid_step=2e-3, discretization="pairs")
    assert c.discretization == "pairs" and c.eta == 0.0
    for eps in (0.0, 0.3, 1.0, 3.0):
        value = float(mpmath.ncdf(-eps + 0.5) - mpmath.exp(eps) * mpmath.ncdf(-eps - 0.5))
        for b in c.delta_by_ordering(eps).values():
            assert b.lower <= value <= b.upper
            assert b.width <= 2e-4 * max(value, 1e-3)


def test_one_heavy_step_matches_the_coupling():
    # sigma 0.5: a loss piled at its minimum log(1 - p) and a long right tail, on a coarse grid
    loss = SubsampledGaussianLoss(0.5, 0.01)
    c = compose_losses([(loss, 1)], grid_step=0.01, discretization="pairs")
    ref = compose_losses([(loss, 1)], grid_step=2e-4)
    for eps in (0.0, 0.5, 2.0, 6.0):
        got, want = c.delta_by_ordering(eps), ref.delta_by_ordering(eps)
        for name in got:
            assert got[name].lower <= want[name].upper and want[name].lower <= got[name].upper
        # second order: narrower than the coupling on a grid 50 times finer, away from eps = 0
        # (where the loss's pile at log(1 - p) puts a kink of D inside a cell of this grid)
        if eps > 0:
            assert got["remove"].width <= 0.2 * want["remove"].width + 1e-15


def test_composition_meets_the_coupling():
    loss = SubsampledGaussianLoss(1.0, 0.02)
    c = compose_losses([(loss, 300)], grid_step=1e-3, eta=1e-9, discretization="pairs")
    ref = compose_losses([(loss, 300)], grid_step=1e-4, eta=1e-9)
    a, b = c.epsilon(1e-5), ref.epsilon(1e-5)
    assert a.lower <= b.upper and b.lower <= a.upper
    assert a.width < b.width


def test_the_lower_curve_is_checked(monkeypatch):
    real = pairs._lower_masses

    def inflated(*args):
        p = real(*args)
        p[len(p) // 2] += 1e-3  # a mass the chords do not allow
        return p

    monkeypatch.setattr(pairs, "_lower_masses", inflated)
    with pytest.raises(PrecisionError, match="lower curve"):
        pairs.pair_steps(GaussianLoss(1.0), grid_step_exact(0.01), 1e-12)


def test_refusals():
    with pytest.raises(InvalidParameterError, match="discretization"):
        compose_losses([(GaussianLoss(1.0), 2)], discretization="dots")
    with pytest.raises(PrecisionError, match="atoms"):
        compose_losses([(RandomizedResponseLoss(1.0), 2)], discretization="pairs")


def test_epsilon_bracket_takes_pairs_where_they_pay():
    # sigma 2, p 0.001: the coupling's grid would be about 12 times finer
    b, comp = epsilon_bracket([(SubsampledGaussianLoss(2.0, 0.001), 100_000)], 1e-5)
    assert comp.discretization == "pairs" and comp.target_met
    assert b.lower < 0.6035 < b.upper and b.relative_width <= 0.01  # dp_accounting's PLD: 0.6035
    assert np.isfinite(comp.honest_mu().mu.upper)


def test_delta_bracket_takes_pairs():
    # delta(1.8) of DP-SGD (sigma 1, p 0.01, T 1000): one pairs grid; the coupling took 4 grids
    b, comp = delta_bracket([(SubsampledGaussianLoss(1.0, 0.01), 1000)], 1.8)
    assert comp.discretization == "pairs" and comp.passes == 1 and b.width <= 0.01 * b.upper
    eps = comp.epsilon(b.upper)
    assert eps.lower <= 1.8  # the same composition's eps at the upper delta
