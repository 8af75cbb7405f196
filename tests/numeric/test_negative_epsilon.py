"""delta(eps) for eps < 0: the duality delta(eps) = 1 + f*(-e^eps) holds for every real eps."""

from __future__ import annotations

from fractions import Fraction

import mpmath
import sympy

import gdpproof
from gdpproof import account
from gdpproof.mechanisms import (Composed, EpsDelta, FiniteMechanism, GDP, LaplaceMechanism, RandomizedResponse,
                                 Repeated, dpsgd)


def _gaussian_closed_form(mu, eps, dps=50):
    with mpmath.workdps(dps):
        mu, eps = mpmath.mpf(mu), mpmath.mpf(eps)
        return mpmath.ncdf(-eps / mu + mu / 2) - mpmath.exp(eps) * mpmath.ncdf(-eps / mu - mu / 2)


def _rounded_up_matches(certified, value, digits):
    v = mpmath.mpf(str(certified))
    assert v >= value  # rounded up
    assert v - value <= mpmath.mpf(10) ** (mpmath.floor(mpmath.log10(value)) - digits + 1)


def test_gaussian_delta_at_negative_epsilon_is_the_closed_form() -> None:
    # the done-when: gdpproof.gaussian(1).delta(-1, digits=30) equals the closed form
    with mpmath.workdps(50):
        for mu, eps in (("1", "-1"), ("0.3", "-0.05"), ("2", "-3")):
            _rounded_up_matches(gdpproof.gaussian(mu).delta(eps, digits=30), _gaussian_closed_form(mu, eps), 30)
            _rounded_up_matches(gdpproof.delta_from_epsilon(mu, eps, digits=30), _gaussian_closed_form(mu, eps), 30)
        assert str(gdpproof.gaussian(1).delta(-1, digits=30)) == "0.678817974886627915945620365012"


def _laplace_hockey(mu, eps):
    """sum (P - e^eps Q)_+ for P = Lap(0, 1), Q = Lap(mu, 1), by quadrature of the definition."""
    mu, eps = mpmath.mpf(mu), mpmath.mpf(eps)
    dens = lambda x, m: mpmath.exp(-abs(x - m)) / 2  # noqa: E731
    g = lambda x: max(mpmath.mpf(0), dens(x, 0) - mpmath.exp(eps) * dens(x, mu))  # noqa: E731
    cuts = sorted({mpmath.mpf(0), mu, min(max((mu - eps) / 2, mpmath.mpf(0)), mu)})
    return mpmath.quad(g, [-mpmath.inf, *cuts, mpmath.inf])


def _pair_hockey(P, Q, eps):
    e = mpmath.exp(mpmath.mpf(eps))
    return sum(max(mpmath.mpf(0), p - e * q) for p, q in zip(P, Q))


def test_negative_epsilon_against_the_definition() -> None:
    # Laplace (whose eps >= 0 dual template is wrong below -mu: refused there, reflected instead)
    # and (eps, delta)-DP against the hockey-stick divergence of their pairs; randomized response
    # composed (exact-finite and the conjugate of its binomial curve) against the reflection
    with mpmath.workdps(40):
        for eps in ("-0.3", "-2"):
            _rounded_up_matches(gdpproof.laplace("0.7").delta(eps, digits=25), _laplace_hockey("0.7", eps), 25)
            d, e0 = mpmath.mpf("0.01"), mpmath.e
            P = [d, 0, (1 - d) * e0 / (1 + e0), (1 - d) / (1 + e0)]
            Q = [0, d, (1 - d) / (1 + e0), (1 - d) * e0 / (1 + e0)]
            _rounded_up_matches(gdpproof.eps_delta(1, "0.01").delta(eps, digits=25), _pair_hockey(P, Q, eps), 25)
        for m in (Repeated(RandomizedResponse(1), 3), RandomizedResponse("0.4", k=5)):
            neg, pos = account(m, epsilon="-0.5", digits=25).delta, account(m, epsilon="0.5", digits=25).delta
            x = mpmath.mpf("0.5")
            expect = 1 - mpmath.exp(-x) + mpmath.exp(-x) * mpmath.mpf(str(pos))
            assert abs(mpmath.mpf(str(neg)) - expect) <= mpmath.mpf(10) ** -23, m


