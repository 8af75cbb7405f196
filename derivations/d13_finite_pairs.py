"""d13: k-ary randomized response, finite pairs, and delta(eps) at eps < 0.

Claim.  (a) k-ary randomized response (the true value of k with probability e^eps/Z, each other
value with 1/Z, Z = e^eps + k - 1) has, for two different true values, the privacy loss +eps,
0, -eps with masses e^eps/Z, (k - 2)/Z, 1/Z under P (outer masses swapped under Q): the shipped
atoms, CDFs, survival functions and partial means of K_RANDOMIZED_RESPONSE are these, and k = 2
is binary randomized response.
(b) Its trade-off curve max{0, 1 - e^eps a, 1 - (e^eps - 1)/Z - a, e^-eps (1 - a)} is the
Neyman–Pearson curve of the pair (finite_pair_tradeoff of K_RR_MASSES), and its shipped privacy
profile is the hockey-stick sum of the masses, for every real eps'.
(c) For any pair, sum (P - e^e Q)_+ = 1 - e^e + e^e sum (Q - e^-e P)_+ (every real e): the
reflection numeric/duality uses at e < 0 for symmetric curves; and the Gaussian closed form
Phi(-e/mu + mu/2) - e^e Phi(-e/mu - mu/2) is the hockey-stick integral at e < 0 too.
Sources: Dong, Roth & Su 2022 (Prop. 2.12, Cor. 2.13); Kairouz, Oh & Viswanath 2015 (k-ary RR);
Balle et al. 2018 (Thm 1, the hockey-stick form).

Assumptions.  eps >= 0, integer k >= 2, mu > 0; e and eps' any real numbers.

Steps.
1. (a) symbolic: masses sum to 1, shipped atoms equal the masses, the CDF/sf pieces are the
   atom sums, the partial mean's jumps are loss times mass; k = 2 against RANDOMIZED_RESPONSE.
2. (b) symbolic at exact points (eps, k) and alpha on a grid: the two curves agree; the shipped
   profile against pair_delta at 50 certified digits at seeded points, eps' of both signs.
3. (c) symbolic for the identity (termwise: x_+ = x + (-x)_+); the Gaussian at seeded e < 0
   against sympy's integral of (phi(x) - e^e phi(x - mu))_+ at 50 digits.
"""

from __future__ import annotations

import sympy
from sympy import exp
from sympy.codegen.cfunctions import expm1

from gdpproof.symbolic import losses as sl
from gdpproof.symbolic.tradeoff import GAUSSIAN_DUAL
from gdpproof.symbolic.symbols import alpha, ell, epsilon, epsilon_prime, k, mu

try:
    from ._check import random_points, value
except ImportError:  # run as a script
    from _check import random_points, value


def _at(expr, ell_value, eps_v, k_v):
    return sympy.simplify(expr.xreplace({ell: ell_value, epsilon: eps_v, k: k_v}))


def _max_value(expr, sub):
    """A Max of lines at exact values, to 60 digits by sympy (each line separately: sympy's Max
    cannot always compare the substituted numbers, and a line may be exactly 0 there, which no
    ball rounds to nearest)."""
    args = expr.args if isinstance(expr, sympy.Max) else (expr,)
    return max(sympy.Rational(str(sympy.N(a.xreplace(sub), 60))) for a in args)


