"""The three numerical assumptions of the float PLD route, measured on the machine the suite runs on.

:data:`gdpproof.numeric.engine.bound.FLOAT_ROUTE_ASSUMPTIONS` names them; every "proven" bracket of the
float route rests on them, so each is checked here against exact arithmetic:

1. the float64 CDF and survival function of each loss family's kernel err by at most
   ``CDF_ERROR`` = 1e-15, once the bin edge is allowed to move by the displacement below;
2. the bin-edge displacement constant of ``lattice.discretize``: an edge ell moves by at most
   64 u (|ell| + 32) in loss (measured directly where the kernel maps edges to the output space);
3. numpy's (and scipy's long-double) FFT convolution errs within the bound derived from Higham's
   Thm 24.2 (``lattice._fft_error_factor``), on integer vectors whose exact convolution numpy's
   int64 arithmetic gives.

The CDF oracles restate each law from its definition in arb (python-flint), sharing nothing with
the sympy expressions the kernels are compiled from.  Far tails are included (CDF ~ 1e-300).
"""

from __future__ import annotations

import math

import flint
import numpy as np
import pytest

from gdpproof.accounting import coupling as lattice
from gdpproof.numeric.engine.bound import FLOAT_ROUTE_ASSUMPTIONS, U
from gdpproof.accounting.losses import (
    CDF_ERROR,
    GaussianLoss,
    LaplaceLoss,
    RandomizedResponseLoss,
    SubsampledGaussianLoss,
)

BITS = 200


def _displacement(ell: float) -> float:
    """The per-edge form of ``edge_err`` in ``lattice.discretize`` (there: the largest edge)."""
    return 64 * U * (abs(ell) + 32)


def _arb(x: float) -> flint.arb:
    return flint.arb(float(x))


def _ncdf(z: flint.arb) -> flint.arb:
    return (-z / flint.arb(2).sqrt()).erfc() / 2


def _oracle(loss, law: str):
    """The exact CDF of the loss under ``law``, as a function of an arb ell."""
    if isinstance(loss, GaussianLoss):
        m = _arb(loss.mu)
        centre = m * m / 2 if law == "P" else -m * m / 2
        return lambda ell: _ncdf((ell - centre) / m)
    if isinstance(loss, LaplaceLoss):
        m = _arb(loss.mu)

        def laplace(ell: flint.arb) -> flint.arb:
            if ell < -m:
                return flint.arb(0)
            if ell >= m:
                return flint.arb(1)
            # P = Lap(0, 1), Q = Lap(mu, 1), L(x) = |x - mu| - |x|
            return (-(m - ell) / 2).exp() / 2 if law == "P" else 1 - (-(m + ell) / 2).exp() / 2
        return laplace
    if isinstance(loss, RandomizedResponseLoss):
        e = _arb(loss.eps)
        low = 1 / (1 + e.exp()) if law == "P" else e.exp() / (1 + e.exp())  # P(L = -eps)
        return lambda ell: flint.arb(0) if ell < -e else (low if ell < e else flint.arb(1))
    assert isinstance(loss, SubsampledGaussianLoss)
    s, p = _arb(loss.sigma), _arb(loss.p)

    def subsampled(ell: flint.arb) -> flint.arb:
        # L(x) = log(1 - p + p e^{(2x - 1)/(2 sigma^2)}): x = sigma^2 log((e^ell - 1 + p)/p) + 1/2
        inner = ell.exp() - 1 + p
        if not inner > 0:
            return flint.arb(0)
        x = s * s * (inner / p).log() + flint.arb(1) / 2
        q_cdf = _ncdf(x / s)
        return q_cdf if law == "Q" else (1 - p) * q_cdf + p * _ncdf((x - 1) / s)
    return subsampled


