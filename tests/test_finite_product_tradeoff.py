"""Issue 32, item 7: the exact piecewise-linear trade-off of a finite composition with different
parameters (randomized response and (eps, delta)-DP), against brute-force enumeration."""

from __future__ import annotations

import itertools
import math

import pytest

from gdpproof.errors import NotSupportedError
from gdpproof.mechanisms import Composed, EpsDelta, GaussianMechanism, RandomizedResponse


def _pair(eps: float, delta: float) -> list[tuple[float, float]]:
    """The (eps, delta) pair of Kairouz, Oh & Viswanath, in floats (an independent oracle)."""
    e = math.exp(eps)
    keep = 1 - delta
    return [(keep * e / (1 + e), keep / (1 + e)), (keep / (1 + e), keep * e / (1 + e)), (delta, 0.0), (0.0, delta)]


def brute_force(pairs: list[list[tuple[float, float]]], alpha: float) -> float:
    """T(P, Q)(alpha) of the product pair: every output enumerated, rejected by decreasing Q/P."""
    atoms = []
    for combo in itertools.product(*pairs):
        p = math.prod(a for a, _ in combo)
        q = math.prod(b for _, b in combo)
        atoms.append((math.inf if p == 0 else q / p, p, q))
    atoms.sort(key=lambda t: -t[0])
    spent, power = 0.0, 0.0
    for _, p, q in atoms:
        if spent + p >= alpha:  # randomize on this output
            return 1 - (power + (q * (alpha - spent) / p if p > 0 else q))
        spent, power = spent + p, power + q
    return 0.0


def test_rr_and_eps_delta_compose_to_their_exact_curve():
    f = Composed(RandomizedResponse("0.1"), EpsDelta("0.5", "1e-3")).tradeoff()
    pairs = [_pair(0.1, 0.0)[:2], _pair(0.5, 1e-3)]
    for a in ("0.0003", "0.37", "0.9"):
        got = f.evaluate(a, digits=12)
        assert got.rounding == "down" and abs(float(got) - brute_force(pairs, float(a))) < 1e-11, a


def test_what_stays_refused():
    with pytest.raises(NotSupportedError):  # a Gaussian leaf is not finitely supported
        Composed(RandomizedResponse("0.1"), GaussianMechanism(sigma=2)).tradeoff()
