"""One ordering of a composed privacy loss on a lattice, and the interface all three
discretizations share.

:class:`Direction` is the declared interface: the proven ends of delta(eps) for one ordering
(P||Q or Q||P) and the estimates the bracket search steers by.  :class:`LatticeDirection` is the
coupling's (a float lattice law moved by the coupling shift, its error terms charged),
:class:`PairDirection` the pairs' (dominating and dominated measures), and
:class:`~gdpproof.accounting.exact_lattice.ExactDirection` the exact integer lattice's.  The proofs:
``docs/proofs/coupling.md`` and ``docs/proofs/pairs.md``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from ..numeric.engine.bound import U, down, next_up
from .coupling import Lattice


class Direction(Protocol):
    """One ordering ("remove": P||Q, "add": Q||P) of a composition on a lattice of step ``h``:
    what :class:`~gdpproof.accounting.composed.ComposedLoss` and the bracket search ask of it.
    Every bound is proven (rounded outward); the search's estimates (``guess_*``, where a
    discretization has them) are not."""

    name: str
    h: float

    def upper(self, eps: float) -> float:
        """A proven upper bound on this ordering's delta(eps)."""

    def lower(self, eps: float) -> float:
        """A proven lower bound on this ordering's delta(eps)."""

    def delta(self, eps: float) -> tuple[float, float]:
        """(lower(eps), upper(eps))."""

    def upper_le(self, eps: float, target: float) -> bool:
        """True when the upper bound on delta(eps) is proven at most ``target``."""

    def lower_gt(self, eps: float, target: float) -> bool:
        """True when the lower bound on delta(eps) is proven above ``target``."""

    def top(self) -> float:
        """An eps beyond every point of the lattice (delta there is its floor)."""



