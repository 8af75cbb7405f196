"""Privacy accounting: :func:`account` and what it returns (:class:`Account`), the one door to the
engine behind it (compiled loss laws, the discretizations, the composed result, the bracket
search, the exact finite and discrete routes, DP-SGD's CLT side result).

Code outside this package imports from here only (``tests/test_import_graph.py`` checks it):
``account``, ``Account``, ``account_steps`` (accounts over a range of steps); :func:`composition` and :class:`EpsilonEstimator` for the uses that need
a composition's curves or cheap estimates; and the DP-SGD helpers.  The layout and the flow of
one call: ``docs/architecture.md``.
"""

from __future__ import annotations

from typing import Any

from .result import BRACKET_DIGITS, ROUTES, Account, CLTApproximation
from .routes import account, clt_formula

TYPE_CHECKING = False
if TYPE_CHECKING:  # what the names below are (for readers and the documentation's resolver)
    from .composed import ComposedLoss, HonestMu
    from .curve import account_steps
    from .discrete import discrete_gaussian_delta
    from .dpsgd import DPSGDAccount, DPSGDBracket, dpsgd_epsilon, dpsgd_mu
    from .estimate import EpsilonEstimator, check_rel_width, composition
    from .losses import NOISE_MULTIPLIER_RANGE

#: The names whose modules load the engine (the discretizations, the search), imported on first use:
#: a closed-form account does not need them.
_LAZY = {"ComposedLoss": "composed", "HonestMu": "composed", "account_steps": "curve",
         "discrete_gaussian_delta": "discrete", "DPSGDAccount": "dpsgd", "DPSGDBracket": "dpsgd",
         "dpsgd_epsilon": "dpsgd", "dpsgd_mu": "dpsgd", "EpsilonEstimator": "estimate",
         "check_rel_width": "estimate", "composition": "estimate", "NOISE_MULTIPLIER_RANGE": "losses"}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        from importlib import import_module

        value = getattr(import_module(f"{__name__}.{_LAZY[name]}"), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

__all__ = ["BRACKET_DIGITS", "NOISE_MULTIPLIER_RANGE", "ROUTES", "Account", "CLTApproximation", "ComposedLoss", "DPSGDAccount", "DPSGDBracket",
           "EpsilonEstimator", "HonestMu", "account", "account_steps", "check_rel_width", "clt_formula", "composition", "discrete_gaussian_delta",
           "dpsgd_epsilon", "dpsgd_mu"]
