"""Exponential tilting of the pairs: small delta at the float route's cost.

Each step's grid masses m(k) at the ordering's losses s_k become m(k) e^{lam s_k} / S (lam >= 0,
S > 0); tilting commutes with convolution, (m^{*T})(k) = S^T e^{-lam s_k} (m~^{*T})(k), so the
float route's FFT composes the tilted masses, and an l1 error E of that composition moves delta(eps)
by at most S^T e^{-lam eps} E: the Chernoff bound of the tail at eps times E, relative to delta
instead of absolute.  Every factor is a power of two with a rational exponent (lam h = j log(2) /
2^BITS, S = 2^{n / 2^BITS}), applied exactly but for two products with table values enclosed in
balls, each mass moved outward by four units in the last place (:func:`_scaled`).  Any lam keeps
the bracket proven; the saddle point of the Chernoff bound (:func:`saddle_lam`) keeps it narrow.

The proof (the identity, the error bound, the rounding, what is assumed: the FFT bound only, as
for the pairs): ``docs/proofs/tilting.md``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache

import flint
import numpy as np

from ..errors import PrecisionError
from ..numeric.engine.bound import U, down, next_up
from .coupling import Lattice, convolve_lattices, power
from .direction import LatticeDirection, PairDirection
from .exact_lattice import arb_precision

__all__ = ["BITS", "TiltedDirection", "compose_tilted_ordering", "log_chernoff", "saddle_j", "saddle_lam",
           "tail_factor", "tilt", "tilted_direction", "untilt"]

#: The tilt's exponents are multiples of 2^-BITS (in base 2): lam h = j log(2) / 2^BITS, and
#: each step's S = 2^{n / 2^BITS} within 2^-(BITS + 1) of its tilted sum (so a composition of a
#: million steps keeps a total within a factor 2 of 1).
BITS = 20
_SCALE = 1 << BITS
#: 2^{f / 2^BITS} = 2^{f_1 / 2^HALF} 2^{f_2 / 2^BITS} (f = f_1 2^HALF + f_2): two tables of 2^HALF.
_HALF = 10
#: Exponents (base 2) beyond this are not formed: a kept mass times its factor stays finite.
MAX_EXPONENT = 1000
#: The tilted compositions' trims and FFTs: mass dropped from each end of a tilted lattice (of
#: total about 1), and the l1 error the float64 squarings may cost before long double is used.
TRIM = 1e-10
FFT_ERROR = 1e-6


@lru_cache(maxsize=1)
def _tables() -> tuple[tuple[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]:
    """((lower, upper) of 2^{f / 2^HALF}, (lower, upper) of 2^{f / 2^BITS}), f = 0 .. 2^HALF - 1:
    doubles enclosing arb balls at 96 bits, each end moved one double outward."""
    out = []
    with arb_precision(96):
        two = flint.arb(2)
        for bits in (_HALF, BITS):
            lo, hi = np.empty(1 << _HALF), np.empty(1 << _HALF)
            for f in range(1 << _HALF):
                v = two ** (flint.arb(f) / (1 << bits))
                lo[f] = down(float(v.lower()))
                hi[f] = next_up(float(v.upper()))
            out.append((lo, hi))
    return out[0], out[1]


def _scaled(v: np.ndarray, n: np.ndarray, up: bool) -> np.ndarray:
    """Doubles bounding v 2^{n / 2^BITS} above (``up``) or below, for doubles v >= 0 and integers
    n.  The power of two 2^{floor(n / 2^BITS)} is applied by ldexp (in two steps beyond 2^1000),
    exact unless a result is subnormal, where it errs by at most 2^-1075 each; the products with
    the two tables' values (in [1, 2) and [1, 1.001)) round once each (half an ulp, or 2^-1075
    where subnormal): at most 3.5 ulps of the result in all (an ulp is at least 2^-1074, and at
    least u times the value where normal), which four steps outward cover.  Zero masses stay
    zero; a result beyond the doubles is refused."""
    (lo1, hi1), (lo2, hi2) = _tables()
    i = np.right_shift(n, BITS)
    f = np.bitwise_and(n, _SCALE - 1)
    if np.any(i > 2 * MAX_EXPONENT):
        raise PrecisionError("tilting: a factor beyond 2^2000 (the tilt is too steep for this grid)")
    first = np.clip(i, -1100, MAX_EXPONENT)
    x = np.ldexp(np.ldexp(v, first.astype(np.int32)), (i - first).astype(np.int32))
    first_half, second_half = np.right_shift(f, BITS - _HALF), np.bitwise_and(f, (1 << _HALF) - 1)
    x = x * (hi1 if up else lo1)[first_half] * (hi2 if up else lo2)[second_half]
    toward = np.inf if up else 0.0
    for _ in range(4):
        x = np.nextafter(x, toward)
    x = np.where(v > 0, x, 0.0)
    if not np.all(np.isfinite(x)):
        raise PrecisionError("tilting: a tilted mass beyond the doubles (the tilt is too steep for this grid)")
    return x


def _pow2_up(n: int) -> float:
    """An upper bound on 2^{n / 2^BITS} (inf beyond the doubles): the two table values' product
    (one rounding) scaled exactly by ldexp in the normal range, moved two doubles up."""
    i, f = divmod(n, _SCALE)
    if i > 1021:
        return math.inf
    if i < -1000:
        return next_up(math.ldexp(2.0, max(i, -1100)))
    (_, hi1), (_, hi2) = _tables()
    x = math.ldexp(float(hi1[f >> (BITS - _HALF)]) * float(hi2[f & ((1 << _HALF) - 1)]), i)
    return next_up(next_up(x))


def _log_sum_exp(x: np.ndarray, base2: bool = False) -> tuple[float, np.ndarray, float]:
    """(log sum_i e^x_i, the terms e^(x_i - max x) relative to the largest, their sum) in floats;
    in base 2 (log2 of sum 2^x_i, the terms 2^(x_i - max x)) when ``base2``.  (-inf, zeros, 0.0)
    when every x_i is -inf."""
    top = float(np.max(x))
    if top == -math.inf:
        return top, np.zeros_like(x), 0.0
    p = np.exp2(x - top) if base2 else np.exp(x - top)
    total = float(np.sum(p))
    return top + (math.log2(total) if base2 else math.log(total)), p, total


def tilt(lat: Lattice, sign: int, j: int, up: bool) -> tuple[Lattice, int]:
    """One step's masses (on the points s_k = sign k h) tilted by e^{lam s_k} / S, lam h =
    j log(2) / 2^BITS, S = 2^{n / 2^BITS} with n the rounded base-2 logarithm (in units of
    2^-BITS) of their tilted sum: (the tilted lattice, n).  Each mass is rounded up (``up``: the
    dominating masses) or down; the lattice's ``err`` is 0 (the masses are exactly those
    composed)."""
    k = np.arange(lat.k0, lat.k0 + len(lat.w), dtype=np.int64)
    e = sign * j * k
    with np.errstate(divide="ignore"):
        logs = np.log2(lat.w) + e / _SCALE
    log_sum = _log_sum_exp(logs, base2=True)[0]
    if not math.isfinite(log_sum):
        raise PrecisionError("tilting: a step without mass")
    n = int(round(_SCALE * log_sum))
    return Lattice(lat.k0, _scaled(lat.w, e - n, up), 0.0), n


def compose_tilted_ordering(lattices: Sequence[Lattice], counts: Sequence[int], sign: int, j: int,
                            up: bool) -> tuple[Lattice, int, float]:
    """The tilted steps composed (repeated squaring, float64 FFTs, trims of TRIM a level): (the
    composed tilted lattice, N = sum of count n, E) with E an upper bound on its l1 distance
    from the exact composition of the tilted steps.  For the dominating masses (``up``) E covers
    the trimmed mass too (the exact total, an arb power of each step's sum rounded up, minus the
    computed one, plus twice the FFT bound); for the dominated ones it is the FFT bound
    (trimming only lowers a lower end)."""
    acc: Lattice | None = None
    big_n = 0
    total = flint.arb(1)
    for lat, count in zip(lattices, counts):
        t, n = tilt(lat, sign, j, up)
        big_n += count * n
        total *= flint.arb(next_up(math.fsum(t.w) * (1 + 2 * U))) ** count
        powered = power(t, count, TRIM, fft_error=FFT_ERROR)
        acc = powered if acc is None else convolve_lattices(acc, powered, TRIM)
    assert acc is not None
    if not up:
        return acc, big_n, acc.err
    exact_total = next_up(float(total.upper()))
    return acc, big_n, next_up(max(0.0, exact_total - acc.l1()) + 2 * acc.err + 4 * U)


def tail_factor(big_n: int, j: int, h: float, eps: float) -> float:
    """An upper bound on S^T e^{-lam eps} = 2^{(N - j eps / h) / 2^BITS} for eps >= 0."""
    x = j * eps / h
    if not math.isfinite(x) or x > 2.0**60:  # the exponent is below -2^59 / 2^BITS unless N is that large
        return 0.0 if big_n < 2**59 else math.inf
    return _pow2_up(big_n - (math.floor(x * (1 - 4 * U)) - 1 if j else 0))


def untilt(lat: Lattice, sign: int, j: int, big_n: int, up: bool) -> Lattice:
    """The composed masses S^T e^{-lam s_k} w~_k of a tilted composition, bounded above (``up``)
    or below, on the points whose factor is at most 2^MAX_EXPONENT (the others, low losses,
    are dropped: :class:`TiltedDirection` answers eps below them trivially)."""
    if abs(big_n) > 2**62:
        raise PrecisionError("tilting: the composition's scale is beyond 2^(2^42)")
    k = np.arange(lat.k0, lat.k0 + len(lat.w), dtype=np.int64)
    e = big_n - sign * j * k
    keep = np.flatnonzero(e <= MAX_EXPONENT * _SCALE)
    if not len(keep):
        raise PrecisionError("tilting: no point of the composition survives the untilt (the tilt is too steep)")
    a, b = int(keep[0]), int(keep[-1]) + 1
    return Lattice(lat.k0 + a, _scaled(lat.w[a:b], e[a:b], up), 0.0)


def cgf(points: Sequence[np.ndarray], logs: Sequence[np.ndarray], counts: Sequence[int],
         lam: float) -> tuple[float, float]:
    """(K(lam), K'(lam)): the composed log moment generating function of the losses at ``points``
    (log masses ``logs``, each part ``counts`` times) and the tilted mean (floats)."""
    k = mean = 0.0
    for s, lw, c in zip(points, logs, counts):
        log_sum, p, total = _log_sum_exp(lam * s + lw)
        k += c * log_sum
        mean += c * float(np.sum(p * s)) / total
    return k, mean


def chernoff_eps(points: Sequence[np.ndarray], logs: Sequence[np.ndarray], counts: Sequence[int], lam: float,
                 delta: float) -> float:
    """The eps where the Chernoff bound exp(K(lam) - lam eps) at this ``lam`` > 0 reaches ``delta``:
    (K(lam) - log delta) / lam, K the composed log moment generating function of the losses (each
    part's log masses ``logs`` at its ``points``, ``counts`` times; a float estimate)."""
    return (cgf(points, logs, counts, lam)[0] - math.log(delta)) / lam


def saddle_lam(points: Sequence[np.ndarray], masses: Sequence[np.ndarray], counts: Sequence[int],
               delta: float | None = None, eps: float | None = None, iterations: int = 48) -> float:
    """The tilt lam >= 0 aimed at ``delta`` or at ``eps`` (an estimate: any lam >= 0 gives a
    proven bracket).  At delta: the saddle point of the Chernoff bound for the eps where that
    bound reaches delta (lam minimizes (K(lam) - log delta) / lam, whose derivative's numerator
    lam K' - K + log delta increases with lam: one minimum); at eps: the lam whose tilted mean
    K'(lam) is eps (0 where the untilted mean is already beyond it).  K is the composed log
    moment generating function of the losses (each part's float ``masses`` at its ``points``,
    ``counts`` times); ``iterations`` of the golden-section search at delta."""
    with np.errstate(divide="ignore"):
        logs = [np.log(np.asarray(w, dtype=float)) for w in masses]
    a, b = math.log(1e-3), math.log(1e3)
    if eps is not None:
        if cgf(points, logs, counts, 0.0)[1] >= eps:
            return 0.0
        for _ in range(60):  # bisection on log lam: the tilted mean increases with lam
            m = 0.5 * (a + b)
            a, b = (m, b) if cgf(points, logs, counts, math.exp(m))[1] < eps else (a, m)
        return math.exp(0.5 * (a + b))
    assert delta is not None

    def eps_of(log_lam: float) -> float:
        return chernoff_eps(points, logs, counts, math.exp(log_lam), delta)

    g = (math.sqrt(5) - 1) / 2  # golden-section search on log lam
    c, d = b - g * (b - a), a + g * (b - a)
    fc, fd = eps_of(c), eps_of(d)
    for _ in range(iterations):
        if fc <= fd:
            b, d, fd = d, c, fc
            c = b - g * (b - a)
            fc = eps_of(c)
        else:
            a, c, fc = c, d, fd
            d = a + g * (b - a)
            fd = eps_of(d)
    return math.exp((a + b) / 2)


def log_chernoff(lattices: Sequence[Lattice], counts: Sequence[int], sign: int, h: float,
                 eps: float) -> tuple[float, float]:
    """(lam, log of the Chernoff bound K(lam) - lam eps) on the composed tail at ``eps`` of the
    steps' masses on the points s_k = sign k h, at the lam of :func:`saddle_lam` aimed at eps
    (floats: an estimate of log delta(eps) from above)."""
    pts = [sign * h * np.arange(lat.k0, lat.k0 + len(lat.w), dtype=float) for lat in lattices]
    lam = saddle_lam(pts, [lat.w for lat in lattices], counts, eps=eps)
    with np.errstate(divide="ignore"):
        logs = [np.log(lat.w) for lat in lattices]
    return lam, cgf(pts, logs, counts, lam)[0] - lam * eps


def saddle_j(lattices: Sequence[Lattice], counts: Sequence[int], sign: int, h: float,
             delta: float | None = None, eps: float | None = None) -> int:
    """:func:`saddle_lam` of the steps' masses on the points s_k = sign k h, as the tilt's j
    (lam h = j log(2) / 2^BITS)."""
    pts = [sign * h * np.arange(lat.k0, lat.k0 + len(lat.w), dtype=float) for lat in lattices]
    lam = saddle_lam(pts, [lat.w for lat in lattices], counts, delta, eps)
    return max(0, int(round(lam * h * _SCALE / math.log(2))))


@dataclass
class _TiltedLow(LatticeDirection):
    """The dominated masses of one ordering, untilted: its lower end, the tilted FFT bound times
    the tail factor subtracted."""

    j: int = 0
    big_n: int = 0
    err_tilted: float = 0.0
    e_aim: float = 0.0

    def lower(self, eps: float) -> float:
        # the charge grows like e^{-lam eps} as eps falls below the tilt's own eps, the sum more
        # slowly: there delta(eps) >= delta(p) >= the bound at p for the reference points p >= eps
        # (delta does not increase with eps), which keeps the bound non-increasing for the search
        refs = self.__dict__.get("_refs")
        if refs is None:
            lam = self.j * math.log(2) / (_SCALE * self.h)
            pts = [self.e_aim - i * 0.5 / lam for i in range(24)] if lam > 0 else [self.e_aim]
            refs = self.__dict__["_refs"] = [(p, self._lower_at(p)) for p in pts if p >= 0]
        return max([self._lower_at(eps)] + [v for p, v in refs if p >= eps])

    def _lower_at(self, eps: float) -> float:
        lo = self._sum(*self._sorted(), eps, 0.0, upper=False)
        charge = next_up(next_up(tail_factor(self.big_n, self.j, self.h, eps) * self.err_tilted))
        return max(0.0, down(lo - charge))


@dataclass
class TiltedDirection(PairDirection):
    """One ordering of a tilted pairs composition: ``lattice`` holds the untilted dominating
    masses (rounded up) on the points s_k >= ``s_cut``; the upper end adds the tilted l1 error
    E times the tail factor S^T e^{-lam eps} and the mass at +infinity (``lost``); below
    ``s_cut`` it is the trivial 1."""

    j: int = 0
    big_n: int = 0
    err_tilted: float = 0.0
    s_cut: float = 0.0

    def upper(self, eps: float) -> float:
        if eps < self.s_cut:
            return 1.0
        hi = self._sum(*self._sorted(), eps, 0.0, upper=True)
        charge = next_up(next_up(tail_factor(self.big_n, self.j, self.h, eps) * self.err_tilted))
        return min(1.0, next_up(next_up(hi + charge) + self.lost))

    def guess_upper(self, target: float) -> float | None:
        return self.approx_eps(target - self.lost, 0.0)

    def approx_eps(self, target: float, shift: float) -> float | None:
        # an estimate on the masses capped at 1: the FFT's noise at low losses, untilted, can be
        # far above 1 there (where the bounds charge it), and would steer the estimate's reference
        proxy = self.__dict__.get("_proxy")
        if proxy is None:
            capped = Lattice(self.lattice.k0, np.minimum(self.lattice.w, 1.0), 0.0)
            proxy = self.__dict__["_proxy"] = LatticeDirection(self.name, capped, self.h, self.sign, (0.0, 0.0),
                                                               0.0, 0.0)
        return proxy.approx_eps(target, shift)


def _mean(lat: Lattice, sign: int, h: float) -> float:
    """The mean loss of a tilted composition (float; where its masses are largest)."""
    k = np.arange(lat.k0, lat.k0 + len(lat.w), dtype=float)
    return max(0.0, sign * h * float(np.sum(k * lat.w)) / max(float(np.sum(lat.w)), 1e-300))


def tilted_direction(name: str, sign: int, h: float, j: int, uppers: Sequence[Lattice],
                     lowers: Callable[[], Sequence[Lattice]], counts: Sequence[int],
                     tops: Sequence[float]) -> TiltedDirection:
    """One ordering: the dominating masses ``uppers`` (one per part) composed tilted by j and
    untilted; the dominated ones (``lowers``, built when first asked) likewise; ``tops`` the
    parts' P-masses at +infinity (per step, rounded up), counted 1 each."""
    acc, big_n, err = compose_tilted_ordering(uppers, counts, sign, j, True)
    lat = untilt(acc, sign, j, big_n, True)
    dropped = lat.k0 > acc.k0 if sign > 0 else lat.k0 + len(lat.w) < acc.k0 + len(acc.w)
    k_edge = lat.k0 if sign > 0 else lat.k0 + len(lat.w) - 1
    s_cut = sign * k_edge * h if dropped else -math.inf
    missing = next_up(math.fsum(c * t for c, t in zip(counts, tops)) * (1 + 4 * U))

    def make_low() -> LatticeDirection:
        low, n_low, err_low = compose_tilted_ordering(lowers(), counts, sign, j, False)
        return _TiltedLow(name, untilt(low, sign, j, n_low, False), h, sign, (0.0, 0.0), 0.0, 0.0,
                          j=j, big_n=n_low, err_tilted=err_low, e_aim=_mean(low, sign, h))

    return TiltedDirection(name, lat, h, sign, (0.0, 0.0), 0.0, missing, make_low=make_low, j=j, big_n=big_n,
                           err_tilted=err, s_cut=s_cut)