@dataclass
class LatticeDirection:
    """The lattice law of S_R for one ordering, with the coupling shift and error terms."""

    name: str
    lattice: Lattice
    h: float
    sign: int                          # +1: delta = E_P g(S); -1: delta = E_Q g(-S)
    shift: tuple[float, float]         # interval for the shift (c_low, c_high), t included
    slack: float                       # additive delta error: eta + Kolmogorov + FFT (+ lost mass for upper)
    lost: float                        # mass dropped (bounded above)

    def _sorted(self) -> tuple[np.ndarray, np.ndarray]:
        """The points sign * k h in increasing order, with their masses (computed once)."""
        cache = self.__dict__.get("_sorted_cache")
        if cache is None:
            k = np.arange(self.lattice.k0, self.lattice.k0 + len(self.lattice.w), dtype=float)
            pts, w = self.sign * k * self.h, self.lattice.w
            if self.sign < 0:
                pts, w = pts[::-1].copy(), w[::-1].copy()
            cache = self.__dict__["_sorted_cache"] = (pts, w)
        return cache

    def approx_eps(self, target: float, shift: float) -> float | None:
        """A float estimate (not a bound) of the eps where sum_k w_k (1 - e^{eps - shift - s_k})_+
        falls to ``target``: a starting point for the proven bisection, which checks it.

        For c = eps - shift between neighbouring points s_{j-1} <= c < s_j the sum is
        W_j - e^c E_j with the suffix sums W_j = sum_{k>=j} w_k and E_j = sum_{k>=j} w_k e^{-s_k}
        (taken relative to the mode, so that nothing overflows), solved for c in each cell.
        None when no cell holds the root or the lattice spans more than 600 in loss.
        """
        s, w = self._sorted()
        if len(s) < 2 or not 0 < target or float(s[-1] - s[0]) > 600:
            return None
        cache = self.__dict__.get("_suffix_cache")
        if cache is None:
            ref = float(s[int(np.argmax(w))])
            big_w = np.cumsum(w[::-1])[::-1]
            big_e = np.cumsum((w * np.exp(ref - s))[::-1])[::-1]
            cache = self.__dict__["_suffix_cache"] = (ref, big_w, big_e)
        ref, big_w, big_e = cache
        with np.errstate(all="ignore"):
            c = ref + np.log((big_w - target) / big_e)
        lo = np.concatenate(([-np.inf], s[:-1]))
        inside = np.flatnonzero((big_w > target) & (c >= lo) & (c < s))
        if not len(inside):
            return None
        return float(c[inside[-1]]) + shift

    def delta(self, eps: float) -> tuple[float, float]:
        """(lower, upper) for this ordering's delta(eps)."""
        return self.lower(eps), self.upper(eps)

    def guess_upper(self, target: float) -> float | None:
        """A float estimate of where the upper bound on delta falls to ``target`` (not a bound)."""
        return self.approx_eps(target - self.slack - self.lost, self.shift[1])

    def guess_lower(self, target: float) -> float | None:
        """A float estimate of where the lower bound on delta falls to ``target`` (not a bound)."""
        return self.approx_eps(target + self.slack, self.shift[0])

    def upper(self, eps: float) -> float:
        """Proven upper bound on this ordering's delta(eps) (rounded up)."""
        hi = self._sum(*self._sorted(), eps, self.shift[1], upper=True)
        return min(1.0, next_up(hi + self.slack + self.lost))

    def lower(self, eps: float) -> float:
        """Proven lower bound on this ordering's delta(eps) (rounded down)."""
        lo = self._sum(*self._sorted(), eps, self.shift[0], upper=False)
        return max(0.0, down(lo - self.slack))

    def upper_le(self, eps: float, target: float) -> bool:
        """True when the upper bound on delta(eps) is at most ``target``."""
        return self.upper(eps) <= target

    def lower_gt(self, eps: float, target: float) -> bool:
        """True when the lower bound on delta(eps) exceeds ``target``."""
        return self.lower(eps) > target

    def top(self) -> float:
        """An eps beyond every point of the lattice (delta there is the floor)."""
        return (abs(self.lattice.k0) + len(self.lattice.w)) * self.h + abs(self.shift[0]) + abs(self.shift[1]) + 1.0

    @staticmethod
    def _sum(s: np.ndarray, w: np.ndarray, eps: float, shift: float, upper: bool) -> float:
        """sum_k w_k (1 - e^{eps - s_k - shift})_+ over the increasing points s, float errors
        charged: a relative margin for the sum, and the absolute error of the argument."""
        # the argument carries an absolute error of a few ulps of |s| + |shift| + |eps|: take in
        # every point within that of the cut, and bound the effect on each term by it
        cut = eps - shift
        pad = 8 * U * (abs(cut) + abs(eps) + abs(shift) + 1)
        start = int(np.searchsorted(s, cut - pad, side="right"))
        if start >= len(s):
            return 0.0
        ss, ww = s[start:], w[start:]
        arg = np.minimum(cut - ss, 0.0)
        total = float(np.sum(-np.expm1(arg) * ww))
        rel = (12 + math.log2(max(2, len(ss)))) * U
        scale = 4 * U * (max(abs(float(ss[0])), abs(float(ss[-1]))) + abs(shift) + abs(eps))
        mass = float(np.sum(ww)) * 1.0001
        if upper:
            return total * (1 + rel) + scale * mass
        return max(0.0, total * (1 - rel) - scale * mass)


