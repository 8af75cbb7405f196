"""Numerical composition of privacy-loss distributions: the proven bracket holds the exact value.

References are independent of the module under test: closed forms and binomial sums evaluated
in a 60-digit mpmath context here, and certified values of the symbolic core.  Each check asks
``lower <= exact <= upper``: it fails only if the bracket is wrong.
"""

from __future__ import annotations

from fractions import Fraction

import math

import flint
import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import gdpproof
from gdpproof.errors import InvalidParameterError, PrecisionError
from gdpproof.accounting import coupling as lattice
from gdpproof.accounting import losses
from gdpproof.accounting.dpsgd import dpsgd_epsilon
from gdpproof.numeric.engine.bound import Bound
from gdpproof.accounting.losses import GaussianLoss, LaplaceLoss, RandomizedResponseLoss, SubsampledGaussianLoss
from gdpproof.accounting.compose import compose_losses
from gdpproof.accounting.search import epsilon_bracket
from gdpproof.report.checks import Outcome
from tests.report.once import check_named, run_once

CTX = mpmath.MPContext()
CTX.dps = 60
# Pinned below the profile: each example composes a privacy-loss distribution on a fine grid
# (0.3 s Gaussian, 0.4 s randomized response, 0.7 s subsampled Gaussian); the ci profile's 200
# would add about 4 1/2 minutes of CPU to a suite held under 5.
FEW = settings(max_examples=20)


def _mp(x) -> mpmath.mpf:
    if hasattr(x, "_mpf_"):
        return CTX.mpf(x)
    f = Fraction(x)
    return CTX.mpf(f.numerator) / f.denominator


def gaussian_delta(mu, eps) -> float:
    m, e = _mp(mu), _mp(eps)
    return CTX.ncdf(-e / m + m / 2) - CTX.exp(e) * CTX.ncdf(-e / m - m / 2)


def rr_delta(eps, n: int, eps_prime) -> mpmath.mpf:
    """n-fold randomized response: sum_k (P(k) - e^{eps'} Q(k))_+ over the number k of +eps losses."""
    e, ep = _mp(eps), _mp(eps_prime)
    q = CTX.exp(e) / (1 + CTX.exp(e))
    weight = CTX.exp(ep)
    # P(k) = C(n, k) q^k (1 - q)^(n - k) and Q(k) = C(n, k) (1 - q)^k q^(n - k), term by term from
    # k = 0 (P(k + 1) / P(k) = (n - k) / (k + 1) * q / (1 - q)): n rounding steps at 60 digits
    pk, qk = (1 - q) ** n, q**n
    up, down = q / (1 - q), (1 - q) / q
    total = CTX.zero
    for k in range(n + 1):
        total += max(CTX.zero, pk - weight * qk)
        ratio = CTX.mpf(n - k) / (k + 1)
        pk, qk = pk * ratio * up, qk * ratio * down
    return total


def subsampled_deltas(sigma, p, eps) -> tuple[mpmath.mpf, mpmath.mpf]:
    """One Poisson-subsampled Gaussian step: (remove, add) hockey-stick divergences in closed form.

    remove: P = (1-p) N(0, s^2) + p N(1, s^2) against Q = N(0, s^2), rejecting x > x*;
    add: Q against P, rejecting x < x_a (empty when e^{-eps} <= 1 - p).
    """
    s, q, e = _mp(sigma), _mp(p), _mp(eps)
    Phi = CTX.ncdf
    xs = s**2 * CTX.log((CTX.exp(e) - 1 + q) / q) + CTX.mpf(1) / 2
    remove = (1 - q) * Phi(-xs / s) + q * Phi((1 - xs) / s) - CTX.exp(e) * Phi(-xs / s)
    if CTX.exp(-e) <= 1 - q:
        return remove, CTX.zero
    xa = s**2 * CTX.log((CTX.exp(-e) - 1 + q) / q) + CTX.mpf(1) / 2
    add = Phi(xa / s) - CTX.exp(e) * ((1 - q) * Phi(xa / s) + q * Phi((xa - 1) / s))
    return remove, add


def _inside(b: Bound, exact) -> None:
    assert b.lower <= exact <= b.upper, (b, float(exact))


# -- cross-checks against exact compositions ------------------------------------------------


@FEW
@given(mu=st.floats(0.05, 3.0), T=st.integers(1, 400), eps=st.floats(0.0, 6.0))
def test_gaussian_composition_bracket_contains_exact(mu, T, eps):
    c = compose_losses([(GaussianLoss(mu), T)], grid_step=2e-3)
    _inside(c.delta(eps), gaussian_delta(_mp(mu) * CTX.sqrt(T), eps))


