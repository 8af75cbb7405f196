"""Double-double arithmetic on numpy arrays, and the float64 Gaussian tail difference built on it.

A double-double is an unevaluated sum hi + lo of two float64 arrays (Veltkamp's split, Dekker's
exact product, Knuth's two-sum; numpy has no fused multiply-add), exact to about 2^-104 of the
operands' magnitudes; ``lo`` may be None for an exact double.  The generated kernels of
:mod:`gdpproof.numeric.engine._loss_kernels` evaluate an exponent with them to about one unit of
float64 rounding, where the plain formula loses hundreds (e^(-x^2/2) at x = 20 from a rounded x).
:func:`tail_difference` evaluates erfc(a)/2 - e^(-a^2) erfcx(a + d)/2 with erfcx from a generated
polynomial and the difference of the two erfcx values as a divided difference of that polynomial,
so nothing cancels: the float64 delta of ``gdpproof.fast`` (docs/guides/conversions.md, "Arrays in
float64"; the measurements in docs/performance.md).  Imports numpy only.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

__all__ = ["split", "two_prod", "dd_add", "dd_mul", "dd_div", "dd_scale", "tail_difference"]

_SPLIT = 134217729.0  # 2^27 + 1
#: 1 / (2 sqrt(pi)), correctly rounded
_HALF_RSQRT_PI = 0.28209479177387814

Array = np.ndarray


def split(a: Array) -> tuple[Array, Array]:
    """(hi, lo) with hi + lo = a exactly and hi, lo of at most 26 significant bits (Veltkamp)."""
    t = a * _SPLIT
    hi = t - a
    np.subtract(t, hi, out=hi)
    np.subtract(a, hi, out=t)
    return hi, t


def two_prod(a: Array, b: Array) -> tuple[Array, Array]:
    """(p, e) with p = fl(a b) and p + e = a b exactly (Dekker), barring overflow."""
    p = a * b
    ah, al = split(a)
    bh, bl = split(b)
    e = ah * bh
    e -= p
    t = ah * bl
    e += t
    np.multiply(al, bh, out=t)
    e += t
    al *= bl
    e += al
    return p, e


def _two_square(a: Array) -> tuple[Array, Array]:
    """(p, e) with p = fl(a^2) and p + e = a^2 exactly."""
    p = a * a
    ah, al = split(a)
    e = ah * ah
    e -= p
    ah *= al
    ah += ah
    e += ah
    al *= al
    e += al
    return p, e


def _two_sum(a: Array, b: Array) -> tuple[Array, Array]:
    s = a + b
    bv = s - a
    av = s - bv
    np.subtract(b, bv, out=bv)
    np.subtract(a, av, out=av)
    bv += av
    return s, bv


def dd_add(ah: Array, al: Array | None, bh: Array, bl: Array | None) -> tuple[Array, Array]:
    """(ah + al) + (bh + bl) as an unnormalised double-double: s = fl(ah + bh) and the exact
    error of that sum plus the lows (not renormalised: after a sum that cancels the low part may
    exceed an ulp of the high one, and a product then drops a low times low of absolute size
    2^-104 times the operands' squares, which is what an exponent can tolerate)."""
    s, e = _two_sum(ah, bh)
    if al is not None:
        e += al
    if bl is not None:
        e += bl
    return s, e


def dd_mul(ah: Array, al: Array | None, bh: Array, bl: Array | None) -> tuple[Array, Array]:
    """(ah + al)(bh + bl) as an unnormalised double-double (hi + lo, |lo| a few ulps of hi; the
    product of the two lows dropped: below 2^-104 relative)."""
    if ah is bh and al is bl:
        p, e = _two_square(ah)
        if al is not None:
            t = ah * al
            t += t
            e += t
        return p, e
    p, e = two_prod(ah, bh)
    if bl is not None:
        e += ah * bl
    if al is not None:
        e += al * bh
    return p, e


def dd_div(ah: Array, al: Array | None, bh: Array, bl: Array | None) -> tuple[Array, Array]:
    """(ah + al)/(bh + bl) as a double-double: q = fl(ah/bh), then the exact remainder ah - q bh
    (Dekker's product; ah - fl(q bh) is exact, the two being within a rounding of each other)
    corrected by the lows, divided once more."""
    q = ah / bh
    p, e = two_prod(q, bh)
    r = ah - p
    r -= e
    if al is not None:
        r += al
    if bl is not None:
        r -= q * bl
    r /= bh
    return q, r


def dd_scale(ah: Array, al: Array | None, r: float) -> tuple[Array, Array | None]:
    """(ah + al) r for r a power of two (exact, barring overflow and underflow)."""
    return ah * r, (None if al is None else al * r)


def _horner_divided(coeffs: Sequence[float], ta: Array, tb: Array) -> tuple[Array, Array]:
    """p(ta) and the divided difference (p(ta) - p(tb))/(ta - tb) of the polynomial with ``coeffs``
    (highest degree first), in one pass: with b_n = c_n, b_k = b_(k+1) ta + c_k, the divided
    difference is sum_k b_k tb^(k-1), a Horner recurrence in the same order.  One entry (a
    scalar call, such as the search's CLT estimate) runs on Python floats: the same IEEE
    products and sums, one rounding each, so the same bits, without a numpy call per operation."""
    if ta.size == 1:
        x, y = float(ta.reshape(-1)[0]), float(tb.reshape(-1)[0])
        b_ = x * coeffs[0] + coeffs[1]
        q_ = y * coeffs[0] + b_
        for c in coeffs[2:-1]:
            b_ = b_ * x + c
            q_ = q_ * y + b_
        b_ = b_ * x + coeffs[-1]
        return np.full(ta.shape, b_), np.full(ta.shape, q_)
    beta = ta * coeffs[0]
    beta += coeffs[1]
    q = tb * coeffs[0]
    q += beta
    for c in coeffs[2:-1]:
        beta *= ta
        beta += c
        q *= tb
        q += beta
    beta *= ta
    beta += coeffs[-1]
    return beta, q


def tail_difference(z_hi: Array, z_lo: Array, a: Array, d: Array, k: float, coeffs: Sequence[float],
                    out: Array | None = None) -> Array:
    """erfc(a)/2 - e^z erfcx(a + d)/2 for z = -a^2 (given as the double-double z_hi + z_lo), d > 0.

    erfcx(x) = p(t)/(sqrt(pi) (x + k)) for x >= 0, t = (x - k)/(x + k), p the polynomial of
    ``coeffs``.  For a >= 0 the value is e^z (erfcx(a) - erfcx(b))/2 with b = a + d, and
    sqrt(pi)(erfcx(a) - erfcx(b)) = d [p(tb) - 2k Q/(a + k)]/((a + k)(b + k)), Q the divided
    difference of p between ta and tb (because ta - tb = -2k d/((a + k)(b + k))): a sum of two
    positive terms (p decreases), so nothing cancels however small d is.  For a < 0,
    erfc(a) = 2 - e^z erfcx(|a|), and the value is 1 - e^z (erfcx(|a|) + erfcx(b))/2.  e^z is
    e^z_hi (1 + z_lo).  ``k`` and ``coeffs`` come from the generated kernels (ERFCX_POLY_K,
    ERFCX_POLY); the result goes to ``out`` when given.  Inputs outside float64's reach
    (e^z_hi underflowing, a + d overflowing) give 0, inf or NaN, which the caller hands to the
    certified path.
    """
    e = np.exp(z_hi)
    z_lo = z_lo * _HALF_RSQRT_PI
    z_lo += _HALF_RSQRT_PI
    e *= z_lo  # e^z/(2 sqrt pi)
    b = a + d
    aa = np.abs(a)
    rak = aa + k
    np.divide(1.0, rak, out=rak)  # 1/(|a| + k)
    rbk = b + k
    np.divide(1.0, rbk, out=rbk)
    ta = aa - k
    ta *= rak
    tb = b - k
    tb *= rbk
    pa, q = _horner_divided(coeffs, ta, tb)
    # p(tb) = p(ta) - Q (ta - tb)
    pb = ta - tb
    pb *= q
    np.subtract(pa, pb, out=pb)
    # a >= 0: e d/(2 sqrt pi) [p(tb) - 2k Q/(a + k)]/((a + k)(b + k))
    q *= -2.0 * k
    q *= rak
    q += pb
    q *= rak
    q *= rbk
    q *= d
    # a < 0: 1 - e/(2 sqrt pi) (p(ta)/(|a| + k) + p(tb)/(b + k))
    pa *= rak
    pb *= rbk
    pa += pb
    # without branches (a random sign pattern made np.where and a masked subtract a third of
    # the time): s = q + neg (pa - q), value = neg + (1 - 2 neg) s e
    neg = np.less(a, 0.0)
    pa -= q
    pa *= neg
    q += pa
    q *= e
    sign = np.multiply(neg, -2.0)
    sign += 1.0
    q *= sign
    return np.add(q, neg, out=out)
