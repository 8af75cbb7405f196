"""The numeric layer: symbolic expressions turned into certified and fast numbers.

Importing this package (which importing any of its modules does first) registers the numeric
engines that :class:`gdpproof.symbolic.tradeoff.TradeOff` calls by name
(:mod:`gdpproof.symbolic.engines`): the symbolic layer never imports this one.  Registration is
cheap: each engine imports its module on first call, so ``import gdpproof.numeric.tradeoff.solve`` still
loads neither sympy nor scipy.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs a tenth of the CLI's start-up budget: only type checkers read it
    from typing import Any
del TYPE_CHECKING

from ..symbolic import engines as _engines


def _tradeoff_value(f: Any, alpha: Any, **kwargs: Any) -> Any:
    from .engine.evaluate import tradeoff_value

    return tradeoff_value(f, alpha, **kwargs)


def _expression_value(expr: Any, alpha: Any, **kwargs: Any) -> Any:
    from .engine.evaluate import expression_value

    return expression_value(expr, alpha, **kwargs)


def _tradeoff_mpmath(f: Any, alpha: Any, **kwargs: Any) -> Any:
    from .engine.evaluate import tradeoff_mpmath

    return tradeoff_mpmath(f, alpha, **kwargs)


def _tradeoff_values_fast(f: Any, alpha: Any) -> Any:
    from .engine.fast import tradeoff_values

    return tradeoff_values(f, alpha)


def _delta_value(f: Any, epsilon: Any, **kwargs: Any) -> Any:
    from .tradeoff.duality import delta_value

    return delta_value(f, epsilon, **kwargs)


def _conjugate_value(f: Any, y: Any, **kwargs: Any) -> Any:
    from .tradeoff.duality import conjugate_value

    return conjugate_value(f, y, **kwargs)


def _inverse_value(f: Any, alpha: Any, **kwargs: Any) -> Any:
    from .tradeoff.duality import inverse_value

    return inverse_value(f, alpha, **kwargs)


def _tightest_mu(f: Any, **kwargs: Any) -> Any:
    from .tradeoff.duality import tightest_mu

    return tightest_mu(f, **kwargs)


def _check_tradeoff(f: Any, **kwargs: Any) -> Any:
    from .tradeoff.validity import check_tradeoff

    return check_tradeoff(f, **kwargs)


def _float_values(expr: Any, symbol: Any, points: Any) -> Any:
    from .engine.compiler import float_values

    return float_values(expr, symbol, points)


for _name, _fn in (
    ("tradeoff_value", _tradeoff_value),
    ("expression_value", _expression_value),
    ("tradeoff_mpmath", _tradeoff_mpmath),
    ("tradeoff_values_fast", _tradeoff_values_fast),
    ("delta_value", _delta_value),
    ("conjugate_value", _conjugate_value),
    ("inverse_value", _inverse_value),
    ("tightest_mu", _tightest_mu),
    ("check_tradeoff", _check_tradeoff),
    ("float_values", _float_values),
):
    _engines.register(_name, _fn)
del _name, _fn
