"""Hand-written mpmath formulas, deliberately independent of gdpproof's expressions.

They use mpmath's own ncdf/erfinv in a private context at high precision; the package never
imports this module.  Only for moderate arguments (no tail-safe rewriting here).
"""

from __future__ import annotations

from fractions import Fraction

import mpmath

CTX = mpmath.MPContext()
CTX.dps = 250


def _q(v) -> mpmath.mpf:
    f = Fraction(v)
    return CTX.mpf(f.numerator) / f.denominator


def gaussian_tradeoff(mu, alpha) -> Fraction:
    a, m = _q(alpha), _q(mu)
    z = CTX.sqrt(2) * CTX.erfinv(1 - 2 * a)  # Phi^{-1}(1 - alpha)
    return _frac(CTX.ncdf(z - m))


def gaussian_delta(mu, eps) -> Fraction:
    m, e = _q(mu), _q(eps)
    return _frac(CTX.ncdf(-e / m + m / 2) - CTX.exp(e) * CTX.ncdf(-e / m - m / 2))


def pure_dp_mu(eps) -> Fraction:
    e = _q(eps)
    return _frac(-2 * CTX.sqrt(2) * CTX.erfinv(2 / (1 + CTX.exp(e)) - 1))


def _frac(x: mpmath.mpf) -> Fraction:
    man, exp = x.man_exp  # the magnitude: the sign is apart
    return (-1 if x < 0 else 1) * Fraction(int(man)) * Fraction(2) ** int(exp)


def assert_certified(value, exact: Fraction, digits: int) -> None:
    """``value`` (a Certified) is ``exact`` rounded to ``digits`` digits in its direction."""
    v = value.to_fraction()
    ulp = Fraction(10) ** (value.adjusted() - digits + 1)
    # the oracle carries ~250 digits, far more than any test asks for
    if value.rounding == "up":
        assert exact <= v < exact + ulp, (value, float(exact))
    elif value.rounding == "down":
        assert exact - ulp < v <= exact, (value, float(exact))
    else:
        assert abs(v - exact) <= ulp / 2, (value, float(exact))


# ---------------------------------------------------------------------------------------------
# Neyman–Pearson curves of finite distributions, in exact Fractions
# ---------------------------------------------------------------------------------------------


def np_vertices(pairs) -> list[tuple[Fraction, Fraction]]:
    """Vertices (alpha, beta) of T(P, Q) for outcomes given as (P(o), Q(o)) pairs.

    The most powerful tests reject outcomes in decreasing order of Q(o)/P(o) (P(o) = 0 first);
    each outcome moves the curve by (+P(o), -Q(o)).  Equal ratios merge into one segment.
    """
    def key(pq):
        p, q = pq
        return (0, Fraction(0)) if p == 0 else (1, -Fraction(q) / p)

    alpha, beta = Fraction(0), Fraction(1)
    out = [(alpha, beta)]
    for p, q in sorted(pairs, key=key):
        alpha += p
        beta -= q
        out.append((alpha, beta))
    return out


def curve_at(vertices, a: Fraction) -> Fraction:
    """The piecewise-linear curve through ``vertices`` at ``a`` (exact): the least beta over the
    segments containing ``a`` (vertical segments, where outcomes have P(o) = 0, count at their foot)."""
    values = []
    for (a0, b0), (a1, b1) in zip(vertices, vertices[1:]):
        if a0 <= a <= a1:
            values.append(min(b0, b1) if a1 == a0 else b0 + (b1 - b0) * (a - a0) / (a1 - a0))
    if not values:
        raise ValueError(a)
    return min(values)


def product(*factors):
    """Outcome pairs of the product of finite pairs (P, Q)."""
    out = [(Fraction(1), Fraction(1))]
    for pairs in factors:
        out = [(p0 * p1, q0 * q1) for p0, q0 in out for p1, q1 in pairs]
    return out


def rr_pairs(e_eps: Fraction):
    """Randomized response with e^eps = ``e_eps`` (rational): outcomes 1 and 0."""
    q1 = e_eps / (1 + e_eps)
    return [(q1, 1 - q1), (1 - q1, q1)]


def binomial_pairs(n: int, e_eps: Fraction):
    """n-fold randomized response grouped by the number of ones (same curve as the product)."""
    from math import comb

    q1 = e_eps / (1 + e_eps)
    q0 = 1 - q1
    return [(comb(n, k) * q1**k * q0 ** (n - k), comb(n, k) * q0**k * q1 ** (n - k)) for k in range(n + 1)]


def rr_composition_mp(eps, n: int, alpha, dps: int = 60) -> Fraction:
    """n-fold randomized response at alpha by summing binomial terms in mpmath (any eps)."""
    return rr_composition_mp_many(eps, n, (alpha,), dps)[0]


def rr_composition_mp_many(eps, n: int, alphas, dps: int = 60) -> list[Fraction]:
    """:func:`rr_composition_mp` at each of ``alphas``, in one walk over the binomial terms
    (the walk up to a point is the same for every alpha: it is done once, not once per alpha)."""
    ctx = mpmath.MPContext()
    ctx.dps = dps
    e = ctx.mpf(Fraction(eps).numerator) / Fraction(eps).denominator
    todo = sorted((ctx.mpf(Fraction(a).numerator) / Fraction(a).denominator, i) for i, a in enumerate(alphas))
    out = [Fraction(0)] * len(todo)
    q0 = 1 / (1 + ctx.exp(e))
    q1 = 1 - q0
    term = q0**n  # P(K = 0) under Binomial(n, q1)
    qterm = q1**n  # Q(K = 0) under Binomial(n, q0)
    up, down = ctx.exp(e), ctx.exp(-e)  # the same two factors every step: computed once
    acc_a, acc_b = ctx.zero, ctx.one
    for k in range(n + 1):
        while todo and acc_a + term >= todo[0][0]:
            # inside segment k: beta falls with slope Q(k)/P(k) = e^{eps (n - 2k)}
            a, i = todo.pop(0)
            out[i] = _frac(acc_b - (a - acc_a) * ctx.exp(e * (n - 2 * k)))
        if not todo:
            break
        acc_a += term
        acc_b -= qterm
        ratio = ctx.mpf(n - k) / (k + 1)
        term = term * ratio * up
        qterm = qterm * ratio * down
    return out
