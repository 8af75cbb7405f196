"""Certified one-dimensional optimisation in ball arithmetic.

Two enclosures used by the duality operations:

* :func:`concave_sup`: the supremum of a concave function on an interval, by bisection on the
  sign of its derivative, bounded above by supporting lines (concavity makes every tangent an
  upper bound) and below by values at visited points;
* :func:`branch_and_bound_sup`: the supremum of a smooth (or piecewise smooth) function on an
  interval, by interval branch and bound with the mean-value form, which converges
  quadratically near a smooth maximum.

Both return exact rational endpoints ``(lower, upper)`` that contain the supremum.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable
from fractions import Fraction

import flint

from ._mp import arb_endpoints, arb_of_fraction

__all__ = ["concave_sup", "branch_and_bound_sup", "arb_of_fraction", "monotone_crossing"]

ArbFn = Callable[[flint.arb], flint.arb]


def _ends(x: flint.arb) -> tuple[Fraction, Fraction] | None:
    return arb_endpoints(x)


def concave_sup(g: ArbFn, dg: ArbFn, lo: Fraction, hi: Fraction, bits: int,
                endpoint_values: tuple[Fraction | None, Fraction | None] = (None, None)) -> tuple[Fraction, Fraction] | None:
    """Enclose sup of a concave ``g`` over [lo, hi] using its derivative ``dg``.

    ``dg`` is only evaluated strictly inside the interval (it may be infinite at the ends).
    ``endpoint_values`` are exact values of g at lo and hi when known.  Returns None when no
    finite enclosure was found at this precision.
    """
    a, b = lo, hi
    best = None  # a certified lower bound: the largest lower end of g at a visited point
    for v in endpoint_values:
        if v is not None:
            best = v if best is None else max(best, v)
    line_a = None  # upper bound of g over [a, hi]: g(a)_hi + dg(a)_hi * (x - a)
    line_b = None
    point_m = None
    for _ in range(bits + 8):
        m = (a + b) / 2
        am = arb_of_fraction(m)
        gm = _ends(g(am))
        dm = _ends(dg(am))
        if gm is None or dm is None:
            return None
        best = gm[0] if best is None else max(best, gm[0])
        if dm[0] > 0:
            a, line_a = m, (gm[1], dm[1])
        elif dm[1] < 0:
            b, line_b = m, (gm[1], dm[0])
        else:
            point_m = (m, gm[1], max(abs(dm[0]), abs(dm[1])))
            break
        if b - a <= (hi - lo) * Fraction(1, 2**bits):
            break
    bounds = []
    if line_a is not None:
        bounds.append(line_a[0] + max(line_a[1], Fraction(0)) * (b - a))
    if line_b is not None:
        bounds.append(line_b[0] + max(-line_b[1], Fraction(0)) * (b - a))
    if point_m is not None:
        m, gm_hi, slope = point_m
        bounds.append(gm_hi + slope * max(m - a, b - m))
    if not bounds or best is None:
        return None
    # points left of a (right of b) lie below g(a) (g(b)) by concavity, so the supremum over
    # [lo, hi] is the supremum over [a, b], which every supporting line bounds
    upper = min(bounds)
    return best, max(upper, best)


def _magnitude(q: Fraction) -> int:
    """floor-ish log2 |q|: |q| lies in (2^(m-1), 2^(m+1)) for m = bits(numerator) - bits(denominator)."""
    return abs(q.numerator).bit_length() - q.denominator.bit_length()


class _Larger:
    """A heap key putting the larger upper bound first; the order is exactly that of the values.

    A pointwise bound far out in a tail can be a Fraction with tens of millions of bits (the
    derivative ball there is ~2^(7e7) wide); comparing it to every box on its heap path by
    cross-multiplication cost seconds.  Values whose binary magnitudes differ by 2 or more are
    ordered by magnitude alone (which decides it exactly); only close values are cross-multiplied.
    """

    __slots__ = ("value", "_sign", "_mag")

    def __init__(self, value: Fraction | float):
        self.value = value
        if isinstance(value, Fraction) and value:
            self._sign = 1 if value > 0 else -1
            self._mag = _magnitude(value)
        else:
            self._sign = 0  # zero or an infinity: compared directly (cheap)
            self._mag = 0

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Larger) and self.value == other.value

    def __lt__(self, other: "_Larger") -> bool:  # "comes first": a larger value
        s, o = self._sign, other._sign
        if s and o:
            if s != o:
                return s > o
            if self._mag >= other._mag + 2:
                return s > 0
            if other._mag >= self._mag + 2:
                return s < 0
        return self.value > other.value


def branch_and_bound_sup(h: ArbFn, dh: ArbFn, lo: Fraction, hi: Fraction, *, rel_tol: Fraction,
                         max_boxes: int = 6000) -> tuple[Fraction, Fraction] | None:
    """Enclose sup of ``h`` over [lo, hi] by branch and bound with the mean-value form.

    Boxes whose bound is not finite (an intermediate ball too wide for a special function's
    domain) are split until it is.  Returns None if ``max_boxes`` is exceeded.
    """
    best: Fraction | None = None
    INF = float("inf")

    def bound(l: Fraction, r: Fraction) -> Fraction | float:
        nonlocal best
        c = (l + r) / 2
        w = (r - l) / 2
        hc = _ends(h(arb_of_fraction(c)))
        if hc is None:
            return INF
        best = hc[0] if best is None else max(best, hc[0])
        box = flint.arb(arb_of_fraction(c), arb_of_fraction(w))
        d = _ends(dh(box))
        if d is None:
            hv = _ends(h(box))
            return INF if hv is None else hv[1]
        slope = max(abs(d[0]), abs(d[1]))
        return hc[1] + slope * w

    n = 64
    heap: list = []
    step = (hi - lo) / n
    for i in range(n):
        l, r = lo + i * step, lo + (i + 1) * step
        heapq.heappush(heap, (_Larger(bound(l, r)), l, r))
    boxes = n
    while heap:
        key, l, r = heap[0]
        upper = key.value
        if best is not None and upper != INF and upper - best <= rel_tol * max(abs(best), Fraction(1, 10**6)):
            return best, Fraction(upper)
        heapq.heappop(heap)
        if best is not None and upper < best:
            continue
        mid = (l + r) / 2
        for a, b in ((l, mid), (mid, r)):
            u = bound(a, b)
            if best is None or u >= best:
                heapq.heappush(heap, (_Larger(u), a, b))
        boxes += 2
        if boxes > max_boxes:
            return None
    return (best, best) if best is not None else None


def monotone_crossing(less_or_equal: Callable[[Fraction], bool | None], lo: Fraction, hi: Fraction,
                      bits: int) -> tuple[Fraction, Fraction]:
    """Enclose inf{t in [lo, hi] : P(t)} for a predicate that is monotone (False then True).

    ``less_or_equal(t)`` returns True/False when certain and None when undecided.  Assumes
    P(hi) and not P(lo).
    """
    a, b = lo, hi
    for _ in range(bits + 8):
        m = (a + b) / 2
        v = less_or_equal(m)
        if v is True:
            b = m
        elif v is False:
            a = m
        else:
            break
        if b - a <= (hi - lo) * Fraction(1, 2**bits):
            break
    return a, b
