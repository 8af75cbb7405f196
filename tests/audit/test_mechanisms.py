"""Black-box audits of mechanisms: demonstrations with stated false-failure probabilities.

A true claim is called a violation with probability at most 1 - confidence = 1e-6: that is the
audit's own guarantee (independent halves, two one-sided Clopper–Pearson bounds each failing
with probability 5e-7, mu_low rounded down), so each "passes" test below fails falsely with
probability <= 1e-6.

A false claim is missed with a probability that :func:`detection_failure_bound` bounds from
the mechanism's true score distributions, uniformly over whatever threshold the selection picks:

* the empirical CDFs (selection and estimation halves, S and S'; values and left limits) are
  bounded at every point of a grid by exact binomial quantiles, all together failing with
  probability <= 1e-7 (a union bound); between grid points they are monotone, so every test
  "s > tau" or "s < tau" has its empirical errors in a known box on each half;
* the pilot's pooled CDF rises across a window by more than the spacing of the candidate
  levels (1/380), so some candidate lies in the window, and its selection criterion is at least
  L: the chosen test's is too;
* every cell whose best selection criterion reaches L has worst estimation criterion above the
  claim (plus 1e-3 for the decimal rounding of the reported bounds).

So a miss has probability at most 1e-7 <= 1e-6 when the function returns.
"""

from __future__ import annotations

import functools
import json
import math
from collections.abc import Callable

import numpy as np
import pytest
from scipy.special import ndtr, ndtri
from scipy.stats import binom

import gdpproof
from gdpproof import InvalidParameterError, MechanismAudit, audit_mechanism
from gdpproof.audit.bounds import cp_float, delta_criterion, detectable_mu_bound, mu_criterion, clopper_pearson_upper
from gdpproof.audit.mechanisms import CHUNK_SIZE

FAILURE = 5e-7          # each Clopper–Pearson bound, at the default confidence 1 - 1e-6
P_BANDS = 1e-7


# ---- mechanisms (module level: picklable for a process pool) --------------------------------


def gaussian(rng: np.random.Generator, n: int, *, query: float = 0.0, sigma: float = 1.0) -> np.ndarray:
    """The Gaussian mechanism on a scalar query: query + N(0, sigma^2)."""
    return query + sigma * rng.standard_normal(n)


def gaussian_vector(rng: np.random.Generator, n: int, *, query: tuple = (0.0, 0.0, 0.0), sigma: float = 1.0) -> np.ndarray:
    return np.asarray(query) + sigma * rng.standard_normal((n, len(query)))


def clip_after_noise(rng: np.random.Generator, n: int, *, record: float, clip: float = 1.0) -> np.ndarray:
    """The bug: noise added to the unclipped contribution, then the result clipped to [-C, C].

    The intended mechanism clip(record) + N(0, 1) is (C/1)-GDP; this one reveals a large record."""
    return np.clip(record + rng.standard_normal(n), -clip, clip)


def laplace(rng: np.random.Generator, n: int, *, query: float = 0.0, scale: float = 1.0) -> np.ndarray:
    return query + rng.laplace(0.0, scale, n)


def randomized_response(rng: np.random.Generator, n: int, *, bit: int, eps: float) -> np.ndarray:
    keep = rng.random(n) < math.exp(eps) / (1 + math.exp(eps))
    return np.where(keep, bit, 1 - bit).astype(float)


P0 = functools.partial(gaussian, query=0.0)
Q1 = functools.partial(gaussian, query=1.0)


# ---- the miss-probability bound (module docstring) ------------------------------------------


def _cp(x: np.ndarray, n: int) -> np.ndarray:
    return cp_float(n * np.clip(x, 0.0, 1.0), n, FAILURE)


def _band(n: int, cdf: tuple, p: float) -> tuple[np.ndarray, np.ndarray]:
    """[lo, hi] with P(ECDF value outside) <= 2p at each point; cdf = (smallest, largest) true value."""
    return binom.ppf(p, n, cdf[0]) / n, binom.isf(p, n, cdf[1]) / n


