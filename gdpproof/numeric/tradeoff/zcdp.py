r"""Certified epsilon of a rho-zCDP guarantee at delta, by the published conversions.

:func:`epsilon_from_zcdp` evaluates the formulas of :mod:`gdpproof.symbolic.zcdp`:

* ``"bun-steinke"``: rho + 2 sqrt(rho log(1/delta)), certified in ball arithmetic;
* ``"cks"`` (what the U.S. Census Bureau's DAS code computes): the infimum over Renyi orders
  a > 1 of CKS 2020 Cor. 13 solved for epsilon.  The optimal order is the root of the slope,
  found by a bracketing solver in mpmath; the digits are accepted when two precisions
  (``digits`` and ``2 digits`` decimal digits, each plus the engine's GUARD_DIGITS) round to the same decimal
  (method ``"mpmath-2prec"``, docs/architecture.md), else :class:`~gdpproof.errors.PrecisionError`.

These are the agencies' *stated* guarantees: they bound the privacy loss of any rho-zCDP
mechanism, and are not tight for any real one (gdpproof's f-DP accounts are).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import sympy

from ..._args import exact, rational
from ...errors import bad
from ..._certified import Certified
from ...errors import PrecisionError
from ...symbolic.symbols import delta as delta_symbol
from ...symbolic.symbols import order, rho as rho_symbol
from ...symbolic.zcdp import CONVERSIONS, ZCDP_EPSILON_BUN_STEINKE, ZCDP_EPSILON_CKS_AT_ORDER, ZCDP_EPSILON_CKS_SLOPE
from ..engine._mp import mpf_from_exact, mpf_to_fraction, private_context
from ..engine.certified import GUARD_DIGITS, check_request, decimal, round_fraction
from ..engine.certify import certify
from ..engine.compiler import mpmath_function

__all__ = ["epsilon_from_zcdp"]

_SYMBOLS = (order, rho_symbol, delta_symbol)


def _exact(name: str, value: Any) -> sympy.Rational:
    return rational(name, exact(name, value, symbolic=False))


def epsilon_from_zcdp(rho: Any, delta: Any, *, conversion: str = "cks", digits: int = 20,
                      rounding: str = "nearest") -> Certified:
    r"""The epsilon that rho-zCDP gives at delta by a published conversion.

    Args:
        rho: The zCDP parameter (exact: ``"293764/114921"``).
        delta: A real in (0, 1/e).
        conversion: ``"cks"``: :math:`\inf_{a>1} a\rho + (\log(1/\delta) + (a-1)\log(1-1/a) - \log a)/(a-1)`
            (Canonne, Kamath & Steinke 2020, Cor. 13; the U.S. Census Bureau's DAS code);
            ``"bun-steinke"``: :math:`\rho + 2\sqrt{\rho\log(1/\delta)}` (Bun & Steinke 2016, Prop. 1.3).
        digits: The significant digits of the answer.
        rounding: "nearest", "up" or "down".

    Returns:
        A :class:`Certified` of method "arb" (bun-steinke) or "mpmath-2prec" (cks).

    Examples:
        The Bureau's 2020 redistricting persons file, rho = (542/339)^2 at delta = 1e-10, by the
        conversion its DAS code runs and by the classical one:

        >>> epsilon_from_zcdp("293764/114921", "1e-10", digits=6)
        Certified('17.1436', digits=6, rounding='nearest')
        >>> epsilon_from_zcdp("293764/114921", "1e-10", conversion="bun-steinke", digits=6)
        Certified('17.9002', digits=6, rounding='nearest')
    """
    check_request(digits, rounding)
    r = _exact("rho", rho)
    d = _exact("delta", delta)
    if not r > 0:
        raise bad("rho", rho, "must be > 0")
    if not 0 < d < sympy.exp(-1):
        raise bad("delta", delta, "must be in (0, 1/e)")
    if conversion not in CONVERSIONS:
        raise bad("conversion", conversion, f"must be one of {', '.join(CONVERSIONS)}")
    if conversion == "bun-steinke":
        return certify(ZCDP_EPSILON_BUN_STEINKE, (rho_symbol, delta_symbol), (r, d), digits=digits,
                       rounding=rounding, what=f"the Bun-Steinke epsilon of rho={rho} at delta={delta}")
    first = _cks(r, d, digits + GUARD_DIGITS)
    second = _cks(r, d, 2 * digits + GUARD_DIGITS)
    a, b = round_fraction(first, digits, rounding), round_fraction(second, digits, rounding)
    if a != b:
        raise PrecisionError(f"the CKS epsilon of rho={rho} at delta={delta}: two precisions disagree at "
                             f"{digits} digits; ask for fewer")
    return Certified(decimal(a[0], a[1], digits), digits=digits, rounding=rounding, method="mpmath-2prec")


def _cks(r: sympy.Rational, d: sympy.Rational, dps: int) -> Fraction:
    """inf over orders of CKS Cor. 13's epsilon, at ``dps`` digits: the slope's root, bracketed."""
    with private_context(dps) as ctx:
        slope = mpmath_function(ZCDP_EPSILON_CKS_SLOPE, _SYMBOLS, ctx)
        at = mpmath_function(ZCDP_EPSILON_CKS_AT_ORDER, _SYMBOLS, ctx)
        rr, dd = mpf_from_exact(ctx, r), mpf_from_exact(ctx, d)
        lo, hi = ctx.mpf(1) + ctx.mpf(2) ** -8, ctx.mpf(2)
        while slope(lo, rr, dd) >= 0:  # the slope is -inf at a = 1+
            lo = 1 + (lo - 1) / 256
            if lo - 1 < ctx.mpf(2) ** -(4 * ctx.prec):
                raise PrecisionError(f"the CKS order for rho={r} is too close to 1 to bracket")
        while slope(hi, rr, dd) <= 0:  # and tends to rho > 0 as a -> inf
            hi *= 2
            if hi > ctx.mpf(2) ** 200:
                raise PrecisionError(f"the CKS order for rho={r} is beyond 2^200")
        a = ctx.findroot(lambda x: slope(x, rr, dd), (lo, hi), solver="anderson")
        return mpf_to_fraction(at(a, rr, dd))
