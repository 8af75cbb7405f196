"""The largest privacy loss caps the bracket route: eps(delta) <= L_max and delta(eps) = 0 at eps >= L_max.

L_max is each ordering's sum over the parts of runs x the largest loss (docs/proofs/losses.md).
Each cap is checked against the truth from a second source: a closed form of three Laplace
losses (below), the exact route of randomized response, and the engine's own proven lower bound
on delta in the other, unbounded ordering of a subsampled Gaussian.
"""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import pytest

from gdpproof import account
from gdpproof.accounting.compose import compose_losses
from gdpproof.accounting.composed import largest_losses
from gdpproof.accounting.losses import GaussianLoss, LaplaceLoss, RandomizedResponseLoss, SubsampledGaussianLoss
from gdpproof.mechanisms import Composed, GaussianMechanism, LaplaceMechanism, RandomizedResponse, Repeated

LAPLACE3 = Repeated(LaplaceMechanism(scale=1), 3)


def _laplace3_delta(eps: str) -> mpmath.mpf:
    """delta(eps) of three Laplace losses with mu = 1, for 2 <= eps <= 3, independently of the engine.

    Under P = Lap(0, 1) each loss is 1 with probability 1/2 and has density e^{-u/2}/4 at 1 - u
    for u in (0, 2).  With c = 3 - eps <= 1, S > eps needs U = sum u_i < c; with m of the losses
    off the atom, U has density w^{m-1}/(m-1)! e^{-w/2}/4^m on (0, c), and
    delta = E[(1 - e^{U - c})_+]."""
    with mpmath.workdps(30):
        c = 3 - mpmath.mpf(eps)
        total = (1 - mpmath.exp(-c)) / 8
        for m in (1, 2, 3):
            def f(w, m=m):
                return w ** (m - 1) / mpmath.factorial(m - 1) * mpmath.exp(-w / 2) / 4**m * (1 - mpmath.exp(w - c))
            total += mpmath.binomial(3, m) / mpmath.mpf(2) ** (3 - m) * mpmath.quad(f, [0, c])
        return total


def test_the_caps_are_each_orderings_sum_of_largest_losses() -> None:
    assert largest_losses([(LaplaceLoss(1.0), 3)]) == (3.0, 3.0)  # an end that is a double: not widened
    assert largest_losses([(LaplaceLoss(1.0), 3), (GaussianLoss(1.0), 1)]) == (math.inf, math.inf)
    rr = largest_losses([(LaplaceLoss(0.1), 3), (RandomizedResponseLoss(0.5), 2)])
    exact = 3 * Fraction(0.1) + 1
    assert rr[0] == rr[1] and Fraction(rr[0]) >= exact and Fraction(math.nextafter(rr[0], 0)) < exact
    # asymmetric: L = log(1 - p + p e^...) > log(1 - p) is unbounded above (remove, P||Q), and
    # -L < -log(1 - p) under Q||P (add): the add ordering alone has a cap, rounded up
    remove, add = largest_losses([(SubsampledGaussianLoss(1.0, 0.5), 3)])
    assert remove == math.inf and 3 * math.log(2) <= add <= 3 * math.log(2) * (1 + 1e-14)


def test_laplace_three_times_is_capped_at_three() -> None:
    a = account(LAPLACE3, delta="1e-5")
    assert a.route == "bracket" and a.eps_upper.to_fraction() == 3 and Fraction(a.epsilon.upper) == 3
    assert any("the upper end is the largest privacy loss, L_max <= 3.00000" in n for n in a.notes)
    # the truth (2.99992..., dp_accounting's PLD gives 2.99992) is above the lower end: delta there exceeds 1e-5
    assert _laplace3_delta(repr(a.epsilon.lower)) > mpmath.mpf("1e-5")
    assert a.composition is not None and a.composition.target_met


@pytest.mark.parametrize("eps", ["3.0001", "3.2", "3"])
def test_delta_is_zero_at_or_beyond_the_largest_loss(eps: str) -> None:
    a = account(LAPLACE3, epsilon=eps)
    assert a.route == "bracket" and a.delta.lower == a.delta.upper == 0
    assert a.delta_lower.to_fraction() == a.delta_upper.to_fraction() == 0
    assert any(n.startswith(f"delta = 0: eps = {eps} is at least the largest privacy loss, L_max <= 3.00000")
               for n in a.notes)
    assert "lies in [0, 0]" in a.statement() and a.to_dict()["delta_upper"] == "0"
    # the statement names the proof that gave it: nothing was composed
    assert "ε is at least the largest privacy loss" in a.statement() and "composition of" not in a.statement()


def test_below_the_largest_loss_delta_is_bracketed_as_before() -> None:
    a = account(LAPLACE3, epsilon="2.9")
    truth = Fraction(str(_laplace3_delta("2.9")))  # 0.0128022...
    assert 0 < a.delta.lower and Fraction(a.delta.lower) * (1 - Fraction(1, 10**20)) <= truth
    assert truth * (1 - Fraction(1, 10**20)) <= Fraction(a.delta.upper)
    assert not any("largest privacy loss" in n for n in a.notes)


def test_randomized_response_on_the_bracket_route_against_the_exact_route() -> None:
    m = Repeated(RandomizedResponse(1), 5)
    exact = account(m, delta="1e-5")
    assert exact.route == "exact"
    b = account(m, delta="1e-5", route="bracket")
    # eps(1e-5) = 5 + log(1 - 1e-5 / P(all five report the truth)) is just below 5
    assert Fraction(b.epsilon.upper) == 5 and b.epsilon.lower <= exact.epsilon.to_fraction() <= 5
    assert account(m, epsilon=5, route="bracket").delta.upper == 0 == account(m, epsilon=5).delta.to_fraction()


def test_a_gaussian_part_leaves_the_bracket_uncapped() -> None:
    m = Composed(Repeated(GaussianMechanism(sigma=1), 2), LaplaceMechanism(scale=1))
    a = account(m, epsilon=3)  # the Laplace part's largest loss is 1; the Gaussian's is unbounded
    assert a.delta.lower > 0 and not any("largest privacy loss" in n for n in a.notes)
    b = account(m, delta="1e-5")
    assert b.epsilon.lower > 1 and not any("largest privacy loss" in n for n in b.notes)
    assert compose_losses([(GaussianLoss(1.0), 2), (LaplaceLoss(1.0), 1)], grid_step=1e-2).loss_caps() is None


def test_the_add_orderings_cap_is_its_own() -> None:
    # no bounded asymmetric loss reaches the bracket route, so the caps apply only where both
    # orderings are bounded; the add ordering's bound is checked against the engine itself:
    # delta_add is 0 beyond it, while the remove ordering's proven lower bound there is not
    comp = compose_losses([(SubsampledGaussianLoss(1.0, 0.5), 3)], grid_step=2e-3)
    assert comp.loss_caps() is None
    _, add = largest_losses(comp.parts)
    per = comp.delta_by_ordering(add)
    assert per["add"].lower == 0 and per["remove"].lower > 0.02  # 0.0253...


def test_a_lower_bound_beyond_the_cap_is_a_bug_and_raises() -> None:
    comp = compose_losses([(LaplaceLoss(1.0), 3)], grid_step=1e-2)
    assert comp.loss_caps() == (3.0, 3.0) and comp.delta(3.0).upper == 0
    comp.__dict__["_caps"] = (1.0, 1.0)  # a wrong cap: delta(2) is about 0.1
    with pytest.raises(RuntimeError, match="a bug"):
        comp.delta(2.0)
    with pytest.raises(RuntimeError, match="a bug"):
        comp.epsilon(1e-5)
