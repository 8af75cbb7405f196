"""The dp_accounting adapter: the event mapping, the accountant's answers against gdpproof.account
and against dp_accounting's own RDP and PLD accountants, and refusals.

Against RDP: Renyi DP converted to (eps, delta) is a valid upper bound on epsilon, so the proven
lower end of ours must lie at or below it (a theorem: the test fails if either side is wrong), and
on these DP-SGD configurations the proven upper end lies below it too (RDP's conversion is loose
by 5-40% there; a failure would mean our bracket is far too wide).
Against PLD: dp_accounting's PLD accountant reports a discretized, truncated estimate (its
pessimistic estimate at interval 1e-4), which is neither a proven upper nor a proven lower
bound; it should land in our bracket up to its discretization, so it is compared with 1% slack.
"""

from __future__ import annotations

import math
from fractions import Fraction

import pytest
import sympy

dpa = pytest.importorskip("dp_accounting")

from gdpproof import account  # noqa: E402
from gdpproof.errors import InvalidParameterError, NotSupportedError  # noqa: E402
from gdpproof.integrations._common import proven_upper  # noqa: E402
from gdpproof.integrations.dp_accounting import GdpproofAccountant, mechanism_from_event  # noqa: E402
from gdpproof.mechanisms import (  # noqa: E402
    GDP,
    Composed,
    DiscreteLaplaceMechanism,
    EpsDelta,
    GaussianMechanism,
    LaplaceMechanism,
    PoissonSampled,
    Repeated,
    dpsgd,
)

REL = dpa.NeighboringRelation
G, L, P, S, C = dpa.GaussianDpEvent, dpa.LaplaceDpEvent, dpa.PoissonSampledDpEvent, dpa.SelfComposedDpEvent, \
    dpa.ComposedDpEvent


@pytest.mark.parametrize("event, expected", [
    (G(2.0), GaussianMechanism(2.0)),
    (L(0.5), LaplaceMechanism(0.5)),
    (P(0.01, G(1.0)), PoissonSampled(GaussianMechanism(1.0), 0.01)),
    (S(P(0.01, G(1.0)), 1000), dpsgd(1.0, 0.01, 1000)),
    (C([S(G(3.0), 5), L(10.0)]), Composed(Repeated(GaussianMechanism(3.0), 5), LaplaceMechanism(10.0))),
    # Gaussian events on one batch compose exactly: mu = sqrt(4 (1/2)^2) = 1
    (P(0.5, S(G(2.0), 4)), PoissonSampled(GDP(1), 0.5)),
    (P(0.5, C([G(2.0), G(2.0)])), PoissonSampled(GDP(sympy.sqrt(2) / 2), 0.5)),
    (P(1.0, G(2.0)), GaussianMechanism(2.0)),
    (dpa.NonPrivateDpEvent(), EpsDelta(0, 1)),
    (G(0.0), EpsDelta(0, 1)),
    (P(0.25, dpa.NonPrivateDpEvent()), EpsDelta(0, 0.25)),
    (C([dpa.NoOpDpEvent(), G(2.0)]), GaussianMechanism(2.0)),
    (dpa.dp_event.DiscreteLaplaceDpEvent(0.5, 2), DiscreteLaplaceMechanism(2, 2)),
    (dpa.dp_event.DiscreteLaplaceDpEvent(0.0, 1), EpsDelta(0, 1)),
])
def test_mechanism_from_event(event, expected):
    assert mechanism_from_event(event) == expected


@pytest.mark.parametrize("event", [dpa.NoOpDpEvent(), S(G(1.0), 0), P(0.0, G(1.0)), G(math.inf), C([]),
                                   C([dpa.NoOpDpEvent()])])
def test_events_without_privacy_loss_map_to_nothing(event):
    assert mechanism_from_event(event) is None


def test_replace_one_doubles_the_sensitivity_of_unsampled_events():
    rel = REL.REPLACE_ONE
    assert mechanism_from_event(G(2.0), neighboring_relation=rel) == GaussianMechanism(2.0, sensitivity=2)
    assert mechanism_from_event(L(2.0), neighboring_relation=rel) == LaplaceMechanism(2.0, sensitivity=2)
    acc = GdpproofAccountant(REL.REPLACE_ONE).compose(G(2.0), 3)
    assert acc.get_epsilon(1e-5) == proven_upper(account(Repeated(GaussianMechanism(1.0), 3), delta=1e-5))


