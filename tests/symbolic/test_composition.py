"""Exact composition: Gaussian (a theorem), n-fold randomized response, and delta factors.

The references are independent of gdpproof's formulas: Neyman–Pearson curves of finite
distributions computed in exact Fractions (tests/oracles.py), for randomized response with a
rational e^eps (eps = log 2, log 3/2, ...), and mpmath sums of binomial terms for other eps.
Comparisons use certified values rounded down and up, so they fail only on a proven error.
"""

from __future__ import annotations

import functools
from fractions import Fraction

import pytest
import sympy
from hypothesis import example, given
from hypothesis import strategies as st

import gdpproof
from gdpproof import NotSupportedError
from tests import oracles

DIGITS = 25


def _between(f, a, exact: Fraction, digits: int = DIGITS) -> None:
    lo = f.evaluate(a, digits=digits, rounding="down").to_fraction()
    hi = f.evaluate(a, digits=digits, rounding="up").to_fraction()
    assert lo <= exact <= hi, (f, a, float(exact), float(lo), float(hi))


# -- Gaussian ---------------------------------------------------------------------------------


def test_gaussian_composition_is_gaussian_with_root_sum_of_squares():
    assert gdpproof.compose(gdpproof.gaussian(1), gdpproof.gaussian(2)) == gdpproof.gaussian(sympy.sqrt(5))
    assert gdpproof.compose(gdpproof.gaussian(3), gdpproof.gaussian(4)) == gdpproof.gaussian(5)
    assert gdpproof.self_compose(gdpproof.gaussian("0.5"), 16) == gdpproof.gaussian(2)


def test_gaussian_composition_is_symbolic():
    a, b = sympy.symbols("a b", positive=True)
    g = gdpproof.compose(gdpproof.gaussian(a), gdpproof.gaussian(b))
    assert sympy.simplify(g.parameters["mu"] - sympy.sqrt(a**2 + b**2)) == 0


def test_identity_and_zero_gaussian_drop_out():
    assert gdpproof.compose(gdpproof.gaussian(1), gdpproof.identity(), gdpproof.gaussian(0)) == gdpproof.gaussian(1)
    assert gdpproof.compose(gdpproof.identity()).name == "identity"


# -- randomized response ----------------------------------------------------------------------

RATIONAL_E = st.sampled_from([Fraction(2), Fraction(3, 2), Fraction(5, 4), Fraction(3), Fraction(11, 10)])


@given(e_eps=RATIONAL_E, n=st.integers(1, 40), a=st.fractions(0, 1, max_denominator=10**6))
@example(e_eps=Fraction(2), n=3, a=Fraction(1, 27))  # a vertex: P(K < 1) = (1/3)^3
@example(e_eps=Fraction(2), n=1, a=Fraction(1, 3))  # the kink of f_{log 2, 0}
@example(e_eps=Fraction(2), n=40, a=Fraction(0))
@example(e_eps=Fraction(2), n=40, a=Fraction(1))
def test_rr_composition_equals_the_neyman_pearson_curve_of_the_product(e_eps, n, a):
    eps = sympy.log(sympy.Rational(e_eps.numerator, e_eps.denominator))
    f = gdpproof.rr_composition(eps, n)
    vertices = oracles.np_vertices(oracles.binomial_pairs(n, e_eps))
    _between(f, a, oracles.curve_at(vertices, a))


@pytest.mark.parametrize("n", [1, 2, 5, 8])
def test_binomial_grouping_is_the_full_product(n):
    """The 2^n-outcome product and the binomial grouping give the same curve (the oracle's own check)."""
    e = Fraction(3, 2)
    full = oracles.np_vertices(oracles.product(*[oracles.rr_pairs(e)] * n))
    grouped = oracles.np_vertices(oracles.binomial_pairs(n, e))
    for k in range(0, 101):
        a = Fraction(k, 100)
        assert oracles.curve_at(full, a) == oracles.curve_at(grouped, a)


