"""The pairs discretization (gdpproof.accounting.pairs): dominating and dominated grid masses."""

from __future__ import annotations

import flint
import mpmath
import numpy as np
import pytest

import gdpproof.accounting.pairs as pairs
from gdpproof.errors import InvalidParameterError, PrecisionError
from gdpproof.accounting.exact_lattice import grid_step_exact
from gdpproof.accounting.losses import SymmetricSubsampledGaussianLoss
from gdpproof.accounting.losses import GaussianLoss, LaplaceLoss, RandomizedResponseLoss, SubsampledGaussianLoss
from gdpproof.accounting.compose import compose_losses
from gdpproof.accounting.search import delta_bracket, epsilon_bracket


def test_four_gaussians_hold_g1():
    # G_{1/2} four times is G_1: delta(eps) = Phi(-eps + 1/2) - e^eps Phi(-eps - 1/2)
    c = compose_losses([(GaussianLoss(0.5), 4)], grid_step=2e-3, discretization="pairs")
    assert c.discretization == "pairs" and c.eta == 0.0
    for eps in (0.0, 0.3, 1.0, 3.0):
        value = float(mpmath.ncdf(-eps + 0.5) - mpmath.exp(eps) * mpmath.ncdf(-eps - 0.5))
        for b in c.delta_by_ordering(eps).values():
            assert b.lower <= value <= b.upper
            assert b.width <= 2e-4 * max(value, 1e-3)


def test_one_heavy_step_matches_the_coupling():
    # sigma 0.5: a loss piled at its minimum log(1 - p) and a long right tail, on a coarse grid
    loss = SubsampledGaussianLoss(0.5, 0.01)
    c = compose_losses([(loss, 1)], grid_step=0.01, discretization="pairs")
    ref = compose_losses([(loss, 1)], grid_step=2e-4)
    for eps in (0.0, 0.5, 2.0, 6.0):
        got, want = c.delta_by_ordering(eps), ref.delta_by_ordering(eps)
        for name in got:
            assert got[name].lower <= want[name].upper and want[name].lower <= got[name].upper
        # second order: narrower than the coupling on a grid 50 times finer, away from eps = 0
        # (where the loss's pile at log(1 - p) puts a kink of D inside a cell of this grid)
        if eps > 0:
            assert got["remove"].width <= 0.2 * want["remove"].width + 1e-15


def test_composition_meets_the_coupling():
    loss = SubsampledGaussianLoss(1.0, 0.02)
    c = compose_losses([(loss, 300)], grid_step=1e-3, eta=1e-9, discretization="pairs")
    ref = compose_losses([(loss, 300)], grid_step=1e-4, eta=1e-9)
    a, b = c.epsilon(1e-5), ref.epsilon(1e-5)
    assert a.lower <= b.upper and b.lower <= a.upper
    assert a.width < b.width


def test_the_lower_measure_keeps_the_q_mass_of_a_pile_at_the_bottom():
    # a subsampled Gaussian piles its loss just above log(1 - p), where D is linear below: the
    # lower measure lowered at both ends of every cell dragged that line down, an excess Q-mass
    # of 1.2e-5 per step that a composition pays per step (the eps bracket below was 0.107%
    # wide); lowered at the right ends at the bottom, the excess is 1e-8 and the bracket half as wide
    h = grid_step_exact(1e-3)
    low = pairs.pair_steps(SubsampledGaussianLoss(1.0, 0.01), h, 1e-12, 999)[0].lower
    x = np.exp((low.k0 + np.arange(len(low.w))) * h)
    assert float(np.sum(low.w / x)) - 1 < 1e-7 and 1 - float(np.sum(low.w)) < 1e-11
    c = compose_losses([(SubsampledGaussianLoss(1.0, 0.02), 300)], grid_step=1e-3, eta=1e-9, discretization="pairs")
    assert c.epsilon(1e-5).relative_width < 6e-4


