"""d11: privacy-loss distributions behind the numerical composition, and their safer forms.

Claim.  (a) For P = N(0, 1), Q = N(mu, 1) the privacy loss L = log(dP/dQ)(X) is N(mu^2/2, mu^2)
under P and N(-mu^2/2, mu^2) under Q, and the hockey-stick form
delta(eps) = E_P[(1 - e^{eps - L})_+] equals the closed form of DRS Cor. 2.13.
(b) For the Poisson-subsampled Gaussian (P = (1-p) N(0, s^2) + p N(1, s^2), Q = N(0, s^2))
L(x) = log(1 - p + p e^{(2x - 1)/(2 s^2)}), and the cancellation-free inverse that
``SubsampledGaussianLoss._x`` uses, ell - log p + log1p(-(1 - p) e^{-ell}) for ell > 1 and
log1p(expm1(ell)/p) for ell <= 1, equals the textbook log((e^ell - (1 - p))/p).
(c) Randomized response: E_P[L] = eps (2q - 1) with q = e^eps/(1 + e^eps) equals
eps tanh(eps/2), the form ``RandomizedResponseLoss.partial_mean`` uses.
(d) Laplace, P = Lap(0, 1), Q = Lap(mu, 1): L = |x - mu| - |x|; P(L <= l) = e^{-(mu - l)/2}/2 and
Q(L <= l) = 1 - e^{-(mu + l)/2}/2 on [-mu, mu), the laws ``LaplaceLoss`` ships.
(e) The laws shipped in ``gdpproof.symbolic.losses`` (what the engines compile) are these: the
partial means M(ell) = E[L; L <= ell] have derivative ell times the density of L and the right
limits; the Laplace antiderivatives and CDFs, the randomized-response atoms and the subsampled
Gaussian's inverse map are the ones derived above.
Sources: Dong, Roth & Su 2022 (Cor. 2.13); the privacy-loss view of Sommer, Meiser & Mohammadi
2019 and Koskela et al. 2020.

Assumptions.  mu > 0, s > 0, 0 < p <= 1, eps > 0.

Steps.
1. (a) L = mu^2/2 - mu X is affine in X: its laws follow; the hockey-stick integral over L is
   computed by sympy and compared with the shipped GAUSSIAN_DUAL (symbolic where sympy closes
   it, else at 50 certified digits at seeded random points).
2. (b) exp of both sides agree (symbolic); L(x(ell)) = ell (symbolic).
3. (c) symbolic.
4. (d) the densities of L under P and Q by change of variables, integrated by sympy, and the
   shipped float CDFs compared with them at seeded points.
5. (e) symbolic: derivatives of the shipped partial means, their values at the ends of the
   support, the shipped CDFs against (d), and exp of the shipped inverse map against (b).
"""

from __future__ import annotations

import numpy as np
import sympy
from sympy import exp, log, sqrt

from gdpproof.accounting.losses import GaussianLoss, LaplaceLoss, SubsampledGaussianLoss
from gdpproof.symbolic import losses as shipped_laws
from gdpproof.symbolic.tradeoff import GAUSSIAN_DUAL
from gdpproof.symbols import ell as ELL
from gdpproof.symbols import epsilon, mu, p, sigma
from gdpproof.symbols import x as X

try:
    from ._check import random_points, value
except ImportError:  # run as a script
    from _check import random_points, value


