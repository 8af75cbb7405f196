"""d14: the discrete Gaussian and discrete Laplace mechanisms: dominating pairs, losses, tails.

Claim.  (a) Dominating pair.  Let f be integer-valued with |f(D) - f(D')| <= Delta (a positive
integer), and M(D) = f(D) + Z with Z ~ N_Z(0, s^2) (P[Z = z] = W(z)/S, W(z) = e^{-z^2/(2 s^2)}) or
Z ~ DLap(b) (P[Z = z] proportional to e^{-|z|/b}).  Then for all neighbours T(M(D), M(D')) >=
T(P_0, P_Delta), P_theta the noise law shifted by theta.  Proof: (M(D), M(D')) is the shift by
f(D) of (P_0, P_k), k = f(D') - f(D) in [-Delta, Delta], and trade-off functions are invariant
under bijections of the output space, so T(M(D), M(D')) = T(P_0, P_k); the reflection x -> -x
maps P_0 to P_0 and P_k to P_-k, so k >= 0 (k = 0 gives the identity, the largest curve).  For
theta > 0 the likelihood ratio P_theta(x)/P_0(x) is non-decreasing in x: for the discrete Gaussian
e^{(2 theta x - theta^2)/(2 s^2)} (increasing), for the discrete Laplace e^{(|x| - |x - theta|)/b}
(non-decreasing).  So at every level alpha a most powerful test of P_0 against P_theta rejects the
large x: phi_alpha = 1 above a threshold t, gamma at t, 0 below, with E_0 phi_alpha = alpha; t and
gamma depend on P_0 and alpha only, so the same test is most powerful for every theta > 0
(Neyman–Pearson, monotone likelihood ratio; Lehmann & Romano, TSH Thm 3.4.1).  Its type II error
E_theta[1 - phi_alpha(X)] = E_0[1 - phi_alpha(X + theta)] is non-increasing in theta, 1 - phi_alpha
being non-increasing.  Hence T(P_0, P_k)(alpha) >= T(P_0, P_Delta)(alpha) for 0 < k <= Delta.
(b) The discrete Gaussian's loss log P_0(x)/P_Delta(x) is (Delta^2 - 2 Delta x)/(2 s^2) (DG_LOSS_AT),
decreasing in x, so L(x) <= ell iff x >= DG_CUT(ell); the tail sum over z > n >= 0 is at most
DG_TAIL_BOUND(n) = W(n + 1)/(1 - e^{-(2n + 3)/(2 s^2)}) (the ratio W(z + 1)/W(z) =
e^{-(2z + 1)/(2 s^2)} decreases in z); S = theta_3(0, e^{-1/(2 s^2)}).
(c) The discrete Laplace pair merges into Delta + 1 outputs (x <= 0, x = 1..Delta - 1, x >= Delta)
with the masses of discrete_laplace_masses (geometric sums), on which the likelihood ratio is
constant, e^{(Delta - 2j) eps}, eps = 1/b: merging outputs of equal ratio changes no Neyman–Pearson
test.  The largest loss is Delta eps, so the mechanism is (Delta/b)-DP (delta(Delta/b) = 0).
Sources: Canonne, Kamath & Steinke 2020 (Def. 1, Prop. 19, Thm 7 for the (Delta/s)^2/2-zCDP bound);
Ghosh, Roughgarden & Sundararajan 2009 (the geometric mechanism); Dong, Roth & Su 2022 (Prop. 2.12).

Assumptions.  s > 0 rational, b > 0, Delta a positive integer.

Steps.
1. (a) symbolic: both likelihood ratios and their monotonicity (derivative, piecewise slope);
   numerically, delta_{P_0, P_1}(eps) <= delta_{P_0, P_2}(eps) (the dual of the curve order) at seeded eps.
2. (b) symbolic: the loss, the cut (the root of L(x) = ell), the ratio W(z + 1)/W(z) and the
   geometric-series bound; numerically, the tail sum below the bound and S against mpmath's
   jtheta at 50 digits, and the shipped delta against a 60-digit mpmath sum.
3. (c) symbolic: the merged masses are the geometric sums, sum to 1, and have the stated ratios.
"""

from __future__ import annotations

from fractions import Fraction

import mpmath
import sympy
from sympy import exp, log

from gdpproof.accounting.discrete import discrete_gaussian_delta, normaliser
from gdpproof.symbolic import losses as sl
from gdpproof.symbolic.symbols import Delta, ell, epsilon, sigma, x, z

try:
    from ._check import random_points
except ImportError:  # run as a script
    from _check import random_points


