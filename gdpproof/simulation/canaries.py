"""A white-box DP-SGD canary simulator: scores of m "Dirac" canaries from one seeded training run.

Each canary is included with probability 1/2 and has a gradient along its own coordinate, so
its view of the noisy updates is exactly DP-SGD's dominating pair and the audit can be tight.
Scores: ``"lr"`` (the likelihood ratio of the reported mechanism) or ``"sum"``.  Four switches
(:data:`BUGS`: noise-scale, clip-after-noise, sampling-rate, noise-per-epoch) simulate real
implementation errors.  The setting, why it is tight, and each bug: docs/proofs/canaries.md.

numpy only: this module imports nothing of gdpproof's symbolic or numeric layers.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._args import count, positive_double, seed as checked_seed
from ..errors import MISSING, bad

__all__ = ["BUGS", "SCORES", "CanaryRun", "simulate_canaries"]

BUGS = ("noise-scale", "clip-after-noise", "sampling-rate", "noise-per-epoch")
SCORES = ("lr", "sum")
#: The default factor of each bug.
BUG_FACTORS = {"noise-scale": 0.5, "clip-after-noise": 4.0, "sampling-rate": 2.0, "noise-per-epoch": 1.0}
#: Canary-steps simulated per chunk (memory stays flat in m x T).
_CHUNK = 1 << 20


@dataclass(frozen=True)
class CanaryRun:
    """One simulated training run: ``scores`` of the m canaries, ``included`` (held in or out),
    and what ran (the reported parameters, the bug and its factor).  ``held_in`` and
    ``held_out`` split the scores by ``included``."""

    scores: np.ndarray
    included: np.ndarray
    noise_multiplier: float
    sample_rate: float
    steps: int
    sampling: str
    dataset_size: int | None
    score: str
    bug: str | None
    bug_factor: float | None
    seed: int

    @property
    def held_in(self) -> np.ndarray:
        return self.scores[self.included]

    @property
    def held_out(self) -> np.ndarray:
        return self.scores[~self.included]

    @property
    def canaries(self) -> int:
        return len(self.scores)


def simulate_canaries(*, canaries: int, noise_multiplier: Any, sample_rate: Any, steps: int, seed: int,
                      sampling: str = "poisson", dataset_size: int | None = None, score: str = "lr",
                      bug: str | None = None, bug_factor: Any = None) -> CanaryRun:
    """Simulate one DP-SGD training run with m Dirac canaries and return their scores (the setting:
    docs/proofs/canaries.md).

    Args:
        canaries (int): m >= 2 canaries, each included with probability 1/2.
        noise_multiplier (float): sigma > 0, the noise over the clipping norm C, as reported.
        sample_rate (float): p in (0, 1], the sampling rate as reported.
        steps (int): T >= 1.
        seed (int): The numpy SeedSequence seed: the run is a function of it.
        sampling ("poisson" or "fixed-batch"): Poisson sampling at rate p, or batches of
            B = round(p N) of the N = ``dataset_size`` records (the canaries among them) without
            replacement.
        dataset_size (int, optional): N for fixed-size batches (at least m).
        score ("lr" or "sum"): The score of each canary: the log-likelihood ratio of the reported
            mechanism, or the sum of its views.
        bug (str, optional): One of :data:`BUGS`.
        bug_factor (float, optional): The bug's factor (:data:`BUG_FACTORS` by default).

    Returns:
        CanaryRun: The scores, which canaries were held in, and what ran.

    Raises:
        InvalidParameterError: An argument is out of its range (the message names it).

    Examples:
        >>> from gdpproof.simulation.canaries import simulate_canaries
        >>> run = simulate_canaries(canaries=1000, noise_multiplier=1.0, sample_rate=0.1, steps=50, seed=1)
        >>> run.canaries, int(run.included.sum()), bool(run.held_in.mean() > run.held_out.mean())
        (1000, 507, True)
    """
    m = count("canaries", canaries, low=2, high=10**8)
    t_steps = count("steps", steps, low=1, high=10**7)
    sigma = positive_double("noise_multiplier", noise_multiplier, high=1e100)  # 2 sigma^2 must be a double
    p = positive_double("sample_rate", sample_rate, high=1.0)
    seed = checked_seed("seed", seed)
    if sampling not in ("poisson", "fixed-batch"):
        raise bad("sampling", sampling, "must be 'poisson' or 'fixed-batch'")
    if score not in SCORES:
        raise bad("score", score, f"must be one of {', '.join(SCORES)}")
    if bug is not None and bug not in BUGS:
        raise bad("bug", bug, f"must be one of {', '.join(BUGS)} (or None)")
    if bug_factor is not None and bug is None:
        raise bad("bug_factor", bug_factor, "needs a bug")
    factor = None if bug is None else positive_double("bug_factor",
                                                      BUG_FACTORS[bug] if bug_factor is None else bug_factor)
    n = 0
    if sampling == "fixed-batch":
        if dataset_size is None:
            raise bad("dataset_size", MISSING, "is required for sampling='fixed-batch'")
        n = count("dataset_size", dataset_size, low=m, high=10**9)
    elif dataset_size is not None:
        raise bad("dataset_size", dataset_size, "goes with sampling='fixed-batch' only")

    root = np.random.SeedSequence(int(seed))
    rng = np.random.default_rng(root)
    included = rng.random(m) < 0.5
    # a canary's gradient is clipped to norm C (1 in units of C) unless the bug lets G through
    signal = factor if bug == "clip-after-noise" else 1.0
    noise = sigma * (factor if bug == "noise-scale" else 1.0)
    p_true = min(1.0, p * factor) if bug == "sampling-rate" else p
    epoch = max(1, round(1 / p))
    scores = np.zeros(m)
    chunk = max(1, _CHUNK // m)
    for start in range(0, t_steps, chunk):
        steps_here = min(chunk, t_steps - start)
        if sampling == "poisson":
            in_batch = rng.random((steps_here, m)) < p_true
        else:
            in_batch = _fixed_batches(rng, steps_here, m, n, p_true)
        in_batch &= included[None, :]
        z = rng.standard_normal((steps_here, m))
        if bug == "noise-per-epoch":
            first = ((np.arange(start, start + steps_here) % epoch) == 0)[:, None]
            z = np.where(first, z, 0.0)
        y = signal * in_batch + noise * z
        if score == "lr":
            # log(1 - p + p exp((2y - 1) / (2 sigma^2))) with the reported p and sigma, stably
            with np.errstate(divide="ignore"):
                scores += np.logaddexp(math.log1p(-p) if p < 1 else -np.inf,
                                       math.log(p) + (2 * y - 1) / (2 * sigma**2)).sum(axis=0)
        else:
            scores += y.sum(axis=0)
    return CanaryRun(scores, included, sigma, p, t_steps, sampling, n or None, score, bug, factor, int(seed))


def _fixed_batches(rng: np.random.Generator, steps: int, m: int, n: int, rate: float) -> np.ndarray:
    """Which canaries each step's batch holds: B = round(rate N) of the N records without
    replacement (the canaries are the first m records; the held-out ones' slots are other records)."""
    b = max(1, min(n, round(rate * n)))
    out = np.zeros((steps, m), dtype=bool)
    for s in range(steps):
        # the canaries among B draws without replacement from N: a uniformly random B-subset
        chosen = rng.choice(n, size=b, replace=False)
        out[s, chosen[chosen < m]] = True
    return out
