r"""The lattice side of the numerical composition: per-step losses rounded to a grid, and their
exact-but-for-float convolution with a proven l1 error bound.

See :mod:`gdpproof.accounting.compose` for the proof of the bracket this serves.  Here:

* :func:`discretize`: one step's loss, rounded to the nearest point of h Z, with the mean of its
  rounding error as a proven interval and the range of that error;
* :func:`convolve_lattices`: FFT convolution (zero-padded, or cyclic on half the length where
  :func:`_fold_mass` proves the folded mass tiny), tails trimmed, Higham's (2002) l1 bound;
* :func:`power`: repeated squaring, the early squarings in long double where numpy has one
  (where float64's bound, times the copies of the square, would exceed the caller's share);
* :func:`_convolve_power`: r * b^k (k = 2, 3) by one FFT, the last squarings of
  :func:`power` fused with their products, on half the length when a Chernoff bound
  (:func:`_window_start`) proves the mass folded by the cyclic convolution tiny.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..errors import PrecisionError
from ..numeric.engine.bound import U
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
class Lattice:
    """A sub-probability vector ``w`` on the points (k0 + i) h, with an l1 error bound ``err``
    against the exact composition of the float per-step laws (same truncations)."""

    k0: int
    w: np.ndarray
    err: float
    _norms: tuple[float, float] | None = field(default=None, repr=False, compare=False)
    _spectrum: tuple[int, np.ndarray] | None = field(default=None, repr=False, compare=False)

    def l1(self) -> float:
        """A lower bound on the sum of ``w`` (its entries are >= 0).

        Where numpy's long double is 80-bit the float64 entries are summed in it: any order of
        n additions errs by at most (n - 1) u_L times the exact sum (Higham 2002, eq. 4.4), and
        the result is then rounded once to float64, so float(s) (1 - 2u - 2 n u_L) is below
        the exact sum (n u_L < 1e-12 here).  Elsewhere ``math.fsum`` (correctly rounded), one
        u charged.
        """
        n = len(self.w)
        if U_LONG < U and n * U_LONG < 1e-12:
            s = float(np.sum(self.w.astype(np.longdouble)))
            return max(0.0, s * (1 - 2 * U - 2 * n * U_LONG))
        return max(0.0, float(math.fsum(self.w.astype(float))) * (1 - 2 * U))

    def spectrum(self, n: int) -> np.ndarray:
        """``rfft(w, n)`` of a float64 lattice, kept for the last n asked: repeated squaring
        multiplies a square into the result and then squares it, often at the same length."""
        if self._spectrum is None or self._spectrum[0] != n:
            self._spectrum = (n, np.fft.rfft(self.w, n))
        return self._spectrum[1]

    def norms(self) -> tuple[float, float]:
        """Upper bounds on the l1 and l2 norms of ``w`` (float sums with their rounding charged)."""
        if self._norms is None:
            n = len(self.w)
            w = self.w.astype(float)
            self._norms = (float(np.sum(w)) * (1 + (n + 2) * U),
                           math.sqrt(float(np.einsum("i,i->", w, w)) * (1 + (n + 2) * U)) * (1 + U))
        return self._norms

    def cast(self, dtype: Any) -> Lattice:
        """The same lattice in another float format, the rounding charged to ``err``."""
        if self.w.dtype == np.dtype(dtype):
            return self
        w = self.w.astype(dtype)
        extra = _unit(dtype) * self.norms()[0] if np.finfo(dtype).eps > np.finfo(self.w.dtype).eps else 0.0
        return Lattice(self.k0, w, self.err + extra)


def _fft_bound(a: Lattice, b: Lattice, n: int, u: float) -> float:
    """The a-priori l1 error bound of the zero-padded FFT convolution of a and b at length n
    (a power of 2) in a format with unit roundoff u (Higham 2002, Thm 24.2; :func:`convolve_lattices`).

    The derivation, with a1, a2, b1, b2 the l1 and l2 norms of the vectors transformed, X, Y their
    unnormalized DFTs and beta the relative l2 error of one transform (:func:`_fft_error_factor`):
    the computed spectra are X^ = X + E_X, ||E_X||_2 <= beta sqrt(n) a2 (so for Y), pointwise
    |X| <= a1 and |Y^| <= b1 + beta sqrt(n) b2; so ||X^ Y^ - X Y||_2 <= sqrt(n) (beta a2 (b1 +
    beta sqrt(n) b2) + beta a1 b2).  The complex products round by a factor (1 + th), |th| <=
    sqrt(2) gamma_2 (Higham Lemma 3.5), adding sqrt(2) gamma_2 ||X^ Y^||_2 <= sqrt(2) gamma_2
    (1 + beta) sqrt(n) a2 (b1 + beta sqrt(n) b2).  The inverse transform (1/n exact) maps l2 norms
    by 1/sqrt(n) and adds beta ||Z^||_2 / sqrt(n) <= beta (a2 b1 + the error so far) (Young:
    ||a * b||_2 <= a2 b1).  Collected, with s = beta sqrt(n) (below 1e-5 for every length the
    lattice builds, since beta is about 30 u log2 n):

        ||c^ - c||_2 <= (1 + beta) [beta a2 b1 (1 + s) + beta a1 b2 + sqrt(2) gamma_2 (1 + beta)
                        a2 b1 (1 + s)] + beta a2 b1,

    whose leading terms are 2 beta a2 b1 + beta a1 b2 + 2.83 u a2 b1.  Since beta >= 3 (4u +
    gamma_4 sqrt 2) > 29 u, this is below (3 beta + u)(a2 b1 + a1 b2)(1 + 4 beta), the charge
    used: its extra beta a2 b1 (at least 29 u a2 b1) covers the 1.83 u a2 b1 the product
    rounding needs beyond u and the terms of order beta s a2 b1 (s < 1e-5), its extra 2 beta a1 b2
    and factor (1 + 4 beta) the terms of order beta^2.  The l1 error over the m entries kept is at
    most sqrt(m) times the l2 error (c is 0 beyond them)."""
    m = min(len(a.w) + len(b.w) - 1, n)  # n < m: a cyclic window of n entries (:func:`_fold_mass`)
    beta = _fft_error_factor(n, u)
    if beta * math.sqrt(n) > 1e-5:  # the derivation's s; never near for a length numpy can hold
        raise PrecisionError(f"FFT length {n}: beta sqrt(n) = {beta * math.sqrt(n):.2g} is beyond the error bound's range")
    a1, a2 = a.norms()
    b1, b2 = b.norms()
    return math.sqrt(m) * (3 * beta + u) * (a2 * b1 + a1 * b2) * (1 + 4 * beta)


def _fft_length(a: Lattice, b: Lattice) -> int:
    """The FFT length of a linear convolution of a and b: the power of 2 with no wrap-around."""
    return 1 << (len(a.w) + len(b.w) - 2).bit_length()


#: :func:`convolve_lattices` takes half the FFT length where the mass folded is at most this
#: share of its trim.
FOLD_SHARE = 2.0 ** -30


def convolve_lattices(a: Lattice, b: Lattice, trim: float, dtype: Any = np.float64) -> Lattice:
    """Linear convolution (zero-padded rfft, no wrap-around; on half the length, cyclic, where
    the mass it folds into the window is proven at most FOLD_SHARE ``trim``), negatives clipped,
    tails trimmed.

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
    start = 0
    if min(la, lb) <= 64:
        c = np.convolve(a.w, b.w)
        fft_err = 2 * (min(la, lb) + 2) * u * float(np.sum(c))  # direct sums: gamma_n bound
    else:
        n = _fft_length(a, b)
        # half the length where the mass the cyclic convolution folds into a window of n / 2
        # entries is proven at most what the shorter FFT's bound saves (so the error charged,
        # and the trims it widens, are never larger than the full length's), and at most
        # FOLD_SHARE of `trim` (both inputs must fit in the window: rfft(w, n) would crop them)
        fold = 0.0
        if n >= 4096 and max(la, lb) <= n // 2 and np.dtype(dtype) == np.longdouble:  # (float64: not worth it)
            start, fold = _fold_mass(a, b, n // 2)
            if fold <= min(FOLD_SHARE * trim, _fft_bound(a, b, n, u) - _fft_bound(a, b, n // 2, u)):
                n //= 2
            else:
                start, fold = 0, 0.0
        if np.dtype(dtype) == np.longdouble:
            import scipy.fft as sfft

            fa = sfft.rfft(a.w, n)
            fb = fa if same else sfft.rfft(b.w, n)
            c = sfft.irfft(fa * fb, n)
        else:  # the spectra are those numpy's rfft computes, kept for reuse (same bound)
            fa = a.spectrum(n)
            fb = fa if same else b.spectrum(n)
            c = np.fft.irfft(fa * fb, n)
        c = c[:m] if n >= m else np.roll(c, -(start % n))  # cyclic: the window [start, start + n)
        fft_err = _fft_bound(a, b, n, u) + fold
    np.maximum(c, 0, out=c)
    a1e, b1e = a.norms()[0], b.norms()[0]
    err = a.err * (b1e + b.err) + b.err * (a1e + a.err) + a.err * b.err + fft_err
    # trim tails whose total mass is below `trim` (plus this convolution's error bound, the
    # level of its rounding noise) on each side; dropped mass is accounted for as lost
    return _trimmed(c, a.k0 + b.k0 + start, trim + fft_err, err)


def _fold_mass(a: Lattice, b: Lattice, n: int) -> tuple[int, float]:
    """(start, fold): a window [start, start + n) of the linear convolution c = a * b (indices
    from 0, n < len(c)) centred on its mean, and a proven upper bound on c's mass outside it,
    which a cyclic convolution of length n folds into the window (charged to the error, it also
    covers the mass lost from the window: :func:`_window_start`).

    The mass is summed exactly as written, not bounded by moments: sum_{k >= e} c_k =
    sum_i a_i S_b(e - i) with S_b(t) = sum_{j >= t} b_j, and sum_{k < s} c_k = sum_i a_i
    P_b(s - 1 - i) with P_b(t) = sum_{j <= t} b_j.  Every term is non-negative, so the float
    sums err by at most (la + lb + 2) u relatively (Higham 2002, eq. 4.4, for the prefix sums,
    the products and the final sum), and a long double input rounded to float64 by u per
    entry: the result is raised by 4 (la + lb + 4) u relatively.  Below the normal range each cast,
    product and partial sum may also err by 2^-1075 absolutely (subnormal results): at most
    (la + lb + 4) max(1, ta, tb)^2 2^-1073 in all, added."""
    wa, wb = a.w.astype(float), b.w.astype(float)
    la, lb = len(wa), len(wb)
    m = la + lb - 1
    ta, tb = float(np.sum(wa)), float(np.sum(wb))
    if not (ta > 0 and tb > 0):
        return 0, math.inf
    mean = float(np.sum(wa * np.arange(la, dtype=float))) / ta + float(np.sum(wb * np.arange(lb, dtype=float))) / tb
    start = min(max(0, int(round(mean - n / 2))), m - n)
    # right: sum_i a_i sum_{j >= e - i} b_j, e = start + n: only i > e - lb counts, with the suffix
    # sums of b's last m - e entries; left: sum_i a_i sum_{j <= start - 1 - i} b_j, i < start,
    # with the prefix sums of b's first start entries (O(m - n) work, not O(m))
    e = start + n
    r = m - e                                   # entries beyond the window on the right
    right = 0.0
    if r > 0:
        tail = np.cumsum(wb[lb - r:][::-1])[::-1]   # tail[k] = sum_{j >= lb - r + k} b_j
        i = np.arange(max(0, e - lb + 1), la)       # j from e - i, at least lb - r ... lb - 1
        right = float(np.sum(wa[i] * tail[e - i - (lb - r)]))
    left = 0.0
    if start > 0:
        head = np.cumsum(wb[:start])                # head[t] = sum_{j <= t} b_j
        i = np.arange(min(start, la))
        t = start - 1 - i
        left = float(np.sum(wa[i] * head[np.minimum(t, lb - 1)]))
    subnormal = (la + lb + 4) * max(1.0, ta, tb) ** 2 * 2.0**-1073
    return start, (left + right) * (1 + 4 * (la + lb + 4) * U) + subnormal


def _convolve_power(r: Lattice, b: Lattice, k: int, trim: float, fold_budget: float | None = None) -> Lattice:
    """r * b^{*k} (k = 2 or 3) in float64 by one zero-padded FFT length (no wrap-around):
    irfft(R B^k), the last squarings of a repeated squaring fused with the products they
    serve (r * b * b: three FFTs where the square and then the product take five; r * b^3:
    three where five or six), with no intermediate trims.  The half length is taken when the
    mass it folds (and loses) is proven at most ``fold_budget`` (default ``trim``).

    The error bound follows Higham (2002), Thm 24.2, as in :func:`convolve_lattices`.  Let X = DFT(r),
    Y = DFT(b) (length n, unnormalized), X^ = X + E_X, Y^ = Y + E_Y the computed spectra with
    ||E_X||_2 <= beta ||X||_2 = beta sqrt(n) r2 (and so for Y), where r1, r2 and b1, b2 bound
    the l1 and l2 norms of the float vectors transformed (r may be b).  Pointwise |X| <= r1,
    |Y| <= b1 and |Y^| <= b1' = b1 + beta sqrt(n) b2, so |Y^^k - Y^k| <= k b1'^{k-1} |E_Y| and

        X^ Y^^k - X Y^k = E_X Y^^k + X (Y^^k - Y^k),
        ||.||_2 <= sqrt(n) (beta r2 b1'^k + k beta r1 b2 b1'^{k-1}) = sqrt(n) A;

    the k complex products multiply X^ Y^^k by prod (1 + th_i), |th_i| <= sqrt 2 gamma_2
    (Higham Lemma 3.5), so they add at most nu ||X^ Y^^k||_2 <= nu sqrt(n) (1 + beta) r2 b1'^k,
    nu = (1 + sqrt 2 gamma_2)^k - 1.  With D = A + nu (1 + beta) r2 b1'^k, ||Z^ - Z||_2 <=
    sqrt(n) D where Z = DFT(r * b^k) and ||Z||_2 = sqrt(n) ||r * b^k||_2 <= sqrt(n) r2 b1^k
    (Young); the inverse FFT (its 1/n a power of 2, exact) errs by at most beta ||Z^||_2 /
    sqrt(n), so the computed c^ has ||c^ - c||_2 <= (1 + beta) D + beta r2 b1^k, and the l1
    error over the m = len(r) + k (len(b) - 1) entries kept is at most sqrt(m) times that (c is
    0 beyond them; clipping negatives to 0 only moves c^ toward c >= 0).  The inputs' own
    errors (l1, e_r and e_b) propagate as r~ * b~^k - r * b^k = e_r * b~^k + r * (b~^k - b^k),
    with ||b~^k - b^k||_1 <= k ||e_b||_1 (b1 + ||e_b||_1)^{k-1}.
    """
    if k not in (2, 3):
        raise ValueError(f"k={k}: must be 2 or 3")
    u = U
    m = len(r.w) + k * (len(b.w) - 1)
    n = 1 << (m - 1).bit_length()
    start, fold = 0, 0.0
    # half the length, where the mass beyond a window of n / 2 is proven tiny (and both inputs
    # fit in it: rfft(w, n) would crop a longer one)
    if n >= 4096 and max(len(r.w), len(b.w)) <= n // 2:
        allowed = trim if fold_budget is None else max(trim, fold_budget)
        start, fold = _window_start(r, b, k, n // 2, m, allowed)
        if fold <= allowed:
            n //= 2
        else:
            start, fold = 0, 0.0
    fb = b.spectrum(n)
    z = r.spectrum(n) * fb
    for _ in range(k - 1):
        z *= fb  # products, not complex powers (numpy's ** goes through exp and log)
    c = np.fft.irfft(z, n)
    if n >= m:
        c = c[:m]
    else:  # cyclic: entry i holds the linear entries i + j n; read the window [start, start + n)
        c = np.roll(c, -(start % n))
        m = n
    beta = _fft_error_factor(n, u)
    r1, r2 = r.norms()
    b1, b2 = b.norms()
    b1p = b1 + beta * math.sqrt(n) * b2
    gamma2 = 2 * u / (1 - 2 * u)
    nu = (1 + math.sqrt(2) * gamma2) ** k - 1
    big_a = beta * r2 * b1p ** k + k * beta * r1 * b2 * b1p ** (k - 1)
    big_d = big_a + nu * (1 + beta) * r2 * b1p ** k
    fft_err = math.sqrt(m) * ((1 + beta) * big_d + beta * r2 * b1 ** k) * (1 + 8 * u)
    np.maximum(c, 0, out=c)
    err = r.err * (b1 + b.err) ** k + (r1 + r.err) * k * b.err * (b1 + b.err) ** (k - 1) + fft_err + fold
    return _trimmed(c, r.k0 + k * b.k0 + start, trim + fft_err, err)


def _log_mgf(log_w: np.ndarray, lam: float) -> float:
    """An upper bound on log sum_j w_j e^{lam j} (j = 0, 1, ...), given log w (-inf where
    w = 0, each finite log w_j within a few u |log w_j| of its value): the terms are taken
    relative to the largest, which is 1, so those that underflow lose less than n 5e-324 of the
    sum.  The float errors are charged to the logarithm: the exponents x_j = lam j + log w_j and
    x_j - top err by at most 8 u (|lam| n + max |log w_j|) (so each term by that factor), exp
    and the logarithm by a few u, the sum of n terms by n u relatively; 1e-6 is added to cover
    the last two (n u < 1e-9 for any length numpy holds) and the first is computed."""
    n = len(log_w)
    x = lam * np.arange(n, dtype=float) + log_w
    top = float(np.max(x))
    if not math.isfinite(top):
        return -math.inf
    finite = log_w[np.isfinite(log_w)]
    exponent_err = 8 * U * (abs(lam) * n + float(np.max(np.abs(finite))) + abs(top))
    return top + math.log(float(np.sum(np.exp(x - top)))) + 1e-6 + exponent_err


def _window_start(r: Lattice, b: Lattice, k: int, n: int, m: int, trim: float) -> tuple[int, float]:
    """(start, fold): a window [start, start + n) of the linear convolution c = r * b^{*k}
    (indices from 0) centred on its mean, and a proven upper bound on c's mass outside it.

    Chernoff (Markov on e^{lam i}): for lam > 0, sum_{i >= e} c_i <= e^{-lam e} M(lam) and for
    lam < 0, sum_{i <= s - 1} c_i <= e^{-lam (s - 1)} M(lam), where M(lam) = sum_i c_i e^{lam i}
    = M_r(lam) M_b(lam)^k (the generating function of a convolution is the product), each M
    bounded by :func:`_log_mgf`; lam = distance / variance (the Gaussian optimum; any lam is
    valid: a few are tried, heavier tails want smaller ones).  A cyclic convolution of length
    n folds exactly that mass into the window, so the window's l1 error grows by at most
    ``fold`` (charged to ``err``).  The total mass is unchanged by the folding, so ``1 - l1``
    does not see the mass outside the window: it is covered by that same charge, since the
    caller counts ``err`` as lost mass too (:func:`gdpproof.accounting.compose.compose_losses`: lost
    = 1 - l1 + err).  The bound is Markov's inequality on the finite non-negative vectors, valid
    whatever their tails (heavy ones only make it loose, and the full length is then used).
    (inf, when the window cannot hold the mean with room, or the bound exceeds ``trim``.)
    """
    def moments(w: np.ndarray) -> tuple[float, float]:
        j = np.arange(len(w), dtype=float)
        t = float(np.sum(w))
        # elementwise products and numpy's sum, not ``@``: BLAS's dot wakes its threads, 10-30 ms
        # a call on a shared machine against 0.03 ms
        mean = float(np.sum(w * j)) / t
        return mean, float(np.sum(w * (j - mean) ** 2)) / t

    if not (float(np.sum(r.w)) > 0 and float(np.sum(b.w)) > 0):
        return 0, math.inf
    mr, vr = moments(r.w)
    mb, vb = moments(b.w)
    with np.errstate(divide="ignore"):
        log_r, log_b = np.log(r.w), np.log(b.w)
    mean, var = mr + k * mb, vr + k * vb + 1.0
    start = min(max(0, int(round(mean - n / 2))), m - n)
    fold = 0.0
    # the right side is the entries i >= start + n (lam > 0), the left one i <= start - 1 (lam < 0):
    # the sign of lam is the side's, whatever the float mean says
    for edge, side in ((start + n, 1), (start - 1, -1)):
        dist = side * (edge - mean)
        if edge < 0 or edge >= m:
            continue  # no linear entry beyond this side
        if not dist > 3 * math.sqrt(var):
            return start, math.inf
        best = math.inf
        for shrink in (1, 4, 16, 64):  # heavier tails than Gaussian want a smaller lam
            lam = side * dist / var / shrink
            log_bound = _log_mgf(log_r, lam) + k * _log_mgf(log_b, lam) - lam * edge
            log_bound += 4 * U * (abs(log_bound) + abs(lam * edge))  # the sum's own rounding
            best = min(best, math.exp(min(log_bound, 700.0)))
            if best <= trim / 4:
                break
        fold += best
        if fold > trim:
            return start, math.inf
    return start, fold * (1 + 1e-9)


def _trimmed(c: np.ndarray, k0: int, cut: float, err: float) -> Lattice:
    """The lattice c >= 0 at k0 with tails of mass about ``cut`` at most dropped from each end.

    The dropped mass is not subtracted from ``err``: the caller counts all mass missing at the
    end (``1 - l1``), so the float cumulative sums that choose the cuts (the right tail read as
    total - prefix) need not be exact."""
    m = len(c)
    cs = np.cumsum(c)
    lo = int(np.searchsorted(cs, cut, side="right"))
    hi = min(m, int(np.searchsorted(cs, float(cs[-1]) - cut, side="left")) + 1)
    if hi <= lo:  # everything below the cut: keep the largest entry
        lo = int(np.argmax(c))
        hi = lo + 1
    return Lattice(k0 + lo, c[lo:hi].copy(), err)


#: Squarings whose error is later multiplied by more than this run in long double.
LONG_DOUBLE_AMPLIFICATION = 64


def power(v: Lattice, count: int, budget: float, all_long: bool = False,
           fft_error: float | None = None) -> Lattice:
    """v^{*count} by repeated squaring, dropping at most about ``budget`` of mass in all (the
    trims), and at most ``budget`` more where the last, fused step runs on half its length (the
    mass its cyclic window folds in is charged to the error, the mass outside it is lost; at
    T = 1e5 the window is about +-6.7 standard deviations, whose Chernoff bound, about 2e-10, the
    per-level trim alone would refuse).

    The square of the l-th level appears count / 2^(l+1) times in the result, so both the mass
    trimmed from it and its rounding error are multiplied by that: trims are scaled down by it,
    and the early squarings run in long double (where numpy has an 80-bit long double): those
    repeated more than LONG_DOUBLE_AMPLIFICATION times, or, given ``fft_error`` (an l1 error
    the caller can afford), those whose float64 bound times their copies exceeds its share
    fft_error / levels.  Either way every convolution's own bound is charged; the choice only
    moves cost between formats.
    """
    levels = max(1, count.bit_length())
    result: Lattice | None = None
    base = v
    remaining = count
    while True:
        if remaining in (2, 3) and not all_long and len(base.w) > 64 and (result is None or len(result.w) > 64):
            # what is left is result * base^remaining: one FFT length for all of it, where
            # float64's bound fits the share (as the separate squaring would in float64)
            f64 = _fft_bound(base, base, _fft_length(base, base), U)
            if fft_error is None or 3 * f64 <= fft_error / levels:
                b64 = base.cast(np.float64)
                r, k = (b64, remaining - 1) if result is None else (result, remaining)
                result = convolve_lattices(b64, b64, budget / (4 * levels)) if k == 1 else \
                    _convolve_power(r, b64, k, budget / (4 * levels), fold_budget=budget)
                break
        if remaining & 1:
            trim = budget / (4 * levels)
            result = base.cast(np.float64) if result is None else convolve_lattices(result, base, trim)
        remaining >>= 1
        if not remaining:
            break
        copies = remaining  # copies of the new square in the result (at most)
        if fft_error is None:
            precise = (all_long or copies > LONG_DOUBLE_AMPLIFICATION) and U_LONG < U
        else:
            f64 = _fft_bound(base, base, _fft_length(base, base), U) if len(base.w) > 64 else 0.0
            precise = (all_long or copies * f64 > fft_error / levels) and U_LONG < U
        trim = budget / (4 * levels * copies)
        base = convolve_lattices(base, base, trim, np.longdouble if precise else np.float64)
    assert result is not None
    out = result.cast(np.float64)
    out._spectrum = None  # not kept with the composed law
    return out


@dataclass
class _StepLaw:
    """One step's loss rounded to the grid, under one law, with the mean of its rounding error."""

    lattice: Lattice
    dbar: tuple[float, float]          # interval for E[R - L]
    h_eff: float                       # range of R - L, float edges included
    second: float = math.inf           # upper bound on E[(R - L)^2] (:func:`_second_moment`)
    bulk_bins: int = -1                # bins between the BULK_TAIL quantiles (-1: not computed)


def discretize(loss: PrivacyLoss, law: Law, h: float, tau: float, moments: bool = True,
               mean: bool = True) -> _StepLaw:
    """One step's loss under ``law`` rounded to h Z (window at tail mass tau), with the mean of its
    rounding error D, its range and, with ``moments``, a bound on E[D^2] (else the trivial one,
    bulk_bins -1).  Without ``mean``, the mean's interval is the trivial [-h_eff/2, h_eff/2] (D
    never leaves it), without the partial-mean integral that narrows it."""
    k_lo, k_hi = _grid_range(loss, law, h, tau)
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
    max_edge, edge_err, h_eff = _edge_errors(k_lo, k_hi, h)
    half = 0.5 * h_eff
    # mean of D over the window, from the masses (summation by parts bounds the effect of the
    # CDF errors: h per edge plus the two ends) and the partial mean of L; |D| <= h_eff/2 outside
    grid = (np.arange(k_lo, k_hi + 1, dtype=float)) * h
    max_abs = float(np.max(np.abs(grid))) if len(grid) else 0.0
    er = float(math.fsum(grid * w))
    ce = 4 * CDF_ERROR + 2 * U
    er_err = (h * len(w) * ce + 2 * max_abs * ce + 4 * U * float(math.fsum(np.abs(grid) * w))
              + len(w) * U * max_abs * 1e-3)
    outside = float(cdf[0] + sf[-1]) + 2 * CDF_ERROR

    def narrow() -> tuple[float, float]:
        pm_lo, pm_hi = loss.partial_mean(float(edges[0]), float(edges[-1]), law)
        pm_pad = max_edge * 2 * edge_err * 1e-3 + 2 * edge_err  # the partial mean's own edges moved
        d_lo = er - er_err - pm_hi - pm_pad - half * outside
        d_hi = er + er_err - pm_lo + pm_pad + half * outside
        if d_lo > half or d_hi < -half:
            raise PrecisionError(f"{loss.name}: the mean rounding error [{d_lo:.3g}, {d_hi:.3g}] is outside "
                                 f"+-h/2 = {half:.3g}; the loss is not resolved on this grid")
        return max(d_lo, -half), min(d_hi, half)

    second, bulk_bins = (trivial_second(h_eff), -1) if not moments else \
        _second_moment(loss, law, h, k_lo, cdf, sf, h_eff, edge_err)
    return _StepLaw(Lattice(k_lo, w, 0.0), narrow() if mean else (-half, half), h_eff, second, bulk_bins)


def trivial_second(h_eff: float) -> float:
    """The trivial bound on a step's E D^2 for a rounding error D of range ``h_eff`` (|D| <= h_eff / 2),
    rounded up."""
    return (0.5 * h_eff) ** 2 * (1 + 4 * U)


def _grid_range(loss: PrivacyLoss, law: Law, h: float, tau: float) -> tuple[int, int]:
    """The points k_lo .. k_hi of h Z that :func:`discretize` rounds the window (tails tau) to."""
    lo, hi = loss.window(tau, law)
    k_lo = math.floor(lo / h + 0.5)
    k_hi = math.ceil(hi / h - 0.5)
    if k_hi < k_lo:
        k_hi = k_lo
    if k_hi - k_lo > 20_000_000:
        raise PrecisionError(f"grid of {k_hi - k_lo} points for {loss.name}: too fine for this loss "
                             "(a larger grid_step, or rel_width, asks for fewer)")
    return k_lo, k_hi


def _edge_errors(k_lo: int, k_hi: int, h: float) -> tuple[float, float, float]:
    """(the largest |edge|, the displacement of a mapped edge, h_eff) of the bins (k - 1/2) h,
    k from k_lo to k_hi + 1: the bins are (e_i, e_{i+1}] with e_i the float edges as the loss maps
    them (a few ulps of |edge| + 32 off (k - 1/2) h), so the rounding error D = R - L has range
    at most h_eff.  The largest |edge| is at an end (the float edges are monotone)."""
    max_edge = max(abs((k_lo - 0.5) * h), abs((k_hi + 0.5) * h))
    edge_err = 64 * U * (max_edge + 32)
    return max_edge, edge_err, h * (1 + 2 * U * (max(abs(k_lo), abs(k_hi)) + 2)) + 2 * edge_err


def grid_h_eff(loss: PrivacyLoss, law: Law, h: float, tau: float) -> float:
    """The h_eff :func:`discretize` finds for ``loss`` under ``law`` (grid h, tails tau), without
    discretizing it (so its PrecisionError on a grid too fine too)."""
    return _edge_errors(*_grid_range(loss, law, h, tau), h)[2]


#: :func:`_second_moment` evaluates the CDF at most this many times per step law.
SUBCELL_POINTS = 2**16
#: ... on the bins between the quantiles BULK_TAIL and 1 - BULK_TAIL (outside, D^2 <= h_eff^2/4).
BULK_TAIL = 1e-6


def subcells(bins: int) -> int:
    """The cells a bin :func:`_second_moment` cuts ``bins`` bins into: a power of 2 in [4, 64]
    with at most SUBCELL_POINTS cells in all, or 0 (too many bins: the trivial bound)."""
    m = 64
    while m > 4 and bins * m > SUBCELL_POINTS:
        m //= 2
    return m if bins * m <= SUBCELL_POINTS else 0


def cell_factor(m: int) -> float:
    """The bound of :func:`_second_moment` over h^2 / 4 for a law smooth on the scale h, with m
    cells a bin (1 for m = 0, the trivial bound): an estimate, for choosing grids."""
    return (m + 2) * (m + 1) / (6 * m * m) if m else 1.0


def _second_moment(loss: PrivacyLoss, law: Law, h: float, k_lo: int, cdf: np.ndarray, sf: np.ndarray,
                   h_eff: float, edge_err: float) -> tuple[float, int]:
    r"""An upper bound on E[D^2], D = R - L the rounding error of one step (for Bernstein's
    inequality in :func:`gdpproof.accounting.compose.compose_losses`; the trivial bound is h_eff^2 / 4),
    and the number of bins of the bulk.

    Each bin ((k - 1/2) h, (k + 1/2) h] of the bulk is cut into M cells of width h / M (M a power
    of 2 in [4, 64], at most SUBCELL_POINTS cells in all, else the trivial bound); on cell r of bin k,
    |D| = |k h - L| <= max(|a_r|, |b_r|) + 2 e =: sqrt(c_r), a_r = (r / M - 1/2) h,
    b_r = ((r + 1) / M - 1/2) h, where e is the displacement of a mapped edge (``edge_err``,
    the float route's third assumption; 2 e < h / M is checked, so an L inside a cell that
    touches no bin edge is in bin k whatever the float edges do, and one in a cell that does
    has |D| <= h/2 + 2 e).  Each cell's mass is the difference of two float CDF values, within
    2 CDF_ERROR of the truth (clipped at 0, which only raises it), so

        E[D^2] <= sum_cells (F(x_{j+1}) - F(x_j))_+ c_j + 2 CDF_ERROR N h_eff^2 / 4
                  + (h_eff^2 / 4) (F(x_0) + 1 - F(x_N) + 2 CDF_ERROR),

    the last term the mass outside the bulk (the cells and the outside are read from the same
    computed F(x_j), so they cover the line whatever the edges' displacements, a cell whose
    edges cross counting 0 and its neighbours the rest).  For a law smooth on the scale h this is about
    (M + 2)(M + 1) / (6 M^2) h^2 / 4 against the uniform's h^2 / 12 (0.34 h^2 / 4 at M = 64).
    """
    trivial = (0.5 * h_eff) ** 2 * (1 + 4 * U)
    n = len(cdf) - 1
    i0 = max(0, int(np.searchsorted(cdf, BULK_TAIL, side="right")) - 1)
    i1 = min(n, max(i0 + 1, int(np.searchsorted(-sf, -BULK_TAIL, side="left"))))
    bins = i1 - i0
    m = subcells(bins)
    if not m or not 2 * edge_err < h / m:
        return trivial, bins
    j = np.arange(bins * m + 1, dtype=float)
    x = (k_lo + i0 - 0.5 + j / m) * h     # j / m and the sum are exact: one rounding, as the bins'
    f = np.clip(loss.cdf(x, law), 0.0, 1.0)
    mass = np.maximum(np.diff(f), 0.0)
    r = np.arange(m, dtype=float)
    reach = np.maximum(np.abs(r / m - 0.5), np.abs((r + 1) / m - 0.5)) * h + 2 * edge_err
    c = np.minimum(0.5 * h_eff, reach) ** 2 * (1 + 4 * U)
    inside = float(np.sum(mass.reshape(bins, m) * c)) * (1 + (bins * m + 8) * U)
    outside = float(f[0]) + (1.0 - float(f[-1])) + 2 * CDF_ERROR   # the same float edges as the cells
    bound = inside + trivial * (2 * CDF_ERROR * bins * m + outside)
    return min(trivial, bound * (1 + 4 * U)), bins

