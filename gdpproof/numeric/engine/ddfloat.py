"""Double-double arithmetic on numpy arrays, and the float64 Gaussian tail difference built on it.

A double-double is an unevaluated sum hi + lo of two float64 arrays (Veltkamp's split, Dekker's
exact product, Knuth's two-sum; numpy has no fused multiply-add), exact to about 2^-104 of the
operands' magnitudes; ``lo`` may be None for an exact double.  The generated kernels of
:mod:`gdpproof.numeric.engine._loss_kernels` evaluate an exponent with them to about one unit of
float64 rounding, where the plain formula loses hundreds (e^(-x^2/2) at x = 20 from a rounded x).
:func:`tail_difference` evaluates erfc(a)/2 - e^(-a^2) erfcx(a + d)/2 with erfcx from a generated
polynomial and the difference of the two erfcx values as a divided difference of that polynomial,
so nothing cancels: the float64 delta of ``gdpproof.fast`` (docs/guides/conversions.md, "Arrays
in float64"; the measurements in docs/performance.md).  Every operation takes an optional
:class:`Workspace` whose kept buffers receive its temporaries (numpy's ``out=``), so that a caller
working block by block allocates nothing per block.  Imports numpy and the standard library only.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

import numpy as np

__all__ = ["Workspace", "split", "two_prod", "dd_add", "dd_mul", "dd_div", "dd_scale", "dd_round", "tail_difference"]

_SPLIT = 134217729.0  # 2^27 + 1
#: 1 / (2 sqrt(pi)), correctly rounded
_HALF_RSQRT_PI = 0.28209479177387814

Array = np.ndarray


class Workspace:
    """Reusable float64 buffers of one length for the operations below (their ``ws`` argument),
    so that a caller working block by block allocates its temporaries once, not per block.

    :meth:`take` returns (the first ``n`` entries of) a buffer that no live array shares, making
    ``count`` more only when every buffer is in use (up to ``2 count`` buffers; beyond, it
    allocates as numpy does and keeps nothing); a temporary's buffer is free again as soon as the
    temporary is dropped (its reference count says so), as malloc would reuse it, but without
    asking malloc: an array above glibc's mmap threshold (128 KiB, 16,384 doubles, unless an
    earlier free raised it) is mmapped, and page faults on every page it touches, each time.
    The buffers are ``count`` rows of one array (``size`` entries each), made at once, so that
    they stay out of the heap's way; ``n`` (at most ``size``) is the current block's length.
    With ``ws=None`` the operations allocate as numpy does; the values are the same bits.

    Examples:
        >>> ws = Workspace(4, count=2)
        >>> ws.n = 3
        >>> t = ws.take()
        >>> u = ws.take()
        >>> t.shape, ws.buffers
        ((3,), 2)
        >>> v = ws.take()  # both in use: two more
        >>> ws.buffers
        4
        >>> del t, v
        >>> w = ws.take()  # t's buffer again
        >>> ws.buffers
        4
    """

    def __init__(self, size: int, count: int = 12) -> None:
        self.size = size
        self.n = size
        self._count = count
        self._rows: list[Array] = []

    @property
    def buffers(self) -> int:
        """The number of buffers made so far."""
        return len(self._rows)

    def take(self) -> Array:
        """A buffer of ``n`` entries that no live array shares (contents undefined)."""
        if not _COUNTS_EXACT:
            return np.empty(self.n)
        row = _first_free(self._rows, _FREE)
        if row is None:
            # each row an array over its own memoryview of the slab, so that a view of a row
            # has the row (not the slab) as its base, and the row's reference count shows it
            if len(self._rows) >= 2 * self._count:
                return np.empty(self.n)  # buffers held elsewhere (a kept traceback): allocate, keep no more
            slab = np.empty(self._count * self.size).data
            self._rows += [np.frombuffer(slab[i * self.size:(i + 1) * self.size]) for i in range(self._count)]
            row = self._rows[-self._count]
        return row if self.n == self.size else row[:self.n]


def _first_free(rows: list[Array], free: int) -> Array | None:
    """The first of ``rows`` whose reference count, seen here, is at most ``free``."""
    # counted in C (map), so that no frame of ours holds the row while it is counted: a trace
    # function reading frame.f_locals (3.11, 3.12) would add a reference to a loop variable
    for i, count in enumerate(map(sys.getrefcount, rows)):
        if count <= free:
            return rows[i]
    return None


#: Whether reference counts say exactly what refers to an array (not on a build without the GIL,
#: nor without sys.getrefcount: there :meth:`Workspace.take` allocates).
_COUNTS_EXACT = hasattr(sys, "getrefcount") and getattr(sys, "_is_gil_enabled", lambda: True)()
#: The count :func:`_first_free` sees of an array that only its list refers to: measured, not
#: assumed (3 up to Python 3.13; 3.14 borrows some references and counts fewer).
_FREE = next(k for k in range(1, 8) if _first_free([np.empty(0)], k) is not None) if _COUNTS_EXACT else 0


def _take(ws: Workspace | None) -> Array | None:
    """A ufunc's ``out``: a workspace buffer, or None (numpy allocates)."""
    return None if ws is None else ws.take()


