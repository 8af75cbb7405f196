"""CLT functionals, the Berry–Esseen band (Dong–Roth–Su Thm 3.4–3.5) and DP-SGD's CLT mu.

References: the closed forms of Dong, Roth & Su 2022, Thm 3.4-3.5 (kl = mu^2/2, kappa2 = mu^2 + mu^4/4,
bar_kappa3 = 2 sqrt(2/pi) mu^3 for G_mu; kl = eps(e^eps - 1)/(e^eps + 1), kappa2 = eps^2,
kappa3 = eps^3 for f_{eps,0}); gdpproof's two independent routes for each other (closed form
against quadrature, the z-substituted quadrature against the alpha-quadrature); and for the band,
the exact n-fold randomized-response curve.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
import sympy
from hypothesis import example, given
from hypothesis import strategies as st
from scipy import stats

import gdpproof
from gdpproof.numeric.tradeoff import functionals as clt_functionals
from gdpproof.numeric.engine._mp import private_context
from tests import oracles


def _close(cert, exact: sympy.Expr) -> None:
    oracles.assert_certified(cert, Fraction(str(sympy.N(exact, 80))), cert.digits)


@pytest.mark.parametrize("m", ["0.1", "1", "2.5", "7"])
def test_gaussian_functionals_match_the_design_closed_forms(m):
    mu = sympy.Rational(m)
    fl = gdpproof.functionals(gdpproof.gaussian(m), digits=30)
    _close(fl.kl, mu**2 / 2)
    _close(fl.kappa2, mu**2 + mu**4 / 4)
    _close(fl.bar_kappa3, 2 * sympy.sqrt(2 / sympy.pi) * mu**3)
    assert fl.kl.method == "arb"


@pytest.mark.parametrize("e", ["0.01", "0.5", "1", "3"])
def test_randomized_response_functionals_match_the_design_closed_forms(e):
    eps = sympy.Rational(e)
    fl = gdpproof.functionals(gdpproof.randomized_response(e), digits=30)
    _close(fl.kl, eps * (sympy.exp(eps) - 1) / (sympy.exp(eps) + 1))
    _close(fl.kappa2, eps**2)
    _close(fl.kappa3, eps**3)


def _quadrature(f, dps: int = 30):
    with private_context(dps) as ctx:
        return [float(v) for v in clt_functionals._Quadrature(f).approx(ctx)]


@pytest.mark.parametrize("f", [gdpproof.gaussian("0.7"), gdpproof.gaussian(2), gdpproof.laplace(1),
                               gdpproof.laplace("0.3"), gdpproof.randomized_response(1)])
def test_closed_forms_agree_with_quadrature(f):
    closed = [float(v) for v in gdpproof.functionals(f, digits=20).as_dict().values()]
    assert np.allclose(closed, _quadrature(f), rtol=1e-13, atol=0)


@pytest.mark.parametrize("m, p", [("1", "0.1"), ("0.5", "0.01"), ("3", "0.5")])
def test_subsampled_gaussian_functionals_two_quadratures_agree(m, p):
    c = gdpproof.subsample(gdpproof.gaussian(m), p)
    z_route = [float(v) for v in gdpproof.functionals(c, digits=15).as_dict().values()]
    assert gdpproof.functionals(c, digits=5).kl.method == "mpmath-2prec"
    assert np.allclose(z_route, _quadrature(c), rtol=1e-12, atol=0)


@pytest.mark.parametrize("n", [1, 7, 400])
def test_kl_of_rr_composition_is_additive(n):
    """KL divergence adds over independent products: kl(f_{eps,0}^n) = n kl(f_{eps,0})."""
    one = gdpproof.kl(gdpproof.randomized_response("0.2"), digits=25).to_fraction()
    many = gdpproof.kl(gdpproof.rr_composition("0.2", n), digits=25)
    oracles.assert_certified(many, n * one, 24)


def test_infinite_kl_is_refused():
    with pytest.raises(gdpproof.InvalidParameterError, match="kl.*infinite"):
        gdpproof.functionals(gdpproof.eps_delta(1, "0.1"))


# -- Berry–Esseen ---------------------------------------------------------------------------------

ALPHAS = [Fraction(k, 20) for k in range(21)] + [Fraction(1, 1000), Fraction(999, 1000)]


@given(eps=st.decimals("0.01", "1", places=2), n=st.integers(1, 400),
       alphas=st.lists(st.sampled_from(ALPHAS), min_size=1, max_size=4, unique=True))
@example(eps="1", n=1, alphas=ALPHAS)
@example(eps="0.05", n=400, alphas=ALPHAS)
@example(eps="0.3", n=11, alphas=ALPHAS)
def test_exact_rr_composition_lies_inside_the_berry_esseen_band(eps, n, alphas):
    band = gdpproof.berry_esseen(gdpproof.randomized_response(str(eps)), n=n, digits=15)
    f = gdpproof.rr_composition(str(eps), n)
    for a in alphas:
        # lower and upper are certified bounds (rounded outward); the exact value is bracketed
        assert band.lower(a, digits=15) <= f.evaluate(a, digits=15, rounding="up")
        assert f.evaluate(a, digits=15, rounding="down") <= band.upper(a, digits=15)


def test_band_check_has_teeth():
    """With gamma forced to 0 the band is the curve G_mu itself, which the exact curve crosses."""
    band = gdpproof.berry_esseen(gdpproof.randomized_response("0.3"), n=11, digits=15)
    zero = gdpproof.Certified(0, digits=15, rounding="up", method="exact")
    squeezed = gdpproof.BerryEsseenBand(band.mu, band.mu_low, zero, band.factors)
    f = gdpproof.rr_composition("0.3", 11)
    outside = [a for a in ALPHAS[1:-3]
               if not (squeezed.lower(a, digits=15) <= f.evaluate(a, digits=15, rounding="up")
                       and f.evaluate(a, digits=15, rounding="down") <= squeezed.upper(a, digits=15))]
    assert outside


def _sup_distance(eps: float, n: int, mu: float) -> float:
    """sup_alpha |f_{eps,0}^n(alpha) - G_mu(alpha)|: on each segment of the piecewise-linear curve
    the difference with the convex G_mu is concave, so the sup is at a vertex or where G_mu' equals
    the segment's slope."""
    q1 = 1 / (1 + math.exp(-eps))
    j = np.arange(n + 2)
    alphas = stats.binom.cdf(j - 1, n, q1)
    betas = stats.binom.sf(j - 1, n, 1 - q1)

    def G(a):
        return stats.norm.cdf(stats.norm.isf(a) - mu)

    worst = float(np.max(np.abs(betas - G(alphas))))
    for k in range(n + 1):
        slope = math.exp(eps * (n - 2 * k))
        # G'(a) = -exp(mu z - mu^2/2) with z = isf(a): equal to -slope at z = (log slope + mu^2/2)/mu
        z = (math.log(slope) + mu * mu / 2) / mu
        a = stats.norm.sf(z)
        if alphas[k] <= a <= alphas[k + 1]:
            line = betas[k] - slope * (a - alphas[k])
            worst = max(worst, abs(line - G(a)))
    return worst


