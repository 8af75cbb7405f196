"""k-ary randomized response, finite mechanisms and their heterogeneous exact compositions
(numeric/finite.py, the general finite pairs), against brute-force enumeration in sympy."""

from __future__ import annotations

import itertools
from fractions import Fraction

import mpmath
import pytest
import sympy

from gdpproof import account
from gdpproof.errors import InvalidParameterError, NotSupportedError
from gdpproof.mechanisms import (
    Composed,
    EpsDelta,
    FiniteMechanism,
    GaussianMechanism,
    RandomizedResponse,
    Repeated,
    mechanism_from_spec,
)
from gdpproof.accounting.finite import pairs_delta


def _pair(m):
    """The worst pair of a base mechanism as lists of exact masses (P, Q), written from the
    definition of each mechanism (not from the library's masses)."""
    if isinstance(m, RandomizedResponse):
        z = sympy.exp(m.epsilon) + m.k - 1
        e = sympy.exp(m.epsilon)
        # outputs 0, 1, 2..k-1 with true values 0 (P) and 1 (Q)
        return [e / z, 1 / z] + [1 / z] * (m.k - 2), [1 / z, e / z] + [1 / z] * (m.k - 2)
    if isinstance(m, EpsDelta):  # reveal with probability delta, else randomized response
        e = sympy.exp(m.epsilon)
        d = m.delta
        return ([d, 0, (1 - d) * e / (1 + e), (1 - d) / (1 + e)], [0, d, (1 - d) / (1 + e), (1 - d) * e / (1 + e)])
    return list(m.P), list(m.Q)


def _brute_delta(parts, eps):
    """max over both orderings of sum over all output tuples (P(o) - e^eps Q(o))_+.

    The exact masses and e^eps are evaluated once each to 70 digits (sympy) and every product and
    sum over the output tuples is taken at 60 digits (mpmath): a few hundred terms of five factors
    each, so the result is good to far more than the 25 digits it is compared to."""
    ctx = mpmath.MPContext()
    ctx.dps = 60

    def num(x):
        return ctx.mpf(str(sympy.N(x, 70)))

    pairs = [([num(x) for x in p], [num(x) for x in q]) for p, q in map(_pair, parts)]
    weight = num(sympy.exp(eps))
    best = []
    for rev in (False, True):
        total = ctx.zero
        for combo in itertools.product(*(range(len(p)) for p, _ in pairs)):
            pp = ctx.fprod(pq[0][i] for pq, i in zip(pairs, combo))
            qq = ctx.fprod(pq[1][i] for pq, i in zip(pairs, combo))
            if rev:
                pp, qq = qq, pp
            total += max(ctx.zero, pp - weight * qq)
        best.append(total)
    return sympy.Rational(ctx.nstr(max(best), 55, min_fixed=-ctx.inf, max_fixed=ctx.inf))


def _close(certified, exact, rel=sympy.Rational(1, 10**25)):
    v = sympy.Rational(str(certified))
    assert v >= exact - abs(exact) * rel / 10  # rounded up: never below the exact value
    assert abs(v - exact) <= abs(exact) * rel + sympy.Rational(1, 10**40)


def test_randomized_response_with_four_epsilons_is_exact_against_enumeration() -> None:
    # the case: eps = 0.1, 0.2, 0.5 and 1.0 composed
    parts = [RandomizedResponse(e) for e in ("0.1", "0.2", "0.5", "1.0")]
    for eps in (0, sympy.Rational(1, 2), 1):
        a = account(Composed(*parts), epsilon=eps, digits=30)
        assert a.route == "exact-finite"
        _close(a.delta, _brute_delta(parts, eps))


def test_heterogeneous_k_ary_finite_and_eps_delta_against_enumeration() -> None:
    parts = [RandomizedResponse(1, k=4), RandomizedResponse("0.3", k=3),
             FiniteMechanism(["1/2", "1/4", "1/4"], ["1/4", "1/4", "1/2"]),
             FiniteMechanism(["1/2", "1/2", "0"], ["1/4", "1/4", "1/2"]), EpsDelta("0.2", "1/1000")]
    m = Composed(*parts)
    for eps in (sympy.Rational(7, 10), 2):
        a = account(m, epsilon=eps, digits=28)
        assert a.route == "exact-finite" and a.ordering == "the worse of P||Q and Q||P"
        _close(a.delta, _brute_delta(parts, eps))


def test_k_ary_randomized_response_closed_form_and_finite_route_agree() -> None:
    m = RandomizedResponse("0.7", k=5)
    exact = account(m, epsilon="0.3", digits=25)
    finite = account(m, epsilon="0.3", digits=25, route="exact-finite")
    assert exact.route == "exact" and exact.delta == finite.delta
    _close(exact.delta, _brute_delta([m], sympy.Rational(3, 10)), sympy.Rational(1, 10**23))
    # n-fold k-ary RR keeps 2n + 1 distinct losses; its epsilon is found on the finite route
    e = account(Repeated(m, 40), delta="1e-6", digits=12)
    assert e.route == "exact-finite"
    d_at = account(Repeated(m, 40), epsilon=str(e.epsilon), digits=12).delta
    assert d_at.to_fraction() <= Fraction(1, 10**6)


