"""d15: the one-run audits against brute-force enumeration: the (eps, delta) p-value and the f-DP
recursion bound the best adversary's chance, and the recursion's certificate is monotone.

Claim.  m canaries, each included independently with probability 1/2; a mechanism that is
(eps, delta)-DP (or f-DP) with respect to each canary; an adversary that sees the output and makes
exactly k guesses ("in" or "out"), abstaining on the rest.  Let P* be the largest probability,
over all adversaries, of c or more right guesses.
(a) Steinke, Nasr & Jagielski 2023: P* <= P[Bin(k, q) >= c] + 2 m delta max_i (1/i)
    P[c - i <= Bin(k, q) < c], q = e^eps/(1 + e^eps); for randomized response on each canary,
    guessing every canary (k = m), P* = P[Bin(m, q) >= c]: the bound is tight there.  The shipped
    ball evaluation (gdpproof.audit.onerun.snj_p_interval) contains the exact rational value.
(b) Mahloujifar, Melis & Chaudhuri 2025: the recursion (gdpproof.audit.onerun) started at
    tau = P* does not reject, r_0 + h_0 <= k/m: the test never rejects a true claim at a level
    the truth reaches.  For randomized response with every guess right (c = k < m) its p-value is
    the binomial tail, tight; with wrong guesses it can be looser than (a) (m = k = 5, c = 4:
    0.81 against 0.63), so neither analysis dominates the other for every curve.
(c) The certificate (onerun's module docstring): if g <= g' pointwise (g' increasing), the
    recursion's states keep r' - r >= c_i (h' - h) >= 0, so r_0 + h_0 grows with g; rounding r
    and h down keeps the invariant; the statistic grows with tau.

Sources: Steinke, Nasr & Jagielski (2023), Privacy auditing with one (1) training run, Thm 3.1 and
the (eps, delta) p-value of their code; Mahloujifar, Melis & Chaudhuri (2025), Auditing f-DP in one
run, the recursion as jax_privacy 2.0.0 implements it (``audit_objective``).

Assumptions.  The adversary's number of guesses is fixed (k); the mechanisms enumerated act on each
canary independently: randomized response with e^eps = 3 (f_{log 3, 0} exactly, rational), the
same with the bit revealed with probability delta0 ((log 3, delta0)-DP), and a Gaussian N(mu s, 1)
quantised to a few bins (post-processing: G_mu-DP).  Brute force is exact in rationals for the first
two and in mpmath at 50 digits for the third; sympy cannot state "for every adversary", so the
enumeration is that statement for these mechanisms and small m (the best adversary decides output
by output, since the chance is a sum over outputs).

Steps.
1. (a) exact: enumerate S in {0,1}^m and outputs; for each output the best guess pattern; compare
   with the binomial tail computed exactly in Fractions and with the shipped ball at eps = log 3.
2. (b) the recursion in mpmath at tau = P* for RR, RR with delta0, quantised Gaussians; the
   shipped certified test (integers) does not reject at level P* either.  The p-values compared.
3. (c) random increasing g <= g': the invariant along the steps, exactly in Fractions; tau.
"""

from __future__ import annotations

import itertools
import math
import random
from fractions import Fraction

import flint
import mpmath

from gdpproof.audit.hypotheses import Curve, gaussian_curve
from gdpproof.audit.onerun import mmc_p, rejects, snj_p_interval

CTX = mpmath.MPContext()
CTX.dps = 50


def _patterns(m: int, k: int):
    """Every way to make exactly k guesses: (positions, guessed bits)."""
    for pos in itertools.combinations(range(m), k):
        for bits in itertools.product((0, 1), repeat=k):
            yield pos, bits


def best_chance(m: int, k: int, c: int, laws, zero, one=None):
    """max over adversaries of P[>= c right guesses]: the per-canary output laws are
    ``laws[y] = (P(y | out), P(y | in))``; exact when the masses are Fractions."""
    pats = list(_patterns(m, k))
    secrets = list(itertools.product((0, 1), repeat=m))
    right = [[sum(1 for j, b in zip(pos, bits) if s[j] == b) >= c for s in secrets] for pos, bits in pats]
    half = Fraction(1, 2**m) if one is None else one / 2**m
    total = zero
    for y in itertools.product(range(len(laws)), repeat=m):
        weights = []
        for s in secrets:
            w = half
            for j in range(m):
                w = w * laws[y[j]][s[j]]
            weights.append(w)
        total += max(sum((w for w, ok in zip(weights, row) if ok), zero) for row in right)
    return total


def binomial_tail(k: int, c: int, q: Fraction) -> Fraction:
    return sum((math.comb(k, j) * q**j * (1 - q) ** (k - j) for j in range(c, k + 1)), Fraction(0))


def recursion(tau, m: int, k: int, c: int, g):
    """r_0 + h_0 of the recursion at tau (in whatever number type tau and g use)."""
    r, h = tau * c / m, tau * (k - c) / m
    for i in range(c - 1, -1, -1):
        h_new = max(h, g(r))
        if h_new == h:
            break
        r, h = min(r + i * (h_new - h) / (k - i), 1), h_new
    return r + h


class RRCurve(Curve):
    """f_{log 3, 0} in exact rationals: max(0, 1 - 3a, (1 - a)/3)."""

    label = "f_{log 3, 0}"

    def lower(self, a: Fraction) -> Fraction:
        return max(Fraction(0), 1 - 3 * a, (1 - a) / 3)

    def lower_float(self, a):
        import numpy as np

        a = np.asarray(a, dtype=float)
        return np.maximum(0.0, np.maximum(1 - 3 * a, (1 - a) / 3))


