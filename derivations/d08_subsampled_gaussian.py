"""d08: the closed description of C_p(G_mu), and its log-slope in the variable z.

Claim.  For G_mu (symmetric, G_mu(0) = 1), C_p(G_mu) = min{f_p, f_p^{-1}}** with
f_p = p G_mu + (1 - p) Id is f_p on [0, x*], the line x* + f_p(x*) - alpha on [x*, f_p(x*)]
and f_p^{-1} after, with x* = Phi(-mu/2) (Dong, Roth & Su 2022, Thm 4.2 and the remark after
it).  Here: x* is where G_mu' = -1 and G_mu(x*) = x*; the three pieces of the
shipped ``subsample(gaussian(mu), p)`` join continuously; and at alpha = Phi(-z) the log-slope
of f_p is log(p e^{mu z - mu^2/2} + 1 - p) while the mirrored piece has weight
p phi(z - mu) + (1 - p) phi(z), the forms gdpproof's functionals integrate.

Assumptions.  mu > 0, 0 < p < 1.

Steps.
1. G_mu'(Phi(-mu/2)) = -1 and G_mu(Phi(-mu/2)) = Phi(-mu/2) (symbolic, with
   erfcinv(erfc(w)) = w for real w).
2. The shipped template: piece 1 = f_p; pieces 1 and 2 agree at x* (symbolic); pieces 2 and 3
   agree at f_p(x*) (piece 3 is an implicit inverse, so this is checked at 50 certified digits
   at seeded random (mu, p)).
3. log(-f_p'(Phi(-z))) = log(p e^{mu z - mu^2/2} + 1 - p), and
   (p e^{mu z - mu^2/2} + 1 - p) phi(z) = p phi(z - mu) + (1 - p) phi(z) (symbolic).
"""

from __future__ import annotations

import sympy
from sympy import erfc, erfcinv, exp, pi, sqrt

import gdpproof
from gdpproof.symbolic.tradeoff import GAUSSIAN
from gdpproof.symbols import Phi, alpha, mu, p

try:
    from ._check import random_points, value
except ImportError:  # run as a script
    from _check import random_points, value


def main() -> None:
    m = sympy.Symbol("m", positive=True)
    z = sympy.Symbol("z", real=True)
    w = sympy.Wild("w")

    def at(expr: sympy.Expr, a: sympy.Expr) -> sympy.Expr:
        return expr.xreplace({alpha: a, mu: m}).replace(erfcinv(erfc(w)), w)

    # 1. the slope -1 point is on the diagonal
    xs = Phi(-m / 2)
    assert sympy.simplify(at(sympy.diff(GAUSSIAN, alpha), xs) + 1) == 0
    assert sympy.simplify(at(GAUSSIAN, xs) - xs) == 0

    # 2. the shipped template
    c = gdpproof.subsample(gdpproof.gaussian(mu), p)
    (first, c1), (line, c2), (inverse, _) = c.template.args
    fp = p * GAUSSIAN + (1 - p) * (1 - alpha)
    assert sympy.simplify(first - fp) == 0
    assert sympy.simplify(at(first, xs) - at(line, xs)) == 0
    corner = c2.rhs  # f_p(x*)
    for point in random_points(11, 6, mu=("0.1", "4"), p=("0.01", "0.99")):
        a = value(line.xreplace({alpha: corner}), point)
        b = value(inverse.xreplace({alpha: corner}), point)
        assert abs(a - b) <= max(abs(a), 1) * sympy.Rational(1, 10**45), (point, float(a), float(b))

    # 3. the z-forms used by the quadrature of the functionals
    slope = at(sympy.diff(fp, alpha), Phi(-z))
    L = sympy.log(-slope)
    target = sympy.log(p * exp(m * z - m**2 / 2) + 1 - p)
    assert sympy.simplify(sympy.expand(sympy.exp(L) - sympy.exp(target))) == 0
    phi = exp(-(z**2) / 2) / sqrt(2 * pi)
    weight = (p * exp(m * z - m**2 / 2) + 1 - p) * phi
    assert sympy.simplify(weight - (p * phi.xreplace({z: z - m}) + (1 - p) * phi)) == 0
    print("d08: C_p(G_mu) = f_p | slope -1 segment | f_p^-1 with x* = Phi(-mu/2); the z-forms: verified")


if __name__ == "__main__":
    main()
