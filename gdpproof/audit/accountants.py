r"""Audit of privacy accountants: a third-party function against gdpproof's certified values.

An accountant is a function computing one of :data:`QUANTITIES` (delta from epsilon, sigma from
(epsilon, delta), DP-SGD's epsilon, ...).  The audit evaluates it on grids where implementations
fail and on seeded random inputs in the same domains, compares each value with gdpproof's certified value
or proven bracket **in exact arithmetic**, and classifies it as ``agrees``, ``unsafe`` (it
understates the privacy loss), ``conservative`` or ``error``.  This module holds
:func:`audit_accountant`, the audit of a whole peer library, and re-exports the audit's public
names, which live in one module per job: :mod:`~gdpproof.audit.quantities` (the claims),
:mod:`~gdpproof.audit.peers`, :mod:`~gdpproof.audit.findings`, :mod:`~gdpproof.audit.compare`
(references and classification), :mod:`~gdpproof.audit.inputs`, :mod:`~gdpproof.audit.functions`
and :mod:`~gdpproof.audit.curves`.  The quantities, the unsafe side of each, and the
classification: ``docs/guides/auditing.md``.
"""

from __future__ import annotations

from collections.abc import Sequence

from .compare import DIGITS  # noqa: F401 - DIGITS, KINDS and TINY were defined here; still importable
from .curves import audit_curve
from .findings import KINDS, AuditReport, Finding, merge  # noqa: F401
from .functions import audit_peer_functions, audit_function
from .inputs import TINY, check_common, grid  # noqa: F401
from .peers import PEERS, PeerCurve, PeerFunction, PeerNotInstalledError, adapter
from .quantities import (
    QUANTITIES,
    BetaFromMu,
    DeltaFromEpsilon,
    DPSGDBeta,
    DPSGDEpsilon,
    DPSGDMu,
    EpsilonFromDelta,
    MuFromEpsilonDelta,
    Quantity,
    SigmaFromEpsilonDelta,
)

__all__ = [
    "DeltaFromEpsilon",
    "EpsilonFromDelta",
    "MuFromEpsilonDelta",
    "SigmaFromEpsilonDelta",
    "BetaFromMu",
    "DPSGDEpsilon",
    "DPSGDMu",
    "DPSGDBeta",
    "QUANTITIES",
    "Quantity",
    "PeerFunction",
    "PeerCurve",
    "PeerNotInstalledError",
    "Finding",
    "AuditReport",
    "PEERS",
    "grid",
    "audit_function",
    "audit_curve",
    "audit_accountant",
]


def audit_accountant(peer: str | Sequence[PeerFunction], *, quick: bool = False, rtol: float = 0.0, seed: int = 0,
                     examples: int | None = None, progress: bool = False) -> AuditReport:
    """Audit every function a peer library offers (or a list of :class:`PeerFunction`).

    ``peer`` is a name of :data:`PEERS` (its adapter is imported; :class:`PeerNotInstalledError`
    when the library is missing) or a sequence of adapted functions.  Full grids take minutes
    at most (progress on stderr with ``progress=True``); ``quick=True`` takes seconds.

    Args:
        peer: A name of :data:`PEERS`, or a sequence of :class:`PeerFunction`.
        quick: The small grids (seconds) instead of the full ones (minutes).
        rtol: Relative size below which a discrepancy is marked within tolerance.
        seed: Seed of the randomly drawn inputs.
        examples: How many inputs are drawn per function (None: the default; 0: none).
        progress: Whether to show progress on stderr.

    Returns:
        The :class:`AuditReport`.

    Raises:
        PeerNotInstalledError: The named library is not installed.
        InvalidParameterError: The peer is not known.

    Examples:
        >>> from gdpproof.audit import audit_accountant, PeerFunction
        >>> import math
        >>> mine = PeerFunction("mine", "sigma_from_epsilon_delta", lambda e, d: math.sqrt(2 * math.log(1.25 / d)) / e)
        >>> r = audit_accountant([mine], quick=True, examples=0)   # the textbook bound fails at large eps
        >>> r.ok, len(r.of_kind("unsafe")), r.worst("unsafe").call()
        (False, 4, 'mine(epsilon=300.0, delta=1e-05)')
    """
    rtol, seed, examples = check_common(rtol, seed, examples)
    if isinstance(peer, str):
        mod = adapter(peer)
        functions = mod.functions()
        curves = mod.curves() if hasattr(mod, "curves") else []
        name, version, notes = peer, mod.version(), tuple(getattr(mod, "NOTES", ()))
    else:
        functions, curves, name, version, notes = list(peer), [], "functions", "", ()
    rep = audit_peer_functions(name, functions, quick=quick, rtol=rtol, seed=seed, examples=examples,
                                properties=True, progress=progress)
    parts = [rep] + [audit_curve(c, quick=quick, rtol=rtol) for c in curves]
    return merge(name, parts, rtol, notes, version)
