"""Shared plumbing of the score audits: argument checks, exact levels, certified decimals.

No statistics here: :mod:`~gdpproof.audit.onerun`, :mod:`~gdpproof.audit.thresholds` and
:mod:`~gdpproof.audit.scores` use these to validate their arguments in one way and to turn exact
rationals into decimals rounded in a stated direction.
"""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction
from typing import Any

from .._args import count, exact
from ..errors import InvalidParameterError, bad

__all__ = ["counts", "level_of", "fraction_of", "decimal_string"]


def counts(m: Any, r: Any, v: Any, names: tuple[str, str, str] = ("canaries", "guesses", "correct")) -> tuple[int, int, int]:
    """The counts of a one-run experiment: ``0 <= v <= r <= m`` and ``m >= 1``."""
    m = count(names[0], m, low=1)
    r = count(names[1], r, low=0)
    v = count(names[2], v, low=0)
    if r > m:
        raise bad(names[1], r, f"must be at most {names[0]}={m}")
    if v > r:
        raise bad(names[2], v, f"must be at most {names[1]}={r}")
    return m, r, v


def fraction_of(name: str, value: Any, *, low: Fraction = Fraction(0), high: Fraction = Fraction(1),
                open_low: bool = False, open_high: bool = False) -> Fraction:
    """``value`` as an exact Fraction in the interval from ``low`` to ``high`` (ends excluded as asked)."""
    span = f"{'(' if open_low else '['}{low}, {high}{')' if open_high else ']'}"
    try:
        v = exact(name, value, symbolic=False)
    except InvalidParameterError:
        v = None
    if v is None or not getattr(v, "is_Rational", False):
        raise bad(name, value, f"must be a number in {span}")
    q = Fraction(int(v.p), int(v.q))
    if q < low or q > high or (open_low and q == low) or (open_high and q == high):
        raise bad(name, value, f"must be in {span}")
    return q


def level_of(confidence: Any) -> Fraction:
    """The failure probability 1 - confidence, exactly; confidence must be in (0, 1)."""
    return 1 - fraction_of("confidence", confidence, open_low=True, open_high=True)


def decimal_string(x: Fraction | Decimal | int | None) -> str | None:
    """A number as a decimal string: exact when it terminates, else 30 significant digits."""
    from ..text import terminating_text

    if x is None:
        return None
    if isinstance(x, int):
        return str(x)
    return terminating_text(x)
