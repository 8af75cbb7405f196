"""Plain numeric arguments as exact Fractions: the one parser of user numbers.

int, float, :class:`~fractions.Fraction`, :class:`~decimal.Decimal`, decimal and ``p/q`` strings,
mpmath numbers and other :class:`numbers.Real` (numpy scalars) become exact Fractions: a float is
its binary value, a string or Decimal its decimal value (``"0.1"`` is 1/10).  NaN comes back as
``math.nan`` and infinities as ``+-math.inf``, for the caller to accept or refuse.  Stdlib and
mpmath only, so the certified conversions parse without sympy; :mod:`gdpproof._args` builds its
exact sympy numbers on this.
"""

from __future__ import annotations

import math
import numbers
from decimal import Decimal, InvalidOperation
from fractions import Fraction

import sys

from .errors import bad

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any
del TYPE_CHECKING

__all__ = ["MAX_DECIMAL_EXPONENT", "plain_value"]

#: Decimal arguments are made exact rationals; beyond this exponent that is impractically big.
MAX_DECIMAL_EXPONENT = 1_000_000




def plain_value(name: str, value: Any) -> Fraction | float:
    """The exact value of a plain (non-sympy) argument; NaN as math.nan, infinities as +-math.inf.

    >>> plain_value("mu", "0.1"), plain_value("mu", "10/3"), plain_value("mu", 0.5)
    (Fraction(1, 10), Fraction(10, 3), Fraction(1, 2))
    """
    if type(value) is float:  # the common case first (a float's exact binary value)
        return Fraction(value) if math.isfinite(value) else value
    if isinstance(value, bool):
        raise bad(name, value, "must be a real number, not a bool")
    if isinstance(value, int):
        return Fraction(value)
    if isinstance(value, Fraction):
        return value
    if isinstance(value, Decimal):
        return _from_decimal(name, value, value)
    if isinstance(value, str):
        text = value.strip()
        # ASCII only (Decimal would read Arabic-Indic and other Unicode digits), and no "_" (Decimal
        # and Fraction would take "1_0" for 10)
        if not text.isascii() or "_" in text or not text.isprintable():
            raise bad(name, value, "is not a number (ASCII digits, an optional sign, '.', 'e' exponent or p/q)")
        if "/" in text:
            try:
                return Fraction(text)
            except (ValueError, ZeroDivisionError):
                raise bad(name, value, "is not a number") from None
        try:
            dec = Decimal(text)
        except InvalidOperation:
            raise bad(name, value, "is not a number") from None
        return _from_decimal(name, value, dec)
    mpmath = sys.modules.get("mpmath")  # an mpf exists only once mpmath is loaded: never load it here
    if mpmath is not None and isinstance(value, mpmath.mpf):
        if mpmath.isnan(value):
            return math.nan
        if mpmath.isinf(value):
            return math.inf if value > 0 else -math.inf
        man, exp = value.man_exp
        return Fraction(int(man)) * Fraction(2) ** int(exp)
    if isinstance(value, numbers.Integral):
        return Fraction(int(value))
    if isinstance(value, numbers.Real):
        x = float(value)
        if math.isnan(x) or math.isinf(x):
            return x
        return Fraction(x)  # the exact binary value of the double
    raise bad(name, value, f"must be a real number (got {type(value).__name__})")


def _from_decimal(name: str, original: Any, dec: Decimal) -> Fraction | float:
    if dec.is_nan():
        return math.nan
    if dec.is_infinite():
        return math.inf if dec > 0 else -math.inf
    if abs(dec.adjusted()) > MAX_DECIMAL_EXPONENT:
        raise bad(name, original, f"has a decimal exponent beyond +-{MAX_DECIMAL_EXPONENT:,} (an exact "
                   "rational of that size is impractical); pass its logarithm to a log_* function instead")
    num, den = dec.as_integer_ratio()
    return Fraction(num, den)
