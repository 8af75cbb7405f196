"""Certified and float64 conversions against what users would otherwise run (DESIGN §4).

References, measured in the same run (ratios are what the README records):
- one float64 evaluation of ``norm.cdf(-eps/mu + mu/2) - exp(eps) * norm.cdf(-eps/mu - mu/2)``
  with SciPy, as Opacus and TF Privacy compute delta;
- SciPy ``brentq`` on that formula over [0, 500] for epsilon from delta (their method);
- the same SciPy formula on numpy arrays, against ``gdpproof.fast.delta_from_epsilon``.

Run: ``python benchmarks/bench_conversions.py`` (about a minute).
"""

from __future__ import annotations

import math
import timeit

import numpy as np
from scipy.optimize import brentq
from scipy.stats import norm

import gdpproof
from gdpproof import fast

CASES = [("0.5", "0.5"), ("1", "1"), ("1.3", "2.1"), ("3", "4")]
TARGETS = [("0.5", "1e-5"), ("1", "1e-5"), ("2", "1e-8"), ("4", "1e-3")]


def best(fn, number: int, repeat: int = 7) -> float:
    return min(timeit.repeat(fn, number=number, repeat=repeat)) / number


def scipy_delta(mu: float, eps: float) -> float:
    return norm.cdf(-eps / mu + mu / 2) - math.exp(eps) * norm.cdf(-eps / mu - mu / 2)


def main() -> None:
    rows = []
    t_ref = sum(best(lambda m=float(m), e=float(e): scipy_delta(m, e), 300) for m, e in CASES) / len(CASES)
    for m, e in CASES:
        gdpproof.delta_from_epsilon(m, e, digits=30)
    t_delta = sum(best(lambda m=m, e=e: gdpproof.delta_from_epsilon(m, e, digits=30), 100) for m, e in CASES) / len(CASES)
    rows.append(("certified 30-digit delta(eps), per call", t_delta, "one SciPy norm.cdf formula", t_ref))

    def brent(mu: float, d: float) -> float:
        return brentq(lambda x: scipy_delta(mu, x) - d, 0, 500)

    t_brent = sum(best(lambda m=float(m), d=float(d): brent(m, d), 20) for m, d in TARGETS) / len(TARGETS)
    for m, d in TARGETS:
        gdpproof.epsilon_from_delta(m, d, digits=30)
    t_eps = sum(best(lambda m=m, d=d: gdpproof.epsilon_from_delta(m, d, digits=30), 20) for m, d in TARGETS) / len(TARGETS)
    rows.append(("certified 30-digit eps(delta), per call", t_eps, "SciPy brentq on the formula, [0, 500]", t_brent))

    rng = np.random.default_rng(0)
    mu = rng.uniform(0.5, 5, 100_000)
    eps = rng.uniform(0, 10, 100_000)
    fast.delta_from_epsilon(mu[:10], eps[:10])
    t_arr = best(lambda: fast.delta_from_epsilon(mu, eps), 3)
    t_arr_ref = best(lambda: norm.cdf(-eps / mu + mu / 2) - np.exp(eps) * norm.cdf(-eps / mu - mu / 2), 3)
    rows.append(("float64 delta on 1e5 (mu, eps) pairs", t_arr, "the SciPy formula on the arrays", t_arr_ref))

    width = max(len(r[0]) for r in rows)
    for name, t, ref_name, t_r in rows:
        print(f"{name:<{width}}  {t * 1e6:10.1f} us   ratio {t / t_r:5.2f} x  {ref_name} ({t_r * 1e6:.1f} us)")


if __name__ == "__main__":
    main()
