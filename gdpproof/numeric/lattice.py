r"""The lattice side of the numerical composition: per-step losses rounded to a grid, and their
exact-but-for-float convolution with a proven l1 error bound.

See :mod:`gdpproof.numeric.pld` for the proof of the bracket this serves.  Here:

* :func:`_discretize`: one step's loss, rounded to the nearest point of h Z, with the mean of its
  rounding error as a proven interval and the range of that error;
* :func:`_convolve`: zero-padded FFT convolution (no wrap-around), negatives clipped, tails
  trimmed, with the a-priori l1 error bound of Higham (2002), Thm 24.2;
* :func:`_power`: repeated squaring, the early squarings in long double where numpy has one.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..errors import PrecisionError
from .bound import U
from .losses import CDF_ERROR, Law, PrivacyLoss

#: Unit roundoff of numpy's long double where it is the x87 80-bit format (else float64's).
U_LONG = float(np.finfo(np.longdouble).eps) / 2


def _unit(dtype: Any) -> float:
    return U_LONG if np.dtype(dtype) == np.longdouble else U


def _fft_error_factor(n: int, u: float = U) -> float:
    """Relative l2 error bound beta of an FFT of length n = 2^k in a format with unit roundoff u
    (Higham 2002, Thm 24.2).

    eta = mu + gamma_4 (sqrt 2 + mu) per stage with twiddle error mu = 4u; two more stages are
    charged for the real-input packing of rfft/irfft.
    """
    k = max(1, int(n).bit_length() - 1) + 2
    mu = 4 * u
    gamma4 = 4 * u / (1 - 4 * u)
    eta = mu + gamma4 * (math.sqrt(2) + mu)
    if k * eta >= 0.5:
        raise PrecisionError("FFT too long for the error bound")
    return k * eta / (1 - k * eta)


@dataclass
class _Lattice:
    """A sub-probability vector ``w`` on the points (k0 + i) h, with an l1 error bound ``err``
    against the exact composition of the float per-step laws (same truncations)."""

    k0: int
    w: np.ndarray
    err: float
    _norms: tuple[float, float] | None = field(default=None, repr=False, compare=False)

    def l1(self) -> float:
        return float(math.fsum(self.w.astype(float)))

    def norms(self) -> tuple[float, float]:
        """Upper bounds on the l1 and l2 norms of ``w`` (float sums with their rounding charged)."""
        if self._norms is None:
            n = len(self.w)
            w = self.w.astype(float)
            self._norms = (float(np.sum(w)) * (1 + (n + 2) * U),
                           math.sqrt(float(np.einsum("i,i->", w, w)) * (1 + (n + 2) * U)) * (1 + U))
        return self._norms

    def cast(self, dtype: Any) -> _Lattice:
        """The same lattice in another float format, the rounding charged to ``err``."""
        if self.w.dtype == np.dtype(dtype):
            return self
        w = self.w.astype(dtype)
        extra = _unit(dtype) * self.norms()[0] if np.finfo(dtype).eps > np.finfo(self.w.dtype).eps else 0.0
        return _Lattice(self.k0, w, self.err + extra)


def _convolve(a: _Lattice, b: _Lattice, trim: float, dtype: Any = np.float64) -> _Lattice:
    """Linear convolution (zero-padded rfft, no wrap-around), negatives clipped, tails trimmed.

    ``trim`` is the mass allowed to be dropped from each end; ``dtype`` is float64 or
    ``np.longdouble`` (2048 times more accurate on x86, 3 times slower).  The error bound
    covers the inputs' errors and this FFT's rounding (module doc).
    """
    same = b is a
    a = a.cast(dtype)
    b = a if same else b.cast(dtype)
    u = _unit(dtype)
    la, lb = len(a.w), len(b.w)
    m = la + lb - 1
    if min(la, lb) <= 64:
        c = np.convolve(a.w, b.w)
        fft_err = 2 * (min(la, lb) + 2) * u * float(np.sum(c))  # direct sums: gamma_n bound
    else:
        n = 1 << (m - 1).bit_length()
        if np.dtype(dtype) == np.longdouble:
            import scipy.fft as sfft

            fa = sfft.rfft(a.w, n)
            fb = fa if same else sfft.rfft(b.w, n)
            c = sfft.irfft(fa * fb, n)[:m]
        else:
            fa = np.fft.rfft(a.w, n)
            fb = fa if same else np.fft.rfft(b.w, n)
            c = np.fft.irfft(fa * fb, n)[:m]
        beta = _fft_error_factor(n, u)
        a1, a2 = a.norms()
        b1, b2 = b.norms()
        l2 = (3 * beta + u) * (a2 * b1 + a1 * b2) * (1 + 4 * beta)
        fft_err = math.sqrt(m) * l2
    np.maximum(c, 0, out=c)
    a1e, b1e = a.norms()[0], b.norms()[0]
    err = a.err * (b1e + b.err) + b.err * (a1e + a.err) + a.err * b.err + fft_err
    # trim tails whose total mass is below `trim` (plus this convolution's error bound, the
    # level of its rounding noise) on each side; dropped mass is accounted for as lost
    cut = trim + fft_err
    cs = np.cumsum(c)
    lo = int(np.searchsorted(cs, cut, side="right"))
    rcs = np.cumsum(c[::-1])
    hi = m - int(np.searchsorted(rcs, cut, side="right"))
    if hi <= lo:  # everything below the cut: keep the largest entry
        lo = int(np.argmax(c))
        hi = lo + 1
    return _Lattice(a.k0 + b.k0 + lo, c[lo:hi].copy(), err)


#: Squarings whose error is later multiplied by more than this run in long double.
LONG_DOUBLE_AMPLIFICATION = 64


def _power(v: _Lattice, count: int, budget: float, all_long: bool = False) -> _Lattice:
    """v^{*count} by repeated squaring, dropping at most about ``budget`` of mass in all.

    The square of the l-th level appears count / 2^(l+1) times in the result, so both the mass
    trimmed from it and its rounding error are multiplied by that: trims are scaled down by it,
    and the early squarings run in long double (where numpy has an 80-bit long double).
    """
    levels = max(1, count.bit_length())
    result: _Lattice | None = None
    base = v
    remaining = count
    while True:
        if remaining & 1:
            trim = budget / (4 * levels)
            result = base.cast(np.float64) if result is None else _convolve(result, base, trim)
        remaining >>= 1
        if not remaining:
            break
        copies = remaining  # copies of the new square in the result (at most)
        precise = (all_long or copies > LONG_DOUBLE_AMPLIFICATION) and U_LONG < U
        trim = budget / (4 * levels * copies)
        base = _convolve(base, base, trim, np.longdouble if precise else np.float64)
    assert result is not None
    return result.cast(np.float64)


@dataclass
class _StepLaw:
    """One step's loss rounded to the grid, under one law, with the mean of its rounding error."""

    lattice: _Lattice
    dbar: tuple[float, float]          # interval for E[R - L]
    h_eff: float                       # range of R - L, float edges included