def test_berry_esseen_band_and_distance_shrink_as_n_grows():
    """eps sqrt(n) = 1 fixed: the exact curve approaches G_1 and gamma falls like 1/sqrt(n)."""
    dists, gammas = [], []
    for n in (4, 16, 64, 256, 1024, 4096):
        eps = 1 / math.sqrt(n)
        band = gdpproof.berry_esseen(gdpproof.randomized_response(eps), n=n, digits=10)
        dists.append(_sup_distance(eps, n, float(band.mu)))
        gammas.append(float(band.gamma))
    assert all(b < a for a, b in zip(dists, dists[1:])), dists
    assert all(b < a for a, b in zip(gammas, gammas[1:])), gammas
    assert dists[-1] < 0.01
    # the sup distance stays inside the band width (DRS Thm 3.5 at the vertices and beyond)
    assert all(d <= 2 * g for d, g in zip(dists, gammas))


def test_berry_esseen_for_gaussians_has_the_exact_mu():
    """For G_mu factors the CLT mu is exact: 2 n kl / sqrt(n (kappa2 - kl^2)) = sqrt(n) mu."""
    band = gdpproof.berry_esseen([gdpproof.gaussian(1), gdpproof.gaussian(1)], n=8, digits=20)
    assert band.mu.to_fraction() >= 4 >= band.mu_low.to_fraction()


def test_berry_esseen_plot(tmp_path):
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    band = gdpproof.berry_esseen(gdpproof.randomized_response("0.2"), n=25, digits=8)
    ax = band.plot(exact=gdpproof.rr_composition("0.2", 25))
    ax.figure.savefig(tmp_path / "band.png")
    assert (tmp_path / "band.png").stat().st_size > 1000


# -- DP-SGD ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("sigma, p, T", [(1.1, 256 / 60000, 14040), (1.0, 0.01, 1000), (2.0, 0.5, 10), (0.8, 1.0, 3)])
def test_dpsgd_poisson_mu_matches_the_float_formula(sigma, p, T):
    acc = gdpproof.dpsgd_mu(sigma, p, T, digits=15, gamma=False)
    assert acc.approximation is True and "understate" in acc.note
    ref = p * math.sqrt(T * math.expm1(1 / sigma**2))
    assert abs(float(acc.mu_clt) - ref) <= 1e-13 * ref


