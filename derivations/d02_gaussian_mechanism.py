"""d02: the Gaussian mechanism with L2 sensitivity Delta and noise sigma is exactly (Delta/sigma)-GDP.

Claim.  For a query with ||q(S) - q(S')||_2 <= Delta, releasing q(S) + N(0, sigma^2 I_d) has
trade-off T(N(a, sigma^2 I), N(b, sigma^2 I)) = G_{||b - a||/sigma} >= G_{Delta/sigma}, with
equality for a pair at distance Delta (Dong, Roth & Su 2022, Thm 2.7).

Assumptions.  sigma > 0; here d = 3 with symbolic vectors (the argument is the same for any d).

Steps.
1. The log-likelihood ratio log(dQ/dP)(x) of the two d-dimensional Gaussians is an affine
   function of the single projection <x - a, b - a> (symbolic, d = 3): every Neyman–Pearson test
   thresholds that projection, so the d-dimensional problem is a 1-dimensional one.
2. The standardized projection Z = <x - a, u>/sigma, u = (b - a)/||b - a||, has mean 0 and
   variance 1 under P and mean ||b - a||/sigma under Q (linearity; the variance is
   sigma^2 ||u||^2 / sigma^2 = 1): the pair is N(0, 1) against N(||b - a||/sigma, 1), whose
   trade-off is G_{||b - a||/sigma} (d01).
3. G_mu is non-increasing in mu (dG/dmu = -phi(...) < 0, symbolic), so the worst pair has
   ||b - a|| = Delta: the mechanism is (Delta/sigma)-GDP, and tight.
"""

from __future__ import annotations

import sympy

from gdpproof.symbolic.tradeoff import GAUSSIAN
from gdpproof.symbols import alpha, mu


def main() -> None:
    sigma = sympy.Symbol("sigma", positive=True)
    a = sympy.Matrix(sympy.symbols("a1:4", real=True))
    b = sympy.Matrix(sympy.symbols("b1:4", real=True))
    x = sympy.Matrix(sympy.symbols("x1:4", real=True))

    # 1. log dQ/dP for N(b, s^2 I) against N(a, s^2 I)
    log_ratio = (-(x - b).dot(x - b) + (x - a).dot(x - a)) / (2 * sigma**2)
    proj = (x - a).dot(b - a)
    dist2 = (b - a).dot(b - a)
    assert sympy.simplify(sympy.expand(log_ratio - (proj / sigma**2 - dist2 / (2 * sigma**2)))) == 0

    # 2. moments of Z = <x - a, b - a> / (sigma ||b - a||) under P (x = a + sigma W) and Q
    w = sympy.Matrix(sympy.symbols("w1:4", real=True))  # W ~ N(0, I): E W = 0, Cov W = I
    z_p = (sigma * w).dot(b - a) / (sigma * sympy.sqrt(dist2))
    coeffs = [sympy.diff(z_p, wi) for wi in w]          # Z is linear in W with these weights
    assert sympy.simplify(sum(c**2 for c in coeffs) - 1) == 0  # variance 1
    assert sympy.simplify(z_p.subs({wi: 0 for wi in w})) == 0   # mean 0 under P
    z_q_mean = ((b - a).dot(b - a)) / (sigma * sympy.sqrt(dist2))  # x = b + sigma W under Q
    assert sympy.simplify(z_q_mean - sympy.sqrt(dist2) / sigma) == 0

    # 3. G_mu decreases in mu: the worst neighbouring pair is at distance Delta
    dG = sympy.diff(GAUSSIAN, mu)
    # dG/dmu = -exp(-(mu/sqrt2 - erfcinv(2 alpha))^2)/sqrt(2 pi) < 0
    m, t = sympy.Symbol("m", positive=True), sympy.Symbol("t", real=True)
    assert sympy.simplify(dG.xreplace({mu: m, sympy.erfcinv(2 * alpha): t})
                          + sympy.exp(-(m / sympy.sqrt(2) - t) ** 2) / sympy.sqrt(2 * sympy.pi)) == 0
    print("d02: the d-dimensional Gaussian mechanism reduces to N(0,1) vs N(||b-a||/sigma,1); "
          "(Delta/sigma)-GDP, tight: verified")


if __name__ == "__main__":
    main()
