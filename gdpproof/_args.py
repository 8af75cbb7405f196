"""Turning user arguments into exact sympy numbers, and validating them.

Every public numeric argument of gdpproof passes through :func:`exact`.  It accepts ``int``,
``float``, :class:`fractions.Fraction`, :class:`decimal.Decimal`, mpmath numbers, decimal strings
and sympy expressions, and returns an *exact* sympy value: a float is its binary value, and a
string or Decimal its decimal value (``"0.1"`` is ``Rational(1, 10)``).  Validation is
three-valued (STYLE §1.5): a constraint raises only when it is provably false, so symbolic
parameters pass when nothing is known about them.
"""

from __future__ import annotations

import math
import numbers
from decimal import Decimal, InvalidOperation
from fractions import Fraction
from typing import Any

import mpmath
import sympy

from .errors import InvalidParameterError

__all__ = ["exact", "check", "require_number", "show"]


def show(value: Any) -> str:
    """The value as the user wrote it, for error messages."""
    if isinstance(value, str):
        return repr(value)
    if isinstance(value, float):
        return repr(value)
    return str(value)


def _bad(name: str, value: Any, rule: str) -> InvalidParameterError:
    return InvalidParameterError(f"{name}={show(value)} {rule}")


def exact(name: str, value: Any, *, symbolic: bool = True, infinite: bool = False) -> sympy.Expr:
    """Convert ``value`` to an exact sympy number (or expression if ``symbolic``).

    NaN is always rejected; infinities only pass when ``infinite`` is true (then as ``oo``).
    """
    out = _convert(name, value, symbolic)
    if out is sympy.nan or out.has(sympy.nan):
        raise _bad(name, value, "must not be NaN")
    if out.is_number:
        if out.is_real is False or out.has(sympy.zoo):
            raise _bad(name, value, "must be a real number")
        if out.is_infinite or out in (sympy.oo, -sympy.oo):
            if not infinite:
                raise _bad(name, value, "must be finite")
    return out


def _convert(name: str, value: Any, symbolic: bool) -> sympy.Expr:
    if isinstance(value, bool):
        raise _bad(name, value, "must be a real number, not a bool")
    if isinstance(value, sympy.Basic):
        if not isinstance(value, sympy.Expr):
            raise _bad(name, value, "must be a real number or a sympy expression")
        if value.free_symbols and not symbolic:
            raise _bad(name, value, "must be a number, not a symbolic expression")
        if isinstance(value, sympy.Float):
            return sympy.Rational(value)
        return value
    if isinstance(value, int):
        return sympy.Integer(value)
    if isinstance(value, Fraction):
        return sympy.Rational(value.numerator, value.denominator)
    if isinstance(value, Decimal):
        return _from_decimal(name, value, value)
    if isinstance(value, str):
        text = value.strip().replace("_", "")
        if "/" in text:
            try:
                frac = Fraction(text)
            except (ValueError, ZeroDivisionError):
                raise _bad(name, value, "is not a number") from None
            return sympy.Rational(frac.numerator, frac.denominator)
        try:
            dec = Decimal(text)
        except InvalidOperation:
            raise _bad(name, value, "is not a number") from None
        return _from_decimal(name, value, dec)
    if isinstance(value, mpmath.mpf):
        if mpmath.isnan(value):
            return sympy.nan
        if mpmath.isinf(value):
            return sympy.oo if value > 0 else -sympy.oo
        man, exp = value.man_exp
        return sympy.Integer(man) * sympy.Integer(2) ** exp
    if isinstance(value, numbers.Integral):
        return sympy.Integer(int(value))
    if isinstance(value, numbers.Real):
        x = float(value)
        if math.isnan(x):
            return sympy.nan
        if math.isinf(x):
            return sympy.oo if x > 0 else -sympy.oo
        # Rational(float) is the exact binary value of the double.
        return sympy.Rational(x)
    raise _bad(name, value, f"must be a real number (got {type(value).__name__})")


def _from_decimal(name: str, original: Any, dec: Decimal) -> sympy.Expr:
    if dec.is_nan():
        return sympy.nan
    if dec.is_infinite():
        return sympy.oo if dec > 0 else -sympy.oo
    num, den = dec.as_integer_ratio()
    return sympy.Rational(num, den)


def check(name: str, original: Any, value: sympy.Expr, condition: Any, rule: str) -> None:
    """Raise when ``condition`` (a sympy relational in ``value``) is provably false."""
    verdict = sympy.sympify(condition)
    if verdict is sympy.false:
        raise _bad(name, original, rule)


def require_number(name: str, value: sympy.Expr) -> None:
    """Raise when ``value`` still contains free symbols (numeric evaluation needs numbers)."""
    if value.free_symbols:
        raise InvalidParameterError(
            f"{name}={value} is symbolic; numeric evaluation needs a number "
            f"(substitute the symbols first)"
        )