def _discretize(loss: PrivacyLoss, law: Law, h: float, tau: float) -> _StepLaw:
    lo, hi = loss.window(tau, law)
    k_lo = math.floor(lo / h + 0.5)
    k_hi = math.ceil(hi / h - 0.5)
    if k_hi < k_lo:
        k_hi = k_lo
    if k_hi - k_lo > 20_000_000:
        raise PrecisionError(f"grid of {k_hi - k_lo} points for {loss.name}: too fine for this loss "
                             "(a larger grid_step, or rel_width, asks for fewer)")
    ks = np.arange(k_lo, k_hi + 2, dtype=float)
    edges = (ks - 0.5) * h                # edges[i] is the left edge of the bin of point k_lo + i
    cdf = np.maximum.accumulate(np.clip(loss.cdf(edges, law), 0.0, 1.0))
    sf = np.minimum.accumulate(np.clip(loss.sf(edges, law), 0.0, 1.0))
    mid = int(np.searchsorted(cdf, 0.5))  # below: differences of the CDF; above: of the SF
    mid = min(max(mid, 1), len(edges) - 1)
    w = np.empty(len(edges) - 1)
    w[: mid - 1] = np.diff(cdf[:mid])
    w[mid - 1] = max(0.0, (1.0 - sf[mid]) - cdf[mid - 1])
    w[mid:] = -np.diff(sf[mid:])
    np.maximum(w, 0.0, out=w)
    # The bins are (e_i, e_{i+1}] with e_i the float edges as the loss maps them (a few ulps of
    # |edge| + 32 off (k - 1/2) h): the rounding error D = R - L has range at most h_eff.
    max_edge = float(np.max(np.abs(edges)))
    edge_err = 64 * U * (max_edge + 32)
    h_eff = h * (1 + 2 * U * (max(abs(k_lo), abs(k_hi)) + 2)) + 2 * edge_err
    half = 0.5 * h_eff
    # mean of D over the window, from the masses (summation by parts bounds the effect of the
    # CDF errors: h per edge plus the two ends) and the partial mean of L; |D| <= h_eff/2 outside
    grid = (np.arange(k_lo, k_hi + 1, dtype=float)) * h
    max_abs = float(np.max(np.abs(grid))) if len(grid) else 0.0
    er = float(math.fsum(grid * w))
    ce = 4 * CDF_ERROR + 2 * U
    er_err = (h * len(w) * ce + 2 * max_abs * ce + 4 * U * float(math.fsum(np.abs(grid) * w))
              + len(w) * U * max_abs * 1e-3)
    pm_lo, pm_hi = loss.partial_mean(float(edges[0]), float(edges[-1]), law)
    pm_pad = max_edge * 2 * edge_err * 1e-3 + 2 * edge_err  # the partial mean's own edges moved
    outside = float(cdf[0] + sf[-1]) + 2 * CDF_ERROR
    d_lo = er - er_err - pm_hi - pm_pad - half * outside
    d_hi = er + er_err - pm_lo + pm_pad + half * outside
    if d_lo > half or d_hi < -half:
        raise PrecisionError(f"{loss.name}: the mean rounding error [{d_lo:.3g}, {d_hi:.3g}] is outside "
                             f"+-h/2 = {half:.3g}; the loss is not resolved on this grid")
    d_lo, d_hi = max(d_lo, -half), min(d_hi, half)
    return _StepLaw(_Lattice(k_lo, w, 0.0), (d_lo, d_hi), h_eff)

