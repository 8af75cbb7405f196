"""d07: the CLT functionals of G_mu and of f_{eps,0} in closed form.

Claim.  With L(alpha) = log|f'(alpha)| and alpha ~ U(0, 1) (Dong, Roth & Su 2022, Thm 3.4):
for G_mu, L = mu Z - mu^2/2 with Z ~ N(0, 1), so
kl = mu^2/2, kappa2 = mu^2 + mu^4/4, bar_kappa3 = 2 sqrt(2/pi) mu^3 and kappa3 = E|X|^3 for
X ~ N(-mu^2/2, mu^2), the expression shipped in ``gdpproof.symbolic.clt.GAUSSIAN_FUNCTIONALS``;
for f_{eps,0}, L = eps on [0, 1/(1 + e^eps)] and -eps after, so kl = eps (e^eps - 1)/(e^eps + 1),
kappa2 = eps^2, kappa3 = eps^3 and bar_kappa3 is the shipped ``RR_FUNCTIONALS`` expression.

Assumptions.  mu > 0, eps > 0 (mu = 0 and eps = 0 give the identity, where all vanish).

Steps.
1. Differentiate the shipped G_mu and substitute alpha = Phi(-z) (then Phi^{-1}(1 - alpha) = z,
   i.e. erfcinv(erfc(w)) = w for real w): log|G'| = mu z - mu^2/2 (symbolic).  alpha ~ U(0, 1)
   makes z ~ N(0, 1).
2. The four expectations over N(0, 1) by sympy integration (|.|^3 split where its argument
   changes sign), each equal to the shipped expression (symbolic).
3. For f_{eps,0}: the slopes of the shipped piecewise form, then the four integrals (symbolic).
4. The shipped numeric route agrees: gdpproof.functionals at 30 digits against these
   expressions at two parameter values.
5. With eps = mu0/sqrt(n), the CLT mu of n-fold f_{eps,0} tends to mu0 and the Berry–Esseen
   gamma to 0 (sympy limits of the shipped expressions): n-fold randomized response tends to
   G_mu0 (DRS Thm 3.4).
"""

from __future__ import annotations

import sympy
from sympy import erfc, erfcinv, exp, oo, pi, sqrt

import gdpproof
from gdpproof.symbolic.clt import GAUSSIAN_FUNCTIONALS, RR_FUNCTIONALS
from gdpproof.symbolic.duality import piecewise_form
from gdpproof.symbolic.tradeoff import EPS_DELTA, GAUSSIAN
from gdpproof.symbols import Phi, alpha, delta, epsilon, mu


def _equal(a: sympy.Expr, b: sympy.Expr) -> bool:
    d = (a - b).rewrite(erfc)
    return sympy.simplify(sympy.expand(d)) == 0


