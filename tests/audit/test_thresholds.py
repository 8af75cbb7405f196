"""Threshold tests on canary scores, attack summaries and the score audit's report.

Monte Carlo assertions are seeded; where one is a statement about chance, its false-failure
probability is stated beside it (at most 1e-6).
"""

from __future__ import annotations

import json
import math
from decimal import Decimal
from fractions import Fraction

import numpy as np
import pytest
from scipy.stats import binom

from gdpproof import gaussian
from gdpproof.audit import audit_scores, threshold_audit
from gdpproof.audit.hypotheses import gaussian_curve
from gdpproof.audit.roc import auroc, roc_points, summarize
from gdpproof.audit.scores import audit_guesses
from gdpproof.audit.thresholds import clopper_pearson_lower, envelope, rank_thresholds
from gdpproof.audit.bounds import clopper_pearson_upper
from gdpproof.errors import InvalidParameterError
from gdpproof.mechanisms import GDP

from . import score_oracles as oracle


@pytest.fixture(scope="module")
def gaussian_scores():
    """The done-when scores: 5,000 held-in N(2, 1) and 5,000 held-out N(0, 1), seed 28."""
    rng = np.random.default_rng(28)
    return rng.normal(2, 1, 5000), rng.normal(0, 1, 5000)


def test_mu_low_is_below_the_truth_with_bonferroni_or_a_split(gaussian_scores):
    # each mu_low <= 2 fails with probability at most 1 - confidence = 1e-6 (the audit's theorem)
    inside, outside = gaussian_scores
    bonf = threshold_audit(inside, outside, confidence="0.999999", thresholds=100)
    split = threshold_audit(inside, outside, confidence="0.999999", threshold="split", seed=0)
    assert len(bonf.tests) <= 100 and len(split.tests) == 1
    for r in (bonf, split):
        assert r.mu_low.rounding == "down" and 0 < r.mu_low <= 2


def _bonferroni_floor(n: int, ranks: list[int], confidence: float, failure: float) -> float:
    """A value mu_low of the Bonferroni audit of n N(2, 1) against n N(0, 1) scores exceeds with
    probability >= 1 - failure: its test at a fixed rank r has exactly r false positives; its
    threshold, the (r + 1)-th largest held-out score, exceeds x only if Binomial(n, 1 - Phi(x))
    >= r + 1 (probability <= failure / 2 at the x chosen), and then the false negatives are at
    most Binomial(n, Phi(x - 2)), below its 1 - failure / 2 quantile otherwise."""
    from scipy.optimize import brentq
    from scipy.special import ndtr, ndtri

    r = min(ranks, key=lambda k: abs(k - n * ndtr(-1.0)))
    x = brentq(lambda x: binom.sf(r, n, ndtr(-x)) - failure / 2, -5, 5)
    fn = int(binom.isf(failure / 2, n, ndtr(x - 2)))
    level = Fraction(1 - Fraction(confidence)) / (2 * len(ranks))
    a, b = float(clopper_pearson_upper(r, n, level)), float(clopper_pearson_upper(fn, n, level))
    return float(ndtri(1 - a) - ndtri(b)) - 1e-5   # mu_low is rounded down to 6 digits


def test_bonferroni_mu_low_is_close_to_the_truth(gaussian_scores):
    # false-failure probability <= 1e-6 (the floor's own statement, above)
    inside, outside = gaussian_scores
    bonf = threshold_audit(inside, outside, confidence="0.95", thresholds=100)
    floor = _bonferroni_floor(5000, rank_thresholds(5000, 100), 0.95, 1e-6)
    assert 1.65 < floor <= float(bonf.mu_low)   # the floor is 1.6559 (a truth of 2)


def test_the_certified_mu_is_the_formula_at_the_proven_bounds(gaussian_scores):
    from scipy.special import ndtri

    r = threshold_audit(*gaussian_scores, confidence="0.95", threshold=1.0)
    (t,) = r.tests
    assert (t.false_positives, t.false_negatives) == (int(np.sum(gaussian_scores[1] > 1.0)),
                                                      int(np.sum(gaussian_scores[0] <= 1.0)))
    a, b = float(t.fpr_upper), float(t.fnr_upper)
    assert 0 <= (ndtri(1 - a) - ndtri(b)) - float(r.mu_low) < 1.1e-5   # rounded down to 6 digits


