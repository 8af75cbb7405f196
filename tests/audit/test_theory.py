"""The theoretical curve a simulation is checked against (gdpproof.audit.theory)."""

from __future__ import annotations

import numpy as np
import pytest

import gdpproof
from gdpproof.audit.theory import dpsgd_grid_step, gdp_claim, theory_of
from gdpproof.errors import InvalidParameterError
from gdpproof.simulation import GaussianSampler, LaplaceSampler, RandomizedResponseSampler, UserSampler

ALPHAS = np.linspace(0, 1, 11)


def test_gaussian_mechanism_is_g_sqrt_t_sensitivity_over_sigma():
    t = theory_of(GaussianSampler(2.0, 4.0, dim=3, steps=4))  # mu = 2 * 2 / 4 = 1
    assert t.exact and "= 1 (exact)" in t.label
    np.testing.assert_allclose(t.lower(ALPHAS), gdpproof.gaussian(1).evaluate_fast(ALPHAS), rtol=1e-14)
    np.testing.assert_array_equal(t.center(ALPHAS), t.lower(ALPHAS))


def test_laplace_and_randomized_response():
    t = theory_of(LaplaceSampler(1.0, 0.5))
    np.testing.assert_allclose(t.lower(ALPHAS), gdpproof.laplace(2).evaluate_fast(ALPHAS), rtol=1e-14)
    t = theory_of(RandomizedResponseSampler(0.5, n=3))
    assert t.exact and t.label == "rr_composition(epsilon=1/2, n=3) (exact)"
    np.testing.assert_allclose(t.lower(ALPHAS), gdpproof.rr_composition(0.5, 3).evaluate_fast(ALPHAS), rtol=1e-14)


def test_a_claim_and_an_unknown_mechanism():
    assert gdp_claim(0.5).label == "the claim: f >= G_mu, mu = 0.5 (one-sided check)"
    user = UserSampler(lambda rng, n: rng.standard_normal(n), lambda rng, n: rng.standard_normal(n) + 1,
                         lambda x: x)
    with pytest.raises(InvalidParameterError) as info:
        theory_of(user)
    assert info.value.argument == "mechanism"


def test_grid_step_shrinks_with_the_steps_within_its_limits():
    steps = [1, 10, 100, 10**4, 10**7]
    h = [dpsgd_grid_step(t) for t in steps]
    assert h == sorted(h, reverse=True) and h[0] <= 1e-3 and h[-1] == 2e-5


def test_k_ary_randomized_response_theory_and_its_simulation():
    # the simulated k-ary mechanism (one release) against the exact k-ary curve: the band holds
    # with probability >= 1 - 1e-6 (false failure <= 1e-6)
    from gdpproof.simulation import simulate

    t = theory_of(RandomizedResponseSampler(1.0, k=4))
    assert t.exact and t.label == "k_randomized_response(epsilon=1, k=4) (exact)"
    exact = gdpproof.RandomizedResponse(1.0, k=4).tradeoff()
    np.testing.assert_allclose(t.lower(ALPHAS), exact.evaluate_fast(ALPHAS), rtol=1e-14)
    curve = simulate(RandomizedResponseSampler(1.0, k=4), 20_000, seed=3, confidence=1 - 1e-6)
    assert curve.check(t.lower).inside
    # the k - 2 other values (score 0) come with probability (k - 2)/Z under P: Hoeffding,
    # P(|deviation| > 0.02) <= 2 exp(-2 * 20000 * 0.02^2) = 2.3e-7
    scores = RandomizedResponseSampler(1.0, k=4).scores(np.random.default_rng(5), 20_000, "P")
    assert abs(np.mean(scores == 0) - 2 / (np.e + 3)) < 0.02
    assert set(np.unique(scores)) == {-1.0, 0.0, 1.0}
    # the n-fold k-ary curve has no closed form here: the proven bracket of its composition
    t = theory_of(RandomizedResponseSampler(1.0, n=2, k=3))
    assert not t.exact and t.label.startswith("proven bracket of the 2-fold curve")
    assert (t.lower(ALPHAS) <= t.upper(ALPHAS)).all()
    with pytest.raises(InvalidParameterError) as info:
        RandomizedResponseSampler(1.0, k=1)
    assert info.value.argument == "k"


def test_simulate_cli_takes_k_for_randomized_response(capsys):
    # false failure <= 1e-6 (the band's confidence)
    from gdpproof.cli import main

    assert main(["simulate", "randomized-response", "--eps", "0.5", "--k", "3", "--samples", "5000", "--seed", "2"]) == 0
    assert "k_randomized_response(epsilon=1/2, k=3) (exact)" in capsys.readouterr().out
    assert main(["simulate", "laplace", "--scale", "1", "--k", "3", "--samples", "100", "--seed", "2"]) == 2
    assert "--k=3 does not apply to mechanism laplace" in capsys.readouterr().err


