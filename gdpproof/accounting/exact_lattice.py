"""The exact integer lattice: bin masses enclosed in arb balls and floored to integers at a
scale 2^K, composed by ``fmpz_poly`` products floored back, so that the composed vector is below
the true lattice law pointwise and the missing mass is an exact rational (charged as 1 in the
upper end, 0 in the lower).  It resolves any delta, for bits: K grows with log(1/delta).

:class:`ExactDirection` is its :class:`~gdpproof.accounting.direction.Direction`.  The proof,
with its assumptions (none numerical) and references: ``docs/proofs/exact_lattice.md``.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import flint
import numpy as np

from ..errors import PrecisionError
from ..numeric.engine._mp import arb_from_exact, arb_precision
from ..numeric.engine.bound import down, next_up, directed_double
from .coupling import Lattice
from .losses import CompiledLoss, Law, PrivacyLoss

__all__ = ["ROUTE", "compose_exact", "grid_step_exact"]

#: The name of this route (``ComposedLoss.route``).
ROUTE = "exact integer lattice"

#: Entries between checkpoints of the arb tail sums (memory against time per evaluation).
_BLOCK = 64


#: The largest per-step window, in bins (about 100 ms of ball arithmetic per 1000 bins).
MAX_STEP_BINS = 4_000_000


def law_kernel(family: str, kind: str, law: Law) -> Any:
    """The arb function (ell, *parameters) of a family's CDF or survival function under ``law``
    ("P" or "Q"; "PQ": a pair of balls, both laws with their common subexpressions once): the
    kernel generated ahead of time from :mod:`gdpproof.symbolic.losses`
    (:mod:`gdpproof.numeric.engine._loss_kernels`; the discrete laws give theirs by ``ball_law``)."""
    from ..numeric.engine import _loss_kernels

    return getattr(_loss_kernels, f"{family}__{kind}__{law}")


def grid_step_exact(h: float) -> float:
    """The largest double <= h with an 8-bit mantissa: every bin edge (k - 1/2) h is then a
    double (for |k| < 2^43), so the edges are exact in float and arb alike."""
    if not h > 0:
        raise PrecisionError(f"grid step {h} is not positive")
    m, e = math.frexp(h)
    return math.ldexp(math.floor(m * 256) / 256, e)


def _edges(k_lo: int, k_hi: int, h: float) -> list[float]:
    """The edges (k - 1/2) h for k in [k_lo, k_hi]: exact doubles, since h has an 8-bit
    mantissa (:func:`grid_step_exact`) and |2k - 1| < 2^45 (checked)."""
    m, _ = math.frexp(h)
    if m * 256 != math.floor(m * 256) or max(abs(k_lo), abs(k_hi)) >= 2**44:
        raise PrecisionError(f"the bin edges of the grid step {h!r} are not all doubles")
    return [(k - 0.5) * h for k in range(k_lo, k_hi + 1)]


def _floor_scaled(ball: flint.arb, K: int) -> int:
    """max(0, floor(lower(ball) 2^K)), exactly."""
    lo = ball.lower()
    if not lo.is_finite():
        return 0
    man, ex = lo.man_exp()
    man, ex = int(man), int(ex) + K
    v = man << ex if ex >= 0 else man >> -ex  # >> floors
    return max(0, v)


#: [0, 1] as a ball (exact at any precision; built once: the masses clip to it at every edge).
_UNIT = flint.arb(0.5, 0.5)


class LawBalls:
    """The ball CDF/SF of one law of a compiled loss, 0/1 outside the support."""

    def __init__(self, loss: CompiledLoss, law: Law) -> None:
        self.loss, self.law = loss, law
        hook = getattr(loss, "ball_law", None)  # a law whose CDF is a sum (the discrete Gaussian)
        if hook is not None:
            self.cdf_fn, self.sf_fn = hook(law)
        else:
            self.cdf_fn = law_kernel(loss.family, "cdf", law)
            self.sf_fn = law_kernel(loss.family, "sf", law)
        self.params = loss._balls()
        self.lo, self.hi = loss.support()

    def cdf(self, e: float) -> flint.arb:
        """P(L <= e), a ball (0 below the support, 1 at and above its top)."""
        return self._at(self.cdf_fn, e, 0, 1)

    def sf(self, e: float) -> flint.arb:
        """P(L > e), a ball (1 below the support, 0 at and above its top)."""
        return self._at(self.sf_fn, e, 1, 0)

    def _at(self, fn: Any, e: float, below: int, above: int) -> flint.arb:
        if e < self.lo:
            return flint.arb(below)
        if e >= self.hi:
            return flint.arb(above)
        return self._clip(fn(flint.arb(e), *self.params))

    @staticmethod
    def _clip(b: flint.arb) -> flint.arb:
        # a probability: an undecided ball (nan, or wider than [0, 1]) is replaced by [0, 1]
        if not b.is_finite():
            return _UNIT
        return b.intersection(_UNIT) if b.overlaps(_UNIT) else b

    def bins(self, tau: Fraction, h: float) -> tuple[int, int]:
        """Lattice indices (k_lo, k_hi) with P(L <= (k_lo - 1/2) h) <= tau and
        P(L > (k_hi + 1/2) h) <= tau, decided by the balls (galloping, then integer bisection)."""
        t = arb_from_exact(tau)
        k_mid = round(float(self.loss._median(self.law)) / h)

        def outward(ok: Any, sign: int) -> int:
            """The k nearest k_mid (going by ``sign``) with ok(k); ok is monotone that way."""
            near, far = 0, 1
            while not ok(k_mid + sign * far):
                near, far = far, 2 * far
                if far > 2**43:
                    raise PrecisionError(f"{self.loss.name}: the tails of the privacy loss do not fall below "
                                         f"{float(tau):.3g} on this grid")
            while far - near > 1:
                m = (near + far) // 2
                if ok(k_mid + sign * m):
                    far = m
                else:
                    near = m
            return k_mid + sign * far

        # the balls must resolve values below tau: a far tail evaluated at fewer bits than tau has
        # (a discrete Gaussian's table ends at 2^-(bits + 30), an interval [0, 2^-(...)] beyond it)
        # never falls below it
        bits = max(flint.ctx.prec, -(Fraction(tau).numerator.bit_length() - Fraction(tau).denominator.bit_length())
                   + 64)
        with arb_precision(bits):
            k_lo = outward(lambda k: bool(self.cdf((k - 0.5) * h) <= t), -1)
            k_hi = outward(lambda k: bool(self.sf((k + 0.5) * h) <= t), 1)
        return k_lo, k_hi


@dataclass
class _IntStep:
    """One step's loss on the lattice: integer lower bounds of its masses at scale 2^K, and the
    mean rounding error as a rational interval."""

    k0: int
    v: list[int]
    dbar: tuple[Fraction, Fraction]


def _edge_values(dist: LawBalls, edges: list[float], left: list[bool], prec: int) -> list[flint.arb]:
    """CDF (left edges) or SF (right edges) at every edge, each with absolute accuracy about
    2^-prec: evaluated outward from the median, so that each value bounds the next one (both
    functions decrease outward) and the precision drops by the bits below 1 that it has."""
    vals: list[Any] = [None] * len(edges)
    split = sum(left)
    tolerance = flint.arb(2) ** -prec
    for side in (range(split - 1, -1, -1), range(split, len(edges))):
        below = 0  # the previous value on this side is < 2^-below
        reduce = True  # until a form turns out to lose accuracy (1 - erfc(z)/2 in a tail)
        for i in side:
            fn = dist.cdf if left[i] else dist.sf
            with arb_precision(max(64, prec - below)):
                val = fn(edges[i])
            if below and not val.rad() <= tolerance:
                reduce, below = False, 0
                val = fn(edges[i])
            vals[i] = val
            up = val.upper()
            if reduce and up > 0:
                man, ex = up.man_exp()
                below = max(0, -(int(man).bit_length() + int(ex)) - 8)
    return vals


def bin_mass(vals: list[flint.arb], left: list[bool], i: int) -> flint.arb:
    """The mass between edges i and i + 1 from :func:`_edge_values` (CDF at left edges, SF at
    right ones): a difference of the small side's values."""
    if left[i + 1]:
        return vals[i + 1] - vals[i]
    if not left[i]:
        return vals[i] - vals[i + 1]
    return 1 - vals[i] - vals[i + 1]


