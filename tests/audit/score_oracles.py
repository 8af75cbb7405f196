"""Independent oracles for the score audits: hand-written, never imported by the package.

* The Steinke–Nasr–Jagielski p-value by mpmath at 60 digits (binomial masses from mpmath's
  ``binomial`` and powers, not the package's recurrence in balls).
* jax_privacy's published one-run formulas (``jax_privacy/auditing.py``, version 2.0.0:
  ``_one_run_p_value``, ``_epsilon_one_run``, ``_epsilon_one_run_fdp``), rewritten from their
  statement in float64 with scipy, as the peer computes them, for the comparisons where the
  package cannot be imported.  Their root finder is brentq with xtol = 1e-6, the peer's stated
  tolerance.
"""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import numpy as np
from scipy import optimize, special, stats

CTX = mpmath.MPContext()
CTX.dps = 60


def snj_p_value(m: int, r: int, v: int, eps, delta) -> mpmath.mpf:
    """min(1, P[Bin(r, q) >= v] + 2 m delta max_i (1/i) P[v - i <= Bin(r, q) < v]) at 60 digits."""
    e = CTX.mpf(Fraction(eps).numerator) / Fraction(eps).denominator
    d = CTX.mpf(Fraction(delta).numerator) / Fraction(delta).denominator
    q = CTX.exp(e) / (1 + CTX.exp(e))
    pmf = [CTX.binomial(r, j) * q**j * (1 - q) ** (r - j) for j in range(r + 1)]
    beta = CTX.fsum(pmf[v:])
    alpha, partial = CTX.mpf(0), CTX.mpf(0)
    for i in range(1, v + 1):
        partial += pmf[v - i]
        alpha = max(alpha, partial / i)
    return min(CTX.mpf(1), beta + alpha * 2 * m * d)


def jax_one_run_p_value(m: int, r: int, v: int, eps: float, delta: float) -> float:
    """jax_privacy 2.0.0 ``_one_run_p_value``, restated."""
    q = special.expit(eps)
    beta = stats.binom.sf(v - 1, r, q)
    if delta == 0:
        return beta
    i = np.arange(1, v + 1)
    sums = stats.binom.sf(v - i - 1, r, q) - beta
    return min(beta + np.max(sums / i, initial=0) * delta * 2 * m, 1)


def _brentq_search(objective, eps_lo: float = 0.0) -> float:
    if objective(eps_lo) <= 0:
        return eps_lo
    eps_hi = max(1.0, 2 * eps_lo)
    while objective(eps_hi) > 0:
        eps_lo, eps_hi = eps_hi, eps_hi * 2
    return optimize.brentq(objective, eps_lo, eps_hi, xtol=1e-6)


def jax_epsilon_one_run(m: int, r: int, v: int, significance: float, delta: float) -> float:
    """jax_privacy 2.0.0 ``_epsilon_one_run(0, ...)``, restated."""
    if jax_one_run_p_value(m, r, v, 0.0, 0.0) > significance:
        return 0.0
    return _brentq_search(lambda e: significance - jax_one_run_p_value(m, r, v, e, delta))


def jax_epsilon_one_run_fdp(m: int, r: int, v: int, significance: float, delta: float, mu_of) -> float:
    """jax_privacy 2.0.0 ``_epsilon_one_run_fdp(0, ...)``, restated; ``mu_of(eps, delta)`` gives
    the Gaussian fitted to (eps, delta) (the peer calls dp_accounting.get_sigma_gaussian)."""

    def objective(eps: float) -> float:
        mu = mu_of(eps, delta)
        r_, h = significance * v / m, significance * (r - v) / m
        for i in range(v - 1, -1, -1):
            h_new = max(h, float(special.ndtr(special.ndtri(r_) - mu)))
            if h == h_new:
                break
            r_, h = min(r_ + (i / (r - i)) * (h_new - h), 1.0), h_new
        return r_ + h - r / m

    return _brentq_search(objective)


def clopper_pearson_tail(k: int, n: int, u: Fraction) -> Fraction:
    """P[Bin(n, u) <= k] exactly (small n)."""
    return sum((Fraction(math.comb(n, j)) * u**j * (1 - u) ** (n - j) for j in range(k + 1)), Fraction(0))
