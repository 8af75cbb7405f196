"""The root searches never read an undecided ball as a sign (roots.nonpositive_at)."""

import flint
import pytest

from gdpproof.errors import PrecisionError
from gdpproof.numeric.tradeoff.roots import nonpositive_at
from gdpproof.numeric.tradeoff.solve import mu_from_epsilon_delta


def test_tiny_eps_and_delta_find_the_root():
    # the gallop passes 2^-512, where the dual's cancellation leaves an undecided ball at the
    # first precision; it used to count as "above the root" and end in a false "below 2^-65372"
    mu = mu_from_epsilon_delta("1e-100", "1e-100")
    assert str(mu) == "3.62279718572885959061182660129E-100"
    assert mu.rounding == "down"


def test_an_undecided_sign_is_refused_not_guessed():
    def never_decided(x: flint.arb) -> flint.arb:
        return flint.arb(0, 1)  # [-1, 1] at every precision

    with pytest.raises(PrecisionError, match="not decided"):
        nonpositive_at(never_decided, flint.arb(1), 53)


def test_a_decided_sign_is_read():
    assert nonpositive_at(lambda x: x - 2, flint.arb(1), 53)
    assert not nonpositive_at(lambda x: x - 2, flint.arb(3), 53)
