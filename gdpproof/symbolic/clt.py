"""The CLT functionals of a trade-off function in closed form (Dong–Roth–Su Thm 3.4–3.5).

With L(alpha) = log|f'(alpha)| and alpha ~ U(0, 1) (Dong, Roth & Su 2022, Thm 3.4-3.5):
kl(f) = -E L, kappa2(f) = E L^2, kappa3(f) = E|L|^3, bar_kappa3(f) = E|L + kl(f)|^3.

Closed forms: G_mu (L = mu Z - mu^2/2 with Z ~ N(0, 1), so L is normal; derivations/
d07_clt_functionals.py), f_{eps,0} (L = +-eps), and piecewise f whose pieces sympy integrates
(Laplace).  :func:`functional_expressions` raises SymbolicError otherwise; the numeric layer then
integrates by quadrature.
"""

from __future__ import annotations

from typing import Any

import sympy

from .notes import APPROXIMATION_NOTE, REAL_STEPS_NOTE
from sympy import Abs, exp, log, pi, sqrt

from .._args import positive, probability
from ..errors import SymbolicError, bad
from .duality import ordered_pieces
from .symbols import Phi, alpha, epsilon, mu, n, p, phi, sigma
from .tradeoff import GAUSSIAN, TradeOff

__all__ = ["NAMES", "GAUSSIAN_FUNCTIONALS", "RR_FUNCTIONALS", "functional_expressions", "log_slope_pieces",
           "MU_CLT_POISSON", "MU_CLT_UNIFORM", "APPROXIMATION_NOTE", "REAL_STEPS_NOTE", "gaussian_mixture"]

#: The four functionals, in the order used everywhere.
NAMES = ("kl", "kappa2", "kappa3", "bar_kappa3")


def _normal_abs_third(m: sympy.Expr, s: sympy.Expr) -> sympy.Expr:
    """E|X|^3 for X ~ N(m, s^2), s > 0."""
    return (m**3 + 3 * m * s**2) * (1 - 2 * Phi(-m / s)) + 2 * s * (m**2 + 2 * s**2) * phi(m / s)


#: G_mu: L ~ N(-mu^2/2, mu^2).
GAUSSIAN_FUNCTIONALS = {
    "kl": mu**2 / 2,
    "kappa2": mu**2 + mu**4 / 4,
    "kappa3": _normal_abs_third(-(mu**2) / 2, mu),
    "bar_kappa3": 2 * sqrt(2 / pi) * mu**3,
}

_q = 1 / (1 + exp(epsilon))  # the mass of L = +eps
#: f_{eps,0}: L = eps with probability q = 1/(1 + e^eps), -eps otherwise.
RR_FUNCTIONALS = {
    "kl": epsilon * (exp(epsilon) - 1) / (exp(epsilon) + 1),
    "kappa2": epsilon**2,
    "kappa3": epsilon**3,
    "bar_kappa3": 8 * epsilon**3 * _q * (1 - _q) * ((1 - _q) ** 2 + _q**2),
}


def log_slope_pieces(f: Any) -> list[tuple[sympy.Expr, sympy.Expr, sympy.Expr]]:
    """L = log|f'| piece by piece, as (expression in alpha, start, end), left to right.

    Raises InvalidParameterError when f' = 0 on a piece of positive length (then kl is
    infinite: f reaches 0 before alpha = 1, as f_{eps,delta} with delta > 0 does).
    """
    out = []
    for e, lo, hi in ordered_pieces(f.expr):
        slope = sympy.diff(e, alpha)
        if slope == 0:
            raise bad("f", f, f"is flat on [{lo}, {hi}], so log|f'| = -oo there and kl(f) is infinite; "
                      "the CLT functionals need f' < 0 almost everywhere (f(0) = 1 for a symmetric f)")
        out.append((sympy.expand_log(log(-slope), force=True), lo, hi))
    return out


def _integrate(expr: sympy.Expr, lo: sympy.Expr, hi: sympy.Expr) -> sympy.Expr:
    if not expr.has(alpha):
        return expr * (hi - lo)
    out = sympy.integrate(expr, (alpha, lo, hi))
    if out.has(sympy.Integral):
        raise SymbolicError(f"sympy could not integrate {expr} over [{lo}, {hi}]")
    return out


def _abs_cube(L: sympy.Expr, lo: sympy.Expr, hi: sympy.Expr, shift: sympy.Expr) -> sympy.Expr:
    """Integral of |L + shift|^3 over [lo, hi], split where L + shift changes sign."""
    g = L + shift
    if not g.has(alpha):
        return Abs(g) ** 3 * (hi - lo)
    roots = [r for r in sympy.solve(g, alpha) if r.is_real and bool(sympy.Gt(r, lo)) and bool(sympy.Lt(r, hi))]
    cuts = [lo, *sorted(roots, key=lambda r: sympy.N(r, 30)), hi]
    total = sympy.Integer(0)
    for a, b in zip(cuts, cuts[1:]):
        mid = (a + b) / 2
        value = sympy.N(g.xreplace({alpha: mid}), 30)
        if not value.is_real:  # an antiderivative on the wrong branch of log (a logistic family's kl)
            raise SymbolicError(f"the closed form of a CLT functional left the real line ({value}); "
                                "it is found by quadrature instead")
        sign = 1 if value >= 0 else -1
        total += sign * _integrate(sympy.expand(g**3), a, b)
    return total


