"""The :class:`Certified` result: a Decimal whose printed digits are proven.

It lives below both layers (it imports only the standard library and :mod:`gdpproof.errors`)
so that :mod:`gdpproof.symbolic` can name the type its numeric methods return without
importing :mod:`gdpproof.numeric`; :mod:`gdpproof.numeric.engine.certified` and
:mod:`gdpproof.numeric.engine.certify` re-export it, and the numeric layer produces it.
"""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction
from typing import Any

from .errors import InvalidParameterError

__all__ = ["Certified"]


class Certified(Decimal):
    """A decimal number whose every printed digit is proven.

    A :class:`decimal.Decimal` (so it prints, compares and converts exactly) that also records
    how it was obtained.

    Args:
        value: The decimal (a string, Decimal or int), already rounded to ``digits`` digits.
        digits: The number of significant digits certified.
        rounding: ``"up"``: the value is the exact result rounded towards +inf (an upper bound);
            ``"down"``: rounded towards -inf (a lower bound); ``"nearest"``: error at most half a
            unit in the last place.
        method: ``"arb"`` (ball arithmetic), ``"exact"`` (exact rational arithmetic) or
            ``"mpmath-2prec"`` (agreement of two mpmath precisions).

    Arithmetic on a ``Certified`` gives a plain ``Decimal``: a derived number is no longer
    certified.

    Examples:
        >>> import gdpproof
        >>> v = gdpproof.gaussian(1).evaluate("0.05", digits=12)
        >>> v
        Certified('0.740488977158', digits=12, rounding='down')
        >>> v.rounding, v.method
        ('down', 'arb')
    """

    __slots__ = ("digits", "rounding", "method")

    digits: int
    rounding: str
    method: str

    def __new__(cls, value: Any, *, digits: int, rounding: str, method: str) -> "Certified":
        obj = super().__new__(cls, value)
        obj.digits = digits
        obj.rounding = rounding
        obj.method = method
        return obj

    def __repr__(self) -> str:
        return f"Certified('{self}', digits={self.digits}, rounding='{self.rounding}')"

    def __reduce__(self) -> Any:
        return (rebuild, (str(self), self.digits, self.rounding, self.method))

    def to_fraction(self) -> Fraction:
        """The exact rational value of the printed decimal."""
        num, den = self.as_integer_ratio()
        return Fraction(num, den)

    def enclosure(self) -> tuple[Fraction, Fraction]:
        """An interval [lo, hi] of rationals that contains the exact value (finite values only).

        From the rounding: up gives [c - ulp, c], down [c, c + ulp], nearest [c - ulp/2,
        c + ulp/2], with ulp one unit in the last of ``digits`` digits; an exact value or zero
        (a non-zero value never rounds to zero) gives [c, c].

        Examples
        --------
        >>> import gdpproof
        >>> gdpproof.delta_from_epsilon(1, 1, digits=3).enclosure()
        (Fraction(63, 500), Fraction(127, 1000))
        """
        if not self.is_finite():
            raise InvalidParameterError(f"{self!r} is not finite: it has no rational enclosure")
        x = self.to_fraction()
        if self.method == "exact" or x == 0:
            return x, x
        ulp = Fraction(10) ** (self.adjusted() - self.digits + 1)
        if self.rounding == "up":
            return x - ulp, x
        if self.rounding == "down":
            return x, x + ulp
        return x - ulp / 2, x + ulp / 2


def rebuild(text: str, digits: int, rounding: str, method: str) -> Certified:
    return Certified(text, digits=digits, rounding=rounding, method=method)
