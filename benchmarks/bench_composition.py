"""Cost of the exact compositions and of the CLT, as ratios against what users would otherwise run.

References (same run):
- n-fold randomized response: the float64 Neyman–Pearson curve from SciPy, i.e. the vertex
  table ``binom.cdf`` / ``binom.sf`` for all j and a linear interpolation (O(n) per curve), and
  an exact-rational sum of the n + 1 binomial terms (the only other way to certified digits);
- DP-SGD CLT mu: TF Privacy's float formula ``p * sqrt(T * (exp(sigma**-2) - 1))``.

Run: ``python benchmarks/bench_composition.py`` (about a minute).
"""

from __future__ import annotations

import math
import time
import timeit
from fractions import Fraction

import numpy as np
from scipy import stats

import gdpproof


def best(stmt, number: int, repeat: int = 3) -> float:
    return min(timeit.repeat(stmt, number=number, repeat=repeat)) / number


def scipy_rr(eps: float, n: int, a: float) -> float:
    q1 = 1 / (1 + math.exp(-eps))
    j = np.arange(n + 2)
    alphas = stats.binom.cdf(j - 1, n, q1)
    betas = stats.binom.sf(j - 1, n, 1 - q1)
    return float(np.interp(a, alphas, betas))


def exact_rr(e_eps: Fraction, n: int, a: Fraction) -> Fraction:
    """n-fold randomized response with rational e^eps, by an exact sum (the certified baseline)."""
    q1 = e_eps / (1 + e_eps)
    q0 = 1 - q1
    acc_a, acc_b = Fraction(0), Fraction(1)
    for k in range(n + 1):
        c = math.comb(n, k)
        pk, qk = c * q1**k * q0 ** (n - k), c * q0**k * q1 ** (n - k)
        if acc_a + pk >= a:
            return acc_b - (a - acc_a) * qk / pk
        acc_a, acc_b = acc_a + pk, acc_b - qk
    return Fraction(0)


def main() -> None:
    for n in (1_000, 20_000, 100_000):
        f = gdpproof.rr_composition("0.01", n)
        t0 = time.perf_counter()
        f.evaluate("0.05", digits=30)  # up to n = 20000 this builds the table of partial sums
        t_first = time.perf_counter() - t0
        t_cert = best(lambda: f.evaluate("0.05", digits=30), 3)
        t_float = best(lambda: scipy_rr(0.01, n, 0.05), 3)
        print(f"rr_composition n={n:>6}: certified 30 digits {t_cert * 1e3:8.1f} ms = {t_cert / t_float:6.2f} x "
              f"SciPy float64 curve ({t_float * 1e3:.1f} ms); first call {t_first * 1e3:.0f} ms "
              f"= {t_first / t_float:.1f} x")
    import sympy

    for n in (1_000, 5_000):
        f = gdpproof.rr_composition(sympy.log(sympy.Rational(101, 100)), n)
        f.evaluate("0.05", digits=30)
        t_cert = best(lambda: f.evaluate("0.05", digits=30), 3)
        t0 = time.perf_counter()
        exact_rr(Fraction(101, 100), n, Fraction(1, 20))
        t_exact = time.perf_counter() - t0
        print(f"rr_composition n={n:>6}, e^eps = 1.01: certified 30 digits {t_cert * 1e3:8.1f} ms = "
              f"{t_cert / t_exact:8.4f} x an exact rational sum ({t_exact * 1e3:.0f} ms)")
    acc = gdpproof.dpsgd_mu("1.1", "256/60000", 14062, digits=30, gamma=False)
    t_mu = best(lambda: gdpproof.dpsgd_mu("1.1", "256/60000", 14062, digits=30, gamma=False), 20)
    t_tf = best(lambda: 256 / 60000 * math.sqrt(14062 * (math.exp(1.1**-2) - 1)), 20000)
    print(f"dpsgd_mu 30 digits (no gamma): {t_mu * 1e3:.2f} ms = {t_mu / t_tf:.0f} x TF Privacy's float formula "
          f"({t_tf * 1e6:.2f} us); mu = {acc.mu_clt}")
    t0 = time.perf_counter()
    band = gdpproof.berry_esseen(gdpproof.subsample(gdpproof.gaussian(1 / 1.1), 256 / 60000), n=14062, digits=6)
    print(f"Berry-Esseen gamma of C_p(G_1/sigma)^14062 by quadrature, 6 digits: {time.perf_counter() - t0:.2f} s "
          f"(gamma = {band.gamma})")


if __name__ == "__main__":
    main()
