"""gdpproof: Gaussian differential privacy, stated once in sympy, evaluated with proven digits.

The public API.  Trade-off functions are :class:`TradeOff` values built by the family functions;
every number they print is a :class:`Certified` decimal, rounded in the safe direction.

>>> import gdpproof
>>> gdpproof.gaussian(1).delta(1, digits=40)
Certified('0.1269367375066439458008296247577668804151', digits=40, rounding='up')
"""

from __future__ import annotations

from . import symbols
from .audit import MechanismAudit, audit_mechanism
from .errors import (
    ConvergenceError,
    GdpproofError,
    InvalidParameterError,
    NotSupportedError,
    PrecisionError,
    SymbolicError,
)
from .numeric.certify import Certified
from .numeric.clt import (
    BerryEsseenBand,
    DPSGDAccount,
    Functionals,
    bar_kappa3,
    berry_esseen,
    dpsgd_mu,
    functionals,
    kappa2,
    kappa3,
    kl,
)
from .numeric.duality import mu_from_points, tradeoff_from_delta
from .numeric.pld import (
    Bound,
    ComposedLoss,
    DPSGDBracket,
    GaussianLoss,
    HonestMu,
    LaplaceLoss,
    PrivacyLoss,
    RandomizedResponseLoss,
    SubsampledGaussianLoss,
    compose_losses,
    dpsgd_epsilon,
    epsilon_bracket,
)
from .numeric.solve import (
    beta_from_mu,
    delta_from_epsilon,
    epsilon_from_delta,
    epsilon_from_log_delta,
    log_delta_from_epsilon,
    mu_from_epsilon_delta,
    mu_from_error_rates,
    mu_from_pure_epsilon,
    mu_from_sigma,
    sigma_from_epsilon_delta,
    sigma_from_error_rates,
)
from .numeric.validity import ValidityReport, Verdict, check_tradeoff
from .reference import Table, TableVerification, make_table, read_table, verify_table
from .symbolic.composition import compose, rr_composition, self_compose, subsample, with_delta
from .symbolic.tradeoff import (
    TradeOff,
    eps_delta,
    gaussian,
    identity,
    laplace,
    location_family,
    randomized_response,
)

from ._version import __version__


def tightest_mu(f: TradeOff, *, digits: int = 30) -> Certified:
    """The smallest mu >= 0 such that f >= G_mu everywhere: f's tightest GDP guarantee.

    Rounded up, so the mechanism is mu-GDP with the returned mu.  Closed forms for G_mu, for
    f_{eps,0} and randomized response (mu = -2 Phi^{-1}(1/(1+e^eps))), and infinity when
    f(0) < 1 (for example (eps, delta)-DP with delta > 0).  Other functions: certified branch
    and bound of sup_alpha [Phi^{-1}(1 - alpha) - Phi^{-1}(f(alpha))] over
    alpha in [Phi(-10), Phi(10)]: the two tails within 7.6e-24 of 0 and 1 are not searched,
    so for such functions the result is certified for that range only.  Functions nearly
    equal to a Gaussian curve raise PrecisionError (the pointwise mu is too flat to settle).

    Examples
    --------
    >>> import gdpproof
    >>> gdpproof.tightest_mu(gdpproof.randomized_response(1), digits=15)
    Certified('1.23203538534491', digits=15, rounding='up')
    >>> gdpproof.tightest_mu(gdpproof.laplace(1), digits=15)
    Certified('1.03006399762444', digits=15, rounding='up')
    >>> gdpproof.tightest_mu(gdpproof.eps_delta(1, "1e-5"), digits=5)
    Certified('Infinity', digits=5, rounding='up')
    """
    return f.tightest_mu(digits=digits)


__all__ = [
    "MechanismAudit",
    "audit_mechanism",
    "BerryEsseenBand",
    "Bound",
    "ComposedLoss",
    "DPSGDBracket",
    "GaussianLoss",
    "HonestMu",
    "LaplaceLoss",
    "PrivacyLoss",
    "RandomizedResponseLoss",
    "SubsampledGaussianLoss",
    "compose_losses",
    "dpsgd_epsilon",
    "epsilon_bracket",
    "Certified",
    "DPSGDAccount",
    "Functionals",
    "NotSupportedError",
    "ConvergenceError",
    "GdpproofError",
    "InvalidParameterError",
    "PrecisionError",
    "SymbolicError",
    "TradeOff",
    "ValidityReport",
    "Verdict",
    "__version__",
    "beta_from_mu",
    "delta_from_epsilon",
    "epsilon_from_delta",
    "epsilon_from_log_delta",
    "log_delta_from_epsilon",
    "mu_from_epsilon_delta",
    "mu_from_error_rates",
    "mu_from_pure_epsilon",
    "mu_from_sigma",
    "sigma_from_epsilon_delta",
    "sigma_from_error_rates",
    "bar_kappa3",
    "berry_esseen",
    "check_tradeoff",
    "compose",
    "dpsgd_mu",
    "functionals",
    "kappa2",
    "kappa3",
    "kl",
    "rr_composition",
    "self_compose",
    "subsample",
    "with_delta",
    "eps_delta",
    "gaussian",
    "identity",
    "laplace",
    "location_family",
    "mu_from_points",
    "randomized_response",
    "symbols",
    "tightest_mu",
    "tradeoff_from_delta",
    "Table",
    "TableVerification",
    "make_table",
    "read_table",
    "verify_table",
]