def test_sampled_events_keep_the_relation():
    from gdpproof.mechanisms import PoissonSampled, SampledWithoutReplacement

    wor = dpa.SampledWithoutReplacementDpEvent(60000, 600, G(1.0))
    assert mechanism_from_event(wor, neighboring_relation=REL.REPLACE_ONE) == SampledWithoutReplacement(
        GaussianMechanism(1.0, sensitivity=2), 600, 60000, "replace-one")
    # a fixed-size batch has no free slot: under add/remove the sum moves by up to 2C as well
    assert mechanism_from_event(wor) == SampledWithoutReplacement(GaussianMechanism(1.0, sensitivity=2), 600, 60000,
                                                                  "add-remove")
    assert mechanism_from_event(P(0.1, G(1.0)), neighboring_relation=REL.REPLACE_ONE) == PoissonSampled(
        GaussianMechanism(1.0, sensitivity=2), 0.1, "replace-one")
    assert mechanism_from_event(dpa.SampledWithoutReplacementDpEvent(100, 0, G(1.0))) is None


def test_training_loop_with_fixed_batches_gives_accounts_upper_end():
    """Fixed-size batches under add/remove: the same upper end as account() of the same run."""
    from gdpproof import dpsgd

    step = dpa.SampledWithoutReplacementDpEvent(10000, 100, G(1.0))
    acc = GdpproofAccountant()
    for _ in range(3):
        acc = acc.compose(step, 100)
    run = dpsgd(1.0, batch_size=100, dataset_size=10000, steps=300, sampling="fixed-batch", neighbours="add-remove")
    assert acc.as_mechanism() == run
    assert acc.get_epsilon(1e-5) == proven_upper(account(run, delta=1e-5))


@pytest.mark.parametrize("relation, event, words", [
    (REL.ADD_OR_REMOVE_ONE, dpa.RandomizedResponseDpEvent(0.5, 3), "RandomizedResponseDpEvent"),
    (REL.ADD_OR_REMOVE_ONE, dpa.ZCDpEvent(0.1), "ZCDpEvent"),
    (REL.ADD_OR_REMOVE_ONE, P(0.1, L(1.0)), "Gaussian"),
    (REL.ADD_OR_REMOVE_ONE, dpa.SampledWithoutReplacementDpEvent(1000, 10, L(1.0)), "Gaussian mechanisms only"),
])
def test_unsupported_events_are_refused_in_both_conventions(relation, event, words):
    with pytest.raises(NotSupportedError, match=words):
        mechanism_from_event(C([G(1.0), event]), neighboring_relation=relation)
    acc = GdpproofAccountant(relation).compose(G(1.0))
    assert not acc.supports(event) and not acc.supports(C([G(1.0), event]))
    with pytest.raises(dpa.UnsupportedEventError, match=words) as info:
        acc.compose(C([G(2.0), event]))
    assert isinstance(info.value, NotSupportedError)
    # nothing of a refused event is composed
    assert acc.as_mechanism() == mechanism_from_event(G(1.0), neighboring_relation=relation)
    assert acc.ledger == G(1.0)


def test_bad_arguments_name_the_argument():
    with pytest.raises(InvalidParameterError, match="noise_multiplier=-1.0 must be"):
        mechanism_from_event(G(-1.0))
    with pytest.raises(InvalidParameterError, match="sampling_probability=1.5 must be"):
        mechanism_from_event(P(1.5, G(1.0)))
    with pytest.raises(InvalidParameterError, match="neighboring_relation"):
        GdpproofAccountant(REL.REPLACE_SPECIAL)
    with pytest.raises(InvalidParameterError, match="rel_width"):
        GdpproofAccountant(rel_width=0)
    with pytest.raises(InvalidParameterError, match="delta"):
        GdpproofAccountant().compose(G(1.0)).get_epsilon(0.0)
    with pytest.raises(InvalidParameterError, match="event='gaussian' must be a dp_accounting DpEvent"):
        mechanism_from_event("gaussian")  # type: ignore[arg-type]


def test_pieces_composed_one_by_one_equal_account_of_the_whole_run():
    acc = GdpproofAccountant()
    acc.compose(P(0.02, G(1.2)), 150).compose(S(G(3.0), 5)).compose(L(10.0)).compose(dpa.NoOpDpEvent())
    acc.compose(P(0.02, G(1.2)), 50)
    run = Composed(Repeated(PoissonSampled(GaussianMechanism(1.2), 0.02), 150), Repeated(GaussianMechanism(3.0), 5),
                   LaplaceMechanism(10.0), Repeated(PoissonSampled(GaussianMechanism(1.2), 0.02), 50))
    assert acc.as_mechanism() == run
    a = account(run, delta=1e-5)
    assert acc.get_epsilon(1e-5) == proven_upper(a)
    assert acc.get_epsilon_bracket(1e-5).epsilon == a.epsilon
    # the bracket's own upper end (a double rounded up when computed), at or below its 6-digit decimal
    eps = acc.get_epsilon(1e-5)
    assert float(a.eps_lower) <= eps == a.epsilon.upper and Fraction(eps) <= a.eps_upper.to_fraction()


