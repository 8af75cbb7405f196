r"""Numerical composition of privacy-loss distributions with a proven bracket on delta and epsilon.

The privacy loss of an ordered pair (P, Q) is L = log(dP/dQ)(o), o ~ P.  The T-fold composition
has loss S = L_1 + ... + L_T and

    delta_{P||Q}(eps) = E_P[(1 - e^{eps - S})_+],   delta_{Q||P}(eps) = E_Q[(1 - e^{eps + S})_+].

A mechanism is (eps, delta)-DP for a neighbouring relation when delta bounds both orderings; the
answer reported is the worse of the two (for the Poisson-subsampled Gaussian: "remove", P the
mixture, and "add").

**How the bracket is proven.**  Each loss is rounded to the nearest point of the grid h Z:
R = h round(L / h), bins ((k - 1/2) h, (k + 1/2) h].  The rounding error D = R - L lies in an
interval of length h, is independent across steps and has a mean dbar we compute (from the grid
masses and the partial mean of L, an integral).  Hoeffding's inequality gives, except with
probability eta, |S_R - S - T dbar| <= t = h sqrt(T log(1/eta) / 2); since (1 - e^{eps - s})_+ is
non-decreasing in s and lies in [0, 1],

    E g(S_R - T dbar - t) - eta  <=  delta(eps)  <=  E g(S_R - T dbar + t) + eta.

So one lattice distribution gives both sides, and the bracket is about 2 t wide in epsilon:
it shrinks like h sqrt(T), not like h T as rounding all losses up or down would.  The lattice law
of S_R is composed exactly except for:

* truncation: per-step mass beyond the window and mass trimmed from the tails after each
  convolution is dropped; the upper bound adds all of it back at +infinity (it counts as 1);
* the float64 CDF: each bin edge is mapped to the mechanism's output space in float64 (which
  moves the edge by a few ulps: the rounding map's bins move, charged to the range h_eff of D),
  and the CDF there is accurate to ``CDF_ERROR`` = 1e-15 (absolute; an assumption about
  ``scipy.special.ndtr`` and the few float operations around it, whose worst error the test
  suite measures against arb and mpmath at 1.6e-16).  That moves each step's law by at most
  5 CDF_ERROR in Kolmogorov distance, hence T times that at the end;
* FFT rounding: each convolution (zero-padded, so there is no wrap-around) is charged the
  a-priori l1 error bound of Higham, *Accuracy and Stability of Numerical Algorithms* (2002),
  Thm 24.2, for an FFT of length 2^k, with twiddle factors accurate to 4u; the errors are
  propagated through the repeated squaring.  The theorem is for radix-2 Cooley–Tukey; numpy's
  pocketfft uses radix-4 and real-input passes, and that it obeys the same bound is an
  assumption (measured: actual / claimed error <= 3e-3 against exact integer convolution, in
  review, and checked against exact rationals in the test suite).  This is not interval
  arithmetic; the other steps of the proof are.

The result is a :class:`Bound` whose ``lower`` is rounded down and ``upper`` rounded up.
Composition is by repeated squaring; after each convolution the tails below the trimming budget
and the convolution's own error bound are dropped (and counted as lost), so memory is bounded
by the width of the composed distribution on the grid, not by T.

References: Koskela, Jälkö & Honkela (AISTATS 2020) and Gopi, Lee & Wutschitz (NeurIPS 2021)
for FFT accounting and its error analysis (the Hoeffding coupling is theirs in spirit: their
"PRV accountant" bounds the same discretisation error); Dong, Roth & Su (2022) for the
trade-off view; Higham (2002) for the FFT error bound.
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import flint
import mpmath
import numpy as np
import scipy.special as sc

from .._args import _bad, nonnegative, positive, probability
from ..errors import InvalidParameterError, PrecisionError
from ._mp import arb_precision
from .certify import Certified

__all__ = [
    "Bound",
    "PrivacyLoss",
    "GaussianLoss",
    "LaplaceLoss",
    "RandomizedResponseLoss",
    "SubsampledGaussianLoss",
    "ComposedLoss",
    "compose_losses",
    "CDF_ERROR",
    "DPSGDBracket",
    "dpsgd_epsilon",
    "epsilon_bracket",
    "HonestMu",
]

#: Unit roundoff of float64.
U = 2.0 ** -53
#: Assumed absolute error of the float64 CDF and survival-function evaluations (see module doc).
CDF_ERROR = 1e-15

Law = str  # "P" or "Q"


@dataclass(frozen=True)
class Bound:
    """A proven bracket ``lower <= value <= upper`` (floats; lower rounded down, upper up).

    Examples
    --------
    >>> b = Bound(1.0, 1.01)
    >>> 1.005 in b, round(b.relative_width, 6)
    (True, 0.01)
    """

    lower: float
    upper: float

    def __post_init__(self) -> None:
        if not self.lower <= self.upper:
            raise ValueError(f"Bound needs lower <= upper, got [{self.lower}, {self.upper}]")

    def __contains__(self, x: object) -> bool:
        return bool(self.lower <= x <= self.upper)  # type: ignore[operator]

    @property
    def width(self) -> float:
        """upper - lower, rounded up."""
        return _up(self.upper - self.lower)

    @property
    def relative_width(self) -> float:
        """(upper - lower) / lower; infinite when lower is 0 and the bracket is not a point."""
        if self.lower == self.upper:
            return 0.0
        return self.width / self.lower if self.lower > 0 else math.inf

    @property
    def mid(self) -> float:
        """The midpoint (a float, not a bound)."""
        return 0.5 * (self.lower + self.upper)

    def __str__(self) -> str:
        return f"[{self.lower!r}, {self.upper!r}]"


def _up(x: float) -> float:
    return math.nextafter(x, math.inf)


def _down(x: float) -> float:
    return math.nextafter(x, -math.inf)


def _float_down(c: Certified) -> float:
    """The largest float at most the certified decimal c (float() rounds to nearest, maybe up)."""
    f = float(c)
    return _down(f) if Fraction(f) > c.to_fraction() else f


# ---------------------------------------------------------------------------------------------
# privacy-loss distributions
# ---------------------------------------------------------------------------------------------


class PrivacyLoss(ABC):
    """The privacy loss L = log(dP/dQ) of one ordered pair of output distributions (P, Q).

    Subclasses give the law of L under P and under Q (``law="P"`` or ``"Q"``) through
    :meth:`cdf` and :meth:`sf` (float64, absolute error at most :data:`CDF_ERROR`) and
    :meth:`partial_mean` (E[L; a < L <= b], as an interval).  L must be finite almost surely
    under both laws (no (eps, delta) mechanisms with delta > 0 here).
    """

    #: Names of the two orderings: (P||Q, Q||P).
    orderings: tuple[str, str] = ("P||Q", "Q||P")
    name = "loss"

    @abstractmethod
    def cdf(self, x: np.ndarray, law: Law) -> np.ndarray:
        """P(L <= x) under ``law`` ("P" or "Q"), float64, absolute error <= CDF_ERROR."""

    @abstractmethod
    def sf(self, x: np.ndarray, law: Law) -> np.ndarray:
        """P(L > x) under ``law`` ("P" or "Q"), float64, absolute error <= CDF_ERROR."""

    @abstractmethod
    def partial_mean(self, a: float, b: float, law: Law) -> tuple[float, float]:
        """An interval (lower, upper) holding E[L; a < L <= b] under ``law``."""

    def support(self) -> tuple[float, float]:
        """Bounds of the support of L (the same under P and Q); infinite when unbounded."""
        return (-math.inf, math.inf)

    def window(self, tau: float, law: Law) -> tuple[float, float]:
        """(lo, hi) with P(L <= lo) <= tau and P(L > hi) <= tau under ``law`` (float search)."""
        s_lo, s_hi = self.support()

        def search(ok: Callable[[float], bool], start: float, direction: float, limit: float) -> float:
            if math.isfinite(limit) and ok(limit):
                return limit
            step = 1.0
            x = start + direction * step
            while not ok(x):
                step *= 2
                x = start + direction * step
                if step > 1e6:
                    raise PrecisionError(f"{self.name}: the tails of the privacy loss do not fall "
                                         f"below {tau} within 1e6 of the median")
            a, b = start, x
            for _ in range(200):
                m = 0.5 * (a + b)
                if m in (a, b):
                    break
                if ok(m):
                    b = m
                else:
                    a = m
            return b

        mid = self._median(law)
        lo = search(lambda x: float(self.cdf(np.array([x]), law)[0]) <= tau, mid, -1.0, s_lo)
        hi = search(lambda x: float(self.sf(np.array([x]), law)[0]) <= tau, mid, 1.0, s_hi)
        return lo, hi

    def _median(self, law: Law) -> float:
        return 0.0

    def __repr__(self) -> str:
        return self.name


def _ndtr(x: np.ndarray) -> np.ndarray:
    return sc.ndtr(x)


def _mp_interval(compute: Callable[[], Any]) -> tuple[float, float]:
    """Evaluate ``compute`` (mpmath closed forms) at 30 and 50 digits; an interval covering both,
    widened by ten times their difference (the two-precision rule of DESIGN §2).  The quantity
    only needs an absolute accuracy far below the grid step, so only a disagreement beyond 1e-9
    is refused."""
    with mpmath.workdps(30):
        a = compute()
    with mpmath.workdps(50):
        b = compute()
    err = abs(a - b)
    if not mpmath.isfinite(b) or err > 1e-9:
        raise PrecisionError(f"partial mean did not settle: {mpmath.nstr(a, 20)} vs {mpmath.nstr(b, 20)}")
    pad = 10 * err + 1e-16 * abs(b) + mpmath.mpf(10) ** -40
    return _down(float(b - pad)), _up(float(b + pad))


class GaussianLoss(PrivacyLoss):
    """P = N(0, 1), Q = N(mu, 1): L ~ N(mu^2/2, mu^2) under P and N(-mu^2/2, mu^2) under Q.

    Both orderings are the same (G_mu is symmetric).
    """

    def __init__(self, mu: float) -> None:
        self.mu = float(positive("mu", mu))
        if not math.isfinite(self.mu) or self.mu > 1e3:
            raise _bad("mu", mu, "must be a finite number in (0, 1000]")
        self.name = f"gaussian(mu={self.mu!r})"

    def _z(self, x: np.ndarray, law: Law) -> np.ndarray:
        m = self.mu * self.mu / 2
        return (np.asarray(x, dtype=float) - (m if law == "P" else -m)) / self.mu

    def cdf(self, x: np.ndarray, law: Law) -> np.ndarray:
        return _ndtr(self._z(x, law))

    def sf(self, x: np.ndarray, law: Law) -> np.ndarray:
        return _ndtr(-self._z(x, law))

    def _median(self, law: Law) -> float:
        return self.mu * self.mu / 2 * (1 if law == "P" else -1)

    def partial_mean(self, a: float, b: float, law: Law) -> tuple[float, float]:
        mu = mpmath.mpf(self.mu)

        def compute() -> Any:
            m = mu * mu / 2 * (1 if law == "P" else -1)
            za, zb = (mpmath.mpf(a) - m) / mu, (mpmath.mpf(b) - m) / mu
            pdf = lambda z: mpmath.npdf(z) if mpmath.isfinite(z) else mpmath.mpf(0)  # noqa: E731
            return m * (mpmath.ncdf(zb) - mpmath.ncdf(za)) + mu * (pdf(za) - pdf(zb))

        return _mp_interval(compute)


class RandomizedResponseLoss(PrivacyLoss):
    """Randomized response with parameter eps: L = +-eps, P(L = eps) = e^eps / (1 + e^eps).

    Under Q the two probabilities swap.  The T-fold composition is the binomial curve of
    :func:`gdpproof.rr_composition`, which the test suite uses as the exact reference.
    """

    def __init__(self, eps: float) -> None:
        self.eps = float(positive("eps", eps))
        if not math.isfinite(self.eps) or self.eps > 700:
            raise _bad("eps", eps, "must be a finite number in (0, 700]")
        self.name = f"randomized_response(eps={self.eps!r})"

    def _p_plus(self, law: Law) -> float:
        return float(sc.expit(self.eps if law == "P" else -self.eps))

    def cdf(self, x: np.ndarray, law: Law) -> np.ndarray:
        x = np.asarray(x, dtype=float)
        q = self._p_plus(law)
        return np.where(x < -self.eps, 0.0, np.where(x < self.eps, 1.0 - q, 1.0))

    def sf(self, x: np.ndarray, law: Law) -> np.ndarray:
        x = np.asarray(x, dtype=float)
        q = self._p_plus(law)
        return np.where(x < -self.eps, 1.0, np.where(x < self.eps, q, 0.0))

    def support(self) -> tuple[float, float]:
        return (-self.eps, self.eps)

    def partial_mean(self, a: float, b: float, law: Law) -> tuple[float, float]:
        eps = mpmath.mpf(self.eps)

        def compute() -> Any:
            q = 1 / (1 + mpmath.exp(-eps if law == "P" else eps))
            plus, minus = a < self.eps <= b, a < -self.eps <= b
            if plus and minus:  # eps (2q - 1) = +-eps tanh(eps/2), without cancellation
                return eps * mpmath.tanh(eps / 2) * (1 if law == "P" else -1)
            return eps * q if plus else (-eps * (1 - q) if minus else mpmath.mpf(0))

        return _mp_interval(compute)


class LaplaceLoss(PrivacyLoss):
    """P = Laplace(0, 1), Q = Laplace(mu, 1): L in [-mu, mu] with atoms at both ends.

    Under P: P(L = mu) = 1/2, P(L = -mu) = e^{-mu}/2, P(L <= l) = e^{-(mu - l)/2}/2 on
    [-mu, mu).  Under Q the law is e^{-l} dP: Q(L <= l) = 1 - e^{-(mu + l)/2}/2 on [-mu, mu).
    """

    def __init__(self, mu: float) -> None:
        self.mu = float(positive("mu", mu))
        if not math.isfinite(self.mu) or self.mu > 700:
            raise _bad("mu", mu, "must be a finite number in (0, 700]")
        self.name = f"laplace(mu={self.mu!r})"

    def support(self) -> tuple[float, float]:
        return (-self.mu, self.mu)

    def cdf(self, x: np.ndarray, law: Law) -> np.ndarray:
        x = np.asarray(x, dtype=float)
        inside = np.clip(x, -self.mu, self.mu)
        if law == "P":
            mid = 0.5 * np.exp(-(self.mu - inside) / 2)
        else:
            mid = 1 - 0.5 * np.exp(-(self.mu + inside) / 2)
        return np.where(x < -self.mu, 0.0, np.where(x < self.mu, mid, 1.0))

    def sf(self, x: np.ndarray, law: Law) -> np.ndarray:
        x = np.asarray(x, dtype=float)
        inside = np.clip(x, -self.mu, self.mu)
        if law == "P":
            mid = 1 - 0.5 * np.exp(-(self.mu - inside) / 2)
        else:
            mid = 0.5 * np.exp(-(self.mu + inside) / 2)
        return np.where(x < -self.mu, 1.0, np.where(x < self.mu, mid, 0.0))

    def partial_mean(self, a: float, b: float, law: Law) -> tuple[float, float]:
        mu = mpmath.mpf(self.mu)

        def compute() -> Any:
            lo, hi = max(mpmath.mpf(a), -mu), min(mpmath.mpf(b), mu)
            total = mpmath.mpf(0)
            if law == "P":
                atom_hi, atom_lo = mpmath.mpf(1) / 2, mpmath.exp(-mu) / 2
                dens = lambda s: mpmath.exp(-(mu - s) / 2) / 4  # noqa: E731
            else:
                atom_hi, atom_lo = mpmath.exp(-mu) / 2, mpmath.mpf(1) / 2
                dens = lambda s: mpmath.exp(-(mu + s) / 2) / 4  # noqa: E731
            if a < self.mu <= b:
                total += mu * atom_hi
            if a < -self.mu <= b:
                total -= mu * atom_lo
            if lo < hi:
                # the continuous part lives on (-mu, mu)
                total += mpmath.quad(lambda s: s * dens(s), [lo, hi])
            return total

        return _mp_interval(compute)


class SubsampledGaussianLoss(PrivacyLoss):
    r"""One Poisson-subsampled Gaussian step (sensitivity 1, noise sigma, sampling rate p).

    P = (1 - p) N(0, sigma^2) + p N(1, sigma^2) (the dataset with the example), Q = N(0, sigma^2);
    L(x) = log(1 - p + p e^{(2x - 1)/(2 sigma^2)}), increasing in x, L > log(1 - p).
    The ordering P||Q is "remove", Q||P is "add".
    """

    orderings = ("remove", "add")

    def __init__(self, sigma: float, p: float) -> None:
        self.sigma = float(positive("noise_multiplier", sigma))
        self.p = float(probability("sample_rate", p))
        if not math.isfinite(self.sigma) or not 0.02 <= self.sigma <= 1e4:
            raise _bad("noise_multiplier", sigma, "must be in [0.02, 10000]")
        if not 1e-9 <= self.p <= 1:
            raise _bad("sample_rate", p, "must be in [1e-9, 1]")
        self.name = f"subsampled_gaussian(sigma={self.sigma!r}, p={self.p!r})"
        self._floor = math.log1p(-self.p) if self.p < 1 else -math.inf

    def support(self) -> tuple[float, float]:
        return (_down(_down(self._floor)), math.inf)

    def _x(self, ell: np.ndarray) -> np.ndarray:
        """The output x with L(x) = ell: x = sigma^2 log((e^ell - (1 - p)) / p) + 1/2, computed
        without overflow or cancellation (-inf at and below the floor log(1 - p))."""
        ell = np.asarray(ell, dtype=float)
        p = self.p
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            if p == 1:
                y = ell.copy()
            else:
                em = np.expm1(np.minimum(ell, 0.0))
                small = np.log1p(em / p)                                     # ell <= 0
                large = ell - math.log(p) + np.log1p(-(1 - p) * np.exp(-np.maximum(ell, 0.0)))  # ell > 0
                y = np.where(ell > 0, large, small)
                y = np.where(em <= -p, -np.inf, y)                           # at or below the floor
            x = self.sigma ** 2 * y + 0.5
        return x

    def cdf(self, ell: np.ndarray, law: Law) -> np.ndarray:
        x = self._x(ell)
        s = self.sigma
        if law == "P":
            return (1 - self.p) * _ndtr(x / s) + self.p * _ndtr((x - 1) / s)
        return _ndtr(x / s)

    def sf(self, ell: np.ndarray, law: Law) -> np.ndarray:
        x = self._x(ell)
        s = self.sigma
        if law == "P":
            return (1 - self.p) * _ndtr(-x / s) + self.p * _ndtr((1 - x) / s)
        return _ndtr(-x / s)

    def _median(self, law: Law) -> float:
        return 0.0

    def partial_mean(self, a: float, b: float, law: Law) -> tuple[float, float]:
        """E[L; a < L <= b] by rigorous ball-arithmetic integration (arb's acb.integral) in x.

        The range below x = -40 sigma (only reached when a is at the floor log(1 - p)) is
        bounded by |log(1 - p)| Phi(-40) and added to the ball.
        """
        with arb_precision(80):
            sig, p = flint.arb(self.sigma), flint.arb(self.p)
            half = flint.arb(1) / 2

            def xof(ell: float) -> flint.arb | None:
                # x with L(x) = ell, in the cancellation-free forms of _x; None at or below the floor
                e = flint.arb(ell)
                if self.p == 1:
                    y = e
                elif ell > 0:
                    y = e - p.log() + (-(1 - p) * (-e).exp()).log1p()
                else:
                    em = e.expm1()
                    if em <= -p:
                        return None
                    y = (em / p).log1p()
                if not y.is_finite():
                    raise PrecisionError(f"{self.name}: cannot place the loss {ell} in x")
                return sig * sig * y + half

            xa, xb = xof(a), xof(b)
            if xb is None:
                return 0.0, 0.0
            lo_cut = -40 * sig
            tail = flint.arb(0)
            if xa is None or xa < lo_cut:
                xa = lo_cut
                tail = flint.arb(0, float(-math.log1p(-self.p)) * 1e-340 + 1e-300)
            if xa >= xb:
                return 0.0, 0.0
            if not xa < xb:
                raise PrecisionError(f"{self.name}: the interval ({a}, {b}] is too narrow to integrate over")
            norm = 1 / (2 * flint.arb.pi()).sqrt() / sig
            inv = 1 / (2 * sig * sig)

            def integrand(x: flint.acb, analytic: bool) -> flint.acb:
                z = p * ((2 * x - 1) * inv).exp() + (1 - p)
                loss = z.log(analytic=analytic)
                d0 = (-(x * x) * inv).exp()
                if law == "P":
                    dens = (1 - p) * d0 + p * (-((x - 1) * (x - 1)) * inv).exp()
                else:
                    dens = d0
                return loss * dens * norm

            r = flint.acb.integral(integrand, xa, xb).real + tail
            if not r.is_finite():
                raise PrecisionError(f"{self.name}: partial mean of the loss did not settle ({r})")
            # a wide ball only widens the shift of the bracket (it is checked against h there)
            return _down(float(r.lower())), _up(float(r.upper()))


# ---------------------------------------------------------------------------------------------
# lattice laws and their composition
# ---------------------------------------------------------------------------------------------


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


@dataclass
class _Direction:
    """The lattice law of S_R for one ordering, with the coupling shift and error terms."""

    name: str
    lattice: _Lattice
    h: float
    sign: int                          # +1: delta = E_P g(S); -1: delta = E_Q g(-S)
    shift: tuple[float, float]         # interval for the shift (c_low, c_high), t included
    slack: float                       # additive delta error: eta + Kolmogorov + FFT (+ lost mass for upper)
    lost: float                        # mass dropped (bounded above)

    def _sorted(self) -> tuple[np.ndarray, np.ndarray]:
        """The points sign * k h in increasing order, with their masses (computed once)."""
        cache = self.__dict__.get("_sorted_cache")
        if cache is None:
            k = np.arange(self.lattice.k0, self.lattice.k0 + len(self.lattice.w), dtype=float)
            pts, w = self.sign * k * self.h, self.lattice.w
            if self.sign < 0:
                pts, w = pts[::-1].copy(), w[::-1].copy()
            cache = self.__dict__["_sorted_cache"] = (pts, w)
        return cache

    def delta(self, eps: float) -> tuple[float, float]:
        """(lower, upper) for this ordering's delta(eps)."""
        return self.lower(eps), self.upper(eps)

    def upper(self, eps: float) -> float:
        """Proven upper bound on this ordering's delta(eps) (rounded up)."""
        hi = self._sum(*self._sorted(), eps, self.shift[1], upper=True)
        return min(1.0, _up(hi + self.slack + self.lost))

    def lower(self, eps: float) -> float:
        """Proven lower bound on this ordering's delta(eps) (rounded down)."""
        lo = self._sum(*self._sorted(), eps, self.shift[0], upper=False)
        return max(0.0, _down(lo - self.slack))

    @staticmethod
    def _sum(s: np.ndarray, w: np.ndarray, eps: float, shift: float, upper: bool) -> float:
        """sum_k w_k (1 - e^{eps - s_k - shift})_+ over the increasing points s, float errors
        charged: a relative margin for the sum, and the absolute error of the argument."""
        # the argument carries an absolute error of a few ulps of |s| + |shift| + |eps|: take in
        # every point within that of the cut, and bound the effect on each term by it
        cut = eps - shift
        pad = 8 * U * (abs(cut) + abs(eps) + abs(shift) + 1)
        start = int(np.searchsorted(s, cut - pad, side="right"))
        if start >= len(s):
            return 0.0
        ss, ww = s[start:], w[start:]
        arg = np.minimum(cut - ss, 0.0)
        total = float(np.sum(-np.expm1(arg) * ww))
        rel = (12 + math.log2(max(2, len(ss)))) * U
        scale = 4 * U * (max(abs(float(ss[0])), abs(float(ss[-1]))) + abs(shift) + abs(eps))
        mass = float(np.sum(ww)) * 1.0001
        if upper:
            return total * (1 + rel) + scale * mass
        return max(0.0, total * (1 - rel) - scale * mass)


@dataclass
class ComposedLoss:
    """The composition of privacy losses with a proven bracket on delta(eps) and eps(delta).

    Built by :func:`compose_losses`.  ``delta(eps)`` and ``epsilon(delta)`` return a
    :class:`Bound` for the worse of the two orderings; ``*_by_ordering`` give each.
    """

    parts: tuple[tuple[PrivacyLoss, int], ...]
    h: float
    eta: float
    t: float
    directions: tuple[_Direction, _Direction]
    delta_target: float | None = None

    @property
    def steps(self) -> int:
        """The total number of composed mechanisms."""
        return sum(c for _, c in self.parts)

    def delta_by_ordering(self, eps: Any) -> dict[str, Bound]:
        """The bracket on delta(eps) of each ordering, keyed by its name (e.g. "remove", "add")."""
        e = _check_eps(eps)
        return {d.name: Bound(*d.delta(e)) for d in self.directions}

    def delta(self, eps: Any) -> Bound:
        """Bracket on the mechanism's delta(eps) (the worse ordering): lower down, upper up.

        Examples
        --------
        Four G_{1/2} compose to G_1, whose delta(1) is 0.12693673750664...:

        >>> from gdpproof.numeric.pld import GaussianLoss, compose_losses
        >>> c = compose_losses([(GaussianLoss(0.5), 4)], grid_step=1e-4)
        >>> b = c.delta(1.0)
        >>> b.lower < 0.1269367375066 < b.upper, b.width < 3e-4
        (True, True)
        """
        per = self.delta_by_ordering(eps)
        return Bound(max(b.lower for b in per.values()), max(b.upper for b in per.values()))

    def worse_ordering(self, eps: Any) -> str:
        """The name of the ordering with the larger upper bound on delta(eps)."""
        per = self.delta_by_ordering(eps)
        return max(per, key=lambda k: (per[k].upper, per[k].lower))

    def epsilon(self, delta: Any) -> Bound:
        """Bracket on the smallest eps >= 0 with delta(eps) <= ``delta``: lower down, upper up.

        Raises PrecisionError when ``delta`` is below what this grid resolves (the upper
        bound on delta(eps) never drops to ``delta``).
        """
        d = _check_delta(delta)
        up = lambda e: max(dd.upper(e) for dd in self.directions)  # noqa: E731
        lo = lambda e: max(dd.lower(e) for dd in self.directions)  # noqa: E731
        top = max(abs(dd.lattice.k0) + len(dd.lattice.w) for dd in self.directions) * self.h
        top += max(abs(dd.shift[0]) + abs(dd.shift[1]) for dd in self.directions) + 1.0
        if up(top) > d:
            floor = up(top)
            raise PrecisionError(f"delta={delta} is below this bracket's floor {floor:.3g} "
                                 f"(truncated mass, eta={self.eta:g} and float error): ask for a larger "
                                 "delta, or compose with a smaller eta or long_double=True")
        e_up = 0.0 if up(0.0) <= d else _boundary(up, d, 0.0, top, want_le=True)
        e_lo = 0.0 if lo(0.0) <= d else _boundary(lo, d, 0.0, top, want_le=False)
        return Bound(min(e_lo, e_up), e_up)


    # -- the trade-off curve and the honest mu ---------------------------------------------

    def delta_floor(self) -> float:
        """The smallest upper bound on delta this bracket can give (truncation, eta, float error)."""
        return max(d.upper(self._top()) for d in self.directions)

    def _top(self) -> float:
        top = max(abs(dd.lattice.k0) + len(dd.lattice.w) for dd in self.directions) * self.h
        return top + max(abs(dd.shift[0]) + abs(dd.shift[1]) for dd in self.directions) + 1.0

    def _eps_grid(self, points: int = 400) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """eps_j on [0, eps_max] and the proven bounds delta_up(eps_j), delta_low(eps_j) (worse
        ordering); eps_max is where delta_up falls to 100 x the floor."""
        cache = self.__dict__.setdefault("_grid_cache", {})
        if points not in cache:
            target = min(0.5, 100 * self.delta_floor())
            eps_max = self.epsilon(target).upper if max(d.upper(0.0) for d in self.directions) > target else 0.0
            eps = np.linspace(0.0, max(eps_max, 1e-9), points)
            dup = np.array([max(d.upper(float(e)) for d in self.directions) for e in eps])
            dlow = np.array([max(d.lower(float(e)) for d in self.directions) for e in eps])
            cache[points] = (eps, dup, dlow)
        return cache[points]

    def _eps_grid_each(self, points: int = 400) -> tuple[np.ndarray, list[np.ndarray]]:
        """The eps grid of :meth:`_eps_grid` with each ordering's delta_up on it."""
        cache = self.__dict__.setdefault("_grid_each_cache", {})
        if points not in cache:
            eps = self._eps_grid(points)[0]
            cache[points] = (eps, [np.array([d.upper(float(e)) for e in eps]) for d in self.directions])
        return cache[points]

    def _np_points(self, max_points: int = 4000) -> tuple[np.ndarray, np.ndarray]:
        """(a, b) with a = P(S_R <= k h) and b = Q(S_R > k h), both bounded above: the errors of
        the tests "reject P when S_R <= k h" of the pair (P, Q) (swap them for (Q, P))."""
        cache = self.__dict__.setdefault("_np_cache", {})
        if max_points in cache:
            return cache[max_points]
        dp, dq = self.directions
        lo = min(dp.lattice.k0, dq.lattice.k0)
        hi = max(dp.lattice.k0 + len(dp.lattice.w), dq.lattice.k0 + len(dq.lattice.w))
        vp, vq = np.zeros(hi - lo), np.zeros(hi - lo)
        vp[dp.lattice.k0 - lo: dp.lattice.k0 - lo + len(dp.lattice.w)] = dp.lattice.w
        vq[dq.lattice.k0 - lo: dq.lattice.k0 - lo + len(dq.lattice.w)] = dq.lattice.w
        kolm = self.steps * (5 * CDF_ERROR + 2 * U)
        up_p = dp.lost + dp.lattice.err + kolm + len(vp) * U
        up_q = dq.lost + dq.lattice.err + kolm + len(vq) * U
        a = np.minimum(1.0, np.cumsum(vp) + up_p)                       # P(S_R <= k h), up
        b = np.minimum(1.0, (np.sum(vq) - np.cumsum(vq)) + up_q)        # Q(S_R > k h), up
        step = max(1, len(a) // max_points)
        cache[max_points] = (a[::step], b[::step])
        return cache[max_points]

    def _upper_points(self, max_points: int = 4000) -> np.ndarray:
        """Points (a, b) with f(a) <= b for the mechanism's symmetric trade-off f: the
        Neyman–Pearson tests of both orderings, their errors bounded above; their hull."""
        cache = self.__dict__.setdefault("_points_cache", {})
        if max_points not in cache:
            a, b = self._np_points(max_points)
            pts = np.concatenate([np.stack([a, b], 1), np.stack([b, a], 1), [[0.0, 1.0], [1.0, 0.0]]])
            cache[max_points] = _lower_hull(pts)
        return cache[max_points]

    def tradeoff_curves(self, ordering: str | None = None) -> tuple[Callable[[Any], np.ndarray],
                                                                     Callable[[Any], np.ndarray]]:
        """Two float64 functions of an array of alpha: proven lower and upper bounds of a
        trade-off curve (lower rounded down, upper up; for plots and Monte Carlo checks).

        ``ordering=None``: the mechanism's symmetric curve (see :meth:`tradeoff`).  An ordering
        name (``"remove"``/``"add"``, or ``"P||Q"``/``"Q||P"``): T(X, Y) of that ordering X||Y,
        bounded below by sup_eps max(1 - delta_{Y||X}(eps) - e^eps alpha,
        e^{-eps}(1 - delta_{X||Y}(eps) - alpha)) and above by the hull of its Neyman–Pearson
        points.
        """
        names = [d.name for d in self.directions]
        if ordering is not None and ordering not in names:
            raise _bad("ordering", ordering, f"must be None or one of {names}")
        eps, dups = self._eps_grid_each()
        ee = np.exp(eps)[:, None]
        if ordering is None:
            d_xy = d_yx = np.maximum(dups[0], dups[1])[:, None]
            pts = self._upper_points()
        else:
            i = names.index(ordering)
            d_xy, d_yx = dups[i][:, None], dups[1 - i][:, None]
            a, b = self._np_points()
            raw = np.stack([a, b], 1) if i == 0 else np.stack([b, a], 1)
            pts = _lower_hull(np.concatenate([raw, [[0.0, 1.0], [1.0, 0.0]]]))

        def lower(alpha: Any) -> np.ndarray:
            x = np.atleast_1d(np.asarray(alpha, dtype=float))[None, :]
            lines = np.maximum(np.maximum(0.0, 1 - d_yx - ee * x), (1 - d_xy - x) / ee)
            return np.maximum(0.0, np.max(lines, axis=0) * (1 - 8 * U) - 4 * U)

        def upper(alpha: Any) -> np.ndarray:
            x = np.atleast_1d(np.asarray(alpha, dtype=float))
            return np.minimum(np.clip(1 - x, 0.0, 1.0), np.interp(x, pts[:, 0], pts[:, 1]) * (1 + 8 * U) + 4 * U)

        return lower, upper

    def tradeoff(self, alpha: Any, ordering: str | None = None) -> Bound:
        """Bracket on a trade-off f(alpha).  By default the mechanism's curve: the tightest
        symmetric f such that the composed mechanism is f-DP (both orderings); with
        ``ordering`` the curve T(X, Y) of that ordering (:meth:`tradeoff_curves`).

        lower: sup over a grid of eps of the (eps, delta_up(eps)) lines (DRS Prop 2.12), proven;
        upper: the convex hull of Neyman–Pearson points whose errors are bounded above.
        """
        a = _check_alpha(alpha)
        lo_fn, up_fn = self.tradeoff_curves(ordering)
        lower, upper = float(lo_fn(a)[0]), float(up_fn(a)[0])
        return Bound(_down(min(lower, upper)), _up(upper))


    def honest_mu(self) -> HonestMu:
        r"""Bracket on the smallest mu such that the composed mechanism is mu-GDP, and the gap.

        GDP constrains every (eps, delta); a numerical bracket resolves delta only down to its
        floor.  So the statement is about the range it resolves: ``mu`` brackets the smallest
        mu such that the mechanism is (eps, delta_mu(eps))-DP for every eps in [0, eps_max]
        (``delta_min`` = delta_up(eps_max), about 100 times the floor), i.e. mu-GDP for all
        (eps, delta) with delta >= delta_min.

        ``mu.upper``: checked on a grid with the monotone step delta_up(eps_j) <=
        delta_mu(eps_{j+1}), the tight comparisons in ball arithmetic.  ``mu.lower``: some
        eps_j <= eps_max has delta_low(eps_j) > delta_mu(eps_j) for every smaller mu
        (certified).  ``mu_tail``: a certified lower bound on the unrestricted tightest mu from
        Neyman–Pearson points anywhere on the curve; above ``mu.upper`` it says the mechanism's
        tails are heavier than any G_mu with mu in the bracket.  ``gap``:
        sup_alpha f(alpha) - G_{mu.upper}(alpha), bracketed (from below by its value at grid
        points, from above cell by cell by monotonicity): how far the mechanism is from a
        Gaussian one.
        """
        from . import fast as _fast
        from .solve import delta_from_epsilon, mu_from_epsilon_delta, mu_from_error_rates

        eps, dup, dlow = self._eps_grid()
        e_next, d_here = eps[1:], dup[:-1]
        keep = d_here < 1
        mu_est = np.zeros_like(e_next)
        if keep.any():
            mu_est[keep] = _fast.mu_from_epsilon_delta(e_next[keep], d_here[keep])
        j = int(np.argmax(mu_est))
        # smallest mu with delta_mu(e_{j+1}) >= d_j: one 17-digit decimal above the certified root
        m_down = mu_from_epsilon_delta(float(e_next[j]), float(d_here[j]), digits=17)
        mu_up = _up(float(m_down.to_fraction() + Fraction(10) ** (m_down.adjusted() - 16)))
        for _ in range(60):
            if not _violations(mu_up, e_next, d_here, delta_from_epsilon, _fast):
                break
            mu_up = float(np.nextafter(mu_up * (1 + 1e-9), np.inf))
        else:
            raise PrecisionError("could not certify an upper bound on mu")
        # restricted lower bound: delta_low(eps_j) > delta_mu(eps_j) for every mu below it
        mu_low = 0.0
        ok = (dlow > 0) & (dlow < 1)
        if ok.any():
            est = _fast.mu_from_epsilon_delta(eps[ok], dlow[ok])
            i = int(np.argmax(est))
            mu_low = _float_down(mu_from_epsilon_delta(float(eps[ok][i]), float(dlow[ok][i]), digits=17))
        pts = self._upper_points()
        inner = (pts[:, 0] > 0) & (pts[:, 0] < 1) & (pts[:, 1] > 0) & (pts[:, 1] < 1)
        mu_tail = 0.0
        if inner.any():
            z = sc.ndtri(1 - pts[inner, 0]) - sc.ndtri(pts[inner, 1])
            i = int(np.argmax(z))
            if z[i] > 0:
                # G_mu through (a, b) with f(a) <= b: not mu'-GDP for mu' below it (rounded down)
                mu_tail = _float_down(mu_from_error_rates(float(pts[inner][i, 0]), float(pts[inner][i, 1]),
                                                          digits=17, rounding="down"))
        # gap: at any alpha, f_lower - G is below the sup (a lower bound); on each cell
        # [a_i, a_{i+1}] both curves are non-increasing, so f - G <= f_upper(a_i) - G(a_{i+1})
        # (an upper bound).  G in float64, charged 1e-12.
        alphas = np.linspace(0.0, 1.0, 2001)
        g = sc.ndtr(sc.ndtri(1 - alphas) - mu_up)
        lo_fn, up_fn = self.tradeoff_curves()
        lows, highs = lo_fn(alphas), up_fn(alphas)
        gap = Bound(max(0.0, float(np.max(lows - g)) - 1e-12),
                    max(0.0, float(np.max(highs[:-1] - g[1:]))) + 1e-12)
        if mu_low > mu_up:  # pragma: no cover - would mean the bracket itself is inconsistent
            raise PrecisionError(f"inconsistent mu bracket [{mu_low}, {mu_up}]")
        return HonestMu(Bound(mu_low, mu_up), gap, float(eps[-1]), float(dup[-1]), mu_tail)


@dataclass(frozen=True)
class HonestMu:
    """The tightest GDP description of a composed mechanism (:meth:`ComposedLoss.honest_mu`).

    Attributes
    ----------
    mu : Bound
        The smallest mu such that the mechanism is mu-GDP for all (eps, delta) with
        delta >= delta_min lies in [lower, upper]; report ``mu.upper`` with ``delta_min``.
    gap : Bound
        sup_alpha f(alpha) - G_{mu.upper}(alpha): 0 means the mechanism is exactly Gaussian;
        a large gap means GDP describes it loosely.
    eps_max, delta_min : float
        The range where the bracket holds (delta_up(eps_max) = delta_min).
    mu_tail : float
        A certified lower bound on the tightest mu over the whole curve (no range restriction).
    """

    mu: Bound
    gap: Bound
    eps_max: float
    delta_min: float
    mu_tail: float


def _lower_hull(pts: np.ndarray) -> np.ndarray:
    """Lower convex hull of points (x, y), sorted by x (Andrew's monotone chain)."""
    order = np.lexsort((pts[:, 1], pts[:, 0]))
    hull: list[tuple[float, float]] = []
    for x, y in pts[order]:
        while len(hull) >= 2:
            (x1, y1), (x2, y2) = hull[-2], hull[-1]
            if (x2 - x1) * (y - y1) - (y2 - y1) * (x - x1) <= 0:
                hull.pop()
            else:
                break
        if hull and hull[-1][0] == x:
            continue
        hull.append((float(x), float(y)))
    return np.array(hull)


def _violations(mu: float, e_next: np.ndarray, d_here: np.ndarray, certified: Callable[..., Any],
                fast: Any) -> bool:
    """True unless delta_up(eps_j) <= delta_mu(eps_{j+1}) for all j (float check with a 1e-6
    relative margin; the tight ones certified in ball arithmetic, delta_mu rounded down)."""
    dm = fast.delta_from_epsilon(np.full_like(e_next, mu), e_next)
    close = d_here > dm * (1 - 1e-6)
    for j in np.flatnonzero(close):
        exact = certified(mu, float(e_next[j]), digits=20)
        # delta_from_epsilon rounds up; the value one unit lower is a lower bound
        lo = exact.to_fraction() * (1 - Fraction(1, 10**18))
        if Fraction(float(d_here[j])) > lo:
            return True
    return False


def _boundary(f: Callable[[float], float], target: float, a: float, b: float, want_le: bool) -> float:
    """For non-increasing f with f(a) > target >= f(b): the smallest x with f(x) <= target
    (want_le) or the largest x with f(x) > target, to float resolution, found by bisection."""
    for _ in range(200):
        m = 0.5 * (a + b)
        if m in (a, b) or b - a <= 1e-10 * max(1.0, abs(b)):
            break
        if f(m) <= target:
            b = m
        else:
            a = m
    return b if want_le else a


def _check_eps(eps: Any) -> float:
    try:
        return float(nonnegative("eps", eps, symbolic=False))
    except InvalidParameterError:
        raise _bad("eps", eps, "must be a finite number >= 0") from None


def _check_delta(delta: Any) -> float:
    try:
        d = float(probability("delta", delta, symbolic=False))
    except InvalidParameterError:
        d = math.nan
    if not 0 < d < 1:
        raise _bad("delta", delta, "must be in (0, 1)")
    return d


def _check_alpha(alpha: Any) -> float:
    try:
        return float(probability("alpha", alpha, symbolic=False))
    except InvalidParameterError:
        raise _bad("alpha", alpha, "must be in [0, 1]") from None


def compose_losses(parts: Sequence[tuple[PrivacyLoss, int]], *, grid_step: float = 1e-4,
                   eta: float = 1e-12, long_double: bool = False) -> ComposedLoss:
    r"""Compose privacy losses (each given with its number of repetitions) with proven bounds.

    Parameters
    ----------
    parts : sequence of (PrivacyLoss, count)
        The mechanisms, in any order (composition commutes).
    grid_step : float
        The grid h.  The bracket on epsilon is about 2 h sqrt(T log(1/eta) / 2) wide; halving h
        halves it and doubles the work.
    eta : float
        The Hoeffding failure probability; it is added to the upper and subtracted from the
        lower delta, so deltas below ~10 eta are not resolved.
    long_double : bool
        Run every squaring in long double (about 3 times slower, a 2048 times smaller FFT error
        bound where numpy's long double is 80-bit): for small delta, where the float64 bound
        dominates the bracket.  By default only the early squarings do.

    Examples
    --------
    >>> from gdpproof.numeric.pld import SubsampledGaussianLoss, compose_losses
    >>> c = compose_losses([(SubsampledGaussianLoss(1.0, 0.01), 1000)], grid_step=5e-4)
    >>> b = c.epsilon(1e-5)
    >>> b.lower < 1.8282 < b.upper, b.relative_width < 0.2
    (True, True)
    """
    if not parts:
        raise _bad("parts", parts, "must be a non-empty list of (PrivacyLoss, count)")
    h = float(positive("grid_step", grid_step))
    if not 1e-8 <= h <= 1:
        raise _bad("grid_step", grid_step, "must be in [1e-8, 1]")
    eta = float(positive("eta", eta))
    if not 1e-300 < eta < 1e-3:
        raise _bad("eta", eta, "must be in (1e-300, 1e-3)")
    clean: list[tuple[PrivacyLoss, int]] = []
    for part in parts:
        if not (isinstance(part, tuple) and len(part) == 2):
            raise _bad("parts", part, "must be (PrivacyLoss, count) pairs")
        loss, count = part
        if not isinstance(loss, PrivacyLoss):
            raise _bad("parts", loss, "must be a PrivacyLoss")
        if isinstance(count, bool) or not isinstance(count, (int, np.integer)) or not 1 <= count <= 10**9:
            raise _bad("count", count, "must be an integer in [1, 10^9]")
        clean.append((loss, int(count)))
    total = sum(c for _, c in clean)
    tau = eta / (16.0 * total)             # per-step tail mass dropped on each side (x T steps)
    budget = eta / 4.0                     # mass trimmed after convolutions, in all
    kolm = total * (5 * CDF_ERROR + 2 * U)
    orderings = clean[0][0].orderings if len(clean) == 1 else ("P||Q", "Q||P")
    steps = {law: [_discretize(loss, law, h, tau) for loss, _ in clean] for law in "PQ"}
    # Hoeffding: the rounding errors have range h_eff (h plus the float error of the bin edges)
    h_eff = max(st.h_eff for law in "PQ" for st in steps[law])
    t = _up(h_eff * math.sqrt(total * math.log(1 / eta) / 2) * (1 + 4 * U))
    directions = []
    for law, sign, name in (("P", 1, orderings[0]), ("Q", -1, orderings[1])):
        acc: _Lattice | None = None
        for step, (loss, count) in zip(steps[law], clean):
            powered = _power(step.lattice, count, budget / (2 * len(clean)), all_long=bool(long_double))
            acc = powered if acc is None else _convolve(acc, powered, budget / (4 * len(clean)))
        assert acc is not None
        d_lo = math.fsum(count * st.dbar[0] for st, (_, count) in zip(steps[law], clean))
        d_hi = math.fsum(count * st.dbar[1] for st, (_, count) in zip(steps[law], clean))
        pad = 4 * U * (abs(d_lo) + abs(d_hi) + t)   # the float sums above
        # S = S_R - sum D: with prob >= 1 - eta, S_R - T dhi - t <= S <= S_R - T dlo + t (law P);
        # for the Q||P ordering the variable is -S = -S_R + sum D.
        if sign == 1:
            shift = (_down(-d_hi - t - pad), _up(-d_lo + t + pad))
        else:
            shift = (_down(d_lo - t - pad), _up(d_hi + t + pad))
        lost = max(0.0, 1.0 - acc.l1()) + acc.err + 4 * U
        slack = eta + kolm + acc.err
        directions.append(_Direction(name, acc, h, sign, shift, slack, _up(lost)))
    return ComposedLoss(tuple(clean), h, eta, t, (directions[0], directions[1]))


# ---------------------------------------------------------------------------------------------
# DP-SGD
# ---------------------------------------------------------------------------------------------


@dataclass
class DPSGDBracket:
    """The proven epsilon bracket of Poisson-subsampled DP-SGD at one delta.

    Attributes
    ----------
    eps : Bound
        lower <= eps(delta) <= upper for the worse of the add and remove orderings.
    ordering : str
        Which ordering ("add" or "remove") has the larger upper bound at eps.upper.
    grid_step, eta : float
        The grid and Hoeffding failure probability used (:func:`compose_losses`).
    composition : ComposedLoss
        For delta(eps) at other eps.
    """

    noise_multiplier: float
    sample_rate: float
    steps: int
    delta: float
    eps: Bound
    ordering: str
    grid_step: float
    eta: float
    composition: ComposedLoss


def dpsgd_epsilon(noise_multiplier: Any, sample_rate: Any, steps: Any, delta: Any, *,
                  rel_width: float = 0.01, max_refinements: int = 5) -> DPSGDBracket:
    r"""Proven bracket on epsilon(delta) for T steps of Poisson-subsampled Gaussian DP-SGD.

    Add/remove neighbours, sensitivity 1 (clipping norm 1), noise multiplier sigma, sampling
    rate p: the T-fold composition of :class:`SubsampledGaussianLoss` in both orderings, the
    worse one reported.  The grid is refined until ``(upper - lower) / lower <= rel_width``.

    Examples
    --------
    >>> from gdpproof.numeric.pld import dpsgd_epsilon
    >>> r = dpsgd_epsilon(1.0, 0.01, 1000, 1e-5)
    >>> r.eps.lower < 1.8282 < r.eps.upper, r.eps.relative_width <= 0.01
    (True, True)
    """
    loss = SubsampledGaussianLoss(noise_multiplier, sample_rate)
    if isinstance(steps, bool) or not isinstance(steps, (int, np.integer)) or not 1 <= steps <= 10**9:
        raise _bad("steps", steps, "must be an integer in [1, 10^9]")
    d = _check_delta(delta)
    b, comp = epsilon_bracket([(loss, int(steps))], d, rel_width=rel_width, max_refinements=max_refinements)
    ordering = comp.worse_ordering(b.upper)
    return DPSGDBracket(loss.sigma, loss.p, int(steps), d, b, ordering, comp.h, comp.eta, comp)


def epsilon_bracket(parts: Sequence[tuple[PrivacyLoss, int]], delta: Any, *, rel_width: float = 0.01,
                    max_refinements: int = 5) -> tuple[Bound, ComposedLoss]:
    """The proven bracket on eps(delta) of a composition, refined to a relative width.

    Starts from a coarse grid (h = 1e-3) and shrinks it in proportion to the width still to
    gain (the width is close to proportional to h) until ``(upper - lower) / lower <=
    rel_width``; eta = min(1e-10, delta / 1e5), so it moves delta by at most 1e-5 relative.
    Returns the bracket and the composition (for other eps or delta on the same grid).
    Raises PrecisionError when ``max_refinements`` finer grids do not reach the width.

    Examples
    --------
    >>> from gdpproof.numeric.pld import GaussianLoss, RandomizedResponseLoss, epsilon_bracket
    >>> b, comp = epsilon_bracket([(GaussianLoss(0.3), 10), (RandomizedResponseLoss(0.2), 20)], 1e-6)
    >>> b.relative_width <= 0.01, comp.steps
    (True, 30)
    """
    d = _check_delta(delta)
    w = float(positive("rel_width", rel_width))
    if not 1e-4 <= w <= 10:
        raise _bad("rel_width", rel_width, "must be in [1e-4, 10]")
    if isinstance(max_refinements, bool) or not isinstance(max_refinements, int) or not 0 <= max_refinements <= 20:
        raise _bad("max_refinements", max_refinements, "must be an integer in [0, 20]")
    if d < 1e-280:
        raise PrecisionError(f"delta={delta} is below what a float64 lattice resolves (1e-280)")
    eta = min(1e-10, d * 1e-5)
    h = 1e-3
    rw = math.inf
    long_double = False
    for attempt in range(max_refinements + 1):
        comp = compose_losses(parts, grid_step=h, eta=eta, long_double=long_double)
        # the additive error of the bracket (FFT, truncation, eta) does not shrink with h: when
        # it is a visible part of delta, run in long double; when even that does not help, stop
        floor = comp.delta_floor()
        if floor > 0.02 * d and not long_double:
            long_double = True
            comp = compose_losses(parts, grid_step=h, eta=eta, long_double=True)
            floor = comp.delta_floor()
        if floor > 0.2 * d:
            raise PrecisionError(f"delta={delta} is within a factor 5 of the bracket's floor {floor:.2g} "
                                 "(float and truncation error): a finer grid cannot narrow it; ask for a "
                                 "larger delta")
        b = comp.epsilon(d)
        previous, rw = rw, (b.width / b.upper if b.lower == 0 and b.upper > 0 else b.relative_width)
        if rw <= w:
            comp.delta_target = d
            return b, comp
        if attempt and rw > 0.8 * previous:
            raise PrecisionError(f"rel_width={rel_width}: the bracket stopped narrowing at {rw:.3g} (grid step "
                                 f"{h:.3g}; delta is close to the float floor {floor:.2g}): ask for a larger "
                                 "rel_width or delta")
        h *= max(0.1, min(0.9, 0.93 * w / rw))  # the width is close to proportional to h
        if h < 2e-7:
            break
    raise PrecisionError(f"rel_width={rel_width}: reached only {rw:.3g} after "
                         f"{max_refinements} refinements (grid step {h:.3g}): ask for a larger rel_width")