def detection_failure_bound(crit: Callable, level: float, n: int, grid: np.ndarray, law_p: Callable,
                            law_q: Callable, window: tuple[float, float]) -> float:
    """An upper bound on P(the audit misses the violation), or AssertionError if this n is too small.

    ``law_p(t)``, ``law_q(t)`` return ((F(t) low, F(t) high), (F(t-) low, F(t-) high)): the true
    CDF of the score and its left limit at each grid point, as ranges (a family of mechanisms
    may be described at once).  Each empirical CDF (two halves, two laws) is bounded at every grid
    point, value and left limit, by exact binomial quantiles; between grid points it is monotone,
    which bounds the errors of every test "s > tau" and "s < tau" in each cell of the grid.  The
    pilot's pooled CDF is bounded at the ends of ``window`` the same way, so that some candidate
    threshold falls inside; that candidate's selection criterion is at least L.  Every cell
    whose best selection criterion reaches L must have worst estimation criterion above the claim
    (plus 1e-3 for the decimal rounding of the bounds).
    """
    k = len(grid)
    # halves x laws x (value, left limit) x two sides x points, + the window's ends (pilot and selection)
    p = P_BANDS / (2 * 2 * 2 * 2 * k + 16)
    (pl, ph), (pl_, ph_) = law_p(grid)
    (ql, qh), (ql_, qh_) = law_q(grid)
    lo_p, hi_p = _band(n, (pl, ph), p)
    lo_p_, hi_p_ = _band(n, (pl_, ph_), p)
    lo_q, hi_q = _band(n, (ql, qh), p)
    lo_q_, hi_q_ = _band(n, (ql_, qh_), p)
    zero, one = np.zeros(1), np.ones(1)
    # ECDF ranges over the cells [t_j, t_j+1) (value) and (t_j, t_j+1] (left limit), plus the two ends
    fp_lo, fp_hi = np.r_[zero, lo_p], np.r_[hi_p_, one]
    fq_lo, fq_hi = np.r_[zero, lo_q], np.r_[hi_q_, one]
    # "s > tau": alpha = 1 - F_P, beta = F_Q.   "s < tau": alpha = F_P(tau-), beta = 1 - F_Q(tau-)
    a_min = np.r_[1 - fp_hi, fp_lo]
    a_max = np.r_[1 - fp_lo, fp_hi]
    b_min = np.r_[fq_lo, 1 - fq_hi]
    b_max = np.r_[fq_hi, 1 - fq_lo]
    # the pilot: pooled CDF at the window's ends, each law's count bounded as above
    n0 = min(n, CHUNK_SIZE)   # the pilot: the first chunk of the selection half
    (wpl, wph), (wql, wqh) = _band(n0, law_p(np.array(window))[0], p), _band(n0, law_q(np.array(window))[0], p)
    rise = (wpl[1] + wql[1]) / 2 - (wph[0] + wqh[0]) / 2
    assert rise > 1 / 380 + 2 / n0, "no candidate threshold is sure to fall in the window"
    lp, lq = _band(n, law_p(np.array(window))[0], p), _band(n, law_q(np.array(window))[0], p)
    low = max(float(crit(_cp(1 - lp[0][0], n), _cp(lq[1][1], n))),      # a candidate "s > tau" in the window
              float(crit(_cp(lp[1][1], n), _cp(1 - lq[0][0], n))))      # or "s < tau"
    reach = crit(_cp(a_min, n), _cp(b_min, n)) >= low
    worst = float(np.min(crit(_cp(a_max, n), _cp(b_max, n))[reach]))
    assert worst > level + 1e-3, f"a chosen test may measure only {worst} against the claim {level}"
    return P_BANDS


def continuous(cdf: Callable, shifts: tuple[float, float] = (0.0, 0.0)) -> Callable:
    """law(t) for a continuous score with CDF cdf(t - m), m in the range ``shifts``."""
    def law(t: np.ndarray) -> tuple:
        lo, hi = cdf(t - shifts[1]), cdf(t - shifts[0])
        return (lo, hi), (lo, hi)
    return law


