"""The tilted pairs (gdpproof.accounting.tilt): small delta at the float route's cost.

References are exact: k-fold G_mu is G_{mu sqrt k}, whose eps(delta) is certified; DP-SGD is
checked against the exact integer lattice.  About 2 s of CPU in all.
"""

from __future__ import annotations

import warnings
from fractions import Fraction

import flint
import numpy as np
import pytest

import gdpproof
from gdpproof.errors import InvalidParameterError, PrecisionError, WidthNotReachedWarning
from gdpproof.accounting import tilt
from gdpproof.accounting.compose import compose_tilted
from gdpproof.accounting.composed import PAIRS_ASSUMPTIONS
from gdpproof.accounting.coupling import Lattice
from gdpproof.accounting.losses import (GaussianLoss, RandomizedResponseLoss, SubsampledGaussianLoss,
                                        SymmetricSubsampledGaussianLoss)
from gdpproof.accounting.search import delta_bracket, epsilon_bracket
from gdpproof.numeric.engine._mp import arb_precision


def _exact_eps(mu: int, delta: str) -> Fraction:
    return gdpproof.epsilon_from_delta(mu, delta, digits=20).to_fraction()


@pytest.mark.parametrize("delta", ["1e-30", "1e-50"])
def test_hundredfold_gaussian_is_g1_far_below_the_float_floor(delta: str) -> None:
    # 100-fold G_0.1 is G_1: its eps is certified (20 digits, rounded up); 0.03 s a delta
    c = compose_tilted([(GaussianLoss(0.1), 100)], grid_step=0.01, delta=float(delta))
    b = c.epsilon(float(delta))
    exact = _exact_eps(1, delta)
    assert Fraction(b.lower) <= exact * (1 - Fraction(1, 10**18)) and exact <= Fraction(b.upper), (b, float(exact))
    assert b.relative_width <= 0.01
    assert c.discretization == "tilted pairs" and c.assumptions == PAIRS_ASSUMPTIONS  # the FFT bound only
    # both orderings (G_1 is symmetric: the same delta), each a proven bracket at the exact eps
    value = float(gdpproof.delta_from_epsilon(1, float(exact), digits=20).to_fraction())
    for name, d in c.delta_by_ordering(float(exact)).items():
        assert d.lower <= value * (1 + 1e-15) and value * (1 - 1e-15) <= d.upper, (name, d, value)


@pytest.mark.parametrize("parts", [
    [(SubsampledGaussianLoss(2.0, 0.05), 50)],
    # two parts under one tilt, and a loss with an atom at 0 on the grid
    [(GaussianLoss(0.3), 5), (SymmetricSubsampledGaussianLoss(1.5, 0.1), 30)],
], ids=["dpsgd", "mixed"])
def test_auto_route_takes_the_tilted_pairs_and_agrees_with_the_exact_lattice(parts: list) -> None:
    # at 1e-30: the tilted bracket (1% asked) lies inside the exact lattice's (5%, 0.1-0.4 s) and
    # is far narrower; the delta brackets of both orderings overlap at its eps
    b, comp = epsilon_bracket(parts, "1e-30", rel_width=0.01)
    assert comp.discretization == "tilted pairs" and comp.target_met and b.relative_width <= 0.01
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", WidthNotReachedWarning)
        ref, exact = epsilon_bracket(parts, "1e-30", rel_width=0.05, route="exact")
    assert ref.lower <= b.lower and b.upper <= ref.upper, (b, ref)
    eps = 0.5 * (b.lower + b.upper)
    got, want = comp.delta_by_ordering(eps), exact.delta_by_ordering(eps)
    for name in got:
        assert got[name].lower <= want[name].upper and want[name].lower <= got[name].upper, name