def functional_expressions(f: Any) -> dict[str, sympy.Expr]:
    """kl, kappa2, kappa3, bar_kappa3 of f as sympy expressions (closed form).

    The Gaussian and randomized-response families keep their parameters symbolic; other
    piecewise functions need numeric parameters and are integrated piece by piece.

    Examples:
        >>> import gdpproof
        >>> from gdpproof.symbols import mu
        >>> functional_expressions(gdpproof.gaussian(mu))["kappa2"]
        mu**4/4 + mu**2
    """
    name = f.name
    par = f.parameters
    if name == "gaussian":
        return {k: v.xreplace({mu: par["mu"]}) for k, v in GAUSSIAN_FUNCTIONALS.items()}
    if name in ("randomized_response", "eps_delta") and par.get("delta", 0) == 0:
        return {k: v.xreplace({epsilon: par["epsilon"]}) for k, v in RR_FUNCTIONALS.items()}
    if name == "identity":
        return {k: sympy.Integer(0) for k in NAMES}
    if any(v.free_symbols for v in par.values()):
        raise SymbolicError(f"closed-form functionals of {f!r} need numeric parameters")
    if any(v.is_Rational and v != 0 and not sympy.Rational(1, 10**6) <= abs(v) <= 10**6 for v in par.values()):
        # sympy's integration and simplification with exp(-10^20) did not end in minutes
        raise SymbolicError(f"{f!r} has a parameter beyond [1e-6, 1e6]; its functionals are found by quadrature")
    allowed = (sympy.exp, sympy.log, sympy.Max, sympy.Min, sympy.Abs, sympy.Piecewise)
    if any(not isinstance(a, allowed) for a in f.expr.atoms(sympy.Function)):
        raise SymbolicError(f"{f!r} involves special functions; its functionals are found by quadrature")
    pieces = log_slope_pieces(f)
    kl = sympy.simplify(-sum(_integrate(L, lo, hi) for L, lo, hi in pieces))
    k2 = sympy.simplify(sum(_integrate(sympy.expand(L**2), lo, hi) for L, lo, hi in pieces))
    for name, v in (("kl", kl), ("kappa2", k2)):
        if not sympy.N(v, 30).is_real:
            raise SymbolicError(f"the closed form of {name} left the real line ({sympy.N(v, 15)}); "
                                "it is found by quadrature instead")
    k3 = sympy.simplify(sum(_abs_cube(L, lo, hi, sympy.Integer(0)) for L, lo, hi in pieces))
    kb3 = sympy.simplify(sum(_abs_cube(L, lo, hi, kl) for L, lo, hi in pieces))
    return {"kl": kl, "kappa2": k2, "kappa3": k3, "bar_kappa3": kb3}




# ---------------------------------------------------------------------------------------------
# DP-SGD: the CLT mu (an approximation)
# ---------------------------------------------------------------------------------------------

#: mu_CLT of n Poisson-subsampled Gaussian steps (noise multiplier sigma, rate p): the CLT limit of
#: the n-fold p G_{1/sigma} + (1 - p) Id (Bu, Dong, Long & Su 2020; derivations/d10).
MU_CLT_POISSON = p * sqrt(n * (exp(1 / sigma**2) - 1))
#: mu_CLT with fixed-size (uniform) batches: the CLT limit of the n-fold C_p(G_{1/sigma}) (DRS §5).
MU_CLT_UNIFORM = sqrt(2) * p * sqrt(n * (exp(1 / sigma**2) * Phi(3 / (2 * sigma)) + 3 * Phi(-1 / (2 * sigma)) - 2))


#: Said of a CLT mu evaluated at a real T (the papers' T = E N / B).


def gaussian_mixture(mu_: Any, p_: Any) -> TradeOff:
    """f_p = p G_mu + (1 - p) Id = T(N(0,1), (1 - p) N(0,1) + p N(mu,1)), as a TradeOff.

    One direction of a Poisson-subsampled Gaussian step; its CLT gives the Poisson formula
    p sqrt(T (e^{mu^2} - 1)).  Both directions together give C_p(G_mu) (:func:`gdpproof.subsample`).

    Examples:
        >>> f = gaussian_mixture(1, "0.5")
        >>> f.name, f.parameters
        ('gaussian_mixture', {'mu': 1, 'p': 1/2})
    """
    m = positive("mu", mu_, symbolic=False)
    q = probability("p", p_, symbolic=False)
    return TradeOff(p * GAUSSIAN + (1 - p) * (1 - alpha), ((mu, m), (p, q)), "gaussian_mixture", None)
