"""The theoretical curve a simulation is checked against (gdpproof.audit.theory)."""

from __future__ import annotations

import numpy as np
import pytest

import gdpproof
from gdpproof.audit.theory import dpsgd_grid_step, gdp_claim, theory_of
from gdpproof.errors import InvalidParameterError
from gdpproof.simulation import GaussianMechanism, LaplaceMechanism, RandomizedResponse, UserMechanism

ALPHAS = np.linspace(0, 1, 11)


def test_gaussian_mechanism_is_g_sqrt_t_sensitivity_over_sigma():
    t = theory_of(GaussianMechanism(2.0, 4.0, dim=3, steps=4))  # mu = 2 * 2 / 4 = 1
    assert t.exact and "= 1 (exact)" in t.label
    np.testing.assert_allclose(t.lower(ALPHAS), gdpproof.gaussian(1).evaluate_fast(ALPHAS), rtol=1e-14)
    np.testing.assert_array_equal(t.center(ALPHAS), t.lower(ALPHAS))


def test_laplace_and_randomized_response():
    t = theory_of(LaplaceMechanism(1.0, 0.5))
    np.testing.assert_allclose(t.lower(ALPHAS), gdpproof.laplace(2).evaluate_fast(ALPHAS), rtol=1e-14)
    t = theory_of(RandomizedResponse(0.5, n=3))
    assert t.exact and t.label == "exact 3-fold randomized response"
    np.testing.assert_allclose(t.lower(ALPHAS), gdpproof.rr_composition(0.5, 3).evaluate_fast(ALPHAS), rtol=1e-14)


def test_a_claim_and_an_unknown_mechanism():
    assert gdp_claim(0.5).label == "the claim: f >= G_mu, mu = 0.5 (one-sided check)"
    user = UserMechanism(lambda rng, n: rng.standard_normal(n), lambda rng, n: rng.standard_normal(n) + 1,
                         lambda x: x)
    with pytest.raises(InvalidParameterError) as info:
        theory_of(user)
    assert info.value.argument == "mechanism"


def test_grid_step_shrinks_with_the_steps_within_its_limits():
    steps = [1, 10, 100, 10**4, 10**7]
    h = [dpsgd_grid_step(t) for t in steps]
    assert h == sorted(h, reverse=True) and h[0] <= 1e-3 and h[-1] == 2e-5
