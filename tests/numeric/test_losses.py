"""The compiled privacy losses against independent oracles written here in mpmath.

The oracles restate each law from its definition (densities of the output, the loss as a
function of the output) at 40 digits, so they share nothing with the sympy expressions the
engine compiles.  Partial means are proven intervals: the oracle must lie inside.
"""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest

from gdpproof.mechanisms import GDP, LaplaceMechanism, PoissonSampled, RandomizedResponse
from gdpproof.accounting.losses import (
    CDF_ERROR,
    GaussianLoss,
    LaplaceLoss,
    RandomizedResponseLoss,
    SubsampledGaussianLoss,
    loss_from_law,
    rounded_exactly,
)

CTX = mpmath.MPContext()
CTX.dps = 40


def _gauss_partial(mu: float, a: float, b: float, law: str) -> mpmath.mpf:
    m = CTX.mpf(mu) ** 2 / 2 * (1 if law == "P" else -1)
    s = CTX.mpf(mu)
    dens = lambda t: CTX.npdf(t, m, s)  # noqa: E731
    return CTX.quad(lambda t: t * dens(t), [a, m, b] if a < m < b else [a, b])


def _laplace_partial(mu: float, a: float, b: float, law: str) -> mpmath.mpf:
    # over the output x: P = Lap(0, 1), Q = Lap(mu, 1), L(x) = |x - mu| - |x|
    m = CTX.mpf(mu)
    c = CTX.mpf(0) if law == "P" else m
    dens = lambda x: CTX.exp(-abs(x - c)) / 2  # noqa: E731
    loss = lambda x: abs(x - m) - abs(x)  # noqa: E731
    inside = lambda x: a < loss(x) <= b  # noqa: E731
    total = CTX.mpf(0)
    # L = mu on x <= 0, -mu on x >= mu, mu - 2x in between
    if inside(CTX.mpf(-1)):
        total += m * CTX.quad(dens, [-CTX.inf, 0])
    if inside(m + 1):
        total += -m * CTX.quad(dens, [m, CTX.inf])
    lo_x = max(CTX.mpf(0), (m - min(CTX.mpf(b), m)) / 2)
    hi_x = min(m, (m - max(CTX.mpf(a), -m)) / 2)
    if lo_x < hi_x:
        total += CTX.quad(lambda x: loss(x) * dens(x), [lo_x, hi_x])
    return total


def _rr_partial(eps: float, a: float, b: float, law: str) -> mpmath.mpf:
    e = CTX.mpf(eps)
    q = CTX.exp(e) / (1 + CTX.exp(e))
    q_plus = q if law == "P" else 1 - q
    out = CTX.mpf(0)
    if a < eps <= b:
        out += e * q_plus
    if a < -eps <= b:
        out -= e * (1 - q_plus)
    return out


def _sg_partial(sigma: float, p: float, a: float, b: float, law: str) -> mpmath.mpf:
    s, q = CTX.mpf(sigma), CTX.mpf(p)
    loss = lambda x: CTX.log(1 - q + q * CTX.exp((2 * x - 1) / (2 * s**2)))  # noqa: E731
    if law == "P":
        dens = lambda x: (1 - q) * CTX.npdf(x, 0, s) + q * CTX.npdf(x, 1, s)  # noqa: E731
    else:
        dens = lambda x: CTX.npdf(x, 0, s)  # noqa: E731
    x_of = lambda l: s**2 * CTX.log((CTX.exp(l) - (1 - q)) / q) + CTX.mpf(1) / 2  # noqa: E731
    xa = x_of(a) if CTX.exp(a) > 1 - q else -CTX.inf
    xb = x_of(b)
    return CTX.quad(lambda x: loss(x) * dens(x), [xa, 0, xb] if xa < 0 < xb else [xa, xb])


CASES = [
    (GaussianLoss(0.7), lambda a, b, law: _gauss_partial(0.7, a, b, law), [(-1.0, 0.3), (-5.0, 5.0), (0.2, 0.25)]),
    (GaussianLoss(0.01), lambda a, b, law: _gauss_partial(0.01, a, b, law), [(-0.05, 0.0), (-1e-3, 2e-3)]),
    (LaplaceLoss(1.3), lambda a, b, law: _laplace_partial(1.3, a, b, law), [(-2.0, 2.0), (-1.3, 0.1), (-0.5, 1.0),
                                                                            (0.2, 1.3)]),
    (RandomizedResponseLoss(0.4), lambda a, b, law: _rr_partial(0.4, a, b, law), [(-1.0, 1.0), (-0.5, 0.0),
                                                                                  (0.0, 0.4)]),
    (SubsampledGaussianLoss(0.9, 0.05), lambda a, b, law: _sg_partial(0.9, 0.05, a, b, law),
     [(-0.04, 0.2), (0.0, 1.5), (-0.02, -0.01)]),
]


