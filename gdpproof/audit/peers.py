"""The peer libraries under audit: their functions and curves adapted to a quantity, and how
they are called.

An adapter (``gdpproof.audit.adapters.<module>``, one per name of :data:`PEERS`) returns
:class:`PeerFunction` and :class:`PeerCurve` values; :func:`call` calls one so that any
exception of the peer becomes a finding, never a crash of the audit.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..errors import GdpproofError, bad

__all__ = ["PeerNotInstalledError", "PeerFunction", "PeerCurve", "PEERS"]


class PeerNotInstalledError(GdpproofError, ImportError):
    """The library an adapter wraps is not installed (the message names the extra that installs it).

    Examples:
        >>> from gdpproof.audit import PeerNotInstalledError
        >>> issubclass(PeerNotInstalledError, ImportError)
        True
    """


@dataclass(frozen=True)
class PeerFunction:
    """One function of a peer library, adapted to a quantity's signature.

    ``exact_inputs``, when given, maps the audit's inputs to the exact parameters the library
    actually received after the adapter converted conventions (for example sigma = 1/mu in
    float64): the reference is computed there, so the adapter's own rounding is never charged to
    the library.

    Args:
        label: The function's name in the report.
        quantity: The quantity it computes, a key of :data:`~gdpproof.audit.QUANTITIES`.
        fn: The adapted function, called as the quantity's signature says.
        note: A note printed with the report.
        exact_inputs: Maps the audit's inputs to the parameters the library actually received, or
            None.

    Examples:
        >>> import math
        >>> from gdpproof.audit import PeerFunction
        >>> mine = PeerFunction("mine", "sigma_from_epsilon_delta", lambda e, d: math.sqrt(2 * math.log(1.25 / d)) / e)
        >>> mine.label, mine.quantity
        ('mine', 'sigma_from_epsilon_delta')
    """

    label: str
    quantity: str
    fn: Callable[..., Any]
    note: str = ""
    exact_inputs: Callable[[tuple[Any, ...]], tuple[Any, ...]] | None = None


@dataclass(frozen=True)
class PeerCurve:
    """A peer's DP-SGD trade-off curve and its own delta(epsilon), to audit together.

    ``beta(noise_multiplier, sample_rate, steps, alphas)`` returns an array of beta;
    ``delta(noise_multiplier, sample_rate, steps, epsilon)`` the delta the same library reports.

    Args:
        label: The curve's name in the report.
        beta: ``beta(noise_multiplier, sample_rate, steps, alphas)``: an array of beta.
        delta: ``delta(noise_multiplier, sample_rate, steps, epsilon)``: the delta the library
            reports.
        note: A note printed with the report.

    Examples:
        >>> import gdpproof
        >>> from gdpproof.audit import PeerCurve
        >>> mine = PeerCurve("mine", lambda s, q, t, a: gdpproof.gaussian(1).evaluate_fast(a), lambda s, q, t, e: 0.1)
        >>> mine.label
        'mine'
    """

    label: str
    beta: Callable[..., Any]
    delta: Callable[..., float]
    note: str = ""


#: Peer name -> adapter module (``gdpproof.audit.adapters.<module>``).
PEERS: dict[str, str] = {
    "dp_accounting": "dp_accounting",
    "prv_accountant": "prv_accountant",
    "autodp": "autodp",
    "riskcal": "riskcal",
    "gdpnum": "gdpnum",
    "opendp": "opendp",
    "opacus": "opacus",
    "tensorflow_privacy": "tensorflow_privacy",
}


def adapter(name: str) -> Any:
    if name not in PEERS:
        raise bad("peer", name, f"is not a known peer (known: {', '.join(sorted(PEERS))})")
    return importlib.import_module(f"gdpproof.audit.adapters.{PEERS[name]}")


def call(fn: Callable[..., Any], args: tuple[Any, ...]) -> tuple[Any, str]:
    import warnings

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return fn(*args), ""
    except Exception as exc:  # noqa: BLE001 - any exception of the peer is a finding, not a crash
        text = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
        return None, f"raised {type(exc).__name__}" + (f": {text[:160]}" if text else "")