def split(a: Array, ws: Workspace | None = None) -> tuple[Array, Array]:
    """(hi, lo) with hi + lo = a exactly and hi, lo of at most 26 significant bits (Veltkamp)."""
    t = np.multiply(a, _SPLIT, out=_take(ws))
    hi = np.subtract(t, a, out=_take(ws))
    np.subtract(t, hi, out=hi)
    np.subtract(a, hi, out=t)
    return hi, t


def two_prod(a: Array, b: Array, ws: Workspace | None = None) -> tuple[Array, Array]:
    """(p, e) with p = fl(a b) and p + e = a b exactly (Dekker), barring overflow."""
    p = np.multiply(a, b, out=_take(ws))
    ah, al = split(a, ws)
    bh, bl = split(b, ws)
    e = np.multiply(ah, bh, out=_take(ws))
    e -= p
    np.multiply(ah, bl, out=ah)  # ah has a's shape, the whole (as al *= bl requires)
    e += ah
    np.multiply(al, bh, out=ah)
    e += ah
    al *= bl
    e += al
    return p, e


def _two_square(a: Array, ws: Workspace | None) -> tuple[Array, Array]:
    """(p, e) with p = fl(a^2) and p + e = a^2 exactly."""
    p = np.multiply(a, a, out=_take(ws))
    ah, al = split(a, ws)
    e = np.multiply(ah, ah, out=_take(ws))
    e -= p
    ah *= al
    ah += ah
    e += ah
    al *= al
    e += al
    return p, e


def _two_sum(a: Array, b: Array, ws: Workspace | None) -> tuple[Array, Array]:
    s = np.add(a, b, out=_take(ws))
    bv = np.subtract(s, a, out=_take(ws))
    av = np.subtract(s, bv, out=_take(ws))
    np.subtract(b, bv, out=bv)
    np.subtract(a, av, out=av)
    bv += av
    return s, bv


def dd_add(ah: Array, al: Array | None, bh: Array, bl: Array | None,
           ws: Workspace | None = None) -> tuple[Array, Array]:
    """(ah + al) + (bh + bl) as an unnormalised double-double: s = fl(ah + bh) and the exact
    error of that sum plus the lows (not renormalised: after a sum that cancels the low part may
    exceed an ulp of the high one, and a product then drops a low times low of absolute size
    2^-104 times the operands' squares, which is what an exponent can tolerate)."""
    s, e = _two_sum(ah, bh, ws)
    if al is not None:
        e += al
    if bl is not None:
        e += bl
    return s, e


def dd_mul(ah: Array, al: Array | None, bh: Array, bl: Array | None,
           ws: Workspace | None = None) -> tuple[Array, Array]:
    """(ah + al)(bh + bl) as an unnormalised double-double (hi + lo, |lo| a few ulps of hi; the
    product of the two lows dropped: below 2^-104 relative)."""
    if ah is bh and al is bl:
        p, e = _two_square(ah, ws)
        if al is not None:
            t = np.multiply(ah, al, out=_take(ws))
            t += t
            e += t
        return p, e
    p, e = two_prod(ah, bh, ws)
    if bl is not None:
        e += np.multiply(ah, bl, out=_take(ws))
    if al is not None:
        e += np.multiply(al, bh, out=_take(ws))
    return p, e


