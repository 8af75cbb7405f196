"""The exact integer lattice (gdpproof.accounting.exact_lattice) and the best-effort brackets.

Each test is a few seconds at most: coarse widths, few steps.  The references are exact:
k-fold G_mu is G_{mu sqrt k} (certified conversions), randomized response composes to the
binomial curve (the exact-finite route), and the lattice law of composed randomized response is
binomial (ball arithmetic).
"""

from __future__ import annotations

import math
import warnings
from fractions import Fraction

import flint
import pytest

import gdpproof
from gdpproof.errors import PrecisionError, WidthNotReachedWarning
from gdpproof.mechanisms import GDP, RandomizedResponse, Repeated, dpsgd
from gdpproof.numeric.engine.bound import FLOAT_ROUTE_ASSUMPTIONS
from gdpproof.accounting import exact_lattice as intlattice
from gdpproof.numeric.engine._mp import arb_precision
from gdpproof.accounting.exact_lattice import ROUTE as EXACT_ROUTE
from gdpproof.accounting.composed import FLOAT_ROUTE
from gdpproof.accounting.losses import GaussianLoss, RandomizedResponseLoss, SubsampledGaussianLoss
from gdpproof.accounting.compose import compose_losses
from gdpproof.accounting.search import delta_bracket, epsilon_bracket


def _exact_eps(mu: Fraction, delta: Fraction) -> Fraction:
    return gdpproof.epsilon_from_delta(mu, delta, digits=20).to_fraction()


@pytest.mark.parametrize("delta", ["1e-30", "1e-40"])
def test_exact_route_brackets_composed_gaussian_far_below_the_float_floor(delta: str) -> None:
    # four G_{1/2} compose to G_1 exactly
    b, comp = epsilon_bracket([(GaussianLoss(0.5), 4)], delta, rel_width=0.03, route="exact")
    exact = _exact_eps(Fraction(1), Fraction(delta))
    # the reference is rounded up to 20 digits: a 1e-18 relative margin
    assert Fraction(b.lower) <= exact <= Fraction(b.upper) * (1 + Fraction(1, 10**18)), (b, float(exact))
    assert b.relative_width <= 0.03 and comp.target_met
    assert comp.route == EXACT_ROUTE and comp.assumptions == ()
    # the same composition answers delta at the exact eps's neighbours consistently
    up = comp.delta(float(exact) * 1.05)
    assert up.upper < float(Fraction(delta))


def test_exact_route_takes_delta_below_the_double_range() -> None:
    b, comp = epsilon_bracket([(GaussianLoss(0.5), 4)], "1e-400", rel_width=0.05)
    exact = _exact_eps(Fraction(1), Fraction(1, 10**400))
    assert Fraction(b.lower) <= exact <= Fraction(b.upper) * (1 + Fraction(1, 10**18)), (b, float(exact))
    assert comp.plan.K > 1330  # 2^-K well below 1e-400


def test_delta_bracket_exact_route_contains_gaussian_delta() -> None:
    eps = 10.0  # delta of G_1 there is about 6e-23; it falls by e^-10 per unit of eps, so a
    # relative width on delta is a tight grid: 0.5 keeps this test cheap
    b, comp = delta_bracket([(GaussianLoss(0.5), 4)], eps, rel_width=0.5, route="exact")
    exact = gdpproof.delta_from_epsilon(1, eps, digits=20).to_fraction()
    assert Fraction(b.lower) <= exact * (1 + Fraction(1, 10**18)) and exact <= Fraction(b.upper), (b, float(exact))
    assert 0 < b.lower and b.width <= 0.5 * b.upper and comp.target_met


def test_randomized_response_composition_against_exact_finite() -> None:
    mech = Repeated(RandomizedResponse(Fraction(1, 2)), 20)
    eps = 2.0
    ref = gdpproof.account(mech, epsilon=eps, route="exact-finite", digits=20)
    exact = ref.delta.to_fraction()
    b, comp = delta_bracket([(RandomizedResponseLoss(0.5), 20)], eps, rel_width=0.2, route="exact")
    assert Fraction(b.lower) <= exact <= Fraction(b.upper) * (1 + Fraction(1, 10**18)), (b, float(exact))


def test_integer_vector_is_below_the_exact_lattice_law_pointwise() -> None:
    # randomized response: L = +-eps, rounded to the grid point nearest eps (or -eps); the lattice
    # law of S_R after T steps is binomial, computed here in balls
    eps, T, h = 0.5, 12, 2.0 ** -7
    loss = RandomizedResponseLoss(eps)
    K = 60
    with arb_precision(K + 40):
        step = intlattice._int_step(loss, "P", h, K, Fraction(1, 10**30))
    vec = intlattice._power(intlattice._IntVec(step.k0, flint.fmpz_poly(step.v)), T, K, lambda copies: 0)
    kp, km = round(eps / h), round(-eps / h)
    with arb_precision(200):
        q = 1 / (1 + (-flint.arb(eps)).exp())  # P(L = eps) under P
        exact = {j * kp + (T - j) * km: flint.arb(math.comb(T, j)) * q ** j * (1 - q) ** (T - j)
                 for j in range(T + 1)}
        coeffs = [int(c) for c in vec.poly.coeffs()]
        total = Fraction(0)
        for i, c in enumerate(coeffs):
            value = Fraction(c, 1 << K)
            total += value
            k = vec.k0 + i
            if c:
                assert k in exact, k
                assert flint.arb(c) / (flint.fmpz(1) << K) <= exact[k].upper(), k
        assert total <= 1 and 1 - total < Fraction(T * 4 * len(coeffs) + 64, 1 << K)