@FEW
@given(eps=st.floats(0.01, 1.5), n=st.integers(1, 300), eps_prime=st.floats(0.0, 5.0))
def test_randomized_response_bracket_contains_binomial_curve(eps, n, eps_prime):
    c = compose_losses([(RandomizedResponseLoss(eps), n)], grid_step=1e-3)
    _inside(c.delta(eps_prime), rr_delta(eps, n, eps_prime))


@settings(max_examples=10)  # 0.5-1 s each: small sigma means a wide window at h = 1e-3
@given(sigma=st.floats(0.02, 5.0), p=st.floats(1e-4, 1.0), eps=st.floats(0.0, 4.0))
def test_subsampled_gaussian_one_step_contains_both_orderings_and_cp(sigma, p, eps):
    c = compose_losses([(SubsampledGaussianLoss(sigma, p), 1)], grid_step=1e-3)
    per = c.delta_by_ordering(eps)
    remove, add = subsampled_deltas(sigma, p, eps)
    _inside(per["remove"], remove)
    _inside(per["add"], add)
    # the worse ordering is the delta of the symmetrized C_p(G_{1/sigma}) (DRS Thm 4.2)
    _inside(c.delta(eps), max(remove, add))


@pytest.mark.parametrize(("sigma", "p", "eps"), [(1.0, 0.01, 0.5), (0.7, 0.3, 1.0), (2.0, 0.5, 0.2)])
def test_subsampled_one_step_matches_the_symbolic_cp(sigma, p, eps):
    f = gdpproof.subsample(gdpproof.gaussian(Fraction(1) / Fraction(sigma)), Fraction(p))
    exact_lo = float(f.delta(eps, digits=12).to_fraction())  # rounded up, so within 1e-11 relative
    c = compose_losses([(SubsampledGaussianLoss(sigma, p), 1)], grid_step=1e-3)
    b = c.delta(eps)
    assert b.lower <= exact_lo <= b.upper * (1 + 1e-11)


@pytest.mark.parametrize("mu", [0.1, 1.0, 3.0])
@pytest.mark.parametrize("eps", [0.0, 0.5, 2.0])
def test_laplace_one_step_matches_the_symbolic_curve(mu, eps):
    exact = gdpproof.laplace(Fraction(mu)).delta(eps, digits=15).to_fraction()
    c = compose_losses([(LaplaceLoss(mu), 1)], grid_step=1e-3)
    b = c.delta(eps)
    assert b.lower <= exact <= b.upper * (1 + 1e-14), (b, float(exact))


def _laplace_one_step_delta(mu, x):
    """D(x) = E_P[(1 - e^{x - L})_+] for one Laplace loss (any real x), in closed form.

    P = Lap(0, 1), Q = Lap(mu, 1): atoms L = mu (mass 1/2) and L = -mu (mass e^{-mu}/2),
    density e^{-(mu - l)/2}/4 on (-mu, mu).
    """
    m, x = _mp(mu), CTX.mpf(x)
    out = max(CTX.zero, 1 - CTX.exp(x - m)) / 2 + CTX.exp(-m) / 2 * max(CTX.zero, 1 - CTX.exp(x + m))
    a = max(x, -m)
    if a < m:
        out += (1 - CTX.exp((a - m) / 2)) / 2 - CTX.exp(x - m / 2) * (CTX.exp(-a / 2) - CTX.exp(-m / 2)) / 2
    return out


def test_laplace_two_fold_contains_exact():
    # delta_2(eps) = E_{L1}[D(eps - L1)], one integral over the continuous part of L1
    mu, eps = 1.0, 0.3
    m = _mp(mu)
    exact = _laplace_one_step_delta(mu, eps - m) / 2 + CTX.exp(-m) / 2 * _laplace_one_step_delta(mu, eps + m)
    pts = sorted({-m, m, *[v for v in (eps - m, eps + m) if -m < v < m]})
    exact += CTX.quad(lambda l: _laplace_one_step_delta(mu, eps - l) * CTX.exp(-(m - l) / 2) / 4, pts)
    # the closed form agrees with the symbolic core at T = 1
    one = gdpproof.laplace(Fraction(mu)).delta(eps, digits=20).to_fraction()
    assert abs(_laplace_one_step_delta(mu, eps) - CTX.mpf(one.numerator) / one.denominator) < 1e-18
    c = compose_losses([(LaplaceLoss(mu), 2)], grid_step=1e-3)
    _inside(c.delta(eps), exact)


def test_mixed_composition_gaussian_and_randomized_response():
    # G_mu (x) RR(eps): delta(e) = E over the RR loss r of delta_{G_mu}(e - r)
    mu, eps, e = 0.8, 0.5, 1.0
    q = CTX.exp(eps) / (1 + CTX.exp(eps))
    ref = lambda m, x: CTX.ncdf(-x / m + m / 2) - CTX.exp(x) * CTX.ncdf(-x / m - m / 2)  # noqa: E731
    # delta(e) = E_P[(1 - e^{e - S})_+] with S = L_G + L_RR; conditioning on L_RR = r
    exact = q * ref(_mp(mu), _mp(e) - eps) + (1 - q) * ref(_mp(mu), _mp(e) + eps)
    c = compose_losses([(GaussianLoss(mu), 1), (RandomizedResponseLoss(eps), 1)], grid_step=1e-3)
    _inside(c.delta(e), exact)