def _edge_values_pq(loss: CompiledLoss, edges: list[float], lefts: dict[str, list[bool]],
                    prec: int) -> dict[str, list[flint.arb]]:
    """:func:`_edge_values` for both laws at once: one kernel call per edge gives both (the laws'
    common subexpressions, such as the subsampled Gaussian's erfc of its Q-law, once), the
    precision lowered outward by the bits below 1 of the larger of the two previous values (so
    that both get their absolute accuracy); between the two medians, where one law takes its CDF
    and the other its survival function, both kernels at the full precision."""
    kernels = {True: law_kernel(loss.family, "cdf", "PQ"), False: law_kernel(loss.family, "sf", "PQ")}
    params = loss._balls()
    s_lo, s_hi = loss.support()
    n = len(edges)
    vals: dict[str, list[Any]] = {"P": [None] * n, "Q": [None] * n}
    tolerance = flint.arb(2) ** -prec

    def pair(i: int, kinds: tuple[bool, bool]) -> tuple[flint.arb, flint.arb]:
        e = edges[i]
        if e < s_lo:
            return flint.arb(0 if kinds[0] else 1), flint.arb(0 if kinds[1] else 1)
        if e >= s_hi:
            return flint.arb(1 if kinds[0] else 0), flint.arb(1 if kinds[1] else 0)
        x = flint.arb(e)
        first = kernels[kinds[0]](x, *params)
        second = first if kinds[1] == kinds[0] else kernels[kinds[1]](x, *params)
        return LawBalls._clip(first[0]), LawBalls._clip(second[1])

    both_left = min(sum(lefts["P"]), sum(lefts["Q"]))
    both_right = max(sum(lefts["P"]), sum(lefts["Q"]))
    for i in range(both_left, both_right):  # between the medians
        with arb_precision(prec):
            vals["P"][i], vals["Q"][i] = pair(i, (lefts["P"][i], lefts["Q"][i]))
    for side, kind in ((range(both_left - 1, -1, -1), True), (range(both_right, n), False)):
        below = 0  # the previous values on this side are < 2^-below
        reduce = True  # until a form turns out to lose accuracy (1 - erfc(z)/2 in a tail)
        for i in side:
            with arb_precision(max(64, prec - below)):
                v = pair(i, (kind, kind))
            if below and not all(b.rad() <= tolerance for b in v):
                reduce, below = False, 0
                with arb_precision(prec):
                    v = pair(i, (kind, kind))
            vals["P"][i], vals["Q"][i] = v
            if reduce:
                bits = []
                for b in v:
                    up = b.upper()
                    if up > 0:
                        man, ex = up.man_exp()
                        bits.append(max(0, -(int(man).bit_length() + int(ex)) - 8))
                if bits:
                    below = min(bits)
    return vals