@pytest.mark.parametrize(("loss", "oracle", "intervals"), CASES, ids=lambda c: getattr(c, "name", ""))
def test_partial_means_hold_the_oracle(loss, oracle, intervals) -> None:
    for a, b in intervals:
        for law in "PQ":
            lo, hi = loss.partial_mean(a, b, law)
            want = oracle(a, b, law)
            pad = CTX.mpf(10) ** -30 * (1 + abs(want))  # the oracle's own quadrature error
            assert CTX.mpf(lo) - pad <= want <= CTX.mpf(hi) + pad, (loss.name, a, b, law, lo, hi, want)
            assert hi - lo <= 1e-12 * (1 + abs(float(want)))


def _cdf_oracle(loss, ell: float, law: str) -> mpmath.mpf:
    if isinstance(loss, GaussianLoss):
        m = CTX.mpf(loss.mu) ** 2 / 2 * (1 if law == "P" else -1)
        return CTX.ncdf(ell, m, loss.mu)
    if isinstance(loss, LaplaceLoss):
        m = CTX.mpf(loss.mu)
        if ell < -loss.mu:
            return CTX.mpf(0)
        if ell >= loss.mu:
            return CTX.mpf(1)
        # L <= ell  <=>  x >= (mu - ell)/2 (for x in the middle), plus the atom x >= mu
        cut = (m - ell) / 2
        c = CTX.mpf(0) if law == "P" else m
        return CTX.quad(lambda x: CTX.exp(-abs(x - c)) / 2, [cut, c, CTX.inf] if cut < c else [cut, CTX.inf])
    s, q = CTX.mpf(loss.sigma), CTX.mpf(loss.p)
    if CTX.exp(ell) <= 1 - q:
        return CTX.mpf(0)
    x = s**2 * CTX.log((CTX.exp(ell) - (1 - q)) / q) + CTX.mpf(1) / 2
    if law == "P":
        return (1 - q) * CTX.ncdf(x, 0, s) + q * CTX.ncdf(x, 1, s)
    return CTX.ncdf(x, 0, s)


@pytest.mark.parametrize("loss", [GaussianLoss(0.7), GaussianLoss(3.0), LaplaceLoss(1.3),
                                  SubsampledGaussianLoss(0.9, 0.05), SubsampledGaussianLoss(5.0, 1.0)],
                         ids=lambda l: l.name)
def test_compiled_cdf_and_sf_within_the_assumed_error(loss) -> None:
    ells = np.concatenate([np.linspace(-6, 6, 61), [-0.05, -1e-9, 0.0, 1e-9, 0.05]])
    for law in "PQ":
        cdf, sf = loss.cdf(ells, law), loss.sf(ells, law)
        for v, c, s in zip(ells, cdf, sf):
            want = _cdf_oracle(loss, float(v), law)
            assert abs(CTX.mpf(c) - want) <= CDF_ERROR, (loss.name, v, law, c, want)
            assert abs(CTX.mpf(s) - (1 - want)) <= CDF_ERROR, (loss.name, v, law, s, want)


def test_parameters_round_to_the_less_private_side() -> None:
    law = GDP("0.3").loss_law()
    assert not rounded_exactly(law)
    assert loss_from_law(law).mu >= 0.3 and mpmath.mpf(loss_from_law(law).mu) > mpmath.mpf("0.3")
    sg = PoissonSampled(GDP(3), "0.01").loss_law()  # sigma = 1/3 rounded down, p = 0.01 up
    compiled = loss_from_law(sg)
    from fractions import Fraction
    assert Fraction(compiled.sigma) < Fraction(1, 3) and Fraction(compiled.p) > Fraction(1, 100)
    assert rounded_exactly(LaplaceMechanism(scale=4).loss_law())
    assert loss_from_law(RandomizedResponse(1).loss_law()).eps == 1.0
    assert math.isinf(GaussianLoss(1).support()[0])


# --- the symmetric pair of C_p(G_{1/sigma}) (replace-one neighbours), from its densities ------------


def _sym_pair(sigma: float, p: float):
    """The pair on the real line written from its definition (derivations/d12): P = (1 - p) N(0, s^2)
    + p A, A with density phi_s(x - 1) above 1/2 and phi_s(x) below -1/2; Q(x) = P(-x)."""
    s, q = CTX.mpf(sigma), CTX.mpf(p)
    half = CTX.mpf(1) / 2

    def dens_p(x):
        a = CTX.npdf(x, 1, s) if x > half else (CTX.npdf(x, 0, s) if x < -half else 0)
        return (1 - q) * CTX.npdf(x, 0, s) + q * a

    def dens_q(x):
        return dens_p(-x)

    def loss(x):
        return CTX.log(dens_p(x) / dens_q(x))

    def x_of(ell):  # the largest output with loss <= ell (L is non-decreasing in x)
        if ell == 0:
            return half
        lo, hi = (CTX.mpf(-60), -half) if ell < 0 else (half, CTX.mpf(60))
        return CTX.findroot(lambda t: loss(t) - ell, (lo, hi), solver="anderson")

    return dens_p, dens_q, loss, x_of


