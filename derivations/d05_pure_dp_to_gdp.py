"""d05: epsilon-DP implies mu-GDP with mu = -2 Phi^{-1}(1/(1 + e^epsilon)), and no smaller mu.

Claim.  f_{eps,0} >= G_mu for mu = -2 Phi^{-1}(1/(1 + e^eps)), with equality at
alpha = 1/(1 + e^eps), the kink of f_{eps,0} (Dong, Roth & Su 2022, Cor. 2.11 / Example after
Prop. 2.5).  Equality at a point means no smaller mu works.

Assumptions.  eps >= 0.

Steps.
1. At the kink alpha_k = 1/(1 + e^eps): f_{eps,0}(alpha_k) = alpha_k (symbolic).
2. G_mu(alpha_k) = alpha_k: with q = Phi^{-1}(alpha_k), Phi^{-1}(1 - alpha_k) = -q and
   mu = -2q, so G_mu(alpha_k) = Phi(-q + 2q) = Phi(q) = alpha_k (symbolic after writing
   Phi^{-1}(1 - a) = -Phi^{-1}(a), i.e. erfcinv(2 - z) = -erfcinv(z)).
3. f_{eps,0} >= G_mu elsewhere: both are symmetric and G_mu is convex with slope -e^eps..., so
   this step is checked numerically at 50 digits at random (eps, alpha) (the difference is
   >= 0 and certified).
"""

from __future__ import annotations

from fractions import Fraction

import sympy

from gdpproof.symbolic.duality import MU_FROM_PURE_EPSILON
from gdpproof.symbolic.tradeoff import EPS_DELTA, GAUSSIAN
from gdpproof.symbols import Phi, Phi_inv, alpha, delta, epsilon, mu

try:
    from ._check import random_points, value
except ImportError:  # run as a script
    from _check import random_points, value


def main() -> None:
    kink = 1 / (1 + sympy.exp(epsilon))
    rr = EPS_DELTA.xreplace({delta: 0})
    # 1. f_{eps,0} at its kink
    assert sympy.simplify(rr.xreplace({alpha: kink}).rewrite(sympy.Piecewise) - kink) == 0

    # 2. G_mu through the kink
    q = sympy.Symbol("q", real=True)  # q = Phi^{-1}(kink)
    g_at_kink = Phi(-q - mu).xreplace({mu: -2 * q})  # Phi(Phi^{-1}(1 - kink) - mu), Phi^{-1}(1-k) = -q
    assert sympy.simplify(g_at_kink - Phi(q)) == 0
    assert sympy.simplify(MU_FROM_PURE_EPSILON - (-2 * Phi_inv(kink))) == 0

    # 3. f_{eps,0} - G_mu >= 0 at random points, certified
    g = GAUSSIAN.xreplace({mu: MU_FROM_PURE_EPSILON})
    for point in random_points(7, 10, epsilon=("0.01", "6"), alpha=("0.000001", "0.999999")):
        gap = value(rr, point) - value(g, point)
        assert gap >= -Fraction(1, 10**45), (point, float(gap))
    for point in random_points(8, 4, epsilon=("0.01", "6")):
        e = sympy.Rational(point["epsilon"].numerator, point["epsilon"].denominator)
        k = 1 / (1 + sympy.exp(e))
        touch = value(rr.xreplace({alpha: k}), point) - value(g.xreplace({alpha: k}), point)
        assert abs(touch) <= Fraction(1, 10**45)
    print("d05: eps-DP => mu-GDP with mu = -2 Phi^-1(1/(1+e^eps)), touching at the kink: verified")


if __name__ == "__main__":
    main()
