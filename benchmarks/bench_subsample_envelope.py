"""Cost of the numeric envelope C_p(f) = min{f_p, f_p^{-1}}** for curved non-symmetric f.

Measures certified 30-digit values on the three kinds of point (on f_p, on f_p^{-1}, under the
bridging segment), delta(eps), and the float64 path, for f = (1 - alpha)^e (the Gumbel location
family, shift 1) with p = 1/2.  Reference (same run): the closed-form route of C_p(G_1) (the
symmetric construction with its implicit inverse), against the same G_1 written as a plain
expression, whose symmetry gdpproof does not know, so that it takes the numeric route.

Run: ``python benchmarks/bench_subsample_envelope.py`` (about half a minute).
"""

from __future__ import annotations

import time
import timeit

import numpy as np
import sympy

import gdpproof
from gdpproof.symbols import alpha


def best(stmt, number: int, repeat: int = 3) -> float:
    return min(timeit.repeat(stmt, number=number, repeat=repeat)) / number


def main() -> None:
    gumbel = gdpproof.subsample(gdpproof.TradeOff((1 - alpha) ** sympy.E, name="gumbel"), "0.5")
    # on f_p^{-1} (0.2), on the segment of slope -1 (0.4), on f_p (0.6); non-dyadic alphas are
    # balls, evaluated at both ends
    for a in ("0.2", "0.4", "0.6", "0.5"):
        gumbel.evaluate(a, digits=30)  # compile once
        print(f"gumbel C_1/2 at {a}, 30 digits: {best(lambda: gumbel.evaluate(a, digits=30), 5) * 1e3:.1f} ms")
    print(f"gumbel delta(0.5), 30 digits: {best(lambda: gumbel.delta('0.5', digits=30), 5) * 1e3:.1f} ms")
    x = np.linspace(0, 1, 2001)
    t0 = time.perf_counter()
    gumbel.evaluate_fast(x)
    print(f"gumbel float64 path: {(time.perf_counter() - t0) / x.size * 1e6:.0f} us per point (2001 points)")
    plain = gdpproof.subsample(gdpproof.TradeOff(gdpproof.gaussian(1).expr, name="plain"), "0.5")
    closed = gdpproof.subsample(gdpproof.gaussian(1), "0.5")
    for a in ("0.1", "0.4", "0.8"):
        plain.evaluate(a, digits=30)
        closed.evaluate(a, digits=30)
        tp = best(lambda: plain.evaluate(a, digits=30), 5)
        tc = best(lambda: closed.evaluate(a, digits=30), 5)
        print(f"C_1/2(G_1) at {a}, 30 digits: numeric {tp * 1e3:.1f} ms, closed form {tc * 1e3:.1f} ms, "
              f"ratio {tp / tc:.1f}")


if __name__ == "__main__":
    main()
