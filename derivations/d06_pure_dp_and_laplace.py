"""d06: closed forms of f_{eps,delta}, Laplace, and their privacy profiles.

Claims.
(a) The Laplace trade-off (Laplace(0,1) vs Laplace(mu,1)) is 1 - e^mu alpha below e^{-mu}/2,
    e^{-mu}/(4 alpha) up to 1/2, e^{-mu}(1 - alpha) after (Dong, Roth & Su 2022,
    Sec. 2): it equals the Neyman-Pearson construction from the Laplace density.
(b) Profile of f_{eps,delta}: delta(eps') = delta for eps' >= eps, else
    1 - (1 - delta)(1 + e^eps')/(1 + e^eps): the conjugate of a piecewise-linear f is a maximum
    over its vertices 0, (1 - delta)/(1 + e^eps), 1 - delta, 1.
(c) Profile of Laplace: delta(eps') = 0 for eps' >= mu (Laplace is mu-DP), else
    1 - e^{(eps' - mu)/2}, attained at alpha = e^{-(eps' + mu)/2}/2 where the slope of the middle
    piece, -e^{-mu}/(4 alpha^2), equals -e^{eps'}.

Assumptions.  mu >= 0, eps >= 0, 0 <= delta <= 1.
"""

from __future__ import annotations

import sympy

import gdpproof
from gdpproof.symbolic.tradeoff import EPS_DELTA, EPS_DELTA_DUAL, LAPLACE, LAPLACE_DUAL
from gdpproof.symbols import alpha, delta, epsilon, epsilon_prime, mu, x

try:
    from ._check import agree, random_points
except ImportError:  # run as a script
    from _check import agree, random_points


def main() -> None:
    # (a) Laplace closed form = Neyman-Pearson construction, at 50 digits (piecewise in alpha)
    np_form = gdpproof.location_family(sympy.exp(-abs(x)) / 2, x).expr
    agree(np_form, LAPLACE, random_points(11, 12, alpha=("0.0001", "0.9999"), mu=("0.01", "5")))

    # (b) f_{eps,delta}: vertex values of -e^eps' alpha - f(alpha), the max is the profile - 1
    ep = epsilon_prime
    f_lines = (1 - delta - sympy.exp(epsilon) * alpha, sympy.exp(-epsilon) * (1 - delta - alpha))
    kink = (1 - delta) / (1 + sympy.exp(epsilon))
    assert sympy.simplify(f_lines[0].xreplace({alpha: kink}) - f_lines[1].xreplace({alpha: kink})) == 0
    at_zero = 1 + (-(1 - delta))  # alpha = 0: f(0) = 1 - delta
    at_kink = sympy.simplify(1 - sympy.exp(ep) * kink - f_lines[0].xreplace({alpha: kink}))
    assert sympy.simplify(at_zero - EPS_DELTA_DUAL.args[0][0]) == 0
    assert sympy.simplify(at_kink - EPS_DELTA_DUAL.args[1][0]) == 0
    # and at eps' = eps the two branches meet (the profile is continuous)
    assert sympy.simplify(at_kink.xreplace({ep: epsilon}) - delta) == 0
    # the whole profile against the certified conjugate route, at random points
    for point in random_points(12, 4, epsilon=("0.1", "3"), delta=("0", "0.3"), eps2=("0", "4")):
        f = gdpproof.eps_delta(point["epsilon"], point["delta"])
        generic = gdpproof.TradeOff(EPS_DELTA, f.params, "generic", True)
        assert generic.delta(point["eps2"], digits=20) == f.delta(point["eps2"], digits=20)

    # (c) Laplace: the touching point and the value of the profile
    a_t = sympy.exp(-(ep + mu) / 2) / 2
    middle = LAPLACE.args[1][0]
    assert sympy.simplify(sympy.diff(middle, alpha).xreplace({alpha: a_t}) + sympy.exp(ep)) == 0
    value_at = sympy.simplify(1 - sympy.exp(ep) * a_t - middle.xreplace({alpha: a_t}))
    assert sympy.simplify(value_at - LAPLACE_DUAL.args[1][0]) == 0
    for point in random_points(13, 4, mu=("0.2", "3"), eps2=("0", "4")):
        f = gdpproof.laplace(point["mu"])
        generic = gdpproof.TradeOff(LAPLACE, f.params, "generic", True)
        assert generic.delta(point["eps2"], digits=20) == f.delta(point["eps2"], digits=20)
    print("d06: Laplace closed form; profiles of f_{eps,delta} and Laplace: verified")


if __name__ == "__main__":
    main()
