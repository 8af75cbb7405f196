"""Subsampling C_p(f) = min{f_p, f_p^{-1}}** (Dong–Roth–Su Thm 4.2).

gdpproof builds C_p(f) from the closed-form description (f_p, a slope -1 segment, f_p^{-1})
for symmetric f, as an exact hull for piecewise-linear f, and as a numeric envelope otherwise;
the reference here is the definition itself, computed independently: the lower convex hull of
min{f_p, f_p^{-1}} sampled on a fine grid (numpy, monotone-chain hull).  The properties (valid,
symmetric, between f and Id, the p = 0 and p = 1 ends) are checked on certified values.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

import gdpproof
from gdpproof.numeric.engine._mp import arb_precision
from gdpproof.numeric.engine.special import arb_implicit_inverse
from gdpproof.symbols import alpha as ALPHA
from tests import oracles


def hull_reference(f_fast, p: float, grid: int = 200_001):
    """The lower convex envelope of min{f_p, f_p^{-1}}, from a grid of 2e5 points."""
    a = np.linspace(0, 1, grid)
    fp = p * f_fast(a) + (1 - p) * (1 - a)
    order = np.argsort(fp, kind="stable")
    inv = np.interp(a, fp[order], a[order], left=1.0, right=0.0)
    inv = np.where(a >= fp[0], 0.0, inv)
    h = np.minimum(fp, inv)
    hx: list[float] = []
    hy: list[float] = []
    for x, y in zip(a, h):
        while len(hx) >= 2 and (hx[-1] - hx[-2]) * (y - hy[-2]) - (hy[-1] - hy[-2]) * (x - hx[-2]) <= 0:
            hx.pop()
            hy.pop()
        hx.append(x)
        hy.append(y)
    return lambda x: np.interp(x, hx, hy)


#: Error of the grid reference: chords over a 5e-6 grid; measured at most 2e-6 (G_3 near 0,
#: where the slope is unbounded), so 1e-5 separates grid error from a wrong formula (the
#: looser f_{eps', p delta} differs by 0.07 in these cases).
GRID_TOLERANCE = 1e-5


@pytest.mark.parametrize("f, p", [
    (gdpproof.gaussian(1), 0.1),
    (gdpproof.gaussian(3), 0.5),
    (gdpproof.gaussian("0.3"), 0.9),
    (gdpproof.randomized_response(1), 0.3),
    (gdpproof.eps_delta(1, "0.01"), 0.3),
    (gdpproof.eps_delta(2, "0.1"), 0.5),
    (gdpproof.laplace(1), 0.3),
    (gdpproof.with_delta(gdpproof.gaussian(1), "0.05"), 0.2),
    (gdpproof.rr_composition("0.5", 10), 0.3),
    # non-symmetric, piecewise linear: the exact hull of the vertices of f_p and f_p^{-1}
    (gdpproof.TradeOff(sympy.Piecewise((1 - 3 * ALPHA, ALPHA <= sympy.Rational(1, 5)),
                                       (sympy.Rational(1, 2) - ALPHA / 2, True)), name="asym"), 0.3),
    (gdpproof.TradeOff(sympy.Max(1 - sympy.Rational(3, 2) * ALPHA, sympy.Rational(19, 20) - ALPHA,
                                 sympy.Rational(3, 5) * (1 - ALPHA)), name="crossing"), 0.6),
    # non-symmetric, curved: the numeric envelope (tests/numeric/test_envelope.py)
    (gdpproof.TradeOff((1 - ALPHA) ** 3, name="cube"), 0.4),
    # ... with three crossings of f_p and f_p^{-1}: bridges of slopes -1 and a reciprocal pair
    (gdpproof.TradeOff(sympy.Max(1 - sympy.Rational(3, 2) * ALPHA, sympy.Rational(19, 20) - ALPHA,
                                 sympy.Rational(3, 5) * (1 - ALPHA)) + ALPHA * (ALPHA - 1) / 20,
                       name="curved_crossing"), 0.6),
])
def test_subsample_is_the_convex_envelope_of_the_definition(f, p):
    c = gdpproof.subsample(f, p)
    x = np.linspace(0, 1, 2001)
    ref = hull_reference(f.evaluate_fast, p)
    assert np.abs(c.evaluate_fast(x) - ref(x)).max() < GRID_TOLERANCE


def test_subsample_of_randomized_response_is_tighter_than_the_classical_amplification():
    """C_p(f_{eps,0}) lies above f_{eps',0} with eps' = log(1 - p + p e^eps), strictly in the middle."""
    import math

    c = gdpproof.subsample(gdpproof.randomized_response(1), "0.3")
    classic = gdpproof.randomized_response(math.log(1 - 0.3 + 0.3 * math.e))
    x = np.linspace(0, 1, 101)
    gap = c.evaluate_fast(x) - classic.evaluate_fast(x)
    assert gap.min() > -1e-12 and gap.max() > 0.05


MU = st.decimals("0.05", "5", places=2).map(str)
P = st.decimals("0.01", "0.99", places=2).map(str)
A = st.fractions(0, 1, max_denominator=10**6)


# each example builds and compiles a new C_p(G_mu) (about 0.05 s): 60 of them, not the CI profile's 200
@settings(max_examples=60)
@given(mu=MU, p=P, a=A)
def test_subsampled_gaussian_lies_between_f_and_identity(mu, p, a):
    c = gdpproof.subsample(gdpproof.gaussian(mu), p)
    g = gdpproof.gaussian(mu)
    # fails only on a proven violation: the larger side rounded up, the smaller down
    assert c.evaluate(a, digits=20, rounding="up") >= g.evaluate(a, digits=20, rounding="down")
    assert c.evaluate(a, digits=20, rounding="down").to_fraction() <= 1 - a


@settings(max_examples=60)
@given(mu=MU, p=P, a=st.fractions(0, 1, max_denominator=1000))
def test_subsampled_gaussian_is_symmetric(mu, p, a):
    """C(C(alpha)) = alpha, by the lambdified mpmath route at 40 digits (tolerance 1e-30)."""
    c = gdpproof.subsample(gdpproof.gaussian(mu), p)
    b = oracles._frac(c.evaluate_mpmath(a, dps=40))
    back = oracles._frac(c.evaluate_mpmath(b, dps=40))
    assert abs(back - a) < Fraction(1, 10**30)


def test_subsample_ends():
    g = gdpproof.gaussian(1)
    assert gdpproof.subsample(g, 1) == g
    assert gdpproof.subsample(g, 0).name == "identity"


def test_subsampled_gaussian_is_a_valid_tradeoff_function():
    report = gdpproof.subsample(gdpproof.gaussian(2), "0.2").check(points=24, digits=15)
    assert report.ok, report


def test_subsampled_gaussian_is_symbolic_in_mu_and_p():
    c = gdpproof.subsample(gdpproof.gaussian(1), "0.1")
    c2 = c.substitute(mu=2, p="0.5")
    assert c2.evaluate("0.3", digits=15) == gdpproof.subsample(gdpproof.gaussian(2), "0.5").evaluate("0.3", digits=15)


def test_subsampled_gaussian_three_routes_agree():
    c = gdpproof.subsample(gdpproof.gaussian("1.5"), "0.05")
    x = np.array([0.0, 1e-8, 0.01, 0.2, 0.45, 0.5, 0.7, 0.99, 1.0])
    fast = c.evaluate_fast(x)
    for xi, fi in zip(x, fast):
        cert = c.evaluate(float(xi), digits=25, rounding="nearest")
        mp = c.evaluate_mpmath(float(xi), dps=25)
        assert abs(float(cert) - float(mp)) <= 1e-22 * max(1.0, abs(float(cert)))
        assert abs(float(cert) - fi) <= 1e-12


@pytest.mark.parametrize("v", ["0", "0.1", "0.5", "0.999", "1"])
def test_implicit_inverse_encloses_the_root(v):
    """g(t) = (1 - t)^3 has inverse 1 - v^(1/3); the ball must contain it and be narrow."""
    import flint

    with arb_precision(200):
        vb = flint.arb(v)
        out = arb_implicit_inverse(lambda t: (1 - t) ** 3, lambda t: -3 * (1 - t) ** 2, vb)
        exact = 1 - vb ** (flint.arb(1) / 3) if v != "0" else flint.arb(1)
        assert out.overlaps(exact)
        assert out.rad() < flint.arb(2) ** -150


def test_subsample_refuses_a_bad_probability():
    with pytest.raises(gdpproof.InvalidParameterError, match="p=2"):
        gdpproof.subsample(gdpproof.gaussian(1), 2)


# -- regressions from review --------------------------------------------------------------------


def test_subsampled_delta_of_piecewise_families_is_the_conjugate():
    """delta(eps) = max_alpha (1 - e^eps alpha - C_p(f)(alpha)); the grid maximum is a lower bound
    within (slope range) x (grid step) of the true value.  (Once crashed: a piecewise body inside
    the implicit inverse was folded out of its Lambda.)"""
    import math

    c = gdpproof.subsample(gdpproof.laplace("0.7"), "0.5")
    a = np.linspace(0, 1, 400_001)
    grid_max = float(np.max(1 - math.exp(0.1) * a - c.evaluate_fast(a)))
    d = float(c.delta("0.1", digits=10))
    assert grid_max - 1e-12 <= d <= grid_max + 1e-4


def test_functionals_of_subsampled_curves_with_zero_tail_are_refused():
    c = gdpproof.subsample(gdpproof.with_delta(gdpproof.gaussian("0.02"), "1e-4"), "0.5")
    with pytest.raises(gdpproof.InvalidParameterError, match="kl.*infinite"):
        gdpproof.functionals(c)
    with pytest.raises(gdpproof.InvalidParameterError, match="kl.*infinite"):
        gdpproof.berry_esseen(c, n=100)


def test_functionals_of_subsampled_randomized_response_and_laplace_run():
    for f in (gdpproof.randomized_response(1), gdpproof.laplace(1)):
        fl = gdpproof.functionals(gdpproof.subsample(f, "0.5"), digits=8)
        assert 0 < float(fl.kl) < float(gdpproof.kl(f, digits=8))
