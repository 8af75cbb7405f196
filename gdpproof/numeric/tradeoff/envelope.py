r"""The symmetric envelope C = min{h, h^{-1}}** of a trade-off curve h, evaluated with proof.

C is the lower convex envelope of g = min{h, h^{-1}} for h convex, continuous, non-increasing on
[0, 1] with h(1) = 0 and h(0) <= 1 (DRS Thm 4.2 with h = f_p gives C_p(f)); no closed form is
needed.  :func:`solve` finds the optimal slope at a in mpmath (a piece of h, a piece of h^{-1},
or a bridge tangent to both: a root of h*(s) - h2*(s)); :func:`arb_envelope` turns it into the
ball enclosure [a s - U(s), min(h(a), h^{-1}(a), a chord)], whose ends are proven by conjugate
duality and concavity whatever the solver did: a wrong slope only widens the enclosure.

The four facts the enclosure rests on, and the slope's three cases:
``docs/proofs/envelope.md``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import flint
import numpy as np

from ..engine._mp import arb_endpoints, arb_of_fraction, mpf_to_fraction, private_context
from ..engine.special import newton_bracketed, np_implicit_inverse, arb_implicit_inverse

__all__ = ["Solution", "solve", "arb_envelope", "arb_envelope_slope", "arb_conjugate", "mp_envelope",
           "mp_envelope_slope", "mp_conjugate", "np_envelope", "np_envelope_slope", "mpmath_namespace",
           "numpy_namespace"]

Fn = Callable[[Any], Any]
#: ``mp_functions(ctx)`` gives h, h', h'' as functions of mpmath numbers of the context ctx.
MpFns = Callable[[Any], tuple[Fn, Fn, Fn]]


# ---------------------------------------------------------------------------------------------
# the solver (mpmath, approximate: it only proposes; the ball routine proves)
# ---------------------------------------------------------------------------------------------


def _finite(ctx: Any, v: Any) -> bool:
    try:
        return bool(ctx.isfinite(v))
    except (TypeError, ValueError):
        return False


def _call(ctx: Any, fn: Fn, x: Any) -> Any:
    try:
        v = fn(x)
    except (ValueError, ZeroDivisionError, OverflowError):
        return ctx.nan
    return ctx.mpf(v)


def touch(ctx: Any, dh: Fn, d2h: Fn, s: Any, start: Any = None) -> Any:
    """argmax over [0, 1] of s x - h(x): the x with h'(x) = s (near 0 or 1 when s is outside).

    Safeguarded Newton on the non-decreasing h'(x) - s; bisection is geometric towards an end
    while the bracket still touches it, so roots like 1e-40 or 1 - 1e-40 cost a few steps.
    """
    zero, one = ctx.zero, ctx.one
    tol = ctx.mpf(2) ** (-ctx.prec + 6)
    lo, hi = zero, one
    x = start if start is not None and zero < start < one else ctx.mpf(0.5)
    for _ in range(4 * ctx.prec + 200):
        F = _call(ctx, dh, x) - s
        if not _finite(ctx, F):
            F = None
        elif F > 0:
            hi = x
        elif F < 0:
            lo = x
        else:
            return x
        if hi - lo <= tol * min(hi, 1 - lo):
            break
        if lo == 0 and hi < tol:
            break
        if hi == 1 and 1 - lo < tol:
            break
        nxt = None
        if F is not None:
            d = _call(ctx, d2h, x)
            if _finite(ctx, d) and d > 0:
                nxt = x - F / d
        if nxt is None or not (lo < nxt < hi):
            if lo == 0 and hi <= ctx.mpf(0.5):
                nxt = hi / 16
            elif hi == 1 and lo >= ctx.mpf(0.5):
                nxt = 1 - (1 - lo) / 16
            else:
                nxt = (lo + hi) / 2
        x = nxt
    return x if lo <= x <= hi and x not in (zero, one) else (lo + hi) / 2


def _inverse(ctx: Any, h: Fn, dh: Fn, a: Any) -> Any:
    """h2(a) = inf{t : h(t) <= a}, approximately (0 when h(0) <= a)."""
    h0 = _call(ctx, h, ctx.zero)
    if _finite(ctx, h0) and h0 <= a:
        return ctx.zero
    tol = ctx.mpf(2) ** (-ctx.prec + 4)
    return newton_bracketed(lambda t: _call(ctx, h, t), lambda t: _call(ctx, dh, t), a, ctx.zero, ctx.one, tol,
                             4 * ctx.prec + 100)


@dataclass(frozen=True)
class Solution:
    """The proposed slope at a and the tangency points of its supporting lines.

    ``s``: the slope (0 when C(a) = 0); ``x1``: the maximiser of s x - h(x); ``t2``: the
    maximiser of s h(t) - t, so the line touches h2 at (h(t2), t2); ``value``: C(a) approximately.
    """

    s: Any
    x1: Any
    t2: Any
    value: Any


def _conj(ctx: Any, h: Fn, dh: Fn, d2h: Fn, s: Any, x1: Any = None, t2: Any = None) -> tuple[Any, Any, Any, Any]:
    """(h*(s), x1, h2*(s), t2): both conjugates at s < 0 with their maximisers."""
    x1 = touch(ctx, dh, d2h, s, x1)
    t2 = touch(ctx, dh, d2h, 1 / s, t2)  # s h(t) - t is maximal where h'(t) = 1/s
    return s * x1 - _call(ctx, h, x1), x1, s * _call(ctx, h, t2) - t2, t2


def solve(ctx: Any, h: Fn, dh: Fn, d2h: Fn, a: Any) -> Solution:
    """The slope of C at a in (0, 1) and its tangency points, in the mpmath context ``ctx``."""
    tol = ctx.mpf(2) ** (-ctx.prec + 8)
    zero = Solution(ctx.zero, ctx.one, ctx.zero, ctx.zero)
    # C = h at a: the tangent of h at a lies below h2, i.e. h*(s1) >= h2*(s1)
    s1 = _call(ctx, dh, a)
    if _finite(ctx, s1) and s1 < 0:
        t2 = touch(ctx, dh, d2h, 1 / s1)
        c1, c2 = s1 * a - _call(ctx, h, a), s1 * _call(ctx, h, t2) - t2
        if c1 >= c2 - tol:
            return Solution(s1, a, t2, _call(ctx, h, a))
    # C = h2 at a: the tangent of h2 at a (slope 1/h'(t), t = h2(a)) lies below h
    t = _inverse(ctx, h, dh, a)
    if t == 0:
        return zero  # a >= h(0): g(a) = h2(a) = 0
    d = _call(ctx, dh, t)
    if _finite(ctx, d) and d < 0:
        s2 = 1 / d
        x1 = touch(ctx, dh, d2h, s2)
        c1, c2 = s2 * x1 - _call(ctx, h, x1), s2 * a - t
        if c2 >= c1 - tol:
            return Solution(s2, x1, t, t)
    elif _finite(ctx, d) and d == 0:
        return zero
    return _bridge(ctx, h, dh, d2h, a)


def _bridge(ctx: Any, h: Fn, dh: Fn, d2h: Fn, a: Any) -> Solution:
    """a lies under a segment tangent to h and h2: its slope s is where a enters the
    subdifferential [min(x1, x2), max(x1, x2)] of g*, found by bisection on log(-s) and
    finished by Newton on D(s) = h*(s) - h2*(s), D'(s) = x1 - h(t2)."""
    tol = ctx.mpf(2) ** (-ctx.prec + 8)

    def side(s: Any, x1: Any = None, t2: Any = None) -> tuple[int, tuple]:
        c1, x1, c2, t2 = _conj(ctx, h, dh, d2h, s, x1, t2)
        x2 = _call(ctx, h, t2)
        if c1 > c2 + tol:
            lo = hi = x1
        elif c2 > c1 + tol:
            lo = hi = x2
        else:
            lo, hi = min(x1, x2), max(x1, x2)
        # +1: the optimum is at a larger (flatter) slope; -1: steeper; 0: s is optimal
        return (1 if a > hi else -1 if a < lo else 0), (c1, x1, c2, t2)

    # D(-1) = 0 for every h (h2*(-1) = -(-1) h*(-1)): the bridge of slope -1 always exists, and
    # it is the only one unless the two curves cross more than once
    sign, unit = side(-ctx.one)
    if sign == 0:
        c1, x1, c2, t2 = unit
        return Solution(-ctx.one, x1, t2, -a - max(c1, c2))
    # the slope of C at a lies in [-1/a, 0) (C convex, 0 <= C <= 1): search w = log(-s), at
    # double precision (Newton on D below restores the digits)
    prec = ctx.prec
    ctx.prec = min(prec, 64)
    try:
        tol = ctx.mpf(2) ** (-ctx.prec + 8)
        w_hi = ctx.log(2 / a)
        w_lo = -(prec + 20) * ctx.ln2
        state: tuple | None = None
        for _ in range(70):
            w = (w_lo + w_hi) / 2
            sign, state = side(-ctx.exp(w), *(state[1::2] if state else (None, None)))
            if sign > 0:
                w_hi = w  # flatter slope: smaller |s|
            elif sign < 0:
                w_lo = w
            else:
                break
    finally:
        ctx.prec = prec
    s_lo, s_hi = -ctx.exp(w_hi), -ctx.exp(w_lo)  # s_lo < s_hi
    s = -ctx.exp((w_lo + w_hi) / 2)
    x1, t2 = (state[1], state[3]) if state else (None, None)
    # Newton on D within [s_lo, s_hi]
    for _ in range(64):
        c1, x1, c2, t2 = _conj(ctx, h, dh, d2h, s, x1, t2)
        D, dD = c1 - c2, x1 - _call(ctx, h, t2)
        if D == 0 or dD == 0:
            break
        nxt = s - D / dD
        if not (s_lo < nxt < s_hi):
            break
        if abs(nxt - s) <= abs(s) * ctx.mpf(2) ** (-ctx.prec + 4):
            s = nxt
            break
        s = nxt
    c1, x1, c2, t2 = _conj(ctx, h, dh, d2h, s, x1, t2)
    return Solution(s, x1, t2, a * s - max(c1, c2))