@given(eps=st.decimals("0.001", "3", places=3), n=st.integers(1, 300), a=st.fractions(0, 1, max_denominator=10**9))
def test_rr_composition_against_mpmath_sums(eps, n, a):
    f = gdpproof.rr_composition(str(eps), n)
    # the oracle's running sums cancel by up to e^{-eps n}: carry eps n / ln 10 extra digits
    dps = 60 + int(float(eps) * n / 2.3)
    oracles.assert_certified(f.evaluate(a, digits=20, rounding="nearest"), oracles.rr_composition_mp(eps, n, a, dps), 20)


N_100000_ALPHAS = ("0.05", "0.5", "0.999")


@functools.cache
def _n_100000_oracle() -> dict[str, Fraction]:
    """The mpmath sums at every alpha of the test below, from one walk over the 10^5 terms."""
    values = oracles.rr_composition_mp_many(Fraction(1, 100), 100_000, [Fraction(a) for a in N_100000_ALPHAS], dps=50)
    return dict(zip(N_100000_ALPHAS, values))


@pytest.mark.parametrize("a", N_100000_ALPHAS)
def test_rr_composition_at_n_100000_is_certified(a):
    """n = 10^5, eps = 0.01 (eps sqrt(n) = 3.16): 20 certified digits against a 10^5-term mpmath sum."""
    f = gdpproof.rr_composition("0.01", 100_000)
    oracles.assert_certified(f.evaluate(a, digits=20, rounding="nearest"), _n_100000_oracle()[a], 20)


def test_rr_composition_n1_is_randomized_response():
    for a in ("0", "0.1", "0.2689414213699951", "0.5", "0.9", "1"):
        assert gdpproof.rr_composition(1, 1).evaluate(a, digits=20) == gdpproof.randomized_response(1).evaluate(a, digits=20)


@given(e_eps=RATIONAL_E, n=st.integers(1, 30), e_prime=st.sampled_from([Fraction(1), Fraction(6, 5), Fraction(2), Fraction(7)]))
def test_rr_composition_delta_is_the_hockey_stick_divergence(e_eps, n, e_prime):
    """delta(eps') = sum_k max(0, Q(k) - e^{eps'} P(k)), exactly, with rational e^eps and e^{eps'}."""
    eps = sympy.log(sympy.Rational(e_eps.numerator, e_eps.denominator))
    f = gdpproof.rr_composition(eps, n)
    exact = sum((max(Fraction(0), q - e_prime * p) for p, q in oracles.binomial_pairs(n, e_eps)), Fraction(0))
    d = f.delta(sympy.log(sympy.Rational(e_prime.numerator, e_prime.denominator)), digits=20)
    assert d.rounding == "up"
    assert exact <= d.to_fraction() <= exact + Fraction(10) ** (d.adjusted() - 19)


def test_rr_composition_delta_agrees_with_the_numeric_conjugate():
    """The closed form against gdpproof's generic route (certified concave maximisation)."""
    f = gdpproof.rr_composition("0.3", 12)
    generic = gdpproof.TradeOff(f.template, f.params, "generic", None)
    for e in ("0", "0.5", "1.7", "3.5"):
        assert f.delta(e, digits=12) == generic.delta(e, digits=12)


def test_compose_of_randomized_responses_is_rr_composition():
    rr = gdpproof.randomized_response("0.2")
    assert gdpproof.compose(rr, rr, rr) == gdpproof.rr_composition("0.2", 3)
    assert gdpproof.self_compose(gdpproof.rr_composition("0.2", 3), 4) == gdpproof.rr_composition("0.2", 12)
    assert gdpproof.compose(rr) == rr


# -- delta factors ----------------------------------------------------------------------------


def test_eps_delta_factors_compose_exactly():
    """f_{eps,delta1} (x) f_{eps,delta2} = RR_eps^2 (x) f_{0, 1 - (1 - delta1)(1 - delta2)}: the product of
    the finite pairs (randomized response, and the three-outcome pair of f_{0,delta})."""
    d1, d2 = Fraction(1, 10), Fraction(1, 20)

    def zero_delta(d):  # outcomes A (P only), B (both), C (Q only)
        return [(d, Fraction(0)), (1 - d, 1 - d), (Fraction(0), d)]

    pairs = oracles.product(oracles.rr_pairs(Fraction(2)), zero_delta(d1), oracles.rr_pairs(Fraction(2)), zero_delta(d2))
    vertices = oracles.np_vertices(pairs)
    eps = sympy.log(2)
    f = gdpproof.compose(gdpproof.eps_delta(eps, "0.1"), gdpproof.eps_delta(eps, "0.05"))
    assert f.parameters["delta"] == sympy.Rational(29, 200)
    for k in range(0, 41):
        a = Fraction(k, 40)
        _between(f, a, oracles.curve_at(vertices, a))