# -- the bracket shrinks with the grid, and epsilon(delta) ----------------------------------


def test_bracket_shrinks_as_the_grid_is_refined():
    widths = []
    for h in (4e-3, 1e-3, 2.5e-4):
        c = compose_losses([(SubsampledGaussianLoss(1.0, 0.02), 300)], grid_step=h)
        b = c.epsilon(1e-5)
        widths.append(b.width)
    assert widths[0] > 2 * widths[1] > 4 * widths[2] > 0, widths


def test_epsilon_bracket_contains_exact_gaussian_epsilon():
    mu, T, delta = 0.4, 49, 1e-6  # mu sqrt(T) = 2.8 exactly
    exact = gdpproof.epsilon_from_delta(Fraction(14, 5), delta, digits=15)
    c = compose_losses([(GaussianLoss(mu), T)], grid_step=5e-4)
    b = c.epsilon(delta)
    # exact is rounded up to 15 digits: compare with a 1e-14 margin
    assert b.lower <= float(exact) * (1 + 1e-14) and float(exact) <= b.upper * (1 + 1e-14), (b, exact)


def test_epsilon_zero_when_delta_is_met_at_zero_and_floor_refused():
    c = compose_losses([(GaussianLoss(0.1), 1)], grid_step=1e-3)
    b = c.epsilon(0.5)
    assert b.lower == b.upper == 0.0
    with pytest.raises(PrecisionError, match="floor"):
        c.epsilon(1e-15)


# -- DP-SGD, the configurations of the literature ------------------------------------------


def test_dpsgd_performance_configuration_bracket_and_clt():
    r = dpsgd_epsilon(1.0, 0.01, 1000, 1e-5)
    assert r.eps.relative_width <= 0.01
    acc = gdpproof.dpsgd_mu(1.0, 0.01, 1000, delta=1e-5, digits=8, gamma=False)
    assert acc.eps_lower is not None and acc.eps_upper is not None
    assert float(acc.eps_lower) <= r.eps.upper and float(acc.eps_upper) >= r.eps.lower
    # the CLT understates epsilon here (a proven statement: eps_clt < eps_lower)
    assert acc.understated and "understates" in acc.verdict


def test_dpsgd_mnist_configuration_reported_beside_the_clt():
    # Abadi et al. (2016) / Bu et al. (2020): sigma = 1.1, batch 256 of 60000, 60 epochs.  The
    # report's check computes exactly this (dpsgd_mu at T = 14062, with gamma): one run in the
    # session, shared with the report's test (tests/report/once.py).  It passes only when the
    # bracket is proven, eps_lower <= eps_upper and it is at most 1% wide, and the CLT is labelled.
    run = run_once(check_named("DP-SGD: the CLT (an approximation, labelled as one) beside the proven bracket"))
    assert run.result.outcome is Outcome.PASSED, run.result.detail
    data = run.result.data
    assert Fraction(data["eps_lower"]) <= Fraction(data["eps_upper"]) and data["verdict"]
    assert data["approximation"] is True and "CLT APPROXIMATION" in run.result.detail


@pytest.mark.parametrize("sigma, p, steps", [(2.0, 0.001, 100), (1.0, 0.01, 100)])
def test_a_wider_bracket_takes_no_more_compositions_nor_finer_grids(sigma, p, steps):
    # the discretization is chosen by predicted cost: at (2, 0.001, 100) the 1% bracket took the
    # coupling on a grid 30 times finer than the 0.1% bracket's pairs (twice the time); now both
    # take the pairs, the wider one on the coarser grid, in as few compositions
    wide, narrow = (dpsgd_epsilon(sigma, p, steps, 1e-5, rel_width=w) for w in (0.01, 0.001))
    assert wide.eps.relative_width <= 0.01 and narrow.eps.relative_width <= 0.001
    assert wide.composition.passes <= narrow.composition.passes
    if wide.composition.discretization == narrow.composition.discretization:
        assert wide.composition.h >= narrow.composition.h
    assert (sigma, narrow.composition.discretization) != (2.0, "coupling")


