"""The numbers of mechanism values: parameters parsed exactly without sympy (Fractions; sympy only
for symbolic arguments such as ``sqrt(2)``), counts, exact square roots, and a parameter's text as
the user most likely wrote it (in gdpproof.text).
"""

from __future__ import annotations

from fractions import Fraction
from math import isqrt
from typing import Any

from ..errors import bad
from .._args import checked, is_sympy, positive_integer

__all__ = ["exact_parameter", "count", "exact_sqrt", "to_fraction", "within_range",
           "MAX_PARAMETER_EXPONENT"]


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
    """``value`` exactly, checked: ``kind`` "positive" (finite, > 0), "nonnegative" (finite, >= 0),
    "probability" (in [0, 1]) or "rate" (in (0, 1]).  A plain number (int, float, Fraction, Decimal, decimal or p/q string)
    becomes a Fraction without sympy; a sympy argument is checked by sympy and kept exact (a
    Fraction when rational, ``sqrt(2)`` as itself)."""
    if is_sympy(value):
        v = checked(name, value, kind)
        if not v.is_finite:
            raise bad(name, value, "must be a finite number > 0" if kind == "positive" else "must be a finite number >= 0")
        return _from_sympy(v)
    return checked(name, value, kind)


count = positive_integer  # a number of runs or of values: an int, an integral string or a sympy Integer

#: The families' parameter range, 10^-E .. 10^E (``gdpproof.symbolic.tradeoff.MAX_PARAMETER_EXPONENT``,
#: which loads sympy; tests/test_mechanisms.py checks that they agree).
MAX_PARAMETER_EXPONENT = 100


def within_range(name: str, value: Any, v: Any, *, probability: bool = False, zero: bool = True) -> Any:
    """A family parameter's exact value, refused when it is a number other than 0 whose size is
    outside [10^-100, 10^100] (:func:`gdpproof.symbolic.tradeoff.within_range`, without sympy for
    a Fraction)."""
    if not isinstance(v, Fraction):
        return symbolic_tradeoffs().within_range(name, value, v, probability=probability, zero=zero)
    if v != 0:
        p, q, e = abs(v.numerator), v.denominator, MAX_PARAMETER_EXPONENT
        if p * 10**e < q or p > q * 10**e:
            top = "1" if probability else f"1e{e}"
            raise bad(name, value, f"must be {'0 or ' if zero else ''}within [1e-{e}, {top}]")
    return v


def to_fraction(v: Any) -> Fraction:
    """An exact rational parameter as a Fraction.

    Args:
        v: An int, a Fraction or a sympy Rational (a mechanism's parameter).

    Returns:
        The same number as a :class:`fractions.Fraction`.

    Examples:
        >>> to_fraction(3), to_fraction(Fraction(1, 3))
        (Fraction(3, 1), Fraction(1, 3))
    """
    if isinstance(v, (int, Fraction)) and not isinstance(v, bool):
        return Fraction(v)
    return Fraction(int(v.p), int(v.q))


def exact_sqrt(v: Fraction) -> Fraction | None:
    """The square root of a Fraction >= 0 when it is a Fraction, else None."""
    a, b = isqrt(v.numerator), isqrt(v.denominator)
    return Fraction(a, b) if a * a == v.numerator and b * b == v.denominator else None


