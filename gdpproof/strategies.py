"""Hypothesis strategies and a pytest helper for the test suites of DP libraries.

Strategies (plural nouns, keyword-only ``min_``/``max_`` bounds, the widest valid domain by
default, :class:`hypothesis.errors.InvalidArgument` for impossible bounds, built constructively):
:func:`tradeoff_functions`, :func:`gdp_guarantees`, :func:`epsilon_delta_pairs` and
:func:`dpsgd_configurations`.  :func:`assert_accountant` audits a user's accountant function
against gdpproof's certified values, failing with every unsafe finding (``docs/guides/auditing.md``).

Examples:
    >>> from gdpproof.strategies import gdp_guarantees, epsilon_delta_pairs
    >>> gdp_guarantees(max_mu=5.0)
    gdp_guarantees(max_mu=5.0)
    >>> epsilon_delta_pairs(min_delta=1e-10, max_delta=1e-3)
    epsilon_delta_pairs(min_delta=1e-10, max_delta=0.001)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ._strategies import (
    DPSGDConfiguration,
    dpsgd_configurations,
    epsilon_delta_pairs,
    gdp_guarantees,
    tradeoff_functions,
)

__all__ = [
    "DPSGDConfiguration",
    "tradeoff_functions",
    "gdp_guarantees",
    "epsilon_delta_pairs",
    "dpsgd_configurations",
    "assert_accountant",
]


def assert_accountant(fn: Callable[..., Any], quantity: str, *, quick: bool = True, rtol: float = 0.0,
                      seed: int = 0, examples: int | None = None,
                      inputs: Sequence[tuple[Any, ...]] | None = None, allow_errors: bool = False) -> Any:
    """Fail (AssertionError) when ``fn`` is unsafe against gdpproof's certified values.

    Runs :func:`gdpproof.audit.audit_function`: the audit grid where implementations fail,
    ``examples`` randomly drawn inputs (seeded) and the property checks (monotonicity, range,
    exceptions, NaN).  Fails when some value understates the privacy loss by more than
    ``rtol`` (relative) or, unless ``allow_errors``, when some call errs or a property fails;
    the message lists every such finding with its input.  Returns the
    :class:`~gdpproof.audit.AuditReport` otherwise.

    Examples:
        >>> import math
        >>> from gdpproof.strategies import assert_accountant
        >>> def classic_sigma(eps, delta):  # the textbook bound, valid only for eps < 1
        ...     return math.sqrt(2 * math.log(1.25 / delta)) / eps
        >>> assert_accountant(classic_sigma, "sigma_from_epsilon_delta", inputs=[(0.5, 1e-5)]).ok
        True
        >>> assert_accountant(classic_sigma, "sigma_from_epsilon_delta", inputs=[(10.0, 1e-5)])  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        AssertionError: classic_sigma is unsafe on 1 input (sigma_from_epsilon_delta):
          unsafe -3.08e-02  classic_sigma(epsilon=10.0, delta=1e-05) = 0.4844805262605389; reference 0.49988861970...
    """
    from .audit.functions import audit_function

    report = audit_function(fn, quantity, quick=quick, rtol=rtol, seed=seed, examples=examples, inputs=inputs)
    bad = [f for f in report.results
           if (f.kind == "unsafe" or (f.kind == "error" and not allow_errors)) and not f.within_tolerance]
    if bad:
        unsafe = sum(f.kind == "unsafe" for f in bad)
        errors = len(bad) - unsafe
        what = " and ".join(x for x in (f"unsafe on {unsafe} input{'s' * (unsafe != 1)}" if unsafe else "",
                                        f"{errors} error{'s' * (errors != 1)}" if errors else "") if x)
        lines = [f"{report.peer} is {what} ({quantity}):"]
        for f in bad:
            lines.append(f"  {f.kind} {f.relative_error:+.2e}  {f.call()} = {f.value!r}; reference {f.reference}"
                         if f.relative_error is not None else
                         f"  {f.kind} {f.call()} = {f.value!r}; reference {f.reference}  [{f.detail}]")
        raise AssertionError("\n".join(lines))
    return report