def _int_steps(loss: CompiledLoss, laws: str, h: float, K: int, tau: Fraction,
               prec: int | None = None) -> dict[str, _IntStep]:
    """Each law's step (``laws`` "P", "Q" or "PQ") on the lattice; for both laws of a compiled
    family, the edge values of both windows (their union) from one kernel call per edge
    (:func:`_edge_values_pq`)."""
    prec = K + 40 if prec is None else prec
    dists = {law: LawBalls(loss, law) for law in laws}
    windows = {}
    for law in laws:
        k_lo, k_hi = dists[law].bins(tau, h)
        if k_hi - k_lo + 1 > MAX_STEP_BINS:
            raise PrecisionError(f"grid of {k_hi - k_lo + 1} points for {loss.name}: too fine for the exact "
                                 "lattice (ask for a larger rel_width or delta)")
        windows[law] = (k_lo, k_hi)
    # CDF left of each law's median, SF right of it: the masses are differences of small numbers
    medians = {law: float(loss._median(law)) for law in laws}
    shared = len(laws) == 2 and getattr(loss, "ball_law", None) is None
    if shared:
        k_min = min(w[0] for w in windows.values())
        union = _edges(k_min, max(w[1] for w in windows.values()) + 1, h)
        union_left = {law: [e <= medians[law] for e in union] for law in laws}
        union_vals = _edge_values_pq(loss, union, union_left, prec)
    out = {}
    for law in laws:
        k_lo, k_hi = windows[law]
        if shared:
            a, b = k_lo - k_min, k_hi + 2 - k_min
            edges, left, vals = union[a:b], union_left[law][a:b], union_vals[law][a:b]
        else:
            edges = _edges(k_lo, k_hi + 1, h)
            left = [e <= medians[law] for e in edges]
            vals = _edge_values(dists[law], edges, left, prec)
        out[law] = _masses(loss, law, dists[law], h, K, k_lo, edges, left, vals)
    return out


