r"""Privacy-loss laws compiled from their sympy expressions: what the numerical composition reads.

:class:`PrivacyLoss` is the interface of :mod:`gdpproof.accounting.compose`: the CDF and survival
function of L under each law in float64 (absolute error at most :data:`CDF_ERROR`, an assumption
about scipy's ``erfc`` that the test suite measures), and partial means E[L; a < L <= b] as proven
intervals.  :class:`CompiledLoss` provides them for an :class:`ExactLaw` (a family at exact
parameter values) from the kernels generated ahead of time from :mod:`gdpproof.symbolic.losses`
(:mod:`gdpproof.numeric.engine._loss_kernels`): numpy/scipy for the CDFs, ball arithmetic
(python-flint) for the partial means, by their closed form or by arb's rigorous integration.

How each is compiled and what is assumed: ``docs/proofs/losses.md``.
"""

from __future__ import annotations

import functools
import math
from fractions import Fraction
from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import Any

import flint
import numpy as np

from ..errors import PrecisionError, bad
from ..text import show
from .._args import sympy_rational as _sympy_value
from ..mechanisms.numbers import symbolic_losses as _sl, sympy_module as _sympy
from .._args import checked
from ..numeric.engine._ballfun import acb_namespace
from ..numeric.engine._mp import arb_from_exact, arb_precision
from ..numeric.engine.bound import down, next_up, directed_double
from .discrete import TABLE_BITS, Table, cut_line, float_table, kernels, ball_table, weights_from, check_sensitivity, check_sigma, cut, loss_tail_bound, sigma_ball

__all__ = ["CDF_ERROR", "PrivacyLoss", "CompiledLoss", "GaussianLoss", "RandomizedResponseLoss", "KRandomizedResponseLoss",
           "LaplaceLoss",
           "SubsampledGaussianLoss", "SymmetricSubsampledGaussianLoss", "DiscreteGaussianLoss", "DiscreteLaplaceLoss",
           "loss_from_law", "loss_from_parameters", "rounded_exactly_values", "ExactLaw",
           "rounded_exactly"]

def arb_function(expr: Any, symbols: Any) -> Any:
    from ..numeric.engine.compiler import arb_function as compiled

    return compiled(expr, symbols)


@functools.lru_cache(maxsize=1)
def _generated() -> Any:
    """The kernels generated from :mod:`gdpproof.symbolic.losses` (numpy, scipy.special, flint)."""
    from ..numeric.engine import _loss_kernels

    return _loss_kernels


#: Assumed absolute error of the float64 CDF and survival-function evaluations (module doc).
CDF_ERROR = 1e-15

Law = str  # "P" or "Q"

#: Working precision (bits) of the ball-arithmetic partial means; they only need an absolute
#: accuracy far below the grid step, and the ball is proven whatever its width.
PARTIAL_MEAN_BITS = 128
#: ... and the integrals' goal (a ball is returned whatever it is: it sets the ball's width, half the
#: time of arb's default of the full precision; the brackets need the mean to about 1e-10).
PARTIAL_MEAN_TOL = flint.arb(2) ** -60


class PrivacyLoss(ABC):
    """The privacy loss L = log(dP/dQ) of one ordered pair of output distributions (P, Q).

    Subclasses give the law of L under P and under Q (``law="P"`` or ``"Q"``) through
    :meth:`cdf` and :meth:`sf` (float64, absolute error at most :data:`CDF_ERROR`) and
    :meth:`partial_mean` (E[L; a < L <= b], as an interval).  L must be finite almost surely
    under both laws (no (eps, delta) mechanisms with delta > 0 here).

    Examples:
        >>> from gdpproof import GaussianLoss
        >>> isinstance(GaussianLoss(1.0), PrivacyLoss), float(GaussianLoss(1.0).cdf(0.5, "P"))
        (True, 0.5)
    """

    #: Names of the two orderings: (P||Q, Q||P).
    orderings: tuple[str, str] = ("P||Q", "Q||P")
    #: True when both orderings have the same law (T(P, Q) = T(Q, P)).
    symmetric = False
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
        """(lo, hi) with P(L <= lo) <= tau and P(L > hi) <= tau under ``law`` (float search;
        kept per (tau, law): a refinement asks again for every grid)."""
        cache = self.__dict__.setdefault("_window_cache", {})
        key = (float(tau), law)
        if key not in cache:
            cache[key] = self._window(tau, law)
        return cache[key]

    def _window(self, tau: float, law: Law) -> tuple[float, float]:
        s_lo, s_hi = self.support()

        def search(ok: Callable[[np.ndarray], np.ndarray], start: float, direction: float, limit: float) -> float:
            # the doubling and the bisection below, their points evaluated WINDOW_LEVELS levels of
            # the bisection's tree at a time (one kernel call each, not one a point): the same points,
            # so the same window
            if math.isfinite(limit) and ok(np.array([limit]))[0]:
                return limit
            steps = 2.0 ** np.arange(20)            # 1, 2, ..., 2^19: the last step before 1e6
            met = np.flatnonzero(ok(start + direction * steps))
            if not len(met):
                raise PrecisionError(f"{self.name}: the tails of the privacy loss do not fall "
                                     f"below {tau} within 1e6 of the median")
            a, b = start, start + direction * float(steps[met[0]])
            while True:
                tree = _midpoints(a, b, WINDOW_LEVELS)
                values = ok(np.array(tree))
                node = 0
                for _ in range(WINDOW_LEVELS):
                    m = tree[node]
                    # b always satisfies ok: stopping early only widens the window (by at most a
                    # millionth of its half), with no effect but a few more empty bins
                    if m in (a, b) or abs(b - a) <= 1e-6 * abs(b - start):
                        return b
                    a, b, node = (a, m, 2 * node + 1) if values[node] else (m, b, 2 * node + 2)

        mid = self._median(law)
        lo = search(lambda x: self.cdf(x, law) <= tau, mid, -1.0, s_lo)
        hi = search(lambda x: self.sf(x, law) <= tau, mid, 1.0, s_hi)
        return lo, hi

    def _median(self, law: Law) -> float:
        return 0.0

    def __repr__(self) -> str:
        return self.name