@pytest.mark.parametrize("sigma, p, T", [(1.1, 256 / 60000, 14040), (1.0, 0.01, 1000)])
def test_dpsgd_uniform_mu_matches_the_float_formula(sigma, p, T):
    acc = gdpproof.dpsgd_mu(sigma, p, T, sampling="uniform", digits=15, gamma=False)
    n = stats.norm.cdf
    ref = math.sqrt(2) * p * math.sqrt(T * (math.exp(sigma**-2) * n(1.5 / sigma) + 3 * n(-0.5 / sigma) - 2))
    assert abs(float(acc.mu_clt) - ref) <= 1e-12 * ref


def test_dpsgd_small_sigma_does_not_overflow():
    """sigma = 0.05: e^{400} overflows nothing in ball arithmetic; checked against mpmath at 50 digits."""
    acc = gdpproof.dpsgd_mu("0.05", "0.01", 1000, digits=20, gamma=False)
    import mpmath

    ctx = mpmath.MPContext()
    ctx.dps = 60
    ref = ctx.mpf("0.01") * ctx.sqrt(1000 * ctx.expm1(1 / ctx.mpf("0.05") ** 2))
    oracles.assert_certified(acc.mu_clt, oracles._frac(ref), 20)


def test_dpsgd_epsilon_is_the_gdp_conversion_of_the_rounded_up_mu():
    acc = gdpproof.dpsgd_mu("1.0", "0.01", 1000, delta="1e-5", digits=12, gamma=False)
    assert acc.eps_clt == gdpproof.epsilon_from_delta(str(acc.mu_clt), "1e-5", digits=12)
    assert acc.eps_clt.rounding == "up"


def test_dpsgd_reports_gamma():
    acc = gdpproof.dpsgd_mu("1.0", "0.01", 1000)
    assert 0 < float(acc.gamma) < 0.1


@pytest.mark.parametrize("kwargs, match", [
    (dict(noise_multiplier=0, sample_rate=0.1, steps=10), "noise_multiplier=0"),
    (dict(noise_multiplier=1, sample_rate=0, steps=10), "sample_rate=0"),
    (dict(noise_multiplier=1, sample_rate=1.5, steps=10), "sample_rate=1.5"),
    (dict(noise_multiplier=1, sample_rate=0.1, steps=0), "steps=0"),
    (dict(noise_multiplier=1, sample_rate=0.1, steps=2.5), "steps=2.5"),
    (dict(noise_multiplier=1, sample_rate=0.1, steps=10, sampling="shuffle"), "sampling='shuffle'"),
    (dict(noise_multiplier=1, sample_rate=0.1, steps=10, delta=0), "delta=0"),
])
def test_dpsgd_bad_inputs(kwargs, match):
    with pytest.raises(gdpproof.InvalidParameterError, match=match):
        gdpproof.dpsgd_mu(**kwargs)


def test_berry_esseen_mu_that_is_a_short_decimal_is_certified():
    """mu = sqrt(100) x 0.1 = 1 exactly: no ball rounds it in a direction; the exact path does."""
    band = gdpproof.berry_esseen(gdpproof.gaussian("0.1"), n=100, digits=10)
    assert band.mu == 1 and band.mu_low == 1


def test_each_dpsgd_formula_is_the_clt_of_its_per_step_curve():
    """The quadrature CLT mu of T-fold p G + (1-p) Id is close to the Poisson formula, and that of
    T-fold C_p(G) to the fixed-batch one (the finite-p CLT mu converges to them as p -> 0, p sqrt T fixed)."""
    from gdpproof.numeric.tradeoff.clt import gaussian_mixture

    sigma, p, T = "1.1", "256/60000", 14062
    poisson = gdpproof.dpsgd_mu(sigma, p, T, digits=8, gamma=False).mu_clt
    uniform = gdpproof.dpsgd_mu(sigma, p, T, sampling="uniform", digits=8, gamma=False).mu_clt
    mix = gdpproof.berry_esseen(gaussian_mixture(sympy.Rational(10, 11), sympy.Rational(256, 60000)), n=T, digits=8).mu
    cp = gdpproof.berry_esseen(gdpproof.subsample(gdpproof.gaussian(sympy.Rational(10, 11)), p), n=T, digits=8).mu
    assert abs(float(mix) / float(poisson) - 1) < 0.01 and abs(float(cp) / float(uniform) - 1) < 0.01
    assert abs(float(cp) / float(poisson) - 1) > 0.2  # the two limits really differ


def test_exact_functionals_round_in_either_direction():
    """kl(G_1) = 1/2 exactly: directed rounding needs the exact path (balls alone never decide it)."""
    assert gdpproof.kl(gdpproof.gaussian(1), digits=10, rounding="up") == Fraction(1, 2)
    assert gdpproof.kappa2(gdpproof.gaussian(1), digits=10, rounding="down") == Fraction(5, 4)