def _sym_partial(sigma, p, a, b, law):
    dens_p, dens_q, loss, x_of = _sym_pair(sigma, p)
    dens = dens_p if law == "P" else dens_q
    xa, xb = x_of(CTX.mpf(a)), x_of(CTX.mpf(b))
    cuts = [xa] + [c for c in (-CTX.mpf(1) / 2, CTX.mpf(1) / 2) if xa < c < xb] + [xb]
    return CTX.quad(lambda x: loss(x) * dens(x), cuts)


def _sym_cdf(sigma, p, ell, law):
    dens_p, dens_q, _, x_of = _sym_pair(sigma, p)
    dens = dens_p if law == "P" else dens_q
    x = x_of(CTX.mpf(ell))
    cuts = [-CTX.inf] + [c for c in (-CTX.mpf(1) / 2, CTX.mpf(1) / 2) if c < x] + [x]
    return CTX.quad(dens, cuts)


def test_symmetric_subsampled_gaussian_against_its_densities() -> None:
    from gdpproof.accounting.losses import SymmetricSubsampledGaussianLoss

    sigma, p = 0.9, 0.05
    loss = SymmetricSubsampledGaussianLoss(sigma, p)
    assert loss.symmetric and loss.support() == (-math.inf, math.inf)
    # intervals across the atom at 0, on either side of it and over the bulk; both laws
    for (a, b), law in [((-0.04, 0.2), "P"), ((-0.3, -0.01), "Q"), ((0.0, 1.5), "Q"), ((-2.0, 2.0), "P")]:
        lo, hi = loss.partial_mean(a, b, law)
        want = _sym_partial(sigma, p, a, b, law)
        pad = CTX.mpf(10) ** -25 * (1 + abs(want))
        assert CTX.mpf(lo) - pad <= want <= CTX.mpf(hi) + pad, (a, b, law, lo, hi, want)
        assert hi - lo <= 1e-12 * (1 + abs(float(want)))
    for ell, law in [(-1.5, "Q"), (-1e-9, "P"), (0.0, "Q"), (0.05, "P")]:  # 0.0: the atom is counted
        want = _sym_cdf(sigma, p, ell, law)
        c, s = loss.cdf(np.array([ell]), law)[0], loss.sf(np.array([ell]), law)[0]
        assert abs(CTX.mpf(c) - want) <= CDF_ERROR and abs(CTX.mpf(s) - (1 - want)) <= CDF_ERROR, (ell, law)


def test_subsampled_gaussian_cdf_near_zero_loss_with_a_small_rate() -> None:
    """Just above loss 0 with p = 1e-4 the form ell - log p + log1p(-(1 - p) e^{-ell}) cancels (an
    error of 8e-13 in the CDF at ell = 8.7e-6, sigma = 3); the shipped map uses the log1p(expm1)
    form up to ell = 1."""
    loss = SubsampledGaussianLoss(3.0, 1e-4)
    ells = np.array([8.659643233600654e-06, 1e-4, 0.3, 0.999, 1.001])
    for law in "PQ":
        for v, c in zip(ells, loss.cdf(ells, law)):
            assert abs(CTX.mpf(c) - _cdf_oracle(loss, float(v), law)) <= CDF_ERROR, (v, law)


def test_subsampled_gaussian_parameters_round_to_the_less_private_side() -> None:
    # "1.1" and "0.3" are not doubles: sigma must round down and p up, so a bracket computed for
    # the doubles holds for the values given; a double is kept as it is
    from fractions import Fraction

    from gdpproof.accounting.losses import SubsampledGaussianLoss

    loss = SubsampledGaussianLoss("1.1", "0.3")
    assert Fraction(loss.sigma) < Fraction(11, 10) and Fraction(loss.p) > Fraction(3, 10)
    assert (loss.sigma, loss.p) == (1.0999999999999999, 0.30000000000000004)
    assert (SubsampledGaussianLoss(1.1, 0.3).sigma, SubsampledGaussianLoss(1.1, 0.3).p) == (1.1, 0.3)


def test_a_noise_multiplier_beyond_the_doubles_is_refused_by_name() -> None:
    # "1e400" has no double: the range is checked on the exact value (it was an OverflowError)
    from gdpproof.accounting.losses import SubsampledGaussianLoss
    from gdpproof.errors import InvalidParameterError

    with pytest.raises(InvalidParameterError, match=r"noise_multiplier='1e400' must be in \[0.02, 10000\]"):
        SubsampledGaussianLoss("1e400", "0.01")


@pytest.mark.parametrize(("name", "cls"), [("mu", "GaussianLoss"), ("eps", "RandomizedResponseLoss"),
                                           ("mu", "LaplaceLoss")])
def test_a_parameter_beyond_the_doubles_is_refused_by_name(name, cls) -> None:
    # checked on the exact value before rounding (they raised OverflowError)
    import gdpproof.accounting.losses as losses
    from gdpproof.errors import InvalidParameterError

    with pytest.raises(InvalidParameterError, match=f"{name}='1e400' must be a finite number in"):
        getattr(losses, cls)("1e400")