def test_the_pairs_refine_where_their_width_model_misses():
    # (1, 0.01, 1e5) at 0.1%: the pairs' first grid came out 4x wider than aimed, and the search
    # gave them up for the coupling (3 passes, 4.9 million points, 14 s); now they refine on
    # while their next grid is predicted cheaper than the coupling's
    r = dpsgd_epsilon(1.0, 0.01, 100_000, 1e-5, rel_width=0.001)
    assert r.eps.relative_width <= 0.001 and r.composition.discretization == "pairs"
    assert r.composition.passes <= 2
    # it meets the coupling's proven 0.1% bracket of the same run, [25.56096, 25.58529]
    assert r.eps.lower <= 25.58529 and r.eps.upper >= 25.56096


def test_dpsgd_uniform_sampling_has_no_bracket():
    acc = gdpproof.dpsgd_mu(1.0, 0.01, 100, delta=1e-5, sampling="uniform", digits=8, gamma=False)
    assert acc.eps_lower is None and acc.verdict is None


# -- the error model: FFT bound and CDF accuracy -------------------------------------------


def _exact_convolution(a, b) -> list[Fraction]:
    """The exact convolution of two arrays of floats.  A float is m / 2^k exactly: scaled by the
    largest such 2^k every value is an integer, so the n1 * n2 products and sums are of integers
    (exact, and much cheaper than of Fractions), divided by that power of two squared at the end."""
    fa, fb = [Fraction(x) for x in a], [Fraction(x) for x in b]
    scale = max(f.denominator for f in fa + fb)  # a power of two, divisible by every denominator
    ia = [f.numerator * (scale // f.denominator) for f in fa]
    ib = [f.numerator * (scale // f.denominator) for f in fb]
    out = [0] * (len(ia) + len(ib) - 1)
    for i, x in enumerate(ia):
        for j, y in enumerate(ib):
            out[i + j] += x * y
    return [Fraction(v, scale * scale) for v in out]


@pytest.mark.parametrize("seed", range(4))
def test_fft_error_bound_covers_exact_rational_convolution(seed):
    rng = np.random.default_rng(seed)
    n1, n2 = int(rng.integers(65, 900)), int(rng.integers(65, 900))
    a = rng.random(n1) ** 8
    b = rng.random(n2) ** 8
    a /= a.sum()
    b /= b.sum()
    if seed % 2:
        a[rng.integers(0, n1)] += 0.5
        a /= a.sum()
    la, lb = lattice.Lattice(0, a, 0.0), lattice.Lattice(0, b, 0.0)
    c = lattice.convolve_lattices(la, lb, trim=0.0)
    exact = _exact_convolution(a, b)
    err = sum(abs(Fraction(float(v)) - e) for v, e in zip(c.w, exact[c.k0: c.k0 + len(c.w)]))
    err += sum(exact[: c.k0]) + sum(exact[c.k0 + len(c.w):])
    assert float(err) <= c.err, (float(err), c.err)


@pytest.mark.parametrize(("seed", "k"), [(0, 2), (1, 2), (2, 3), (3, 3)])
def test_fused_power_product_bound_covers_exact_integer_convolution(seed, k):
    # r * b^k by one FFT (the last squarings of _power fused with their products) against the
    # exact product of the same doubles (integers at 2^1100 by fmpz_poly), inputs with errors
    rng = np.random.default_rng(seed)
    n1, n2 = int(rng.integers(65, 400)), int(rng.integers(65, 400))
    r, b = rng.random(n1) ** 8, rng.random(n2) ** 8
    r /= r.sum()
    b /= b.sum()
    if seed % 2:
        b[rng.integers(0, n2)] += 0.5
        b /= b.sum()
    lr, lb = lattice.Lattice(3, r, 1e-13 * seed), lattice.Lattice(-2, b, 2e-13 * seed)
    c = lattice._convolve_power(lr, lb, k, trim=0.0)
    scale = 2**1100
    poly = lambda v: flint.fmpz_poly([int(Fraction(float(x)) * scale) for x in v])  # noqa: E731
    exact = [int(x) for x in (poly(r) * poly(b) ** k).coeffs()] + [0] * (n1 + k * n2)
    j = c.k0 - (3 - 2 * k)
    got = [int(Fraction(float(x)) * scale ** (k + 1)) for x in c.w]
    err = sum(abs(g - e) for g, e in zip(got, exact[j: j + len(got)])) + sum(exact[:j]) + sum(exact[j + len(got):])
    own = c.err - lr.err * (1 + lb.err) ** k - (1 + lr.err) * k * lb.err * (1 + lb.err) ** (k - 1)  # this FFT's share
    assert Fraction(err, scale ** (k + 1)) <= Fraction(own) * (1 - 1e-9), (float(Fraction(err, scale ** (k + 1))), own)
    assert c.err > lr.err + k * lb.err  # the inputs' errors are carried


@pytest.mark.parametrize("seed, trim, fold_budget", [(0, 1e-12, None), (1, 1e-12, None), (0, 1e-150, 1e-12)])
def test_fused_power_on_half_length_window_covers_exact_convolution(seed, trim, fold_budget, monkeypatch):
    # long vectors with light tails: r * b^3 is computed cyclically on half the zero-padded
    # length, on a window placed by the mean; the mass outside the window is bounded
    # (Chernoff) and the window lies within err of the exact linear product there.  With a
    # fold budget above the trim (what _power gives its last step) the half length is taken
    # where the trim alone would refuse it
    rng = np.random.default_rng(seed)
    j1, j2 = np.arange(3000.0), np.arange(1000.0)
    r = np.exp(-0.5 * ((j1 - 1500) / 40) ** 2) * (1 + rng.random(3000))
    b = np.exp(-np.abs(j2 - 400 - 100 * seed) / (6 + 4 * seed)) * (1 + rng.random(1000))
    r /= r.sum()
    b /= b.sum()
    lr, lb = lattice.Lattice(0, r, 0.0), lattice.Lattice(0, b, 0.0)
    m = 3000 + 3 * 999
    start, fold = lattice._window_start(lr, lb, 3, 4096, m, 1e-12)
    assert 0 < start < m - 4096 and 0 < fold <= 1e-12  # both tails fold
    lengths = []
    irfft = np.fft.irfft
    monkeypatch.setattr(np.fft, "irfft", lambda z, n: lengths.append(n) or irfft(z, n))
    if fold_budget is not None:
        assert fold > trim
        lattice._convolve_power(lr, lb, 3, trim=trim)
        assert lengths == [8192]  # the trim alone refuses the half length
    c = lattice._convolve_power(lr, lb, 3, trim=trim, fold_budget=fold_budget)
    assert lengths[-1] == 4096
    assert start <= c.k0 and c.k0 + len(c.w) <= start + 4096  # the half-length path was taken
    scale = 2**1100
    poly = lambda v: flint.fmpz_poly([int(Fraction(float(x)) * scale) for x in v])  # noqa: E731
    exact = [int(x) for x in (poly(r) * poly(b) ** 3).coeffs()] + [0] * m
    assert Fraction(sum(exact[:start]) + sum(exact[start + 4096:]), scale**4) <= Fraction(fold)
    got = [int(Fraction(float(x)) * scale**4) for x in c.w]
    err = sum(abs(g - e) for g, e in zip(got, exact[c.k0: c.k0 + len(got)]))
    assert Fraction(err, scale**4) <= Fraction(c.err), (float(Fraction(err, scale**4)), c.err)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_convolution_on_half_length_window_covers_exact_convolution(seed, monkeypatch):
    # a long-double square and product just over a power of 2 long (2 x 2100 - 1 > 4096):
    # computed cyclically on 4096 points, the window placed by the mean; the mass outside it,
    # summed exactly (not by moments), is covered, and the window lies within err of the exact
    # product (float64 convolutions keep the full length: the half saves little there)
    import scipy.fft
    dtype = np.longdouble
    rng = np.random.default_rng(seed)
    j = np.arange(2100.0)
    a = np.exp(-np.abs(j - 1040 - 10 * seed) / (30 + 10 * seed)) * (1 + rng.random(2100))
    b = a if seed != 1 else np.exp(-0.5 * ((j - 1060) / 60) ** 2) * (1 + rng.random(2100))
    a, b = a / a.sum(), b / b.sum()
    la, lb = lattice.Lattice(0, a, 0.0), lattice.Lattice(0, b, 0.0)
    start, fold = lattice._fold_mass(la, lb, 4096)
    assert 0 < start < 4199 - 4096 and 0 < fold < 1e-15
    scale = 2**1100
    poly = lambda v: flint.fmpz_poly([int(Fraction(float(x)) * scale) for x in v])  # noqa: E731
    exact = [int(x) for x in (poly(a) * poly(b)).coeffs()] + [0] * 4200
    outside = Fraction(sum(exact[:start]) + sum(exact[start + 4096:]), scale**2)
    assert outside <= Fraction(fold) <= outside * (1 + 1e-9)  # summed, so tight
    lengths = []
    irfft = scipy.fft.irfft
    monkeypatch.setattr(scipy.fft, "irfft", lambda z, n: lengths.append(n) or irfft(z, n))
    lattice.convolve_lattices(la, la if seed != 1 else lb, trim=fold / 2 / lattice.FOLD_SHARE, dtype=dtype)
    assert lengths == [8192]  # the fold over the trim: the full length
    c = lattice.convolve_lattices(la, la if seed != 1 else lb, trim=fold / lattice.FOLD_SHARE, dtype=dtype)
    assert c.k0 >= start and c.k0 + len(c.w) <= start + 4096  # the window
    assert lengths == [8192, 4096]
    lattice.convolve_lattices(la, la if seed != 1 else lb, trim=fold / lattice.FOLD_SHARE)
    assert lengths == [8192, 4096]  # float64: numpy's FFT, the full length
    got = [int(Fraction(float(x)) * scale**2) for x in c.w]
    err = Fraction(sum(abs(g - e) for g, e in zip(got, exact[c.k0: c.k0 + len(got)])), scale**2)
    assert err <= Fraction(c.err), (float(err), c.err)
    assert c.err >= lattice._fft_bound(la, la if seed != 1 else lb, 4096, lattice._unit(dtype)) + fold  # the fold charged
    # outside the kept entries: folded (in err) or trimmed (the trim plus the error bound a side,
    # chosen on the computed entries, which differ from the exact ones by err at most)
    trim = fold / lattice.FOLD_SHARE
    assert Fraction(sum(exact[: c.k0]) + sum(exact[c.k0 + len(got):]), scale**2) <= 2 * Fraction(trim) + 3 * Fraction(c.err)


def test_float_cdf_meets_the_assumed_accuracy():
    # CDF_ERROR is an assumption about scipy's ndtr; check it against arb on a dense grid
    xs = np.linspace(-40, 40, 4001)
    import scipy.special as sc

    vals = sc.ndtr(xs)
    worst = 0.0
    with _prec(120):
        for x, v in zip(xs, vals):
            exact = (-flint.arb(float(x)) / flint.arb(2).sqrt()).erfc() / 2
            worst = max(worst, abs(float(exact - flint.arb(float(v)))))
    assert worst <= losses.CDF_ERROR / 4, worst


def test_subsampled_loss_cdf_meets_the_assumed_accuracy():
    # at the float x the CDF is evaluated at (bin edges may move by float error: that only moves
    # the rounding map, which the proof allows); P and Q laws, CDF and survival function
    loss = SubsampledGaussianLoss(1.0, 0.01)
    ells = np.random.default_rng(2).uniform(-0.01, 4, 1500)
    xs = loss._x(ells)
    worst = 0.0
    for law in "PQ":
        cdf, sf = loss.cdf(ells, law), loss.sf(ells, law)
        for x, c, s in zip(xs, cdf, sf):
            X = _mp(float(x))
            F = (1 - _mp(0.01)) * CTX.ncdf(X) + _mp(0.01) * CTX.ncdf(X - 1) if law == "P" else CTX.ncdf(X)
            worst = max(worst, abs(float(F - _mp(float(c)))), abs(float(1 - F - _mp(float(s)))))
    assert worst <= losses.CDF_ERROR / 4, worst


class _prec:
    def __init__(self, bits: int) -> None:
        self.bits = bits

    def __enter__(self) -> None:
        self.saved = flint.ctx.prec
        flint.ctx.prec = self.bits

    def __exit__(self, *exc) -> None:
        flint.ctx.prec = self.saved


# -- bad input ------------------------------------------------------------------------------


@pytest.mark.parametrize(("call", "match"), [
    (lambda: GaussianLoss(0), "mu=0"),
    (lambda: GaussianLoss(-1), "mu=-1"),
    (lambda: RandomizedResponseLoss(float("nan")), "eps=nan"),
    (lambda: LaplaceLoss(1e6), "mu=1000000"),
    (lambda: SubsampledGaussianLoss(0.01, 0.1), "noise_multiplier=0.01"),
    (lambda: SubsampledGaussianLoss(1.0, 0), "sample_rate=0"),
    (lambda: SubsampledGaussianLoss(1.0, 1.5), "sample_rate=1.5"),
    (lambda: compose_losses([]), "parts="),
    (lambda: compose_losses([(GaussianLoss(1), 0)]), "count=0"),
    (lambda: compose_losses([(GaussianLoss(1), 2.5)]), "count=2.5"),
    (lambda: compose_losses([("gaussian", 2)]), "parts="),
    (lambda: compose_losses([(GaussianLoss(1), 2)], grid_step=0), "grid_step=0"),
    (lambda: compose_losses([(GaussianLoss(1), 2)], eta=0.5), "eta=0.5"),
    (lambda: compose_losses([(GaussianLoss(1), 2)]).delta(-1), "eps=-1"),
    (lambda: compose_losses([(GaussianLoss(1), 2)]).epsilon(0), "delta=0"),
    (lambda: compose_losses([(GaussianLoss(1), 2)]).epsilon(1), "delta=1"),
    (lambda: dpsgd_epsilon(1.0, 0.01, 0, 1e-5), "steps=0"),
    (lambda: dpsgd_epsilon(1.0, 0.01, 10, 1e-5, rel_width=0), "rel_width=0"),
])
def test_bad_input_is_named(call, match):
    with pytest.raises(InvalidParameterError, match=match):
        call()


def test_bound_rejects_reversed_ends():
    with pytest.raises(ValueError, match="lower <= upper"):
        Bound(2.0, 1.0)


# -- the trade-off bracket and the honest mu ------------------------------------------------


def test_tradeoff_bracket_contains_the_exact_gaussian_curve_and_mu():
    c = compose_losses([(GaussianLoss(0.5), 4)], grid_step=5e-4)  # = G_1 exactly
    for a in (0.001, 0.01, 0.1, 0.3, 0.5, 0.8, 0.99):
        b = c.tradeoff(a)
        exact = CTX.ncdf(CTX.sqrt(2) * CTX.erfinv(1 - 2 * _mp(a)) - 1)
        _inside(b, exact)
    hm = c.honest_mu()
    assert hm.mu.lower <= 1.0 <= hm.mu.upper and hm.mu.upper < 1.05
    # a Gaussian mechanism is described by GDP exactly: the gap is small
    assert hm.gap.lower <= 0.01 and hm.delta_min < 1e-8


def test_tradeoff_bracket_contains_subsampled_gaussian_one_step():
    f = gdpproof.subsample(gdpproof.gaussian(1), Fraction(1, 5))
    c = compose_losses([(SubsampledGaussianLoss(1.0, 0.2), 1)], grid_step=5e-4)
    for a in ("0.01", "0.2", "0.45", "0.7"):
        lo = f.evaluate(a, digits=15, rounding="down").to_fraction()
        hi = f.evaluate(a, digits=15, rounding="up").to_fraction()
        b = c.tradeoff(float(a))
        assert b.lower <= hi and lo <= b.upper, (a, b, float(lo))


@pytest.mark.parametrize("eps", [0.3, 1.0])
def test_honest_mu_of_randomized_response_contains_the_closed_form(eps):
    exact = -2 * CTX.sqrt(2) * CTX.erfinv(2 / (1 + CTX.exp(_mp(eps))) - 1)  # -2 Phi^{-1}(1/(1+e^eps))
    hm = compose_losses([(RandomizedResponseLoss(eps), 1)], grid_step=1e-3).honest_mu()
    assert hm.mu.lower <= exact <= hm.mu.upper, (hm, float(exact))


def test_honest_mu_of_dpsgd_exceeds_the_clt_mu():
    # sigma = 1, p = 0.01, T = 1000: mu_clt = 0.4145; the composed mechanism needs more
    r = dpsgd_epsilon(1.0, 0.01, 1000, 1e-5)
    hm = r.composition.honest_mu()
    assert 0.4145 < hm.mu.lower <= hm.mu.upper < 0.5
    assert hm.gap.lower > 0.01  # visibly non-Gaussian


# -- regressions from review ------------------------------------------------------------------


@pytest.mark.parametrize(("sigma", "p", "eps"), [(0.025, 0.5, 900.0), (0.02, 1.0, 0.0), (0.021, 0.01, 5.0)])
def test_small_noise_subsampled_gaussian_is_bracketed(sigma, p, eps):
    # once: exp overflow in the loss-to-output map put all mass in one bin, bracket far off
    c = compose_losses([(SubsampledGaussianLoss(sigma, p), 1)], grid_step=1e-3)
    remove, add = subsampled_deltas(sigma, p, eps)
    _inside(c.delta_by_ordering(eps)["remove"], remove)
    _inside(c.delta_by_ordering(eps)["add"], add)


@pytest.mark.parametrize("loss", [RandomizedResponseLoss(1e-6), LaplaceLoss(1e-7), SubsampledGaussianLoss(0.05, 1.0),
                                  SubsampledGaussianLoss(0.3, 1.0)])
def test_tiny_or_degenerate_losses_are_bracketed_not_refused(loss):
    b = compose_losses([(loss, 3)], grid_step=1e-3).delta(0.5)
    assert 0 <= b.lower <= b.upper <= 1


def test_rounding_noise_does_not_grow_the_lattice():
    # once: FFT noise in every cell stopped the tail trimming (1.3 million points at T = 1000)
    c = compose_losses([(SubsampledGaussianLoss(0.6, 1e-4), 1000)], grid_step=1e-4)
    assert max(len(d.lattice.w) for d in c.directions) < 100_000


def test_tradeoff_bracket_of_one_ordering_contains_its_curve():
    # one Poisson-subsampled step, example absent (P) then present (Q): T(N0, mixture) is
    # p G_1 + (1 - p) Id exactly (the "add" ordering of SubsampledGaussianLoss)
    from gdpproof.numeric.tradeoff.clt import gaussian_mixture

    f = gaussian_mixture(1, Fraction(1, 5))
    c = compose_losses([(SubsampledGaussianLoss(1.0, 0.2), 1)], grid_step=5e-4)
    lower, upper = c.tradeoff_curves("add")
    for a in ("0.01", "0.1", "0.3", "0.6", "0.9"):
        lo = f.evaluate(a, digits=15, rounding="down").to_fraction()
        hi = f.evaluate(a, digits=15, rounding="up").to_fraction()
        assert Fraction(float(lower(float(a))[0])) <= hi and lo <= Fraction(float(upper(float(a))[0])), a
    with pytest.raises(InvalidParameterError, match="ordering='sideways'"):
        c.tradeoff_curves("sideways")


# -- regressions from a new-user trial --------------------------------------------------------


def test_small_delta_float_route_switches_to_long_double_and_below_its_floor_is_refused_fast():
    import time

    parts = [(SubsampledGaussianLoss(1.0, 0.01), 1000)]
    b, comp = epsilon_bracket(parts, 1e-9, route="float")  # once: 104 s, 2.6 GB, then a refusal
    assert b.relative_width <= 0.01 and comp.route == "float64 FFT lattice"
    start = time.perf_counter()
    with pytest.raises(PrecisionError, match="floor"):
        epsilon_bracket(parts, 1e-12, route="float")  # the exact route takes it (test_intlattice)
    assert time.perf_counter() - start < 30


def test_full_batch_dpsgd_has_a_bracket_even_where_gamma_is_not_certified():
    acc = gdpproof.dpsgd_mu(1, 1, 1000, delta="1e-5", digits=8)
    # p = 1: T steps of G_1 are G_sqrt(1000); its eps at delta = 1e-5 solved here in mpmath
    m = CTX.sqrt(1000)
    exact = CTX.findroot(lambda e: CTX.ncdf(-e / m + m / 2) - CTX.exp(e) * CTX.ncdf(-e / m - m / 2) - _mp("1e-5"),
                         634)
    assert float(acc.eps_lower) <= exact <= float(acc.eps_upper)
    assert "overstates" in acc.verdict


def test_fraction_strings_and_malformed_parts():
    c = compose_losses([(GaussianLoss(1), 2)], grid_step=1e-3)
    assert c.delta("1/2") == c.delta(0.5) and c.tradeoff("1/4") == c.tradeoff(0.25)
    with pytest.raises(InvalidParameterError, match="must be \\(PrivacyLoss, count\\) pairs"):
        compose_losses([GaussianLoss(1)])
    with pytest.raises(InvalidParameterError, match="max_refinements=-1"):
        dpsgd_epsilon(1.0, 0.01, 10, 1e-5, max_refinements=-1)
    with pytest.raises(InvalidParameterError, match=r"rel_width=1e-05 must be in \[1e-4, 10\]"):
        dpsgd_epsilon(1.0, 0.01, 10, 1e-5, rel_width=1e-5)


def test_float_bounds_of_certified_lower_ends_round_down():
    # honest_mu's lower ends come from 17-digit decimals rounded down; float() rounds to nearest
    # and can land above them (0.1 becomes 0.1000000000000000055...): they must round down
    from fractions import Fraction

    from gdpproof.numeric.engine.certify import Certified
    from gdpproof.numeric.engine.bound import float_down

    for text in ("0.1", "0.3", "2.2250738585072014e-308", "1"):
        c = Certified(text, digits=17, rounding="down", method="arb")
        f = float_down(c)
        assert Fraction(f) <= c.to_fraction() < Fraction(math.nextafter(f, math.inf))  # the largest float below


def test_fused_power_keeps_an_input_longer_than_half_the_length():
    # r longer than half the zero-padded length (most of its mass near its end): the cyclic
    # half-length path would crop r (rfft(w, n) drops entries beyond n), so the full length is
    # used and no mass is lost (on the half length a third of it was)
    j1, j2 = np.arange(5000.0), np.arange(100.0)
    r = np.exp(-0.5 * ((j1 - 4000) / 200) ** 2)
    b = np.exp(-0.5 * ((j2 - 50) / 10) ** 2)
    c = lattice._convolve_power(lattice.Lattice(0, r / r.sum(), 0.0), lattice.Lattice(0, b / b.sum(), 0.0), 2,
                                trim=1e-12)
    assert abs(float(np.sum(c.w)) - 1) <= 1e-9  # trims of about 1e-12 a side (0.32 was lost)


@pytest.mark.parametrize("seed", [1, 2])
def test_log_mgf_bound_holds_for_large_exponents(seed):
    # lam j near 1e11: the exponents' rounding (about 1e-5 in the logarithm) is charged, not
    # assumed below a fixed 1e-6 (which this case breaks), against a 50-digit log-sum-exp
    rng = np.random.default_rng(seed)
    log_w = -rng.random(1000) * 50
    lam = float(rng.uniform(1e7, 1e8))
    with mpmath.workdps(50):
        exact = mpmath.log(mpmath.fsum(mpmath.exp(mpmath.mpf(lam) * j + mpmath.mpf(float(v)))
                                       for j, v in enumerate(log_w)))
        assert lattice._log_mgf(log_w, lam) >= exact
