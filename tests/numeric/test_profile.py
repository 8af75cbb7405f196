"""Certified epsilon from a certified delta(eps) profile: exactly the true eps rounded up."""

from __future__ import annotations

from fractions import Fraction

import pytest

from gdpproof.errors import PrecisionError
from gdpproof.numeric.engine.certify import Certified, decimal, round_fraction
from gdpproof.numeric.tradeoff.profile import epsilon_from_profile


def _rational_profile(x: Fraction, digits: int) -> Certified:
    """delta(x) = 1/(1 + x), rounded up to ``digits`` digits exactly (a profile with a known root)."""
    v = 1 / (1 + x)
    m, e = round_fraction(v, digits, "up")
    return Certified(decimal(m, e, digits), digits=digits, rounding="up", method="exact")


@pytest.mark.parametrize("digits", [5, 30, 450])
def test_an_exact_root_is_returned_exactly(digits: int) -> None:
    # 1/(1 + x) = 1e-5 at x = 99999 exactly: the smallest admissible decimal is the root itself,
    # also beyond the 400 digits a profile is first asked for (the cap grows with the request)
    assert epsilon_from_profile(_rational_profile, Fraction(1, 10**5), digits=digits) == 99999


def test_an_irrational_root_is_rounded_up() -> None:
    # 1/(1 + x) = 1/3 at x = 2; = 3/10 at x = 7/3 = 2.333...: rounded up to 2.34 at 3 digits
    assert str(epsilon_from_profile(_rational_profile, Fraction(3, 10), digits=3)) == "2.34"


def test_infinity_only_with_a_proof() -> None:
    flat = lambda x, d: Certified("0.5", digits=d, rounding="up", method="exact")  # noqa: E731
    assert epsilon_from_profile(flat, Fraction(1, 10), digits=5, floor=Fraction(1, 2)).is_infinite()
    with pytest.raises(PrecisionError, match="no proof that none exists"):
        epsilon_from_profile(flat, Fraction(1, 10), digits=5)
