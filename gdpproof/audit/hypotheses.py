r"""Hypothesized trade-off curves for the score audits, read on the side where a rejection stays valid.

A score audit refutes "M is f-DP" from a certified **lower** bound f_L <= f (M f-DP implies M
f_L-DP, so rejecting f_L rejects f).  Each :class:`Curve` gives ``lower(a)`` = f(a) for the
threshold tests and ``g_low(x)`` = f(1 - x) for the one-run f-DP recursion, as exact rationals
that are proven lower bounds, and float estimates of both for searching.
:class:`TradeOffCurve` evaluates a closed-form symmetric curve in balls, rounded down;
:class:`BracketCurve` uses the proven lower curve of the numerical composition behind
:func:`gdpproof.account`; :func:`curve_of` picks one for any mechanism value.

Why these are the valid sides, and the blow-up's inverse: ``docs/proofs/hypotheses.md``.
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from decimal import Decimal
from fractions import Fraction
from typing import Any

import numpy as np

from ..errors import NotSupportedError, bad

__all__ = ["Curve", "TradeOffCurve", "BracketCurve", "gaussian_curve", "curve_of", "gaussian_g_float"]

#: Significant digits of a certified curve value (rounded down): far below any count's resolution.
CURVE_DIGITS = 20


class Curve(ABC):
    """A symmetric trade-off curve f, through certified lower bounds (``docs/proofs/hypotheses.md``)."""

    #: What the curve is, in words (printed beside every verdict that used it).
    label: str = "a trade-off curve"
    #: How its values are certified.
    method: str = ""

    @abstractmethod
    def lower(self, a: Fraction) -> Fraction:
        """A proven lower bound on f(a), a in [0, 1], as an exact rational."""

    @abstractmethod
    def lower_float(self, a: np.ndarray) -> np.ndarray:
        """An estimate of f on an array (for searching and plotting only)."""

    def g_low(self, x: Fraction) -> Fraction:
        """A proven lower bound on f(1 - x), x in [0, 1]."""
        return self.lower(1 - x)

    def g_float(self, x: float) -> float:
        """An estimate of f(1 - x)."""
        return float(self.lower_float(np.array([1.0 - x]))[0])


class TradeOffCurve(Curve):
    """A closed-form symmetric :class:`~gdpproof.TradeOff`, evaluated in ball arithmetic."""

    method = "closed form, certified in ball arithmetic (rounded down)"

    def __init__(self, f: Any, label: str | None = None) -> None:
        if getattr(f, "symmetric", None) is not True:
            raise NotSupportedError(f"{f!r} is not known to be symmetric: the one-run f-DP test needs a symmetric "
                                    "trade-off function (pass f.symmetrized())")
        from ..numeric.engine.fast import numpy_function
        from ..symbolic.symbols import alpha

        self.f = f
        self.label = label or repr(f)
        syms, vals = f._numeric_params()
        self._kernel = numpy_function(f.template, (alpha, *syms))
        self._params = [float(v) for v in vals]

    def lower(self, a: Fraction) -> Fraction:
        return self.f.evaluate(a, digits=CURVE_DIGITS, rounding="down").to_fraction()

    def lower_float(self, a: np.ndarray) -> np.ndarray:
        with np.errstate(all="ignore"):
            out = np.broadcast_to(np.asarray(self._kernel(np.asarray(a, dtype=float), *self._params), dtype=float),
                                  np.shape(a))
        return np.clip(out, 0.0, 1.0)


def gaussian_g_float() -> Any:
    """A float kernel ``k(alpha, mu)`` of G_mu(alpha), generated from the shipped expression (for
    searches over mu without building a TradeOff per candidate)."""
    from ..numeric.engine.fast import numpy_function
    from ..symbolic.symbols import alpha, mu
    from ..symbolic.tradeoff import gaussian

    return numpy_function(gaussian(mu).template, (alpha, mu))


def gaussian_curve(mu: Any) -> TradeOffCurve:
    """G_mu as a :class:`Curve` (mu >= 0, exact)."""
    from ..mechanisms import show_number
    from ..symbolic.tradeoff import gaussian

    f = gaussian(mu)
    return TradeOffCurve(f, f"G_mu with mu = {show_number(f.params[0][1])}")


class BracketCurve(Curve):
    """The proven lower curve of a numerical composition (:class:`~gdpproof.ComposedLoss`)."""

    method = "proven lower curve of the numerical composition's bracket (delta's upper ends)"

    def __init__(self, composition: Any, label: str) -> None:
        self.composition = composition
        self.label = label
        self._lower, _ = composition.tradeoff_curves()

    def lower(self, a: Fraction) -> Fraction:
        # f is non-increasing: its lower curve at a double a' >= a bounds f(a) from below too
        x = float(a)
        if Fraction(x) < a:
            x = math.nextafter(x, math.inf)
        return Fraction(float(self._lower(min(x, 1.0))[0]))

    def lower_float(self, a: np.ndarray) -> np.ndarray:
        return np.asarray(self._lower(np.clip(np.asarray(a, dtype=float), 0.0, 1.0)), dtype=float)


def curve_of(claim: Any, *, delta: Any = "1e-6") -> Curve:
    """The :class:`Curve` of a claim: a number (mu of mu-GDP), a symmetric TradeOff, or any
    :mod:`gdpproof.mechanisms` value.

    Mechanisms that are exactly Gaussian (``gdp_mu()``: Gaussian mechanisms, GDP, their
    compositions) give G_mu in closed form.  Others go through :func:`gdpproof.account` on the
    bracket route (``delta`` sets the grid it refines for) and give its proven lower curve;
    mechanisms the bracket does not cover fall back to their closed-form trade-off where it is
    known to be symmetric ((eps, delta)-DP, pure DP).  Raises NotSupportedError otherwise.
    """
    from sympy import sqrt as sympy_sqrt

    from ..mechanisms import Mechanism, show_number
    from ..symbolic.tradeoff import TradeOff

    if isinstance(claim, Curve):
        return claim
    if isinstance(claim, TradeOff):
        return TradeOffCurve(claim)
    if not isinstance(claim, Mechanism):
        if isinstance(claim, (str, int, float, Fraction, Decimal)) and not isinstance(claim, bool):
            return gaussian_curve(claim)
        raise bad("claim", claim, "must be a gdpproof mechanism value, a symmetric TradeOff or a number (mu)")
    mu = claim.gdp_mu()
    params = claim.dpsgd_parameters()
    if mu is None and params is not None and params[1] == 1:
        # a batch of every record (rate 1) is the Gaussian mechanism itself, T times: exactly G_mu
        mu = sympy_sqrt(params[2]) / params[0]
    if mu is not None:
        from ..symbolic.tradeoff import gaussian

        return TradeOffCurve(gaussian(mu), f"{claim!r}: exactly G_mu with mu = {show_number(mu)}")
    from ..accounting import account

    try:
        acc = account(claim, delta=delta, route="bracket")
    except NotSupportedError:
        f = claim.tradeoff()
        return TradeOffCurve(f, f"{claim!r}: {f!r}")
    if acc.composition is None:  # pragma: no cover - the bracket route always composes
        raise NotSupportedError(f"{claim!r}: the bracket route gave no composition")
    return BracketCurve(acc.composition, f"{claim!r}: the lower curve of its proven bracket")