def main() -> None:
    m = sympy.Symbol("m", positive=True)
    x, ell, e = sympy.symbols("x ell e", real=True)
    s, q = sympy.symbols("s q", positive=True)

    # 1. Gaussian: L = log phi(x) - log phi(x - m) = m^2/2 - m x
    logp = -x**2 / 2
    logq = -((x - m) ** 2) / 2
    L = sympy.expand(logp - logq)
    assert sympy.simplify(L - (m**2 / 2 - m * x)) == 0
    # under P: X ~ N(0, 1) so L ~ N(m^2/2, m^2); under Q: X ~ N(m, 1) so L ~ N(-m^2/2, m^2)
    assert sympy.simplify(L.subs(x, 0) - m**2 / 2) == 0 and sympy.simplify(L.subs(x, m) + m**2 / 2) == 0
    # hockey stick: E_P[(1 - e^{e - L})_+] over L ~ N(m^2/2, m^2), integrated in the standard z
    z = sympy.Symbol("z", real=True)
    Lz = m**2 / 2 + m * z
    phi = exp(-(z**2) / 2) / sqrt(2 * sympy.pi)
    z0 = (e - m**2 / 2) / m  # L > e  <=>  z > z0
    hockey = sympy.integrate((1 - exp(e - Lz)) * phi, (z, z0, sympy.oo))
    shipped = GAUSSIAN_DUAL.xreplace({mu: m, epsilon: e})
    for point in random_points(111, 6, m=("0.2", "3"), e=("0", "4")):
        a = value(hockey, point)
        b = value(shipped, point)
        assert abs(a - b) <= max(abs(b), sympy.Rational(1, 10**40)) * sympy.Rational(1, 10**45), point
    # the shipped float law agrees with N(m^2/2, m^2) at the mean
    assert abs(GaussianLoss(1.5).cdf(np.array([1.125]), "P")[0] - 0.5) < 1e-15

    # 2. subsampled Gaussian: the cancellation-free inverse
    Lx = log(1 - q + q * exp((2 * x - 1) / (2 * s**2)))
    textbook = log((exp(ell) - (1 - q)) / q)
    large = ell - log(q) + log(1 - (1 - q) * exp(-ell))       # log1p(u) = log(1 + u)
    small = log(1 + (exp(ell) - 1) / q)                        # expm1(ell) = e^ell - 1
    assert sympy.simplify(sympy.expand(exp(large) - exp(textbook))) == 0
    assert sympy.simplify(sympy.expand(exp(small) - exp(textbook))) == 0
    xof = s**2 * textbook + sympy.Rational(1, 2)
    assert sympy.simplify(sympy.expand(exp(Lx.subs(x, xof)) - exp(ell))) == 0
    # and the shipped float map inverts the loss at seeded points (both branches)
    loss = SubsampledGaussianLoss(0.8, 0.05)
    for v in (-0.04, -1e-3, 0.0, 1e-3, 0.5, 3.0, 800.0):
        xv = float(loss._x(np.array([v]))[0])
        back = float(sympy.N(Lx.subs({x: xv, s: sympy.Rational(4, 5), q: sympy.Rational(1, 20)}), 30))
        assert abs(back - v) <= 1e-12 * max(1.0, abs(v)), (v, back)

    # 3. randomized response: eps (2q - 1) = eps tanh(eps/2)
    qq = exp(e) / (1 + exp(e))
    assert sympy.simplify((e * (2 * qq - 1) - e * sympy.tanh(e / 2)).rewrite(exp)) == 0

    # 4. Laplace: L = |x - m| - |x| = m - 2x on (0, m); P(L <= l) = P(X >= (m - l)/2)
    cdf_p = sympy.integrate(exp(-x) / 2, (x, (m - ell) / 2, sympy.oo))
    assert sympy.simplify(cdf_p - exp(-(m - ell) / 2) / 2) == 0
    # under Q (X ~ Lap(m, 1)): Q(L <= l) = Q(X >= (m - l)/2) = 1 - Q(X < (m - l)/2), with
    # (m - l)/2 in (0, m) so the density there is e^{-(m - x)}/2
    cdf_q = 1 - sympy.integrate(exp(x - m) / 2, (x, -sympy.oo, (m - ell) / 2))
    assert sympy.simplify(cdf_q - (1 - exp(-(m + ell) / 2) / 2)) == 0
    shipped_lap = LaplaceLoss(1.3)
    for v in (-1.2, -0.3, 0.0, 0.7, 1.29):
        want_p = float(exp(-(sympy.Rational(13, 10) - sympy.Float(v, 30)) / 2) / 2)
        want_q = float(1 - exp(-(sympy.Rational(13, 10) + sympy.Float(v, 30)) / 2) / 2)
        assert abs(shipped_lap.cdf(np.array([v]), "P")[0] - want_p) < 1e-15
        assert abs(shipped_lap.cdf(np.array([v]), "Q")[0] - want_q) < 1e-15
    check_shipped_laws()
    print("d11: privacy-loss laws (Gaussian, subsampled Gaussian, RR, Laplace) and their safer forms: verified")


