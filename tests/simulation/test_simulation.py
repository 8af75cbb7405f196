"""Monte Carlo of real mechanisms against the theory.

Each statistical assertion states its false-failure probability.  A band holds with probability
at least its ``confidence`` (DKW with Massart's constant, union bound over the two samples), so a
correct theory is declared outside with probability at most 1 - confidence per run.  The
property tests run a fixed number of examples (hypothesis, derandomized, and every run seeded),
each at confidence 1 - 1e-6 / EXAMPLES: at most 1e-6 per test in all.
"""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.special import ndtr, ndtri

import gdpproof
from gdpproof.numeric.tradeoff.clt import gaussian_mixture
from gdpproof.simulation import (
    DiscreteGaussianSampler,
    GaussianSampler,
    LaplaceSampler,
    RandomizedResponseSampler,
    SubsampledGaussianSampler,
    UserSampler,
    simulate,
)

# Pinned on purpose, whatever the profile: the false-failure probability 1e-6 of each property
# test is split over its EXAMPLES draws (Bonferroni, CONFIDENCE), so the count is part of the
# statistics; and each draw simulates SAMPLES outputs per data set.
EXAMPLES = 8
CONFIDENCE = 1 - 1e-6 / EXAMPLES
SAMPLES = 50_000
PROPERTY = settings(max_examples=EXAMPLES, derandomize=True)


def G(mu: float):
    return lambda a: ndtr(ndtri(1 - np.asarray(a)) - mu)


@PROPERTY
@given(sensitivity=st.floats(0.1, 3.0), sigma=st.floats(0.5, 3.0), dim=st.integers(1, 8), seed=st.integers(0, 2**32))
def test_gaussian_mechanism_is_g_delta_over_sigma(sensitivity, sigma, dim, seed):
    curve = simulate(GaussianSampler(sensitivity, sigma, dim=dim), SAMPLES, seed=seed, confidence=CONFIDENCE)
    assert curve.check(G(sensitivity / sigma)).inside


@PROPERTY
@given(sensitivity=st.floats(0.1, 1.5), sigma=st.floats(0.5, 3.0), steps=st.integers(1, 8), seed=st.integers(0, 2**32))
def test_composed_gaussian_mechanism_is_g_sqrt_t(sensitivity, sigma, steps, seed):
    curve = simulate(GaussianSampler(sensitivity, sigma, dim=2, steps=steps), SAMPLES, seed=seed,
                     confidence=CONFIDENCE)
    assert curve.check(G(np.sqrt(steps) * sensitivity / sigma)).inside


@PROPERTY
@given(eps=st.floats(0.05, 1.0), n=st.integers(1, 50), seed=st.integers(0, 2**32))
def test_randomized_response_follows_the_binomial_curve(eps, n, seed):
    exact = gdpproof.rr_composition(eps, n)
    curve = simulate(RandomizedResponseSampler(eps, n=n), SAMPLES, seed=seed, confidence=CONFIDENCE)
    assert curve.check(exact.evaluate_fast).inside


@pytest.mark.parametrize(("sensitivity", "scale"), [(1.0, 1.0), (2.0, 1.0), (0.5, 2.0)])
def test_laplace_mechanism_follows_the_laplace_curve(sensitivity, scale):
    # false-failure probability 1e-6 per case
    f = gdpproof.laplace(sensitivity / scale)
    curve = simulate(LaplaceSampler(sensitivity, scale), SAMPLES, seed=7, confidence=1 - 1e-6)
    assert curve.check(f.evaluate_fast).inside


def test_discrete_gaussian_inside_its_proven_bracket_and_a_smaller_sigma_outside():
    # 2-fold N_Z(0, 1.5^2) against N_Z(1, 1.5^2): the band at confidence 1 - 1e-6 holds the proven
    # bracket of its curve (false failure <= 1e-6); sigma = 1 traces a curve far below it
    from gdpproof.audit.theory import theory_of

    theory = theory_of(DiscreteGaussianSampler(1.5, 1, steps=2))
    assert not theory.exact
    curve = simulate(DiscreteGaussianSampler(1.5, 1, steps=2), SAMPLES, seed=13, confidence=1 - 1e-6)
    assert curve.check(theory.lower, upper=theory.upper).inside
    smaller = simulate(DiscreteGaussianSampler(1.0, 1, steps=2), SAMPLES, seed=14, confidence=1 - 1e-6)
    assert not smaller.check(theory.lower, upper=theory.upper).inside


