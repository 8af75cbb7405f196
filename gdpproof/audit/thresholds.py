r"""Threshold tests on canary scores: proven Clopper–Pearson bounds on their error rates, with an
honest correction for choosing the threshold, and what the bounds imply.

The test "guess *in* when the score is above t" is bounded at thresholds chosen in one of three
ways, each valid at the stated confidence: ``bonferroni`` (held-out ranks fixed in advance),
``split`` (a seeded half chooses, the other measures) or an explicit value.  Every score is
assumed an independent draw (for many canaries in one run see :mod:`gdpproof.audit.onerun`).
From the bounds :func:`threshold_audit` gives a mu lower bound (Nasr et al. 2023), an epsilon
lower bound at delta (Jagielski, Ullman & Oprea 2020), the envelope every trade-off curve of the
training lies below, and the refutation of a claimed curve.

The statistics and why each is valid: ``docs/proofs/thresholds.md``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from typing import Any

import numpy as np
from scipy.special import ndtri

from ..numeric.engine._mp import arb_endpoints, arb_of_fraction
from ..numeric.engine.certify import Certified, certify_enclosure
from ..numeric.tradeoff.solve import mu_from_error_rates
from ..errors import bad
from .bounds import cp_float, clopper_pearson_upper
from .hypotheses import Curve

__all__ = ["ThresholdTest", "ThresholdAudit", "threshold_audit", "clopper_pearson_lower", "rank_thresholds",
           "envelope", "STRATEGIES", "DEFAULT_THRESHOLDS"]

STRATEGIES = ("bonferroni", "split", "explicit")
#: The default number of Bonferroni thresholds.
DEFAULT_THRESHOLDS = 100
#: Candidates certified for mu and epsilon (the best by a float estimate, and the runners-up).
_CANDIDATES = 3


def clopper_pearson_lower(k: int, n: int, failure: Fraction) -> Decimal:
    """A proven one-sided lower confidence bound on a binomial proportion from k of n:
    1 - U(n - k), with U the proven upper bound of the complementary count (10 digits)."""
    if k <= 0:
        return Decimal(0)
    return Decimal(1) - clopper_pearson_upper(n - k, n, failure)


@dataclass(frozen=True)
class ThresholdTest:
    """One threshold test and its proven error bounds.

    ``threshold``: guess in when the (oriented) score is above it.  ``false_positives`` held-out
    scores above it of ``held_out``; ``false_negatives`` held-in scores at or below it of
    ``held_in``; ``fpr_upper``, ``fnr_upper`` their Clopper–Pearson upper bounds (10 digits,
    rounded up).  ``rank``: for Bonferroni thresholds, the held-out rank the threshold sits at (its
    FPR bound uses the rank, which is at least the count when scores tie)."""

    threshold: float
    false_positives: int
    held_out: int
    false_negatives: int
    held_in: int
    fpr_upper: Decimal
    fnr_upper: Decimal
    rank: int | None = None

    @property
    def point(self) -> tuple[Fraction, Fraction]:
        """(FPR upper, FNR upper) as exact rationals."""
        return Fraction(self.fpr_upper), Fraction(self.fnr_upper)


@dataclass(frozen=True)
class ThresholdAudit:
    """The result of :func:`threshold_audit`: tests whose bounds hold together at ``confidence``.

    ``mu_low`` (rounded down) and the test that gave it; ``epsilon_low`` at ``delta`` (rounded
    down) and its test, when ``delta`` was given; ``level``: the failure probability of each bound;
    ``selection``: how the thresholds were chosen, in words."""

    strategy: str
    direction: str
    confidence: Fraction
    level: Fraction
    tests: tuple[ThresholdTest, ...]
    mu_low: Certified
    mu_test: ThresholdTest | None
    epsilon_low: Certified | None
    epsilon_test: ThresholdTest | None
    delta: Fraction | None
    selection: str
    seed: int | None = None

    def refutes(self, curve: Curve) -> tuple[bool, ThresholdTest | None]:
        """Whether some test's bounded errors lie below ``curve`` (certified from below): then the
        training is not f-DP for that curve, at :attr:`confidence`; with the first such test."""
        for t in self.tests:
            a, b = t.point
            if a < 1 and b < 1 and (b < curve.lower(a) or a < curve.lower(b)):
                return True, t
        return False, None

    def envelope(self) -> list[tuple[Fraction, Fraction]]:
        """The vertices of the lower convex hull of the bounded points, (0, 1) and (1, 0): every
        trade-off curve the training satisfies lies below it (at :attr:`confidence`)."""
        return envelope([t.point for t in self.tests])


def envelope(points: list[tuple[Fraction, Fraction]]) -> list[tuple[Fraction, Fraction]]:
    """The lower convex hull of ``points`` with (0, 1) and (1, 0), exactly (Andrew's monotone chain)."""
    pts = sorted(set(points) | {(Fraction(0), Fraction(1)), (Fraction(1), Fraction(0))})
    hull: list[tuple[Fraction, Fraction]] = []
    for p in pts:
        while len(hull) >= 2 and _cross(hull[-2], hull[-1], p) <= 0:
            hull.pop()
        hull.append(p)
    return hull


def _cross(o: tuple[Fraction, Fraction], a: tuple[Fraction, Fraction], b: tuple[Fraction, Fraction]) -> Fraction:
    return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])