def _piece(expr: sympy.Expr, index: int) -> sympy.Expr:
    return expr.args[index][0]


def check_shipped_laws() -> None:
    """(e): the expressions of gdpproof.symbolic.losses against the laws derived in main()."""
    G, RR, LAP, SG = (shipped_laws.GAUSSIAN, shipped_laws.RANDOMIZED_RESPONSE, shipped_laws.LAPLACE,
                      shipped_laws.SUBSAMPLED_GAUSSIAN)
    # Gaussian: d/dell M = ell * density of N(+-mu^2/2, mu^2); M -> 0 at -oo; cdf' = density
    for law, m in (("P", mu**2 / 2), ("Q", -(mu**2) / 2)):
        dens = exp(-((ELL - m) ** 2) / (2 * mu**2)) / (mu * sqrt(2 * sympy.pi))
        assert sympy.simplify(sympy.diff(G.partial[law], ELL) - ELL * dens) == 0
        assert sympy.simplify(sympy.diff(G.cdf[law], ELL) - dens) == 0
        assert sympy.simplify(G.cdf[law] + G.sf[law] - 1) == 0
        assert sympy.limit(G.partial[law].xreplace({mu: sympy.Rational(3, 2)}), ELL, -sympy.oo) == 0
    # randomized response: atoms and partial means
    qq = 1 / (1 + exp(-epsilon))
    (a1, p1), (a2, p2) = RR.atoms["P"]
    assert (a1, a2) == (epsilon, -epsilon) and sympy.simplify(p1 - qq) == 0 and sympy.simplify(p1 + p2 - 1) == 0
    total = _piece(RR.partial["P"], 2)
    assert sympy.simplify((total - epsilon * (p1 - p2)).rewrite(exp)) == 0
    assert sympy.simplify(_piece(RR.partial["P"], 1) + epsilon * p2) == 0
    # Laplace: the middle pieces differentiate to ell times the densities; the CDF pieces are (d)'s
    dens_p = exp((ELL - mu) / 2) / 4
    dens_q = exp(-(ELL + mu) / 2) / 4
    assert sympy.simplify(sympy.diff(_piece(LAP.partial["P"], 1), ELL) - ELL * dens_p) == 0
    assert sympy.simplify(sympy.diff(_piece(LAP.partial["Q"], 1), ELL) - ELL * dens_q) == 0
    assert sympy.simplify(_piece(LAP.cdf["P"], 1) - exp(-(mu - ELL) / 2) / 2) == 0
    assert sympy.simplify(_piece(LAP.cdf["Q"], 1) - (1 - exp(-(mu + ELL) / 2) / 2)) == 0
    # continuity of M at -mu (the atom there) and the jump mu * P(L = mu) at mu
    left = _piece(LAP.partial["P"], 1).xreplace({ELL: -mu})
    assert sympy.simplify(left + mu * exp(-mu) / 2) == 0
    jump = _piece(LAP.partial["P"], 2) - _piece(LAP.partial["P"], 1).xreplace({ELL: mu})
    assert sympy.simplify(jump - mu / 2) == 0
    # the total mean under P is the KL divergence of Lap(0,1) from Lap(mu,1): mu - 1 + e^{-mu}
    assert sympy.simplify(_piece(LAP.partial["P"], 2) - (mu - 1 + exp(-mu))) == 0
    # subsampled Gaussian: exp((x(ell) - 1/2)/sigma^2) = (e^ell - (1 - p))/p on both branches
    textbook = (exp(ELL) - (1 - p)) / p
    for k in (2, 3):
        branch = _piece(SG.x_of_ell, k).rewrite(sympy.log).rewrite(exp)
        assert sympy.simplify(sympy.expand(exp((branch - sympy.Rational(1, 2)) / sigma**2) - textbook)) == 0
    # p = 1 (no floor): the first branch is the textbook map at p = 1
    branch = _piece(SG.x_of_ell, 0)
    assert sympy.simplify(exp((branch - sympy.Rational(1, 2)) / sigma**2) - textbook.xreplace({p: 1})) == 0
    loss_at = SG.integrand["Q"] / (exp(-X**2 / (2 * sigma**2)) / (sigma * sqrt(2 * sympy.pi)))
    assert sympy.simplify(loss_at - shipped_laws.SUBSAMPLED_GAUSSIAN_LOSS_AT) == 0
    check_flags()