def main() -> None:
    m = sympy.Symbol("m", positive=True)
    z = sympy.Symbol("z", real=True)
    w = sympy.Wild("w")

    # 1. log|G'| at alpha = Phi(-z)
    slope = sympy.diff(GAUSSIAN, alpha).xreplace({alpha: Phi(-z), mu: m})
    slope = slope.replace(erfcinv(erfc(w)), w)
    L = sympy.expand(sympy.expand_log(sympy.log(-slope), force=True))
    assert sympy.simplify(L - (m * z - m**2 / 2)) == 0

    # 2. expectations over N(0, 1)
    phi = exp(-(z**2) / 2) / sqrt(2 * pi)

    def expect(h: sympy.Expr, lo: sympy.Expr = -oo, hi: sympy.Expr = oo) -> sympy.Expr:
        return sympy.integrate(h * phi, (z, lo, hi))

    shipped = {k: v.xreplace({mu: m}) for k, v in GAUSSIAN_FUNCTIONALS.items()}
    kl = -expect(L)
    assert _equal(kl, shipped["kl"]) and _equal(kl, m**2 / 2)
    assert _equal(expect(L**2), shipped["kappa2"]) and _equal(shipped["kappa2"], m**2 + m**4 / 4)
    k3 = expect(-(L**3), -oo, m / 2) + expect(L**3, m / 2, oo)  # L < 0 exactly for z < m/2
    assert _equal(k3, shipped["kappa3"])
    centred = L + kl  # = m z
    kb3 = expect(-(centred**3), -oo, 0) + expect(centred**3, 0, oo)
    assert _equal(kb3, shipped["bar_kappa3"]) and _equal(kb3, 2 * sqrt(2 / pi) * m**3)

    # 3. f_{eps,0}: slopes -e^eps before the kink 1/(1 + e^eps), -e^-eps after
    e = sympy.Symbol("e", positive=True)
    rr = piecewise_form(EPS_DELTA.xreplace({delta: 0, epsilon: e}))
    kink = 1 / (1 + exp(e))
    left = sympy.diff(rr, alpha).xreplace({alpha: kink / 2})
    right = sympy.diff(rr, alpha).xreplace({alpha: (kink + 1) / 2})
    assert sympy.simplify(left + exp(e)) == 0 and sympy.simplify(right + exp(-e)) == 0
    Lrr = [(e, kink), (-e, 1 - kink)]  # (value of L, length of the piece)
    rr_shipped = {k: v.xreplace({epsilon: e}) for k, v in RR_FUNCTIONALS.items()}
    kl_rr = -sum(v * w_ for v, w_ in Lrr)
    assert sympy.simplify(kl_rr - rr_shipped["kl"]) == 0
    assert sympy.simplify(sum(v**2 * w_ for v, w_ in Lrr) - rr_shipped["kappa2"]) == 0
    assert sympy.simplify(sum(abs(v) ** 3 * w_ for v, w_ in Lrr) - rr_shipped["kappa3"]) == 0
    # |L + kl|: L + kl = 2 e (1 - kink) > 0 on the first piece, -2 e kink < 0 on the second
    kb3_rr = (2 * e * (1 - kink)) ** 3 * kink + (2 * e * kink) ** 3 * (1 - kink)
    assert sympy.simplify(kl_rr + e - 2 * e * (1 - kink)) == 0
    assert sympy.simplify(kb3_rr - rr_shipped["bar_kappa3"]) == 0

    # 4. the numeric route agrees with these closed forms
    for f, table, sym, val in ((gdpproof.gaussian("1.3"), shipped, m, sympy.Rational(13, 10)),
                               (gdpproof.randomized_response("0.7"), rr_shipped, e, sympy.Rational(7, 10))):
        fl = gdpproof.functionals(f, digits=30).as_dict()
        for name, cert in fl.items():
            exact = sympy.N(table[name].xreplace({sym: val}), 60)
            assert abs(sympy.Rational(str(cert)) - exact) <= sympy.Rational(1, 10**28) * max(1, abs(exact))
    # 5. the CLT limit of n-fold f_{eps/sqrt(n), 0}: mu -> mu0 and gamma -> 0 (DRS Thm 3.4)
    n, mu0 = sympy.symbols("n mu0", positive=True)
    at_n = {k: v.xreplace({epsilon: mu0 / sqrt(n)}) for k, v in RR_FUNCTIONALS.items()}
    variance = n * at_n["kappa2"] - n * at_n["kl"] ** 2
    mu_n = 2 * n * at_n["kl"] / sqrt(variance)
    gamma_n = sympy.Rational(56, 100) * n * at_n["bar_kappa3"] / variance ** sympy.Rational(3, 2)
    assert sympy.simplify(sympy.limit(mu_n, n, oo) - mu0) == 0
    assert sympy.limit(gamma_n, n, oo) == 0
    print("d07: CLT functionals of G_mu (L = mu Z - mu^2/2) and of f_{eps,0} in closed form; "
          "n-fold f_{mu0/sqrt(n),0} has CLT mu -> mu0, gamma -> 0: verified")


if __name__ == "__main__":
    main()