def gaussian_grid(top: float) -> np.ndarray:
    return np.linspace(-10.0, top + 10.0, 4001)


# ---- demonstrations -------------------------------------------------------------------------


def test_correct_gaussian_mechanism_passes():
    # sensitivity 1, sigma 1: exactly 1-GDP.  False violation <= 1e-6 by construction.
    r = audit_mechanism(P0, Q1, samples=400_000, seed=1, claimed_mu=1)
    assert not r.violation and r.verdict == "no evidence of violation at this sample size"
    assert r.mu_low <= 1 and r.mu_low.rounding == "down"
    # what this sample size could detect: a deterministic function of the half size (200,000)
    assert 1 < r.detectable_mu < 1.1


def test_sigma_halved_is_caught():
    # claimed 1-GDP with sigma = 1, but sigma = 1/2 was used: the pair is N(0,1) vs N(2,1), mu = 2
    n = 200_000
    assert detection_failure_bound(mu_criterion, 1.0, n, gaussian_grid(2.0), continuous(ndtr),
                                   continuous(ndtr, (2.0, 2.0)), (0.75, 1.25)) <= 1e-6
    r = audit_mechanism(functools.partial(gaussian, sigma=0.5), functools.partial(gaussian, query=1.0, sigma=0.5),
                        samples=2 * n, seed=2, claimed_mu=1)
    assert r.violation and r.verdict == "violation" and r.mu_low > 1


def _clipped(shift: float) -> Callable:
    """law(t) of clip(shift + Z, -1, 1): atoms at -1 and 1, the normal CDF between."""
    def law(t: np.ndarray) -> tuple:
        value = np.where(t < -1, 0.0, np.where(t < 1, ndtr(t - shift), 1.0))
        left = np.where(t <= -1, 0.0, np.where(t <= 1, ndtr(t - shift), 1.0))
        return (value, value), (left, left)
    return law


def test_clipping_after_noise_is_caught():
    # neighbours differ in one record: 0 in S, 10 in S'.  Clipping at C = 1 and noise sigma = 1
    # make the intended mechanism clip(record) + N(0, 1) 1-GDP; the bug clips the noisy value.
    n = 20_000
    grid = np.r_[-1.0 - 1e-9, np.linspace(-1.0, 1.0, 2001)]
    assert detection_failure_bound(mu_criterion, 1.0, n, grid, _clipped(0.0), _clipped(10.0), (0.6, 0.9)) <= 1e-6
    r = audit_mechanism(functools.partial(clip_after_noise, record=0.0), functools.partial(clip_after_noise, record=10.0),
                        samples=2 * n, seed=3, claimed_mu=1)
    assert r.violation and r.mu_low > 2
    # clipping first (clip(10) = 1, then noise) passes: false violation <= 1e-6
    r = audit_mechanism(P0, functools.partial(gaussian, query=1.0), samples=2 * n, seed=3, claimed_mu=1)
    assert not r.violation


def test_laplace_against_its_own_tightest_mu():
    # Laplace(scale 1) on a sensitivity-1 query: its tightest GDP mu (1.0300...) rounded up.
    # A true claim: false violation <= 1e-6.
    mu = gdpproof.tightest_mu(gdpproof.laplace(1), digits=6)
    r = audit_mechanism(laplace, functools.partial(laplace, query=1.0), samples=400_000, seed=4, claimed_mu=mu)
    assert not r.violation and r.mu_low <= mu


def _laplace_cdf(t: np.ndarray) -> np.ndarray:
    return np.where(t < 0, 0.5 * np.exp(-np.abs(t)), 1 - 0.5 * np.exp(-np.abs(t)))


def test_laplace_against_too_small_a_mu_is_caught():
    # its mu is 1.03; claimed 0.7
    n = 500_000
    assert detection_failure_bound(mu_criterion, 0.7, n, np.linspace(-30.0, 31.0, 6001), continuous(_laplace_cdf),
                                   continuous(_laplace_cdf, (1.0, 1.0)), (0.4, 0.6)) <= 1e-6
    r = audit_mechanism(laplace, functools.partial(laplace, query=1.0), samples=2 * n, seed=5, claimed_mu="0.7")
    assert r.violation


