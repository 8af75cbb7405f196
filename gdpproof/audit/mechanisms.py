"""Black-box audit of a mechanism's privacy claim: a lower bound on its mu from samples.

Given samplers of M(S) and M(S') for neighbouring S, S', :func:`audit_mechanism` chooses a
threshold test on one half of the samples and measures it on an independent half: one-sided
Clopper–Pearson upper bounds on its error rates, proven in ball arithmetic, give
mu_low = Phi^{-1}(1 - FPR_up) - Phi^{-1}(FNR_up), certified and rounded down, which exceeds the
true mu with probability at most 1 - confidence (DRS Def. 2.3).  An (epsilon, delta) claim is
tested against f_{eps,delta} through ``delta_low``.  The result is the same for any number of
workers.

The module is split by job: :mod:`~gdpproof.audit.bounds` (the bounds, the criteria, the
detectable mu), :mod:`~gdpproof.audit.blackbox` (the samplers as a mechanism of scores),
:mod:`~gdpproof.audit.mechanism_report` (:class:`MechanismAudit`); this module runs the audit and
re-exports their names.  The statistics step by step: ``docs/proofs/black_box.md``.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from concurrent.futures import Executor
from fractions import Fraction
from typing import Any, cast

import numpy as np

from .._args import nonnegative, probability
from .._args import count
from .._args import seed as seed_value
from ..errors import InvalidParameterError, bad
from ..numeric.tradeoff.solve import mu_from_error_rates
from ..simulation.runner import count_chunks
from .blackbox import OutputSampler, BlackBox
from .bounds import (
    cp_float,
    delta_criterion,
    delta_low_bound,
    detectable_mu_bound,
    mu_criterion,
    round_up_3,
    clopper_pearson_upper,
)
from ..text import terminating_text
from .mechanism_report import NO_EVIDENCE, VIOLATION, MechanismAudit

__all__ = ["MechanismAudit", "audit_mechanism"]

#: Outputs drawn per data set in one chunk (the pilot is the first chunk of the selection half).
CHUNK_SIZE = 1 << 15
#: Fewest outputs per data set: 500 in each half.
MIN_SAMPLES = 1000


def _errors(counts: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(false positives, false negatives) of "reject when s > tau", then of "reject when s < tau"."""
    p_le, p_lt, q_le, q_lt = counts
    return n - p_le, q_le, p_lt, n - q_lt


