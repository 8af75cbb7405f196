"""The quantities an accountant audit checks: one Protocol per claim, and what each one is.

:data:`QUANTITIES` maps a name (``"delta_from_epsilon"``, ``"dpsgd_epsilon"``, ...) to its
:class:`Quantity`: the peer's signature, the result, which error understates the privacy loss,
and whether the reference is a certified decimal or a proven bracket (the table in
:mod:`gdpproof.audit.accountants`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from ..errors import bad

__all__ = ["DeltaFromEpsilon", "EpsilonFromDelta", "MuFromEpsilonDelta", "SigmaFromEpsilonDelta", "BetaFromMu", "DPSGDEpsilon", "DPSGDMu", "DPSGDBeta", "QUANTITIES", "Quantity"]


class DeltaFromEpsilon(Protocol):
    """``delta = f(mu, epsilon)``: the delta of mu-GDP at epsilon."""

    def __call__(self, mu: float, epsilon: float, /) -> float: ...


class EpsilonFromDelta(Protocol):
    """``epsilon = f(mu, delta)``: the smallest epsilon of mu-GDP at delta."""

    def __call__(self, mu: float, delta: float, /) -> float: ...


class MuFromEpsilonDelta(Protocol):
    """``mu = f(epsilon, delta)``: the largest mu-GDP that is (epsilon, delta)-DP."""

    def __call__(self, epsilon: float, delta: float, /) -> float: ...


class SigmaFromEpsilonDelta(Protocol):
    """``sigma = f(epsilon, delta)``: the smallest Gaussian noise (sensitivity 1) for (epsilon, delta)-DP."""

    def __call__(self, epsilon: float, delta: float, /) -> float: ...


class BetaFromMu(Protocol):
    """``beta = f(mu, alpha)``: the trade-off value G_mu(alpha)."""

    def __call__(self, mu: float, alpha: float, /) -> float: ...


class DPSGDEpsilon(Protocol):
    """``epsilon = f(noise_multiplier, sample_rate, steps, delta)``: DP-SGD epsilon at delta."""

    def __call__(self, noise_multiplier: float, sample_rate: float, steps: int, delta: float, /) -> float: ...


class DPSGDMu(Protocol):
    """``mu = f(noise_multiplier, sample_rate, steps)``: a GDP mu of DP-SGD (numeric, or the CLT formula)."""

    def __call__(self, noise_multiplier: float, sample_rate: float, steps: int, /) -> float: ...


class DPSGDBeta(Protocol):
    """``beta = f(noise_multiplier, sample_rate, steps, alpha)``: DP-SGD's trade-off curve at alpha."""

    def __call__(self, noise_multiplier: float, sample_rate: float, steps: int, alpha: float, /) -> float: ...


@dataclass(frozen=True, slots=True)
class Quantity:
    """What a quantity is: its arguments, its result, and which error is unsafe.

    ``unsafe_when`` is ``"low"`` when a too small value understates the privacy loss (delta,
    epsilon, sigma, a mechanism's mu) and ``"high"`` when a too large one does (mu as a budget,
    a trade-off value beta).  ``reference`` is ``"certified"`` (a decimal proven to its last
    digit) or ``"bracket"`` (a proven interval).
    """

    name: str
    args: tuple[str, ...]
    result: str
    unsafe_when: str
    reference: str
    protocol: type
    note: str = ""


QUANTITIES: dict[str, Quantity] = {q.name: q for q in (
    Quantity("delta_from_epsilon", ("mu", "epsilon"), "delta", "low", "certified", DeltaFromEpsilon),
    Quantity("epsilon_from_delta", ("mu", "delta"), "epsilon", "low", "certified", EpsilonFromDelta),
    Quantity("mu_from_epsilon_delta", ("epsilon", "delta"), "mu", "high", "certified", MuFromEpsilonDelta,
             "mu is a budget: a larger mu than the exact one is not (epsilon, delta)-DP"),
    Quantity("sigma_from_epsilon_delta", ("epsilon", "delta"), "sigma", "low", "certified", SigmaFromEpsilonDelta,
             "sensitivity 1"),
    Quantity("beta_from_mu", ("mu", "alpha"), "beta", "high", "certified", BetaFromMu,
             "a trade-off value above G_mu(alpha) claims more privacy than mu-GDP gives"),
    Quantity("dpsgd_epsilon", ("noise_multiplier", "sample_rate", "steps", "delta"), "epsilon", "low", "bracket",
             DPSGDEpsilon, "Poisson sampling, add/remove neighbours, worse ordering; proven bracket"),
    Quantity("dpsgd_mu", ("noise_multiplier", "sample_rate", "steps"), "mu", "low", "bracket", DPSGDMu,
             "a claim that DP-SGD is mu-GDP; below the proven lower bound (the larger of the bracket's and "
             "mu_tail) is unsafe; above the bracket means conservative for delta >= delta_min"),
    Quantity("dpsgd_beta", ("noise_multiplier", "sample_rate", "steps", "alpha"), "beta", "high", "bracket",
             DPSGDBeta, "DP-SGD's symmetric trade-off curve; proven bracket"),
    Quantity("dpsgd_mu_clt", ("noise_multiplier", "sample_rate", "steps"), "mu", "low", "certified", DPSGDMu,
             "the CLT quantity p sqrt(T (e^(1/sigma^2) - 1)), an approximation, not a privacy guarantee"),
)}


def quantity_named(name: str) -> Quantity:
    if name not in QUANTITIES:
        raise bad("quantity", name, f"must be one of {', '.join(QUANTITIES)}")
    return QUANTITIES[name]
