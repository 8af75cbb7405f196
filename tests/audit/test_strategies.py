"""gdpproof.strategies: values valid, bounds respected, impossible bounds refused, readable repr."""

from __future__ import annotations

import math
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis.errors import InvalidArgument

import gdpproof
from gdpproof.strategies import (
    DPSGDConfiguration,
    dpsgd_configurations,
    epsilon_delta_pairs,
    gdp_guarantees,
    tradeoff_functions,
)


@given(gdp_guarantees())
def test_gdp_guarantees_default_domain(mu):
    assert isinstance(mu, float) and 0 <= mu < math.inf


@given(gdp_guarantees(min_mu=1e-4, max_mu=50.0))
def test_gdp_guarantees_bounds(mu):
    assert 1e-4 <= mu <= 50.0


@given(epsilon_delta_pairs())
def test_epsilon_delta_pairs_default_domain(pair):
    eps, delta = pair
    assert 0 <= eps < math.inf and 0 <= delta <= 1


@given(epsilon_delta_pairs(min_epsilon=0.5, max_epsilon=3.0, min_delta=1e-300, max_delta=1e-3))
def test_epsilon_delta_pairs_bounds(pair):
    eps, delta = pair
    assert 0.5 <= eps <= 3.0 and 1e-300 <= delta <= 1e-3


@given(dpsgd_configurations())
def test_dpsgd_configurations_default_domain(c):
    assert isinstance(c, DPSGDConfiguration)
    assert 0 < c.noise_multiplier < math.inf and 0 < c.sample_rate <= 1 and c.steps >= 1


@given(dpsgd_configurations(min_noise_multiplier=0.3, max_noise_multiplier=2.0, min_sample_rate=1e-3,
                            max_sample_rate=0.1, min_steps=10, max_steps=1000))
def test_dpsgd_configurations_bounds(c):
    assert 0.3 <= c.noise_multiplier <= 2.0 and 1e-3 <= c.sample_rate <= 0.1 and 10 <= c.steps <= 1000


# pinned below the profile: each example certifies f at two points of a random family (about
# 30 ms); the ci profile's 200 would take 6 s instead of 0.6 s for a check of the strategy's
# output, which the bounds tests above and below already exercise
@settings(max_examples=10)
@given(tradeoff_functions(max_parameter=5.0))
def test_tradeoff_functions_are_trade_off_functions(f):
    assert isinstance(f, gdpproof.TradeOff)
    assert f.name in ("gaussian", "laplace", "randomized_response", "eps_delta")
    # f(alpha) <= 1 - alpha and non-increasing, certified at two points (rounded down: below f)
    alphas = (Fraction(1, 10), Fraction(1, 2))
    vals = [f.evaluate(a, digits=6, rounding="down").to_fraction() for a in alphas]
    assert all(v <= 1 - a for v, a in zip(vals, alphas)) and vals[0] >= vals[1] - Fraction(1, 10**5)


@given(tradeoff_functions(families=["gaussian"], min_parameter=1.0, max_parameter=2.0))
def test_tradeoff_functions_family_and_bounds(f):
    assert f.name == "gaussian" and 1.0 <= float(f.parameters["mu"]) <= 2.0


@pytest.mark.parametrize("build", [
    lambda: gdp_guarantees(min_mu=-1.0),
    lambda: gdp_guarantees(min_mu=2.0, max_mu=1.0),
    lambda: gdp_guarantees(max_mu=math.nan),
    lambda: gdp_guarantees(max_mu=math.inf),
    lambda: gdp_guarantees(min_mu="1"),
    lambda: epsilon_delta_pairs(max_delta=1.5),
    lambda: epsilon_delta_pairs(min_delta=0.5, max_delta=0.1),
    lambda: epsilon_delta_pairs(min_epsilon=-0.1),
    lambda: dpsgd_configurations(max_sample_rate=0.0),
    lambda: dpsgd_configurations(max_noise_multiplier=0.0),
    lambda: dpsgd_configurations(min_steps=0),
    lambda: dpsgd_configurations(min_steps=10, max_steps=5),
    lambda: dpsgd_configurations(max_steps=2.5),
    lambda: dpsgd_configurations(max_sample_rate=2.0),
    lambda: tradeoff_functions(families=[]),
    lambda: tradeoff_functions(families="gaussian"),
    lambda: tradeoff_functions(families=["poisson"]),
    lambda: tradeoff_functions(min_parameter=3.0, max_parameter=1.0),
])
def test_impossible_bounds_are_refused(build):
    with pytest.raises(InvalidArgument):
        build()


def test_repr_shows_how_it_was_built():
    assert repr(gdp_guarantees()) == "gdp_guarantees()"
    assert repr(gdp_guarantees(min_mu=0.5)) == "gdp_guarantees(min_mu=0.5)"
    assert repr(epsilon_delta_pairs(max_epsilon=10.0)) == "epsilon_delta_pairs(max_epsilon=10.0)"
    assert repr(dpsgd_configurations(max_steps=100)) == "dpsgd_configurations(max_steps=100)"
    assert repr(tradeoff_functions(families=["laplace"], max_parameter=2.0)) == \
        "tradeoff_functions(families=['laplace'], max_parameter=2.0)"
