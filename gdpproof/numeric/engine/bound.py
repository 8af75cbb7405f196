"""Proven float brackets: :class:`Bound`, and outward rounding of floats.

A :class:`Bound` is what the numerical composition returns: a pair of floats with
``lower <= value <= upper``, ``lower`` rounded down and ``upper`` rounded up.  On the float
route of :mod:`gdpproof.accounting.compose` "proven" means proven under the three numerical
assumptions of :data:`FLOAT_ROUTE_ASSUMPTIONS`, which the test suite measures on the machine it
runs on (``tests/numeric/test_assumptions.py``); a composition names its own assumptions
(``ComposedLoss.assumptions`` where it has them, else these), and an exact-lattice route, where
one is used, names none.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

__all__ = ["Bound", "U", "FLOAT_ROUTE_ASSUMPTIONS", "assumptions_of"]

#: Unit roundoff of float64.
U = 2.0 ** -53


#: What a bracket of the float route (float64 CDFs, FFT convolution) assumes: the float CDF error
#: (``losses.CDF_ERROR``), numpy's FFT within Higham's bound (``lattice._fft_error_factor``) and
#: the bin-edge displacement constant of ``lattice._discretize``.  Everything else is proven.
FLOAT_ROUTE_ASSUMPTIONS: tuple[str, ...] = (
    "the float64 CDF and survival function of each privacy loss err by at most 1e-15 (absolute)",
    "numpy's FFT convolution errs within Higham's a-priori bound for radix-2 FFTs (Accuracy and Stability "
    "of Numerical Algorithms, 2002, Thm 24.2)",
    "a float64 bin edge mapped to a mechanism's output space moves by at most 64 u (|edge| + 32) in loss "
    "(u = 2^-53)",
)


def assumptions_of(composition: Any) -> tuple[str, ...]:
    """The numerical assumptions a composition's bracket rests on: its own ``assumptions`` when it
    names them (an exact-lattice route names none), else :data:`FLOAT_ROUTE_ASSUMPTIONS`."""
    return tuple(getattr(composition, "assumptions", FLOAT_ROUTE_ASSUMPTIONS))


def next_up(x: float) -> float:
    return math.nextafter(x, math.inf)


def down(x: float) -> float:
    return math.nextafter(x, -math.inf)


def directed_double(x: Fraction, up: bool) -> float:
    """The double next to the exact rational x on the given side (x itself when it is a double):
    ``float()`` rounds to nearest, which may be either side."""
    f = float(x)
    if up and Fraction(f) < x:
        return next_up(f)
    if not up and Fraction(f) > x:
        return down(f)
    return f


def float_down(c: Any) -> float:
    """The largest float at most the certified decimal c (float() rounds to nearest, maybe up)."""
    return directed_double(c.to_fraction(), up=False)


@dataclass(frozen=True)
class Bound:
    """A proven bracket ``lower <= value <= upper`` (floats; lower rounded down, upper up).

    Proven, on the float route, under :data:`FLOAT_ROUTE_ASSUMPTIONS`: IEEE float64 CDFs within
    1e-15, FFT error within Higham's bound, and the bin-edge displacement constant (each measured
    by the test suite); the composition that made it names its assumptions
    (:func:`assumptions_of`), and so do the JSON of :func:`gdpproof.account` and
    :class:`~gdpproof.accounting.dpsgd.DPSGDBracket`.

    Args:
        lower: The lower end (a double, rounded down).
        upper: The upper end (a double, rounded up).

    Examples:
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
        return next_up(self.upper - self.lower)

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
