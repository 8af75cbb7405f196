"""The statistics of the black-box audit (:mod:`gdpproof.audit.mechanisms`): proven
Clopper–Pearson bounds, the criteria that measure how far a bounded error pair is from a claim,
the mu a sample size could have detected, and the certified delta lower bound.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from decimal import Decimal
from fractions import Fraction

import flint
import numpy as np
from scipy.special import betainccinv, ndtr, ndtri

from ..errors import PrecisionError
from ..numeric.engine._mp import arb_endpoints, arb_precision
from ..numeric.engine.certify import Certified, certify_enclosure, round_fraction

__all__ = ["clopper_pearson_upper"]

#: Significant digits of the Clopper–Pearson bounds (rounded up).
_CP_DIGITS = 10


# --------------------------------------------------------------------------------------------
# Clopper–Pearson bounds


def cp_float(k: np.ndarray, n: float, failure: float) -> np.ndarray:
    """Floating-point one-sided Clopper–Pearson upper bounds for (possibly fractional) counts k."""
    k = np.asarray(k, dtype=float)
    inside = k < n
    kk = np.where(inside, k, 0.0)
    with np.errstate(all="ignore"):
        u = betainccinv(kk + 1.0, np.maximum(n - kk, 1e-300), failure)
    return np.where(inside, u, 1.0)


def _binomial_cdf_at_most(k: int, n: int, p: Decimal, failure: Fraction) -> bool | None:
    """Is P(Binomial(n, p) <= k) <= failure?  Proven in ball arithmetic; None if undecided."""
    target = Fraction(failure)
    for bits in (64, 128, 256, 512):
        with arb_precision(bits):
            tail = 1 - flint.arb(str(p)).beta_lower(k + 1, n - k, regularized=1)  # = P(Bin <= k)
            ends = arb_endpoints(tail)
        if ends is None:
            continue
        if ends[1] <= target:
            return True
        if ends[0] > target:
            return False
    return None


def clopper_pearson_upper(k: int, n: int, failure: Fraction) -> Decimal:
    """A proven one-sided upper confidence bound on a binomial proportion.

    The smallest decimal u found with 10 significant digits, rounded up, such that
    P(Binomial(n, u) <= k) <= failure; so P(p > u) <= failure for the true p when k is drawn
    from Binomial(n, p) (Clopper & Pearson 1934).  k = n gives 1.
    """
    if k >= n:
        return Decimal(1)
    u = float(betainccinv(k + 1, n - k, float(failure)))
    for slack in (1e-12, 1e-9, 1e-6, 1e-3):
        m, e = round_fraction(Fraction(min(1.0, u * (1 + slack) + 1e-300)), _CP_DIGITS, "up")
        cand = min(decimal(m, e), Decimal(1))
        if cand == 1 or _binomial_cdf_at_most(k, n, cand, failure):
            return cand
    raise PrecisionError(f"could not prove a Clopper-Pearson bound for k={k}, n={n}")  # pragma: no cover


def decimal(m: int, e: int) -> Decimal:
    """m * 10**e exactly (Decimal arithmetic would round to the context's precision)."""
    return Decimal(f"{m}E{e}")


# --------------------------------------------------------------------------------------------
# Criteria: how far an error pair (a, b), both upper bounds, is from the claim


def mu_criterion(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    with np.errstate(all="ignore"):
        return -ndtri(a) - ndtri(b)


def delta_criterion(eps: float) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
    e = math.exp(min(eps, 700.0))

    def crit(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        with np.errstate(all="ignore"):
            return np.maximum(1 - e * a - b, 1 - a - e * b)

    return crit


def detectable_mu_bound(n: int, failure: float, crit: Callable[[np.ndarray, np.ndarray], np.ndarray],
                   level: float, start: float) -> float:
    """The smallest shift m whose N(0,1)-vs-N(m,1) pair is flagged at expected counts (see module)."""
    alphas = np.geomspace(1e-15, 0.5, 300)   # the pair is symmetric: a <= 1/2 or its mirror covers every test
    taus = -ndtri(alphas)
    a_up = cp_float(n * alphas, n, failure)

    def flagged(m: float) -> bool:
        b_up = cp_float(n * ndtr(taus - m), n, failure)
        return bool(np.max(crit(a_up, b_up)) > level)

    lo, hi = (0.0, start) if flagged(start) else (start, max(2 * start, 1.0))
    while not flagged(hi):
        lo, hi = hi, 2 * hi
        if hi > 64:
            return math.inf
    for _ in range(60):
        if hi - lo <= 1e-4 * hi:
            break
        mid = (lo + hi) / 2
        lo, hi = (lo, mid) if flagged(mid) else (mid, hi)
    return hi


def round_up_3(x: float) -> Decimal:
    if math.isinf(x):
        return Decimal("Infinity")
    m, e = round_fraction(Fraction(x), 3, "up")
    return decimal(m, e)


def delta_low_bound(eps: Fraction, a: Decimal, b: Decimal, digits: int) -> Certified:
    """max(0, 1 - e^eps a - b, 1 - a - e^eps b), certified, rounded down."""
    fa, fb = Fraction(a), Fraction(b)

    def enclose(bits: int) -> tuple[Fraction, Fraction] | None:
        e = flint.arb(flint.fmpq(eps.numerator, eps.denominator)).exp()
        x, y = flint.arb(flint.fmpq(fa.numerator, fa.denominator)), flint.arb(flint.fmpq(fb.numerator, fb.denominator))
        ends = [arb_endpoints(1 - e * x - y), arb_endpoints(1 - x - e * y)]
        if ends[0] is None or ends[1] is None:
            return None
        return max(Fraction(0), ends[0][0], ends[1][0]), max(Fraction(0), ends[0][1], ends[1][1])

    return certify_enclosure(enclose, digits=digits, rounding="down", what="delta lower bound")