def main() -> None:
    theta = sympy.Symbol("theta", positive=True)
    W = sl.DG_WEIGHT
    Wx = W.xreplace({z: x})
    # (a) likelihood ratios: the discrete Gaussian's increases in x
    ratio = W.xreplace({z: x - theta}) / Wx
    closed = exp((2 * theta * x - theta**2) / (2 * sigma**2))
    assert sympy.simplify(ratio - closed) == 0
    assert sympy.simplify(sympy.diff(closed, x) - theta / sigma**2 * closed) == 0  # > 0 for theta > 0
    # the discrete Laplace's: |x| - |x - theta| is -theta (x <= 0), 2x - theta (0 <= x <= theta), theta
    lap = sympy.Abs(x) - sympy.Abs(x - theta)
    for piece, at in ((-theta, -1), (2 * x - theta, theta / 3), (theta, theta + 1)):  # a point of each piece
        assert sympy.simplify(lap.xreplace({x: at}) - piece.xreplace({x: at})) == 0
    # slopes 0, 2, 0: non-decreasing
    assert all(sympy.diff(p, x) >= 0 for p in (-theta, 2 * x - theta, theta))
    # the curve order, through profiles: sensitivity 1 is dominated by sensitivity 2
    for point in random_points(141, 3, e=("-1", "2")):
        e_v = sympy.Rational(point["e"].numerator, point["e"].denominator)
        d1 = discrete_gaussian_delta(sympy.Rational(3, 2), 1, e_v, digits=30).to_fraction()
        d2 = discrete_gaussian_delta(sympy.Rational(3, 2), 2, e_v, digits=30).to_fraction()
        assert d1 < d2, (e_v, d1, d2)
    # (b) the loss, the cut and the tail bound
    loss = sympy.expand_log(log(Wx / W.xreplace({z: x - Delta})), force=True)
    assert sympy.simplify(loss - sl.DG_LOSS_AT) == 0
    root = sympy.solve(sympy.Eq(sl.DG_LOSS_AT, ell), x)
    assert len(root) == 1 and sympy.simplify(root[0] - sl.DG_CUT.args[0]) == 0
    assert sympy.diff(sl.DG_LOSS_AT, x) == -Delta / sigma**2  # decreasing: L <= ell iff x >= root
    step = sympy.simplify(W.xreplace({z: z + 1}) / W)
    assert sympy.simplify(step - sl.DG_RATIO) == 0
    assert sympy.simplify(sl.DG_RATIO.xreplace({z: z + 1}) / sl.DG_RATIO - exp(-1 / sigma**2)) == 0
    n = sympy.Symbol("n", nonnegative=True, integer=True)
    rho = step.xreplace({z: n + 1})     # the largest ratio from z = n + 1 on
    series = W.xreplace({z: n + 1}) / (1 - rho)
    assert sympy.simplify(series - sl.DG_TAIL_BOUND.xreplace({x: n})) == 0
    with mpmath.workdps(60):
        _numeric_checks()
    _laplace_checks()
    print("d14: discrete Gaussian and discrete Laplace mechanisms: verified")


def _numeric_checks() -> None:
    for s_v, n_v in ((Fraction(3, 2), 2), (Fraction(4), 10), (Fraction(1, 3), 0)):
        s_m = mpmath.mpf(s_v.numerator) / s_v.denominator
        w = lambda t: mpmath.exp(-mpmath.mpf(t) ** 2 / (2 * s_m**2))  # noqa: E731
        far = n_v + int(40 * s_m) + 40   # beyond, the terms are below 1e-340 and the sum of them too
        tail = mpmath.fsum(w(t) for t in range(n_v + 1, far))
        bound = w(n_v + 1) / (1 - mpmath.exp(-mpmath.mpf(2 * n_v + 3) / (2 * s_m**2)))
        assert tail <= bound
        big_s = mpmath.jtheta(3, 0, mpmath.exp(-1 / (2 * s_m**2)))
        got = normaliser(sympy.Rational(s_v.numerator, s_v.denominator), digits=50).to_fraction()
        assert abs(Fraction(mpmath.nstr(big_s, 58, strip_zeros=False)) - got) <= Fraction(1, 10**48)
        for d_v, e_v in ((1, Fraction(1, 2)), (2, Fraction(-1, 3))):
            total = 1 + 2 * mpmath.fsum(w(t) for t in range(1, far))
            brute = mpmath.fsum(max(0, (w(k) - mpmath.exp(mpmath.mpf(e_v.numerator) / e_v.denominator) * w(k - d_v)))
                                for k in range(-int(60 * s_m) - 5, int(60 * s_m) + d_v + 5)) / total
            shipped = discrete_gaussian_delta(sympy.Rational(s_v.numerator, s_v.denominator), d_v,
                                              sympy.Rational(e_v.numerator, e_v.denominator), digits=40).to_fraction()
            assert abs(Fraction(mpmath.nstr(brute, 58, strip_zeros=False)) - shipped) <= shipped * Fraction(1, 10**38)


def _laplace_checks() -> None:
    # (c) discrete Laplace: the merged masses are geometric sums with the stated ratios
    r = sympy.Symbol("r", positive=True)
    c = (1 - r) / (1 + r)
    below = 1 / (1 - r)  # sum_{z <= 0} r^{|z|}, a geometric series (0 < r < 1)
    assert sympy.cancel(c * below - 1 / (1 + r)) == 0
    for d_v in (1, 2, 5):
        masses = sl.discrete_laplace_masses(epsilon, d_v)
        assert len(masses) == d_v + 1
        assert sympy.simplify(sum(p for p, _ in masses) - 1) == 0 and sympy.simplify(sum(q for _, q in masses) - 1) == 0
        for j, (pm, qm) in enumerate(masses):
            assert sympy.simplify(sympy.expand_log(log(pm / qm), force=True) - (d_v - 2 * j) * epsilon) == 0
        # x >= Delta: Q-mass = c sum_{z <= 0} r^|z| = 1/(1 + r), P-mass r^Delta times it
        last = masses[-1]
        assert sympy.simplify(last[1] - 1 / (1 + exp(-epsilon))) == 0
        assert sympy.simplify(last[0] - exp(-d_v * epsilon) / (1 + exp(-epsilon))) == 0


if __name__ == "__main__":
    main()
