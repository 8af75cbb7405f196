r"""Attack summaries of canary scores: the ROC with confidence bands, TPR at a given FPR, AUROC and
the best accuracy.

Counts are exact integers and the estimates exact rationals; the bounds are Clopper–Pearson
bounds proven in ball arithmetic, under the threshold tests' assumption (every score an
independent draw).  The ROC band holds simultaneously over every threshold (an order-statistic
argument); TPR at FPR x is the deterministic threshold's at the held-out rank floor(x n0);
AUROC is the Mann–Whitney statistic; the best accuracy is over thresholds.

Why the band is simultaneous, and how the confidence is split: ``docs/proofs/thresholds.md``.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction

import numpy as np

from .bounds import clopper_pearson_upper
from .thresholds import clopper_pearson_lower

__all__ = ["RocBand", "TprAtFpr", "Summary", "summarize", "roc_points", "auroc"]

#: Thresholds at which the ROC band is evaluated (at most).
BAND_POINTS = 40


@dataclass(frozen=True)
class RocBand:
    """The ROC band at one threshold: empirical rates and their simultaneous bounds (10 digits,
    lower bounds rounded down, upper bounds up)."""

    threshold: float
    fpr: Fraction
    fpr_lower: Decimal
    fpr_upper: Decimal
    tpr: Fraction
    tpr_lower: Decimal
    tpr_upper: Decimal


@dataclass(frozen=True)
class TprAtFpr:
    """TPR at the threshold whose empirical FPR is at most ``target``: ``tpr`` in
    [``tpr_lower``, ``tpr_upper``] and FPR <= ``fpr_upper`` together at the summary's confidence."""

    target: Fraction
    threshold: float
    fpr: Fraction
    fpr_upper: Decimal
    tpr: Fraction
    tpr_lower: Decimal
    tpr_upper: Decimal


@dataclass(frozen=True)
class Summary:
    """Attack summaries (``docs/proofs/thresholds.md``)."""

    confidence: Fraction
    held_in: int
    held_out: int
    auroc: Fraction
    best_accuracy: Fraction
    best_accuracy_threshold: float
    tpr_at_fpr: tuple[TprAtFpr, ...]
    band: tuple[RocBand, ...]


def roc_points(inside: np.ndarray, outside: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(thresholds, false positives, true positives) of "guess in when score > t" for t at every
    distinct score, descending, and -inf last: from (0, 0) to (n0, n1)."""
    ts = np.concatenate([np.unique(np.concatenate([inside, outside]))[::-1], [-np.inf]])
    so, si = np.sort(outside), np.sort(inside)
    fp = len(so) - np.searchsorted(so, ts, side="right")
    tp = len(si) - np.searchsorted(si, ts, side="right")
    return ts, fp, tp


def auroc(inside: np.ndarray, outside: np.ndarray) -> Fraction:
    """P[held-in > held-out] + P[tie]/2 over all pairs, exactly."""
    si = np.sort(inside)
    above = len(si) - np.searchsorted(si, outside, side="right")
    ties = np.searchsorted(si, outside, side="right") - np.searchsorted(si, outside, side="left")
    twice = 2 * int(above.sum(dtype=np.int64)) + int(ties.sum(dtype=np.int64))
    return Fraction(twice, 2 * len(inside) * len(outside))


def summarize(inside: np.ndarray, outside: np.ndarray, *, level: Fraction,
              fprs: tuple[Fraction, ...] = (Fraction(1, 1000), Fraction(1, 100), Fraction(1, 10)),
              sign: float = 1.0) -> Summary:
    """The summaries of oriented scores (held-in expected higher) at confidence 1 - level; the
    thresholds are recorded times ``sign`` (-1: the scores were negated, and the thresholds are
    given on the scores as they were)."""
    n1, n0 = len(inside), len(outside)
    ts, fp, tp = roc_points(inside, outside)
    acc = tp + (n0 - fp)
    j = int(np.argmax(acc))
    best = Fraction(int(acc[j]), n1 + n0)
    desc = np.sort(outside)[::-1]
    rows = []
    for x in fprs:
        k = min(int(x * n0), n0 - 1)
        t = float(desc[k])
        fp_k = int(np.count_nonzero(outside > t))
        tp_k = int(np.count_nonzero(inside > t))
        g = level / 3
        rows.append(TprAtFpr(x, sign * t, Fraction(fp_k, n0), clopper_pearson_upper(k, n0, g), Fraction(tp_k, n1),
                             clopper_pearson_lower(tp_k, n1, g), clopper_pearson_upper(tp_k, n1, g)))
    band = []
    lo_out, lo_in = level / (4 * (n0 + 1)), level / (4 * (n1 + 1))
    ranks = sorted({int(k) for k in np.floor(np.geomspace(1, n0, BAND_POINTS)) - 1})
    for k in ranks:
        t = float(desc[k]) if k < n0 else -np.inf
        f = int(np.count_nonzero(outside > t))
        p = int(np.count_nonzero(inside > t))
        band.append(RocBand(sign * t, Fraction(f, n0), clopper_pearson_lower(f, n0, lo_out), clopper_pearson_upper(f, n0, lo_out),
                            Fraction(p, n1), clopper_pearson_lower(p, n1, lo_in), clopper_pearson_upper(p, n1, lo_in)))
    return Summary(1 - level, n1, n0, auroc(inside, outside), best, sign * float(ts[j]), tuple(rows), tuple(band))

