"""Certified digits of sympy expressions: compiled to ball arithmetic, rounded safely.

:func:`certify` evaluates an expression compiled by :func:`arb_function`
(:mod:`gdpproof.numeric.engine.compiler`) at rising precision until every number in the ball rounds
to the same ``digits``-digit decimal in the requested direction; a ball that never decides falls
back to sympy's exact value when it is rational, else :class:`~gdpproof.errors.PrecisionError`.
The sympy-free part (:class:`Certified`, rounding, the precision loop) lives in
:mod:`gdpproof.numeric.engine.certified` and is re-exported here.  Why the digits are right:
docs/how-it-works.md, "Certified digits".
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

import flint
import sympy

from ..._args import exact_floats
from ...symbolic.special import fold, symmetrized
from ...symbolic.symbols import SYMPY_GAVE_UP
from ..tradeoff.envelope import arb_exact, fraction, arb_lower, tangent_bound, touch
from ._mp import arb_from_exact, arb_precision, private_context
from .certified import (  # noqa: F401  (re-exported: the names' historical home)
    MAX_BITS,
    MAX_DIGITS,
    Certified,
    Rounding,
    check_request,
    rebuild,
    decide,
    decimal,
    certify_balls,
    certify_enclosure,
    round_fraction,
    working_bits,
)
from .compiler import arb_erfc, arb_erfcx, arb_function  # noqa: F401  (re-exported)
from .compiler import mpmath_function

__all__ = [
    "Certified",
    "Rounding",
    "arb_function",
    "certify",
    "certify_enclosure",
    "round_fraction",
    "working_bits",
]


def certify(
    expr: sympy.Expr,
    symbols: Sequence[sympy.Symbol],
    values: Sequence[sympy.Expr],
    *,
    digits: int,
    rounding: str,
    what: str | Callable[[], str] = "value",
    unit_interval: bool = False,
) -> Certified:
    """Certify ``expr`` at ``symbols = values`` (exact sympy numbers) to ``digits`` digits.

    ``unit_interval=True`` states that the exact value is known to lie in [0, 1] (a
    probability), so the ball may be intersected with it: 1 - 1e-54000 then rounds up to 1
    without 180,000 bits of precision.
    """
    fn = arb_function(expr, tuple(symbols))

    def exact() -> sympy.Expr:
        if any(_extreme(v) for v in values):
            raise ValueError("no exact attempt")  # sympy would take minutes or all memory; the balls decide
        return exact_substitution(expr, tuple(symbols), tuple(values))

    return certify_balls(fn, values, digits=digits, rounding=rounding, exact=exact, what=what,
                         unit_interval=unit_interval)


#: An argument whose exact rationals have more bits than this, or a magnitude beyond 2^+-EXTREME_MAGNITUDE,
#: gets no exact (sympy) evaluation: sympy would take minutes or all memory (exp(10^999), the square
#: root of a 66,000-bit rational), and such values are never the short decimals that need one.
EXTREME_BITS = 8192
EXTREME_MAGNITUDE = 2048


def _extreme(value: Any) -> bool:
    rationals = [value] if isinstance(value, sympy.Rational) else \
        value.atoms(sympy.Rational) if isinstance(value, sympy.Basic) else []
    for r in rationals:
        p, q = abs(int(r.p)).bit_length(), int(r.q).bit_length()
        if max(p, q) > EXTREME_BITS or (r != 0 and abs(p - q) > EXTREME_MAGNITUDE):
            return True
    return False


@functools.lru_cache(maxsize=4096)
def exact_substitution(expr: sympy.Expr, symbols: tuple, values: tuple) -> sympy.Expr:
    out = exact_floats(expr).xreplace(dict(zip(symbols, values)))
    out = fold(out)
    if isinstance(out, sympy.Piecewise):
        out = out.doit()
    nodes = out.atoms(symmetrized) if isinstance(out, sympy.Basic) else set()
    if nodes:  # a numeric envelope is exact where it provably follows its curve
        known = {n: envelope_exact_value(n) for n in nodes}
        out = out.xreplace({n: v for n, v in known.items() if v is not None})
    return out  # a Float is an approximation, never taken as an exact value


def envelope_exact_value(node: Any) -> Any:
    """The exact value of ``symmetrized(Lambda(t, h(t)), v)`` at a rational v where C(v) = h(v)
    is proven, else None.

    C(v) = h(v) exactly when the tangent of h at v lies below h2, i.e. h2*(s) <= h*(s) =
    s v - h(v) for s = h'(v) (then the tangent is below min{h, h2}, so C(v) >= h(v) >= C(v)).
    That inequality is decided in balls at 256 bits, with the tangent bound of fact 3 for h2*
    (valid for every s in the ball of h'(v)).  Values that are short decimals (h polynomial
    with rational coefficients) need this: no ball can round them in a direction.
    """
    h_fn, v = node.args[:2]
    if not (v.is_Rational and 0 < v < 1):
        return None
    (var,) = h_fn.variables
    body, d1, d2 = node.bodies()
    if any(b.free_symbols - {var} for b in (body, d1, d2)):
        return None
    try:
        h, dh = arb_function(body, (var,)), arb_function(d1, (var,))
        with arb_precision(256):
            a = arb_from_exact(v)
            s = dh(a)
            if not (s.is_finite() and s < 0):
                return None
            own = s * a - h(a)  # h*(s): the tangent at v touches h there
            with private_context(80) as ctx:
                _, dhm, d2hm = _mp_functions((body, d1, d2), var, ctx)
                q = fraction(flint.arb(s.mid()))
                t2 = arb_exact(touch(ctx, dhm, d2hm, ctx.mpf(q.denominator) / q.numerator))
            other = tangent_bound(s * h(t2) - t2, s * dh(t2) - 1, t2)
            if not (other.is_finite() and own.is_finite() and other <= arb_lower(own)):
                return _on_unit_bridge(body, d1, var, v, h, a)
    except (TypeError, ValueError, ZeroDivisionError):
        return None
    value = sympy.simplify(body.xreplace({var: v}))
    return value if value.is_number else None


def _on_unit_bridge(body: Any, d1: Any, var: Any, v: Any, h: Callable[[flint.arb], flint.arb], a: flint.arb) -> Any:
    """x + h(x) - v when v lies strictly between x and h(x), h'(x) = -1 (algebraic h only).

    The line of slope -1 through (x, h(x)) supports both h (at x) and h2 (at (h(x), x): the
    reflection), since h2*(-1) = h*(-1); between the two points C is that line.
    """
    if not d1.is_algebraic_expr(var):
        return None  # sympy's solve is quick on algebraic slopes only
    try:
        roots = sympy.solve(sympy.Eq(d1, -1), var)
    except SYMPY_GAVE_UP:
        return None
    for r in roots:
        if not (r.is_number and r.is_real and sympy.simplify(d1.xreplace({var: r}) + 1) == 0):
            continue
        x = arb_from_exact(r)
        # only a tangency point inside the domain bounds the envelope: a root of h' = -1 outside
        # [0, 1] (2/5 (1 - t)^2 has t = -1/4) gives a line that is no chord of min(h, h^-1)
        if not (x >= 0 and x <= 1):
            continue
        hx = h(x)
        if not (hx >= 0 and hx <= 1):
            continue
        lo, hi = x.min(hx), x.max(hx)
        if lo < a and a < hi:
            value = sympy.simplify(r + body.xreplace({var: r}) - v)
            return value if value.is_number else None
    return None


def _mp_functions(bodies: tuple[Any, Any, Any], var: Any, ctx: Any) -> tuple[Any, Any, Any]:
    return tuple(mpmath_function(b, (var,), ctx) for b in bodies)  # type: ignore[return-value]