# ---------------------------------------------------------------------------------------------
# balls
# ---------------------------------------------------------------------------------------------


def arb_exact(v: Any) -> flint.arb:
    return arb_of_fraction(mpf_to_fraction(v))


def _upper(x: flint.arb) -> flint.arb:
    return flint.arb(x.upper())


def arb_lower(x: flint.arb) -> flint.arb:
    return flint.arb(x.lower())


def tangent_bound(psi: flint.arb, dpsi: flint.arb, x: flint.arb) -> flint.arb:
    """Upper end of sup over [0, 1] of a concave psi from its value and slope at x (fact 3)."""
    return _upper(psi + (-x * dpsi).max((1 - x) * dpsi))


def _lower_bound(h: Fn, dh: Fn, a: flint.arb, sol: Solution) -> flint.arb:
    """a s - U(s), U >= g*(s) = max(h*(s), h2*(s)) (facts 1-3)."""
    if sol.s == 0:
        return flint.arb(0)
    s, x1, t2 = arb_exact(sol.s), arb_exact(sol.x1), arb_exact(sol.t2)
    u1 = tangent_bound(s * x1 - h(x1), s - dh(x1), x1)
    u2 = tangent_bound(s * h(t2) - t2, s * dh(t2) - 1, t2)
    return arb_lower(a * s - u1.max(u2))