#: :meth:`PrivacyLoss.window`'s bisection evaluates this many levels of its tree a kernel call.
WINDOW_LEVELS = 6


def _midpoints(a: float, b: float, levels: int) -> list[float]:
    """The midpoints a bisection of [a, b] may visit in its next ``levels`` steps, as a heap
    (node i's halves: 2i + 1 keeps [a, m], 2i + 2 keeps [m, b]), each computed as it would be."""
    out: list[float] = []
    spans = [(a, b)]
    for _ in range(levels):
        nxt = []
        for lo, hi in spans:
            m = 0.5 * (lo + hi)
            out.append(m)
            nxt += [(lo, m), (m, hi)]
        spans = nxt
    return out


# ---------------------------------------------------------------------------------------------
# compilation of the symbolic laws (once per family)
# ---------------------------------------------------------------------------------------------


@functools.lru_cache(maxsize=None)
def _float_kernel(family: str, kind: str, law: Law) -> Callable[..., np.ndarray]:
    """The float64 numpy function (ell, *parameters) -> value of a family's cdf or sf (generated:
    :mod:`gdpproof.numeric.engine._loss_kernels`; the discrete families compute theirs from tables)."""
    return getattr(_generated(), f"{family}__{kind}_float__{law}")


@functools.lru_cache(maxsize=None)
def _ball_kernel(family: str, which: str, law: Law | None = None) -> Callable[..., flint.arb]:
    """The arb function (ell, *parameters) of a family's partial mean or x_of_ell, or of the
    support's ends (no ell): generated, or compiled at run time (engine.compiler) for the discrete families'
    support ends (their parameters are exact sympy numbers)."""
    made = getattr(_generated(), f"{family}__{which}" + ("" if law is None else f"__{law}"), None)
    if made is not None:
        return made
    fam = _sl().FAMILIES[family]
    end = fam.support[0 if which == "support_lo" else 1]
    return arb_function(end, fam.parameters)


@functools.lru_cache(maxsize=None)
def _integrand_pieces(family: str, law: Law) -> tuple[tuple[Fraction, Fraction, Any], ...]:
    """A family's integrand as (lo, hi, maker) pieces over the output line, each analytic on its
    interval (ends exact; +-inf at infinity), the zero pieces dropped; ``maker(exp, log, sqrt, pi)``
    gives the piece's function of (x, *parameters) (generated)."""
    return tuple(_generated().FAMILIES[family].integrand[law])


@functools.lru_cache(maxsize=None)
def _acb_integrand(family: str, law: Law, piece: int, analytic: bool) -> Callable[..., flint.acb]:
    """One piece (x, *parameters) of a family's integrand, in complex balls for ``acb.integral``;
    ``analytic`` asks the logarithm to flag its branch cut (arb's contract).  The generated
    piece keeps sympy's order of the terms of a sum, so 1 - p + p e^u is evaluated as
    (1 - p) + p e^u: exact zero plus e^u at p = 1, where p e^u - p + 1 would cancel to nan."""
    return _integrand_pieces(family, law)[piece][2](**acb_namespace(analytic))


def _arb_of_float(v: float) -> flint.arb:
    return flint.arb(v)


def _outward(ball: flint.arb) -> tuple[float, float]:
    """The float interval containing the ball (each end rounded outward)."""
    lo, hi = float(ball.lower()), float(ball.upper())
    return down(lo), next_up(hi)


