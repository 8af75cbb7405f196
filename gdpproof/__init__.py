"""gdpproof: Gaussian differential privacy, stated once in sympy, evaluated with proven digits.

The public API.  Trade-off functions are :class:`TradeOff` values built by the family functions;
every number they print is a :class:`Certified` decimal, rounded in the safe direction.

>>> import gdpproof
>>> gdpproof.gaussian(1).delta(1, digits=40)
Certified('0.1269367375066439458008296247577668804151', digits=40, rounding='up')

Importing the package is cheap: the public names are loaded on first use (PEP 562), from the
module :data:`_LAZY` names for them, so ``gdpproof --version`` and ``--help`` need neither sympy
nor scipy.  To add a public name, add it to ``__all__``, to its module's entry in ``_LAZY`` and
to the ``TYPE_CHECKING`` imports (which tell type checkers what the names are).
"""

from __future__ import annotations

import sys as _sys

from .errors import (
    ConvergenceError,
    GdpproofError,
    InvalidParameterError,
    NotSupportedError,
    PrecisionError,
    SymbolicError,
)

from ._version import __version__
from . import numeric as _numeric  # noqa: F401  registers the engines TradeOff's methods call (no sympy)

#: module (relative to this package) -> the public names it provides, imported on first use.
_LAZY: dict[str, tuple[str, ...]] = {
    "accounting": (
        "account", "account_steps", "Account", "CLTApproximation", "ComposedLoss", "HonestMu", "DPSGDAccount",
        "DPSGDBracket", "dpsgd_epsilon", "dpsgd_mu",
    ),
    "calibration": (
        "calibrate", "Calibration",
    ),
    "mechanisms": (
        "GaussianMechanism", "GDP", "LaplaceMechanism", "RandomizedResponse", "FiniteMechanism", "PureDP",
        "EpsDelta", "PoissonSampled", "Composed", "Repeated", "dpsgd", "dpsgd_schedule", "Schedule",
        "DiscreteGaussianMechanism", "DiscreteLaplaceMechanism",
    ),
    "audit": (
        "MechanismAudit", "audit_mechanism",
    ),
    "numeric.engine.certify": (
        "Certified",
    ),
    "numeric.tradeoff.clt": (
        "BerryEsseenBand", "Functionals", "bar_kappa3", "berry_esseen", "functionals", "kappa2", "kappa3", "kl",
    ),

    "numeric.tradeoff.duality": (
        "mu_from_points", "epsilon_from_points", "delta_from_points", "tradeoff_from_delta",
    ),
    "numeric.engine.bound": (
        "Bound",
    ),

    "accounting.losses": (
        "GaussianLoss", "LaplaceLoss", "PrivacyLoss", "RandomizedResponseLoss", "SubsampledGaussianLoss",
    ),
    "accounting.compose": (
        "compose_losses",
    ),
    "accounting.search": (
        "epsilon_bracket",
    ),
    "numeric.tradeoff.solve": (
        "beta_from_mu", "delta_from_epsilon", "epsilon_from_delta", "epsilon_from_log_delta",
        "log_delta_from_epsilon", "mu_from_epsilon_delta", "mu_from_error_rates",
        "mu_from_pure_epsilon", "mu_from_sigma", "sigma_from_epsilon_delta", "sigma_from_error_rates",
    ),
    "numeric.tradeoff.validity": (
        "ValidityReport", "Verdict", "check_tradeoff",
    ),
    "reference": (
        "Table", "TableVerification", "make_table", "read_table", "verify_table",
    ),
    "symbolic.composition": (
        "compose", "rr_composition", "self_compose", "subsample", "with_delta",
    ),
    "symbolic.tradeoff": (
        "TradeOff", "eps_delta", "gaussian", "identity", "laplace", "location_family",
        "randomized_response",
    ),
}

#: submodules that are public names themselves.
_SUBMODULES = ("symbols",)

_WHERE: dict[str, str] = {name: module for module, names in _LAZY.items() for name in names}