def _upper_bound(h: Fn, dh: Fn, a: flint.arb, sol: Solution) -> flint.arb:
    """min(h(a), h2(a), the chord between the two tangency points when they bracket a) (fact 4)."""
    best = _upper(h(a))
    inv = arb_implicit_inverse(h, dh, a)
    if inv.is_finite():
        best = best.min(_upper(inv))
    if sol.s != 0:
        x1, t2 = arb_exact(sol.x1), arb_exact(sol.t2)
        p1, p2 = (x1, h(x1)), (h(t2), t2)
        (xa, ya), (xb, yb) = sorted((p1, p2), key=lambda pt: float(pt[0].mid()))
        if xa <= a and a <= xb and xb - xa > 0:
            best = best.min(_upper(ya + (yb - ya) * (a - xa) / (xb - xa)))
    return best


def arb_envelope(h: Fn, dh: Fn, mp_functions: MpFns, a: flint.arb) -> flint.arb:
    """A ball containing C(a) at the current arb precision (``mp_functions``: h, h', h'' in mpmath)."""
    if not a.is_finite() or a < 0 or a > 1:
        return flint.arb.nan()
    if not a.is_exact():  # C is non-increasing: its values at the ends of the ball bound it
        return arb_envelope(h, dh, mp_functions, _upper(a)).union(arb_envelope(h, dh, mp_functions, arb_lower(a)))
    if a == 1:
        return flint.arb(0)  # g(1) = min(h(1), h2(1)) = 0
    if a == 0:
        # C(0) = g(0) = min(h(0), h2(0)) (a convex combination landing on 0 uses 0 only)
        return h(a).min(arb_implicit_inverse(h, dh, flint.arb(0)))
    bits = flint.ctx.prec
    with private_context(int(bits * 0.30103) + 1) as ctx:
        ctx.prec = bits
        hm, dhm, d2hm = mp_functions(ctx)
        q = fraction(a)
        sol = solve(ctx, hm, dhm, d2hm, ctx.mpf(q.numerator) / q.denominator)
    lo = _lower_bound(h, dh, a, sol).max(flint.arb(0))
    hi = _upper_bound(h, dh, a, sol).min(1 - a)
    if not (lo.is_finite() and hi.is_finite()):
        return flint.arb.nan()
    return lo.union(hi)