@pytest.mark.parametrize("scale", ["1e-3", "0.0014", "1.0000001e-100"])
def test_laplace_at_a_small_scale_is_inside_its_band_not_a_nan_violation(scale, capsys):
    # issue 33: e^mu overflows for mu > 709.78, and the float kernel's 1 - e^mu * alpha at alpha = 0
    # was NaN, printed as "max deviation = nan ... OUTSIDE the band"; f(0) = 1 (full support)
    from gdpproof.cli import main

    t = theory_of(LaplaceSampler(1.0, float(scale)))
    assert t.lower(np.array([0.0]))[0] == 1.0 and np.isfinite(t.lower(ALPHAS)).all()
    assert main(["simulate", "laplace", "--scale", scale, "--samples", "10000", "--seed", "1", "--json"]) == 0
    out = capsys.readouterr().out
    assert '"inside": true' in out and "nan" not in out


@pytest.mark.parametrize("argv, shown", [
    # a parameter beyond the mechanism values' range (simulate KIND is an alias of the spec)
    (["laplace", "--scale", "1e-300"], "--scale='1e-300' must be within [1e-100, 1e100]"),
    (["gaussian", "--sigma", "1e200"], "--sigma='1e200' must be within [1e-100, 1e100]"),
    # parameters within it whose ratio, the theory's mu, is not
    (["laplace", "--scale", "1e-60", "--sensitivity", "1e60"],
     "--scale='1e-60' must make sensitivity/scale (the theory's mu) within [1e-100, 1e+100), not 1e+120"),
    (["gaussian", "--sigma", "1e60", "--sensitivity", "1e-60"],
     "--sigma='1e60' must make sqrt(steps) sensitivity/sigma (the theory's mu) within [1e-100, 1e+100), not 1e-120"),
])
def test_a_theory_beyond_the_families_range_is_refused_naming_the_option(argv, shown, capsys):
    # the trade-off families take mu = 0 or within [1e-100, 1e100]: the error named mu, not the option
    from gdpproof.cli import main

    assert main(["simulate", *argv, "--samples", "1000", "--seed", "1"]) == 2
    assert capsys.readouterr().err == f"gdpproof: error: {shown}\n"


def test_a_curve_check_refuses_a_theory_that_is_not_finite():
    from gdpproof.simulation import simulate

    curve = simulate(LaplaceSampler(1.0, 1.0), 1000, seed=1)
    with pytest.raises(ValueError, match="the theory's curve is nan at alpha="):
        curve.check(lambda a: np.where(np.asarray(a) == 0, np.nan, 0.5))


def test_the_theory_is_the_mechanism_values_and_the_sampler_names_it():
    # one vocabulary: each sampler names its mechanism as an account spec, and the theory is that
    # value's curve; a value gives the same theory as the sampler it makes
    from gdpproof.audit.theory import sampler_of
    from gdpproof.mechanisms import mechanism_from_dict, mechanism_from_spec

    for spec in ("gaussian:sigma=2,sensitivity=3,times=4", "laplace:scale=0.5", "rr:epsilon=1.1,k=4", "gdp:mu=0.5"):
        value = mechanism_from_spec(spec)
        sampler = sampler_of(value)
        assert mechanism_from_dict(sampler.spec()).tradeoff() == value.tradeoff(), spec
        by_value, by_sampler = theory_of(value), theory_of(sampler)
        assert by_value.label == by_sampler.label and by_value.exact
        np.testing.assert_array_equal(by_value.lower(ALPHAS), by_sampler.lower(ALPHAS))
    # the subsampled Gaussian's sampler runs one ordering ("add"): its bracket is that ordering's
    sampler = sampler_of(mechanism_from_spec("gaussian:sigma=1,sample-rate=0.1,times=5"))
    assert sampler.ordering == "add" and sampler.spec() == {"kind": "gaussian", "sigma": "1.0", "sample-rate": "0.1",
                                                            "times": 5}
    assert "one neighbouring direction" in theory_of(sampler).label
    with pytest.raises(InvalidParameterError) as info:
        theory_of("gaussian")
    assert info.value.argument == "mechanism"


def test_the_old_sampler_names_still_work_and_warn():
    import gdpproof.simulation as simulation

    with pytest.warns(DeprecationWarning, match="use gdpproof.simulation.GaussianSampler"):
        assert simulation.GaussianMechanism is GaussianSampler
    with pytest.raises(AttributeError):
        simulation.NoSuchSampler  # noqa: B018
