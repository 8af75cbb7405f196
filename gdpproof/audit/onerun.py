r"""One-run audits: m canaries, each included independently with probability 1/2, one training run.

The auditor makes r guesses "in" or "out" (their number fixed before the scores are seen) and v
are right.  Two analyses turn (m, r, v) into evidence against a claim, each certified in ball
arithmetic or exact integers and rounded in the safe direction:

* (epsilon, delta)-DP (Steinke, Nasr & Jagielski 2023): :func:`one_run_p_value` and the largest
  epsilon rejected, :func:`one_run_epsilon`;
* f-DP for any symmetric certified curve (Mahloujifar, Melis & Chaudhuri 2025): the recursion run
  in integers on a lower bound of f, :func:`fdp_p_value` and the largest mu rejected,
  :func:`fdp_mu`; :func:`fdp_family_epsilon` for a family of DP-SGD curves.

Several guess counts fixed in advance are paid for by Bonferroni (:func:`guesses_from_scores`).
The bounds, the recursion and why its certification holds: ``docs/proofs/one_run.md``.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import flint
import numpy as np

from ..errors import PrecisionError, bad
from ..numeric.engine._mp import arb_endpoints, arb_of_fraction, arb_precision
from ..numeric.engine.certify import Certified, round_fraction
from ..numeric.engine.certified import certify_fraction
from ._exact import counts, fraction_of, level_of
from .hypotheses import Curve, curve_of, gaussian_curve, gaussian_g_float

__all__ = ["one_run_p_value", "one_run_epsilon", "fdp_p_value", "fdp_rejects", "fdp_mu", "FamilyBound",
           "fdp_family_epsilon", "guesses_from_scores", "Guesses", "snj_p_interval", "mmc_statistic"]

#: Bits of the first ball evaluation of a p-value; doubled until it decides, up to _MAX_BITS.
_BITS = 96
_MAX_BITS = 3072
#: The recursion's fixed point: r and h in units of 2^-SCALE_BITS.
SCALE_BITS = 200
_SCALE = 1 << SCALE_BITS


# ---------------------------------------------------------------------------------------------
# Steinke, Nasr & Jagielski: the (eps, delta) p-value


def _snj_ball(m: int, r: int, v: int, e_eps: flint.arb, two_m_delta: flint.arb) -> flint.arb:
    """The p-value before the cap at 1, as a ball (the current arb precision), with e^eps a ball."""
    if v == 0:
        return flint.arb(1)
    one = flint.arb(1)
    pmf = (one / (one + e_eps)) ** r   # P[Bin(r, q) = 0], q = e^eps / (1 + e^eps)
    beta = flint.arb(0)
    below: list[flint.arb] = []
    for j in range(r + 1):
        if j >= v:
            beta += pmf
        else:
            below.append(pmf)
        if j < r:
            pmf = pmf * e_eps * (r - j) / (j + 1)   # the exact ratio of consecutive binomial masses
    alpha = flint.arb(0)
    partial = flint.arb(0)
    for i in range(1, v + 1):
        partial += below[v - i]
        alpha = alpha.max(partial / i)
    return beta + alpha * two_m_delta


def snj_p_interval(m: int, r: int, v: int, epsilon: Fraction | flint.arb, delta: Fraction,
                   bits: int = _BITS) -> tuple[Fraction, Fraction] | None:
    """[lower, upper] of the Steinke–Nasr–Jagielski p-value (capped at 1) at ``bits`` of precision;
    ``epsilon`` an exact rational, or an arb ball containing it (derivations/d15 passes log 3)."""
    with arb_precision(bits):
        e_eps = epsilon.exp() if isinstance(epsilon, flint.arb) else arb_of_fraction(epsilon).exp()
        ends = arb_endpoints(_snj_ball(m, r, v, e_eps, arb_of_fraction(2 * m * delta)))
    if ends is None:
        return None
    return min(ends[0], Fraction(1)), min(ends[1], Fraction(1))


def _snj_decide(m: int, r: int, v: int, eps: Fraction, delta: Fraction, level: Fraction) -> bool:
    """Is the p-value at eps <= level?  Proven (precision raised until the ball decides)."""
    bits = _BITS
    while bits <= _MAX_BITS:
        ends = snj_p_interval(m, r, v, eps, delta, bits)
        if ends is not None:
            if ends[1] <= level:
                return True
            if ends[0] > level:
                return False
        bits *= 2
    raise PrecisionError(f"could not decide the one-run p-value at eps={float(eps)} against {float(level)} "
                         f"(m={m}, r={r}, v={v}, delta={float(delta)})")


def snj_float(m: int, r: int, v: int, eps: float, delta: float) -> float:
    """A float estimate of the p-value (for searching; never printed)."""
    from scipy.special import bdtr, expit

    if v == 0:
        return 1.0
    q = float(expit(eps))
    cdf_below = float(bdtr(v - 1, r, q))           # P[Bin <= v - 1]
    beta = 1.0 - cdf_below if cdf_below < 0.5 else float(_bdtrc(v - 1, r, q))
    i = np.arange(1, v + 1)
    lower_cdf = np.where(v - 1 - i >= 0, bdtr(np.maximum(v - 1 - i, 0), r, q), 0.0)
    alpha = float(np.max((cdf_below - lower_cdf) / i))
    return min(1.0, beta + alpha * 2 * m * delta)


def _bdtrc(k: int, n: int, p: float) -> float:
    from scipy.special import bdtrc

    return float(bdtrc(k, n, p))


def one_run_p_value(canaries: int, guesses: int, correct: int, *, epsilon: Any, delta: Any = 0,
                    digits: int = 6) -> Certified:
    r"""The p-value of ``correct`` right guesses out of ``guesses`` under (epsilon, delta)-DP.

    .. math:: \min\{1,\ P[\mathrm{Bin}(r, q) \ge v] + 2 m \delta \max_{i} \tfrac1i
              P[v - i \le \mathrm{Bin}(r, q) < v]\},\qquad q = \frac{e^\varepsilon}{1 + e^\varepsilon}

    (Steinke, Nasr & Jagielski 2023; ``docs/proofs/one_run.md``).  Assumes: each of the m canaries was
    included independently with probability 1/2, and the number of guesses was fixed before the
    scores were seen.

    Args:
        canaries (int): m >= 1, r, v with 0 <= v <= r <= m.
        guesses (int): m >= 1, r, v with 0 <= v <= r <= m.
        correct (int): m >= 1, r, v with 0 <= v <= r <= m.
        epsilon: real >= 0
        delta: real in [0, 1]
        digits (int): Significant digits, rounded up.

    Returns:
        Certified: The p-value, proven in ball arithmetic and rounded up (an upper bound).

    Examples:
        >>> from gdpproof.audit import one_run_p_value
        >>> one_run_p_value(1000, 100, 90, epsilon=1)
        Certified('0.0000273582', digits=6, rounding='up')
    """
    m, r, v = counts(canaries, guesses, correct)
    eps = fraction_of("epsilon", epsilon, high=Fraction(10**6))
    d = fraction_of("delta", delta)
    _digits(digits)
    bits = _BITS
    while bits <= _MAX_BITS:
        ends = snj_p_interval(m, r, v, eps, d, bits)
        if ends is not None:
            up = certify_fraction(ends[1], digits=digits, rounding="up", method="arb")
            # the exact value rounds to it too
            if certify_fraction(ends[0], digits=digits, rounding="up", method="arb") == up:
                return up
        bits *= 2
    raise PrecisionError(f"could not certify {digits} digits of the one-run p-value (m={m}, r={r}, v={v})")


def _digits(digits: Any) -> int:
    if isinstance(digits, bool) or not isinstance(digits, int) or not 1 <= digits <= 30:
        raise bad("digits", digits, "must be an integer from 1 to 30")
    return digits


def _one(digits: int) -> Certified:
    return Certified(1, digits=digits, rounding="up", method="exact")


def _ulp(d: Certified | Fraction, digits: int) -> Fraction:
    x = d if isinstance(d, Fraction) else d.to_fraction()
    if x == 0:
        return Fraction(1, 10**digits)
    m, e = round_fraction(x, digits, "down")
    return Fraction(10) ** e


def float_root(pred: Callable[[float], bool], lo: float, hi: float, rtol: float = 1e-9) -> float:
    """Bisection for the boundary b of a predicate true on [lo, b) and false beyond (an estimate,
    to a relative ``rtol``: the caller certifies the printed value)."""
    for _ in range(200):
        mid = (lo + hi) / 2
        if mid in (lo, hi) or hi - lo <= rtol * hi:
            break
        if pred(mid):
            lo = mid
        else:
            hi = mid
    return lo


def one_run_epsilon(canaries: int, guesses: int, correct: int, *, delta: Any = 0, confidence: Any = "0.95",
                    digits: int = 6) -> Certified:
    """The largest epsilon that ``correct`` right guesses out of ``guesses`` reject at (eps, delta).

    The printed value is the root of the Steinke–Nasr–Jagielski p-value at level
    1 - confidence, rounded down to ``digits`` digits: its p-value is proven <= 1 - confidence,
    so it is a lower bound on the epsilon of any (eps, delta)-DP description of the training, at
    that confidence; the next decimal up is proven not rejected.  0 when nothing is rejected.
    Assumptions as :func:`one_run_p_value`.

    Args:
        canaries: The number of canaries, each included independently with probability 1/2.
        guesses: How many canaries the attacker guessed (fixed before the scores were seen).
        correct: How many of the guesses were right.
        delta: delta, in [0, 1).
        confidence: The confidence, in (0, 1).
        digits: Significant digits of the answer (default 6).

    Returns:
        epsilon, a :class:`~gdpproof.Certified` rounded down (0 when nothing is rejected).

    Raises:
        InvalidParameterError: The counts are inconsistent or an argument is out of range.

    Examples:
        >>> from gdpproof.audit import one_run_epsilon
        >>> one_run_epsilon(1000, 100, 90, delta="1e-5", confidence="0.95")
        Certified('1.62614', digits=6, rounding='down')
    """
    m, r, v = counts(canaries, guesses, correct)
    d = fraction_of("delta", delta)
    level = level_of(confidence)
    _digits(digits)
    return snj_epsilon(m, r, v, d, level, digits)


def snj_epsilon(m: int, r: int, v: int, d: Fraction, level: Fraction, digits: int) -> Certified:
    zero = Certified(0, digits=digits, rounding="down", method="arb")
    if not _snj_decide(m, r, v, Fraction(0), d, level):
        return zero
    lv, df = float(level), float(d)
    hi = 1.0
    while snj_float(m, r, v, hi, df) <= lv:
        hi *= 2
        if hi > 1e6:
            raise PrecisionError(f"no epsilon up to 1e6 is accepted by the one-run test (m={m}, r={r}, v={v})")
    root = float_root(lambda e: snj_float(m, r, v, e, df) <= lv, 0.0, hi)
    cand = certify_fraction(Fraction(root), digits=digits, rounding="down", method="arb").to_fraction()
    return _certify_root(cand, digits, lambda e: _snj_decide(m, r, v, e, d, level), zero)


def _certify_root(cand: Fraction, digits: int, rejected: Callable[[Fraction], bool], zero: Certified) -> Certified:
    """The decimal x (``digits`` digits, rounded down) with ``rejected(x)`` proven and
    ``rejected(next decimal up)`` proven false, starting from a float estimate ``cand``."""
    for _ in range(64):
        if cand <= 0:
            return zero
        if not rejected(cand):
            below = cand - _ulp(cand, digits) / 2
            cand = certify_fraction(below, digits=digits, rounding="down", method="arb").to_fraction()
            continue
        up = certify_fraction(cand + _ulp(cand, digits), digits=digits, rounding="down", method="arb").to_fraction()
        if rejected(up):
            cand = up
            continue
        return certify_fraction(cand, digits=digits, rounding="down", method="arb")
    raise PrecisionError("the rejected boundary could not be located to the printed digits")  # pragma: no cover


# ---------------------------------------------------------------------------------------------
# Mahloujifar, Melis & Chaudhuri: the f-DP recursion


def mmc_statistic(tau: float, m: int, k: int, c: int, g: Callable[[float], float]) -> float:
    """r_0 + h_0 of the recursion in floats, for a float estimate g(x) of f(1 - x) (searching only)."""
    r, h = tau * c / m, tau * (k - c) / m
    for i in range(c - 1, -1, -1):
        h_new = max(h, g(r))
        if h_new == h:   # a fixed point: nothing changes in the later steps
            break
        r = min(r + i / (k - i) * (h_new - h), 1.0)
        h = h_new
    return r + h


def _mmc_rejects_exact(j: int, m: int, k: int, c: int, curve: Curve) -> bool:
    """Does the recursion at tau = j m / 2^SCALE_BITS reject?  Proven (``docs/proofs/one_run.md``): integers,
    the curve's certified lower bounds, r rounded down."""
    r, h = j * c, j * (k - c)
    for i in range(c - 1, -1, -1):
        g = curve.g_low(Fraction(r, _SCALE))
        g_int = (g.numerator << SCALE_BITS) // g.denominator
        if g_int <= h:
            break
        r = min(r + (i * (g_int - h)) // (k - i), _SCALE)
        h = g_int
    return (r + h) * m > k * _SCALE


def fdp_rejects(canaries: int, guesses: int, correct: int, *, claim: Any, level: Any) -> bool:
    """Whether the one-run f-DP test rejects ``claim`` at ``level`` (proven: ``docs/proofs/one_run.md``).

    ``claim``: mu (a number: mu-GDP), a symmetric TradeOff, a mechanism value or a
    :class:`~gdpproof.audit.hypotheses.Curve`.  True means P[V >= correct] < level under the
    claim, so the claim is refuted at confidence 1 - level.

    Args:
        canaries: The number of canaries, each included independently with probability 1/2.
        guesses: How many canaries the attacker guessed (fixed before the scores were seen).
        correct: How many of the guesses were right.
        claim: mu (a number: mu-GDP), a symmetric TradeOff, a mechanism value or a
            :class:`~gdpproof.audit.hypotheses.Curve`.
        level: The test's level, in (0, 1).

    Returns:
        True when the claim is refuted at confidence 1 - level.

    Raises:
        InvalidParameterError: The counts are inconsistent or an argument is out of range.

    Examples:
        >>> from gdpproof.audit import fdp_rejects
        >>> fdp_rejects(1000, 100, 90, claim="0.5", level="0.05")
        True
    """
    m, k, c = counts(canaries, guesses, correct)
    lv = fraction_of("level", level, open_low=True, open_high=False)
    return rejects(m, k, c, curve_of(claim), lv)


def rejects(m: int, k: int, c: int, curve: Curve, level: Fraction) -> bool:
    if c == 0:
        return False
    j = (level.numerator << SCALE_BITS) // (level.denominator * m)   # tau_0 = j m 2^-200 <= level
    return _mmc_rejects_exact(j, m, k, c, curve)


def fdp_p_value(canaries: int, guesses: int, correct: int, *, claim: Any, digits: int = 3) -> Certified:
    """A proven upper bound on the one-run f-DP p-value of ``claim``: the smallest level at which
    the Mahloujifar–Melis–Chaudhuri test rejects it, rounded up to ``digits`` digits.

    Assumes: each canary included independently with probability 1/2, the number of guesses
    fixed before the scores were seen, and a symmetric claimed curve (``docs/proofs/one_run.md``).

    Args:
        canaries: The number of canaries, each included independently with probability 1/2.
        guesses: How many canaries the attacker guessed (fixed before the scores were seen).
        correct: How many of the guesses were right.
        claim: The claim, as for :func:`fdp_rejects`.
        digits: Significant digits of the answer (default 3).

    Returns:
        The p-value's upper bound, a :class:`~gdpproof.Certified` rounded up.

    Raises:
        InvalidParameterError: The counts are inconsistent or an argument is out of range.

    Examples:
        >>> from gdpproof.audit import fdp_p_value
        >>> fdp_p_value(1000, 100, 90, claim="0.5")      # mu-GDP with mu = 0.5
        Certified('0.0105', digits=3, rounding='up')
    """
    m, k, c = counts(canaries, guesses, correct)
    _digits(digits)
    curve = curve_of(claim)
    return mmc_p(m, k, c, curve, digits)


def mmc_p(m: int, k: int, c: int, curve: Curve, digits: int) -> Certified:
    target = k / m
    if c == 0 or mmc_statistic(1.0, m, k, c, curve.g_float) <= target * (1 - 1e-12):
        return _one(digits)
    root = float_root(lambda t: mmc_statistic(t, m, k, c, curve.g_float) <= target, 0.0, 1.0)
    p = certify_fraction(Fraction(root), digits=digits, rounding="up", method="arb").to_fraction()
    for _ in range(8):
        if p >= 1:
            return _one(digits)
        if rejects(m, k, c, curve, p):
            return certify_fraction(p, digits=digits, rounding="up", method="arb")
        p = certify_fraction(p + _ulp(p, digits), digits=digits, rounding="up", method="arb").to_fraction()
    raise PrecisionError(f"could not certify the one-run f-DP p-value (m={m}, k={k}, c={c})")  # pragma: no cover


def fdp_mu(canaries: int, guesses: int, correct: int, *, confidence: Any = "0.95", digits: int = 4) -> Certified:
    """The largest mu whose mu-GDP the one-run f-DP test rejects at level 1 - confidence.

    Rounded down to ``digits`` digits; the printed mu is proven rejected (its G_mu evaluated in
    ball arithmetic, the recursion in integers), so the training is not mu'-GDP for any mu' up
    to it, at that confidence.  0 when nothing is rejected.

    Args:
        canaries: The number of canaries, each included independently with probability 1/2.
        guesses: How many canaries the attacker guessed (fixed before the scores were seen).
        correct: How many of the guesses were right.
        confidence: The confidence, in (0, 1).
        digits: Significant digits of the answer (default 4).

    Returns:
        mu, a :class:`~gdpproof.Certified` rounded down (0 when nothing is rejected).

    Raises:
        InvalidParameterError: The counts are inconsistent or an argument is out of range.

    Examples:
        >>> from gdpproof.audit import fdp_mu
        >>> fdp_mu(1000, 100, 90)
        Certified('0.6025', digits=4, rounding='down')
    """
    m, k, c = counts(canaries, guesses, correct)
    level = level_of(confidence)
    _digits(digits)
    return mmc_mu(m, k, c, level, digits)


def gaussian_g(mu: float) -> Callable[[float], float]:
    """A float estimate of G_mu(1 - x) (the shipped expression's numpy kernel)."""
    kernel = _gaussian_kernel()

    def g(x: float) -> float:
        with np.errstate(all="ignore"):
            return min(1.0, max(0.0, float(kernel(1.0 - x, mu))))

    return g


@functools.lru_cache(maxsize=1)
def _gaussian_kernel() -> Any:
    return gaussian_g_float()


def mmc_mu(m: int, k: int, c: int, level: Fraction, digits: int) -> Certified:
    zero = Certified(0, digits=digits, rounding="down", method="arb")
    if c == 0:
        return zero
    lv, target = float(level), k / m

    def rejected_float(mu: float) -> bool:
        return mmc_statistic(lv, m, k, c, gaussian_g(mu)) > target

    if not rejected_float(1e-9):
        return zero
    hi = 1.0
    while rejected_float(hi):
        hi *= 2
        if hi > 64:
            break
    root = float_root(rejected_float, 0.0, hi)
    cand = certify_fraction(Fraction(root), digits=digits, rounding="down", method="arb").to_fraction()
    return _certify_root(cand, digits, lambda mu: rejects(m, k, c, gaussian_curve(mu), level), zero)


# ---------------------------------------------------------------------------------------------
# a family of claimed curves: DP-SGD with the claimed schedule and a smaller noise multiplier


@dataclass(frozen=True)
class FamilyBound:
    """The one-run f-DP bound against a family of DP-SGD curves (:func:`fdp_family_epsilon`).

    Attributes:
        sigma: A noise multiplier whose DP-SGD curve (the claimed schedule: rate, steps, sampling and
            neighbours) the test rejects, rounded up; every larger one is rejected too (a larger
            noise multiplier is a stronger claim).  Infinity when none is rejected.
        epsilon: The proven lower end of that DP-SGD's epsilon at ``delta``, rounded down: if the
            training's trade-off curve is a DP-SGD curve of this schedule, its epsilon at ``delta``
            exceeds this (at the test's confidence).  0 when nothing is rejected.
        delta: The delta at which ``epsilon`` is bounded.
        claimed_sigma: The claimed noise multiplier.
        rejected: Whether the claimed noise multiplier itself is rejected (sigma <= claimed_sigma).
    """

    sigma: Certified
    epsilon: Certified
    delta: Fraction
    claimed_sigma: Fraction
    rejected: bool


#: The family search stops at this multiple of the claimed noise multiplier (above it, the
#: DP-SGD's epsilon is negligible and a rejection says nothing the mu bound does not).
FAMILY_MAX_RATIO = 64


def fdp_family_epsilon(tests: list[tuple[int, int, int]], claim: Any, *, delta: Any, level: Any,
                       digits: int = 4) -> FamilyBound:
    """The one-run f-DP epsilon lower bound against the claimed DP-SGD's own curves.

    ``claim`` is a DP-SGD mechanism value (``gdpproof.dpsgd``); the family is the same schedule
    (rate, steps, sampling, neighbours) with any noise multiplier s.  A larger s is more
    private (its curve lies above: more noise is a post-processing), so the rejected s form an
    interval [s*, inf).  ``tests`` are (m, k, c) triples, each tested at ``level`` (the caller
    pays for several by Bonferroni); s is rejected when one of them rejects its curve (the proven
    lower curve of :func:`gdpproof.account`'s bracket).  s* is found by bisection on float
    estimates and certified at the printed value (rounded up): the recursion in integers on the
    proven lower curve.  The reported epsilon is the proven lower end of that DP-SGD's epsilon at
    ``delta``, rounded down.  This is the same kind of statement as jax_privacy's
    ``epsilon_one_run_fdp``, which hypothesizes the Gaussian curve fitted to (eps, delta) instead
    of the mechanism's own.

    Args:
        tests: (canaries, guesses, correct) triples, each tested at ``level``.
        claim: The claimed DP-SGD mechanism value (``gdpproof.dpsgd``).
        delta: The delta the epsilon is reported at, in (0, 1).
        level: The level of each test, in (0, 1).
        digits: Significant digits of the answer (default 4).

    Returns:
        A ``FamilyBound``: the smallest rejected noise multiplier s*, rounded up, the epsilon at
            delta of s*-noise DP-SGD, rounded down, and whether the claimed noise multiplier is
            rejected.

    Raises:
        InvalidParameterError: The counts are inconsistent or an argument is out of range.
        NotSupportedError: The claim is not a DP-SGD value.

    Examples:
        >>> from gdpproof.audit import fdp_family_epsilon
        >>> from gdpproof.mechanisms import dpsgd
        >>> b = fdp_family_epsilon([(1000, 100, 90)], dpsgd(1, 1, 1), delta="1e-5", level="0.05")
        >>> b.sigma, b.epsilon, b.rejected
        (Certified('1.660', digits=4, rounding='up'), Certified('2.455', digits=4, rounding='down'), False)
    """
    from ..accounting import account
    from ..mechanisms import dpsgd, dpsgd_sensitivity, to_fraction

    params = getattr(claim, "dpsgd_parameters", lambda: None)()
    if params is None:
        raise bad("claim", claim, "must be a DP-SGD mechanism value (gdpproof.dpsgd) for the family bound")
    sigma0, rate, steps = params
    sampling, neighbours = claim.sampling()
    d = fraction_of("delta", delta, open_low=True, open_high=True)
    lv = fraction_of("level", level, open_low=True)
    # dpsgd_parameters gives sigma over the sensitivity; dpsgd() multiplies the sensitivity back in
    noise0 = to_fraction(sigma0) * dpsgd_sensitivity(sampling, neighbours)

    curves: dict[Fraction, Curve] = {}

    def curve(noise: Fraction) -> Curve:
        if noise not in curves:
            curves[noise] = curve_of(dpsgd(noise, rate, steps, sampling=sampling, neighbours=neighbours), delta=d)
        return curves[noise]

    def rejected_float(noise: Fraction) -> bool:
        cv = curve(noise)
        return any(c > 0 and mmc_statistic(float(lv), m, k, c, cv.g_float) > k / m for m, k, c in tests)

    def rejected_exact(noise: Fraction) -> bool:
        cv = curve(noise)
        return any(rejects(m, k, c, cv, lv) for m, k, c in tests)

    def rounded(x: Fraction) -> Fraction:
        return certify_fraction(x, digits=digits, rounding="up").to_fraction()

    inf = Certified("Infinity", digits=digits, rounding="up", method="exact")
    zero = Certified(0, digits=digits, rounding="down", method="exact")
    if rejected_float(noise0):
        lo, hi = Fraction(0), noise0
    else:
        lo, hi = noise0, 2 * noise0
        while not rejected_float(hi):
            if hi >= FAMILY_MAX_RATIO * noise0:
                return FamilyBound(inf, zero, d, noise0, False)
            lo, hi = hi, 2 * hi
    for _ in range(60):   # the boundary s* lies in (lo, hi]: hi rejected, lo not (or 0)
        mid = certify_fraction((lo + hi) / 2, digits=digits + 2, rounding="up").to_fraction()
        if not lo < mid < hi or hi - lo <= hi * Fraction(1, 10 ** (digits + 1)):
            break
        if rejected_float(mid):
            hi = mid
        else:
            lo = mid
    s = rounded(hi)
    for _ in range(16):   # the float estimate may sit a hair low: step up until proven
        if rejected_exact(s):
            break
        s = rounded(s + _ulp(s, digits))
    else:
        return FamilyBound(inf, zero, d, noise0, False)
    eps = account(dpsgd(s, rate, steps, sampling=sampling, neighbours=neighbours), delta=d, rel_width=1e-4).eps_lower
    eps_f = eps.to_fraction() if hasattr(eps, "to_fraction") else Fraction(eps)
    return FamilyBound(certify_fraction(s, digits=digits, rounding="up"),
                       certify_fraction(eps_f, digits=digits, rounding="down", method="arb"),
                       d, noise0, s <= noise0)


# ---------------------------------------------------------------------------------------------
# guesses from scores


@dataclass(frozen=True)
class Guesses:
    """One fixed guessing rule applied to labelled scores: the k+ highest scores guessed "in",
    the k- lowest "out" (ties broken by a seeded shuffle, never by the labels)."""

    k_plus: int
    k_minus: int
    canaries: int
    guesses: int
    correct: int


def guesses_from_scores(held_in: Any, held_out: Any, rules: list[tuple[int, int]], *, seed: int = 0) -> list[Guesses]:
    """Apply each (k+, k-) rule to the scores of ``held_in`` and ``held_out`` canaries (held-in
    canaries are expected to score higher).  The rules must be fixed before the scores are
    seen; ``seed`` orders tied scores."""
    inside = np.asarray(held_in, dtype=float)
    outside = np.asarray(held_out, dtype=float)
    scores = np.concatenate([inside, outside])
    labels = np.concatenate([np.ones(len(inside), bool), np.zeros(len(outside), bool)])
    m = len(scores)
    shuffle = np.random.default_rng(seed).permutation(m)
    order = shuffle[np.argsort(-scores[shuffle], kind="stable")]   # highest first, ties in shuffled order
    ranked = labels[order]
    top = np.concatenate([[0], np.cumsum(ranked)])            # held-in among the top j
    bottom = np.concatenate([[0], np.cumsum(~ranked[::-1])])  # held-out among the bottom j
    out = []
    for kp, km in rules:
        if kp + km > m:
            raise bad("guesses", (kp, km), f"must make at most {m} guesses (one per canary)")
        out.append(Guesses(kp, km, m, kp + km, int(top[kp]) + int(bottom[km])))
    return out


def check_rule(rule: Any) -> tuple[int, int]:
    if (not isinstance(rule, (tuple, list)) or len(rule) != 2
            or any(isinstance(x, bool) or not isinstance(x, (int, np.integer)) or x < 0 for x in rule)
            or rule[0] + rule[1] == 0):
        raise bad("guesses", rule, "must be pairs (k_plus, k_minus) of integers >= 0, not both 0")
    return int(rule[0]), int(rule[1])


def default_rules(m: int) -> list[tuple[int, int]]:
    """The default guess counts for m canaries: the top 1%, 2%, 5%, 10%, 20% and 50% guessed in
    (at least one each, duplicates merged), no "out" guesses."""
    ks = sorted({max(1, min(m, math.ceil(m * f))) for f in (0.01, 0.02, 0.05, 0.1, 0.2, 0.5)})
    return [(k, 0) for k in ks]