def rank_thresholds(n_out: int, thresholds: int | str) -> list[int]:
    """The held-out ranks of the Bonferroni thresholds, from the sample size alone: every rank
    0 .. n0 - 1 for ``"all"``, else rank 0 and ranks spaced geometrically up to n0 - 1 (at most
    ``thresholds`` in all, duplicates merged)."""
    if thresholds == "all":
        return list(range(n_out))
    if isinstance(thresholds, bool) or not isinstance(thresholds, (int, np.integer)) or thresholds < 1:
        raise bad("thresholds", thresholds, "must be a positive integer or 'all'")
    if thresholds >= n_out:
        return list(range(n_out))
    if thresholds == 1:
        return [max(0, n_out // 2 - 1)]
    geo = np.floor(np.geomspace(1, n_out - 1, thresholds - 1)).astype(int) if n_out > 1 else np.array([], int)
    return sorted({0, *(int(k) for k in geo)})


def oriented(name: str, scores: Any) -> np.ndarray:
    try:
        arr = np.asarray(scores, dtype=float)
    except (TypeError, ValueError):
        raise bad(name, type(scores).__name__, "must be a 1-D array of real numbers") from None
    if arr.ndim != 1 or arr.size == 0:
        raise bad(name, scores, f"must be a non-empty 1-D array of scores (it has shape {arr.shape})")
    if not np.all(np.isfinite(arr)):
        i = int(np.flatnonzero(~np.isfinite(arr))[0])
        raise bad(f"{name}[{i}]", float(arr[i]), "must be finite (no NaN or infinity)")
    return arr


def _mu_float(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    with np.errstate(all="ignore"):
        return np.where((a < 1) & (b < 1), -ndtri(a) - ndtri(b), -np.inf)


def _eps_float(a: np.ndarray, b: np.ndarray, delta: float) -> np.ndarray:
    with np.errstate(all="ignore"):
        one = np.log(np.maximum(1 - delta - b, 0) / a)
        two = np.log(np.maximum(1 - delta - a, 0) / b)
    return np.nan_to_num(np.maximum(one, two), nan=-np.inf)


def _test(t: float, inside: np.ndarray, outside: np.ndarray, level: Fraction, rank: int | None,
          sign: float) -> ThresholdTest:
    """The test at the oriented threshold t (``sign`` -1: the scores were negated; the test
    records the threshold on the scores as given)."""
    fp = int(np.count_nonzero(outside > t))
    fn = int(np.count_nonzero(inside <= t))
    k = fp if rank is None else rank
    return ThresholdTest(sign * float(t), fp, len(outside), fn, len(inside),
                         clopper_pearson_upper(k, len(outside), level), clopper_pearson_upper(fn, len(inside), level),
                         rank)


def _mu_of(test: ThresholdTest, digits: int) -> Certified:
    return mu_from_error_rates(str(test.fpr_upper), str(test.fnr_upper), digits=digits, rounding="down")


def epsilon_from_bounds(a: Fraction, b: Fraction, delta: Fraction, digits: int) -> Certified:
    """max(0, log((1 - delta - b)/a), log((1 - delta - a)/b)), certified, rounded down."""

    def enclose(bits: int) -> tuple[Fraction, Fraction] | None:
        lo = hi = Fraction(0)
        for num, den in ((1 - delta - b, a), (1 - delta - a, b)):
            if num <= 0:
                continue
            if den == 0:
                return None
            ends = arb_endpoints((arb_of_fraction(num) / arb_of_fraction(den)).log())
            if ends is None:
                return None
            lo, hi = max(lo, ends[0]), max(hi, ends[1])
        return lo, hi

    if (a == 0 and 1 - delta - b > 0) or (b == 0 and 1 - delta - a > 0):
        return Certified("Infinity", digits=digits, rounding="down", method="exact")
    return certify_enclosure(enclose, digits=digits, rounding="down", what="epsilon lower bound")


def threshold_audit(held_in: Any, held_out: Any, *, confidence: Any = "0.95", threshold: Any = "bonferroni",
                    thresholds: int | str = DEFAULT_THRESHOLDS, direction: str = "greater", delta: Any = None,
                    seed: int | None = None, digits: int = 6) -> ThresholdAudit:
    """Threshold tests on held-in and held-out canary scores, with proven error bounds
    (``docs/proofs/thresholds.md``); the mu lower bound and, with ``delta``, the epsilon lower bound they give.

    Args:
        held_in (array of real): Scores of canaries that were and were not in the training data (any lengths;
            ties allowed).
        held_out (array of real): Scores of canaries that were and were not in the training data (any lengths;
            ties allowed).
        confidence (real in (0, 1)): The probability that all the bounds hold together.
        threshold ("bonferroni", "split" or a number): How the thresholds are chosen.
        thresholds (int or "all"): The number of Bonferroni thresholds.
        direction ("greater" or "less"): Whether held-in canaries are expected to score higher (default) or
            lower.
        delta (real in [0, 1), optional): Where to bound epsilon.
        seed (int): The split's seed (required for ``"split"``).
        digits (int): Digits of mu_low and epsilon_low (rounded down).

    Returns:
        ThresholdAudit

    Examples:
        >>> import numpy as np
        >>> from gdpproof.audit import threshold_audit
        >>> rng = np.random.default_rng(0)
        >>> r = threshold_audit(rng.normal(2, 1, 2000), rng.normal(0, 1, 2000), confidence="0.95")
        >>> r.mu_low <= 2, len(r.tests)
        (True, 78)
    """
    from ._exact import fraction_of, level_of

    level_total = level_of(confidence)
    if direction not in ("greater", "less"):
        raise bad("direction", direction, "must be 'greater' (held-in canaries score higher) or 'less'")
    inside = oriented("held_in", held_in)
    outside = oriented("held_out", held_out)
    sign = -1.0 if direction == "less" else 1.0
    inside, outside = sign * inside, sign * outside
    d = None if delta is None else fraction_of("delta", delta, open_high=True)
    if isinstance(digits, bool) or not isinstance(digits, int) or not 1 <= digits <= 30:
        raise bad("digits", digits, "must be an integer from 1 to 30")
    n1, n0 = len(inside), len(outside)
    if isinstance(threshold, str) and threshold == "bonferroni":
        ranks = rank_thresholds(n0, thresholds)
        level = level_total / (2 * len(ranks))
        desc = np.sort(outside)[::-1]
        tests = [_test(float(desc[k]), inside, outside, level, k, sign) for k in ranks]
        how = (f"Bonferroni over {len(ranks)} thresholds at held-out ranks fixed by the sample size "
               f"({'every rank' if thresholds == 'all' else f'rank 0 and geometric ranks to {n0 - 1}'}); each bound "
               "fails with probability (1 - confidence) / (2 x thresholds)")
        strategy = "bonferroni"
    elif isinstance(threshold, str) and threshold == "split":
        if seed is None:
            raise bad("seed", seed, "is required for threshold='split' (the split is seeded)")
        if n1 < 2 or n0 < 2:
            raise bad("held_in" if n1 < 2 else "held_out", f"{min(n1, n0)} scores", "must have at least 2 scores to split")
        rng = np.random.default_rng(seed)
        pin, pout = rng.permutation(n1), rng.permutation(n0)
        sel_in, est_in = inside[pin[: n1 // 2]], inside[pin[n1 // 2:]]
        sel_out, est_out = outside[pout[: n0 // 2]], outside[pout[n0 // 2:]]
        level = level_total / 2
        t = _split_choice(sel_in, sel_out, len(est_in), len(est_out), float(level))
        tests = [_test(t, est_in, est_out, level, None, sign)]
        how = (f"seeded split (seed {seed}): {len(sel_in):,} held-in and {len(sel_out):,} held-out scores chose the "
               f"threshold, the other {len(est_in):,} and {len(est_out):,} measured it; each bound fails with "
               "probability (1 - confidence) / 2")
        strategy = "split"
    else:
        if isinstance(threshold, str):
            try:
                value = float(threshold)
            except ValueError:
                raise bad("threshold", threshold, "must be 'bonferroni', 'split' or a number") from None
        elif isinstance(threshold, (int, float, np.floating, np.integer)) and not isinstance(threshold, bool):
            value = float(threshold)
        else:
            raise bad("threshold", threshold, "must be 'bonferroni', 'split' or a number")
        if not math.isfinite(value):
            raise bad("threshold", threshold, "must be finite")
        level = level_total / 2
        tests = [_test(sign * value, inside, outside, level, None, sign)]
        how = "one threshold given in advance; each bound fails with probability (1 - confidence) / 2"
        strategy = "explicit"
    a = np.array([float(t.fpr_upper) for t in tests])
    b = np.array([float(t.fnr_upper) for t in tests])
    mu_low, mu_test = _best(tests, _mu_float(a, b), lambda t: _mu_of(t, digits),
                            Certified(0, digits=digits, rounding="down", method="exact"))
    eps_low = eps_test = None
    if d is not None:
        eps_low, eps_test = _best(tests, _eps_float(a, b, float(d)),
                                  lambda t: epsilon_from_bounds(*t.point, d, digits),
                                  Certified(0, digits=digits, rounding="down", method="exact"))
    conf = 1 - level_total
    return ThresholdAudit(strategy, direction, conf, level, tuple(tests), mu_low, mu_test, eps_low, eps_test, d, how,
                          seed if strategy == "split" else None)


def _best(tests: list[ThresholdTest], estimates: np.ndarray, certify: Any, zero: Certified) -> tuple[Certified, Any]:
    """The largest certified value among the best few tests by float estimate (0 if none is positive)."""
    order = np.argsort(-estimates, kind="stable")[:_CANDIDATES]
    best, which = zero, None
    for i in order:
        if not estimates[i] > 0:
            break
        value = certify(tests[int(i)])
        if value.is_infinite() or value > best:
            best, which = value, tests[int(i)]
    return best, which


def _split_choice(sel_in: np.ndarray, sel_out: np.ndarray, n1_est: int, n0_est: int, level: float) -> float:
    """The threshold the selection half prefers: the largest mu bound it would give on the
    estimation half, judged on pessimistic rates (one-sigma Clopper–Pearson upper bounds of the
    selection counts), so that a threshold in a tail where the selection half was lucky is not
    preferred to a central one (the estimate regresses there)."""
    cand = np.unique(np.concatenate([sel_in, sel_out]))
    if len(cand) > 4096:
        cand = np.unique(np.quantile(cand, np.linspace(0, 1, 4096)))
    fp = len(sel_out) - np.searchsorted(np.sort(sel_out), cand, side="right")
    fn = np.searchsorted(np.sort(sel_in), cand, side="right")
    a_hat = cp_float(fp, len(sel_out), _ONE_SIGMA)
    b_hat = cp_float(fn, len(sel_in), _ONE_SIGMA)
    a = cp_float(a_hat * n0_est, n0_est, level)
    b = cp_float(b_hat * n1_est, n1_est, level)
    return float(cand[int(np.argmax(_mu_float(a, b)))])


#: The level of the pessimistic rates of the split's selection: one normal standard deviation.
_ONE_SIGMA = 0.15865525393145707
