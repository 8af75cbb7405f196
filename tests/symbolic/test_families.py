"""The families against their textbook forms, and the symbolic operations."""

from __future__ import annotations

from fractions import Fraction

import pytest
import sympy
from sympy import Rational

import gdpproof
from gdpproof.symbolic.duality import ordered_pieces
from gdpproof.symbols import Phi, Phi_inv, alpha, epsilon, mu, x

POINTS = [Rational(1, 10**9), Rational(1, 20), Rational(3, 10), Rational(1, 2), Rational(7, 10), 1 - Rational(1, 10**6)]


def num(e):
    # sympy's evalf has no erfcinv; erfinv(1 - z) at 90 digits is ample for these points
    return sympy.N(sympy.sympify(e).rewrite(sympy.erfinv), 90)


def close(a, b, digits=45):
    da, db = num(a), num(b)
    assert da.is_Number and db.is_Number, (a, b)
    return abs(da - db) <= sympy.Float(10, 90) ** (-digits) * max(1, abs(db))


def test_gaussian_equals_textbook_form():
    textbook = Phi(Phi_inv(1 - alpha) - mu)  # Dong, Roth & Su 2022, Def. 2.6
    for a in POINTS:
        for m in (Rational(1, 100), 1, Rational(7, 2)):
            assert close(gdpproof.gaussian(m)(a), textbook.subs({alpha: a, mu: m}))


def test_gaussian_is_symbolically_symmetric_at_points():
    g = gdpproof.gaussian(Rational(3, 2))
    for a in POINTS:
        assert close(g(g(a)), a, 40)


def test_location_family_gaussian_and_laplace():
    gauss = gdpproof.location_family(sympy.exp(-x**2 / 2) / sympy.sqrt(2 * sympy.pi), x, mu=Rational(6, 5))
    lap = gdpproof.location_family(sympy.exp(-abs(x)) / 2, x, mu=Rational(6, 5))
    for a in POINTS:
        assert close(gauss(a), gdpproof.gaussian(Rational(6, 5))(a))
        assert close(lap(a), gdpproof.laplace(Rational(6, 5))(a))


def test_location_family_symbolic_shift():
    f = gdpproof.location_family(sympy.exp(-x) / (1 + sympy.exp(-x)) ** 2, x)
    assert mu in f.expr.free_symbols
    assert close(f.substitute(mu=1)(Rational(3, 10)), 1 / (sympy.E * Rational(3, 7) + 1))


def test_location_family_rejects_non_mlr_and_non_density():
    cauchy = 1 / (sympy.pi * (1 + x**2))  # no monotone likelihood ratio
    with pytest.raises(gdpproof.InvalidParameterError, match="monotone likelihood ratio"):
        gdpproof.location_family(cauchy, x, mu=1)
    with pytest.raises(gdpproof.InvalidParameterError, match="integrate"):
        gdpproof.location_family(sympy.exp(-abs(x)), x, mu=1)


def test_eps_delta_matches_definition():
    f = gdpproof.eps_delta(Rational(1, 2), Rational(1, 100))
    for a in POINTS:
        direct = sympy.Max(0, 1 - Rational(1, 100) - sympy.exp(Rational(1, 2)) * a,
                           sympy.exp(-Rational(1, 2)) * (1 - Rational(1, 100) - a))
        assert close(f(a), direct)


def test_laplace_pieces_are_ordered_and_continuous():
    pieces = ordered_pieces(gdpproof.laplace(1).expr)
    assert [p[1] for p in pieces] == [0, sympy.exp(-1) / 2, Rational(1, 2)]
    for (e1, _, hi), (e2, lo, _) in zip(pieces, pieces[1:]):
        assert sympy.simplify(e1.subs(alpha, hi) - e2.subs(alpha, lo)) == 0


ASYM = sympy.Piecewise((1 - 3 * alpha, alpha <= Rational(1, 5)), (Rational(1, 2) - alpha / 2, True))


def test_inverse_of_a_non_symmetric_function():
    f = gdpproof.TradeOff(ASYM, name="asym")
    inv = f.inverse()
    for a in POINTS:
        assert close(f(inv(a)), a) or inv(a) == 0
        assert sympy.N(inv(a) - f.inverse_at(a, digits=20).to_fraction().__float__(), 15) < 1e-15
    assert f.symmetrize().symmetric


