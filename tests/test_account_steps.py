"""Issue 32, item 1: accounts over a range of steps (account_steps, built incrementally), and
compose_prefixes against compose_losses on the same grid."""

from __future__ import annotations

import pytest

from gdpproof import account, account_steps
from gdpproof.accounting.compose import compose_losses, compose_prefixes
from gdpproof.accounting.losses import GaussianLoss, SubsampledGaussianLoss
from gdpproof.errors import InvalidParameterError
from gdpproof.mechanisms import GDP, dpsgd


@pytest.mark.parametrize("discretization", ["coupling", "pairs"])
def test_prefixes_are_the_compositions_on_the_same_grid(discretization):
    like = compose_losses([(SubsampledGaussianLoss(1.0, 0.05), 60)], grid_step=2e-3, eta=1e-10,
                          discretization=discretization)
    prefixes = list(compose_prefixes(like, [10, 25, 60]))
    assert [c.steps for c in prefixes] == [10, 25, 60]
    for c, n in zip(prefixes, [10, 25, 60]):
        alone = compose_losses([(SubsampledGaussianLoss(1.0, 0.05), n)], grid_step=2e-3, eta=1e-10,
                               discretization=discretization)
        a, b = c.epsilon(1e-5), alone.epsilon(1e-5)
        # both proven: they overlap, and the incremental one is as narrow, to a few percent
        assert a.lower <= b.upper and b.lower <= a.upper
        assert a.width <= 1.05 * b.width + 1e-12


def test_prefixes_refuse_what_they_cannot_extend():
    like = compose_losses([(GaussianLoss(0.1), 20)], grid_step=1e-3, eta=1e-10)
    with pytest.raises(InvalidParameterError, match="counts"):
        list(compose_prefixes(like, [10, 5]))
    with pytest.raises(InvalidParameterError, match="counts"):
        list(compose_prefixes(like, [10, 30]))


def test_account_steps_matches_one_account_at_a_time():
    accounts = account_steps(dpsgd(1.0, "0.02", 1), [50, 100, 200], delta="1e-5")
    assert [a.mechanism.dpsgd_parameters()[2] for a in accounts] == [50, 100, 200]
    alone = account(dpsgd(1.0, "0.02", 100), delta="1e-5")
    mid = accounts[1]
    assert mid.route == "bracket" and mid.epsilon.relative_width <= 0.01 and mid.composition.target_met
    assert mid.epsilon.lower <= alone.epsilon.upper and alone.epsilon.lower <= mid.epsilon.upper
    assert mid.clt is not None and mid.statement().startswith("The mechanism Repeated(")
    uppers = [float(a.epsilon) for a in accounts]
    assert uppers == sorted(uppers)


def test_account_steps_elsewhere_accounts_each_point():
    accounts = account_steps(GDP("0.5"), [1, 4], delta="1e-5", digits=10)
    assert [a.route for a in accounts] == ["exact", "exact"]
    assert str(accounts[1].mu) == "1.000000000"


@pytest.mark.parametrize("steps", [[], [3, 2], [0, 1], [1.5], "abc", [True, 2]])
def test_account_steps_refuses_bad_steps(steps):
    with pytest.raises(InvalidParameterError, match="steps"):
        account_steps(GDP(1), steps, delta="1e-5")


def test_account_steps_with_epsilon_shares_the_grid():
    # delta at eps = 2 against the steps: the points the last count's grid resolves are its prefixes
    # (the same grid step), each bracket overlapping the point's own account
    accounts = account_steps(dpsgd(1.0, "0.02", 1), [50, 100, 200], epsilon="2")
    last = accounts[-1].composition
    assert [a.given for a in accounts] == ["epsilon"] * 3 and all(a.route == "bracket" for a in accounts)
    assert all(a.composition.h == last.h for a in accounts)
    alone, mid = account(dpsgd(1.0, "0.02", 100), epsilon="2"), accounts[1]
    assert mid.delta.lower <= alone.delta.upper and alone.delta.lower <= mid.delta.upper
    for a in accounts:
        assert a.delta.width <= 0.01 * a.delta.upper and a.clt is not None and a.clt.delta is not None
    assert [float(a.delta) for a in accounts] == sorted(float(a.delta) for a in accounts)
