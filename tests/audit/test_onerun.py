"""One-run audits: the (eps, delta) p-value and its root against a 60-digit independent sum, the
f-DP recursion certified in integers, the peer's published formulas, the DP-SGD family bound.

Expected values come from tests/audit/score_oracles.py (mpmath, independent of the package) or
from jax_privacy's formulas as published (restated there; the package itself where installed).
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from gdpproof import epsilon_from_delta
from gdpproof.audit import fdp_family_epsilon, fdp_mu, fdp_p_value, fdp_rejects, one_run_epsilon, one_run_p_value
from gdpproof.audit.hypotheses import gaussian_curve
from gdpproof.audit.onerun import _mmc_rejects_exact, guesses_from_scores, mmc_statistic
from gdpproof.errors import InvalidParameterError
from gdpproof.mechanisms import dpsgd

from . import score_oracles as oracle

#: (m, r, v, eps, delta): guesses all right, most right, abstentions, delta = 0 and > 0.
P_CASES = [(1000, 100, 90, "1", "0"), (1000, 100, 90, "0.5", "1e-5"), (50, 20, 20, "2", "0.001"),
           (10000, 500, 400, "0.75", "1e-6"), (300, 300, 160, "0.1", "0")]


@pytest.mark.parametrize(("m", "r", "v", "eps", "delta"), P_CASES)
def test_p_value_is_the_independent_sum_rounded_up(m, r, v, eps, delta):
    got = one_run_p_value(m, r, v, epsilon=eps, delta=delta, digits=12)
    exact = oracle.snj_p_value(m, r, v, Fraction(eps), Fraction(delta))
    ulp = Fraction(10) ** (got.adjusted() - 11)
    truth = Fraction(str(exact))   # 60 digits: far below the 12th
    assert got.rounding == "up" and got.to_fraction() - ulp < truth <= got.to_fraction()


#: (m, r, v, delta, confidence): the done-when cases; the root of the p-value at 1 - confidence.
ROOT_CASES = [(1000, 100, 90, "1e-5", "0.95"), (1000, 600, 600, "1e-5", "0.95"), (200, 50, 45, "0", "0.99"),
              (5000, 1000, 700, "1e-6", "0.9")]


@pytest.mark.parametrize(("m", "r", "v", "delta", "confidence"), ROOT_CASES)
def test_epsilon_is_the_root_rounded_down_to_its_digits(m, r, v, delta, confidence):
    # the p-value (60-digit independent sum) is at most 1 - confidence at the printed eps and
    # above it one unit up: the printed eps is the crossing rounded down to its digits
    got = one_run_epsilon(m, r, v, delta=delta, confidence=confidence, digits=6)
    level = 1 - Fraction(confidence)
    ulp = Fraction(10) ** (got.adjusted() - 5)
    lv = oracle.CTX.mpf(level.numerator) / level.denominator
    assert got.rounding == "down"
    assert oracle.snj_p_value(m, r, v, got.to_fraction(), Fraction(delta)) <= lv
    assert oracle.snj_p_value(m, r, v, got.to_fraction() + ulp, Fraction(delta)) > lv


def test_epsilon_is_at_least_the_peers_up_to_its_tolerance():
    # jax_privacy's _epsilon_one_run (brentq, xtol 1e-6): the same statistic in float64
    for m, r, v, delta, confidence in ROOT_CASES:
        ours = one_run_epsilon(m, r, v, delta=delta, confidence=confidence, digits=8)
        peer = oracle.jax_epsilon_one_run(m, r, v, 1 - float(Fraction(confidence)), float(Fraction(delta)))
        assert float(ours) >= peer - 1e-6 - 1e-7


def test_nothing_rejected_gives_zero_and_everything_right_gives_a_finite_bound():
    assert one_run_epsilon(100, 10, 5, delta="1e-5") == 0
    assert one_run_epsilon(100, 0, 0) == 0
    assert 0 < one_run_epsilon(100, 100, 100, delta="1e-5") < 10


def test_the_recursion_in_integers_rejects_exactly_where_its_float_twin_says():
    m, k, c = 1000, 100, 90
    level = Fraction(1, 20)
    mu = fdp_mu(m, k, c, confidence=1 - level, digits=6)
    assert fdp_rejects(m, k, c, claim=mu, level=level)
    up = mu.to_fraction() + Fraction(1, 10**5)
    assert not fdp_rejects(m, k, c, claim=up, level=level)
    # the statistic grows with tau and is 0 at tau = 0
    g = gaussian_curve(1).g_float
    stats = [mmc_statistic(t, m, k, c, g) for t in np.linspace(0, 1, 21)]
    assert stats[0] == 0 and all(a <= b for a, b in zip(stats, stats[1:]))


def test_the_certified_recursion_is_a_lower_bound_of_the_float_one():
    # the integers round r and h down and read f from below: their statistic never exceeds the
    # float recursion's by more than float error, at any tau
    curve = gaussian_curve("0.8")
    for j in (1, 3, 10, 40):
        tau = Fraction(j, 100)
        jj = (tau.numerator << 200) // (tau.denominator * 500)
        exact_rejects = _mmc_rejects_exact(jj, 500, 60, 50, curve)
        assert exact_rejects == (mmc_statistic(float(tau), 500, 60, 50, curve.g_float) > 60 / 500)


def test_fdp_mu_gives_the_peers_gaussian_epsilon():
    # jax_privacy's epsilon_one_run_fdp hypothesises G_mu(eps, delta); our largest rejected mu,
    # read at delta, is the same statement: equal up to the peer's xtol and our rounding down
    for m, k, c in ((1000, 100, 90), (1000, 291, 212), (500, 40, 40)):
        mu = fdp_mu(m, k, c, confidence="0.95", digits=10)
        ours = float(epsilon_from_delta(mu, "1e-5", digits=10))
        peer = oracle.jax_epsilon_one_run_fdp(m, k, c, 0.05, 1e-5, _mu_of)
        assert ours >= peer - 1e-6 - 1e-8
        assert ours <= peer + 1e-5


def test_fdp_p_value_is_certified_and_monotone_in_the_claim():
    p_strong = fdp_p_value(1000, 100, 90, claim="0.5")
    p_weak = fdp_p_value(1000, 100, 90, claim="1")
    assert p_strong.rounding == "up" and p_strong < p_weak <= 1
    assert fdp_rejects(1000, 100, 90, claim="0.5", level=p_strong.to_fraction())


def _mu_of(eps: float, delta: float) -> float:
    """The Gaussian fitted to (eps, delta), as the peer fits it (its sigma = 1/mu)."""
    from gdpproof import mu_from_epsilon_delta

    return float(mu_from_epsilon_delta(eps, delta, digits=17)) if eps > 0 else 0.0


def test_on_the_simulators_run_the_claimed_curve_beats_the_peers_gaussian_curve():
    # the done-when: the simulator's DP-SGD run with 1,000 canaries (sigma 1, p 0.1, T 50, seed 3),
    # the guesses "top 100 in" (fixed in advance), level 0.05.  gdpproof tests the claimed DP-SGD's
    # own curves; jax_privacy's epsilon_one_run_fdp the Gaussian fitted to (eps, delta), here by
    # its published formula (float, xtol 1e-6).  Measured: 2.367 against 2.200.
    from gdpproof.audit import audit_scores
    from gdpproof.simulation.canaries import simulate_canaries

    claim = dpsgd(1, "0.1", 50)
    run = simulate_canaries(canaries=1000, noise_multiplier=1.0, sample_rate=0.1, steps=50, seed=3)
    report = audit_scores(run.held_in, run.held_out, delta="1e-5", claim=claim, method="fdp", methods=("fdp",),
                          guesses=[(100, 0)], summaries=False)
    (g,) = report.one_run.rules
    fam = report.one_run.family
    peer = oracle.jax_epsilon_one_run_fdp(1000, 100, g.correct, 0.05, 1e-5, _mu_of)
    assert (g.guesses, g.correct) == (100, 88) and fam.sigma.rounding == "up" and fam.epsilon.rounding == "down"
    assert float(fam.epsilon) >= peer + 0.1
    try:  # and the installed peer itself, on the same scores and the same guesses, where it imports
        from jax_privacy import auditing
    except ImportError:
        return
    threshold = float(np.sort(run.scores)[::-1][99])
    auditor = auditing.CanaryScoreAuditor(run.held_in, run.held_out)
    theirs = auditor.epsilon_one_run_fdp(0.05, 1e-5, threshold_strategy=auditing.Explicit(threshold))
    assert abs(theirs - peer) < 1e-6 and float(fam.epsilon) >= theirs


def test_guesses_ignore_the_labels_when_scores_tie():
    inside, outside = np.zeros(50), np.zeros(50)   # every score tied: the guesses are a seeded shuffle
    (g,) = guesses_from_scores(inside, outside, [(20, 10)], seed=3)
    assert (g.canaries, g.guesses) == (100, 30) and 0 < g.correct < 30
    (g2,) = guesses_from_scores(inside, outside, [(20, 10)], seed=3)
    assert g2 == g
    (top,) = guesses_from_scores(np.arange(10.0) + 100, np.arange(10.0), [(10, 10)])
    assert top.correct == 20


@pytest.mark.parametrize(("call", "match"), [
    (lambda: one_run_p_value(10, 11, 1, epsilon=1), "guesses=11 must be at most canaries=10"),
    (lambda: one_run_p_value(10, 5, 6, epsilon=1), "correct=6 must be at most guesses=5"),
    (lambda: one_run_p_value(0, 0, 0, epsilon=1), r"canaries=0 must be an integer in \[1, 2\^53\]"),
    (lambda: one_run_p_value(10, 5, 5, epsilon=-1), "epsilon=-1 must be in"),
    (lambda: one_run_p_value(10, 5, 5, epsilon="nan"), "epsilon='nan'"),
    (lambda: one_run_epsilon(10, 5, 5, delta="1.5"), "delta='1.5' must be in"),
    (lambda: one_run_epsilon(10, 5, 5, confidence=1), "confidence=1 must be in"),
    (lambda: one_run_epsilon(10, 5, 5, digits=0), "digits=0 must be an integer from 1 to 30"),
    (lambda: fdp_mu(10, 5, True), "correct=True must be an integer"),
    (lambda: fdp_family_epsilon([(10, 5, 5)], 1, delta="1e-5", level="0.05"), "must be a DP-SGD"),
    (lambda: guesses_from_scores([1.0], [0.0], [(2, 1)]), "must make at most 2 guesses"),
])
def test_bad_arguments_are_named(call, match):
    with pytest.raises(InvalidParameterError, match=match):
        call()
