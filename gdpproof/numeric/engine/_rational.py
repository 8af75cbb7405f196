"""Numeric arguments as exact Fractions, without sympy.

The certified conversions take exact rational inputs.  :mod:`gdpproof._args` turns any argument
into an exact sympy number; this module does the same for the plain forms (int, float,
:class:`~fractions.Fraction`, :class:`~decimal.Decimal`, decimal and ``p/q`` strings, mpmath
and numpy numbers) straight into a Fraction, with the same rules, the same results and the same
error messages, so the conversions never load sympy for them.  A sympy argument is handed to
:mod:`gdpproof._args` (sympy is loaded already when one exists).  Errors are built by
``gdpproof.errors.bad``, the one builder of argument errors (no sympy).
"""

from __future__ import annotations

import math
import sys
from fractions import Fraction
from typing import Any


from ..._plain import MAX_DECIMAL_EXPONENT as _MAX_DECIMAL_EXPONENT
from ..._plain import plain_value
from ...errors import bad

__all__ = ["nonnegative", "positive", "probability", "rational", "is_sympy", "checked"]

#: The limit of the one parser (:mod:`gdpproof._plain`).
MAX_DECIMAL_EXPONENT = _MAX_DECIMAL_EXPONENT

#: +-inf stand for sympy's +-oo among the Fractions this module returns.
Value = Fraction | float




def is_sympy(value: Any) -> bool:
    """Whether ``value`` is a sympy object (False without importing sympy when it is not loaded)."""
    sympy = sys.modules.get("sympy")
    return sympy is not None and isinstance(value, sympy.Basic)


def _convert(name: str, value: Any) -> Value:
    """The exact value of a plain argument; NaN as math.nan, infinities as +-math.inf."""
    return plain_value(name, value)


def _from_sympy(v: Any) -> Value:
    import sympy  # loaded already: the argument was a sympy object

    if v is sympy.oo:
        return math.inf
    if v is -sympy.oo:
        return -math.inf
    return Fraction(int(v.p), int(v.q))


def rational(name: str, value: Any, *, infinite: bool = False) -> Value:
    """``value`` as an exact Fraction (+-inf when ``infinite`` allows), as
    ``gdpproof._args.rational(name, exact(name, value, symbolic=False, infinite=infinite))``."""
    if is_sympy(value):
        from ..._args import exact
        from ..._args import rational as rational_sympy

        return _from_sympy(rational_sympy(name, exact(name, value, symbolic=False, infinite=infinite)))
    x = _convert(name, value)
    if isinstance(x, float):
        if math.isnan(x):
            raise bad(name, value, "must not be NaN")
        if not infinite:
            raise bad(name, value, "must be finite")
    return x


def nonnegative(name: str, value: Any, *, infinite: bool = False) -> Value:
    """``value`` exactly, checked to be >= 0, as ``gdpproof._args.nonnegative(..., symbolic=False)``."""
    if is_sympy(value):
        from ..._args import nonnegative as nonnegative_sympy
        from ..._args import rational as rational_sympy

        return _from_sympy(rational_sympy(name, nonnegative_sympy(name, value, symbolic=False, infinite=infinite)))
    x = rational(name, value, infinite=infinite)
    if x < 0:
        raise bad(name, value, "must be >= 0")
    return x


def positive(name: str, value: Any) -> Fraction:
    """``value`` exactly, checked to be > 0 and finite."""
    if is_sympy(value):
        from ..._args import positive as positive_sympy
        from ..._args import rational as rational_sympy

        return _from_sympy(rational_sympy(name, positive_sympy(name, value, symbolic=False)))  # type: ignore[return-value]
    x = rational(name, value)
    if x <= 0:
        raise bad(name, value, "must be > 0")
    return x  # type: ignore[return-value]


def probability(name: str, value: Any) -> Fraction:
    """``value`` exactly, checked to be in [0, 1]."""
    if is_sympy(value):
        from ..._args import probability as probability_sympy
        from ..._args import rational as rational_sympy

        return _from_sympy(rational_sympy(name, probability_sympy(name, value, symbolic=False)))  # type: ignore[return-value]
    x = rational(name, value)
    if x < 0 or x > 1:
        raise bad(name, value, "must be in [0, 1]")
    return x  # type: ignore[return-value]


def checked(name: str, value: Any, kind: str = "exact", *, infinite: bool = False) -> Any:
    """``gdpproof._args.<kind>(name, value, symbolic=False)`` without sympy for plain arguments:
    ``kind`` is "exact", "positive", "nonnegative" or "probability".  A plain number comes back
    as a Fraction (+-inf as floats where ``infinite`` allows them), with the same checks and
    messages; a sympy argument goes through :mod:`gdpproof._args` and comes back as it returns it
    (an irrational such as ``sqrt(2)`` included).

    >>> checked("sigma", "1.1", "positive")
    Fraction(11, 10)
    """
    if is_sympy(value):
        from ..._args import exact, nonnegative as nonnegative_sympy, positive as positive_sympy
        from ..._args import probability as probability_sympy

        if kind in ("exact", "nonnegative"):
            check = exact if kind == "exact" else nonnegative_sympy
            return check(name, value, symbolic=False, infinite=infinite)
        return (positive_sympy if kind == "positive" else probability_sympy)(name, value, symbolic=False)
    if kind == "exact":
        return rational(name, value, infinite=infinite)
    if kind == "nonnegative":
        return nonnegative(name, value, infinite=infinite)
    return positive(name, value) if kind == "positive" else probability(name, value)
