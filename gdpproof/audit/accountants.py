r"""Audit of privacy accountants: a third-party function against gdpproof's certified values.

An accountant is a function computing one of the quantities below.  The audit evaluates it on
grids concentrated where implementations fail (delta down to 1e-300, epsilon in the hundreds,
mu from 1e-4 to 50, small noise, many steps) and on hypothesis-drawn inputs (seeded), compares
each value with gdpproof's reference **in exact arithmetic** and classifies the difference.

This module holds :func:`audit_accountant`, the audit of a whole peer library, and re-exports
every public name of the audit, which lives in one module per job:

* :mod:`~gdpproof.audit.quantities` -- the claims (one Protocol each) and :data:`QUANTITIES`;
* :mod:`~gdpproof.audit.peers` -- :class:`PeerFunction`, :class:`PeerCurve`, :data:`PEERS`;
* :mod:`~gdpproof.audit.findings` -- :class:`Finding` and :class:`AuditReport`;
* :mod:`~gdpproof.audit.compare` -- the certified references and the classification;
* :mod:`~gdpproof.audit.inputs` -- the grids (:func:`grid`) and the drawn inputs;
* :mod:`~gdpproof.audit.functions` -- :func:`audit_function` and the property checks;
* :mod:`~gdpproof.audit.curves` -- :func:`audit_curve`.

Direction (which error understates the privacy loss):

=========================  =================================  ==============  ==================
quantity                   peer signature                     reference       unsafe when
=========================  =================================  ==============  ==================
delta_from_epsilon         ``(mu, epsilon) -> delta``         certified, up   delta too small
epsilon_from_delta         ``(mu, delta) -> epsilon``         certified, up   epsilon too small
mu_from_epsilon_delta      ``(epsilon, delta) -> mu``         certified, down mu too LARGE (a
                                                                              budget to stay in)
sigma_from_epsilon_delta   ``(epsilon, delta) -> sigma``      certified, up   sigma too small
beta_from_mu               ``(mu, alpha) -> beta``            certified, down beta too LARGE
dpsgd_epsilon              ``(sigma, p, steps, delta) -> eps`` proven bracket  eps below it
dpsgd_mu                   ``(sigma, p, steps) -> mu``        proven bracket  mu below it
dpsgd_beta                 ``(sigma, p, steps, alpha) -> b``  proven bracket  beta above it
dpsgd_mu_clt               ``(sigma, p, steps) -> mu``        certified, up   below the formula
=========================  =================================  ==============  ==================

Sensitivity (clipping norm) is 1 everywhere: the Gaussian mechanism with noise sigma is
(1/sigma)-GDP.  DP-SGD is Poisson sampling with rate p, add/remove neighbours, the worse of the
two orderings.  ``dpsgd_mu_clt`` is the CLT formula p sqrt(T (e^{1/sigma^2} - 1)) of Bu et al.
(2020): **an approximation, not a privacy guarantee** (it understates the true loss for
realistic parameters); the audit only checks that a peer computes that formula correctly.
``dpsgd_mu`` is a claim that DP-SGD is mu-GDP, compared with the proven bracket of
:meth:`gdpproof.ComposedLoss.honest_mu` (which holds for every delta >= its ``delta_min``).

Classification of a peer value v against the exact answer x:

``agrees``
    v is x rounded to a neighbouring float64 (|v - x| below one unit in the last place of v),
    or v lies inside the proven bracket;
``unsafe``
    v is on the side that understates the privacy loss (table above);
``conservative``
    v overstates it;
``error``
    an exception, NaN, an infinity where the answer is finite, a negative value or a
    probability above 1, or a violated property (monotonicity, a curve that is not a
    trade-off function, a curve inconsistent with its own library's delta).

Differences are classified strictly and reported with their relative size; ``rtol`` marks
those with ``|relative error| <= rtol`` as within tolerance.  The reference is certified to
30 digits and more digits are requested whenever they are needed to decide the comparison, so
every classification is proven.  Only the pytest helper (:func:`gdpproof.strategies.assert_accountant`)
and the command line turn a report into a failure.
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
        seed: Seed of the hypothesis-drawn inputs.
        examples: How many inputs hypothesis draws per function (None: the default; 0: none).
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