@pytest.mark.parametrize("factor", [0.25, 4.0])
def test_a_wrong_tilt_still_gives_a_proven_bracket(factor: float) -> None:
    # lam a quarter or four times the saddle point's: the bracket still holds the truth (wider)
    c = compose_tilted([(GaussianLoss(0.1), 100)], grid_step=0.01, delta=1e-30)
    lam = c.directions[0].j * np.log(2) / ((1 << tilt.BITS) * c.h)
    wrong = compose_tilted([(GaussianLoss(0.1), 100)], grid_step=0.01, delta=1e-30, tilt=lam * factor)
    exact = _exact_eps(1, "1e-30")
    try:
        b = wrong.epsilon(1e-30)
    except PrecisionError:
        return  # refused: the tilt's error is above delta everywhere
    assert Fraction(b.lower) <= exact * (1 - Fraction(1, 10**18)) and exact <= Fraction(b.upper), (b, float(exact))


def test_no_tilt_is_refused_far_below_the_float_floor() -> None:
    # lam = 0 is the plain pairs: their FFT error (~1e-11 absolute) hides delta = 1e-30
    c = compose_tilted([(GaussianLoss(0.1), 100)], grid_step=0.01, delta=1e-30, tilt=0.0)
    with pytest.raises(PrecisionError, match="floor"):
        c.epsilon(1e-30)


def test_tilted_masses_bound_the_exact_products() -> None:
    # each tilted mass is m 2^{(j k - n) / 2^BITS} rounded outward (up for the dominating masses,
    # down for the dominated ones), including masses that underflow and factors beyond 2^1000
    rng = np.random.default_rng(1)
    w = np.concatenate((rng.random(40), [5e-324, 1e-310, 1e-300, 0.0]))
    lat = Lattice(-20, w, 0.0)
    for sign, j in ((1, 0), (1, 777), (-1, 40000)):
        for up in (True, False):
            t, n = tilt.tilt(lat, sign, j, up)
            with arb_precision(200):
                for k, (m, v) in enumerate(zip(w, t.w)):
                    e = sign * j * (lat.k0 + k) - n
                    exact = flint.arb(m) * flint.arb(2) ** (flint.arb(e) / (1 << tilt.BITS))
                    assert (v >= exact.upper()) if up else (0 <= v <= exact.lower()), (sign, j, up, k, m, v)


def test_one_log_sum_exp_normalises_the_tilt_and_gives_the_saddle_cgf() -> None:
    """tilt's n (base 2, in units of 2^-BITS) and _cgf's K(lam), K'(lam) (base e) from the one
    helper, against arb sums at 200 bits; masses that underflow and zeros included."""
    rng = np.random.default_rng(2)
    w = np.concatenate((rng.random(30), [1e-310, 0.0]))
    lat = Lattice(-10, w, 0.0)
    ks = np.arange(lat.k0, lat.k0 + len(w))
    with arb_precision(200):
        for sign, j in ((1, 0), (-1, 40000), (1, 123456)):
            _, n = tilt.tilt(lat, sign, j, True)
            total = sum(flint.arb(m) * flint.arb(2) ** (flint.arb(sign * j * int(k)) / (1 << tilt.BITS))
                        for m, k in zip(w, ks))
            assert abs(n - float(total.log() / flint.arb(2).log()) * (1 << tilt.BITS)) <= 0.5 + 1e-6
        pts, lam = 0.1 * ks.astype(float), 2.5
        with np.errstate(divide="ignore"):
            k_val, mean = tilt._cgf([pts], [np.log(w)], [3], lam)
        terms = [flint.arb(m) * (flint.arb(lam) * flint.arb(p)).exp() for m, p in zip(w, pts)]
        total = sum(terms)
        assert abs(k_val - 3 * float(total.log())) <= 1e-13 * abs(k_val)
        assert abs(mean - 3 * float(sum(t * flint.arb(p) for t, p in zip(terms, pts)) / total)) <= 1e-13 * abs(mean)
    assert tilt._log_sum_exp(np.array([-np.inf, -np.inf]))[0] == -np.inf
    with pytest.raises(PrecisionError, match="without mass"):
        tilt.tilt(Lattice(0, np.zeros(3), 0.0), 1, 5, True)


