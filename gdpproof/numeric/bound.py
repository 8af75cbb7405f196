"""Proven float brackets: :class:`Bound`, and outward rounding of floats.

A :class:`Bound` is what the numerical composition returns: a pair of floats with
``lower <= value <= upper``, ``lower`` rounded down and ``upper`` rounded up.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

__all__ = ["Bound", "U"]

#: Unit roundoff of float64.
U = 2.0 ** -53


def _up(x: float) -> float:
    return math.nextafter(x, math.inf)


def _down(x: float) -> float:
    return math.nextafter(x, -math.inf)


def _float_down(c: Any) -> float:
    """The largest float at most the certified decimal c (float() rounds to nearest, maybe up)."""
    f = float(c)
    return _down(f) if Fraction(f) > c.to_fraction() else f


@dataclass(frozen=True)
class Bound:
    """A proven bracket ``lower <= value <= upper`` (floats; lower rounded down, upper up).

    Examples
    --------
    >>> b = Bound(1.0, 1.01)
    >>> 1.005 in b, round(b.relative_width, 6)
    (True, 0.01)
    """

    lower: float
    upper: float

    def __post_init__(self) -> None:
        if not self.lower <= self.upper:
            raise ValueError(f"Bound needs lower <= upper, got [{self.lower}, {self.upper}]")

    def __contains__(self, x: object) -> bool:
        return bool(self.lower <= x <= self.upper)  # type: ignore[operator]

    @property
    def width(self) -> float:
        """upper - lower, rounded up."""
        return _up(self.upper - self.lower)

    @property
    def relative_width(self) -> float:
        """(upper - lower) / lower; infinite when lower is 0 and the bracket is not a point."""
        if self.lower == self.upper:
            return 0.0
        return self.width / self.lower if self.lower > 0 else math.inf

    @property
    def mid(self) -> float:
        """The midpoint (a float, not a bound)."""
        return 0.5 * (self.lower + self.upper)

    def __str__(self) -> str:
        return f"[{self.lower!r}, {self.upper!r}]"