def test_dpsgd_small_case_at_delta_1e_20() -> None:
    b, comp = epsilon_bracket([(SubsampledGaussianLoss(1.0, 0.05), 30)], "1e-20", rel_width=0.05, route="exact")
    assert 0 < b.lower < b.upper and b.relative_width <= 0.05 and comp.target_met
    assert comp.route == EXACT_ROUTE
    # both orderings are composed (the subsampled Gaussian is not symmetric)
    assert set(comp.delta_by_ordering(b.upper)) == {"remove", "add"}


def test_best_effort_returns_the_bracket_with_a_warning(monkeypatch) -> None:
    # the pairs' first grid now reaches 1e-4 here: with their aim 90 times wider the cost model
    # takes the coupling, whose first grid does not, and no refinement is allowed
    from gdpproof.accounting import aim
    monkeypatch.setattr(aim, "PAIRS_FIT_AIM", 50.0)
    parts = [(GaussianLoss(0.5), 4)]
    with pytest.warns(WidthNotReachedWarning, match=r"reached a relative width of .*asked 0.0001"):
        b, comp = epsilon_bracket(parts, 1e-6, rel_width=1e-4, max_refinements=0, route="exact")
    assert not comp.target_met and comp.rel_width_reached > 1e-4 and comp.rel_width_asked == 1e-4
    exact = _exact_eps(Fraction(1), Fraction(1e-6))
    assert Fraction(b.lower) <= exact <= Fraction(b.upper) * (1 + Fraction(1, 10**18))


def test_width_option_is_monotone_near_the_float_floor() -> None:
    # the float route alone cannot reach 1% here (its floor is near 1e-10): every width returns a
    # proven bracket, narrower asks never fail where wider ones succeed
    parts = [(GaussianLoss(0.5), 4)]
    exact = float(_exact_eps(Fraction(1), Fraction(1e-10)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", WidthNotReachedWarning)
        for w in (0.05, 0.03, 0.02, 0.001):
            b, comp = epsilon_bracket(parts, 1e-10, rel_width=w, max_refinements=1, route="float")
            assert comp.route == FLOAT_ROUTE and b.lower <= exact <= b.upper
            assert comp.target_met == (comp.rel_width_reached <= w) and comp.rel_width_asked == w


def test_float_route_refuses_only_when_no_finite_bracket_exists() -> None:
    with pytest.raises(PrecisionError, match="float"):
        epsilon_bracket([(GaussianLoss(0.5), 4)], 1e-300, route="float")
    with pytest.raises(gdpproof.InvalidParameterError, match="route='fast'"):
        epsilon_bracket([(GaussianLoss(0.5), 4)], 1e-6, route="fast")


def test_compose_losses_exact_takes_a_rational_eta_and_names_its_route() -> None:
    c = compose_losses([(GaussianLoss(0.5), 4)], grid_step=1e-2, eta="1e-50", route="exact")
    assert c.route == EXACT_ROUTE and c.delta_floor() < 1e-49
    b = c.delta(1.0)
    assert b.lower < 0.1269367375066 < b.upper
    f = compose_losses([(GaussianLoss(0.5), 4)], grid_step=1e-2)
    assert f.route == FLOAT_ROUTE and f.assumptions == FLOAT_ROUTE_ASSUMPTIONS


def test_issue_done_when_thousandfold_gaussian_at_delta_1e_50() -> None:
    # 1000-fold G_0.05 is exactly G_{sqrt(1000) 0.05}: the exact route certifies its eps (20 digits,
    # rounded up, so the truth lies in [e (1 - 1e-18), e]); the bracket route composes numerically
    mech = Repeated(GDP("0.05"), 1000)
    acc = gdpproof.account(mech, delta="1e-50", route="bracket")
    e = gdpproof.account(mech, delta="1e-50", route="exact", digits=20).epsilon.to_fraction()
    assert Fraction(acc.epsilon.lower) <= e * (1 - Fraction(1, 10**18)) and e <= Fraction(acc.epsilon.upper), acc
    assert acc.epsilon.relative_width <= 0.01
    # the tilted pairs (float FFT, its error relative to delta) reach 1% before the exact lattice
    assert acc.composition.route == FLOAT_ROUTE and acc.composition.discretization == "tilted pairs"


def test_dpsgd_at_delta_1e_30_lies_below_dp_accounting_rdp() -> None:
    # dp_accounting's PLD accountant answers inf at 1e-30 (its masses are truncated far above it);
    # its RDP accountant is an upper estimate the proven bracket must not exceed
    dpa = pytest.importorskip("dp_accounting")
    sigma, q, steps = 1.0, 0.05, 50
    acc = gdpproof.account(dpsgd(sigma, q, steps), delta=1e-30)
    rdp = dpa.rdp.RdpAccountant()
    rdp.compose(dpa.SelfComposedDpEvent(dpa.PoissonSampledDpEvent(q, dpa.GaussianDpEvent(sigma)), steps))
    assert acc.epsilon.upper <= rdp.get_epsilon(1e-30)
    assert acc.epsilon.relative_width <= 0.01 and acc.composition.discretization == "tilted pairs"
