"""Turning user arguments into exact sympy numbers, and validating them.

Every public numeric argument of gdpproof passes through :func:`exact`.  It accepts ``int``,
``float``, :class:`fractions.Fraction`, :class:`decimal.Decimal`, mpmath numbers, decimal strings
and sympy expressions, and returns an *exact* sympy value: a float is its binary value, and a
string or Decimal its decimal value (``"0.1"`` is ``Rational(1, 10)``).  Validation is
three-valued (see symbols.py): a constraint raises only when it is provably false, so symbolic
parameters pass when nothing is known about them.
"""

from __future__ import annotations

import functools
import math
import numbers
from decimal import Decimal
from fractions import Fraction
from typing import Any

import sympy

from ._plain import MAX_DECIMAL_EXPONENT as _MAX_DECIMAL_EXPONENT
from ._plain import plain_value
from ._counts import count, seed
from .errors import bad

__all__ = ["exact", "sympy_value", "check", "require_number", "nonnegative", "positive", "probability", "exact_floats",
           "count", "seed"]





_CACHEABLE = (str, int, float, Fraction, Decimal)

#: Decimal arguments are made exact rationals; beyond this exponent that is impractically big.
MAX_DECIMAL_EXPONENT = _MAX_DECIMAL_EXPONENT


def exact(name: str, value: Any, *, symbolic: bool = True, infinite: bool = False) -> sympy.Expr:
    """Convert ``value`` to an exact sympy number (or expression if ``symbolic``).

    NaN is always rejected; infinities only pass when ``infinite`` is true (then as ``oo``).
    Immutable plain values are parsed once and cached (parsing dominates a certified call).
    """
    if type(value) in _CACHEABLE:
        try:
            hash(value)
        except TypeError:  # Decimal("sNaN") cannot be hashed: parsed without the cache (and refused)
            return _exact(name, value, symbolic, infinite)
        return _exact_cached(name, type(value), value, symbolic, infinite)
    return _exact(name, value, symbolic, infinite)


@functools.lru_cache(maxsize=8192)
def _exact_cached(name: str, kind: type, value: Any, symbolic: bool, infinite: bool) -> sympy.Expr:
    return _exact(name, value, symbolic, infinite)


def _exact(name: str, value: Any, symbolic: bool, infinite: bool) -> sympy.Expr:
    out = _convert(name, value, symbolic)
    if out is sympy.nan or out.has(sympy.nan):
        raise bad(name, value, "must not be NaN")
    if out.is_number:
        if out in (sympy.oo, -sympy.oo):  # sympy calls oo extended-real, not real: test it first
            if not infinite:
                raise bad(name, value, "must be finite")
            return out
        if out.is_real is False or out.has(sympy.zoo):
            raise bad(name, value, "must be a real number")
        if out.is_infinite:
            raise bad(name, value, "must be finite")
    return out


def _convert(name: str, value: Any, symbolic: bool) -> sympy.Expr:
    if isinstance(value, bool):
        raise bad(name, value, "must be a real number, not a bool")
    if isinstance(value, sympy.Basic):
        if not isinstance(value, sympy.Expr):
            raise bad(name, value, "must be a real number or a sympy expression")
        if value.free_symbols and not symbolic:
            raise bad(name, value, "must be a number, not a symbolic expression")
        if isinstance(value, sympy.Float):
            return sympy.Rational(value)
        return value
    x = plain_value(name, value)  # the one parser of plain numbers (stdlib and mpmath)
    if isinstance(x, float):
        return sympy.nan if math.isnan(x) else (sympy.oo if x > 0 else -sympy.oo)
    return sympy.Integer(x.numerator) if x.denominator == 1 else sympy.Rational(x.numerator, x.denominator)


def sympy_value(value: Any) -> sympy.Basic:
    """A value the library built itself (an expression, a relation, a bool, a number) as a sympy
    object, without parsing anything: ``sympy.sympify`` would read a string, or each string inside
    a tuple or list, as Python code, so gdpproof never calls it.

    >>> sympy_value(2), sympy_value(True)
    (2, True)
    >>> sympy_value("2")
    Traceback (most recent call last):
    ...
    TypeError: str is not a sympy value (strings and containers are never parsed)
    """
    if isinstance(value, sympy.Basic):
        return value
    if isinstance(value, bool):
        return sympy.true if value else sympy.false
    if isinstance(value, numbers.Number):
        return _convert("value", value, True)
    raise TypeError(f"{type(value).__name__} is not a sympy value (strings and containers are never parsed)")


def rational(name: str, value: sympy.Expr) -> sympy.Expr:
    """Raise unless ``value`` is a rational number (solvers take exact rational inputs)."""
    if not value.is_Rational and value not in (sympy.oo, -sympy.oo):
        raise bad(name, value, "must be a rational number (int, float, Fraction, Decimal or decimal string)")
    return value


def check(name: str, original: Any, value: sympy.Expr, condition: Any, rule: str) -> None:
    """Raise when ``condition`` (a sympy relational in ``value``) is provably false."""
    if sympy_value(condition) is sympy.false:
        raise bad(name, original, rule)


def require_number(name: str, value: sympy.Expr) -> None:
    """Raise when ``value`` still contains free symbols (numeric evaluation needs numbers)."""
    if value.free_symbols:
        raise bad(name, value, "is symbolic; numeric evaluation needs a number (substitute the symbols first)")


def _sign_known(v: sympy.Expr, relation: str) -> bool | None:
    """v >= 0 / v > 0 / v <= 1 decided fast for rationals, three-valued for expressions."""
    if v.is_Rational:
        p, q = int(v.p), int(v.q)
        return {"ge0": p >= 0, "gt0": p > 0, "le1": p <= q}[relation]
    # only the relation asked for: building all three would decide v <= 1 too, which for
    # sqrt(1 + 10^-20000) costs sympy minutes
    cond = v >= 0 if relation == "ge0" else v > 0 if relation == "gt0" else v <= 1
    return False if sympy_value(cond) is sympy.false else None


def nonnegative(name: str, value: Any, *, symbolic: bool = True, infinite: bool = False) -> sympy.Expr:
    """``value`` exactly, checked to be >= 0 (and finite unless ``infinite``)."""
    v = exact(name, value, symbolic=symbolic, infinite=infinite)
    if _sign_known(v, "ge0") is False:
        raise bad(name, value, "must be >= 0")
    return v


def positive(name: str, value: Any, *, symbolic: bool = True) -> sympy.Expr:
    """``value`` exactly, checked to be > 0 and finite."""
    v = exact(name, value, symbolic=symbolic)
    if _sign_known(v, "gt0") is False:
        raise bad(name, value, "must be > 0")
    return v


def probability(name: str, value: Any, *, symbolic: bool = True) -> sympy.Expr:
    """``value`` exactly, checked to be in [0, 1]."""
    v = exact(name, value, symbolic=symbolic)
    if _sign_known(v, "ge0") is False or _sign_known(v, "le1") is False:
        raise bad(name, value, "must be in [0, 1]")
    return v


def exact_floats(expr: sympy.Expr) -> sympy.Expr:
    """``expr`` with every sympy Float replaced by its exact binary value (as arguments are)."""
    floats = expr.atoms(sympy.Float)
    return expr.xreplace({f: sympy.Rational(f) for f in floats}) if floats else expr
