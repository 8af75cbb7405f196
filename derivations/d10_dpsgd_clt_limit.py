"""d10: the DP-SGD CLT limit mu = nu sqrt(e^{mu0^2} - 1), from the functionals of one step.

Claim.  One Poisson-subsampled Gaussian step (one neighbouring direction) has the trade-off
f_p = p G_mu0 + (1 - p) Id, mu0 = 1/sigma.  If p sqrt(T) -> nu as T -> infinity, the CLT mu of
its T-fold composition, 2 T kl / sqrt(T kappa2 - T kl^2), tends to nu sqrt(e^{mu0^2} - 1)
(Bu, Dong, Long & Su 2020, Thm 5; DRS Thm 3.5), which gdpproof ships as
mu_CLT = p sqrt(T (e^{1/sigma^2} - 1)).  It is a limit: at finite T it is an approximation
(the numerical composition shows by how much).

Assumptions.  mu0 > 0, 0 < p < 1.

Steps.
1. With alpha = Phi(-z), z ~ N(0, 1) when alpha ~ U(0, 1), log|f_p'(alpha)| = log(1 + p Y),
   Y = e^{mu0 z - mu0^2/2} - 1 (d08, step 3).  E Y = 0, E Y^2 = e^{mu0^2} - 1 and E|Y|^3 < oo
   (symbolic Gaussian integrals; E|Y|^3 <= E (Y + 2)^3 is finite).
2. For u >= -p: |log(1 + u) - u + u^2/2| <= |u|^3 / (3 (1 - p)^3) and
   |log(1 + u)^2 - u^2| <= |u|^3 / (1 - p)^2 (Taylor with remainder).  Hence
   kl = -E log(1 + pY) = p^2 (e^{mu0^2} - 1)/2 + O(p^3) and kappa2 = p^2 (e^{mu0^2} - 1) + O(p^3).
3. With p = nu / sqrt(T): the limit of 2 T kl / sqrt(T kappa2 - T kl^2) is nu sqrt(e^{mu0^2} - 1)
   (sympy's limit, with the O(p^3) terms as bounded symbols).
4. The shipped quadrature of kl for f_p agrees with p^2 E Y^2/2 - p^3 E Y^3/3 to O(p^2)
   relative at p = 1e-3, mu0 = 1, and the shipped dpsgd_mu equals p sqrt(T (e^{mu0^2} - 1)).
"""

from __future__ import annotations

import sympy
from sympy import exp, oo, pi, sqrt

import gdpproof
from gdpproof.numeric.tradeoff.clt import gaussian_mixture


def main() -> None:
    m = sympy.Symbol("mu0", positive=True)
    z = sympy.Symbol("z", real=True)
    phi = exp(-(z**2) / 2) / sqrt(2 * pi)
    Y = exp(m * z - m**2 / 2) - 1

    # 1. moments of Y
    EY = sympy.integrate(sympy.expand(Y * phi), (z, -oo, oo))
    EY2 = sympy.integrate(sympy.expand(Y**2 * phi), (z, -oo, oo))
    EY2p3 = sympy.integrate(sympy.expand((Y + 2) ** 3 * phi), (z, -oo, oo))  # bounds E|Y|^3
    assert sympy.simplify(EY) == 0
    assert sympy.simplify(EY2 - (exp(m**2) - 1)) == 0
    assert EY2p3.is_finite is not False and sympy.simplify(EY2p3 - (exp(3 * m**2) + 3 * exp(m**2) + 4)) == 0

    # 2.-3. the limit, with the O(p^3) remainders as bounded symbols K1, K2
    nu, T = sympy.symbols("nu T", positive=True)
    K1, K2 = sympy.symbols("K1 K2", real=True)
    c = exp(m**2) - 1
    p = nu / sqrt(T)
    kl = p**2 * c / 2 + K1 * p**3
    kappa2 = p**2 * c + K2 * p**3
    mu_clt = 2 * T * kl / sqrt(T * kappa2 - T * kl**2)
    limit = sympy.limit(mu_clt, T, oo)
    assert sympy.simplify(limit - nu * sqrt(c)) == 0

    # 4. what ships: the quadrature of kl, and the DP-SGD formula
    f = gaussian_mixture(1, sympy.Rational(1, 1000))
    got = sympy.Rational(str(gdpproof.kl(f, digits=12)))
    # the expansion to the next order: kl = p^2 E Y^2 / 2 - p^3 E Y^3 / 3 + O(p^4)
    EY3 = sympy.integrate(sympy.expand(Y**3 * phi), (z, -oo, oo)).subs(m, 1)
    q = sympy.Rational(1, 1000)
    approx = q**2 * (sympy.E - 1) / 2 - q**3 * EY3 / 3
    assert abs(float(got / approx) - 1) < 1e-4, (float(got), float(approx))
    acc = gdpproof.dpsgd_mu(2, "0.01", 400, digits=20, gamma=False)
    want = sympy.Rational(1, 100) * sqrt(400 * (exp(sympy.Rational(1, 4)) - 1))
    assert abs(sympy.Rational(str(acc.mu_clt)) - want) < sympy.Rational(1, 10**18)
    print("d10: DP-SGD CLT limit mu = nu sqrt(e^{mu0^2} - 1) from kl and kappa2 of p G + (1-p) Id: verified")


if __name__ == "__main__":
    main()