def test_clopper_pearson_bounds_are_proven_by_the_exact_binomial_sum():
    failure = Fraction(1, 40)
    for k, n in ((0, 30), (3, 30), (17, 40), (39, 40)):
        u = Fraction(clopper_pearson_upper(k, n, failure))
        assert oracle.clopper_pearson_tail(k, n, u) <= failure                # proven
        ulp = Fraction(10) ** (Decimal(u.numerator / u.denominator).adjusted() - 9)
        assert oracle.clopper_pearson_tail(k, n, u - 2 * ulp) > failure       # and tight to its digits
        low = Fraction(clopper_pearson_lower(k, n, failure))
        assert k == 0 or 1 - oracle.clopper_pearson_tail(k - 1, n, low) <= failure


def test_bonferroni_ranks_depend_on_the_sample_size_alone():
    assert rank_thresholds(5000, 100) == rank_thresholds(5000, 100)
    ranks = rank_thresholds(5000, 100)
    assert ranks[0] == 0 and ranks[-1] == 4999 and len(ranks) <= 100
    assert rank_thresholds(7, "all") == list(range(7)) and rank_thresholds(7, 50) == list(range(7))


def test_direction_less_is_the_negated_scores(gaussian_scores):
    inside, outside = gaussian_scores
    up = threshold_audit(inside[:500], outside[:500], thresholds=20, delta="1e-5")
    down = threshold_audit(-inside[:500], -outside[:500], thresholds=20, direction="less", delta="1e-5")
    assert (up.mu_low, up.epsilon_low) == (down.mu_low, down.epsilon_low)
    assert [t.threshold for t in down.tests] == [-t.threshold for t in up.tests]


def test_the_envelope_lies_above_the_true_curve_and_refutes_a_false_claim(gaussian_scores):
    r = threshold_audit(*gaussian_scores, confidence="0.95", thresholds=30)
    hull = r.envelope()
    assert hull[0] == (0, 1) and hull[-1] == (1, 0)
    g2 = gaussian(2)
    for a, b in hull[1:-1]:
        assert g2.evaluate(a, digits=10, rounding="down").to_fraction() <= b   # G_2 lies below (here)
    assert r.refutes(gaussian_curve("1.5"))[0] and not r.refutes(gaussian_curve(2))[0]
    assert envelope([(Fraction(1, 2), Fraction(1, 4)), (Fraction(1, 4), Fraction(9, 10))]) == [
        (0, 1), (Fraction(1, 2), Fraction(1, 4)), (1, 0)]


def test_false_claims_are_rarely_made_at_the_stated_confidence():
    # 300 seeded audits of a 1-GDP pair (scores N(1, 1) against N(0, 1), 200 each, one threshold
    # given in advance) at confidence 0.8: each reports mu_low > 1 with probability <= 0.2, the
    # audits independently; P[Bin(300, 0.2) >= 96] < 1e-6 bounds the false failure
    assert binom.sf(95, 300, 0.2) < 1e-6
    over = 0
    for seed in range(300):
        rng = np.random.default_rng(10_000 + seed)
        r = threshold_audit(rng.normal(1, 1, 200), rng.normal(0, 1, 200), confidence="0.8", threshold=0.5)
        over += r.mu_low > 1
    assert over < 96


def test_summaries_are_exact_counts(gaussian_scores):
    inside = np.array([3.0, 1.0, 1.0, 0.5, 2.0])
    outside = np.array([1.0, 0.0, -1.0, 0.5])
    pairs = [(a > b) + (a == b) / 2 for a in inside for b in outside]
    assert auroc(inside, outside) == Fraction(sum(Fraction(p) for p in pairs)) / 20
    ts, fp, tp = roc_points(inside, outside)
    assert (fp[0], tp[0]) == (0, 0) and (fp[-1], tp[-1]) == (4, 5)
    s = summarize(inside, outside, level=Fraction(1, 20))
    best = max((np.sum(inside > t) + np.sum(outside <= t)) for t in np.concatenate([ts, [-np.inf]]))
    assert s.best_accuracy == Fraction(int(best), 9)
    big = summarize(*gaussian_scores, level=Fraction(1, 20))
    row = big.tpr_at_fpr[1]    # FPR 0.01: at most 50 held-out scores above the threshold
    assert row.fpr <= Fraction(1, 100) and row.tpr_lower <= row.tpr <= row.tpr_upper
    from scipy.special import ndtr

    # at the chosen threshold t the truth is TPR = P[N(2, 1) > t]: inside its bounds on this seed
    # (the FPR bound at rank 50, valid with probability 1 - 0.05/3, happens to miss on it: 1 -
    # Phi(t) = 0.0145 > 0.01345; benchmarks/bench_score_audit.py measures the rates)
    assert float(row.tpr_lower) < ndtr(2 - row.threshold) < float(row.tpr_upper)
    for b in big.band:
        assert b.fpr_lower <= b.fpr <= b.fpr_upper and b.tpr_lower <= b.tpr <= b.tpr_upper


