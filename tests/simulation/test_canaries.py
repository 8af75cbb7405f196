"""The white-box DP-SGD canary simulator: seeded, its laws those of DP-SGD's dominating pair, and
each bug switch moving the scores the way the bug does.

Statistical assertions state their false-failure probability (each at most 1e-6).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import binom

from gdpproof.errors import InvalidParameterError
from gdpproof.simulation.canaries import BUGS, simulate_canaries


def test_a_run_is_a_function_of_its_seed():
    a = simulate_canaries(canaries=300, noise_multiplier=1.0, sample_rate=0.2, steps=20, seed=7)
    b = simulate_canaries(canaries=300, noise_multiplier=1.0, sample_rate=0.2, steps=20, seed=7)
    c = simulate_canaries(canaries=300, noise_multiplier=1.0, sample_rate=0.2, steps=20, seed=8)
    assert np.array_equal(a.scores, b.scores) and np.array_equal(a.included, b.included)
    assert not np.array_equal(a.scores, c.scores)


def test_inclusion_is_a_fair_coin_and_the_sum_score_has_the_dpsgd_laws():
    m, sigma, p, steps = 20_000, 2.0, 0.25, 16
    run = simulate_canaries(canaries=m, noise_multiplier=sigma, sample_rate=p, steps=steps, seed=11, score="sum")
    # the count of included canaries is Binomial(m, 1/2): outside its central 1 - 1e-7 interval w.p. 1e-7
    lo, hi = binom.ppf(5e-8, m, 0.5), binom.isf(5e-8, m, 0.5)
    assert lo <= run.included.sum() <= hi
    # held out: a sum of T draws of N(0, sigma^2), so N(0, T sigma^2); held in: plus Bin(T, p).
    # The standardized means are N(0, 1) (held in: mean T p, variance T sigma^2 + T p (1 - p));
    # |z| > 5.8 has probability below 1e-8 each
    out, inn = run.held_out, run.held_in
    z_out = out.mean() / math.sqrt(steps * sigma**2 / len(out))
    z_in = (inn.mean() - steps * p) / math.sqrt((steps * sigma**2 + steps * p * (1 - p)) / len(inn))
    assert abs(z_out) < 5.8 and abs(z_in) < 5.8
    # the held-out variance: the sample variance of n normal draws has sd about var sqrt(2/n)
    assert abs(out.var() / (steps * sigma**2) - 1) < 5.8 * math.sqrt(2 / len(out))


def test_the_likelihood_ratio_score_is_the_poisson_canarys_statistic():
    # one step, p = 1: the score is (2y - 1)/(2 sigma^2), the Gaussian log-likelihood ratio
    run = simulate_canaries(canaries=50, noise_multiplier=0.5, sample_rate=1.0, steps=1, seed=3)
    y = simulate_canaries(canaries=50, noise_multiplier=0.5, sample_rate=1.0, steps=1, seed=3, score="sum").scores
    assert np.allclose(run.scores, (2 * y - 1) / (2 * 0.25), rtol=0, atol=1e-12)


def _separation(bug, **kw):
    run = simulate_canaries(canaries=4000, noise_multiplier=1.0, sample_rate=0.1, steps=30, seed=5, bug=bug, **kw)
    return (run.held_in.mean() - run.held_out.mean()) / run.scores.std()


def test_every_bug_makes_the_canaries_easier_to_tell_apart():
    # deterministic (one seed): each bug separates held-in from held-out scores more than the
    # correct run does; the audits that refute the claim are tested in tests/cli
    base = _separation(None)
    for bug in BUGS:
        assert _separation(bug) > base + 0.2, bug


def test_fixed_size_batches_hold_b_records():
    run = simulate_canaries(canaries=200, noise_multiplier=1.0, sample_rate=0.5, steps=40, seed=1,
                            sampling="fixed-batch", dataset_size=400, score="sum")
    assert run.dataset_size == 400 and run.held_in.mean() > run.held_out.mean()


@pytest.mark.parametrize(("kwargs", "match"), [
    (dict(canaries=1), "canaries=1 must be an integer in"),
    (dict(noise_multiplier=0), "noise_multiplier=0 must be a finite number > 0"),
    (dict(sample_rate=1.5), "sample_rate=1.5 must be a finite number > 0 at most 1"),
    (dict(steps=0), "steps=0 must be an integer"),
    (dict(bug="typo"), "bug='typo' must be one of"),
    (dict(bug_factor=2), "bug_factor=2 needs a bug"),
    (dict(score="loss"), "score='loss' must be one of"),
    (dict(sampling="fixed-batch"), "^dataset_size is required"),
    (dict(dataset_size=100), "dataset_size=100 goes with sampling='fixed-batch' only"),
    (dict(seed=-1), "seed=-1 must be an integer"),
])
def test_bad_arguments_are_named(kwargs, match):
    args = dict(canaries=10, noise_multiplier=1.0, sample_rate=0.5, steps=2, seed=0) | kwargs
    with pytest.raises(InvalidParameterError, match=match):
        simulate_canaries(**args)