class ExactLaw:
    """A loss family of the generated kernels at exact parameter values (Fractions): what
    :class:`CompiledLoss` reads, without sympy (:meth:`sympy_law` gives the symbolic law)."""

    def __init__(self, family: str, values: tuple[Any, ...]) -> None:
        self.family = _generated().FAMILIES[family]
        self.values = tuple(values)

    def median(self, law: Law) -> Any:
        return getattr(_generated(), f"{self.family.name}__median__{law}")(*self.values)

    def sympy_law(self) -> Any:
        sl = _sl()
        return sl.LossLaw(sl.FAMILIES[self.family.name], tuple(_sympy_value(v) for v in self.values))

    def __repr__(self) -> str:
        return repr(self.sympy_law())


def _has(fam: Any, what: str) -> bool:
    """Whether a family (symbolic, or the generated description) has atoms, a partial mean..."""
    v = getattr(fam, what)
    return v if isinstance(v, bool) else v is not None


class CompiledLoss(PrivacyLoss):
    """The privacy loss of a :class:`~gdpproof.symbolic.losses.LossLaw`, evaluated from its
    compiled expressions.  Parameters reach the float kernels as the nearest doubles of the
    exact values, and the ball kernels exactly."""

    def __init__(self, law: Any) -> None:
        self.law = law
        fam = law.family
        self.family = fam.name
        self.orderings = fam.orderings
        self.symmetric = fam.symmetric
        self._exact = law.values
        self._floats = tuple(float(v) for v in law.values)
        if self.name == PrivacyLoss.name:
            self.name = repr(law)
        lo = fam.support[0]
        self._support = (self._support_end("support_lo", lo), self._support_end("support_hi", fam.support[1]))

    def _support_end(self, which: str, expr: Any) -> float:
        if isinstance(self.law, ExactLaw):
            if expr != "kernel":
                return float(expr)
        elif expr in (_sympy().oo, -_sympy().oo):
            return float(expr)
        with arb_precision(PARTIAL_MEAN_BITS):
            ball = _ball_kernel(self.family, which)(*self._balls())
        if ball.is_nan():  # an end at infinity for these parameters (log(1 - p) at p = 1)
            law = self.law.sympy_law() if isinstance(self.law, ExactLaw) else self.law
            value = law.substitute(law.family.support[0 if which == "support_lo" else 1])
            if value.is_infinite or value is _sympy().zoo:
                return -math.inf if which == "support_lo" else math.inf
            raise PrecisionError(f"{self.name}: cannot bound the support's end {value}")
        lo, hi = _outward(ball)
        return lo if which == "support_lo" else hi  # the support, widened outward

    @property
    def has_atoms(self) -> bool:
        """True when the law of the loss has atoms (finitely many listed in the family, or a lattice law)."""
        return _has(self.law.family, "atoms")

    def _balls(self) -> list[flint.arb]:
        return [arb_from_exact(v) for v in self._exact]

    def support(self) -> tuple[float, float]:
        return self._support

    def _median(self, law: Law) -> float:
        if isinstance(self.law, ExactLaw):
            return float(self.law.median(law))
        return float(self.law.substitute(self.law.family.median[law]))

    def cdf(self, x: np.ndarray, law: Law) -> np.ndarray:
        with np.errstate(all="ignore"):
            out = _float_kernel(self.family, "cdf", law)(np.asarray(x, dtype=float), *self._floats)
        return np.broadcast_to(np.asarray(out, dtype=float), np.shape(x)).copy()

    def sf(self, x: np.ndarray, law: Law) -> np.ndarray:
        with np.errstate(all="ignore"):
            out = _float_kernel(self.family, "sf", law)(np.asarray(x, dtype=float), *self._floats)
        return np.broadcast_to(np.asarray(out, dtype=float), np.shape(x)).copy()

    def partial_mean(self, a: float, b: float, law: Law) -> tuple[float, float]:
        """E[L; a < L <= b] under ``law``: M(b) - M(a) in ball arithmetic, or arb's rigorous
        integral over the outputs where the loss lies in (a, b]."""
        if _has(self.law.family, "partial"):
            m = _ball_kernel(self.family, "partial", law)
            with arb_precision(PARTIAL_MEAN_BITS):
                params = self._balls()
                r = m(_arb_of_float(b), *params) - m(_arb_of_float(a), *params)
            if not r.is_finite():
                raise PrecisionError(f"{self.name}: partial mean of the loss did not settle ({r})")
            return _outward(r)
        return self._integrated_partial_mean(a, b, law)

    def _integrated_partial_mean(self, a: float, b: float, law: Law) -> tuple[float, float]:
        """The integral over x in (x(a), x(b)] of L(x) times the density (L non-decreasing in x),
        piece by piece where the integrand has pieces.

        The range below x = -40 sigma - 1 (sigma the scale parameter; only reached when a is at
        the floor of the support or far in the lower tail) is bounded and added to the ball: the
        output densities there are mixtures of N(m, sigma^2) with m in {-1, 0, 1}, so the mass is
        below Phi(-40); with a finite floor the loss there is in [floor, 0), and without one
        (the symmetric subsampled Gaussian) |L(x)| <= |x|/sigma^2 + |log p| + 1, whose mean over
        that range is below 1e-300 for sigma >= 0.02 and p >= 1e-9.
        """
        with arb_precision(PARTIAL_MEAN_BITS):
            params = self._balls()
            xof = _ball_kernel(self.family, "x_of_ell")
            xa, xb = xof(_arb_of_float(a), *params), xof(_arb_of_float(b), *params)
            if xa.is_nan() or xb.is_nan():  # a loss the balls cannot place (undecided floor)
                raise PrecisionError(f"{self.name}: cannot place the losses ({a}, {b}] in the output space")
            if not xb.is_finite():
                if xb < 0:
                    return 0.0, 0.0
                raise PrecisionError(f"{self.name}: cannot place the loss {b} in the output space")
            scale = params[0]
            lo_cut = -40 * scale - 1
            tail = flint.arb(0)
            if not xa.is_finite() or xa < lo_cut:  # at or below the floor (x = -oo), or far out
                xa = lo_cut
                floor = abs(self._support[0]) if math.isfinite(self._support[0]) else 1e300
                tail = flint.arb(0, floor * 1e-340 + 1e-300)
            if xa >= xb:
                return 0.0, 0.0
            if not xa < xb:
                raise PrecisionError(f"{self.name}: the interval ({a}, {b}] is too narrow to integrate over")
            r = tail
            for k, (lo, hi, _) in enumerate(_integrand_pieces(self.family, law)):
                start = xa if lo == -math.inf else xa.max(flint.arb(lo.numerator) / lo.denominator)
                stop = xb if hi == math.inf else xb.min(flint.arb(hi.numerator) / hi.denominator)
                if start >= stop:
                    continue  # the piece lies outside (x(a), x(b)]
                if not start < stop:
                    raise PrecisionError(f"{self.name}: cannot tell which pieces ({a}, {b}] covers")
                f_plain = _acb_integrand(self.family, law, k, False)
                f_analytic = _acb_integrand(self.family, law, k, True)

                def integrand(z: flint.acb, analytic: bool, f0: Any = f_plain, f1: Any = f_analytic) -> flint.acb:
                    return (f1 if analytic else f0)(z, *params)

                r += flint.acb.integral(integrand, start, stop, rel_tol=PARTIAL_MEAN_TOL, abs_tol=PARTIAL_MEAN_TOL).real
            if not r.is_finite():
                raise PrecisionError(f"{self.name}: partial mean of the loss did not settle ({r})")
            # a wide ball only widens the shift of the bracket (it is checked against h there)
            return _outward(r)