def _int_step(loss: CompiledLoss, law: Law, h: float, K: int, tau: Fraction, prec: int | None = None) -> _IntStep:
    """One law's step on the lattice (:func:`_int_steps`)."""
    return _int_steps(loss, law, h, K, tau, prec)[law]


def _masses(loss: CompiledLoss, law: Law, dist: LawBalls, h: float, K: int, k_lo: int, edges: list[float],
            left: list[bool], vals: list[flint.arb]) -> _IntStep:
    """One law's step from its edge values: the floored masses and the mean rounding error."""
    n = len(edges) - 1
    v: list[int] = []
    weighted = flint.arb(0)
    for i in range(n):
        m = bin_mass(vals, left, i)
        m = m.intersection(flint.arb(0.5, 0.5)) if m.overlaps(flint.arb(0.5, 0.5)) else m
        v.append(_floor_scaled(m, K))
        weighted += m * (k_lo + i)
    outside = (dist.cdf(edges[0]) if left[0] else 1 - vals[0]) + (vals[-1] if not left[-1] else 1 - dist.cdf(edges[-1]))
    pm_lo, pm_hi = loss.partial_mean(edges[0], edges[-1], law)
    pm = flint.arb(pm_lo).union(flint.arb(pm_hi))
    half = flint.arb(h) / 2
    d = weighted * flint.arb(h) - pm
    d = d + flint.arb(0, 1) * half * flint.arb(outside.upper())
    d_lo = _fraction(d.lower())
    d_hi = _fraction(d.upper())
    hh = Fraction(h) / 2
    if not (d.is_finite() and d_lo <= hh and d_hi >= -hh):
        raise PrecisionError(f"{loss.name}: the mean rounding error {d} is not resolved on this grid")
    return _IntStep(k_lo, v, (max(d_lo, -hh), min(d_hi, hh)))


def _fraction(b: flint.arb) -> Fraction:
    """The exact rational value of an exact ball (an endpoint)."""
    man, ex = b.man_exp()
    man, ex = int(man), int(ex)
    return Fraction(man << ex) if ex >= 0 else Fraction(man, 1 << -ex)


# ---------------------------------------------------------------------------------------------
# integer composition
# ---------------------------------------------------------------------------------------------


@dataclass
class _IntVec:
    """Integers at scale 2^K on the points k0, k0 + 1, ... (a lower bound on a lattice law)."""

    k0: int
    poly: flint.fmpz_poly


def _trim(x: _IntVec, units: int) -> _IntVec:
    """Drop entries from both ends whose total (per end) is at most ``units``."""
    p = x.poly
    n = p.length()
    if n == 0 or units <= 0:
        return x
    acc, i = 0, 0
    while i < n - 1:
        acc += int(p[i])
        if acc > units:
            break
        i += 1
    acc, j = 0, n
    while j - 1 > i:
        acc += int(p[j - 1])
        if acc > units:
            break
        j -= 1
    if j < n:
        p = p.truncate(j)
    if i > 0:
        p = p.right_shift(i)
    return _IntVec(x.k0 + i, p)