def check_flags() -> None:
    """The two flags soundness relies on.

    ``symmetric``: the law of L under Q is the law of -L under P, so both orderings have one
    privacy profile: Q(L <= l) = P(L >= -l), checked on the continuous pieces (and, for the atoms,
    by the atoms' table).  The subsampled Gaussian is not symmetric (its flag says so).
    ``riskier``: the privacy profile grows with the parameter flagged +1 (and falls with -1).  For
    the Gaussian, d/dmu of the shipped dual is phi(-eps/mu + mu/2) > 0 (symbolic); for the others
    the certified profiles are compared at seeded points.
    """
    G, RR, LAP, SG = (shipped_laws.GAUSSIAN, shipped_laws.RANDOMIZED_RESPONSE, shipped_laws.LAPLACE,
                      shipped_laws.SUBSAMPLED_GAUSSIAN)
    assert G.symmetric and RR.symmetric and LAP.symmetric and not SG.symmetric
    assert sympy.simplify(G.cdf["Q"] - G.sf["P"].xreplace({ELL: -ELL})) == 0
    assert sympy.simplify(_piece(LAP.cdf["Q"], 1) - _piece(LAP.sf["P"], 1).xreplace({ELL: -ELL})) == 0
    (a1, p1), (a2, p2) = RR.atoms["P"]
    (b1, q1), (b2, q2) = RR.atoms["Q"]
    assert (b1, b2) == (-a2, -a1) and sympy.simplify(q1 - p2) == 0 and sympy.simplify(q2 - p1) == 0
    # riskier: Gaussian, symbolically
    dmu = sympy.diff(GAUSSIAN_DUAL, mu)
    phi = exp(-((-epsilon / mu + mu / 2) ** 2) / 2) / sqrt(2 * sympy.pi)
    for point in random_points(112, 4, mu=("0.2", "3"), epsilon=("0", "4")):
        assert abs(value(dmu, point) - value(phi, point)) < sympy.Rational(1, 10**40), point
    assert G.riskier == (1,) and RR.riskier == (1,) and LAP.riskier == (1,) and SG.riskier == (-1, 1)
    # riskier: the other families, certified profiles at fixed points (a larger parameter, or for
    # the subsampled Gaussian a smaller sigma or a larger p, gives a delta at least as large; beyond
    # the largest loss both are 0).  In general: G_mu, f_{eps,0} and the Laplace curve decrease as
    # their parameter grows, and f_p = p f + (1 - p) Id decreases as f decreases or as p grows (f <= Id),
    # so C_p(f), its lower convex envelope, does too: a lower curve has a larger delta at every eps.
    import gdpproof

    for e in ("0", "0.5", "2"):
        assert gdpproof.randomized_response("0.7").delta(e, digits=20) <= gdpproof.randomized_response("0.8").delta(
            e, digits=20)
        assert gdpproof.laplace("0.7").delta(e, digits=20) <= gdpproof.laplace("0.8").delta(e, digits=20)
        small, large = (gdpproof.subsample(gdpproof.gaussian(m), p) for m, p in (("1", "0.1"), ("1.1", "0.1")))
        assert small.delta(e, digits=10) <= large.delta(e, digits=10)
        fewer, more = (gdpproof.subsample(gdpproof.gaussian("1"), p) for p in ("0.1", "0.2"))
        assert fewer.delta(e, digits=10) <= more.delta(e, digits=10)


if __name__ == "__main__":
    main()