def test_k_equal_two_is_binary_randomized_response() -> None:
    assert RandomizedResponse(1, k=2) == RandomizedResponse(1)
    a = account(Composed(RandomizedResponse(1, k=3), Repeated(RandomizedResponse("0.5"), 3)), epsilon="0.5")
    b = account(Composed(Repeated(RandomizedResponse(1, k=3), 1), Repeated(RandomizedResponse("0.5", k=2), 3)),
                epsilon="0.5")
    assert a.delta == b.delta


def test_rational_finite_mechanisms_compose_in_exact_arithmetic() -> None:
    g = FiniteMechanism(["1/2", "1/4", "1/4"], ["1/4", "1/4", "1/2"])
    # at eps = 0 delta is a rational (total variation of the product pair): exact, not a ball
    a = account(Repeated(g, 3), epsilon=0, digits=30)
    tv = sum(abs(sympy.Mul(*(g.P[i] for i in c)) - sympy.Mul(*(g.Q[i] for i in c)))
             for c in itertools.product(range(3), repeat=3)) / 2
    assert a.delta.to_fraction() == Fraction(int(tv.p), int(tv.q))
    # a pair that reveals the data has an infinite epsilon below its revealing mass
    h = FiniteMechanism(["1/2", "1/2", "0"], ["1/4", "1/4", "1/2"])
    assert str(account(Repeated(h, 2), delta="0.5").epsilon) == "Infinity"  # 1 - (1/2)^2 = 3/4 > 0.5


def test_finite_mechanism_tradeoff_is_the_neyman_pearson_curve() -> None:
    g = FiniteMechanism(["1/2", "1/4", "1/4"], ["1/4", "1/4", "1/2"])
    f = g.tradeoff()
    a = sympy.Symbol("alpha", nonnegative=True)
    assert sympy.simplify(f.expr - sympy.Max(0, 1 - 2 * a, sympy.Rational(3, 4) - a, (1 - a) / 2)) == 0
    assert f.delta(0, digits=10).to_fraction() == Fraction(1, 4)
    # not symmetric: the symmetrized curve, whose profile is the worse ordering's
    h = FiniteMechanism(["1/2", "1/2", "0"], ["1/4", "1/4", "1/2"])
    assert h.tradeoff().delta("0.1", digits=20) == account(h, epsilon="0.1", digits=20, route="exact-finite").delta
    assert h.tradeoff().check().ok


def test_bracket_route_takes_k_ary_randomized_response() -> None:
    m = Composed(Repeated(RandomizedResponse("0.5", k=4), 20), GaussianMechanism(4))
    b = account(m, epsilon=1, route="bracket")
    # against the same composition with the Gaussian replaced by its exact delta? the finite
    # part alone on the exact route must sit below the whole (composition never helps)
    alone = account(Repeated(RandomizedResponse("0.5", k=4), 20), epsilon=1, route="bracket")
    exact_alone = account(Repeated(RandomizedResponse("0.5", k=4), 20), epsilon=1)
    lo, hi = alone.delta.lower, alone.delta.upper
    assert lo <= float(exact_alone.delta) * (1 + 1e-12) and float(exact_alone.delta) <= hi * (1 + 1e-12)
    assert b.delta.upper >= exact_alone.delta.to_fraction() * Fraction(1 - 10**-9)


def test_specs_and_validation() -> None:
    assert mechanism_from_spec("rr:eps=1,k=4") == RandomizedResponse(1, k=4)
    assert mechanism_from_spec("finite:p=1/2;1/2,q=1/4;3/4,times=2") == Repeated(
        FiniteMechanism(["1/2", "1/2"], ["1/4", "3/4"]), 2)
    with pytest.raises(InvalidParameterError, match=r"^k=1 must be an integer >= 2"):
        RandomizedResponse(1, k=1)
    with pytest.raises(InvalidParameterError, match="must sum to 1 exactly"):
        FiniteMechanism(["1/2", "1/4"], ["1/2", "1/2"])
    with pytest.raises(InvalidParameterError, match=r"P\[1\]='-1/4' must be >= 0"):
        FiniteMechanism(["1/2", "-1/4", "3/4"], ["1/2", "1/4", "1/4"])
    with pytest.raises(InvalidParameterError, match="as many outcomes as P"):
        FiniteMechanism(["1/2", "1/2"], ["1"])
    with pytest.raises(InvalidParameterError, match=r"Q\[0\]=.* must be a rational"):
        FiniteMechanism(["1"], [sympy.sqrt(2) / 2])


def test_beyond_the_exact_route_the_composition_is_refused_cleanly() -> None:
    # eight outcomes of different likelihood ratios: the distinct losses of n copies grow like n^7
    p = ["1/36", "2/36", "3/36", "4/36", "5/36", "6/36", "7/36", "8/36"]
    m = Repeated(FiniteMechanism(p, ["1/8"] * 8), 1000)
    with pytest.raises(NotSupportedError, match="exact-finite"):
        account(m, epsilon=1, route="exact-finite")
    with pytest.raises(InvalidParameterError, match="ordering"):
        pairs_delta([(((sympy.Integer(1), sympy.Integer(1), Fraction(1), 0, 0),), 1)], sympy.Integer(0), digits=5,
                    ordering="both")
