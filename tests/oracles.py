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
    man, exp = x.man_exp
    return Fraction(int(man)) * Fraction(2) ** int(exp)


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
