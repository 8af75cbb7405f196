"""Empirical trade-off curves with a simultaneous confidence band, and their check against theory.

For thresholds tau_1 < ... < tau_K and the tests "reject P when the statistic exceeds tau",
alpha(tau) = P(s > tau) and beta(tau) = Q(s <= tau) are estimated by the sample fractions.  By
the Dvoretzky–Kiefer–Wolfowitz inequality with Massart's constant, sup_tau |F_n - F| <= e with
e = sqrt(log(2/g)/(2n)) except with probability g; with g = (1 - confidence)/2 for each of the
two samples, the band holds for every threshold at once with probability >= confidence (a union
bound: the stated correction).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import bad


def dkw_half_width(n: int, failure: float) -> float:
    """e with P(sup |F_n - F| > e) <= failure for n samples (DKW, Massart 1990).

    Args:
        n: The number of samples, >= 1.
        failure: The failure probability, in (0, 1).

    Returns:
        The half-width e.

    Examples:
        >>> round(dkw_half_width(10**6, 1e-6), 6)
        0.002693
    """
    if n < 1:
        raise bad("n", n, "must be >= 1")
    if not 0 < failure < 1:
        raise bad("failure", failure, "must be in (0, 1)")
    return math.sqrt(math.log(2 / failure) / (2 * n))


def _finite(curve: Callable[[np.ndarray], np.ndarray], alpha: np.ndarray) -> np.ndarray:
    """``curve(alpha)``, refused when a value is not finite: a NaN would read as a violation."""
    values = np.asarray(curve(alpha), dtype=float)
    bad = ~np.isfinite(values)
    if bad.any():
        a = float(np.asarray(alpha, dtype=float)[bad][0])
        raise ValueError(f"the theory's curve is {float(values[bad][0])} at alpha={a!r}: it must be finite in [0, 1] "
                         "(a non-finite value would read as a violation)")
    return values


#: Bisection steps of :func:`_curve_distance` within its binade: a relative resolution of 2^-30.
_DISTANCE_STEPS = 30
#: The least t it tries is 2^_LEAST_EXPONENT, the least normal double.
_LEAST_EXPONENT = -1022


def _curve_distance(curve: Callable[[np.ndarray], np.ndarray], alpha: np.ndarray, beta: np.ndarray) -> float:
    """The largest distance from the points (alpha_i, beta_i) to the graph of the non-increasing
    ``curve`` f, moving alpha and beta by the same amount: over i, the least t in [0, 1] with
    f(alpha_i + t) - t <= beta_i <= f(alpha_i - t) + t (alpha clipped to [0, 1]), the geometry
    of the band's check (the Levy distance).  The vertical distance |beta_i - f(alpha_i)|
    misreads a steep curve: at sigma = 1e-5, G_mu drops from 1 to 0 within alpha < 1e-300, and
    an estimate (0, 0) lies on it, 1 below f(0).  Found by bisection on the binary exponent of
    t, then within its binade (the upper end, to a relative 2^-30); 0.0 when the points fit at
    t = 2^-1022, the least normal double (f is not asked at subnormal alpha, where a float
    kernel may fail: Laplace's 1 - e^mu alpha is -inf there once e^mu overflows).

    Args:
        curve: f, on arrays of alpha in [0, 1].
        alpha: The points' alpha.
        beta: Their beta.

    Returns:
        The largest distance (0.0 without points).

    Examples:
        >>> import numpy as np
        >>> identity = lambda a: 1 - a
        >>> round(_curve_distance(identity, np.array([0.5]), np.array([0.3])), 6)  # (0.5, 0.3) to the line
        0.1
        >>> steep = lambda a: np.where(a > 0, 0.0, 1.0)
        >>> _curve_distance(steep, np.array([0.0]), np.array([0.0]))  # on the drop at alpha = 0
        0.0
    """
    if not len(beta):
        return 0.0

    def fits(t: np.ndarray) -> np.ndarray:
        ends = _finite(curve, np.clip(np.concatenate((alpha + t, alpha - t)), 0.0, 1.0))
        return (ends[: len(alpha)] - t <= beta) & (beta <= ends[len(alpha):] + t)

    # the least k in (-1022, 0] with fits(2^k) (t = 1 always fits: f(a + 1) - 1 <= 0, f(0) + 1 >= 1)
    k_lo, k_hi = np.full(len(beta), _LEAST_EXPONENT), np.zeros(len(beta), dtype=int)
    while (k_hi - k_lo > 1).any():
        k = (k_lo + k_hi) // 2
        ok = fits(np.ldexp(1.0, k))
        k_lo, k_hi = np.where(ok, k_lo, k), np.where(ok, k, k_hi)
    hi = np.ldexp(1.0, k_hi)
    lo = hi / 2
    for _ in range(_DISTANCE_STEPS):
        t = (lo + hi) / 2
        ok = fits(t)
        hi, lo = np.where(ok, t, hi), np.where(ok, lo, t)
    least = fits(np.full(len(beta), np.ldexp(1.0, _LEAST_EXPONENT)))
    return float(np.max(np.where(least, 0.0, hi)))


@dataclass(frozen=True)
class CurveCheck:
    """The verdict of :meth:`EmpiricalCurve.check`.

    Attributes:
        inside: Every estimated point is within the band of the theoretical curve.
        max_violation: The largest distance (in beta) by which a point is outside; 0 when inside.
        max_deviation: The largest distance from an estimated point to the theory's curve,
            measured as the band is (the least t with f(alpha_hat + t) -
            t <= beta_hat <= f(alpha_hat - t) + t), so that a check is inside when it is at most
            the half-width.
        half_width: The band's half-widths (alpha, beta).
        confidence: The probability that the band holds (so a false "outside" has probability at
            most 1 - confidence when the theory is right).
        one_sided: True when only the lower side was checked (the statistic is not the likelihood
            ratio).

    Examples:
        >>> import gdpproof
        >>> from gdpproof.simulation import GaussianSampler, simulate
        >>> curve = simulate(GaussianSampler(1.0, 1.0), 20000, seed=1, thresholds=16)
        >>> check = curve.check(gdpproof.gaussian(1).evaluate_fast)
        >>> check.inside, check.one_sided
        (True, False)
    """

    inside: bool
    max_violation: float
    max_deviation: float
    half_width: tuple[float, float]
    confidence: float
    one_sided: bool


@dataclass(frozen=True)
class EmpiricalCurve:
    """Estimated error pairs (alpha_hat, beta_hat) at each threshold, with their band.

    Attributes:
        mechanism: The simulated mechanism's name.
        thresholds: The thresholds on the statistic, increasing.
        alpha: The estimated type I error of rejecting above each threshold.
        beta: The estimated type II error at each threshold.
        n_p: The number of draws under P.
        n_q: The number of draws under Q.
        confidence: The probability that the band (:meth:`half_width`) holds.
        exact: Whether the statistic is the exact log-likelihood ratio (the band is then two-sided).

    Examples:
        >>> from gdpproof.simulation import GaussianSampler, simulate
        >>> curve = simulate(GaussianSampler(1.0, 1.0), 20000, seed=1, thresholds=16)
        >>> curve.n_p, len(curve.alpha), curve.exact
        (20000, 16, True)
    """

    mechanism: str
    thresholds: np.ndarray
    alpha: np.ndarray
    beta: np.ndarray
    n_p: int
    n_q: int
    confidence: float
    exact: bool

    @property
    def half_width(self) -> tuple[float, float]:
        """DKW half-widths (in alpha, in beta) of the simultaneous band."""
        g = (1 - self.confidence) / 2
        return dkw_half_width(self.n_p, g), dkw_half_width(self.n_q, g)

    def check(self, theory: Callable[[np.ndarray], np.ndarray],
              upper: Callable[[np.ndarray], np.ndarray] | None = None) -> CurveCheck:
        """Is the theory's curve f consistent with the samples?

        With the exact log-likelihood ratio the true points lie on f, so each estimate must
        satisfy f(alpha + e_a) - e_b <= beta <= f(alpha - e_a) + e_b (f non-increasing).  With
        another statistic the true points lie above f: only the left inequality is checked.
        When the theory is a band (a lower curve ``theory`` and an upper curve ``upper``, both
        non-increasing, e.g. Berry–Esseen around the CLT), the right inequality uses ``upper``.
        """
        ea, eb = self.half_width
        top = theory if upper is None else upper
        lo = _finite(theory, np.clip(self.alpha + ea, 0.0, 1.0)) - eb
        hi = _finite(top, np.clip(self.alpha - ea, 0.0, 1.0)) + eb
        below = np.maximum(lo - self.beta, 0.0)
        above = np.maximum(self.beta - hi, 0.0) if self.exact else np.zeros_like(below)
        violation = float(np.max(np.maximum(below, above))) if len(self.beta) else 0.0
        deviation = _curve_distance(theory, self.alpha, self.beta)
        return CurveCheck(violation == 0.0, violation, deviation, (ea, eb), self.confidence, not self.exact)

    def plot(self, ax: Any = None, theory: Callable[[np.ndarray], np.ndarray] | None = None,
             label: str = "theory") -> Any:
        """Estimate, band and (optionally) the theoretical curve on one matplotlib axis."""
        import matplotlib.pyplot as plt

        if ax is None:
            _, ax = plt.subplots(figsize=(5.5, 5))
        ea, eb = self.half_width
        order = np.argsort(self.alpha)
        a, b = self.alpha[order], self.beta[order]
        ax.fill_between(a, np.clip(b - eb, 0, 1), np.clip(b + eb, 0, 1), color="C0", alpha=0.3,
                        label=f"band, confidence {self.confidence:g} (DKW, +-{ea:.2g} in alpha)")
        ax.plot(a, b, "C0.", ms=2, label=f"estimate ({self.n_p:,} + {self.n_q:,} samples)")
        if theory is not None:
            grid = np.linspace(0, 1, 401)
            ax.plot(grid, theory(grid), "k", lw=1, label=label)
        ax.plot([0, 1], [1, 0], "k:", lw=0.7)
        ax.set_xlabel("type I error alpha")
        ax.set_ylabel("type II error beta")
        ax.set_title(self.mechanism, fontsize=9)
        ax.legend(fontsize=7)
        return ax

    def plot_deviation(self, ax: Any, theory: Callable[[np.ndarray], np.ndarray],
                       upper: Callable[[np.ndarray], np.ndarray] | None = None,
                       title: str = "deviation from the theory",
                       center: Callable[[np.ndarray], np.ndarray] | None = None) -> Any:
        """beta_hat - c(alpha_hat) against alpha_hat with the region the check allows (the band
        around ``theory``, or around [``theory``, ``upper``] for a band theory), both shown
        relative to ``center`` (default ``theory``): the picture where a small band is visible."""
        ea, eb = self.half_width
        order = np.argsort(self.alpha)
        a, b = self.alpha[order], self.beta[order]
        c = np.asarray((center or theory)(a), dtype=float)
        top = theory if upper is None else upper
        lo = np.asarray(theory(np.clip(a + ea, 0, 1)), dtype=float) - eb - c
        hi = np.asarray(top(np.clip(a - ea, 0, 1)), dtype=float) + eb - c
        ax.fill_between(a, lo, hi, color="C0", alpha=0.3, label="allowed by the check")
        ax.plot(a, b - c, "C0.", ms=2, label="estimate minus theory")
        ax.axhline(0, color="k", lw=0.8)
        ax.set_xlabel("type I error alpha")
        ax.set_ylabel("beta_hat - f(alpha_hat)")
        ax.set_title(title, fontsize=9)
        ax.legend(fontsize=7)
        return ax