def test_vector_outputs_linear_score():
    # d = 3, neighbours (0,0,0) and (1,1,1)/sqrt(3): 1-GDP.  The score is the projection on the
    # difference of the pilot means, fixed before the halves are used: a valid test, so a
    # false violation has probability <= 1e-6.
    u = tuple(np.full(3, 1 / math.sqrt(3)))
    r = audit_mechanism(gaussian_vector, functools.partial(gaussian_vector, query=u), samples=200_000, seed=6,
                        claimed_mu=1)
    assert not r.violation and "linear" in r.score
    # sigma halved: mu = 2 along the true direction v.  The pilot's mean difference is v plus
    # noise N(0, 2 (1/2)^2 / 32768) per coordinate (sd 0.0039), of norm <= 0.05 except with
    # probability < 1e-30 (chi-square with 3 degrees of freedom beyond 164); then the angle to v
    # has cosine >= 0.9987 and the scores are N(0,1) vs N(m,1) with m in [1.99, 2] after scaling,
    # a family the bound covers at once.
    n = 300_000
    assert detection_failure_bound(mu_criterion, 1.0, n, gaussian_grid(2.0), continuous(ndtr),
                                   continuous(ndtr, (1.99, 2.0)), (0.75, 1.25)) <= 1e-6
    r = audit_mechanism(functools.partial(gaussian_vector, sigma=0.5),
                        functools.partial(gaussian_vector, query=u, sigma=0.5), samples=2 * n, seed=6, claimed_mu=1)
    assert r.violation


def test_user_score():
    # scores |x|: a valid (if weak) statistic; a true claim passes (false violation <= 1e-6)
    r = audit_mechanism(P0, Q1, samples=20_000, seed=7, claimed_mu=1, score=np.abs)
    assert not r.violation and r.score == "the caller's score function"


# ---- (epsilon, delta) claims ----------------------------------------------------------------


def test_epsilon_delta_true_claim_passes():
    # the 1-GDP Gaussian mechanism is (1, delta_1(1))-DP with delta_1(1) = 0.12693... (rounded up)
    delta = gdpproof.gaussian(1).delta(1, digits=6)
    r = audit_mechanism(P0, Q1, samples=200_000, seed=8, claimed_epsilon=1, claimed_delta=delta)
    assert not r.violation and r.delta_low <= delta and r.claimed_mu is None


def test_epsilon_delta_false_claim_is_caught():
    # the same mechanism claimed (0.5, 1e-3)-DP: it needs delta = 0.238 at eps = 0.5
    n = 100_000
    assert detection_failure_bound(delta_criterion(0.5), 1e-3, n, gaussian_grid(1.0), continuous(ndtr),
                                   continuous(ndtr, (1.0, 1.0)), (1.0, 1.2)) <= 1e-6
    r = audit_mechanism(P0, Q1, samples=2 * n, seed=9, claimed_epsilon="0.5", claimed_delta="1e-3")
    assert r.violation and r.delta_low > 1e-3


def test_randomized_response_pure_dp_claim_passes():
    # randomized response is exactly (eps, 0)-DP: its error pairs lie on f_{eps,0}.  (Testing
    # mu_low against mu_from_epsilon_delta(1, 0) = 0 would wrongly call this a violation: its mu is
    # 1.23.)  Discrete outputs: every atom is a candidate.  False violation <= 1e-6.
    p = functools.partial(randomized_response, bit=1, eps=1.0)
    q = functools.partial(randomized_response, bit=0, eps=1.0)
    r = audit_mechanism(p, q, samples=100_000, seed=10, claimed_epsilon=1, claimed_delta=0)
    assert not r.violation
    mu = gdpproof.tightest_mu(gdpproof.randomized_response(1), digits=6)
    r = audit_mechanism(p, q, samples=100_000, seed=10, claimed_mu=mu)
    # the only useful test, "reject S on output 0", has errors (0.269, 0.269), and the others
    # have a criterion of -infinity or below 0 by more than 10 standard deviations of their
    # counts.  mu_low <= 1 needs FPR_up or FNR_up >= Phi(-1/2) = 0.3085: with the bound's
    # margin (0.0097) a count 15 standard deviations (0.00198 each) above its mean: < 1e-40.
    assert not r.violation and r.mu_low > 1 and r.threshold == 1.0 and r.direction == "less"


