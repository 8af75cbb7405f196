"""Per-call cost of certified evaluation, as ratios against SciPy in the same run.

References (what users would otherwise run):
- one float64 evaluation of delta(eps) = Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2) with
  ``scipy.stats.norm.cdf``, the way Opacus and TF Privacy write it;
- ``scipy.special.ndtr(ndtri(1 - alpha) - mu)`` for G_mu on an array.

Run: ``python benchmarks/bench_tradeoff.py`` (about 20 s).  Prints ratios; absolute times on a
shared machine drift, ratios in one run are what the README records.
"""

from __future__ import annotations

import math
import timeit

import numpy as np
from scipy.special import ndtr, ndtri
from scipy.stats import norm

import gdpproof


def best(stmt, number: int, repeat: int = 5) -> float:
    return min(timeit.repeat(stmt, number=number, repeat=repeat)) / number


def main() -> None:
    g = gdpproof.gaussian("1.3")
    g.delta("1.1", digits=30)  # compile once
    g.evaluate("0.05", digits=30)
    t_scipy_delta = best(lambda: norm.cdf(-1.1 / 1.3 + 0.65) - math.exp(1.1) * norm.cdf(-1.1 / 1.3 - 0.65), 2000)
    t_delta = best(lambda: g.delta("1.1", digits=30), 200)
    t_eval = best(lambda: g.evaluate("0.05", digits=30), 200)
    a = np.linspace(1e-6, 1 - 1e-6, 100_000)
    t_fast = best(lambda: g.evaluate_fast(a), 20)
    t_ref = best(lambda: ndtr(ndtri(1 - a) - 1.3), 20)
    print(f"certified 30-digit delta(eps), per call:       {t_delta * 1e6:8.1f} us  "
          f"= {t_delta / t_scipy_delta:6.1f} x one scipy norm.cdf formula ({t_scipy_delta * 1e6:.1f} us)")
    print(f"certified 30-digit G_mu(alpha), per call:      {t_eval * 1e6:8.1f} us  "
          f"= {t_eval / t_scipy_delta:6.1f} x the same reference")
    print(f"float64 G_mu on 1e5 points (evaluate_fast):    {t_fast * 1e3:8.2f} ms  "
          f"= {t_fast / t_ref:6.2f} x scipy ndtr(ndtri(1-a) - mu) ({t_ref * 1e3:.2f} ms)")


if __name__ == "__main__":
    main()