def test_negative_epsilon_on_an_asymmetric_finite_pair_against_the_definition() -> None:
    m = FiniteMechanism(["1/2", "1/2", "0"], ["1/4", "1/4", "1/2"])
    a = account(Composed(m, m), epsilon="-0.3", digits=20)
    P, Q = [sympy.Rational(1, 2)] * 2 + [0], [sympy.Rational(1, 4)] * 2 + [sympy.Rational(1, 2)]
    e = sympy.exp(sympy.Rational(-3, 10))
    worst = max(sum(sympy.Max(0, A[i] * A[j] - e * B[i] * B[j]) for i in range(3) for j in range(3))
                for A, B in ((P, Q), (Q, P)))
    _rounded_up_matches(a.delta, mpmath.mpf(str(sympy.N(worst, 40))), 20)


def test_bracket_route_at_negative_epsilon_contains_the_exact_values() -> None:
    # the bracket route maps its bracket at -eps by delta(eps) = 1 - e^eps + e^eps delta(-eps); the
    # references are computed at eps itself: the exact-finite hockey-stick sums and the closed form
    for m in (Repeated(RandomizedResponse("0.5"), 20), Composed(RandomizedResponse(1), EpsDelta(1, "1e-3")),
              Repeated(GDP("0.25"), 16)):
        b = account(m, epsilon="-0.5", route="bracket")
        exact = account(m, epsilon="-0.5", digits=20).delta.to_fraction()
        assert Fraction(b.delta.lower) <= exact <= Fraction(b.delta.upper) * (1 + Fraction(1, 10**18)), (m, b)
        assert b.delta.relative_width <= 0.01 and "hockey-stick identity" in " ".join(b.notes)
    # an asymmetric composition: the worse ordering at eps < 0 is the other one of the worse at -eps
    m = Repeated(LaplaceMechanism(1), 3)
    assert account(m, epsilon=-1).route == "bracket"
    d = dpsgd(1, "0.05", 10)
    assert {account(d, epsilon="-0.5").ordering, account(d, epsilon="0.5").ordering} == {"add", "remove"}


def test_a_subsampling_envelope_at_negative_epsilon_by_reflection() -> None:
    # C_p(G_1) has no dual template: at eps < 0 its delta comes from delta(-eps) by the reflection
    # delta(-e) = 1 - e^-e + e^-e delta(e); checked here against the closed form of G_1 in the
    # limit p = 1 (C_1(G_1) = G_1) and for p = 1/2 against the same identity from the other side
    f = gdpproof.subsample(gdpproof.gaussian(1), 1)
    with mpmath.workdps(40):
        _rounded_up_matches(f.delta("-0.5", digits=15), _gaussian_closed_form(1, "-0.5"), 15)
    g = gdpproof.subsample(gdpproof.gaussian(1), "0.5")
    neg, pos = g.delta("-0.5", digits=15), g.delta("0.5", digits=20)
    with mpmath.workdps(40):
        x = mpmath.mpf("0.5")
        expect = 1 - mpmath.exp(-x) + mpmath.exp(-x) * mpmath.mpf(str(pos))
        assert abs(mpmath.mpf(str(neg)) - expect) <= mpmath.mpf(10) ** -14


def test_one_sided_bracket_at_minus_epsilon_gives_a_narrow_reported_bracket() -> None:
    # delta(7.4999) is about 1e-5 x the mass at the largest loss 7.5: the bracket there is
    # [0, upper], one-sided and "wider than asked"; at -7.4999 the reported bracket contains
    # 1 - e^-7.4999 (to within e^-7.4999 delta(7.4999)) and is narrow, so its notes, warning and
    # target_met describe it, not the one at +7.4999
    import warnings

    from gdpproof.errors import WidthNotReachedWarning
    from gdpproof.mechanisms import DiscreteLaplaceMechanism

    with warnings.catch_warnings():
        warnings.simplefilter("error", WidthNotReachedWarning)
        a = account(Repeated(DiscreteLaplaceMechanism(2, 3), 5), epsilon="-7.4999", route="bracket")
    floor = 1 - mpmath.exp(mpmath.mpf("-7.4999"))  # delta(-eps) >= 1 - e^-eps, within 1e-6 of it
    assert a.delta.lower <= floor + mpmath.mpf("1e-6") and floor <= a.delta.upper
    assert a.delta.width <= 0.01 * a.delta.upper
    assert a.to_dict()["target_met"] is True
    assert not any("lower end of delta is 0" in n or "was not reached" in n for n in a.notes)
    assert any("at -eps" in n for n in a.notes)