def _ells(loss) -> np.ndarray:
    """A sample of bin edges: the bulk, the atoms' neighbourhoods, and far tails."""
    lo, hi = loss.support()
    rng = np.random.default_rng(20)
    if isinstance(loss, GaussianLoss):
        m = loss.mu
        tails = np.array([-m * m / 2 - 37 * m, m * m / 2 + 37 * m, -m * m / 2 - 8 * m, m * m / 2 + 8 * m])
        return np.concatenate([rng.uniform(-3 * m - m * m, 3 * m + m * m, 40), tails])
    if isinstance(loss, SubsampledGaussianLoss):
        # near the floor log(1 - p) and far above (x out to ~37 sigma)
        floor = math.log1p(-loss.p)
        far = float(np.log1p(loss.p * np.expm1((2 * 37 * loss.sigma - 1) / (2 * loss.sigma ** 2))))
        return np.concatenate([rng.uniform(floor, 4, 40), [floor + 1e-12, floor + 1e-6, far, far / 2]])
    span = max(abs(lo), abs(hi))
    pts = rng.uniform(-1.2 * span, 1.2 * span, 30)
    return np.concatenate([pts, [lo, hi, np.nextafter(lo, -1), np.nextafter(hi, 2), 0.0]])


LOSSES = [GaussianLoss(0.7), GaussianLoss(3.0), LaplaceLoss(1.3), RandomizedResponseLoss(0.9),
          SubsampledGaussianLoss(0.9, 0.05), SubsampledGaussianLoss(2.0, 0.001)]


@pytest.mark.parametrize("loss", LOSSES, ids=lambda l: l.name)
def test_cdf_kernels_within_the_assumed_error(loss) -> None:
    # assumption 1 with the displacement of assumption 2: the float value lies in
    # [F(ell - d) - CDF_ERROR, F(ell + d) + CDF_ERROR] (F non-decreasing), and the same for 1 - F
    saved = flint.ctx.prec
    flint.ctx.prec = BITS
    try:
        ells = _ells(loss)
        worst = 0.0
        for law in "PQ":
            exact = _oracle(loss, law)
            cdf, sf = loss.cdf(ells, law), loss.sf(ells, law)
            for ell, c, s in zip(ells, cdf, sf):
                assert 0.0 <= c <= 1.0 and 0.0 <= s <= 1.0, (loss.name, law, ell, c, s)
                d = _displacement(float(ell))
                lo, hi = exact(_arb(ell) - d), exact(_arb(ell) + d)
                assert lo.lower() - CDF_ERROR <= c <= hi.upper() + CDF_ERROR, (loss.name, law, ell, c, lo, hi)
                assert 1 - hi.upper() - CDF_ERROR <= s <= 1 - lo.lower() + CDF_ERROR, (loss.name, law, ell, s)
                mid = exact(_arb(ell))
                worst = max(worst, float(abs(mid - c).upper()), float(abs(1 - mid - s).upper()))
        # the measured error away from jumps (where the displacement is not needed) is far below
        # the assumption for the continuous families
        if not isinstance(loss, (LaplaceLoss, RandomizedResponseLoss)):
            assert worst <= CDF_ERROR / 4, (loss.name, worst)
    finally:
        flint.ctx.prec = saved


@pytest.mark.parametrize("loss", [SubsampledGaussianLoss(0.9, 0.05), SubsampledGaussianLoss(2.0, 0.001),
                                  SubsampledGaussianLoss(0.05, 0.5)], ids=lambda l: l.name)
def test_bin_edge_displacement_constant(loss) -> None:
    # assumption 2 measured directly: the kernel evaluates the output-space CDF at the float
    # x~ = x(ell); the loss there, L(x~) in arb, is within 64 u (|ell| + 32) of ell
    saved = flint.ctx.prec
    flint.ctx.prec = BITS
    try:
        ells = _ells(loss)
        xs = loss._x(ells)
        s, p = _arb(loss.sigma), _arb(loss.p)
        worst = 0.0
        for ell, x in zip(ells, xs):
            if not math.isfinite(x):
                continue  # at the floor: the CDF there is 0 exactly
            moved = (1 - p + p * ((2 * _arb(x) - 1) / (2 * s * s)).exp()).log()
            gap = float(abs(moved - float(ell)).upper())
            worst = max(worst, gap / _displacement(float(ell)))
        assert worst <= 1.0, worst
    finally:
        flint.ctx.prec = saved


