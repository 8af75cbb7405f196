"""Arguments into exact numbers, validated: the one parser of numbers (API and command line).

Plain numbers (int, float, :class:`fractions.Fraction`, :class:`decimal.Decimal`, decimal and
``p/q`` strings, mpmath and numpy numbers) become exact Fractions (:func:`plain_value`): a float
is its binary value, a string or Decimal its decimal value (``"0.1"`` is 1/10).  On that,
:func:`exact`, :func:`nonnegative`, :func:`positive` and :func:`probability` give exact sympy
values (sympy expressions too: a constraint raises only when it is provably false);
:func:`rational_fraction`, :func:`nonnegative_fraction`, :func:`positive_fraction` and
:func:`probability_fraction` give the same values as Fractions, with the same rules and
messages, without loading sympy; :func:`count` and :func:`seed` take integer counts and seeds.

Standard library only at import (sympy and mpmath are used when a value is one of theirs), so
the numpy-only simulation and the command line's start-up parse with it too.  Errors are built
by :func:`gdpproof.errors.bad`.
"""

from __future__ import annotations

import functools
import math
import numbers
import sys
from decimal import Decimal, InvalidOperation
from fractions import Fraction

from .errors import MISSING, InvalidParameterError, bad

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    import sympy
del TYPE_CHECKING

__all__ = ["checked", "sympy_rational", "MAX_DECIMAL_EXPONENT", "plain_value", "MAX_COUNT", "count", "seed", "exact", "sympy_value", "rational",
           "check", "require_number", "nonnegative", "positive", "probability", "exact_floats", "positive_integer", "is_sympy",
           "rational_fraction", "nonnegative_fraction", "positive_fraction", "probability_fraction",
           "positive_double", "ascii_number", "int_option", "float_option"]

#: +-inf stand for sympy's +-oo among the Fractions the *_fraction functions return.
Value = Fraction | float


# -- plain numbers --------------------------------------------------------------------------

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
    mpmath = sys.modules.get("mpmath")  # an mpmath number exists only once mpmath is loaded
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


# -- counts and seeds --------------------------------------------------------------------------

#: The largest count (samples, thresholds, sizes) gdpproof accepts: 2^53, beyond which float64
#: sums and numpy's index types stop being exact.
MAX_COUNT = 2**53