def test_the_tail_factor_is_an_upper_bound() -> None:
    with arb_precision(200):
        for big_n, j, h, eps in ((442700, 1377, 0.0198974609375, 11.7), (-5000, 3, 1e-3, 0.0), (10, 0, 0.5, 3.0)):
            got = tilt.tail_factor(big_n, j, h, eps)
            exponent = flint.arb(big_n) - flint.arb(j) * flint.arb(eps) / flint.arb(h)
            exact = flint.arb(2) ** (exponent / (1 << tilt.BITS))
            assert got >= exact.upper()


def test_a_tilted_composition_refuses_the_whole_curve() -> None:
    c = compose_tilted([(GaussianLoss(0.1), 100)], grid_step=0.02, delta=1e-30)
    with pytest.raises(PrecisionError, match="tilted composition"):
        c.honest_mu()
    with pytest.raises(PrecisionError, match="tilted composition"):
        c.tradeoff(0.5)


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"delta": 0.5}, "delta=0.5 must be in"),
    ({"delta": 1e-30, "tilt": -1.0}, "tilt=-1.0 must be"),
    ({"delta": 1e-30, "grid_step": 2.0}, "grid_step=2.0 must be in"),
    ({"delta": 1e-30, "rel_width": 3.0}, "rel_width=3.0 must be in"),
])
def test_bad_arguments_are_named(kwargs: dict, message: str) -> None:
    args = {"grid_step": 0.01, **kwargs}
    with pytest.raises(InvalidParameterError, match=message):
        compose_tilted([(GaussianLoss(0.1), 100)], **args)


def test_a_loss_with_atoms_is_refused() -> None:
    with pytest.raises(PrecisionError, match="pairs discretization does not take"):
        compose_tilted([(RandomizedResponseLoss(0.5), 10)], grid_step=0.01, delta=1e-30)


def test_the_search_answers_the_whole_curve_from_the_exact_lattice() -> None:
    # a tilted bracket from the search knows how to build the composition of the whole curve:
    # the honest mu of 4-fold G_0.5 (G_1) holds 1
    b, comp = epsilon_bracket([(GaussianLoss(0.5), 4)], "1e-30", rel_width=0.05)
    assert comp.discretization == "tilted pairs"
    hm = comp.honest_mu()
    assert hm.mu.lower <= 1.0 <= hm.mu.upper


def test_delta_bracket_at_a_small_delta_takes_the_tilted_pairs() -> None:
    # delta of G_1 at eps 11.74 is about 1.04e-30: the float route's floor hides it, the tilted
    # pairs aimed at eps bracket it to 3% (0.3 s; the exact lattice took 10 s for 1.8%)
    exact = gdpproof.delta_from_epsilon(1, "11.74", digits=20).to_fraction()
    b, comp = delta_bracket([(GaussianLoss(0.5), 4)], 11.74, rel_width=0.03)
    assert comp.discretization == "tilted pairs" and comp.target_met and b.width <= 0.03 * b.upper
    assert Fraction(b.lower) <= exact <= Fraction(b.upper) * (1 + Fraction(1, 10**18)), (b, float(exact))
    with pytest.raises(InvalidParameterError, match="exactly one of delta= and eps="):
        compose_tilted([(GaussianLoss(0.5), 4)], grid_step=0.01, delta=1e-30, eps=11.0)


def test_the_tilt_is_checked_as_any_number():
    # numpy numbers are numbers (np.int64(3) was refused as "tilt=3 must be a number")
    import numpy as np

    from gdpproof.accounting.compose import compose_tilted
    from gdpproof.accounting.losses import SubsampledGaussianLoss
    from gdpproof.errors import InvalidParameterError

    with pytest.raises(InvalidParameterError, match=r"tilt=np.float64\(-1.0\) must be >= 0|tilt=-1.0 must be >= 0"):
        compose_tilted([(SubsampledGaussianLoss(1.0, 0.01), 10)], grid_step=1e-3, delta=1e-20, tilt=np.float64(-1))