#: The most bits the coefficients of one product may hold (entries times 2K): about a second of
#: FLINT's multiplication.  Beyond it the exact route stops (PrecisionError) and the float route's
#: bracket stands: 10^9 DP-SGD steps at sigma = 5, p = 0.001 grew the vector to 10^8 entries.
MAX_PRODUCT_BITS = 1 << 28


def _product(a: _IntVec, b: _IntVec, K: int, trim_units: int) -> _IntVec:
    """a * b brought back to scale 2^K with floor division, tails trimmed (all lower a value)."""
    entries = a.poly.length() + b.poly.length() - 1
    if entries * 2 * K > MAX_PRODUCT_BITS:
        raise PrecisionError(f"the exact lattice would hold {entries:,} entries of {2 * K} bits, beyond its cost "
                             f"limit of {MAX_PRODUCT_BITS:,} bits a product")
    c = (a.poly * b.poly) // (flint.fmpz(1) << K)
    k0 = a.k0 + b.k0
    # the low end may now be zeros (floored away): find the first non-zero entry
    return _trim(_IntVec(k0, c), trim_units)


def _power(step: _IntVec, count: int, K: int, trim_units: Any) -> _IntVec:
    """step^{*count} by repeated squaring; trim_units(copies) is the trimming allowance of a
    product that enters the result ``copies`` times."""
    result: _IntVec | None = None
    base = step
    remaining = count
    while True:
        if remaining & 1:
            result = base if result is None else _product(result, base, K, trim_units(1))
        remaining >>= 1
        if not remaining:
            break
        base = _product(base, base, K, trim_units(remaining))
    assert result is not None
    return result


# ---------------------------------------------------------------------------------------------
# a composed direction: delta(eps) from the integer vector
# ---------------------------------------------------------------------------------------------