def test_the_report_names_every_bound_and_its_confidence(gaussian_scores):
    inside, outside = gaussian_scores
    r = audit_scores(inside[:1000], outside[:1000], delta="1e-5", claim=GDP("1.5"), guesses=[(100, 0)],
                     thresholds=20)
    text = str(r)
    for word in ("mu_low", "eps_low", "envelope", "Steinke", "Mahloujifar", "AUROC", "TPR @ FPR", "assumptions",
                 "rounded down", "confidence"):
        assert word in text, word
    assert r.refuted and r.verdict.method.startswith("threshold")
    d = json.loads(r.to_json())
    assert d["verdict"]["refuted"] is True and d["threshold"]["rounding"]["mu_low"] == "down"
    assert all(isinstance(v, str) for v in (d["threshold"]["mu_low"], d["one_run"]["epsilon_low"],
                                            d["summary"]["auroc"], d["held_in"]))
    assert Decimal(d["threshold"]["mu_low"]) == r.threshold.mu_low


def test_a_guess_file_audit_is_the_one_run_bound():
    r = audit_guesses(1000, 100, 0, 90, delta="1e-5", claim=GDP(1), method="one-run")
    assert str(r.one_run.epsilon_low) == "1.62614" and not r.refuted
    assert "1,000 canaries" in str(r)


@pytest.mark.parametrize(("kwargs", "match"), [
    (dict(held_in=[], held_out=[1.0]), r"held_in=.* \(it has shape \(0,\)\)"),
    (dict(held_in=[1.0, math.nan], held_out=[1.0]), r"held_in\[1\]=nan must be finite"),
    (dict(held_in=[1.0], held_out=[[1.0]]), r"held_out=.* \(it has shape \(1, 1\)\)"),
    (dict(held_in=[1.0], held_out=[1.0], confidence="1.5"), "confidence='1.5'"),
    (dict(held_in=[1.0], held_out=[1.0], threshold="middle"), "threshold='middle' must be"),
    (dict(held_in=[1.0], held_out=[1.0], thresholds=0), "thresholds=0 must be a positive integer"),
    (dict(held_in=[1.0], held_out=[1.0], direction="up"), "direction='up' must be"),
    (dict(held_in=[1.0], held_out=[1.0], threshold="split", seed=None), "seed=None is required"),
    (dict(held_in=[1.0], held_out=[1.0], delta="1"), "delta='1' must be in"),
])
def test_bad_arguments_are_named(kwargs, match):
    with pytest.raises(InvalidParameterError, match=match):
        threshold_audit(**kwargs)


@pytest.mark.parametrize(("kwargs", "match"), [
    (dict(method="votes"), "method='votes' must be one of"),
    (dict(methods=("threshold", "vibes")), "methods="),
    (dict(claim=object()), "claim=.* must be a gdpproof mechanism"),
    (dict(guesses=[(0, 0)]), r"guesses=\(0, 0\) must be pairs"),
    (dict(seed=-1), "seed=-1 must be an integer >= 0"),
    (dict(claim=GDP(1), method="one-run"), "delta=None must be given"),
])
def test_audit_scores_names_bad_arguments(kwargs, match):
    with pytest.raises(InvalidParameterError, match=match):
        audit_scores([1.0, 2.0, 3.0], [0.0, 1.0], summaries=False, **kwargs)


def test_a_lower_is_in_audit_reports_its_thresholds_on_the_scores_as_given(gaussian_scores):
    inside, outside = gaussian_scores
    down = audit_scores(-inside[:800], -outside[:800], direction="less", methods=("threshold",), thresholds=10)
    up = audit_scores(inside[:800], outside[:800], methods=("threshold",), thresholds=10)
    assert down.threshold.mu_low == up.threshold.mu_low
    assert down.summary.tpr_at_fpr[1].threshold == -up.summary.tpr_at_fpr[1].threshold
    text = str(down)
    assert "test: score < " in text and "at score < " in text and "score > " not in text