def _split(total: int, chunk: int) -> list[int]:
    k = -(-total // chunk)
    return [chunk] * (k - 1) + [total - chunk * (k - 1)]


def audit_mechanism(sample_p: OutputSampler, sample_q: OutputSampler, *, samples: int, seed: int,
                    claimed_mu: Any = None, claimed_epsilon: Any = None, claimed_delta: Any = None,
                    score: Callable[[Any], Any] | None = None, confidence: Any = "0.999999",
                    thresholds: int = 512, digits: int = 6, executor: Executor | None = None,
                    workers: int | None = None, progress: bool = False) -> MechanismAudit:
    r"""Audit a black-box mechanism's mu-GDP or (epsilon, delta)-DP claim from samples.

    .. math:: \mu_{low} = \max\{0, \Phi^{-1}(1 - \mathrm{FPR}_{up}) - \Phi^{-1}(\mathrm{FNR}_{up})\}

    where FPR_up and FNR_up are proven Clopper–Pearson upper bounds of one test's error rates
    measured on samples independent of those that chose it (``docs/proofs/black_box.md``).

    Args:
        sample_p (callable): ``sample_p(rng, n)`` returns n outputs of M(S), ``sample_q(rng, n)`` of M(S'),
            for a ``numpy.random.Generator`` rng: an array of shape (n,) (scalar outputs) or (n, d), finite,
            of real numbers that float64 holds exactly (floats, bools, integers up to 2^53 in magnitude);
            complex, object and larger integer outputs are refused, since the cast could hide a leak: map them
            to float64 yourself.  All their randomness must come from rng (then the result is a function of
            ``seed``). For ``workers`` > 1 they must be picklable (module-level functions).
        sample_q (callable): ``sample_p(rng, n)`` returns n outputs of M(S), ``sample_q(rng, n)`` of M(S'),
            for a ``numpy.random.Generator`` rng: an array of shape (n,) (scalar outputs) or (n, d), finite,
            of real numbers that float64 holds exactly (floats, bools, integers up to 2^53 in magnitude);
            complex, object and larger integer outputs are refused, since the cast could hide a leak: map them
            to float64 yourself.  All their randomness must come from rng (then the result is a function of
            ``seed``). For ``workers`` > 1 they must be picklable (module-level functions).
        samples (int): Outputs per data set, at least 1000; half choose the test, half measure it.
        seed (int): Seed (>= 0) of ``numpy.random.SeedSequence``: required, runs are reproducible.
        claimed_mu (real, optional): The claim "M is mu-GDP" (mu >= 0).
        claimed_epsilon (real, optional): The claim "M is (epsilon, delta)-DP" (epsilon >= 0, delta in [0,
            1]).  Exactly one of the two claim forms must be given.
        claimed_delta (real, optional): The claim "M is (epsilon, delta)-DP" (epsilon >= 0, delta in [0, 1]).
            Exactly one of the two claim forms must be given.
        score (callable, optional): ``score(outputs)`` returns one number per output (larger or smaller: both
            directions are tried).  Default: the output for scalar outputs; for vector outputs the projection
            on the difference of the means of M(S') and M(S) on the pilot (the first 32,768 outputs per data
            set of the selection half).
        confidence (real in (0, 1)): The probability that the bounds hold (default 1 - 1e-6): a true claim is
            called a violation with probability at most 1 - confidence.
        thresholds (int): Candidate thresholds (quantiles of the pilot scores), at least 2.
        digits (int): Significant digits of ``mu_low`` and ``delta_low`` (rounded down).
        executor: Where the chunks run (as :func:`gdpproof.simulation.simulate`); a progress line on stderr.
        workers: Where the chunks run (as :func:`gdpproof.simulation.simulate`); a progress line on stderr.
        progress: Where the chunks run (as :func:`gdpproof.simulation.simulate`); a progress line on stderr.

    Returns:
        MechanismAudit: ``mu_low`` rounded down; ``verdict`` "violation" when mu_low > claimed_mu (or
            delta_low > claimed_delta), else "no evidence of violation at this sample size", with the
            ``detectable_mu`` of this sample size.

    Raises:
        InvalidParameterError: Bad arguments, or a sampler or score returning outputs of the wrong shape or
            type, non-finite outputs or NaN scores (the message names the sampler).  Exceptions raised inside
            the caller's samplers propagate unchanged.

    References:
        Dong, Roth & Su (2022), Gaussian differential privacy, JRSS B, Def. 2.3 and Prop. 2.5;
        Clopper & Pearson (1934), Biometrika 26(4); Jagielski, Ullman & Oprea (2020), Auditing
        differentially private machine learning, NeurIPS (error rates to privacy lower bounds).

    Examples:
        >>> import gdpproof
        >>> def p(rng, n): return rng.standard_normal(n)          # M(S): query 0 + N(0, 1)
        >>> def q(rng, n): return rng.standard_normal(n) + 1.0    # M(S'): query 1 + N(0, 1)
        >>> r = gdpproof.audit_mechanism(p, q, samples=20_000, seed=3, claimed_mu=1)
        >>> r.verdict, r.mu_low <= 1
        ('no evidence of violation at this sample size', True)
        >>> gdpproof.audit_mechanism(p, q, samples=20_000, seed=3, claimed_epsilon=1, claimed_delta="0.01").verdict
        'violation'
    """
    for label, sampler in (("sample_p", sample_p), ("sample_q", sample_q)):
        if not callable(sampler):
            raise bad(label, sampler, "must be callable: sampler(rng, n) returning n outputs")
    if score is not None and not callable(score):
        raise bad("score", score, "must be callable (or None)")
    samples = count("samples", samples, low=MIN_SAMPLES, what="outputs per data set")
    seed = seed_value("seed", seed)
    if isinstance(thresholds, bool) or not isinstance(thresholds, (int, np.integer)) or thresholds < 2:
        raise bad("thresholds", thresholds, "must be an integer >= 2")
    if isinstance(digits, bool) or not isinstance(digits, int) or not 1 <= digits <= 30:
        raise bad("digits", digits, "must be an integer from 1 to 30")
    if workers is not None and (isinstance(workers, bool) or not isinstance(workers, int) or workers < 1):
        raise bad("workers", workers, "must be a positive integer (or None)")
    try:
        conf = probability("confidence", confidence, symbolic=False)
    except InvalidParameterError:
        conf = None
    if conf is None or conf in (0, 1):
        raise bad("confidence", confidence, "must be in (0, 1)")
    if claimed_mu is not None:
        if claimed_epsilon is not None or claimed_delta is not None:
            raise bad("claimed_mu", claimed_mu, "cannot be given with claimed_epsilon or claimed_delta: give exactly "
                      "one claim")
        mu_claim = nonnegative("claimed_mu", claimed_mu, symbolic=False)
        eps_claim = delta_claim = None
    else:
        if claimed_epsilon is None or claimed_delta is None:
            raise bad("claimed_epsilon" if claimed_epsilon is None else "claimed_delta", None,
                      "must be given: give exactly one claim, claimed_mu or both claimed_epsilon and claimed_delta")
        eps_claim = nonnegative("claimed_epsilon", claimed_epsilon, symbolic=False)
        delta_claim = probability("claimed_delta", claimed_delta, symbolic=False)
        mu_claim = None
    samples, seed = int(samples), int(seed)
    confidence_f = Fraction(int(conf.p), int(conf.q))
    failure = (1 - confidence_f) / 2
    n1 = samples // 2
    n2 = samples - n1

    root = np.random.SeedSequence(seed)
    sel_sizes, est_sizes = _split(n1, CHUNK_SIZE), _split(n2, CHUNK_SIZE)
    sel_seeds = root.spawn(len(sel_sizes))
    est_seeds = root.spawn(len(est_sizes))

    # the pilot: the first selection chunk fixes the shape, the linear direction and the candidates
    probe = BlackBox(sample_p, sample_q, score, None, None)
    rng = np.random.default_rng(sel_seeds[0])
    op, oq = probe.outputs(rng, sel_sizes[0], "P"), probe.outputs(rng, sel_sizes[0], "Q")
    if op.ndim != oq.ndim or op.shape[1:] != oq.shape[1:]:
        raise InvalidParameterError(f"sample_p returned shape {op.shape} but sample_q returned shape {oq.shape}: "
                                    "the two data sets' outputs must have the same shape")
    dim = op.shape[1] if op.ndim == 2 else 0
    direction = None
    if score is not None:
        how = "the caller's score function"
    elif dim:
        direction = oq.mean(axis=0) - op.mean(axis=0)
        how = (f"linear, along the difference of the means on the pilot ({sel_sizes[0]:,} outputs per data set; "
               f"d = {dim})")
    else:
        how = "the output"
    mech = BlackBox(sample_p, sample_q, score, direction, dim)
    pooled = np.concatenate([mech.score_of(op), mech.score_of(oq)])
    pooled = pooled[np.isfinite(pooled)]
    atoms = np.unique(pooled)
    if len(atoms) <= thresholds:
        taus = atoms if len(atoms) else np.zeros(1)
    else:
        tail = np.geomspace(1.0 / len(pooled), 0.05, thresholds // 8)
        levels = np.unique(np.concatenate([np.linspace(0, 1, thresholds - 2 * len(tail) + 2)[1:-1], tail, 1 - tail]))
        taus = np.unique(np.quantile(pooled, levels))

    def frac(v: Any) -> Fraction | None:
        return None if v is None else Fraction(int(v.p), int(v.q))

    mu_f, eps_f, delta_f = frac(mu_claim), frac(eps_claim), frac(delta_claim)
    # exactly one claim form was checked above: without mu, epsilon and delta are both given
    eps_x, delta_x = cast(Fraction, eps_f), cast(Fraction, delta_f)
    crit: Callable[[np.ndarray, np.ndarray], np.ndarray]
    if mu_f is not None:
        crit, level = mu_criterion, float(mu_f)
        claim = f"mu-GDP with mu = {terminating_text(mu_f)}"
    else:
        crit, level = delta_criterion(float(eps_x)), float(delta_x)
        claim = f"(epsilon, delta)-DP with epsilon = {terminating_text(eps_x)}, delta = {terminating_text(delta_x)}"
    ffail = float(failure)

    sel = count_chunks(mech, sel_seeds, sel_sizes, taus, executor=executor, workers=workers, progress=progress,
                       label="audit (selection)")
    sfp_g, sfn_g, sfp_l, sfn_l = _errors(sel, n1)
    scale = n2 / n1
    values = np.concatenate([crit(cp_float(sfp_g * scale, n2, ffail), cp_float(sfn_g * scale, n2, ffail)),
                             crit(cp_float(sfp_l * scale, n2, ffail), cp_float(sfn_l * scale, n2, ffail))])
    values = np.where(np.isnan(values), -np.inf, values)
    best = int(np.argmax(values))
    side = "greater" if best < len(taus) else "less"
    tau = float(taus[best % len(taus)])

    est = count_chunks(mech, est_seeds, est_sizes, np.array([tau]), executor=executor, workers=workers,
                       progress=progress, label="audit (estimation)")
    fp_g, fn_g, fp_l, fn_l = (int(x[0]) for x in _errors(est, n2))
    fp, fn = (fp_g, fn_g) if side == "greater" else (fp_l, fn_l)
    a_up = clopper_pearson_upper(fp, n2, failure)
    b_up = clopper_pearson_upper(fn, n2, failure)
    mu_low = mu_from_error_rates(str(a_up), str(b_up), digits=digits, rounding="down")
    delta_low = None
    if mu_f is not None:
        violation = mu_low.to_fraction() > mu_f if mu_low.is_finite() else True
        detect = detectable_mu_bound(n2, ffail, crit, level, max(level, 1e-3))
    else:
        delta_low = delta_low_bound(eps_x, a_up, b_up, digits)
        violation = delta_low.to_fraction() > delta_x
        detect = detectable_mu_bound(n2, ffail, crit, level, 1e-3)
    if progress:
        print(f"audit: {'violation' if violation else 'no violation found'}", file=sys.stderr)
    return MechanismAudit(
        verdict=VIOLATION if violation else NO_EVIDENCE, violation=bool(violation), claim=claim,
        claimed_mu=mu_f, claimed_epsilon=eps_f, claimed_delta=delta_f,
        mu_low=mu_low, delta_low=delta_low, detectable_mu=round_up_3(detect), threshold=tau, direction=side,
        score=how, false_positives=fp, false_negatives=fn, fpr_upper=a_up, fnr_upper=b_up, samples=samples,
        selection_samples=n1, estimation_samples=n2, seed=seed, confidence=confidence_f)
