"""Ball-arithmetic building blocks shared by the sympy->arb compiler and the generated kernels.

Both :mod:`gdpproof.numeric.engine.compile_arb` (which compiles any sympy expression at run time) and
:mod:`gdpproof.numeric.engine._kernels` (arb code generated ahead of time from the same expressions)
call these, so a formula evaluates to the same ball by either route.  Imports flint and the
standard library only.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import flint

__all__ = ["arb_erfc", "arb_erfcx", "relation", "erfcx_float", "at_precision", "ERFC_NATIVE_BALL"]

#: (function, precision) -> the ball of a symbol-free subexpression (sqrt(2)/2) at that precision
_PRECISION_CACHE: dict[tuple[object, int], flint.arb] = {}


def at_precision(make: Callable[[], flint.arb]) -> flint.arb:
    """make() at the current precision, computed once per precision: the generated kernels'
    constants such as sqrt(2)/2 (a ball is a deterministic function of the operations and the
    precision, so the cached one is the one make() gives)."""
    key = (make, flint.ctx.prec)
    ball = _PRECISION_CACHE.get(key)
    if ball is None:
        if len(_PRECISION_CACHE) > 1024:
            _PRECISION_CACHE.clear()
        ball = _PRECISION_CACHE[key] = make()
    return ball


def _erfcx_positive(z: flint.arb) -> flint.arb:
    """erfcx(z) = e^{z^2} erfc(z) for z > 0, as U(1/2, 1/2, z^2)/sqrt(pi).

    arb's erfc loses all relative accuracy once the result leaves its fast range (z around
    1e5 gives only an upper bound); the confluent hypergeometric form stays accurate for any z.
    """
    h = flint.arb(1) / 2
    return (z * z).hypgeom_u(h, h) / flint.arb.pi().sqrt()


#: arb's own erfc keeps full relative accuracy up to here (measured: 141 of 132 bits at 1e5,
#: a bare upper bound at 7e5); beyond it the hypergeometric form is used (2-10x slower).
_ERFC_NATIVE_LIMIT = 100_000
#: The same limit as an (exact) ball: comparing a ball with a ball skips converting the int.  The
#: generated kernels test ``z < ERFC_NATIVE_BALL`` inline and call arb's erfc directly then.
ERFC_NATIVE_BALL = _ERFC_LIMIT_BALL = flint.arb(_ERFC_NATIVE_LIMIT)


def arb_erfcx(z: flint.arb) -> flint.arb:
    """erfcx in ball arithmetic, accurate for every real argument."""
    if z > _ERFC_NATIVE_LIMIT:
        return _erfcx_positive(z)
    if z < -_ERFC_NATIVE_LIMIT:
        return 2 * (z * z).exp() - _erfcx_positive(-z)
    return (z * z).exp() * z.erfc()


def arb_erfc(z: flint.arb) -> flint.arb:
    """erfc in ball arithmetic with full relative accuracy in the far right tail."""
    if z > _ERFC_LIMIT_BALL:
        return (-(z * z)).exp() * _erfcx_positive(z)
    return z.erfc()


def relation(d: flint.arb, rel: str) -> bool | None:
    """The three-valued truth of ``d rel 0`` for a ball d: True, False, or None when undecided."""
    if d.is_nan():
        return None
    if rel in ("<", ">="):
        if d < 0:
            return rel == "<"
        if d >= 0:
            return rel == ">="
        return None
    if rel in (">", "<="):
        if d > 0:
            return rel == ">"
        if d <= 0:
            return rel == "<="
        return None
    if rel in ("==", "!="):
        if d.is_exact() and d.is_zero():
            return rel == "=="
        if d > 0 or d < 0:
            return rel == "!="
        return None
    raise TypeError(f"unsupported relation {rel}")


#: Below this, erfcx(x) = e^{x^2} erfc(x) in doubles loses only the rounding of x^2 (relative
#: error about x^2 ulp); above it erfc underflows and the asymptotic series is used.
_FLOAT_SERIES_FROM = 25.0


def erfcx_float(x: float) -> float:
    """erfcx(x) in float64 without scipy, to about 1e-13 relative: only for estimates.

    The certified routes never use it: it starts Newton iterations whose results are then
    proven in ball arithmetic.
    """
    if x < _FLOAT_SERIES_FROM:
        if x < -26.7:
            return math.inf
        return math.exp(x * x) * math.erfc(x)
    # erfcx(x) ~ 1/(x sqrt(pi)) sum_k (-1)^k (2k-1)!! / (2x^2)^k; at x >= 25 the 9th term is below 1e-19
    w = 1.0 / (2.0 * x * x)
    term, total = 1.0, 1.0
    for k in range(1, 10):
        term *= -(2 * k - 1) * w
        total += term
    return total / (x * math.sqrt(math.pi))
