"""Ball-arithmetic building blocks shared by the sympy->arb compiler and the generated kernels.

Both :mod:`gdpproof.numeric.engine.compiler` (which compiles any sympy expression at run time) and
:mod:`gdpproof.numeric.engine._kernels` (arb code generated ahead of time from the same expressions)
call these, so a formula evaluates to the same ball by either route.  Imports flint, the
standard library and :mod:`gdpproof.numeric.engine.erfc_cells` (erfc's table, which imports
flint and the precision lock of :mod:`gdpproof.numeric.engine._mp`).
"""

from __future__ import annotations

import math
from collections.abc import Callable

import flint

from .erfc_cells import CELL_BITS, erfc_cell

__all__ = ["arb_erfc", "arb_erfcx", "erfc_at", "relation", "erfcx_float", "at_precision", "acb_namespace", "ERFC_NATIVE_BALL"]

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


#: The working precision of arb's erf and erfc (flint 3, arb_hypgeom/erf.c) at precision p for
#: 1e-38 < |z| <= 2 is p + 10 + bit_length(p) bits (and erfc for z > 1 adds (z^2 + ln z)/ln 2,
#: the bits 1 - erf(z) cancels); their cost steps up with each 64-bit limb of that precision.
_ERF_PAD = 10


def _limb_top(bits: int) -> int:
    """The largest precision p >= bits with p + bit_length(p) + 10 within the 64-bit limbs
    that bits needs, but at most 12 bits more (within three limbs and more, each bit adds
    series terms: erf at 174 bits costs 7% more than at 112)."""
    top = 64 * -(-(bits + bits.bit_length() + _ERF_PAD) // 64)
    p = top - _ERF_PAD
    return min(max(bits, p - p.bit_length()), bits + 12)


#: _limb_top(n) by n: the precision of erf for n bits (111 for 100 to 111)
_ERF_TOP = tuple(_limb_top(b) for b in range(1024))
_CTX = flint.ctx
_ONE = flint.arb(1)


def erfc_at(z: flint.arb, bits: int) -> flint.arb:
    """erfc(z) with its special function at ``bits`` of precision (or a little more where that
    costs nothing); the operations around it stay at the current precision, which is set back.

    For -8 <= z < 10 and ``bits`` <= 118 it is the polynomial of z's cell
    (:func:`gdpproof.numeric.engine.erfc_cells.erfc_cell`: a Taylor polynomial with a proven
    remainder, evaluated at the current precision, about 1 us at any z).  Otherwise, for z <= 1
    it is 1 - erf(z), erf at ``bits`` raised to the most its working precision holds
    in the same 64-bit limbs (:func:`_limb_top`) and the difference at the current precision:
    what arb's erfc does there, whose own erf runs 5 bits higher (at 106 bits it crosses into a
    third limb, where 111 bits of erf cost a quarter less).  Above 1, arb's erfc at ``bits``
    (:func:`arb_erfc` beyond its native range).  1 - erf(z) = erfc(z) for every z, so either
    route at any precision gives a ball containing erfc(z); the choice only sets the cost.  The
    precision is set through python-flint's ``ctx._prec`` (what its ``prec`` setter sets, less
    the decimal digits kept for printing: a quarter of the cost; tests/numeric/test_kernels.py
    checks that it still works so), without try/finally: should erf raise, the caller's own
    precision context restores it (a kernel runs inside one), and no precision makes a ball wrong.

    Args:
        z: The argument's ball.
        bits: The least precision for the special function.

    Returns:
        A ball containing erfc(z).

    Examples:
        >>> with flint.ctx.workprec(128):
        ...     y = erfc_at(flint.arb(1) / 3, 100)
        ...     y.rel_accuracy_bits() >= 100, y.overlaps((flint.arb(1) / 3).erfc())
        (True, True)
        >>> with flint.ctx.workprec(128):
        ...     erfc_at(flint.arb(7), 100).rel_accuracy_bits() >= 98
        True
    """
    x = float(z)
    if bits <= CELL_BITS:
        y = erfc_cell(z, x)
        if y is not None:
            return y
    saved = _CTX._prec
    if x <= 1.0:
        _CTX._prec = _ERF_TOP[bits] if bits < 1024 else bits
        e = z.erf()
        _CTX._prec = saved
        return _ONE - e
    _CTX._prec = bits
    y = z.erfc() if x < _ERFC_NATIVE_LIMIT else arb_erfc(z)
    _CTX._prec = saved
    return y


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


def acb_namespace(analytic: bool) -> dict[str, object]:
    """The names the generated complex-ball pieces of the loss integrands call (their printer
    writes sympy's function names): exp, log and sqrt of a ball (an int made a ball first) and pi;
    ``analytic`` asks the logarithm to flag its branch cut (arb's contract for ``acb.integral``)."""

    def ball(z: object) -> object:
        return flint.arb(z) if isinstance(z, int) else z

    return {"exp": lambda z: ball(z).exp(), "log": lambda z: ball(z).log(analytic=analytic),
            "sqrt": lambda z: ball(z).sqrt(), "pi": flint.arb.pi()}