def fraction(a: flint.arb) -> Fraction:
    """The value of an exact ball."""
    ends = arb_endpoints(a)
    if ends is None:
        raise ValueError(f"not a finite ball: {a}")
    return ends[0]


def arb_envelope_slope(h: Fn, dh: Fn, mp_functions: MpFns, a: flint.arb) -> flint.arb:
    """A ball containing every subgradient of C over the ball a, by difference quotients.

    C convex: for l <= r and d > 0, (C(l) - C(l - d))/d <= C'(l-) and C'(r+) <= (C(r + d) - C(r))/d.
    """
    if not a.is_finite():
        return flint.arb.nan()
    l, r = arb_lower(a), _upper(a)
    d = flint.arb(2) ** (-(flint.ctx.prec // 2))
    if not (l - d >= 0 and r + d <= 1):
        return flint.arb.nan()

    def c(x: flint.arb) -> flint.arb:
        return arb_envelope(h, dh, mp_functions, x)

    lo = (c(l) - c(l - d)) / d
    hi = (c(r + d) - c(r)) / d
    return arb_lower(lo).union(_upper(hi))


def arb_conjugate(h: Fn, dh: Fn, mp_functions: MpFns, y: flint.arb,
                  inverse: bool = False, end_slopes: tuple = (None, None)) -> flint.arb:
    """A ball containing h*(y) = sup_t (y t - h(t)), or h2*(y) = sup_t (y h(t) - t) when
    ``inverse``, over t in [0, 1], for y < 0 (fact 1).

    The function psi maximised is concave.  An end is the maximiser exactly when psi' has the
    right sign there (decided in balls, with the one-sided slopes ``end_slopes`` = (h'(0+),
    h'(1-)) where the formula of h' is 0/0 at an end), which gives exact values such as h2*(y) = -1 (the end
    t = 1, h(1) = 0): delta(epsilon) = 0 beyond the pure-DP level then comes out exactly.
    Otherwise: below, the value at the maximiser the solver proposes; above, the tangent bound
    of fact 3, for every y in the ball.
    """
    if not y.is_finite() or not y < 0:
        return flint.arb.nan()

    def psi(t: flint.arb) -> flint.arb:
        return y * h(t) - t if inverse else y * t - h(t)

    def dpsi(t: flint.arb) -> flint.arb:
        return y * dh(t) - 1 if inverse else y - dh(t)

    def dpsi_end(t: flint.arb, slope: flint.arb | None) -> flint.arb:
        if slope is None:
            return dpsi(t)
        return y * slope - 1 if inverse else y - slope

    zero, one = flint.arb(0), flint.arb(1)
    d0 = dpsi_end(zero, end_slopes[0])
    if d0.is_finite() and d0 <= 0:
        return psi(zero)  # psi' <= 0 from the start: the maximum is at t = 0
    d1 = dpsi_end(one, end_slopes[1])
    if d1.is_finite() and d1 >= 0:
        return -one if inverse else y  # psi' >= 0 up to the end: the maximum is at t = 1, h(1) = 0
    bits = flint.ctx.prec
    with private_context(int(bits * 0.30103) + 1) as ctx:
        ctx.prec = bits
        _, dhm, d2hm = mp_functions(ctx)
        q = fraction(flint.arb(y.mid()))
        ym = ctx.mpf(q.numerator) / q.denominator
        x = arb_exact(touch(ctx, dhm, d2hm, 1 / ym if inverse else ym))
    value = psi(x)
    lo = arb_lower(value)
    hi = tangent_bound(value, dpsi(x), x)
    return lo.union(hi)


# ---------------------------------------------------------------------------------------------
# mpmath and numpy (approximate)
# ---------------------------------------------------------------------------------------------


def mp_envelope(ctx: Any, h: Fn, dh: Fn, d2h: Fn, a: Any) -> Any:
    """C(a) in the mpmath context ``ctx`` (approximate)."""
    a = ctx.mpf(a)
    if a >= 1:
        return ctx.zero
    if a <= 0:
        return min(_call(ctx, h, ctx.zero), _inverse(ctx, h, dh, ctx.zero))
    return solve(ctx, h, dh, d2h, a).value


def mp_envelope_slope(ctx: Any, h: Fn, dh: Fn, d2h: Fn, a: Any) -> Any:
    """C'(a) in the mpmath context ``ctx`` (approximate; -inf at a = 0 if h is that steep)."""
    a = ctx.mpf(a)
    if a <= 0:
        a = ctx.mpf(2) ** (-ctx.prec)
    if a >= 1:
        a = 1 - ctx.mpf(2) ** (-ctx.prec)
    return solve(ctx, h, dh, d2h, a).s


def mp_conjugate(ctx: Any, h: Fn, dh: Fn, d2h: Fn, y: Any, inverse: bool = False) -> Any:
    """h*(y) (or h2*(y) when ``inverse``) over [0, 1], approximately (see :func:`arb_conjugate`)."""
    y = ctx.mpf(y)
    if inverse:
        t = touch(ctx, dh, d2h, 1 / y)
        return max(y * _call(ctx, h, t) - t, -ctx.one, y * _call(ctx, h, ctx.zero))
    x = touch(ctx, dh, d2h, y)
    return max(y * x - _call(ctx, h, x), y, -_call(ctx, h, ctx.zero))


def _np_touch(dh: Fn, d2h: Fn, s: np.ndarray) -> np.ndarray:
    """:func:`touch` for arrays of slopes: safeguarded Newton, geometric bisection at the ends."""
    lo, hi = np.zeros_like(s), np.ones_like(s)
    x = np.full_like(s, 0.5)
    for _ in range(300):
        F = np.asarray(dh(x), dtype=np.float64) - s
        ok = np.isfinite(F)
        hi = np.where(ok & (F > 0), x, hi)
        lo = np.where(ok & (F < 0), x, lo)
        d = np.asarray(d2h(x), dtype=np.float64)
        nxt = x - F / d
        bad = ~(ok & np.isfinite(nxt) & (nxt > lo) & (nxt < hi))
        fallback = np.where((lo == 0) & (hi <= 0.5), hi / 16, np.where((hi == 1) & (lo >= 0.5), 1 - (1 - lo) / 16,
                                                                        (lo + hi) / 2))
        nxt = np.where(bad, fallback, nxt)
        done = (hi - lo <= 4e-16 * np.minimum(hi, 1 - lo)) | ((lo == 0) & (hi < 1e-300)) | (F == 0) \
            | ((hi == 1) & (1 - lo < 1e-16)) | (np.abs(nxt - x) <= 1e-16 * np.minimum(np.abs(nxt), 1 - np.abs(nxt)))
        x = np.where(F == 0, x, nxt)
        if done.all():
            break
    return np.clip(x, lo, hi)


def _np_solve(h: Fn, dh: Fn, d2h: Fn, a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(slope, value) of C at each a in (0, 1): :func:`solve` on arrays of doubles."""
    def H(x: np.ndarray) -> np.ndarray:
        return np.broadcast_to(np.asarray(h(x), dtype=np.float64), np.shape(x))

    def conj(s: np.ndarray) -> tuple[np.ndarray, ...]:
        x1, t2 = _np_touch(dh, d2h, s), _np_touch(dh, d2h, 1 / s)
        return s * x1 - H(x1), x1, s * H(t2) - t2, t2

    tol = 1e-13
    slope, value = np.zeros_like(a), np.zeros_like(a)
    todo = np.ones(a.shape, dtype=bool)
    s1 = np.asarray(dh(a), dtype=np.float64) * np.ones_like(a)
    good = np.isfinite(s1) & (s1 < 0)
    s1 = np.where(good, s1, -1.0)
    t2 = _np_touch(dh, d2h, 1 / s1)
    piece = good & (s1 * a - H(a) >= s1 * H(t2) - t2 - tol)
    slope, value, todo = np.where(piece, s1, slope), np.where(piece, H(a), value), todo & ~piece
    t = np_implicit_inverse(h, dh, a)
    d = np.asarray(dh(t), dtype=np.float64) * np.ones_like(a)
    zero = todo & ((t == 0) | (d == 0))
    todo &= ~zero
    good = np.isfinite(d) & (d < 0)
    s2 = np.where(good, 1 / np.where(good, d, -1.0), -1.0)
    x1 = _np_touch(dh, d2h, s2)
    piece = todo & good & (s2 * a - t >= s2 * x1 - H(x1) - tol)
    slope, value, todo = np.where(piece, s2, slope), np.where(piece, t, value), todo & ~piece
    if todo.any():
        b = a[todo]
        w_lo, w_hi = np.full_like(b, -60.0), np.log(2 / b)
        for _ in range(80):
            w = (w_lo + w_hi) / 2
            c1, x1, c2, t2 = conj(-np.exp(w))
            x2 = H(t2)
            left = np.where(c1 > c2 + tol, x1, np.where(c2 > c1 + tol, x2, np.minimum(x1, x2)))
            right = np.where(c1 > c2 + tol, x1, np.where(c2 > c1 + tol, x2, np.maximum(x1, x2)))
            w_hi = np.where(b > right, w, w_hi)
            w_lo = np.where(b < left, w, w_lo)
            inside = (b >= left) & (b <= right)
            w_lo, w_hi = np.where(inside, w, w_lo), np.where(inside, w, w_hi)
        s = -np.exp((w_lo + w_hi) / 2)
        c1, _, c2, _ = conj(s)
        slope[todo], value[todo] = s, b * s - np.maximum(c1, c2)
    return slope, value


def np_envelope(h: Fn, dh: Fn, d2h: Fn, a: Any) -> np.ndarray:
    """C at each entry of a, in float64 (the solver on arrays of doubles)."""
    arr = np.asarray(a, dtype=np.float64)
    out = np.zeros(arr.shape)
    inner = (arr > 0) & (arr < 1)
    with np.errstate(all="ignore"):
        if inner.any():
            out[inner] = _np_solve(h, dh, d2h, arr[inner])[1]
        at0 = arr <= 0
        if at0.any():
            z = np.zeros(1)
            out[at0] = min(float(np.asarray(h(z)).ravel()[0]), float(np_implicit_inverse(h, dh, z)[0]))
    return out


def np_envelope_slope(h: Fn, dh: Fn, d2h: Fn, a: Any) -> np.ndarray:
    """C' at each entry of a, in float64 (ends moved inside by 1e-300 and 1e-16)."""
    arr = np.clip(np.asarray(a, dtype=np.float64), 1e-300, 1 - 1e-16)
    with np.errstate(all="ignore"):
        return _np_solve(h, dh, d2h, arr.ravel())[0].reshape(arr.shape)


def mpmath_namespace(ctx: Any) -> dict[str, Any]:
    """mpmath versions of the envelope and conjugate nodes, bound to the context ``ctx``."""

    def symmetrized(h: Any, dh: Any, d2h: Any, v: Any) -> Any:
        return mp_envelope(ctx, h, dh, d2h, v)

    def symmetrized_slope(h: Any, dh: Any, d2h: Any, v: Any) -> Any:
        return mp_envelope_slope(ctx, h, dh, d2h, v)

    def tradeoff_conjugate(h: Any, dh: Any, d2h: Any, y: Any) -> Any:
        return mp_conjugate(ctx, h, dh, d2h, y)

    def inverse_conjugate(h: Any, dh: Any, d2h: Any, y: Any) -> Any:
        return mp_conjugate(ctx, h, dh, d2h, y, inverse=True)

    return {"symmetrized": symmetrized, "symmetrized_slope": symmetrized_slope,
            "tradeoff_conjugate": tradeoff_conjugate, "inverse_conjugate": inverse_conjugate}


def numpy_namespace() -> dict[str, Any]:
    """numpy versions of the envelope nodes, for sympy's lambdify."""
    return {"symmetrized": np_envelope, "symmetrized_slope": np_envelope_slope}