@dataclass
class PairDirection(LatticeDirection):
    """One ordering on the pairs discretization (:mod:`gdpproof.accounting.pairs`): the upper end
    from the composed dominating masses (this object's lattice, no shift), the lower end from
    the composed dominated masses (``low``, whose slack is its FFT bound), composed when first
    needed: an eps(delta) bracket needs it only for the worse ordering (where the upper bound
    is already at most the target, the lower one is too, and is not composed)."""

    make_low: Callable[[], LatticeDirection] | None = None

    @property
    def low(self) -> LatticeDirection:
        built = self.__dict__.get("_low")
        if built is None:
            assert self.make_low is not None
            built = self.__dict__["_low"] = self.make_low()
        return built

    def lower(self, eps: float) -> float:
        return self.low.lower(eps)

    def lower_gt(self, eps: float, target: float) -> bool:
        # an upper bound at most the target means no lower bound exceeds it: asked first only while
        # the dominated masses are not composed (once they are, the lower bound alone answers alike)
        if "_low" not in self.__dict__ and self.upper(eps) <= target:
            return False
        return self.lower(eps) > target

    def guess_lower(self, target: float) -> float | None:
        # an estimate only: the upper lattice's, whether the dominated one is composed yet or not,
        # so that the bisection, and the last bits of the lower end, do not depend on which
        # brackets were asked of this composition before
        return self.guess_upper(target)

    def top(self) -> float:
        built = self.__dict__.get("_low")
        return super().top() if built is None else max(super().top(), built.top())


class CoarseFirst:
    """One ordering known first by a cheaper proven upper bound (``coarse``: the pairs' masses on
    a coarser grid, an earlier pass's ordering, or the coupling's with the trivial mean interval;
    for the ordering expected to be the lesser at the delta an eps bracket is sought at), its own
    (``build()``, on the composition's grid) made only where that bound does not decide.

    The upper bound on delta(eps) is the smaller of the two, the lower bound the fine one's, so
    no bracket is wider than the fine ordering alone gives.  The eps search asks
    :meth:`upper_le` and :meth:`lower_gt`, which the coarse bound decides wherever it is at most
    the target (then the fine upper bound, and any lower bound, are not above it either way);
    where it does not, they set ``asked`` (:meth:`ComposedLoss.epsilon` then bisects again from
    the fine ordering's span and estimates).  :meth:`upper_below` answers "is the upper bound
    below x" without the fine one where the coarse one is.  Anything else (the lattice, the
    dominated masses) asks the fine ordering, built once on first use."""

    def __init__(self, coarse: LatticeDirection, build: Callable[[], LatticeDirection]) -> None:
        self.name = coarse.name
        self.coarse = coarse
        self._build = build
        self._fine: LatticeDirection | None = None
        self.asked = False

    @property
    def fine(self) -> LatticeDirection:
        if self._fine is None:
            self._fine = self._build()
        return self._fine

    @property
    def built(self) -> bool:
        """Whether the fine ordering has been composed."""
        return self._fine is not None

    def __getattr__(self, attr: str) -> Any:
        if attr.startswith("__") or attr in ("coarse", "_build", "_fine", "name", "asked"):
            raise AttributeError(attr)
        return getattr(self.fine, attr)

    def upper(self, eps: float) -> float:
        return min(self.coarse.upper(eps), self.fine.upper(eps))

    def lower(self, eps: float) -> float:
        return self.fine.lower(eps)

    def delta(self, eps: float) -> tuple[float, float]:
        return self.lower(eps), self.upper(eps)

    def upper_le(self, eps: float, target: float) -> bool:
        if self.coarse.upper(eps) <= target:
            return True
        self.asked = True  # the coarse bound did not decide (ComposedLoss.epsilon reads it)
        return self.fine.upper_le(eps, target)

    def lower_gt(self, eps: float, target: float) -> bool:
        if self.coarse.upper(eps) <= target:
            return False  # delta(eps) <= target: no lower bound is above it
        self.asked = True
        return self.fine.lower_gt(eps, target)

    def upper_below(self, eps: float, x: float) -> bool:
        """True when the upper bound on delta(eps) is below x (the fine ordering composed only
        where the coarse bound is not)."""
        return self.coarse.upper(eps) < x or self.upper(eps) < x

    def guess_upper(self, target: float) -> float | None:
        # the coarse lattice's estimate whether or not the fine one is built, so that the
        # bisection, and the last bits of the ends, do not depend on what was asked before
        return self.coarse.guess_upper(target)

    def guess_lower(self, target: float) -> float | None:
        return self.coarse.guess_upper(target)

    def top(self) -> float:
        return self.coarse.top()
