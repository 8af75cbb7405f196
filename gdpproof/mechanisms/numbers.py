"""The numbers of mechanism values: parameters parsed exactly without sympy (Fractions; sympy only
for symbolic arguments such as ``sqrt(2)``), counts, exact square roots, and a parameter's text as
the user most likely wrote it.
"""

from __future__ import annotations

from decimal import Context, Decimal
from fractions import Fraction
from math import isqrt
from typing import Any

from ..errors import bad
from ..errors import InvalidParameterError, show
from ..numeric.engine import _rational as exact_numbers
from ..numeric.engine._rational import is_sympy

__all__ = ["exact_parameter", "count", "exact_sqrt", "decimal_text", "show_number", "sympy_rational", "to_fraction"]


def _sympy() -> Any:
    """sympy, imported where a value is symbolic (a trade-off, a loss law, a formula)."""
    import sympy

    return sympy


def _composition() -> Any:
    from ..symbolic import composition

    return composition


def symbolic_losses() -> Any:
    """:mod:`gdpproof.symbolic.losses`, imported when a loss law is asked for."""
    from ..symbolic import losses

    return losses


def symbolic_tradeoffs() -> Any:
    """:mod:`gdpproof.symbolic.tradeoff`, imported when a trade-off curve is asked for."""
    from ..symbolic import tradeoff

    return tradeoff


symbolic_composition = _composition
sympy_module = _sympy


def _from_sympy(v: Any) -> Any:
    """A sympy number as a Fraction when it is rational (the plain type of parameters)."""
    return Fraction(int(v.p), int(v.q)) if v.is_Rational else v


def exact_parameter(name: str, value: Any, kind: str) -> Any:
    """``value`` exactly, checked: ``kind`` "positive" (finite, > 0), "nonnegative" (finite, >= 0) or
    "probability" (in [0, 1]).  A plain number (int, float, Fraction, Decimal, decimal or p/q string)
    becomes a Fraction without sympy; a sympy argument is checked by sympy and kept exact (a
    Fraction when rational, ``sqrt(2)`` as itself)."""
    if is_sympy(value):
        v = exact_numbers.checked(name, value, kind)
        if not v.is_finite:
            raise bad(name, value, "must be a finite number > 0" if kind == "positive" else "must be a finite number >= 0")
        return _from_sympy(v)
    return getattr(exact_numbers, kind)(name, value)


def count(name: str, value: Any) -> int:
    """``value`` as a positive int (ints, integral strings and sympy Integers), else a clear error."""
    if isinstance(value, bool):
        raise bad(name, value, "must be a positive integer")
    if is_sympy(value):
        return _composition().count(name, value)
    if isinstance(value, int):
        k = value
    else:
        try:
            v = exact_numbers.rational(name, value)
        except InvalidParameterError:
            raise bad(name, value, "must be a positive integer") from None
        if v.denominator != 1:
            raise bad(name, value, "must be a positive integer")
        k = int(v)
    if k < 1:
        raise bad(name, value, "must be a positive integer")
    return k


def to_fraction(v: Any) -> Fraction:
    """An exact rational parameter (an int, a Fraction or a sympy Rational) as a Fraction.

    >>> to_fraction(3), to_fraction(Fraction(1, 3))
    (Fraction(3, 1), Fraction(1, 3))
    """
    if isinstance(v, (int, Fraction)) and not isinstance(v, bool):
        return Fraction(v)
    return Fraction(int(v.p), int(v.q))


def sympy_rational(v: Any) -> Any:
    """A Fraction as a sympy Rational (for the symbolic constructors); anything else as it is."""
    return _sympy().Rational(v.numerator, v.denominator) if isinstance(v, Fraction) else v


def exact_sqrt(v: Fraction) -> Fraction | None:
    """The square root of a Fraction >= 0 when it is a Fraction, else None."""
    a, b = isqrt(v.numerator), isqrt(v.denominator)
    return Fraction(a, b) if a * a == v.numerator and b * b == v.denominator else None


#: Longest exact text of a number in a repr or a statement; longer ones are shown approximately.
_MAX_TEXT = 40


def decimal_text(v: Any) -> str | None:
    """The exact decimal of a rational whose denominator is 2^a 5^b (``"0.01"``, ``"1E-400"``)."""
    v = Fraction(v.numerator, v.denominator) if isinstance(v, Fraction) else Fraction(int(v.p), int(v.q))
    q, a, b = v.denominator, 0, 0
    while q % 2 == 0:
        q, a = q // 2, a + 1
    while q % 5 == 0:
        q, b = q // 5, b + 1
    if q != 1:
        return None
    k = max(a, b)
    m = v.numerator * 10**k // v.denominator
    exact = Context(prec=len(str(abs(m))) + 2)  # the default 28 digits would round
    d = exact.normalize(exact.scaleb(Decimal(m), -k))
    return format(d, "f") if -4 <= d.adjusted() <= 15 else format(d, "E")


def show_number(v: Any) -> str:
    """A parameter as the user most likely wrote it: a double as its repr, an exact rational as
    its fraction (``10/3``, ``1/100``: not to be confused with the double 0.01), a long one as
    its exact decimal (``1E-400``), and only beyond that approximately, marked ``≈``.

    >>> show_number(Fraction(1, 100)), show_number(Fraction(0.5)), show_number(Fraction(1, 10**400))
    ('1/100', '0.5', '1E-400')
    """
    if isinstance(v, int) and not isinstance(v, bool):
        v = Fraction(v)
    elif is_sympy(v) and v.is_Rational:
        v = _from_sympy(v)
    if not isinstance(v, Fraction):
        text = str(v)
        return text if len(text) <= _MAX_TEXT else f"≈{_sympy().N(v, 8)}"
    p, q = v.numerator, v.denominator
    if max(p.bit_length(), q.bit_length()) > 10_000:  # no str() of ints beyond 3000 digits
        return show(v)
    if q != 1 and not (q & (q - 1)) and abs(v) < 2**1023:
        f = float(v)
        if Fraction(f) == v and len(repr(f)) <= _MAX_TEXT:
            return repr(f)
    for text in (str(v), decimal_text(v)):
        if text is not None and len(text) <= _MAX_TEXT:
            return text
    return f"≈{_sympy().N(_sympy().Rational(p, q), 8)}"