def quantised_gaussian(mu, cuts):
    edges = [-CTX.inf] + [CTX.mpf(x) for x in cuts] + [CTX.inf]
    return [(CTX.ncdf(b) - CTX.ncdf(a), CTX.ncdf(b - mu) - CTX.ncdf(a - mu)) for a, b in zip(edges, edges[1:])]


def main() -> None:
    q = Fraction(3, 4)                      # e^eps = 3
    rr = [(q, 1 - q), (1 - q, q)]           # y = 0 is more likely out, y = 1 in
    log3 = flint.arb(3).log()
    checked = 0
    # 1. (a) and 2. (b) for randomized response
    for m in (3, 4, 5):
        for k in range(1, m + 1):
            for c in range(1, k + 1):
                star = best_chance(m, k, c, rr, Fraction(0))
                exact_tail = binomial_tail(k, c, q)
                assert star <= exact_tail
                if k == m:
                    assert star == exact_tail     # tight: guessing every canary from its own bit
                lo, hi = snj_p_interval(m, k, c, log3, Fraction(0), bits=128)
                assert lo <= exact_tail <= hi
                assert recursion(star, m, k, c, RRCurve().g_low) <= Fraction(k, m)
                if 0 < star < 1:
                    assert not rejects(m, k, c, RRCurve(), star)
                    # the shipped p-value bounds the best adversary's chance; where every guess is
                    # right (c = k) it is the binomial tail, tight, up to its rounding up
                    p_fdp = mmc_p(m, k, c, RRCurve(), 6).to_fraction()
                    assert p_fdp >= star
                    if c == k and k < m:
                        assert p_fdp <= exact_tail * (1 + Fraction(1, 10**5))
                checked += 1
    # 1. (a) with delta: reveal the bit with probability d0, else randomized response
    d0 = Fraction(1, 20)
    leaky = [((1 - d0) * q, (1 - d0) * (1 - q)), ((1 - d0) * (1 - q), (1 - d0) * q), (d0, Fraction(0)),
             (Fraction(0), d0)]
    for m, k, c in ((3, 3, 3), (4, 2, 2), (4, 4, 3)):
        star = best_chance(m, k, c, leaky, Fraction(0))
        lo, hi = snj_p_interval(m, k, c, log3, d0, bits=128)
        assert star <= hi
        checked += 1
    # 2. (b) quantised Gaussians against G_mu
    for mu, cuts in ((1, ["0.5"]), (2, ["0", "1", "2"])):
        laws = quantised_gaussian(CTX.mpf(mu), cuts)
        g = gaussian_curve(mu)
        gm = lambda x, mu=mu: CTX.ncdf(CTX.sqrt(2) * CTX.erfinv(2 * x - 1) - mu) if 0 < x < 1 else CTX.mpf(x >= 1)  # noqa: E731
        for m, k, c in ((3, 2, 2), (3, 3, 2), (4, 2, 2), (4, 3, 3), (4, 4, 3)):
            if len(laws) ** m > 100:
                continue
            star = best_chance(m, k, c, laws, CTX.mpf(0), CTX.mpf(1))
            assert recursion(star, m, k, c, gm) <= CTX.mpf(k) / m * (1 + CTX.mpf(10) ** -40)
            if 0 < star < 1:
                assert not rejects(m, k, c, g, Fraction(str(CTX.nstr(star, 40))))
            checked += 1
    # 3. (c) the invariant, exactly, on random increasing piecewise-linear g <= g'
    rng = random.Random(15)
    for _ in range(200):
        knots = sorted(Fraction(rng.randrange(1, 999), 1000) for _ in range(4))
        lows = sorted(Fraction(rng.randrange(0, 999), 1000) for _ in range(6))
        highs = [min(Fraction(1), v + Fraction(rng.randrange(0, 200), 1000)) for v in lows]
        highs = [max(highs[: i + 1]) for i in range(len(highs))]
        xs = [Fraction(0)] + knots + [Fraction(1)]

        def pl(vals, x, xs=xs):
            for (x0, v0), (x1, v1) in zip(zip(xs, vals), zip(xs[1:], vals[1:])):
                if x <= x1:
                    return v0 + (v1 - v0) * (x - x0) / (x1 - x0)
            return vals[-1]

        m = rng.randrange(5, 60)
        k = rng.randrange(2, m + 1)
        c = rng.randrange(1, k + 1)
        tau = Fraction(rng.randrange(1, 1000), 1000)
        ra, ha = tau * c / m, tau * (k - c) / m
        rb, hb = ra, ha
        for i in range(c - 1, -1, -1):
            coef = Fraction(i, k - i)
            da = max(Fraction(0), pl(lows, ra) - ha)
            db = max(Fraction(0), pl(highs, rb) - hb)
            ra, ha = min(ra + coef * da, Fraction(1)), ha + da
            rb, hb = min(rb + coef * db, Fraction(1)), hb + db
            assert hb >= ha and (rb == 1 or rb - ra >= coef * (hb - ha))
        assert ra + ha <= rb + hb
        smaller = recursion(tau / 2, m, k, c, lambda x: pl(highs, x))
        assert smaller <= recursion(tau, m, k, c, lambda x: pl(highs, x))
    print(f"d15: one-run (eps, delta) p-value and f-DP recursion against {checked} brute-force enumerations; "
          "the recursion's certificate is monotone: verified")


if __name__ == "__main__":
    main()