def test_subsampled_gaussian_within_berry_esseen_band_widened_by_monte_carlo():
    # T-fold p G_{1/sigma} + (1 - p) Id, one neighbouring direction; false failure <= 1e-6
    sigma, p, steps = 1.0, 0.1, 100
    band = gdpproof.berry_esseen(gaussian_mixture(1 / sigma, p), n=steps, digits=6)
    curve = simulate(SubsampledGaussianSampler(sigma, p, steps=steps), SAMPLES, seed=11, confidence=1 - 1e-6)
    check = curve.check(lambda a: band.fast(a)[0], upper=lambda a: band.fast(a)[2])
    assert check.inside
    # and the CLT curve itself is not what the mechanism does exactly (gamma is what allows it)
    assert float(band.gamma) > check.half_width[1]


def test_negative_control_noise_20_percent_too_small_is_detected():
    # the claim: sigma = 1 (G_1); the truth: sigma = 0.8 (G_1.25).  At SAMPLES per side the
    # band (+-0.013 at confidence 1 - 1e-6) cannot hold G_1: it must be declared outside.
    curve = simulate(GaussianSampler(1.0, 0.8, dim=3), SAMPLES, seed=12, confidence=1 - 1e-6)
    verdict = curve.check(G(1.0))
    assert not verdict.inside and verdict.max_violation > 0.02
    assert curve.check(G(1.25)).inside  # the truth is inside (false failure <= 1e-6)


def test_user_mechanism_with_a_non_optimal_score_is_checked_from_below():
    # |y| is not the likelihood ratio of N(0,1) vs N(1,1): its tests are worse than G_1 (above
    # the curve), which a one-sided check accepts; false failure <= 1e-6
    def sample_p(rng, n):
        return rng.standard_normal(n)

    def sample_q(rng, n):
        return rng.standard_normal(n) + 1.0

    mech = UserSampler(sample_p, sample_q, np.abs, exact=False, name="abs score")
    verdict = simulate(mech, SAMPLES, seed=13).check(G(1.0))
    assert verdict.inside and verdict.one_sided


def test_same_seed_same_curve_whatever_the_workers():
    mech = GaussianSampler(1.0, 1.0, dim=4, steps=2)
    serial = simulate(mech, 50_000, seed=5, chunk_size=8192)
    pooled = simulate(mech, 50_000, seed=5, chunk_size=8192, workers=2)
    assert np.array_equal(serial.thresholds, pooled.thresholds)
    assert np.array_equal(serial.alpha, pooled.alpha) and np.array_equal(serial.beta, pooled.beta)
    other = simulate(mech, 50_000, seed=6, chunk_size=8192)
    assert not np.array_equal(serial.beta, other.beta)


def test_dask_executor_gives_the_same_curve():
    distributed = pytest.importorskip("distributed", reason="the scale extra (dask[distributed]) is not installed")
    mech = GaussianSampler(1.0, 1.0, dim=2)
    serial = simulate(mech, 30_000, seed=9, chunk_size=4096)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster, distributed.Client(cluster) as client:
        remote = simulate(mech, 30_000, seed=9, chunk_size=4096, executor=client.get_executor())
    assert np.array_equal(serial.alpha, remote.alpha) and np.array_equal(serial.beta, remote.beta)


def test_progress_line(capsys):
    simulate(GaussianSampler(), 20_000, seed=1, chunk_size=5000, progress=True)
    assert "4/4 chunks" in capsys.readouterr().err


def test_simulation_never_imports_the_symbolic_or_numeric_layers():
    root = Path(gdpproof.__file__).parent / "simulation"
    for path in root.glob("*.py"):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                # relative imports stay inside simulation/, except the error classes, the
                # stdlib-only process pool whose workers die with their parent, and the
                # argument parser (its counts and seeds; stdlib-only at import, checked below)
                if node.level == 2:
                    assert node.module in ("errors", "_pool", "_args"), (path, node.module)
                elif node.level == 0:
                    assert (node.module or "").split(".")[0] in {"numpy", "__future__", "collections", "concurrent",
                                                                 "dataclasses", "typing", "math", "sys", "time", "abc"}, node.module
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    assert not alias.name.startswith("gdpproof"), (path, alias.name)
    # the parser imports only the standard library and the error classes when it is loaded (sympy
    # and mpmath only inside the functions that take their values)
    parser = ast.parse((root.parent / "_args.py").read_text())
    for node in parser.body:
        if isinstance(node, ast.ImportFrom):
            assert node.level == 0 and node.module in ("__future__", "decimal", "fractions") or \
                (node.level == 1 and node.module == "errors"), node.module
        elif isinstance(node, ast.Import):
            assert all(a.name in ("functools", "math", "numbers", "sys") for a in node.names), [a.name for a in node.names]