def count(name: str, value: Any, *, low: int = 1, high: int = MAX_COUNT, what: str = "") -> int:
    """An integer count in [low, high] (numpy integers too; bools, floats and strings refused).

    >>> count("samples", 10**6)
    1000000
    >>> count("samples", 2**1024)
    Traceback (most recent call last):
    ...
    gdpproof.errors.InvalidParameterError: samples=~1.79769e+308 must be an integer in [1, 2^53]
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or not low <= value <= high:
        bound = "2^53" if high == MAX_COUNT else str(high)
        raise bad(name, value, f"must be an integer in [{low}, {bound}]" + (f" ({what})" if what else ""))
    return int(value)


def seed(name: str, value: Any) -> int:
    """A seed: an integer in [0, 2^128) (every random thing in gdpproof is reproducible).

    >>> seed("seed", "abc")
    Traceback (most recent call last):
    ...
    gdpproof.errors.InvalidParameterError: seed='abc' must be an integer in [0, 2^128) (runs are reproducible)
    """
    if value is None or isinstance(value, bool) or not isinstance(value, numbers.Integral) or not 0 <= value < 2**128:
        raise bad(name, value, "must be an integer in [0, 2^128) (runs are reproducible)")
    return int(value)


# -- doubles (the Monte Carlo samplers) and command-line text -------------------------------------

def positive_double(name: str, value: Any, *, high: float = math.inf) -> float:
    """A parameter as the double a Monte Carlo sampler takes: finite, > 0 and at most ``high``
    (bools refused; an exact value is rounded to the nearest double).

    >>> positive_double("sigma", "0.5"), positive_double("sample_rate", 1, high=1)
    (0.5, 1.0)
    >>> positive_double("eps", 800, high=700)
    Traceback (most recent call last):
    ...
    gdpproof.errors.InvalidParameterError: eps=800 must be a finite number > 0 at most 700
    """
    rule = "must be a finite number > 0" + (f" at most {high:g}" if math.isfinite(high) else "")
    if isinstance(value, bool):
        raise bad(name, value, rule)
    try:
        v = float(value)
    except (TypeError, ValueError, OverflowError):
        raise bad(name, value, rule) from None
    if not (0 < v <= high and math.isfinite(v)):
        raise bad(name, value, rule)
    return v


def ascii_number(text: Any) -> bool:
    """Whether ``text`` is written as the documentation's numbers are: ASCII, no ``_`` and no space
    (``int`` and ``float`` also read '١', '２', '1_0' and ' 5').

    >>> ascii_number("1e-5"), ascii_number("1_0"), ascii_number("٣")
    (True, False, False)
    """
    return isinstance(text, str) and text.isascii() and "_" not in text and not any(c.isspace() for c in text)


def int_option(name: str, text: Any, low: int = 1) -> int:
    """The integer command-line option ``name``, at least ``low``, in ASCII digits.

    >>> int_option("--samples", "1000"), int_option("--samples", "1e6")
    (1000, 1000000)
    >>> int_option("--seed", "x", low=0)
    Traceback (most recent call last):
    ...
    gdpproof.errors.InvalidParameterError: --seed='x' must be an integer >= 0 (ASCII digits)
    """
    v = None
    if ascii_number(text):
        try:
            v = int(text)
        except ValueError:  # an integer written as a decimal (1e6, 1.5e3), as --steps takes it
            try:
                f = rational_fraction(name, text)
            except InvalidParameterError:
                f = None
            v = int(f) if isinstance(f, Fraction) and f.denominator == 1 else None
    if v is None or v < low:
        raise bad(name, text, f"must be an integer >= {low} (ASCII digits)")
    return v


def float_option(name: str, text: Any, *, required_for: str) -> float:
    """The number command-line option ``name``, which ``required_for`` needs, in ASCII.

    >>> float_option("--sigma", "2.5", required_for="gaussian")
    2.5
    >>> float_option("--sigma", None, required_for="gaussian")
    Traceback (most recent call last):
    ...
    gdpproof.errors.InvalidParameterError: --sigma is required for gaussian
    """
    if text is None:
        raise InvalidParameterError(argument=name, value=MISSING, rule=f"is required for {required_for}")
    try:
        if ascii_number(text):
            return float(text)
    except ValueError:
        pass
    raise bad(name, text, "must be a number (ASCII digits, an optional sign, '.' and 'e' exponent)")


# -- exact sympy values ----------------------------------------------------------------------

_CACHEABLE = (str, int, float, Fraction, Decimal)


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
    import sympy

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
    import sympy

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
    import sympy

    if isinstance(value, sympy.Basic):
        return value
    if isinstance(value, bool):
        return sympy.true if value else sympy.false
    if isinstance(value, numbers.Number):
        return _convert("value", value, True)
    raise TypeError(f"{type(value).__name__} is not a sympy value (strings and containers are never parsed)")


def rational(name: str, value: sympy.Expr) -> sympy.Expr:
    """Raise unless ``value`` is a rational number (solvers take exact rational inputs)."""
    import sympy

    if not value.is_Rational and value not in (sympy.oo, -sympy.oo):
        raise bad(name, value, "must be a rational number (int, float, Fraction, Decimal or decimal string)")
    return value


def check(name: str, original: Any, value: sympy.Expr, condition: Any, rule: str) -> None:
    """Raise when ``condition`` (a sympy relational in ``value``) is provably false."""
    import sympy

    if sympy_value(condition) is sympy.false:
        raise bad(name, original, rule)


def require_number(name: str, value: sympy.Expr) -> None:
    """Raise when ``value`` still contains free symbols (numeric evaluation needs numbers)."""
    if value.free_symbols:
        raise bad(name, value, "is symbolic; numeric evaluation needs a number (substitute the symbols first)")


def _sign_known(v: sympy.Expr, relation: str) -> bool | None:
    """v >= 0 / v > 0 / v <= 1 decided fast for rationals, three-valued for expressions."""
    import sympy

    if v.is_Rational:
        return _RELATIONS[relation](Fraction(int(v.p), int(v.q)))
    # only the relation asked for: building all of them would decide v <= 1 too, which for
    # sqrt(1 + 10^-20000) costs sympy minutes
    return False if sympy_value(_RELATIONS[relation](v)) is sympy.false else None


#: The relations a parameter is checked against, by name (on a Fraction, or a sympy expression).
_RELATIONS: dict[str, Callable[[Any], Any]] = {"ge0": lambda x: x >= 0, "gt0": lambda x: x > 0,
                                               "le1": lambda x: x <= 1, "lt1": lambda x: x < 1}


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


#: kind -> (the relations a probability-like value must meet, the rule they make)
_UNIT = {"probability": (("ge0", "le1"), "must be in [0, 1]"),
         "rate": (("gt0", "le1"), "must be in (0, 1]"),
         "open probability": (("gt0", "lt1"), "must be in (0, 1)")}


def probability(name: str, value: Any, *, symbolic: bool = True, kind: str = "probability") -> sympy.Expr:
    """``value`` exactly, checked to be in [0, 1] (``kind`` "probability"), (0, 1] ("rate", a
    sampling rate) or (0, 1) ("open probability", a delta): one rule, whichever side it misses."""
    v = exact(name, value, symbolic=symbolic)
    relations, rule = _UNIT[kind]
    if any(_sign_known(v, r) is False for r in relations):
        raise bad(name, value, rule)
    return v


def exact_floats(expr: sympy.Expr) -> sympy.Expr:
    """``expr`` with every sympy Float replaced by its exact binary value (as arguments are)."""
    import sympy

    floats = expr.atoms(sympy.Float)
    return expr.xreplace({f: sympy.Rational(f) for f in floats}) if floats else expr


def positive_integer(name: str, value: Any) -> int:
    """``value`` as a positive int (ints, integral strings and sympy Integers), else a clear error.

    Unlike :func:`count` (a count of samples or sizes: integers only, within bounds), a number of
    compositions or of values may be written as a string or a sympy Integer.
    """
    if isinstance(value, bool):
        raise bad(name, value, "must be a positive integer")
    sympy = sys.modules.get("sympy")
    if isinstance(value, int) or (sympy is not None and isinstance(value, sympy.Integer)):
        k = int(value)
    else:
        try:
            v = exact(name, value, symbolic=False) if is_sympy(value) else rational_fraction(name, value)
        except InvalidParameterError:
            raise bad(name, value, "must be a positive integer") from None
        if not (v.is_Integer if is_sympy(v) else v.denominator == 1):
            raise bad(name, value, "must be a positive integer")
        k = int(v)
    if k < 1:
        raise bad(name, value, "must be a positive integer")
    return k


# -- exact Fractions, without sympy --------------------------------------------------------------

def is_sympy(value: Any) -> bool:
    """Whether ``value`` is a sympy object (False without importing sympy when it is not loaded)."""
    sympy = sys.modules.get("sympy")
    return sympy is not None and isinstance(value, sympy.Basic)


def sympy_rational(v: Any) -> Any:
    """A Fraction as a sympy Rational (loading sympy: for the symbolic constructors and closed
    forms); anything else as it is.

    >>> sympy_rational(Fraction(1, 3)), sympy_rational(2)
    (1/3, 2)
    """
    if not isinstance(v, Fraction):
        return v
    import sympy

    return sympy.Rational(v.numerator, v.denominator)


def _from_sympy(v: Any) -> Value:
    import sympy  # loaded already: the argument was a sympy object

    if v is sympy.oo:
        return math.inf
    if v is -sympy.oo:
        return -math.inf
    return Fraction(int(v.p), int(v.q))


def rational_fraction(name: str, value: Any, *, infinite: bool = False) -> Value:
    """``value`` as an exact Fraction (+-inf when ``infinite`` allows), as
    ``rational(name, exact(name, value, symbolic=False, infinite=infinite))``."""
    if is_sympy(value):
        return _from_sympy(rational(name, exact(name, value, symbolic=False, infinite=infinite)))
    x = plain_value(name, value)
    if isinstance(x, float):
        if math.isnan(x):
            raise bad(name, value, "must not be NaN")
        if not infinite:
            raise bad(name, value, "must be finite")
    return x


def nonnegative_fraction(name: str, value: Any, *, infinite: bool = False) -> Value:
    """``value`` exactly, checked to be >= 0, as ``nonnegative(..., symbolic=False)``."""
    if is_sympy(value):
        return _from_sympy(rational(name, nonnegative(name, value, symbolic=False, infinite=infinite)))
    x = rational_fraction(name, value, infinite=infinite)
    if x < 0:
        raise bad(name, value, "must be >= 0")
    return x


def positive_fraction(name: str, value: Any) -> Fraction:
    """``value`` exactly, checked to be > 0 and finite."""
    if is_sympy(value):
        return _from_sympy(rational(name, positive(name, value, symbolic=False)))  # type: ignore[return-value]
    x = rational_fraction(name, value)
    if x <= 0:
        raise bad(name, value, "must be > 0")
    return x  # type: ignore[return-value]


def probability_fraction(name: str, value: Any, kind: str = "probability") -> Fraction:
    """``value`` exactly, checked to be in [0, 1] (or (0, 1], (0, 1): ``kind`` as in :func:`probability`)."""
    if is_sympy(value):
        return _from_sympy(rational(name, probability(name, value, symbolic=False, kind=kind)))  # type: ignore[return-value]
    x = rational_fraction(name, value)
    relations, rule = _UNIT[kind]
    if not all(_RELATIONS[r](x) for r in relations):
        raise bad(name, value, rule)
    return x  # type: ignore[return-value]


def checked(name: str, value: Any, kind: str = "exact", *, infinite: bool = False) -> Any:
    """``value`` checked as ``kind`` ("exact", "positive", "nonnegative", "probability" ([0, 1]),
    "rate" ((0, 1]) or "open probability" ((0, 1))), without
    sympy for plain arguments: a plain number comes back as a Fraction (+-inf as floats where
    ``infinite`` allows them); a sympy argument is checked by :func:`exact` and its siblings and
    comes back as they return it (an irrational such as ``sqrt(2)`` included).

    >>> checked("sigma", "1.1", "positive")
    Fraction(11, 10)
    """
    if is_sympy(value):
        if kind in ("exact", "nonnegative"):
            return (exact if kind == "exact" else nonnegative)(name, value, symbolic=False, infinite=infinite)
        if kind == "positive":
            return positive(name, value, symbolic=False)
        return probability(name, value, symbolic=False, kind=kind)
    if kind == "exact":
        return rational_fraction(name, value, infinite=infinite)
    if kind == "nonnegative":
        return nonnegative_fraction(name, value, infinite=infinite)
    return positive_fraction(name, value) if kind == "positive" else probability_fraction(name, value, kind)