def test_dpsgd_against_dp_accountings_rdp_and_pld():
    sigma, q, steps = 2.0, 0.1, 100
    event = S(P(q, G(sigma)), steps)
    ours = GdpproofAccountant().compose(event)
    eps = ours.get_epsilon(1e-5)
    b = ours.get_epsilon_bracket(1e-5)
    assert eps == proven_upper(account(dpsgd(sigma, q, steps), delta=1e-5))
    rdp = dpa.rdp.RdpAccountant().compose(event).get_epsilon(1e-5)
    assert float(b.eps_lower) <= rdp  # RDP is an upper bound: a theorem
    assert eps <= rdp
    pld = dpa.pld.PLDAccountant().compose(event).get_epsilon(1e-5)
    assert 0.99 * float(b.eps_lower) <= pld <= 1.01 * eps


def test_discrete_laplace_event_exact_against_pld():
    """The discrete Laplace event is a finite pair: gdpproof's delta is exact (certified), and
    dp_accounting's PLD (pessimistic discretization) lies above it, within 1e-6 relative."""
    event = S(dpa.dp_event.DiscreteLaplaceDpEvent(0.5, 2), 3)
    b = GdpproofAccountant().compose(event).get_delta_bracket(1.0)
    assert b.route == "exact-finite"
    assert mechanism_from_event(event, neighboring_relation=REL.REPLACE_ONE) == \
        Repeated(DiscreteLaplaceMechanism(2, 4), 3)
    pld = dpa.pld.PLDAccountant().compose(event).get_delta(1.0)
    exact = float(b.delta)
    assert exact * (1 - 1e-12) <= pld <= exact * (1 + 1e-6)


def test_composed_event_against_rdp_and_pld():
    event = C([S(G(3.0), 5), L(10.0), S(P(0.02, G(1.2)), 100)])
    ours = GdpproofAccountant().compose(event)
    eps, b = ours.get_epsilon(1e-5), ours.get_epsilon_bracket(1e-5)
    assert b.route == "bracket" and float(b.eps_lower) < eps
    assert eps <= dpa.rdp.RdpAccountant().compose(event).get_epsilon(1e-5)
    pld = dpa.pld.PLDAccountant().compose(event).get_epsilon(1e-5)
    assert 0.99 * float(b.eps_lower) <= pld <= 1.01 * eps


def test_get_delta_is_the_proven_upper_end():
    event = C([S(G(3.0), 10), S(L(10.0), 5)])
    ours = GdpproofAccountant().compose(event)
    delta = ours.get_delta(2.0)
    a = account(Composed(Repeated(GaussianMechanism(3.0), 10), Repeated(LaplaceMechanism(10.0), 5)), epsilon=2.0)
    assert delta == proven_upper(a) and float(a.delta_lower) <= delta
    pld = dpa.pld.PLDAccountant().compose(event).get_delta(2.0)
    assert 0.99 * float(a.delta_lower) <= pld <= 1.01 * delta
    # Gaussian events alone: the exact route, certified digits
    exact = GdpproofAccountant().compose(G(2.0), 4)
    assert exact.get_delta_bracket(1.0).route == "exact"
    assert exact.get_delta(1.0) == proven_upper(account(GDP(1), epsilon=1))


def test_nothing_and_non_private_runs():
    empty = GdpproofAccountant()
    assert empty.get_epsilon(1e-5) == 0.0 and empty.get_delta(1.0) == 0.0
    leak = GdpproofAccountant().compose(G(1.0)).compose(dpa.NonPrivateDpEvent())
    assert leak.get_epsilon(1e-5) == math.inf and leak.get_delta(5.0) == 1.0
    # a non-private event on a Poisson batch of rate q reveals the record with probability q
    sampled = GdpproofAccountant().compose(P(0.01, dpa.NonPrivateDpEvent()))
    assert sampled.get_epsilon(0.02) == 0.0 and sampled.get_epsilon(0.005) == math.inf


def test_answers_follow_the_ledger():
    acc = GdpproofAccountant().compose(G(2.0))
    first = acc.get_epsilon(1e-5)
    acc.compose(G(2.0), 3)
    assert acc.get_epsilon(1e-5) > first
    assert acc.get_epsilon(1e-5) == proven_upper(account(GDP(1), delta=1e-5))
    assert acc.ledger == S(G(2.0), 4)  # dp_accounting's ledger merges equal events
    assert acc.as_mechanism() == Repeated(GaussianMechanism(2.0), 4)  # and so does the run