@dataclass
class ExactDirection:
    """The composed lattice law of one ordering as integers (scale 2^K), with the coupling
    shift and the exact deficit.  Points are sign * k h; ``u`` lists the entries in increasing
    order of their points, the first at q0 h."""

    name: str
    h: float
    sign: int
    shift: tuple[float, float]
    K: int
    k0: int
    coeffs: list[int]
    eta: Fraction
    deficit: Fraction
    _tails: Any = field(default=None, repr=False)

    @property
    def lost(self) -> float:
        """The deficit (mass not in the vector), rounded up: it counts as 1 in the upper bound."""
        return next_up(float(self.deficit))

    @property
    def slack(self) -> float:
        return next_up(float(self.eta))

    def span(self) -> tuple[int, int]:
        """The smallest and largest lattice index k carried."""
        return self.k0, self.k0 + len(self.coeffs) - 1

    @functools.cached_property
    def lattice(self) -> Lattice:
        """A float64 view (masses rounded to nearest, the rounding charged to ``err``) for the
        trade-off curves and the honest mu of :class:`~gdpproof.accounting.composed.ComposedLoss`."""
        w = np.array([math.ldexp(float(c), -self.K) if c.bit_length() < 1000 + self.K else 0.0
                      for c in self.coeffs])
        return Lattice(self.k0, w, 2 ** -52 * float(np.sum(w)) + len(w) * 5e-324)

    def _prepare(self) -> tuple[int, list[int], list[int], list[flint.arb], flint.arb]:
        if self._tails is None:
            u = self.coeffs if self.sign > 0 else self.coeffs[::-1]
            q0 = self.k0 if self.sign > 0 else -(self.k0 + len(self.coeffs) - 1)
            prec = self.K + 64 + max(8, len(u).bit_length())
            with arb_precision(prec):
                r = (-flint.arb(self.h)).exp()
                rb = r ** _BLOCK
                n = len(u)
                nb = (n + _BLOCK - 1) // _BLOCK
                a_chk = [0] * (nb + 1)
                c_chk = [flint.arb(0)] * (nb + 1)
                for b in range(nb - 1, -1, -1):
                    s, c = 0, flint.arb(0)
                    end = min(n, (b + 1) * _BLOCK)
                    for i in range(end - 1, b * _BLOCK - 1, -1):
                        s += u[i]
                        c = c * r + u[i]
                    a_chk[b] = a_chk[b + 1] + s
                    c_chk[b] = c + c_chk[b + 1] * (r ** (end - b * _BLOCK) if end - b * _BLOCK != _BLOCK else rb)
            self._tails = (q0, u, a_chk, c_chk, prec)
        return self._tails

    def _sum(self, eps: float, c: float) -> flint.arb:
        """sum over points p = (q0 + i) h with p + c > eps of u_i (1 - e^{eps - c - p}), times 2^-K."""
        q0, u, a_chk, c_chk, prec = self._prepare()
        n = len(u)
        # first i with (q0 + i) h + c > eps, in exact rationals
        x = (Fraction(eps) - Fraction(c)) / Fraction(self.h) - q0
        j = max(0, math.floor(x) + 1)
        if j >= n:
            return flint.arb(0)
        with arb_precision(prec):
            b = j // _BLOCK
            nxt = min(n, (b + 1) * _BLOCK)
            r = (-flint.arb(self.h)).exp()
            s, cc = 0, flint.arb(0)
            for i in range(nxt - 1, j - 1, -1):
                s += u[i]
                cc = cc * r + u[i]
            s += a_chk[b + 1]
            cc += c_chk[b + 1] * r ** (nxt - j)
            arg = flint.arb(eps) - flint.arb(c) - (q0 + j) * flint.arb(self.h)
            total = flint.arb(s) - arg.exp() * cc
            total = total * flint.arb(1, 0) / (flint.fmpz(1) << self.K)
        return total

    def upper_arb(self, eps: float) -> flint.arb:
        with arb_precision(self._prepare()[4]):
            return self._sum(eps, self.shift[1]) + arb_from_exact(self.deficit + self.eta)

    def lower_arb(self, eps: float) -> flint.arb:
        with arb_precision(self._prepare()[4]):
            return self._sum(eps, self.shift[0]) - arb_from_exact(self.eta)

    def upper(self, eps: float) -> float:
        """Proven upper bound on this ordering's delta(eps), rounded up (at most 1)."""
        v = self.upper_arb(eps)
        return min(1.0, next_up(float(v.upper())))

    def lower(self, eps: float) -> float:
        """Proven lower bound on this ordering's delta(eps), rounded down (at least 0)."""
        v = self.lower_arb(eps)
        return max(0.0, down(float(v.lower())))

    def delta(self, eps: float) -> tuple[float, float]:
        return self.lower(eps), self.upper(eps)

    def upper_le(self, eps: float, target: Any) -> bool:
        """True when the upper bound on delta(eps) is provably <= ``target`` (a rational)."""
        with arb_precision(self._prepare()[4]):
            return bool(self.upper_arb(eps) <= arb_from_exact(Fraction(target)))

    def lower_gt(self, eps: float, target: Any) -> bool:
        """True when the lower bound on delta(eps) is provably > ``target``."""
        with arb_precision(self._prepare()[4]):
            return bool(self.lower_arb(eps) > arb_from_exact(Fraction(target)))

    def top(self) -> float:
        """An eps beyond every point of the vector (delta there is the floor)."""
        lo, hi = self.span()
        return max(abs(lo), abs(hi)) * self.h + abs(self.shift[0]) + abs(self.shift[1]) + 1.0


@dataclass
class ExactPlan:
    """The numbers an exact composition was run with (for reports and benchmarks)."""

    h: float
    K: int
    eta: Fraction
    budget: Fraction
    step_bins: int
    final_length: int