# ---------------------------------------------------------------------------------------------
# the families under their historical names (validated constructors)
# ---------------------------------------------------------------------------------------------


class GaussianLoss(CompiledLoss):
    """P = N(0, 1), Q = N(mu, 1): L ~ N(mu^2/2, mu^2) under P and N(-mu^2/2, mu^2) under Q.

    Both orderings are the same (G_mu is symmetric).

    Args:
        mu: The mean shift mu, a double >= 0.

    Examples:
        >>> float(GaussianLoss(1.0).cdf(0.5, "P")), round(float(GaussianLoss(1.0).sf(0.5, "Q")), 12)
        (0.5, 0.158655253931)
    """

    def __init__(self, mu: float) -> None:
        self.mu = _riskier_double("mu", mu, 1000)
        self.name = f"gaussian(mu={self.mu!r})"
        super().__init__(ExactLaw("gaussian", (Fraction(self.mu),)))


class RandomizedResponseLoss(CompiledLoss):
    """Randomized response with parameter eps: L = +-eps, P(L = eps) = e^eps / (1 + e^eps).

    Under Q the two probabilities swap.  The T-fold composition is the binomial curve of
    :func:`gdpproof.rr_composition`, which the test suite uses as the exact reference.

    Args:
        eps: eps, a double >= 0.

    Examples:
        >>> round(float(RandomizedResponseLoss(1.0).cdf(0.0, "P")), 12)
        0.26894142137
    """

    def __init__(self, eps: float) -> None:
        self.eps = _riskier_double("eps", eps, 700)
        self.name = f"randomized_response(eps={self.eps!r})"
        super().__init__(ExactLaw("randomized_response", (Fraction(self.eps),)))


class KRandomizedResponseLoss(CompiledLoss):
    """k-ary randomized response with parameter eps: L in {-eps, 0, eps} (three atoms,
    :data:`gdpproof.symbolic.losses.K_RANDOMIZED_RESPONSE`); k = 2 is :class:`RandomizedResponseLoss`."""

    def __init__(self, eps: float, k: float) -> None:
        self.eps = _riskier_double("eps", eps, 700)
        if not (float(k).is_integer() and 2 <= k <= 2**53):
            raise bad("k", k, "must be an integer in [2, 2^53]")
        self.k = int(k)
        self.name = f"k_randomized_response(eps={self.eps!r}, k={self.k})"
        super().__init__(ExactLaw("k_randomized_response", (Fraction(self.eps), Fraction(self.k))))


