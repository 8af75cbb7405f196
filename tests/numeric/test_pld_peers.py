"""The FFT accountants people run land inside gdpproof's proven bracket (the `peers` extra).

Their own error analyses are not re-checked here; the point is that a proven bracket contains
their estimates for the performance configuration and a 60-epoch MNIST configuration.
Each test is skipped, with the reason, when its library is not installed.
"""

from __future__ import annotations

import pytest

from gdpproof import dpsgd_epsilon

CONFIGS = [(1.0, 0.01, 1000), (1.1, 256 / 60000, 14063)]
DELTA = 1e-5


@pytest.fixture(scope="module")
def brackets():
    return {c: dpsgd_epsilon(*c, DELTA).eps for c in CONFIGS}


@pytest.mark.parametrize("config", CONFIGS)
def test_prv_accountant_estimate_is_inside(config, brackets):
    prv = pytest.importorskip("prv_accountant", reason="the peers extra (prv-accountant) is not installed")
    sigma, p, steps = config
    acc = prv.PRVAccountant(prvs=prv.PoissonSubsampledGaussianMechanism(noise_multiplier=sigma, sampling_probability=p),
                            max_self_compositions=steps, eps_error=0.01, delta_error=1e-10)
    low, estimate, high = acc.compute_epsilon(delta=DELTA, num_self_compositions=steps)
    assert estimate in brackets[config]
    # its own (lower, upper) overlaps ours: both claim to contain the truth
    assert low <= brackets[config].upper and brackets[config].lower <= high


@pytest.mark.parametrize("config", CONFIGS)
def test_dp_accounting_pld_is_inside(config, brackets):
    pld = pytest.importorskip("dp_accounting.pld.privacy_loss_distribution",
                              reason="the peers extra (dp-accounting) is not installed")
    sigma, p, steps = config
    eps = (pld.from_gaussian_mechanism(sigma, sampling_prob=p, value_discretization_interval=1e-4)
           .self_compose(steps).get_epsilon_for_delta(DELTA))
    assert eps in brackets[config]
