r"""Certified epsilon(delta) from any certified privacy profile delta(epsilon).

A privacy profile delta(eps) is non-increasing in eps.  Given a function that returns delta(eps)
certified to D digits and rounded up, the smallest eps with delta(eps) <= target is found to
``digits`` digits, rounded up:

* a decimal x is **admissible** when the rounded-up delta(x) is <= target (then the true
  delta(x) <= target);
* x is **inadmissible** when delta(x) rounded up, minus one unit in its last digit, is still
  above target (the true delta(x) then exceeds target);
* otherwise the profile is evaluated again with more digits.

The answer is the smallest admissible decimal whose neighbour one unit below is inadmissible:
exactly the true eps rounded up.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction

from ...errors import PrecisionError
from ..engine.certified import Certified, decimal, round_fraction

__all__ = ["epsilon_from_profile"]

#: Extra digits asked of the profile, and the most it is asked for before giving up.
EXTRA_DIGITS, MAX_PROFILE_DIGITS = 8, 400


def _decide(profile: Callable[[Fraction, int], Certified], x: Fraction, target: Fraction, digits: int,
            limit: int = MAX_PROFILE_DIGITS) -> bool:
    """True if delta(x) <= target, False if delta(x) > target (certified), asking the profile for
    ``digits`` + a few digits first and doubling them up to ``limit``."""
    d = digits + EXTRA_DIGITS
    while d <= limit:
        up = profile(x, d)
        if not up.is_finite():
            return False
        u = up.to_fraction()
        if u <= target:
            return True
        unit = Fraction(10) ** (up.adjusted() - d + 1) if u != 0 else Fraction(0)
        if u - unit > target:
            return False
        d *= 2
    raise PrecisionError(f"delta at epsilon={float(x):.6g} is too close to the target {float(target):.6g} "
                         f"to decide with {limit} digits")


def _as_decimal(x: Fraction, digits: int) -> Certified:
    m, e = round_fraction(x, digits, "nearest")
    return Certified(decimal(m, e, digits), digits=digits, rounding="up", method="arb")


def epsilon_from_profile(profile: Callable[[Fraction, int], Certified], target: Fraction, *, digits: int,
                         upper_hint: float = 1.0, floor: Fraction | None = None) -> Certified:
    """The smallest eps >= 0 with delta(eps) <= target, to ``digits`` digits, rounded up.

    ``profile(x, d)`` returns delta(x) certified to ``d`` digits, rounded up.  ``floor``, when
    given, is a proven lower bound on delta(eps) for every eps (for example the mass of an
    infinite privacy loss): when it is >= target no eps works, and Infinity is returned, which
    is then exact.  Returns 0 when delta(0) <= target.  Raises PrecisionError when no eps up to
    2^64 is admissible without such a proof (the answer is not claimed to be infinite).

    Examples:
        >>> from fractions import Fraction
        >>> from gdpproof.numeric.tradeoff.solve import delta_from_epsilon
        >>> prof = lambda x, d: delta_from_epsilon(1, x, digits=d)
        >>> epsilon_from_profile(prof, Fraction(1, 10**5), digits=12)
        Certified('4.37717809569', digits=12, rounding='up')
    """
    cap = max(MAX_PROFILE_DIGITS, 4 * (digits + EXTRA_DIGITS))  # points near the root need the full digits
    if floor is not None and floor >= target:
        return Certified("Infinity", digits=digits, rounding="up", method="exact")
    try:
        if _decide(profile, Fraction(0), target, digits, cap):
            return Certified(0, digits=digits, rounding="up", method="exact")
    except PrecisionError:
        pass  # delta(0) could not be certified (an exact value the balls straddle): search from above
    # bracket: double until admissible
    hi = Fraction(max(upper_hint, 1e-3))
    while not _decide(profile, hi, target, 3, cap):
        hi *= 4
        if hi > 2**1000:
            raise PrecisionError(f"no epsilon up to 2^1000 has delta <= {float(target):.6g}, and no proof that "
                                 "none exists: the answer is not stated")
    lo = Fraction(0)
    # bisection to about digits + 2 significant digits (coarse tests first, certified throughout)
    while hi - lo > hi * Fraction(1, 10 ** (digits + 2)):
        mid = (lo + hi) / 2
        mid = Fraction(float(mid)) if hi - lo > hi * Fraction(1, 10**14) else mid
        if _decide(profile, mid, target, min(digits, 15), cap):
            hi = mid
        else:
            lo = mid
    # settle the decimal: smallest admissible decimal whose lower neighbour is inadmissible
    m, e = round_fraction(hi, digits, "up")
    c = Fraction(m) * Fraction(10) ** e
    for _ in range(64):
        if not _decide(profile, c, target, digits, cap):
            m, e = round_fraction(c, digits, "nearest")
            c = Fraction(m + 1) * Fraction(10) ** e
            continue
        m, e = round_fraction(c, digits, "nearest")
        below = Fraction(m - 1) * Fraction(10) ** e if m > 10 ** (digits - 1) else \
            Fraction(10 ** digits - 1) * Fraction(10) ** (e - 1)
        if below > 0 and _decide(profile, below, target, digits, cap):
            c = below
            continue
        return _as_decimal(c, digits)
    raise PrecisionError("the epsilon boundary did not settle")  # pragma: no cover