class LaplaceLoss(CompiledLoss):
    """P = Laplace(0, 1), Q = Laplace(mu, 1): L in [-mu, mu] with atoms at both ends.

    Under P: P(L = mu) = 1/2, P(L = -mu) = e^{-mu}/2, P(L <= l) = e^{-(mu - l)/2}/2 on
    [-mu, mu).  Under Q the law is e^{-l} dP: Q(L <= l) = 1 - e^{-(mu + l)/2}/2 on [-mu, mu).

    Args:
        mu: The shift mu (sensitivity over scale), a double >= 0.

    Examples:
        >>> round(float(LaplaceLoss(1.0).cdf(0.0, "P")), 12)
        0.303265329856
    """

    def __init__(self, mu: float) -> None:
        self.mu = _riskier_double("mu", mu, 700)
        self.name = f"laplace(mu={self.mu!r})"
        super().__init__(ExactLaw("laplace", (Fraction(self.mu),)))


class SubsampledGaussianLoss(CompiledLoss):
    r"""One Poisson-subsampled Gaussian step (sensitivity 1, noise sigma, sampling rate p).

    P = (1 - p) N(0, sigma^2) + p N(1, sigma^2) (the dataset with the example), Q = N(0, sigma^2);
    L(x) = log(1 - p + p e^{(2x - 1)/(2 sigma^2)}), increasing in x, L > log(1 - p).
    The ordering P||Q is "remove", Q||P is "add".

    Args:
        sigma: The noise multiplier sigma, a double > 0.
        p: The sampling rate, in (0, 1].

    Examples:
        >>> round(float(SubsampledGaussianLoss(1.0, 0.01).cdf(0.0, "P")), 12)
        0.687633212049
    """

    def __init__(self, sigma: float, p: float) -> None:
        self.sigma, self.p = _subsampled_parameters(sigma, p)
        self.name = f"subsampled_gaussian(sigma={self.sigma!r}, p={self.p!r})"
        super().__init__(ExactLaw("subsampled_gaussian", (Fraction(self.sigma), Fraction(self.p))))

    def _x(self, ell: np.ndarray) -> np.ndarray:
        """The output x with L(x) = ell (-inf at and below the floor log(1 - p))."""
        fn = _x_kernel()
        with np.errstate(all="ignore"):
            out = fn(np.asarray(ell, dtype=float), *self._floats)
        return np.broadcast_to(np.asarray(out, dtype=float), np.shape(ell)).copy()


#: The noise multipliers (sigma over the clipping norm) a subsampled Gaussian step accepts, the
#: range the engines are tested on; calibration searches within it.
NOISE_MULTIPLIER_RANGE = (0.02, 10_000)


def _riskier_double(name: str, value: Any, high: int) -> float:
    """A positive parameter at most ``high``, checked on its exact value (1e400 has no double) and
    rounded to the double above it: the less private side for mu and eps."""
    v = checked(name, value, "positive")
    if not v <= high:
        raise bad(name, value, f"must be a finite number in (0, {high}]")
    return _safe_double(v, up=True)


def _subsampled_parameters(sigma: Any, p: Any) -> tuple[float, float]:
    """(sigma, p) of a subsampled Gaussian step, validated (the range the engines are tested on) and
    rounded to doubles on the less private side (sigma down, p up), so that a bracket for the
    doubles holds for the values given ("1.1" is not a double)."""
    s_exact = checked("noise_multiplier", sigma, "positive")
    if not 0 < (q_exact := checked("sample_rate", p, "exact")) <= 1:  # one rule, whichever side it misses
        raise bad("sample_rate", p, "must be in [1e-9, 1]")
    low, high = NOISE_MULTIPLIER_RANGE
    if not low * (1 - 1e-15) <= s_exact <= high:  # before rounding: 1e400 has no double
        raise bad("noise_multiplier", sigma, f"must be in [{low}, {high}]")
    s, q = _safe_double(s_exact, up=False), _safe_double(q_exact, up=True)
    q = min(q, 1.0)
    if not 1e-9 <= q <= 1:
        raise bad("sample_rate", p, "must be in [1e-9, 1]")
    return s, q


class SymmetricSubsampledGaussianLoss(CompiledLoss):
    r"""The pair with trade-off C_p(G_{1/sigma}) (DRS Thm 4.2): one subsampled Gaussian step
    (sensitivity 1, noise sigma, rate p) under replace-one neighbours (derivations/d12).

    L is the subsampled Gaussian's loss where that is positive, the mirror image of its "add"
    ordering where negative, and 0 with probability (1 - p)(Phi(1/(2 sigma)) - Phi(-1/(2 sigma)));
    both orderings have the same law (the pair is symmetric).
    """

    def __init__(self, sigma: float, p: float) -> None:
        self.sigma, self.p = _subsampled_parameters(sigma, p)
        self.name = f"symmetric_subsampled_gaussian(sigma={self.sigma!r}, p={self.p!r})"
        super().__init__(ExactLaw("symmetric_subsampled_gaussian", (Fraction(self.sigma), Fraction(self.p))))