# ---- the statistics themselves ---------------------------------------------------------------


@pytest.mark.parametrize("k,n", [(0, 500), (3, 500), (7930, 50_000), (250_000, 500_000), (499_999, 500_000)])
def test_clopper_pearson_upper_is_a_valid_bound(k, n):
    from fractions import Fraction

    u = clopper_pearson_upper(k, n, Fraction(1, 2_000_000))
    assert binom.cdf(k, n, float(u)) <= 5e-7 * (1 + 1e-6)       # valid (up to float error in scipy)
    assert binom.cdf(k, n, float(u) * (1 - 1e-6)) > 5e-7         # and tight
    assert clopper_pearson_upper(n, n, Fraction(1, 2_000_000)) == 1


def test_detectable_mu_is_flagged_about_half_the_time():
    # exact binomial sums at the threshold the calculation chose: the definition's "probability 1/2"
    n = 100_000
    m = detectable_mu_bound(n, FAILURE, mu_criterion, 1.0, 1.0)
    alphas = np.geomspace(1e-15, 0.5, 300)
    b = ndtr(-ndtri(alphas) - m)
    best = int(np.argmax(mu_criterion(_cp(alphas, n), _cp(b, n))))
    a, bb = alphas[best], b[best]
    k1 = np.arange(int(n * a - 8 * math.sqrt(n * a)), int(n * a + 8 * math.sqrt(n * a)))
    k2 = np.arange(int(n * bb - 8 * math.sqrt(n * bb)), int(n * bb + 8 * math.sqrt(n * bb)))
    crit = mu_criterion(cp_float(k1[:, None], n, FAILURE), cp_float(k2[None, :], n, FAILURE))
    p = float(np.sum(binom.pmf(k1, n, a)[:, None] * binom.pmf(k2, n, bb)[None, :] * (crit > 1.0)))
    assert 0.4 < p < 0.6


def test_same_result_whatever_the_workers():
    one = audit_mechanism(P0, Q1, samples=100_000, seed=11, claimed_mu=1)
    two = audit_mechanism(P0, Q1, samples=100_000, seed=11, claimed_mu=1, workers=2)
    assert one == two
    assert audit_mechanism(P0, Q1, samples=100_000, seed=12, claimed_mu=1) != one


def test_report_text_and_json():
    r = audit_mechanism(P0, Q1, samples=20_000, seed=13, claimed_mu="1")
    assert isinstance(r, MechanismAudit)
    text = str(r)
    for needle in ("claim", "mu-GDP with mu = 1", "verdict", "mu_low", "detectable mu", "false positives",
                   "Clopper-Pearson", "seed 13"):
        assert needle in text
    obj = json.loads(r.to_json())
    assert obj["mu_low"] == str(r.mu_low) and obj["claimed_mu"] == "1" and obj["confidence"] == "0.999999"
    assert obj["digits"] == 6 and obj["rounding"]["mu_low"] == "down" and obj["certified"]["mu_low"] == "arb"
    assert all(isinstance(v, (str, bool, dict, type(None), int)) for v in obj.values())
    assert obj["samples"] == "20000" and obj["violation"] is False
    # the bound is reproducible from the reported counts' bounds
    again = gdpproof.mu_from_error_rates(obj["fpr_upper"], obj["fnr_upper"], digits=6, rounding="down")
    assert again == r.mu_low