def test_with_delta_profile_matches_the_generic_conjugate():
    g = gdpproof.with_delta(gdpproof.gaussian(1), "0.05")
    generic = gdpproof.TradeOff(g.template, g.params, "generic", None)
    for e in ("0", "0.5", "2"):
        assert g.delta(e, digits=12) == generic.delta(e, digits=12)


def test_with_delta_is_the_scaled_curve():
    g = gdpproof.with_delta(gdpproof.gaussian(1), "0.25")
    base = gdpproof.gaussian(1)
    # (1 - delta) G(alpha / (1 - delta)) at alpha = 0.3: G(0.4) scaled by 3/4
    inner = base.evaluate("0.4", digits=30, rounding="nearest").to_fraction()
    _between(g, "0.3", inner * Fraction(3, 4), digits=20)
    assert g.evaluate("0.8", digits=5) == 0


# -- what is refused ----------------------------------------------------------------------------


@pytest.mark.parametrize("fs", [
    (gdpproof.gaussian(1), gdpproof.laplace(1)),
    (gdpproof.randomized_response(1), gdpproof.randomized_response(2)),
    (gdpproof.gaussian(1), gdpproof.randomized_response(1)),
    (gdpproof.laplace(1), gdpproof.laplace(2)),
])
def test_mixed_compositions_are_not_supported(fs):
    with pytest.raises(NotSupportedError, match="not supported yet"):
        gdpproof.compose(*fs)


def test_self_compose_of_unknown_family_is_not_supported():
    with pytest.raises(NotSupportedError):
        gdpproof.self_compose(gdpproof.laplace(1), 2)
    assert gdpproof.self_compose(gdpproof.laplace(1), 1) == gdpproof.laplace(1)
    # a single non-Gaussian factor with f_{0,delta} is exact
    assert gdpproof.compose(gdpproof.laplace(1), gdpproof.eps_delta(0, "0.1")).name == "laplace_with_delta"


def test_rr_composition_delta_vanishes_beyond_n_eps():
    """n eps-DP: delta(eps') = 0 exactly for eps' >= n eps, including the boundary."""
    f = gdpproof.rr_composition("0.3", 12)
    assert f.delta("3.6", digits=12) == 0
    assert f.delta(5, digits=12) == 0
    assert f.delta("3.59", digits=12) > 0


def test_rr_composition_is_valid_and_no_proof_rests_on_its_step_derivative():
    """f'' of the binomial curve is 0 between vertices; its convexity lives in the jumps, so
    check() must not call convexity 'proved' from f'' = 0 (a regression: it once did)."""
    report = gdpproof.rr_composition("0.1", 50).check(points=12, digits=12)
    assert report.ok
    assert report["convex"].status == "not refuted" and report["convex"].method == "numeric"


def test_wide_balls_are_enclosed_by_monotonicity():
    """A ball of alpha spanning many segments: the enclosure contains the values at both ends."""
    import flint

    from gdpproof.numeric.engine._mp import arb_precision
    from gdpproof.numeric.engine.special import arb_rr_slope, arb_rr_value

    with arb_precision(100):
        n, eps = flint.arb(200), flint.arb("0.1")
        wide = flint.arb("0.5", "0.2")
        value, slope = arb_rr_value(n, eps, wide), arb_rr_slope(n, eps, wide)
        for end in ("0.3", "0.5", "0.7"):
            assert value.contains(arb_rr_value(n, eps, flint.arb(end)))
            assert slope.contains(arb_rr_slope(n, eps, flint.arb(end)))


def test_float_path_has_exact_ends():
    assert list(gdpproof.rr_composition("2", 1000).evaluate_fast([0.0, 1.0])) == [1.0, 0.0]