def main() -> None:
    # (a)
    Z = exp(epsilon) + k - 1
    plus, zero, minus = exp(epsilon) / Z, (k - 2) / Z, 1 / Z
    assert sympy.simplify(plus + zero + minus - 1) == 0
    fam = sl.K_RANDOMIZED_RESPONSE
    (l1, a1), (l0, a0), (lm, am) = fam.atoms["P"]
    assert (l1, l0, lm) == (epsilon, 0, -epsilon)
    assert all(sympy.simplify(a - b) == 0 for a, b in ((a1, plus), (a0, zero), (am, minus)))
    (b1, c1), (_, c0), (_, cm) = fam.atoms["Q"]
    assert sympy.simplify(c1 - minus) == 0 and sympy.simplify(cm - plus) == 0 and sympy.simplify(c0 - zero) == 0
    for eps_v, k_v in ((sympy.Rational(7, 10), 5), (sympy.Integer(2), 3)):
        for law, (mp, m0, mm) in (("P", (plus, zero, minus)), ("Q", (minus, zero, plus))):
            sub = {epsilon: eps_v, k: k_v}
            for x_v, cdf, sf, part in ((-eps_v - 1, 0, 1, 0), (-eps_v / 2, mm, m0 + mp, -eps_v * mm),
                                       (eps_v / 2, mm + m0, mp, -eps_v * mm), (eps_v + 1, 1, 0, eps_v * (mp - mm))):
                assert _at(fam.cdf[law] - cdf, x_v, eps_v, k_v) == 0
                assert _at(fam.sf[law] - sf, x_v, eps_v, k_v) == 0
                shipped = fam.partial[law].replace(lambda n: isinstance(n, expm1), lambda n: exp(n.args[0]) - 1)
                assert sympy.simplify((shipped - part).xreplace({ell: x_v}).xreplace(sub)) == 0
    two = {k: 2}
    assert sympy.simplify(plus.xreplace(two) - sl.RANDOMIZED_RESPONSE.atoms["P"][0][1]) == 0
    # (b)
    f_k, d_k = sl.k_randomized_response_tradeoff()
    for eps_v, k_v in ((sympy.Rational(7, 10), 5), (sympy.Integer(1), 4), (sympy.Rational(1, 3), 2)):
        sub = {epsilon: eps_v, k: k_v}
        masses = [(a.xreplace(sub), b.xreplace(sub)) for a, b in sl.K_RR_MASSES]
        np_curve = sl.finite_pair_tradeoff(masses)
        for j in range(11):
            a_v = sympy.Rational(j, 10)
            lhs = _max_value(f_k, {**sub, alpha: a_v})
            rhs = _max_value(np_curve, {alpha: a_v})
            assert abs(lhs - rhs) <= sympy.Rational(1, 10**45), (eps_v, k_v, a_v)
        hockey = sl.pair_delta(masses)
        for point in random_points(113, 3, e=("-3", "3")):
            e_v = sympy.Rational(point["e"].numerator, point["e"].denominator)
            lhs = value(d_k.xreplace(sub).xreplace({epsilon_prime: e_v}), {})
            rhs = value(hockey.xreplace({epsilon_prime: e_v}), {})
            assert abs(lhs - rhs) <= abs(rhs) * sympy.Rational(1, 10**45) + sympy.Rational(1, 10**60)
    # (c) termwise x_+ = x + (-x)_+ with x = P - e^e Q: (P - e^e Q)_+ = P - e^e Q + e^e (Q - e^-e P)_+
    P, Q, e = sympy.symbols("P Q e", real=True)
    x = P - exp(e) * Q
    zp = sympy.Symbol("z", positive=True)
    for z in (zp, -zp, sympy.Integer(0)):  # x_+ = x + (-x)_+, case by case on the sign of x
        assert sympy.Max(z, 0) - (z + sympy.Max(-z, 0)) == 0
    assert sympy.expand(-x - exp(e) * (Q - exp(-e) * P)) == 0
    t = sympy.Symbol("t", real=True)
    phi = lambda z: exp(-z**2 / 2) / sympy.sqrt(2 * sympy.pi)  # noqa: E731
    # sympy integrates once with the upper limit c, the shift m and e as symbols (at each
    # point's numbers it took meijerg seconds per point); each point substitutes its numbers
    c, m = sympy.Symbol("c", real=True), sympy.Symbol("m", real=True)
    integral = sympy.Integral(phi(t) - exp(e) * phi(t - m), (t, -sympy.oo, c)).doit()
    assert not integral.has(sympy.Integral), integral
    for point in random_points(131, 3, mu=("0.3", "2"), e=("-3", "-0.01")):
        mu_v = sympy.Rational(point["mu"].numerator, point["mu"].denominator)
        e_v = sympy.Rational(point["e"].numerator, point["e"].denominator)
        # P = N(0, 1) exceeds e^e N(mu, 1) left of c = mu/2 - e/mu (the loss mu^2/2 - mu t decreases)
        c_v = mu_v / 2 - e_v / mu_v
        lhs = value(GAUSSIAN_DUAL.xreplace({epsilon: e_v, mu: mu_v}), {})
        rhs = value(sympy.simplify(integral.xreplace({c: c_v, m: mu_v, e: e_v})), {})
        assert abs(lhs - rhs) <= sympy.Rational(1, 10**45), point
    print("d13: k-ary randomized response, finite pairs and delta at eps < 0: verified")


if __name__ == "__main__":
    main()