def dd_div(ah: Array, al: Array | None, bh: Array, bl: Array | None,
           ws: Workspace | None = None) -> tuple[Array, Array]:
    """(ah + al)/(bh + bl) as a double-double: q = fl(ah/bh), then the exact remainder ah - q bh
    (Dekker's product; ah - fl(q bh) is exact, the two being within a rounding of each other)
    corrected by the lows, divided once more."""
    q = np.divide(ah, bh, out=_take(ws))
    p, e = two_prod(q, bh, ws)
    r = np.subtract(ah, p, out=p)
    r -= e
    if al is not None:
        r += al
    if bl is not None:
        r -= np.multiply(q, bl, out=e)
    r /= bh
    return q, r


def dd_scale(ah: Array, al: Array | None, r: float, ws: Workspace | None = None) -> tuple[Array, Array | None]:
    """(ah + al) r for r a power of two (exact, barring overflow and underflow)."""
    return np.multiply(ah, r, out=_take(ws)), (None if al is None else np.multiply(al, r, out=_take(ws)))


def dd_round(ah: Array, al: Array | None, c: float, ws: Workspace | None = None) -> Array:
    """fl(fl(ah + al) c), or fl(ah c) when ``al`` is None: a double-double rounded, times a float."""
    if al is None:
        return np.multiply(ah, c, out=_take(ws))
    t = np.add(ah, al, out=_take(ws))
    t *= c
    return t


def _horner_divided(coeffs: Sequence[float], ta: Array, tb: Array,
                    ws: Workspace | None = None) -> tuple[Array, Array]:
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
    beta = np.multiply(ta, coeffs[0], out=_take(ws))
    beta += coeffs[1]
    q = np.multiply(tb, coeffs[0], out=_take(ws))
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
                    out: Array | None = None, ws: Workspace | None = None) -> Array:
    """erfc(a)/2 - e^z erfcx(a + d)/2 for z = -a^2 (given as the double-double z_hi + z_lo), d > 0.

    erfcx(x) = p(t)/(sqrt(pi) (x + k)) for x >= 0, t = (x - k)/(x + k), p the polynomial of
    ``coeffs``.  For a >= 0 the value is e^z (erfcx(a) - erfcx(b))/2 with b = a + d, and
    sqrt(pi)(erfcx(a) - erfcx(b)) = d [p(tb) - 2k Q/(a + k)]/((a + k)(b + k)), Q the divided
    difference of p between ta and tb (because ta - tb = -2k d/((a + k)(b + k))): a sum of two
    positive terms (p decreases), so nothing cancels however small d is.  For a < 0,
    erfc(a) = 2 - e^z erfcx(|a|), and the value is 1 - e^z (erfcx(|a|) + erfcx(b))/2.  e^z is
    e^z_hi (1 + z_lo).  ``k`` and ``coeffs`` come from the generated kernels (ERFCX_POLY_K,
    ERFCX_POLY); the result goes to ``out`` when given, and the temporaries to ``ws`` (a
    :class:`Workspace` with ``n`` the arrays' length) when given.  Inputs outside float64's reach
    (e^z_hi underflowing, a + d overflowing) give 0, inf or NaN, which the caller hands to the
    certified path.
    """
    e = np.exp(z_hi, out=_take(ws))
    t = np.multiply(z_lo, _HALF_RSQRT_PI, out=_take(ws))
    t += _HALF_RSQRT_PI
    e *= t  # e^z/(2 sqrt pi)
    del t
    b = np.add(a, d, out=_take(ws))
    aa = np.abs(a, out=_take(ws))
    rak = np.add(aa, k, out=_take(ws))
    np.divide(1.0, rak, out=rak)  # 1/(|a| + k)
    rbk = np.add(b, k, out=_take(ws))
    np.divide(1.0, rbk, out=rbk)
    ta = np.subtract(aa, k, out=aa)
    ta *= rak
    tb = np.subtract(b, k, out=b)
    tb *= rbk
    pa, q = _horner_divided(coeffs, ta, tb, ws)
    # p(tb) = p(ta) - Q (ta - tb)
    pb = np.subtract(ta, tb, out=ta)
    del ta, tb, aa, b
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
    del pb, rak, rbk
    # without branches (a random sign pattern made np.where and a masked subtract a third of
    # the time): s = q + neg (pa - q), value = neg + (1 - 2 neg) s e (neg as 0.0 or 1.0 in a
    # workspace: the same products as with booleans)
    neg = np.less(a, 0.0, out=_take(ws))
    pa -= q
    pa *= neg
    q += pa
    q *= e
    sign = np.multiply(neg, -2.0, out=pa)
    sign += 1.0
    q *= sign
    return np.add(q, neg, out=out)