def test_the_lower_curve_is_checked(monkeypatch):
    real = pairs._lower_masses

    def inflated(*args):
        p = real(*args)
        p[len(p) // 2] += 1e-3  # a mass the chords do not allow
        return p

    monkeypatch.setattr(pairs, "_lower_masses", inflated)
    with pytest.raises(PrecisionError, match="lower curve"):
        pairs.pair_steps(GaussianLoss(1.0), grid_step_exact(0.01), 1e-12)


def test_refusals():
    with pytest.raises(InvalidParameterError, match="discretization"):
        compose_losses([(GaussianLoss(1.0), 2)], discretization="dots")
    with pytest.raises(PrecisionError, match="atoms"):
        compose_losses([(RandomizedResponseLoss(1.0), 2)], discretization="pairs")


def test_epsilon_bracket_takes_pairs_where_they_pay():
    # sigma 2, p 0.001: the coupling's grid would be about 12 times finer
    b, comp = epsilon_bracket([(SubsampledGaussianLoss(2.0, 0.001), 100_000)], 1e-5)
    assert comp.discretization == "pairs" and comp.target_met
    assert b.lower < 0.6035 < b.upper and b.relative_width <= 0.01  # dp_accounting's PLD: 0.6035
    assert np.isfinite(comp.honest_mu().mu.upper)


def test_delta_bracket_takes_pairs():
    # delta(1.8) of DP-SGD (sigma 1, p 0.01, T 1000): one pairs grid; the coupling took 4 grids
    b, comp = delta_bracket([(SubsampledGaussianLoss(1.0, 0.01), 1000)], 1.8)
    assert comp.discretization == "pairs" and comp.passes == 1 and b.width <= 0.01 * b.upper
    eps = comp.epsilon(b.upper)
    assert eps.lower <= 1.8  # the same composition's eps at the upper delta


def test_laplace_atoms_on_grid_points():
    # Laplace(mu 1) has atoms at +-1, grid points of h 1/4; D(e^eps) = 1 - e^{(eps - 1)/2} on
    # [0, 1].  The Q||P curve is 0 at the atom while the ball of D there reaches below 0: D >= 0
    # must let the last cell pass (it was refused)
    c = compose_losses([(LaplaceLoss(1.0), 1)], grid_step=0.25, discretization="pairs")
    for eps in (0.0, 0.3, 0.75, 1.0, 2.0):
        value = max(0.0, float(1 - mpmath.exp((eps - 1) / 2)))
        per = c.delta_by_ordering(eps)
        for b in per.values():
            assert b.lower <= value <= b.upper
        assert per["Q||P"].lower >= 0.85 * value


def test_symmetric_subsampled_gaussian_atom_at_zero():
    # an atom at L = 0, a grid point; for eps >= 0 delta is the "remove" ordering's of the
    # subsampled Gaussian: with x = sigma^2 log((e^eps - 1 + p) / p) + 1/2,
    # delta = (1 - p) Phi(-x / sigma) + p Phi((1 - x) / sigma) - e^eps Phi(-x / sigma)
    sigma, p = mpmath.mpf(1), mpmath.mpf("0.25")
    c = compose_losses([(SymmetricSubsampledGaussianLoss(1.0, 0.25), 1)], grid_step=0.02, discretization="pairs")
    for eps in (0.0, 0.2, 1.0):
        x = sigma**2 * mpmath.log((mpmath.exp(eps) - 1 + p) / p) + mpmath.mpf(1) / 2
        value = float((1 - p) * mpmath.ncdf(-x / sigma) + p * mpmath.ncdf((1 - x) / sigma)
                      - mpmath.exp(eps) * mpmath.ncdf(-x / sigma))
        for b in c.delta_by_ordering(eps).values():
            assert b.lower <= value <= b.upper and b.width <= 0.02 * value


def test_a_negative_lower_mass_is_refused(monkeypatch):
    real = pairs._lower_masses

    def signed(*args):
        p = real(*args)
        p[len(p) // 2] = -1e-3  # only lowers the curve, but the composition needs a measure
        return p

    monkeypatch.setattr(pairs, "_lower_masses", signed)
    with pytest.raises(PrecisionError, match="negative"):
        pairs.pair_steps(GaussianLoss(1.0), grid_step_exact(0.01), 1e-12)


def test_a_large_loss_keeps_its_precision():
    # G_10: L reaches 180 on this window, where the Q-masses are multiplied by e^180: their edge
    # values need relative accuracy (at 80 bits of absolute accuracy E and F blew up and the lower
    # curve was refused)
    c = compose_losses([(GaussianLoss(10.0), 1)], grid_step=0.125, eta=1e-4, discretization="pairs")
    for eps in (30.0, 50.0, 70.0):
        value = float(mpmath.ncdf(-eps / 10 + 5) - mpmath.exp(eps) * mpmath.ncdf(-eps / 10 - 5))
        for b in c.delta_by_ordering(eps).values():
            assert b.lower <= value <= b.upper and b.width <= 2e-3 * value


def test_the_chord_gap_is_rounded_up_on_subnormals():
    # a cell whose Q-mass is enclosed as 0 +/- k 1.3e-321: the gap bound dx q / 4 is subnormal,
    # where multiplying by 1 + 1e-15 does not move a double (it came out below half the time)
    for k in range(1, 60):
        q = flint.arb(0, flint.arb(k) * flint.arb("1.3e-321"))
        assert flint.arb(pairs._gap(flint.arb(0), flint.arb(0), flint.arb(1), q)) >= (q / 4).upper()


def test_a_loss_beyond_float64_is_refused_before_the_balls():
    # G_38 reaches L = 900 on its window: e^L overflows the float construction of the lower
    # curve, so it is refused up front (before, its balls were paid for and it failed on NaN)
    with pytest.raises(PrecisionError, match="beyond float64"):
        compose_losses([(GaussianLoss(38.0), 1)], grid_step=0.5, eta=1e-6, discretization="pairs")


def test_far_tail_values_get_only_the_bits_the_masses_need(monkeypatch):
    # sigma 200, p near 1: at the support's floor log(1 - p) = -10.8 the CDFs are about
    # Phi(-2000) = 1e-870000; sharpening them to relative accuracy asked millions of bits (13 s
    # an edge).  No value is multiplied by more than e^{|l|}: 2^-(80 + 24) absolute is enough
    real = pairs.arb_precision

    def capped(bits):
        assert bits <= pairs.PRECISION + 64 + 32, bits
        return real(bits)

    monkeypatch.setattr(pairs, "arb_precision", capped)
    c = compose_losses([(SubsampledGaussianLoss(200.0, 0.99998), 1)], grid_step=0.02, eta=1e-12,
                       discretization="pairs")
    # a subsampled Gaussian step at eps 0: P(X > x) - Q(X > x) with x = 1/2 (p = 1 would be G_{1/200})
    value = float(0.99998 * (mpmath.ncdf(mpmath.mpf(1) / 400) - mpmath.ncdf(-mpmath.mpf(1) / 400)))
    for b in c.delta_by_ordering(0.0).values():
        assert b.lower <= value <= b.upper <= value * (1 + 1e-6)  # (the lower end is loose on this grid)


def test_tradeoff_points_from_the_dominated_measure():
    # G_{1/2} four times is G_1: every trade-off bracket holds G_1(alpha) = Phi(Phi^-1(1 - alpha) - 1)
    c = compose_losses([(GaussianLoss(0.5), 4)], grid_step=5e-3, discretization="pairs")
    for alpha in (0.001, 0.05, 0.3, 0.7):
        exact = float(mpmath.ncdf(-mpmath.sqrt(2) * mpmath.erfinv(2 * alpha - 1) - 1))
        for ordering in (None, "P||Q", "Q||P"):
            b = c.tradeoff(alpha, ordering)
            assert b.lower <= exact <= b.upper and b.width < 2e-3
    hm = c.honest_mu()
    assert hm.mu.lower <= 1.0 <= hm.mu.upper and hm.mu_tail <= 1.0 + 1e-9


def test_tradeoff_points_hold_when_the_trims_drop_mass():
    # eta 5e-4: the trims drop ~2.5e-5 of the dominated measure, from intermediate lattices (not
    # only beyond the final ends); every point still lies above G_2 (the exact curve of G_{1/2}
    # composed 16 times), its margin far below the mass dropped
    from gdpproof.accounting.composed import _pair_np_points
    c = compose_losses([(GaussianLoss(0.5), 16)], grid_step=0.05, eta=5e-4, discretization="pairs")
    assert c.directions[0].low.lattice.l1() < 1 - 1e-5
    a, b = _pair_np_points(c.directions[0])
    inner = (a > 0) & (a < 1)
    assert inner.sum() > 100
    for x, y in zip(a[inner], b[inner]):
        assert y >= mpmath.ncdf(-mpmath.sqrt(2) * mpmath.erfinv(2 * mpmath.mpf(x) - 1) - 2)


def test_tradeoff_at_zero_where_e_eps_overflows():
    # G_25 three times: eps reaches beyond 709 on the trade-off's eps grid, where e^eps is inf;
    # the lower curve at alpha = 0 was inf x 0 = NaN (tradeoff raised ValueError)
    c = compose_losses([(GaussianLoss(25.0), 3)], grid_step=0.5, eta=1e-6, discretization="pairs")
    assert c._eps_grid()[0][-1] > 710
    for ordering in (None, "P||Q"):
        b = c.tradeoff(0.0, ordering)
        assert 0.99 < b.lower <= 1.0 <= b.upper
        b = c.tradeoff(1e-300, ordering)  # G_{25 sqrt 3}(1e-300) is about 1.6e-10
        assert b.lower <= mpmath.ncdf(mpmath.sqrt(2) * mpmath.erfinv(1 - mpmath.mpf(2e-300)) - 25 * mpmath.sqrt(3)) <= b.upper


def test_delta_bracket_keeps_the_pairs_cap_on_points():
    # delta's grid is finer than epsilon's: G_30 at eps 100 asked 283,000 points of a step (37 s
    # of balls, where the coupling takes 0.2 s); the cap PAIRS_MAX_POINTS now applies to it too
    from gdpproof.accounting import aim as pld
    assert pld.pairs_delta_step([(GaussianLoss(30.0), 1)], 100.0, 0.01, 1e-12) is None
    h = pld.pairs_delta_step([(GaussianLoss(5.0), 1)], 20.0, 0.01, 1e-12)
    assert h is not None and not pld.pairs_too_fine([(GaussianLoss(5.0), 1)], h, 1e-12)