def compose_exact(parts: list[tuple[PrivacyLoss, int]], *, grid_step: float, budget: Fraction,
                  orderings: tuple[str, str]) -> tuple[tuple[ExactDirection, ExactDirection], float, Fraction,
                                                       float, ExactPlan]:
    """The two composed directions of the exact route, with h, eta and the Hoeffding t.

    ``budget`` is the additive delta error allowed (eta, window tails, trimming and floor losses
    each about a quarter of it); the deficit actually reached is exact and may differ.
    """
    for loss, _ in parts:
        if not isinstance(loss, CompiledLoss):
            raise PrecisionError(f"the exact lattice needs a compiled loss law, not {loss!r}")
    h = grid_step_exact(grid_step)
    total = sum(c for _, c in parts)
    budget = Fraction(budget)
    eta = budget / 4
    tau = budget / (16 * total)                 # per step and side: 2 T tau <= budget / 8
    levels = max(c.bit_length() for _, c in parts) + len(parts)
    # K: floor losses (one unit per entry per product, times its copies) below budget / 4; the
    # composed vector is estimated at T times the step's bins, capped by the window's growth
    with arb_precision(128):
        widths = [LawBalls(loss, "P").bins(tau, h) for loss, _ in parts]
    n_est = max(2, sum(b - a + 1 for a, b in widths))
    units = Fraction(total * n_est * 4 * (levels + 2)) / (budget / 4)
    K = max(32, units.numerator.bit_length() - units.denominator.bit_length() + 3)  # >= log2(units) + 2
    prec = K + 40
    trim_total = budget / 8
    nprod = 2 * levels

    def trim_units(copies: int) -> int:
        return int(trim_total * (1 << K) / (nprod * copies))

    # a symmetric pair without atoms: the Q-law of L is the P-law of -L, so the Q||P direction is
    # the reflection of the P||Q one (with atoms, an atom on a bin edge would round the other way)
    symmetric = all(loss.symmetric and not loss.has_atoms and loss.support() == (-math.inf, math.inf)
                    for loss, _ in parts)
    dirs: list[ExactDirection] = []
    step_bins, final_len = 0, 0
    dbar_sums = {}
    vecs = {}
    laws = "P" if symmetric else "PQ"
    with arb_precision(prec):  # both laws' masses from one pass over the edges
        steps = [_int_steps(loss, laws, h, K, tau) for loss, _ in parts]
    for law in laws:
        acc: _IntVec | None = None
        d_lo = d_hi = Fraction(0)
        for (loss, count), per_law in zip(parts, steps):
            st = per_law[law]
            step_bins = max(step_bins, len(st.v))
            d_lo += count * st.dbar[0]
            d_hi += count * st.dbar[1]
            powered = _power(_IntVec(st.k0, flint.fmpz_poly(st.v)), count, K, trim_units)
            acc = powered if acc is None else _product(acc, powered, K, trim_units(1))
        assert acc is not None
        vecs[law] = acc
        dbar_sums[law] = (d_lo, d_hi)
    with arb_precision(128):
        t_ball = flint.arb(h) * (-total * arb_from_exact(eta).log() / 2).sqrt()
        t = next_up(float(t_ball.upper()))
    for law, sign, name in (("P", 1, orderings[0]), ("Q", -1, orderings[1])):
        src = law if law in vecs else "P"
        acc = vecs[src]
        d_lo, d_hi = dbar_sums[src]
        coeffs = [int(c) for c in acc.poly.coeffs()]
        final_len = max(final_len, len(coeffs))
        deficit = 1 - Fraction(sum(coeffs), 1 << K)
        if src == law:
            k0 = acc.k0
        else:  # the reflection: a symmetric pair's Q-law of L is the P-law of -L
            k0 = -(acc.k0 + len(coeffs) - 1)
            coeffs = coeffs[::-1]
            d_lo, d_hi = -d_hi, -d_lo
        # S = S_R - sum D: shift (c_low, c_high) of S_R (law P); of -S_R for the Q||P ordering
        # formed exactly (Fractions; t is a double) and rounded outward once
        lo, hi = (-d_hi - Fraction(t), -d_lo + Fraction(t)) if sign == 1 else (d_lo - Fraction(t), d_hi + Fraction(t))
        shift = (directed_double(lo, up=False), directed_double(hi, up=True))
        dirs.append(ExactDirection(name, h, sign, shift, K, k0, coeffs, eta, deficit))
    plan = ExactPlan(h, K, eta, budget, step_bins, final_len)
    return (dirs[0], dirs[1]), h, eta, t, plan
