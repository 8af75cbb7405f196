"""Certified duality operations cross-checked against closed forms."""

from __future__ import annotations

from fractions import Fraction

import pytest

import gdpproof
from tests.oracles import assert_certified, gaussian_tradeoff


def generic(f):
    """The same function with its closed forms hidden: forces the generic numeric routes."""
    return gdpproof.TradeOff(f.template, f.params, f"generic-{f.name}", f.symmetric)


@pytest.mark.parametrize("mu", ["0.1", "1", "4"])
@pytest.mark.parametrize("eps", ["0", "0.7", "3"])
def test_conjugate_route_equals_closed_form_delta(mu, eps):
    g = gdpproof.gaussian(mu)
    assert generic(g).delta(eps, digits=25) == g.delta(eps, digits=25)


def test_laplace_delta_profile():
    # Laplace(mu) is mu-DP, and delta(eps) = 1 - exp((eps - mu)/2) for eps < mu
    import mpmath

    f = gdpproof.laplace(2)
    assert f.delta(2, digits=10) == 0 and f.delta(3, digits=10) == 0
    d = f.delta(1, digits=30)
    ctx = mpmath.MPContext()
    ctx.dps = 80
    exact = 1 - ctx.exp(ctx.mpf(-1) / 2)
    man, e = exact.man_exp
    assert_certified(d, Fraction(int(man)) * Fraction(2) ** int(e), 30)


def test_eps_delta_profile():
    f = gdpproof.eps_delta(1, "0.01")
    assert f.delta(1, digits=20) == gdpproof.Certified("0.01", digits=20, rounding="up", method="exact")
    assert f.delta(5, digits=20) == f.delta(1, digits=20)


def test_conjugate_at_endpoints():
    g = gdpproof.gaussian(1)
    # y >= 0: the supremum is at alpha = 1, f*(y) = y - f(1) = y
    assert g.conjugate_at(2, digits=15) == 2
    # y = -1: f*(-1) = delta(0) - 1
    assert g.conjugate_at(-1, digits=20) == (g.delta(0, digits=40) - 1).quantize(g.conjugate_at(-1, digits=20))


@pytest.mark.parametrize("a", ["1e-6", "0.05", "0.5", "0.95"])
def test_envelope_of_gaussian_profile_is_g_mu(a):
    g = gdpproof.gaussian("1.3")
    env = gdpproof.tradeoff_from_delta(g.delta_expression(), a, digits=20)
    assert env.rounding == "down"
    assert_certified(env, gaussian_tradeoff(Fraction(13, 10), Fraction(a)), 20)


def test_envelope_of_pure_dp_profile_is_randomized_response():
    rr = gdpproof.randomized_response(1)
    prof = rr.delta_expression()
    for a in ("0.1", "0.2689", "0.6"):
        assert gdpproof.tradeoff_from_delta(prof, a, digits=15) == rr.evaluate(a, digits=15)


@pytest.mark.parametrize("f", [gdpproof.randomized_response("0.8"), gdpproof.laplace("1.5")], ids=repr)
def test_tightest_mu_generic_matches(f):
    closed = gdpproof.tightest_mu(f, digits=12)
    gen = gdpproof.tightest_mu(generic(f), digits=12)
    assert gen == closed or f.name == "laplace"
    # and f >= G_mu with the rounded-up mu: check at the touching region
    g = gdpproof.gaussian(gen)
    for a in ("0.01", "0.1", "0.2", "0.3", "0.5"):
        assert g.evaluate(a, digits=15, rounding="up") <= f.evaluate(a, digits=15, rounding="up") + gdpproof.Certified(
            "1e-15", digits=1, rounding="up", method="exact")


def test_tightest_mu_cases():
    assert gdpproof.tightest_mu(gdpproof.gaussian("0.7"), digits=5) == gdpproof.Certified("0.7", digits=5, rounding="up", method="exact")
    assert gdpproof.tightest_mu(gdpproof.eps_delta(1, "1e-9"), digits=5).is_infinite()
    assert gdpproof.tightest_mu(gdpproof.identity(), digits=5) == 0


def test_near_gaussian_tightest_mu_is_refused_not_guessed():
    with pytest.raises(gdpproof.PrecisionError):
        gdpproof.tightest_mu(generic(gdpproof.gaussian(1)), digits=20)


def test_mu_from_points():
    pts = [("0.05", "0.5"), ("0.2", "0.3")]
    v = gdpproof.mu_from_points(pts, digits=20)
    # the first point dominates: Phi^-1(0.95) - Phi^-1(0.5) = Phi^-1(0.95)
    g = gdpproof.gaussian(v)
    assert g.evaluate("0.05", digits=25, rounding="down") <= gdpproof.Certified("0.5", digits=1, rounding="up", method="exact")
    assert gdpproof.mu_from_points([("0.5", "0.6")], digits=5) == 0
    assert gdpproof.mu_from_points([("0", "0.5")], digits=5).is_infinite()


def test_inverse_at_exact_and_symmetric():
    f = gdpproof.eps_delta(0, 0)
    assert f.inverse_at("0.25", digits=10) == gdpproof.Certified("0.75", digits=10, rounding="down", method="exact")