@pytest.mark.parametrize(("call", "match"), [
    (lambda: GaussianSampler(0, 1), "sensitivity=0"),
    (lambda: GaussianSampler(1, -1), "sigma=-1"),
    (lambda: GaussianSampler(1, 1, dim=0), "dim=0"),
    (lambda: GaussianSampler(1, 1, steps=1.5), "steps=1.5"),
    (lambda: SubsampledGaussianSampler(1, 1.5), "sample_rate=1.5"),
    (lambda: RandomizedResponseSampler(float("nan")), "eps=nan"),
    (lambda: LaplaceSampler(1, 0), "scale=0"),
    (lambda: UserSampler(1, 2, 3), "sample_p=1"),
    (lambda: simulate(GaussianSampler(), 0, seed=1), "samples=0"),
    (lambda: simulate("gaussian", 10, seed=1), "mechanism="),
    (lambda: simulate(GaussianSampler(), 10, seed=1, confidence=1.0), "confidence=1.0"),
    (lambda: simulate(GaussianSampler(), 10, seed=1, workers=0), "workers=0"),
])
def test_bad_input_is_named(call, match):
    with pytest.raises(ValueError, match=match):
        call()


@pytest.mark.parametrize(("call", "argument", "value", "rule"), [
    (lambda: GaussianSampler(1, -1), "sigma", -1, "must be a finite number > 0"),
    (lambda: GaussianSampler(1, 1, steps=1.5), "steps", 1.5, "must be an integer in [1, 1000000]"),
    (lambda: SubsampledGaussianSampler(1, 1.5), "sample_rate", 1.5, "must be a finite number > 0 at most 1"),
    (lambda: RandomizedResponseSampler(1, k=1), "k", 1,
     "must be an integer in [2, 1000000000000000] (the number of values)"),
    (lambda: GaussianSampler(1e60, 1e-60), "sigma", 1e-60,
     "must make sqrt(steps) sensitivity/sigma (the theory's mu) within [1e-100, 1e+100), not 1e+120"),
    (lambda: simulate(GaussianSampler(), 10, seed=1, confidence=1.0), "confidence", 1.0, "must be in (0, 1)"),
])
def test_bad_input_carries_the_argument_its_value_and_the_rule(call, argument, value, rule):
    # built by gdpproof.errors.bad, the one builder: a front end can rename the argument
    from gdpproof.errors import InvalidParameterError

    with pytest.raises(InvalidParameterError) as info:
        call()
    assert (info.value.argument, info.value.value, info.value.rule) == (argument, value, rule)


def test_one_subsampled_step_is_p_g_plus_one_minus_p_id_and_not_the_reverse():
    # steps = 1: T(P, Q) = p G_{1/sigma} + (1 - p) Id exactly; its inverse (the other ordering)
    # is rejected (a direction check).  False failure <= 1e-6 for the first assertion.
    from gdpproof.numeric.tradeoff.clt import gaussian_mixture

    f = gaussian_mixture(2, "0.3")  # sigma = 0.5
    curve = simulate(SubsampledGaussianSampler(0.5, 0.3), SAMPLES, seed=21)
    assert curve.check(f.evaluate_fast).inside
    grid = np.linspace(0, 1, 20001)
    values = f.evaluate_fast(grid)
    inverse = lambda a: np.interp(-np.asarray(a), -values, grid)  # noqa: E731 (f^-1, f decreasing)
    assert not curve.check(inverse).inside