TYPE_CHECKING = False
if TYPE_CHECKING:  # real imports for type checkers; at run time, __getattr__ below (and no typing)
    from typing import Any

    from . import symbols
    from .accounting import (
        Account,
        CLTApproximation,
        ComposedLoss,
        DPSGDAccount,
        DPSGDBracket,
        HonestMu,
        account,
        account_steps,
        dpsgd_epsilon,
        dpsgd_mu,
    )
    from .audit import MechanismAudit, audit_mechanism
    from .calibration import Calibration, calibrate
    from .mechanisms import (
        GDP,
        Composed,
        DiscreteGaussianMechanism,
        DiscreteLaplaceMechanism,
        EpsDelta,
        FiniteMechanism,
        GaussianMechanism,
        LaplaceMechanism,
        PoissonSampled,
        PureDP,
        RandomizedResponse,
        Repeated,
        Schedule,
        dpsgd,
        dpsgd_schedule,
    )
    from .numeric.engine.certify import Certified
    from .numeric.tradeoff.clt import (
        BerryEsseenBand,
        Functionals,
        bar_kappa3,
        berry_esseen,
        functionals,
        kappa2,
        kappa3,
        kl,
    )
    from .numeric.tradeoff.duality import delta_from_points, epsilon_from_points, mu_from_points, tradeoff_from_delta
    from .numeric.engine.bound import Bound
    from .accounting.losses import GaussianLoss, LaplaceLoss, PrivacyLoss, RandomizedResponseLoss, SubsampledGaussianLoss
    from .accounting.compose import compose_losses
    from .accounting.search import epsilon_bracket
    from .numeric.tradeoff.solve import (
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
    from .numeric.tradeoff.validity import ValidityReport, Verdict, check_tradeoff
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


del TYPE_CHECKING


def _import(module: str) -> Any:
    __import__(f"{__name__}.{module}")
    return _sys.modules[f"{__name__}.{module}"]


def __getattr__(name: str) -> Any:
    """Import a public name on first use (PEP 562) and keep it in the module's namespace."""
    if name in _SUBMODULES:
        value = _import(name)
    elif name in _WHERE:
        module = _WHERE[name]
        value = getattr(_import(module), name)
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))




def tightest_mu(f: TradeOff, *, digits: int = 30) -> Certified:
    """The smallest mu >= 0 such that f >= G_mu everywhere: f's tightest GDP guarantee.

    Rounded up, so the mechanism is mu-GDP with the returned mu.  Closed forms for G_mu, for
    f_{eps,0} and randomized response (mu = -2 Phi^{-1}(1/(1+e^eps))), and infinity when
    f(0) < 1 (for example (eps, delta)-DP with delta > 0).  Other functions: certified branch
    and bound of sup_alpha [Phi^{-1}(1 - alpha) - Phi^{-1}(f(alpha))] over
    alpha in [Phi(-10), Phi(10)]: the two tails within 7.6e-24 of 0 and 1 are not searched,
    so for such functions the result is certified for that range only.  Functions nearly
    equal to a Gaussian curve raise PrecisionError (the pointwise mu is too flat to settle).

    Args:
        f: The trade-off function.
        digits: Significant digits of the answer.

    Returns:
        mu, a :class:`Certified` rounded up.

    Raises:
        PrecisionError: f is too close to a Gaussian curve for the digits asked.

    Examples:
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
    "account",
    "account_steps",
    "Account",
    "CLTApproximation",
    "calibrate",
    "Calibration",
    "dpsgd_schedule",
    "Schedule",
    "GDP",
    "Composed",
    "DiscreteGaussianMechanism",
    "DiscreteLaplaceMechanism",
    "EpsDelta",
    "FiniteMechanism",
    "GaussianMechanism",
    "LaplaceMechanism",
    "PoissonSampled",
    "PureDP",
    "RandomizedResponse",
    "Repeated",
    "dpsgd",
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
    "epsilon_from_points",
    "delta_from_points",
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
