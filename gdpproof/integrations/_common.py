"""What the training-loop adapters share: the mechanism of a run, one cached call of
:func:`gdpproof.account`, and its proven upper end as a float rounded up.

Accountants are asked the same question again and again (Opacus asks for epsilon after every
epoch, its noise calibration re-asks at each bisection step, a checkpoint may ask twice), so the
answers are cached by (mechanism, given quantity, value, relative width): mechanism values are
frozen and hashable, and an answer depends on nothing else.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from decimal import Decimal
from fractions import Fraction
from typing import Any

from ..accounting import Account, account, check_rel_width
from ..errors import InvalidParameterError, NotSupportedError
from ..mechanisms import GDP, Composed, EpsDelta, GaussianMechanism, Mechanism, PoissonSampled, Repeated
from ..numeric.engine.bound import Bound, directed_double

__all__ = ["NOTHING", "REVEALS", "run_mechanism", "noise_parameter", "gaussian", "poisson_sampled", "float_up",
           "cached_account", "check_rel_width"]

#: What an accountant that has seen nothing describes: no mechanism ran, which is 0-GDP (epsilon
#: and delta are 0 by the exact route).
NOTHING = GDP(0)

#: A mechanism that reveals the data (no noise): trade-off f_{0,1} = 0, epsilon infinite.
REVEALS = EpsDelta(0, 1)


def run_mechanism(parts: Sequence[tuple[Mechanism, int]]) -> Mechanism:
    """The composition of ``(mechanism, times)`` parts in order, consecutive equal mechanisms
    merged (:data:`NOTHING` when there are none): one value per run, whatever the bookkeeping."""
    merged: list[tuple[Mechanism, int]] = []
    for m, n in parts:
        if n > 0 and merged and merged[-1][0] == m:
            merged[-1] = (m, merged[-1][1] + n)
        elif n > 0:
            merged.append((m, n))
    ms = [m if n == 1 else Repeated(m, n) for m, n in merged]
    if not ms:
        return NOTHING
    return ms[0] if len(ms) == 1 else Composed(*ms)


def noise_parameter(value: Any, name: str) -> float:
    """A noise multiplier as a library passes it: a number >= 0 (0: no noise; inf: no output)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or math.isnan(value) or value < 0:
        raise InvalidParameterError(argument=name, value=value, rule="must be a number >= 0")
    return value


def gaussian(noise_multiplier: float, sensitivity: int = 1) -> Mechanism | None:
    """The Gaussian mechanism of a (validated) noise multiplier: :data:`REVEALS` at 0, None (no
    privacy loss) at infinity."""
    if noise_multiplier == 0:
        return REVEALS
    if math.isinf(noise_multiplier):
        return None
    return GaussianMechanism(sigma=noise_multiplier, sensitivity=sensitivity)


def poisson_sampled(inner: Mechanism | None, sample_rate: Any, name: str) -> Mechanism | None:
    """``inner`` run on a Poisson subsample of rate ``sample_rate`` (add/remove neighbours).

    None when nothing with privacy loss runs; f_{0,q} = ``EpsDelta(0, q)`` when the inner
    mechanism reveals the data (with probability q the record is in the batch and revealed, else
    the output does not depend on it: the worse ordering of C_q(f_{0,1}), DRS Thm 4.2); the
    subsampled Gaussian mechanism of the inner mechanism's exact GDP mu when it has one (the
    Gaussian mechanisms of one batch compose to G_sqrt(sum mu_i^2), DRS Cor. 3.3).  None of
    these: NotSupportedError."""
    q = sample_rate
    if isinstance(q, bool) or not isinstance(q, (int, float)) or not 0 <= q <= 1:
        raise InvalidParameterError(argument=name, value=q, rule="must be a number in [0, 1]")
    if inner is None or q == 0:
        return None
    if any(leaf == REVEALS for leaf, _ in inner.leaves()):
        return EpsDelta(0, q)
    mu = inner.gdp_mu()
    if mu is None:
        raise NotSupportedError("gdpproof accounts Poisson sampling of Gaussian mechanisms only")
    if q == 1:
        return inner
    return PoissonSampled(inner if isinstance(inner, GaussianMechanism) else GDP(mu), q)


def float_up(value: Any) -> float:
    """The smallest double at least ``value`` (a :class:`~gdpproof.Certified` decimal or an exact
    number): what a float-valued accountant reports for a privacy loss, rounded up."""
    if isinstance(value, Decimal) and not value.is_finite():
        return math.inf
    return directed_double(Fraction(value), up=True)


def proven_upper(a: Account) -> float:
    """The account's computed quantity's upper end as a double, rounded up: a bracket's own
    double upper end (rounded up when it was computed), or a certified decimal rounded up."""
    v = a.result
    if isinstance(v, Bound):
        return v.upper
    return float_up(a.eps_upper if a.given == "delta" else a.delta_upper)



@functools.lru_cache(maxsize=16)
def cached_account(mechanism: Mechanism, given: str, value: Any, rel_width: float) -> Account:
    """:func:`gdpproof.account` of ``mechanism`` with ``given`` ("delta" or "epsilon") = ``value``."""
    return account(mechanism, **{given: value}, rel_width=rel_width)