def test_the_deviation_is_the_distance_the_band_measures():
    # to the line f(a) = 1 - a, moving alpha and beta alike, (a, b) is |a + b - 1|/2 away; an
    # inside verdict means every point within the half-width (n_p = n_q: the same in alpha and
    # beta; false-failure probability 1e-6, the band's confidence)
    from gdpproof.simulation.curves import _curve_distance

    rng = np.random.default_rng(5)
    a, b = rng.random(200), rng.random(200)
    got = _curve_distance(lambda x: 1 - x, a, b)
    assert abs(got - np.max(np.abs(a + b - 1)) / 2) <= 1e-8 * got
    assert _curve_distance(G(1.0), np.array([]), np.array([])) == 0.0
    for sigma in (1e-50, 0.3, 1.0):
        check = simulate(GaussianSampler(1.0, sigma), 5000, seed=2).check(G(1 / sigma))
        assert check.inside and check.max_deviation <= check.half_width[0], (sigma, check)


def test_tiny_noise_subsampled_statistic_does_not_overflow():
    with np.errstate(over="raise"):
        s = SubsampledGaussianSampler(0.02, 0.5).scores(np.random.default_rng(1), 1000, "Q")
    assert np.all(np.isfinite(s))


def test_seed_is_required():
    with pytest.raises(ValueError, match="seed=None"):
        simulate(GaussianSampler(), 10, seed=None)


def test_threshold_counts_are_exact_with_ties():
    # the runner counts #{s <= tau} and #{s < tau} by one search plus a second only where a draw
    # equals tau: compared with the direct count on draws full of ties (rounded normals)
    from gdpproof.simulation.runner import _le_lt

    rng = np.random.default_rng(11)
    for _ in range(200):
        s = np.sort(np.round(rng.standard_normal(rng.integers(0, 300)) * 3, int(rng.integers(0, 3))))
        taus = np.unique(np.round(rng.standard_normal(rng.integers(1, 40)) * 3, int(rng.integers(0, 3))))
        le, lt = _le_lt(s, taus)
        assert (le == (s[:, None] <= taus).sum(axis=0)).all()
        assert (lt == (s[:, None] < taus).sum(axis=0)).all()


@pytest.mark.parametrize("mechanism", [
    GaussianSampler(1, 1), GaussianSampler(1, 0.3, dim=3, steps=2), SubsampledGaussianSampler(1, 0.1, steps=5),
    RandomizedResponseSampler(1.0, n=30), LaplaceSampler(1, 1), DiscreteGaussianSampler(2, 1, steps=3),
    RandomizedResponseSampler(0.5, n=3, k=4)])
@pytest.mark.parametrize("k", [512, 40, 3])
def test_counting_without_sorting_the_chunk_counts_exactly(mechanism, k):
    # the runner counts most draws through a table of grid cells and sorts only those near a
    # threshold; the counts must be the sorted chunk's, exactly: ties with thresholds (atoms),
    # draws at and one ulp beside thresholds, infinities, NaN (counted above every threshold,
    # as a sort places it) and draws far outside the grid
    from gdpproof.simulation.runner import _le_lt, _make_counter, _thresholds

    taus = _thresholds(mechanism, np.random.SeedSequence(5), k)
    counter = _make_counter(taus)
    rng = np.random.default_rng(3)
    for law in "PQ":
        s = mechanism.scores(rng, 20000, law)
        odd = np.concatenate([taus, np.nextafter(taus, np.inf), np.nextafter(taus, -np.inf),
                              [np.nan, np.inf, -np.inf, 1e300, -1e300]])
        for x in (s, np.concatenate([s, odd])):
            got = counter(x)
            want = _le_lt(np.sort(x), taus)
            assert all((g == w).all() for g, w in zip(got, want))


@pytest.mark.parametrize("scale, offset", [(1e-200, 0.0), (1e200, 0.0), (1.0, 1e8), (1e-3, 1e9)])
def test_counting_grid_refuses_cells_below_rounding(scale, offset):
    # cells must be far wider than a rounding error of the scores (tiny spread on a large
    # offset): otherwise the counter sorts, and either way the counts are exact
    from gdpproof.simulation.runner import _le_lt, _make_counter

    s = np.random.default_rng(1).standard_normal(30000) * scale + offset
    taus = np.unique(np.quantile(s[:5000], np.linspace(0, 1, 514)[1:-1]))
    got = _make_counter(taus)(s)
    want = _le_lt(np.sort(s), taus)
    assert all((g == w).all() for g, w in zip(got, want))