def test_progress_goes_to_stderr(capsys):
    audit_mechanism(P0, Q1, samples=70_000, seed=14, claimed_mu=1, progress=True)
    out, err = capsys.readouterr()
    assert out == "" and "audit (selection)" in err and "audit (estimation)" in err


# ---- bad samplers ----------------------------------------------------------------------------


def _wrong_length(rng, n):
    return rng.standard_normal(n + 1)


def _nan(rng, n):
    out = rng.standard_normal(n)
    out[0] = np.nan
    return out


def _text(rng, n):
    return ["a"] * n


def _three_d(rng, n):
    return rng.standard_normal((n, 2, 2))


def _vector(rng, n):
    return rng.standard_normal((n, 2))


def _int60(rng, n):
    return np.full(n, 2**60 + 1, dtype=np.int64)


def _complex(rng, n):
    return rng.standard_normal(n) + 100j


def _objects(rng, n):
    return [2**70] * n


def _long_double(rng, n):
    return rng.standard_normal(n).astype(np.longdouble) + np.longdouble(2) ** -60


@pytest.mark.parametrize("sampler,needle", [
    (_wrong_length, "sample_q returned shape (32769,) for n=32768"),
    (_nan, "sample_q returned non-finite outputs"),
    (_text, "sample_q returned list, not an array of numbers"),
    (_three_d, "sample_q returned shape (32768, 2, 2)"),
    (_vector, "sample_p returned shape (32768,) but sample_q returned shape (32768, 2)"),
    # outputs a cast to float64 would change: a leak in what it drops would go unseen (issue 33)
    (_int60, "sample_q returned the integer 1152921504606846977, beyond 2^53 in magnitude"),
    (_complex, "sample_q returned complex numbers (complex128)"),
    (_objects, "sample_q returned an array of Python objects (list of int)"),
    pytest.param(_long_double, f"sample_q returned {np.dtype(np.longdouble)} outputs that float64 cannot hold exactly",
                 marks=pytest.mark.skipif(np.finfo(np.longdouble).nmant <= 52, reason="numpy.longdouble is float64 on this platform (Windows, Apple silicon): the cast loses nothing there to refuse")),
])
def test_bad_sampler_outputs_are_named(sampler, needle):
    with pytest.raises(InvalidParameterError) as info:
        audit_mechanism(P0, sampler, samples=100_000, seed=1, claimed_mu=1)
    assert needle in str(info.value)


def test_outputs_that_float64_holds_exactly_are_audited():
    # small integers, bools and float32 are exact in float64: audited as they are
    for sampler in (lambda rng, n: rng.integers(-2**53, 2**53, n), lambda rng, n: rng.random(n) < 0.5,
                    lambda rng, n: rng.standard_normal(n).astype(np.float32)):
        assert audit_mechanism(sampler, sampler, samples=2000, seed=1, claimed_mu=1).violation is False


def test_a_score_that_a_cast_would_change_is_refused():
    with pytest.raises(InvalidParameterError, match="score returned complex numbers"):
        audit_mechanism(P0, Q1, samples=1000, seed=1, claimed_mu=1, score=lambda x: x + 1j)
    with pytest.raises(InvalidParameterError, match=r"score returned the integer -?\d+, beyond 2\^53"):
        audit_mechanism(P0, Q1, samples=1000, seed=1, claimed_mu=1,
                        score=lambda x: np.full(len(x), 2**60, dtype=np.int64) + (x > 0))


def test_bad_score_and_user_exceptions():
    with pytest.raises(InvalidParameterError, match="score returned shape"):
        audit_mechanism(P0, Q1, samples=1000, seed=1, claimed_mu=1, score=lambda x: x[:-1])
    with pytest.raises(InvalidParameterError, match="score returned NaN"):
        audit_mechanism(P0, Q1, samples=1000, seed=1, claimed_mu=1, score=lambda x: x * np.nan)

    def broken(rng, n):
        raise RuntimeError("broken sampler")

    with pytest.raises(RuntimeError, match="broken sampler"):   # the caller's own error, unchanged
        audit_mechanism(broken, Q1, samples=1000, seed=1, claimed_mu=1)
