"""What the uses of accounting ask besides :func:`~gdpproof.accounting.routes.account`: a
mechanism's composition on a given grid (:func:`composition`: its trade-off curves and honest mu,
for audits and the report), and cheap estimates of epsilon for a search (:class:`EpsilonEstimator`,
for calibration: midpoints of coarse proven brackets, not bounds).
"""

from __future__ import annotations

import math
from typing import Any

from ..errors import PrecisionError
from ..mechanisms import Mechanism
from .compose import compose_losses
from .composed import ComposedLoss, check_delta_exact, check_refinement
from .aim import float_eta
from .search import epsilon_search
from .translate import privacy_losses

__all__ = ["EpsilonEstimator", "check_rel_width", "composition"]


def composition(mechanism: Mechanism, *, grid_step: float = 1e-4) -> ComposedLoss:
    """The composition of a mechanism's privacy losses on the float lattice of step ``grid_step``
    (the coupling): its proven delta(eps) and eps(delta) at any point, trade-off curves and honest
    mu.  Parameters that are not doubles are rounded to the less private side.

    16-fold G_0.5 is G_2, whose delta(1) is 0.50986166005...:

    Args:
        mechanism: The mechanism value (its privacy losses must be finite: no (eps, delta) leaf with
            delta > 0).
        grid_step: The lattice step h; the bracket's width is about proportional to it.

    Returns:
        The :class:`ComposedLoss`.

    Raises:
        NotSupportedError: Some leaf has no privacy-loss law the lattice takes.

    Examples:
        >>> from gdpproof.mechanisms import GDP, Repeated
        >>> b = composition(Repeated(GDP("0.5"), 16), grid_step=2e-4).delta(1.0)
        >>> b.lower < 0.5098616600547 < b.upper
        True
    """
    parts = privacy_losses(mechanism)[0]
    return compose_losses(parts, grid_step=grid_step)


def check_rel_width(rel_width: Any) -> float:
    """A relative bracket width as the bracket search accepts it (1e-4 to 10), else
    InvalidParameterError naming ``rel_width``.

    Args:
        rel_width: The width asked (a number or a decimal string).

    Returns:
        It as a float.

    Raises:
        InvalidParameterError: It is not in [1e-4, 10].

    Examples:
        >>> check_rel_width("0.05")
        0.05
    """
    return check_refinement(rel_width, 5)


class EpsilonEstimator:
    """eps(delta) of mechanisms, estimated as the midpoint of a coarse proven bracket (relative
    width ``rel_width``), the grid chosen on the first call and reused after, scaled with the
    number of steps (a warm start).  An estimate that steers a search, not a bound.

    ``count`` is the number of compositions so far.

    Args:
        delta: The delta the estimates are at, in (0, 1).
        rel_width: The relative width of the coarse brackets.

    Examples:
        >>> from gdpproof.mechanisms import GDP
        >>> estimate = EpsilonEstimator(1e-5, 0.1)
        >>> 4.3 < estimate(GDP(1)) < 4.5, estimate.count
        (True, 1)
    """

    def __init__(self, delta: float, rel_width: float) -> None:
        self.delta, self.rel_width = delta, rel_width
        # validated once here, not at each of the many compositions a search runs
        self._dq, self._w = check_delta_exact(delta), check_refinement(rel_width, 5)
        self.count = 0
        self._h: float | None = None
        self._steps = 0
        self._eta = float_eta(delta, rel_width)  # the one the first bracket uses

    def __call__(self, mechanism: Mechanism) -> float:
        parts = privacy_losses(mechanism)[0]
        self.count += 1
        steps = sum(c for _, c in parts)
        b = None
        if self._h is not None:
            h = self._h * math.sqrt(self._steps / steps)  # the width grows like h sqrt(T)
            try:
                b = compose_losses(parts, grid_step=min(h, 1e-2), eta=self._eta).epsilon(self.delta)
            except PrecisionError:
                b = None
        if b is None:
            b, comp = epsilon_search(parts, self._dq, self._w, given=self.delta)
            self._h, self._steps = comp.h, steps
        return 0.5 * (b.lower + b.upper)
