"""The theoretical trade-off curve a Monte Carlo simulation is checked against.

:mod:`gdpproof.simulation` is the independent oracle: it never imports the symbolic or numeric
layers, so it cannot know what curve its mechanisms should trace.  This module, above both,
gives each simulated mechanism its theory: a closed-form trade-off function where one exists,
and the proven bracket of numerical composition where none does (DP-SGD).  ``gdpproof
simulate`` and the verification report compare :func:`gdpproof.simulation.simulate`'s
estimate with it.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..simulation.mechanisms import (
    DiscreteGaussianMechanism,
    GaussianMechanism,
    LaplaceMechanism,
    Mechanism,
    RandomizedResponse,
    SubsampledGaussianMechanism,
)

__all__ = ["TheoryCurve", "theory_of", "gdp_claim", "dpsgd_grid_step", "sampler_of"]

Curve = Callable[[np.ndarray], np.ndarray]


@dataclass(frozen=True)
class TheoryCurve:
    """The theory of a mechanism's trade-off curve, as float64 functions of alpha.

    ``lower`` is the curve itself when it is known exactly (``upper`` is None), or the lower
    end of a proven bracket ``lower <= f <= upper``.  ``label`` says which, in words fit for
    a plot legend or a report line.
    """

    lower: Curve
    upper: Curve | None
    label: str

    def center(self, alpha: np.ndarray) -> np.ndarray:
        """The curve, or the middle of its bracket: what a deviation is measured from."""
        if self.upper is None:
            return self.lower(alpha)
        return (self.lower(alpha) + self.upper(alpha)) / 2

    @property
    def exact(self) -> bool:
        """True when the curve is known exactly (no bracket)."""
        return self.upper is None


def dpsgd_grid_step(steps: int) -> float:
    r"""The grid step of numerical composition for a ``steps``-fold DP-SGD curve beside a
    Monte Carlo band.

    The bracket's width grows with the grid step h and the number of steps; this h keeps
    it small beside a band of a million samples or more:
    h = min(1e-3, max(2e-5, 0.002 / \sqrt{T \log(10^{12}) / 2})).

    >>> round(dpsgd_grid_step(50), 6), dpsgd_grid_step(10**7)
    (7.6e-05, 2e-05)
    """
    return min(1e-3, max(2e-5, 0.002 / math.sqrt(steps * math.log(1e12) / 2)))


def theory_of(mechanism: Mechanism) -> TheoryCurve:
    r"""The trade-off curve of a simulated mechanism, exact or as a proven bracket.

    - :class:`~gdpproof.simulation.GaussianMechanism`: G_mu with
      mu = \sqrt{T} sensitivity / sigma (exact; DRS Thm 2.7 and Cor. 3.3);
    - :class:`~gdpproof.simulation.RandomizedResponse`: the exact n-fold curve
      (:func:`gdpproof.rr_composition`); k-ary (k > 2): the exact curve of one release
      (n = 1 only: the n-fold k-ary curve is not tabulated here, so it is refused);
    - :class:`~gdpproof.simulation.LaplaceMechanism`: the Laplace trade-off with
      mu = sensitivity / scale (exact);
    - :class:`~gdpproof.simulation.SubsampledGaussianMechanism`: the proven bracket of the
      T-fold curve of p G_{1/sigma} + (1 - p) Id by numerical composition, in the ordering the
      simulation runs (the example absent in P, present in Q: the "add" ordering), on the grid
      of :func:`dpsgd_grid_step`;
    - :class:`~gdpproof.simulation.DiscreteGaussianMechanism`: the proven bracket of the T-fold
      curve of N_Z(0, sigma^2) against N_Z(Delta, sigma^2) by numerical composition (the pair is
      symmetric: both orderings have this curve), on the same grid.

    Raises
    ------
    InvalidParameterError
        For any other mechanism (a user's mechanism has no theory here; check a claim with
        :func:`gdp_claim`).

    Examples
    --------
    >>> from gdpproof.simulation import GaussianMechanism
    >>> t = theory_of(GaussianMechanism(1.0, 2.0, steps=4))
    >>> t.exact, t.label
    (True, 'G_mu, mu = sqrt(T) sensitivity/sigma = 1 (exact)')
    >>> float(t.lower(np.array([0.5]))[0]).__round__(6)
    0.158655
    """
    from ..symbolic.composition import rr_composition
    from ..symbolic.tradeoff import gaussian, laplace

    if isinstance(mechanism, GaussianMechanism):
        mu = math.sqrt(mechanism.steps) * mechanism.sensitivity / mechanism.sigma
        return TheoryCurve(_fast(gaussian(mu)), None, f"G_mu, mu = sqrt(T) sensitivity/sigma = {mu:.6g} (exact)")
    if isinstance(mechanism, RandomizedResponse) and mechanism.k == 2:
        return TheoryCurve(_fast(rr_composition(mechanism.eps, mechanism.n)), None,
                           f"exact {mechanism.n}-fold randomized response")
    if isinstance(mechanism, RandomizedResponse) and mechanism.n == 1:
        from ..symbolic.tradeoff import k_randomized_response

        return TheoryCurve(_fast(k_randomized_response(mechanism.eps, mechanism.k)), None,
                           f"exact {mechanism.k}-ary randomized response")
    if isinstance(mechanism, RandomizedResponse):
        from ..errors import InvalidParameterError

        raise InvalidParameterError(argument="mechanism", value=mechanism,
                                    rule="has no theoretical curve here: k-ary randomized response (k > 2) has its "
                                         "exact curve for n = 1 only (check a claim with gdp_claim)")
    if isinstance(mechanism, LaplaceMechanism):
        mu = mechanism.sensitivity / mechanism.scale
        return TheoryCurve(_one_at_zero(_fast(laplace(mu))), None, f"Laplace trade-off, mu = {mu:.6g} (exact)")
    if isinstance(mechanism, SubsampledGaussianMechanism):
        from ..accounting import composition
        from ..mechanisms import dpsgd

        h = dpsgd_grid_step(mechanism.steps)
        comp = composition(dpsgd(mechanism.sigma, mechanism.p, mechanism.steps), grid_step=h)
        lower, upper = comp.tradeoff_curves("add")
        return TheoryCurve(lower, upper, f"proven bracket of the {mechanism.steps}-fold curve (numerical "
                                         f"composition, grid {h:.2g}; one neighbouring direction: the example "
                                         "absent, then present)")
    if isinstance(mechanism, DiscreteGaussianMechanism):
        from fractions import Fraction

        from ..accounting import composition
        from ..mechanisms import DiscreteGaussianMechanism as Described
        from ..mechanisms import Repeated

        h = dpsgd_grid_step(mechanism.steps)
        run = Repeated(Described(Fraction(mechanism.sigma), mechanism.sensitivity), mechanism.steps)
        comp = composition(run, grid_step=h)
        lower, upper = comp.tradeoff_curves("P||Q")
        return TheoryCurve(lower, upper, f"proven bracket of the {mechanism.steps}-fold discrete Gaussian curve "
                                         f"(numerical composition, grid {h:.2g})")
    from ..errors import InvalidParameterError

    raise InvalidParameterError(argument="mechanism", value=mechanism,
                                rule="has no theoretical curve here (check a claim with gdp_claim)")


def gdp_claim(mu: float) -> TheoryCurve:
    """The claim "f >= G_mu" as a curve to check a mechanism against (one-sided: the
    mechanism's statistic need not be its likelihood ratio).

    >>> gdp_claim(1.0).label
    'the claim: f >= G_mu, mu = 1 (one-sided check)'
    """
    from ..symbolic.tradeoff import gaussian

    return TheoryCurve(_fast(gaussian(mu)), None, f"the claim: f >= G_mu, mu = {mu:g} (one-sided check)")


def _one_at_zero(curve: Curve) -> Curve:
    """``curve`` with f(0) = 1 (the Laplace curve's, full support: no test of size 0 rejects): its
    float64 kernel takes 1 - e^mu alpha there, 1 - inf * 0 = NaN once e^mu overflows (mu > 709.78)."""

    def f(alpha: np.ndarray) -> np.ndarray:
        a = np.asarray(alpha, dtype=float)
        with np.errstate(invalid="ignore", over="ignore"):
            return np.where(a == 0, 1.0, curve(a))

    return f


def _fast(f: object) -> Curve:
    # TradeOff's numeric methods are registered by gdpproof.numeric, which the package imports
    return f.evaluate_fast  # type: ignore[attr-defined, no-any-return]


def sampler_of(described: Any) -> Mechanism:
    """The simulation's sampler of a mechanism value (:mod:`gdpproof.mechanisms`: a ``--mechanism``
    spec, as ``account`` takes it), so that ``simulate`` and ``account`` speak one vocabulary: each
    value makes its own (:meth:`gdpproof.mechanisms.Mechanism.sampler`).

    >>> from gdpproof.mechanisms import mechanism_from_spec
    >>> sampler_of(mechanism_from_spec("gaussian:sigma=2,times=4")).name
    'gaussian_mechanism(sensitivity=1, sigma=2, dim=1, steps=4)'
    """
    return described.sampler()  # type: ignore[no-any-return]
