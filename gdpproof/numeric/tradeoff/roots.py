"""The certified monotone solver behind the conversions: the decimal on the safe side of a monotone
boundary, found from a float estimate (Newton, bisection) and settled by certified tests in ball
arithmetic at rising precision (:func:`certify_boundary`); a float root finder for the estimates.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import flint

from ...errors import PrecisionError
from ...text import show
from ..engine._mp import arb_precision, call_at_precision, fraction_of_exact_arb
from ..engine.certified import MAX_BITS, Certified, decimal, round_fraction


def decided(g: Callable[[int], flint.arb], start_bits: int, decide: Callable[[flint.arb], Any],
            what: Callable[[flint.arb], str] | None = None) -> Any:
    """``decide(g(bits))`` at the first precision from ``start_bits`` (doubled, the last try at
    MAX_BITS) where ``decide`` returns something other than None: the one loop by which a ball's
    sign, or any other decision of it, is made; a ball no precision decides raises
    PrecisionError (``what(ball)`` its message)."""
    bits = start_bits
    while True:
        v = call_at_precision(bits, g, (bits,))  # a ball's sign does not depend on the precision set
        answer = decide(v)
        if answer is not None:
            return answer
        if bits >= MAX_BITS:
            raise PrecisionError(what(v) if what else "could not decide a sign within the precision limit")
        bits = min(2 * bits, MAX_BITS)


def _sign(v: flint.arb) -> int | None:
    if v > 0:
        return 1
    if v < 0:
        return -1
    return 0 if v.is_exact() and v.is_zero() else None


def sign_of(g: Callable[[int], flint.arb], start_bits: int) -> int:
    """The sign of a quantity given by a ball at each precision; doubles until decided."""
    return decided(g, start_bits, _sign)


def decimal_step(me: tuple[int, int], digits: int, up: bool) -> tuple[int, int]:
    """The next ``digits``-significant-digit decimal above (or below) the positive decimal
    m * 10^e, as (m, e) with 10^(digits-1) <= m < 10^digits."""
    m, e = me
    if up:
        return (m + 1, e) if m + 1 < 10 ** digits else (10 ** (digits - 1), e + 1)
    if m == 10 ** (digits - 1):  # 1.000 -> 0.9999: the unit shrinks below a power of ten
        return 10 ** digits - 1, e - 1
    return m - 1, e


def decimal_value(me: tuple[int, int]) -> Fraction:
    m, e = me
    return Fraction(m * 10 ** e) if e >= 0 else Fraction(m, 10 ** -e)


def certify_boundary(estimate: Fraction, ok: Callable[[Fraction], bool], *, digits: int, rounding: str,
                      increasing_ok: bool, what: Callable[[], str] = lambda: "the boundary") -> Certified:
    """The decimal on the safe side of a monotone boundary.

    ``ok(x)`` is a certified test of the admissible side; admissible points form an interval
    [x*, inf) when ``increasing_ok`` (round up: smallest admissible decimal) or (0, x*]
    otherwise (round down: largest admissible decimal).  The estimate is usually right to the
    last unit, and a few unit steps settle it; if not (an ill-conditioned boundary), the
    boundary is bracketed by galloping and bisection with certified tests, then settled.
    Decimals are kept as integer pairs (m, e), value m * 10^e.  ``what()`` names the quantity
    and its inputs in a PrecisionError ("epsilon at mu=1e100, delta=1e-5").
    """
    if estimate <= 0:
        raise PrecisionError(f"could not certify {what()}: its estimate is not positive")
    c = round_fraction(estimate, digits, rounding)
    for attempt in range(2):
        for _ in range(6):
            if not ok(decimal_value(c)):  # on the wrong side: one unit towards the admissible side
                c = decimal_step(c, digits, up=increasing_ok)
                continue
            beyond = decimal_step(c, digits, up=not increasing_ok)  # one unit further out
            if ok(decimal_value(beyond)):
                c = beyond
                continue
            return Certified(decimal(c[0], c[1], digits), digits=digits, rounding=rounding, method="arb")
        if attempt == 0:
            c = round_fraction(bisect_boundary(decimal_value(c), ok, digits, increasing_ok), digits, rounding)
            if c[0] <= 0:
                raise PrecisionError(f"could not certify {what()}: the boundary found is not positive")
    raise PrecisionError(f"could not certify {digits} digits of {what()}: the certified tests did not find "
                         f"the boundary near its estimate {show(estimate)}")


def bisect_boundary(c: Fraction, ok: Callable[[Fraction], bool], digits: int, increasing_ok: bool) -> Fraction:
    """Bracket the boundary near c by galloping, then bisect it to 10^-(digits+3) relative."""
    inside = ok(c)
    width = c * Fraction(1, 10 ** (digits + 2))
    # gallop away from c until the test flips: towards smaller x if c is on the upper side
    go_down = inside == increasing_ok
    other = c
    for _ in range(4096):
        other = c - width if go_down else c + width
        if other <= 0:
            other = Fraction(0)
            break
        if ok(other) != inside:
            break
        c, width = other, width * 2
    lo, hi = (other, c) if go_down else (c, other)
    while hi - lo > hi * Fraction(1, 10 ** (digits + 3)):
        mid = (lo + hi) / 2
        if ok(mid) == increasing_ok:
            hi = mid
        else:
            lo = mid
    return hi if increasing_ok else lo


def magnitude(x: flint.arb) -> int:
    """The binary exponent of |x| (about log2 |x|); 0 for zero."""
    if x.is_zero():
        return 0
    man, exp = x.mid().man_exp()
    return int(man).bit_length() + int(exp)


def newton(x0: flint.arb, step: Callable[[flint.arb], tuple[flint.arb, ...]], bits: int,
            positive: bool = True, max_steps: int = 200, cancellation: int = 0) -> Fraction:
    """Newton's method on midpoints (no rigour needed: the result is only a candidate); Halley's
    when ``step`` returns the second derivative too, (g, g', g'').

    Runs ``bits`` of precision (which carries 32 bits of margin over the digits) plus 8, plus
    what the start's magnitude costs in cancellation (delta at mu = 1e-300 cancels 1000 bits),
    so tiny roots are found as easily as ordinary ones.  (Not 32 more: arb's erfc costs twice
    as much from about 148 bits, and a candidate needs no more than its digits.)
    ``cancellation`` bits more are carried where ``step`` itself cancels that many (the Gaussian
    dual at a huge epsilon: epsilon/mu - mu/2 of two terms near sqrt(epsilon/2)); the stopping
    rule asks for them too, for there the function's scale is that of the cancelled difference
    (z = epsilon/mu - mu/2 at epsilon near mu^2/2, about 2^cancellation smaller than x
    relatively): a relative step s leaves an error about 2^cancellation s^k relative, not s^k.
    """
    extra = 8 + max(0, -magnitude(x0)) + cancellation
    with arb_precision(bits + extra):
        x = x0
        order = None
        for _ in range(max_steps):
            g, dg, *more = step(x)
            if not (g.is_finite() and dg.is_finite() and (dg > 0 or dg < 0)):
                break  # a slope whose sign the ball leaves open would step to NaN: the candidate stands
            if order is None:
                # convergence of order k: a step of size s leaves an error about C s^k, so a step
                # below 2^-(bits/k - 8) leaves one far below the candidate's last decimal (bits
                # carries 32 bits of margin over the digits); a candidate a unit off costs the
                # certification one more sign check, never a wrong digit
                order = 3 if more else 2
                tolerance = flint.arb(2) ** (-(bits + 8 + cancellation) // order + 8)
            if more and more[0].is_finite():
                denominator = 2 * dg * dg - g * more[0]
                new = (x - 2 * g * dg / denominator).mid() if not denominator.is_zero() else (x - g / dg).mid()
            else:
                new = (x - g / dg).mid()
            if positive and new <= 0:
                new = (x / 2).mid()
            done = abs(new - x) <= abs(x) * tolerance
            x = new
            if done:
                break
        mid = x.mid()
    if not mid.is_finite():
        raise PrecisionError("Newton's method left the finite range")
    return fraction_of_exact_arb(mid)  # a midpoint is exact: no endpoints to form


def float_root(g: Callable[[float], float], dg: Callable[[float], float], *, increasing: bool,
                span: tuple[float, float], start: float = 1.0) -> float | None:
    """A float64 root of the monotone g inside ``span`` by safeguarded Newton from ``start``;
    None if none is found there.

    Each evaluation's sign tells on which side of the root it lies, which bounds the root; a
    Newton step that leaves those bounds or ``span`` (or, while the root is bounded on one side
    only, moves by more than a factor 8) is replaced by doubling or halving towards the root,
    or by bisection once both sides are known.  It stops when a step falls below 1e-8 relative
    (the error is then about its square: float noise).  Only a starting point for ball Newton,
    which the certification checks.
    """
    try:
        below = above = None  # points known to lie below (above) the root
        x = start
        for _ in range(300):
            if not span[0] <= x <= span[1]:
                return None
            gx = g(x)
            if gx == 0:
                return x
            if (gx < 0) == increasing:
                below = x
            else:
                above = x
            step = x - gx / dg(x)
            bounded = below is not None and above is not None
            inside = (below is None or step > below) and (above is None or step < above)
            if abs(step - x) <= 1e-8 * abs(x):  # converged; a step of an ulp may land on a bound
                x = step if inside else x
                break
            if inside and span[0] <= step <= span[1] and (bounded or x / 8 <= step <= 8 * x):
                x = step
            elif bounded:
                x = (below + above) / 2
            else:
                x = x * 2 if above is None else x / 2
            if bounded and above - below <= 1e-15 * above:
                break
        return x if math.isfinite(x) and x > 0 else None
    except (ValueError, ZeroDivisionError, OverflowError):
        return None


def nonpositive_at(f: Callable[[flint.arb], flint.arb], x: flint.arb, bits: int) -> bool:
    """Whether f(x) <= 0 is certified, at a precision that grows with the smallness of x (the
    cancellation of delta near a tiny argument), doubled while the ball does not decide the sign
    (an undecided ball, NaN included, is never read as "above the root"); a point that would
    need more than MAX_BITS raises PrecisionError (nothing there could be certified)."""
    prec = bits + 32 + max(0, -magnitude(x))
    if prec > MAX_BITS:
        raise PrecisionError(f"the solution lies below 2^{magnitude(x)}: evaluating there needs more than "
                             f"{MAX_BITS:,} bits of precision, the limit")
    return decided(lambda _bits: f(x), prec, lambda v: True if v <= 0 else False if v > 0 else None,
                   lambda v: f"the sign of the equation at {x.mid().str(5, radius=False)} is not decided "
                             f"within {MAX_BITS:,} bits of precision ({v.str(5)})")


def bracket_root(f: Callable[[flint.arb], flint.arb], start: flint.arb, factor: int, bits: int) -> flint.arb:
    """Multiply ``start`` by ``factor`` until the certified sign of f turns non-positive."""
    x = start
    for _ in range(1 << 16):
        if nonpositive_at(f, x, bits):
            return x
        x = x * factor
    raise PrecisionError("could not bracket the root")


def gallop_down(f: Callable[[flint.arb], flint.arb], bits: int) -> flint.arb:
    """A point x = 2^-k with f(x) <= 0 < f(2x) for the increasing f, searched from 1: k doubles
    until f(2^-k) <= 0, then is bisected.  About 2 log2(k) evaluations where steps of a constant
    factor take k/8 (a root near 1e-100000 took 41,000 of them, each at up to 330,000 bits)."""
    def below(k: int) -> bool:
        return nonpositive_at(f, flint.arb(2) ** -k, bits)

    if below(0):
        return flint.arb(1)
    deepest = MAX_BITS - bits - 32  # the smallest 2^-k evaluated within the precision limit
    above, k = 0, 8
    while not below(k):
        if k >= deepest:
            raise PrecisionError(f"the solution lies below 2^-{k}: evaluating there needs more than "
                                 f"{MAX_BITS:,} bits of precision, the limit")
        above, k = k, min(2 * k, deepest)
    while k - above > 1:
        mid = (above + k) // 2
        if below(mid):
            k = mid
        else:
            above = mid
    return flint.arb(2) ** -k
