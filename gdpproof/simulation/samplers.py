"""Samplers of a mechanism's test statistic on two neighbouring data sets.

A sampler draws a statistic of the output of P (data set S) or Q (its neighbour S'); where it is
the exact log-likelihood ratio log(dQ/dP), its tests lie on the trade-off curve T(P, Q), otherwise
above it.  Each sampler names the mechanism it simulates in the vocabulary of ``gdpproof account``
(:meth:`Sampler.spec`, a mapping for :func:`gdpproof.mechanisms.mechanism_from_dict`), which is where
its theory comes from (:func:`gdpproof.audit.theory.theory_of`).  Every sampler takes a
``numpy.random.Generator``.
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import Any

import numpy as np

from .._args import count, positive_double
from ..errors import MISSING, InvalidParameterError, bad

Law = str  # "P" or "Q"

#: Samples drawn at once inside one chunk (bounds memory: rows x dim x 8 bytes).
_BLOCK_ELEMENTS = 1 << 20

#: The mu of a simulated Gaussian or Laplace mechanism's theory lies in [MIN_SHIFT, MAX_SHIFT): the
#: trade-off families' range (a double 1e100 is above 10^100), where the squared shift is a finite
#: double.  Beyond it the curve is Id or 0 at every alpha a simulation can resolve.
MIN_SHIFT, MAX_SHIFT = 1e-100, 1e100


class Sampler(ABC):
    """Base class: ``scores(rng, n, law)`` returns n draws of the statistic under P or Q.

    Examples:
        >>> import numpy as np
        >>> from gdpproof.simulation import GaussianSampler
        >>> GaussianSampler(1.0, 1.0).scores(np.random.default_rng(0), 3, "P").shape
        (3,)
    """

    name = "mechanism"
    #: True when the statistic is the exact log-likelihood ratio log(dQ/dP).
    exact = True
    #: The ordering of the worst pair the sampler runs when it simulates only that one, named as
    #: ``ComposedLoss.tradeoff_curves`` names it (None: the pair's curve, both orderings alike).
    ordering: str | None = None

    @abstractmethod
    def scores(self, rng: np.random.Generator, n: int, law: Law) -> np.ndarray:
        """n independent draws of the statistic under ``law`` ("P" or "Q")."""

    def spec(self) -> dict[str, Any] | None:
        """The mechanism simulated, as a mapping :func:`gdpproof.mechanisms.mechanism_from_dict` reads
        (the ``--mechanism`` vocabulary of ``account``), each parameter the shortest decimal of the
        double simulated; None for a mechanism that has no name there (a user's sampler)."""
        return None

    def __repr__(self) -> str:
        return self.name


class GaussianSampler(Sampler):
    """q(S) + N(0, sigma^2 I_d) on a d-dimensional query whose neighbours differ by ``sensitivity``
    in L2, composed ``steps`` times.

    The outputs are simulated in all d dimensions (q(S) = 0, q(S') = sensitivity * u with
    u = (1, ..., 1)/sqrt(d)), and the statistic is the exact log-likelihood ratio of the full
    output vector, summed over the steps.  Theory: G_mu with mu = sqrt(steps) sensitivity/sigma.

    Args:
        sensitivity: The L2 distance of the neighbours' query values, > 0.
        sigma: The noise's standard deviation, > 0.
        dim: The query's dimension d (at most 10^6).
        steps: How many times the mechanism runs (at most 10^6).

    Raises:
        InvalidParameterError: A parameter is out of range, or sensitivity/sigma above 1e100.

    Examples:
        >>> GaussianSampler(1.0, 2.0, steps=4).name
        'gaussian_mechanism(sensitivity=1, sigma=2, dim=1, steps=4)'
    """

    def __init__(self, sensitivity: float = 1.0, sigma: float = 1.0, *, dim: int = 1, steps: int = 1) -> None:
        self.sensitivity = positive_double("sensitivity", sensitivity)
        self.sigma = positive_double("sigma", sigma)
        self.dim = count("dim", dim, high=10**6)
        self.steps = count("steps", steps, high=10**6)
        # the squared shift must stay a finite double, and the theory's mu a parameter of G_mu
        mu = math.sqrt(self.steps) * self.sensitivity / self.sigma
        if not MIN_SHIFT <= mu < MAX_SHIFT:
            raise bad("sigma", sigma, f"must make sqrt(steps) sensitivity/sigma (the theory's mu) within "
                                      f"[{MIN_SHIFT:g}, {MAX_SHIFT:g}), not {mu:g}")
        self.shift = np.full(self.dim, self.sensitivity / math.sqrt(self.dim))
        self.name = (f"gaussian_mechanism(sensitivity={self.sensitivity:g}, sigma={self.sigma:g}, "
                     f"dim={self.dim}, steps={self.steps})")

    def spec(self) -> dict[str, Any]:
        return _spec({"kind": "gaussian", "sigma": self.sigma, "sensitivity": self.sensitivity}, self.steps)

    def scores(self, rng: np.random.Generator, n: int, law: Law) -> np.ndarray:
        # y = sigma Z (+ b under Q), a = 0: log dQ/dP = <y, b>/sigma^2 - |b|^2/(2 sigma^2)
        #                                             = <Z, b>/sigma -+ |b|^2/(2 sigma^2)
        c = self.shift / self.sigma
        const = (self.sensitivity / self.sigma) ** 2 * (0.5 if law == "Q" else -0.5)
        out = np.empty(n)
        rows = max(1, _BLOCK_ELEMENTS // self.dim)
        for step in range(self.steps):
            for start in range(0, n, rows):
                m = min(rows, n - start)
                if self.dim == 1 and step == 0:  # drawn in place: no temporary, no copy
                    z = rng.standard_normal(m, out=out[start:start + m])
                    z *= c[0]
                    z += const
                    continue
                if self.dim == 1:
                    z = rng.standard_normal(m)
                    z *= c[0]
                else:
                    z = rng.standard_normal((m, self.dim)) @ c
                z += const
                if step == 0:
                    out[start:start + m] = z
                else:
                    out[start:start + m] += z
        return out


class SubsampledGaussianSampler(Sampler):
    """T steps of DP-SGD with Poisson sampling, for one example: in P it is absent, in Q it is
    present and sampled with probability ``sample_rate`` at each step.

    Each step outputs the noisy sum of clipped contributions; the other examples' contributions
    are the same in P and Q and cancel, so the output is B + N(0, sigma^2) with B ~ Bernoulli(p)
    times the clipping norm 1 in Q and 0 in P.  The statistic is the exact log-likelihood ratio
    log(1 - p + p e^{(2y - 1)/(2 sigma^2)}), summed over the steps.  Its trade-off is the
    T-fold p G_{1/sigma} + (1 - p) Id (DRS Thm 4.2, one neighbouring direction).

    Args:
        sigma: The noise multiplier, > 0.
        sample_rate: p, in (0, 1].
        steps: T (at most 10^7).

    Raises:
        InvalidParameterError: A parameter is out of range.

    Examples:
        >>> SubsampledGaussianSampler(1.0, 0.01, steps=10).name
        'subsampled_gaussian(sigma=1, p=0.01, steps=10)'
    """

    def __init__(self, sigma: float = 1.0, sample_rate: float = 0.01, *, steps: int = 1) -> None:
        self.sigma = positive_double("sigma", sigma)
        self.p = positive_double("sample_rate", sample_rate, high=1.0)
        self.steps = count("steps", steps, high=10**7)
        self.name = f"subsampled_gaussian(sigma={self.sigma:g}, p={self.p:g}, steps={self.steps})"

    #: the example absent in P, present in Q: one ordering of the add/remove pair
    ordering = "add"

    def spec(self) -> dict[str, Any]:
        return _spec({"kind": "gaussian", "sigma": self.sigma, "sample-rate": self.p}, self.steps)

    def scores(self, rng: np.random.Generator, n: int, law: Law) -> np.ndarray:
        out = np.zeros(n)
        s2 = self.sigma * self.sigma
        for _ in range(self.steps):
            y = rng.standard_normal(n) * self.sigma
            if law == "Q":
                y += rng.random(n) < self.p
            x = (2 * y - 1) / (2 * s2)
            with np.errstate(over="ignore"):
                small = np.log1p(self.p * np.expm1(np.minimum(x, 30.0)))
            # log(1 - p + p e^x) = x + log p + log1p((1 - p) e^{-x} / p) without overflow for x > 30
            large = x + math.log(self.p) + np.log1p((1 - self.p) / self.p * np.exp(-np.maximum(x, 30.0)))
            out += np.where(x > 30, large, small)
        return out


class RandomizedResponseSampler(Sampler):
    """Randomized response with parameter eps, ``n`` times: each release reports the true bit
    with probability e^eps/(1 + e^eps).  P: the bit is 1, Q: it is 0.  The statistic (the exact
    log-likelihood ratio) is eps (#zeros reported - #ones reported); its trade-off is the
    binomial Neyman–Pearson curve (``gdpproof.rr_composition``).

    ``k > 2``: k-ary randomized response (the true value of k with probability e^eps/Z, each
    other with 1/Z, Z = e^eps + k - 1), P's value a against Q's value b: the statistic is
    eps (#b reported - #a reported), the k - 2 other values counting 0.

    Args:
        eps: eps, in (0, 700].
        n: The number of releases (at most 10^7).
        k: The number of values, an integer >= 2.

    Raises:
        InvalidParameterError: A parameter is out of range.

    Examples:
        >>> RandomizedResponseSampler(1.0, n=3).name
        'randomized_response(eps=1, n=3)'
    """

    def __init__(self, eps: float = 1.0, *, n: int = 1, k: int = 2) -> None:
        self.eps = positive_double("eps", eps, high=700)
        self.n = count("n", n, high=10**7)
        self.k = count("k", k, low=2, high=10**15, what="the number of values")
        tail = "" if self.k == 2 else f", k={self.k}"
        self.name = f"randomized_response(eps={self.eps:g}, n={self.n}{tail})"

    def spec(self) -> dict[str, Any]:
        return _spec({"kind": "rr", "epsilon": self.eps, "k": self.k}, self.n)

    def scores(self, rng: np.random.Generator, n: int, law: Law) -> np.ndarray:
        if self.k == 2:
            truth = 1.0 / (1.0 + math.exp(-self.eps))
            p_one = truth if law == "P" else 1 - truth
            ones = rng.binomial(self.n, p_one, size=n)  # the count of n independent reported bits
            return self.eps * (self.n - 2 * ones.astype(float))
        # the counts of a, b and the others among n releases; P's true value is a, Q's is b
        z = math.exp(self.eps) + self.k - 1
        own, other, rest = math.exp(self.eps) / z, 1 / z, (self.k - 2) / z
        probs = [own, other, rest] if law == "P" else [other, own, rest]
        counts = rng.multinomial(self.n, probs, size=n)
        return self.eps * (counts[:, 1] - counts[:, 0]).astype(float)


class LaplaceSampler(Sampler):
    """q(S) + Laplace(0, scale) on a scalar query with neighbours ``sensitivity`` apart.
    P: q = 0, Q: q = sensitivity.  Statistic: (|y| - |y - sensitivity|)/scale, the exact
    log-likelihood ratio; theory: the Laplace trade-off with mu = sensitivity/scale.

    Args:
        sensitivity: The distance of the neighbours' query values, > 0.
        scale: The noise's scale, > 0.

    Raises:
        InvalidParameterError: A parameter is not a finite number > 0.

    Examples:
        >>> LaplaceSampler(1.0, 2.0).name
        'laplace_mechanism(sensitivity=1, scale=2)'
    """

    def __init__(self, sensitivity: float = 1.0, scale: float = 1.0) -> None:
        self.sensitivity = positive_double("sensitivity", sensitivity)
        self.scale = positive_double("scale", scale)
        mu = self.sensitivity / self.scale
        if not MIN_SHIFT <= mu < MAX_SHIFT:
            raise bad("scale", scale, f"must make sensitivity/scale (the theory's mu) within "
                                      f"[{MIN_SHIFT:g}, {MAX_SHIFT:g}), not {mu:g}")
        self.name = f"laplace_mechanism(sensitivity={self.sensitivity:g}, scale={self.scale:g})"

    def spec(self) -> dict[str, Any]:
        return _spec({"kind": "laplace", "scale": self.scale, "sensitivity": self.sensitivity})

    def scores(self, rng: np.random.Generator, n: int, law: Law) -> np.ndarray:
        y = rng.laplace(0.0, self.scale, size=n)
        if law == "Q":
            y += self.sensitivity
        d, mu = self.sensitivity, self.sensitivity / self.scale
        # (|y| - |y - d|)/scale, with its two atoms exactly at -mu and mu (a float difference
        # would smear them over a few ulps, which tests could then split unevenly)
        return np.where(y <= 0, -mu, np.where(y >= d, mu, (2 * y - d) / self.scale))


class DiscreteGaussianSampler(Sampler):
    """q(S) + Z, Z ~ N_Z(0, sigma^2) (masses proportional to exp(-z^2/(2 sigma^2)) on the
    integers; sigma the scale, not the standard deviation), on an integer query with neighbours
    ``sensitivity`` apart, ``steps`` times.  P: q = 0, Q: q = sensitivity.  Statistic: the sum of
    (2 Delta y - Delta^2)/(2 sigma^2), the exact log-likelihood ratio log(dQ/dP).

    Z is drawn by inverse CDF from its masses on |z| <= 40 sigma + 1 (the mass beyond is below
    e^{-800}), computed in float64: the sampled law is within 1e-12 of N_Z(0, sigma^2) in total
    variation, far below any confidence band of a Monte Carlo run.

    Args:
        sigma: The scale, in (0, 1e5].
        sensitivity: The distance of the neighbours' integer query values, a positive integer.
        steps: How many times the mechanism runs (at most 10^6).

    Raises:
        InvalidParameterError: A parameter is out of range.

    Examples:
        >>> DiscreteGaussianSampler(2.0, 1, steps=3).name
        'discrete_gaussian_mechanism(sigma=2, sensitivity=1, steps=3)'
    """

    def __init__(self, sigma: float = 1.0, sensitivity: int = 1, *, steps: int = 1) -> None:
        self.sigma = positive_double("sigma", sigma, high=1e5)
        self.sensitivity = count("sensitivity", sensitivity, high=10**6)
        self.steps = count("steps", steps, high=10**6)
        self.name = (f"discrete_gaussian_mechanism(sigma={self.sigma:g}, sensitivity={self.sensitivity}, "
                     f"steps={self.steps})")
        m = int(math.ceil(40 * self.sigma)) + 1
        self._support = np.arange(-m, m + 1)
        w = np.exp(-self._support.astype(float) ** 2 / (2 * self.sigma**2))
        self._cdf = np.cumsum(w / w.sum())

    #: the pair is symmetric; its bracket is computed in this ordering
    ordering = "P||Q"

    def spec(self) -> dict[str, Any]:
        return _spec({"kind": "discrete-gaussian", "sigma": self.sigma, "sensitivity": self.sensitivity},
                         self.steps)

    def scores(self, rng: np.random.Generator, n: int, law: Law) -> np.ndarray:
        out = np.zeros(n)
        d = self.sensitivity
        for _ in range(self.steps):
            idx = np.minimum(np.searchsorted(self._cdf, rng.random(n), side="right"), len(self._support) - 1)
            y = self._support[idx] + (d if law == "Q" else 0)
            out += (2 * d * y - d * d) / (2 * self.sigma**2)
        return out


class UserSampler(Sampler):
    """Any mechanism given as two samplers and a score.

    ``sample_p(rng, n)`` and ``sample_q(rng, n)`` return n outputs on S and S'; ``score(outputs)``
    maps them to a 1-d array (larger means "more like S'").  Pass ``exact=True`` only if the score
    is the log-likelihood ratio (then the curve is checked from both sides, else only from below).
    For a process pool the three callables must be picklable (module-level functions).

    Args:
        sample_p: ``sample_p(rng, n)``: n outputs on S.
        sample_q: ``sample_q(rng, n)``: n outputs on S'.
        score: ``score(outputs)``: a 1-d array of scores, larger meaning more like S'.
        exact: True only when the score is the log-likelihood ratio.
        name: Its name in reports.

    Raises:
        InvalidParameterError: A sampler or the score is not callable.

    Examples:
        >>> import numpy as np
        >>> shift = UserSampler(lambda rng, n: rng.normal(0, 1, n), lambda rng, n: rng.normal(1, 1, n), lambda x: x,
        ...                       exact=True, name="shift")
        >>> shift.name, shift.scores(np.random.default_rng(0), 3, "Q").shape
        ('shift', (3,))
    """

    def __init__(self, sample_p: Callable[[np.random.Generator, int], Any],
                 sample_q: Callable[[np.random.Generator, int], Any],
                 score: Callable[[Any], np.ndarray], *, exact: bool = False, name: str = "user_mechanism") -> None:
        for label, fn in (("sample_p", sample_p), ("sample_q", sample_q), ("score", score)):
            if not callable(fn):
                raise bad(label, fn, "must be callable")
        self.sample_p, self.sample_q, self.score = sample_p, sample_q, score
        self.exact = bool(exact)
        self.name = name

    def scores(self, rng: np.random.Generator, n: int, law: Law) -> np.ndarray:
        out = (self.sample_p if law == "P" else self.sample_q)(rng, n)
        s = np.array(self.score(out), dtype=float).reshape(-1)  # a copy: the caller owns the array
        if s.shape != (n,):
            raise InvalidParameterError(argument="score", value=MISSING,
                                        rule=f"returned {s.shape[0]} values for {n} outputs")
        return s


def _spec(params: dict[str, Any], times: int = 1) -> dict[str, Any]:
    """A spec mapping: each double as the shortest decimal that rounds to it (the parameter as it was
    most likely written: 0.1, not the double's exact binary value), run ``times`` times."""
    spec = {k: repr(v) if isinstance(v, float) else v for k, v in params.items()}
    return spec if times == 1 else {**spec, "times": times}
