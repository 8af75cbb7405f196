"""Numeric evaluation of trade-off functions: certified values and lambdified mpmath code.

Two independent routes turn one sympy expression into numbers:

* :func:`tradeoff_value` / :func:`expression_value` compile the expression to ball arithmetic
  (:mod:`gdpproof.numeric.engine.certify`) and return certified digits.  Expressions with no ball form
  fall back to evaluation at two mpmath precisions, accepted only when both round alike.
* :func:`tradeoff_mpmath` runs sympy's lambdified mpmath code in a private context with guard
  digits (never the global ``mpmath.mp``), as a check on the first route.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import mpmath
import sympy

from ..._args import probability
from ...errors import InvalidParameterError, PrecisionError
from ...text import show
from ...symbolic.special import fold
from ...symbolic.symbols import alpha as ALPHA
from ._mp import mpf_exact, mpf_from_exact, mpf_to_fraction, private_context
from .certify import Certified, check_request, decimal, certify, round_fraction
from .compiler import mpmath_function  # noqa: F401  (re-exported: its historical home)

__all__ = [
    "tradeoff_value",
    "expression_value",
    "tradeoff_mpmath",
    "mpmath_function",
    "certify_mpmath",
    "parse_alpha",
]

from .certified import GUARD_DIGITS  # noqa: E402  (guard digits of the lambdified mpmath route)


def parse_alpha(value: Any, name: str = "alpha") -> sympy.Expr:
    """``value`` as an exact number in [0, 1], or InvalidParameterError."""
    return probability(name, value, symbolic=False)


def tradeoff_value(f: Any, alpha: Any, *, digits: int, rounding: str) -> Certified:
    """Certified f(alpha) (see :meth:`TradeOff.evaluate`)."""
    check_request(digits, rounding)
    a = parse_alpha(alpha)
    syms, vals = f._numeric_params()
    return _certify_any(f.template, (ALPHA, *syms), (a, *vals), digits=digits, rounding=rounding,
                        what=lambda: f"{f!r} at alpha={show(a)}")


def expression_value(expr: sympy.Expr, alpha: Any, *, digits: int, rounding: str, what: Any) -> Certified:
    """Certified value of an expression in ``alpha`` alone (no other free symbols)."""
    check_request(digits, rounding)
    a = parse_alpha(alpha)
    extra = expr.free_symbols - {ALPHA}
    if extra:
        raise InvalidParameterError(f"{what} has free symbols {sorted(map(str, extra))}; substitute them first")
    return _certify_any(expr, (ALPHA,), (a,), digits=digits, rounding=rounding, what=what)


def _certify_any(expr: sympy.Expr, syms: tuple, vals: tuple, *, digits: int, rounding: str, what: Any) -> Certified:
    try:
        return certify(expr, syms, vals, digits=digits, rounding=rounding, what=what)
    except TypeError as exc:
        if "no ball-arithmetic form" not in str(exc):
            raise
    return certify_mpmath(expr, syms, vals, digits=digits, rounding=rounding, what=what)


# ---------------------------------------------------------------------------------------------
# lambdified mpmath
# ---------------------------------------------------------------------------------------------


def _mp_eval(expr: sympy.Expr, syms: tuple, vals: tuple, dps: int) -> Fraction | None:
    with private_context(dps) as ctx:
        fn = mpmath_function(expr, syms, ctx)
        try:
            out = fn(*[mpf_from_exact(ctx, v) for v in vals])
        except (ValueError, ZeroDivisionError):
            return None
        out = ctx.mpf(out)
        if not ctx.isfinite(out):
            return None
        return mpf_to_fraction(out)


def certify_mpmath(expr: sympy.Expr, syms: tuple, vals: tuple, *, digits: int, rounding: str, what: Any) -> Certified:
    """Digits accepted only when evaluations at ``digits + g`` and ``2 digits + g`` agree.

    The fallback for expressions with no ball-arithmetic form (docs/architecture.md).  Weaker than a ball
    (agreement is evidence, not proof), and marked ``method="mpmath-2prec"``.
    """
    for scale in (1, 2, 4):
        lo_dps = scale * digits + GUARD_DIGITS
        a = _mp_eval(expr, syms, vals, lo_dps)
        b = _mp_eval(expr, syms, vals, 2 * lo_dps)
        if a is None or b is None:
            break
        ra, rb = round_fraction(a, digits, rounding), round_fraction(b, digits, rounding)
        if ra == rb:
            return Certified(decimal(ra[0], ra[1], digits), digits=digits, rounding=rounding, method="mpmath-2prec")
    label = what() if callable(what) else what
    raise PrecisionError(f"could not certify {digits} digits of the {label} (mpmath precisions disagree)")


def tradeoff_mpmath(f: Any, alpha: Any, *, dps: int = 30) -> mpmath.mpf:
    """f(alpha) through lambdified mpmath code at ``dps`` digits plus guard digits.

    Returns an mpf of the caller's global context, rebuilt exactly from the private result
    (no rounding happens at the boundary beyond the caller's own precision).
    """
    a = parse_alpha(alpha)
    syms, vals = f._numeric_params()
    # autoprec (mpmath's idea): raise the guard digits until two precisions agree to dps
    # digits; a fixed guard would lose digits where the form itself cancels (erfcinv(2 alpha)
    # for alpha within 1e-22 of 1 loses 22 digits)
    # the inputs must be represented well enough first: alpha = 1 - 1e-72 needs 72 digits
    guard = GUARD_DIGITS + min(10000, max((int(int(v.q).bit_length() * 0.30103) + 1 for v in (a, *vals)
                                            if v.is_Rational), default=0))
    value = _mp_eval(f.template, (ALPHA, *syms), (a, *vals), dps + guard)
    while value is not None and guard < 8 * dps + 200:
        guard *= 2
        better = _mp_eval(f.template, (ALPHA, *syms), (a, *vals), dps + guard)
        if better is None:
            break
        close = abs(better - value) <= abs(better) * Fraction(1, 10 ** (dps + 2))
        value = better
        if close:
            break
    if value is None:
        # endpoints where an intermediate is infinite: the exact value is what sympy gives
        ex = fold(f.template.xreplace(dict(zip((ALPHA, *syms), (a, *vals)))))
        if ex.is_Integer:
            return mpf_exact(Fraction(int(ex)))
        raise PrecisionError(f"{f!r} at alpha={a} is not finite in mpmath")
    return mpf_exact(value)