def _symmetrized(expr, name):
    """f.symmetrize(), checked to lie below f and f^{-1} and to be its own inverse."""
    f = gdpproof.TradeOff(expr, name=name)
    s, inv = f.symmetrize(), f.inverse()
    for a in POINTS:
        assert sympy.N(s(a) - sympy.Min(f(a), inv(a)), 30) <= 1e-30
        assert close(s(s(a)), a, 30)
    return s


def test_symmetrize_is_below_f_and_its_inverse_and_symmetric():
    assert _symmetrized(ASYM, "asym").check().ok


#: Slopes -3/2, -1, -3/5: xbar = 1/10 <= f(xbar) = 17/20, yet f^{-1} < f near 0 (|f'(0) f'(1)| < 1),
#: so the closed form "f on [0, xbar], slope -1 segment, f^{-1}" would lie above f^{-1} there.
CROSSING = sympy.Max(1 - Rational(3, 2) * alpha, Rational(19, 20) - alpha, Rational(3, 5) * (1 - alpha))


def test_symmetrize_is_the_exact_hull_when_the_inverse_dips_below():
    """Regression: symmetrize once returned f on [0, xbar] here, overstating privacy near 0."""
    s = _symmetrized(CROSSING, "crossing")
    # the hull's vertices: (0, 1), (3/40, 7/8), (7/8, 3/40), (1, 0)
    assert s(Rational(3, 40)) == Rational(7, 8) and s(Rational(1, 20)) == 1 - Rational(5, 3) / 20


def test_symmetrize_of_a_curved_non_symmetric_function_is_the_numeric_envelope():
    """(1 - alpha)^2 against 1 - sqrt(alpha): the inverse is lower up to 1/4, then the segment
    alpha + beta = 3/4 (slope -1 at t = 1/2, f(1/2) = 1/4), then f."""
    f = gdpproof.TradeOff((1 - alpha) ** 2, name="square")
    s = f.symmetrize()
    assert s.symmetric and s(0) == 1 and s(1) == 0
    expected = {"0.1": 1 - sympy.sqrt(Rational(1, 10)), "0.3": Rational(9, 20), "0.7": Rational(9, 100)}
    for a, value in expected.items():
        v = s.evaluate(a, digits=20, rounding="down")
        assert v.to_fraction() <= value and value - v.to_fraction() < Rational(1, 10**19)


def test_symmetric_families_are_their_own_inverse():
    for f in (gdpproof.gaussian(1), gdpproof.eps_delta(1, "0.1"), gdpproof.laplace(2)):
        assert f.inverse() is f and f.symmetrize() is f


def test_delta_expression_closed_forms():
    m = sympy.Symbol("m", positive=True)
    d = gdpproof.gaussian(m).delta_expression()
    textbook = Phi(-epsilon / m + m / 2) - sympy.exp(epsilon) * Phi(-epsilon / m - m / 2)
    assert sympy.simplify(d - textbook) == 0
    rr = gdpproof.randomized_response(1).delta_expression()
    # for eps' < eps: 1 - (1 + e^eps')/(1 + e^eps); for eps' >= eps: 0
    assert close(rr.subs(epsilon, Rational(1, 2)), 1 - (1 + sympy.exp(Rational(1, 2))) / (1 + sympy.E))
    assert close(rr.subs(epsilon, 2), 0)


def test_symbolic_conjugate_of_gaussian_or_clear_error():
    try:
        c = gdpproof.symbolic.duality.conjugate(gdpproof.gaussian(1))
    except gdpproof.SymbolicError:
        return
    y = gdpproof.symbols.y
    val = c.subs(y, -sympy.E)
    assert close(1 + val, gdpproof.gaussian(1).delta_expression().subs(epsilon, 1), 30)


def test_substitute_and_repr():
    f = gdpproof.eps_delta(1, "0.01")
    assert repr(f) == "eps_delta(epsilon=1, delta=1/100)"
    g = f.substitute(delta=0)
    assert g.parameters["delta"] == 0 and g.parameters["epsilon"] == 1
    with pytest.raises(gdpproof.InvalidParameterError, match="not a parameter"):
        f.substitute(mu=1)


def test_fraction_and_mpf_parameters_are_exact():
    import mpmath

    assert gdpproof.gaussian(Fraction(1, 3)).parameters["mu"] == Rational(1, 3)
    assert gdpproof.gaussian(mpmath.mpf(0.5)).parameters["mu"] == Rational(1, 2)
    assert gdpproof.gaussian(sympy.Float("0.25")).parameters["mu"] == Rational(1, 4)