@pytest.mark.parametrize(("n1", "n2", "dtype"), [(3000, 2500, np.float64), (9000, 7000, np.float64),
                                                  (4000, 4000, np.longdouble)])
def test_fft_convolution_within_higham_bound(n1, n2, dtype) -> None:
    # assumption 3: exact integer convolution (int64, entries < 2^20, so every sum is exact)
    # against the zero-padded rfft pipeline of lattice.convolve_lattices; scaling by 2^-20 is exact, so
    # the relative picture is that of probability vectors
    rng = np.random.default_rng(n1 + n2)
    ai, bi = rng.integers(0, 2**20, n1), rng.integers(0, 2**20, n2)
    ai[rng.integers(0, n1, 20)] = 2**20 - 1  # a few spikes
    exact = np.convolve(ai.astype(np.int64), bi.astype(np.int64))
    scale = 2.0**-20
    a, b = (ai * scale).astype(dtype), (bi * scale).astype(dtype)
    m = n1 + n2 - 1
    n = 1 << (m - 1).bit_length()
    if np.dtype(dtype) == np.longdouble:
        import scipy.fft as sfft

        c = sfft.irfft(sfft.rfft(a, n) * sfft.rfft(b, n), n)[:m]
    else:
        c = np.fft.irfft(np.fft.rfft(a, n) * np.fft.rfft(b, n), n)[:m]
    u = lattice._unit(dtype)
    beta = lattice._fft_error_factor(n, u)
    # the claim lattice.convolve_lattices charges (before the sqrt(m) l2 -> l1 step)
    a1, a2 = float(np.sum(a.astype(float))), float(np.linalg.norm(a.astype(float)))
    b1, b2 = float(np.sum(b.astype(float))), float(np.linalg.norm(b.astype(float)))
    claimed = (3 * beta + u) * (a2 * b1 + a1 * b2) * (1 + 4 * beta)
    # the exact result scaled by 2^-40 (exact in long double; in float64 up to 2^-53 relative,
    # charged below)
    err = np.asarray(c, dtype=np.longdouble) - exact.astype(np.longdouble) * np.longdouble(scale) ** 2
    actual = float(np.sqrt(np.sum(err * err)))
    representation = U * float(np.linalg.norm(exact.astype(float))) * scale**2
    assert actual <= claimed + representation, (actual, claimed)
    assert actual / claimed < 0.05, actual / claimed  # measured far inside the bound (about 1e-3)


def test_the_named_assumptions_are_the_constants_in_use() -> None:
    # the words shown to users state the numbers the proof uses
    assert CDF_ERROR == 1e-15 and "1e-15" in FLOAT_ROUTE_ASSUMPTIONS[0]
    assert "Higham" in FLOAT_ROUTE_ASSUMPTIONS[1] and "24.2" in FLOAT_ROUTE_ASSUMPTIONS[1]
    assert "64 u (|edge| + 32)" in FLOAT_ROUTE_ASSUMPTIONS[2]
    # edge_err in _discretize is 64 U (max|edge| + 32): read it back from a discretisation
    loss = GaussianLoss(1.0)
    h = 1e-3
    step = lattice.discretize(loss, "P", h, 1e-12)
    k_lo, k_hi = step.lattice.k0, step.lattice.k0 + len(step.lattice.w) - 1
    edges = (np.arange(k_lo, k_hi + 2, dtype=float) - 0.5) * h
    edge_err = _displacement(float(np.max(np.abs(edges))))
    expected = h * (1 + 2 * U * (max(abs(k_lo), abs(k_hi)) + 2)) + 2 * edge_err
    assert step.h_eff == pytest.approx(expected, rel=1e-12)
