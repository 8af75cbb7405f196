"""The theoretical trade-off curve a Monte Carlo simulation is checked against.

:mod:`gdpproof.simulation` is the independent oracle: numpy only, it cannot compute the curve its
samplers should trace.  Each sampler names its mechanism in the vocabulary of ``gdpproof account``
(``Sampler.spec``); this module, above both layers, reads that name into a
:mod:`gdpproof.mechanisms` value and gives the value's curve: its closed form where one exists,
else the proven bracket of its numerical composition (docs/guides/monte-carlo.md).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..simulation.samplers import Sampler
from ..text import show

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


def theory_of(mechanism: Any) -> TheoryCurve:
    r"""The trade-off curve of a simulated mechanism, exact or as a proven bracket.

    The mechanism is a sampler (:class:`gdpproof.simulation.Sampler`, read through its
    :meth:`~gdpproof.simulation.Sampler.spec`) or a :mod:`gdpproof.mechanisms` value.  Its curve is
    the value's closed form (:meth:`gdpproof.mechanisms.Mechanism.tradeoff`) where gdpproof knows
    one, else the proven bracket of its numerical composition on the grid of
    :func:`dpsgd_grid_step`; a sampler that runs one ordering of an asymmetric pair (the
    subsampled Gaussian: the example absent in P, present in Q) is checked against that
    ordering's bracket.

    Args:
        mechanism: A sampler with a spec, or a mechanism value.

    Returns:
        The :class:`TheoryCurve`.

    Raises:
        InvalidParameterError: The sampler names no mechanism (a user's sampler has no theory
            here: check a claim with :func:`gdp_claim`).
        NotSupportedError: The value has neither a closed form nor privacy losses to compose.

    Examples:
        >>> from gdpproof.simulation import GaussianSampler
        >>> t = theory_of(GaussianSampler(1.0, 2.0, steps=4))
        >>> t.exact, t.label
        (True, 'G_mu, mu = 1 (exact)')
        >>> float(t.lower(np.array([0.5]))[0]).__round__(6)
        0.158655
    """
    from ..mechanisms import Mechanism, mechanism_from_dict

    ordering = None
    if isinstance(mechanism, Sampler):
        spec = mechanism.spec()
        if spec is None:
            from ..errors import bad

            raise bad("mechanism", mechanism, "has no theoretical curve here (check a claim with gdp_claim)")
        ordering = mechanism.ordering
        value = mechanism_from_dict(spec, where=f"the sampler {mechanism.name}")
    elif isinstance(mechanism, Mechanism):
        value = mechanism
    else:
        from ..errors import bad

        raise bad("mechanism", mechanism, "must be a gdpproof.simulation.Sampler or a gdpproof.mechanisms value")
    if ordering is None:
        exact = _closed_form(value)
        if exact is not None:
            return exact
    from ..accounting import composition

    steps = sum(n for _, n in value.leaves())
    h = dpsgd_grid_step(steps)
    lower, upper = composition(value, grid_step=h).tradeoff_curves(ordering)
    one_way = "; one neighbouring direction: the example absent, then present" if ordering == "add" else ""
    return TheoryCurve(lower, upper, f"proven bracket of the {steps}-fold curve (numerical composition, grid "
                                     f"{h:.2g}{one_way})")


def _closed_form(value: Any) -> TheoryCurve | None:
    """The value's exact curve as float64 functions, or None when gdpproof has no closed form."""
    from ..errors import NotSupportedError

    try:
        f = value.tradeoff()
    except NotSupportedError:
        return None
    mu = value.gdp_mu()
    label = f"G_mu, mu = {show(mu)} (exact)" if mu is not None else f"{f!r} (exact)"  # mu as given, not rounded
    return TheoryCurve(_at_zero(f), None, label)


def gdp_claim(mu: float) -> TheoryCurve:
    """The claim "f >= G_mu" as a curve to check a mechanism against (one-sided: the
    mechanism's statistic need not be its likelihood ratio).

    >>> gdp_claim(1.0).label
    'the claim: f >= G_mu, mu = 1 (one-sided check)'
    """
    from ..symbolic.tradeoff import gaussian

    return TheoryCurve(_fast(gaussian(mu)), None, f"the claim: f >= G_mu, mu = {mu:g} (one-sided check)")


def _at_zero(f: Any) -> Curve:
    """``f``'s float64 kernel, with f(0) certified where the kernel gives NaN there (the Laplace
    curve's 1 - e^mu alpha is 1 - inf * 0 once e^mu overflows, mu > 709.78)."""
    kernel = _fast(f)
    at_zero: list[float] = []

    def curve(alpha: np.ndarray) -> np.ndarray:
        a = np.asarray(alpha, dtype=float)
        with np.errstate(invalid="ignore", over="ignore"):
            out = np.asarray(kernel(a), dtype=float)
        nan_at_zero = (a == 0) & np.isnan(out)
        if nan_at_zero.any():
            if not at_zero:
                at_zero.append(float(f.evaluate(0, digits=17, rounding="nearest")))
            out = np.where(nan_at_zero, at_zero[0], out)
        return out

    return curve


def _fast(f: object) -> Curve:
    # TradeOff's numeric methods are registered by gdpproof.numeric, which the package imports
    return f.evaluate_fast  # type: ignore[attr-defined, no-any-return]


def sampler_of(described: Any) -> Sampler:
    """The simulation's sampler of a mechanism value (:mod:`gdpproof.mechanisms`: a ``--mechanism``
    spec, as ``account`` takes it), so that ``simulate`` and ``account`` speak one vocabulary: each
    value makes its own (:meth:`gdpproof.mechanisms.Mechanism.sampler`).

    >>> from gdpproof.mechanisms import mechanism_from_spec
    >>> sampler_of(mechanism_from_spec("gaussian:sigma=2,times=4")).name
    'gaussian_mechanism(sensitivity=1, sigma=2, dim=1, steps=4)'
    """
    return described.sampler()  # type: ignore[no-any-return]