class DiscreteGaussianLoss(CompiledLoss):
    r"""The privacy loss of N_Z(0, sigma^2) against N_Z(Delta, sigma^2): L(x) = (Delta^2 - 2 Delta x)/(2 sigma^2)
    at the integer x, an atom per integer.  sigma is kept exact (every cut is an exact integer).

    Under P, P(L <= ell) = P(X >= c), c = DG_CUT(ell); under Q = N_Z(Delta, sigma^2),
    P(X >= c - Delta); the survival functions are P(X <= c - 1) = P(X >= 1 - c) and its shift.
    Both orderings have the same law (symmetric); the exact lattice's reflection shortcut is not
    taken (:attr:`has_atoms`: an atom on a bin edge would be rounded the other way).
    """

    has_atoms = True  # type: ignore[assignment]

    def __init__(self, sigma: Any, sensitivity: Any) -> None:
        self.sigma_exact = check_sigma(sigma)
        self.delta = check_sensitivity(sensitivity)
        self.name = f"discrete_gaussian(sigma={show(self.sigma_exact)}, Delta={self.delta})"
        super().__init__(_sl().discrete_gaussian_loss(self.sigma_exact, _sympy().Integer(self.delta)))

    def _cuts(self, x: np.ndarray) -> np.ndarray:
        """DG_CUT at every double of ``x``, exact (floats near an integer recomputed as rationals)."""
        a, b = cut_line(self.sigma_exact, self.delta)
        xs = np.asarray(x, dtype=float)
        with np.errstate(all="ignore"):
            t = float(a) + float(b) * xs
        out = np.ceil(t)
        # t carries a rounding error of a few units in 2^-52 of |A| + |B x|: cuts that close to an
        # integer are recomputed exactly
        with np.errstate(all="ignore"):
            slack = 1e-12 * (1 + abs(float(a)) + np.abs(float(b) * xs))
        near = ~np.isfinite(t) | (np.abs(t - np.round(t)) <= slack)
        flat, fo = xs.reshape(-1), out.reshape(-1)
        for i in np.flatnonzero(near.reshape(-1)):
            v = flat[i]
            if not math.isfinite(v):
                fo[i] = -np.inf if v > 0 else np.inf
            else:
                fo[i] = cut(self.sigma_exact, self.delta, Fraction(v))
        return out

    def _upper_float(self, a: np.ndarray) -> np.ndarray:
        m, u = float_table(self.sigma_exact)
        idx = np.clip(a, -m - 1, m + 1)
        idx = np.where(np.isfinite(idx), idx, np.where(a > 0, m + 1, -m - 1)).astype(np.int64)
        return u[idx + m + 1]

    def cdf(self, x: np.ndarray, law: Law) -> np.ndarray:
        c = self._cuts(x)
        return self._upper_float(c - (self.delta if law == "Q" else 0))

    def sf(self, x: np.ndarray, law: Law) -> np.ndarray:
        c = self._cuts(x)
        return self._upper_float(1 - c + (self.delta if law == "Q" else 0))

    def ball_law(self, law: Law) -> tuple[Any, Any]:
        """(cdf, sf) as functions of a ball ell (an exact double) at the current precision, for
        the exact integer lattice."""
        shift = self.delta if law == "Q" else 0

        def table() -> Table:
            prec = -(-flint.ctx.prec // 128) * 128  # a few tables, not one per precision asked
            return ball_table(self.sigma_exact, prec + 30, prec)

        def at(e: flint.arb) -> int:
            man, ex = e.mid().man_exp()
            return cut(self.sigma_exact, self.delta, Fraction(int(man)) * Fraction(2) ** int(ex))

        def cdf_fn(e: flint.arb, *params: Any) -> flint.arb:
            return table().upper(at(e) - shift)

        def sf_fn(e: flint.arb, *params: Any) -> flint.arb:
            return table().upper(1 - at(e) + shift)

        return cdf_fn, sf_fn

    def partial_mean(self, a: float, b: float, law: Law) -> tuple[float, float]:
        """E[L; a < L <= b]: the atoms x with DG_CUT(b) <= x < DG_CUT(a), summed in balls over the
        table's range; beyond it the loss times the mass is bounded through the tail (module doc)."""
        loss_at = kernels()[2]
        shift = self.delta if law == "Q" else 0
        with arb_precision(PARTIAL_MEAN_BITS):
            t = ball_table(self.sigma_exact, 1100, TABLE_BITS)
            s = sigma_ball(self.sigma_exact)
            first, last = -t.m - 1 + shift, t.m + 1 + shift
            lo = first if b == math.inf else max(cut(self.sigma_exact, self.delta, Fraction(b)), first)
            hi = last if a == -math.inf else min(cut(self.sigma_exact, self.delta, Fraction(a)) - 1, last)
            total = flint.arb(0)
            d = flint.arb(self.delta)
            weights = weights_from(lo - shift, s)  # the recurrence holds for negative z too
            for xv in range(lo, hi + 1):
                total += loss_at(flint.arb(xv), s, d) * next(weights)
            # the atoms with |x - shift| >= N = M + 2 are not summed: their part is bounded in balls
            total += loss_tail_bound(t.m + 2, s, self.delta)
            total /= t.S
        if not total.is_finite():
            raise PrecisionError(f"{self.name}: partial mean of the loss did not settle ({total})")
        return _outward(total)


class DiscreteLaplaceLoss(CompiledLoss):
    r"""The privacy loss of DLap(0) against DLap(Delta) (P(z) proportional to e^{-eps |z|}, eps = 1/scale):
    Delta + 1 atoms, (Delta - 2j) eps with the masses DL_P_MASS, DL_Q_MASS (j = 0..Delta).  The
    parameters stay exact: each atom's loss is compared with a double through the smallest double
    at or above it (exact), and the masses are balls, summed outward from each end (the float
    CDF and SF are those sums rounded once, within one unit in the last place).
    """

    has_atoms = True  # type: ignore[assignment]

    def __init__(self, eps: Any, sensitivity: Any) -> None:
        self.eps_exact = _sympy_value(checked("eps", eps))
        self.delta = check_sensitivity(sensitivity, 10**5)
        if not (self.eps_exact.is_positive and self.eps_exact.is_finite):
            raise bad("eps", eps, "must be a finite number > 0")
        self.name = f"discrete_laplace(eps={show(self.eps_exact)}, Delta={self.delta})"
        super().__init__(_sl().discrete_laplace_loss(self.eps_exact, _sympy().Integer(self.delta)))
        # atoms in increasing loss: j = Delta, ..., 0; the smallest double >= each loss
        self._js = list(range(self.delta, -1, -1))
        self._thresholds = np.array([self._threshold(i) for i in self._js])

    def _threshold(self, i: int) -> float:
        """The smallest double at or above the loss of the merged output i."""
        loss = self.law.substitute(_sl().DL_LOSS_AT.xreplace({_sl().j: _sympy().Integer(i)}))
        if not loss.is_Rational:
            return _safe_double(loss, up=True)
        try:
            return directed_double(Fraction(int(loss.p), int(loss.q)), up=True)
        except OverflowError:
            return math.inf if loss > 0 else -math.inf

    def _median(self, law: Law) -> float:
        return 0.0

    @functools.lru_cache(maxsize=8)
    def _sums(self, law: Law, bits: int) -> tuple[list[flint.arb], list[flint.arb], list[flint.arb]]:
        """(masses, below, above) as balls at ``bits``: below[k] the mass of the k lowest atoms,
        above[k] the mass of the others."""
        fn = _dl_mass_kernel(law)
        with arb_precision(bits):
            e, d = arb_from_exact(self.eps_exact), flint.arb(self.delta)
            masses = [fn(flint.arb(i), e, d) for i in self._js]
            below, above = [flint.arb(0)], [flint.arb(0)]
            for m in masses:
                below.append(below[-1] + m)
            for m in reversed(masses):
                above.append(above[-1] + m)
            above.reverse()
        return masses, below, above

    def _count(self, x: np.ndarray) -> np.ndarray:
        """How many atoms have loss <= x (exact: x >= the smallest double at or above the loss)."""
        return np.searchsorted(self._thresholds, np.asarray(x, dtype=float), side="right")

    def cdf(self, x: np.ndarray, law: Law) -> np.ndarray:
        _, below, _ = self._sums(law, PARTIAL_MEAN_BITS)
        table = np.array([float(b.mid()) for b in below])
        return table[self._count(x)]

    def sf(self, x: np.ndarray, law: Law) -> np.ndarray:
        _, _, above = self._sums(law, PARTIAL_MEAN_BITS)
        table = np.array([float(b.mid()) for b in above])
        return table[self._count(x)]

    def ball_law(self, law: Law) -> tuple[Any, Any]:
        """(cdf, sf) as functions of a ball ell (an exact double), for the exact integer lattice."""

        def sums() -> tuple[Any, Any, Any]:
            return self._sums(law, -(-flint.ctx.prec // 128) * 128)

        def count(e: flint.arb) -> int:
            return int(self._count(np.array([float(e.mid())]))[0])

        return (lambda e, *params: +sums()[1][count(e)]), (lambda e, *params: +sums()[2][count(e)])

    def partial_mean(self, a: float, b: float, law: Law) -> tuple[float, float]:
        """E[L; a < L <= b]: the atoms with loss in (a, b], in balls."""
        masses, _, _ = self._sums(law, PARTIAL_MEAN_BITS)
        lo, hi = int(self._count(np.array([a]))[0]), int(self._count(np.array([b]))[0])
        with arb_precision(PARTIAL_MEAN_BITS):
            e = arb_from_exact(self.eps_exact)
            total = flint.arb(0)
            for k in range(lo, hi):
                total += (self.delta - 2 * self._js[k]) * e * masses[k]
        return _outward(total)


@functools.lru_cache(maxsize=None)
def _dl_mass_kernel(law: Law) -> Callable[..., flint.arb]:
    """The ball function (j, eps, Delta) of a merged output's mass under ``law``."""
    return arb_function(_sl().DL_P_MASS if law == "P" else _sl().DL_Q_MASS, (_sl().j, _sl().epsilon, _sl().Delta))


@functools.lru_cache(maxsize=None)
def _x_kernel() -> Callable[..., np.ndarray]:
    return _generated().subsampled_gaussian__x_of_ell_float


_BY_FAMILY: dict[str, Callable[..., CompiledLoss]] = {
    "gaussian": GaussianLoss,
    "randomized_response": RandomizedResponseLoss,
    "k_randomized_response": KRandomizedResponseLoss,
    "laplace": LaplaceLoss,
    "subsampled_gaussian": SubsampledGaussianLoss,
    "symmetric_subsampled_gaussian": SymmetricSubsampledGaussianLoss,
}


def _safe_double(value: Any, up: bool) -> float:
    """The double nearest ``value`` on the given side of it (the value itself when exact).

    A Fraction is rounded exactly; an irrational sympy value (sqrt(2)) is compared with the double
    exactly by sympy."""
    if isinstance(value, Fraction):
        return directed_double(value, up=up)
    f = float(_sympy().N(value, 40))
    exact_f = _sympy().Rational(f)
    if up and bool(exact_f < value):
        f = math.nextafter(f, math.inf)
    elif not up and bool(exact_f > value):
        f = math.nextafter(f, -math.inf)
    return f


def loss_from_law(law: Any) -> CompiledLoss:
    """The compiled privacy loss of a symbolic law.

    The float engine works on doubles: a parameter that is not a double is rounded to the
    neighbouring double on the less private side (``LossFamily.riskier``), so an upper bound on
    delta or epsilon proven for the compiled loss holds for the law as given (the pair with the
    rounded parameter is dominated: its trade-off curve is lower).  A lower bound holds for the
    rounded law, whose parameters differ from the given ones by less than one part in 2^52.
    """
    if law.family.name == "discrete_gaussian":  # kept exact: its cuts are computed in rationals
        return DiscreteGaussianLoss(*law.values)
    if law.family.name == "discrete_laplace":  # kept exact: its atoms are compared exactly
        return DiscreteLaplaceLoss(*law.values)
    values = [_safe_double(v, up=d > 0) for v, d in zip(law.values, law.family.riskier)]
    if law.family.name in ("subsampled_gaussian", "symmetric_subsampled_gaussian"):
        values[1] = min(values[1], 1.0)
    return _BY_FAMILY[law.family.name](*values)


def loss_from_parameters(family: str, values: tuple[Any, ...]) -> CompiledLoss:
    """:func:`loss_from_law` for a family of :mod:`gdpproof.symbolic.losses` at exact values
    (Fractions; an irrational sympy value is rounded by sympy), without sympy for rational values:
    the same rounding to doubles on the less private side, the discrete families kept exact."""
    if family == "discrete_gaussian":
        return DiscreteGaussianLoss(*values)
    if family == "discrete_laplace":
        return DiscreteLaplaceLoss(*values)
    riskier = _generated().FAMILIES[family].riskier
    doubles = [_safe_double(v, up=d > 0)
               for v, d in zip(values, riskier)]
    if family in ("subsampled_gaussian", "symmetric_subsampled_gaussian"):
        doubles[1] = min(doubles[1], 1.0)
    return _BY_FAMILY[family](*doubles)


def rounded_exactly_values(family: str, values: tuple[Any, ...]) -> bool:
    """:func:`rounded_exactly` for a family at exact values: every value a double, or a family
    compiled with exact parameters (the discrete ones)."""
    if family in ("discrete_gaussian", "discrete_laplace"):
        return True
    return all(math.isfinite(float(v)) and Fraction(float(v)) == v if isinstance(v, Fraction)
               else v.is_Rational and _sympy().Rational(float(v)) == v for v in values)


def rounded_exactly(law: Any) -> bool:
    """True when every parameter of ``law`` is a double (the compiled loss is the law itself), or
    the family is compiled with exact parameters (the discrete Gaussian)."""
    if law.family.name in ("discrete_gaussian", "discrete_laplace"):
        return True
    return all(v.is_Rational and _sympy().Rational(float(v)) == v for v in law.values)
