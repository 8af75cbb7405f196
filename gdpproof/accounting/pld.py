r"""Numerical composition of privacy-loss distributions with a proven bracket on delta and epsilon.

The privacy loss of an ordered pair (P, Q) is L = log(dP/dQ)(o), o ~ P.  The T-fold composition
has loss S = L_1 + ... + L_T and

    delta_{P||Q}(eps) = E_P[(1 - e^{eps - S})_+],   delta_{Q||P}(eps) = E_Q[(1 - e^{eps + S})_+].

A mechanism is (eps, delta)-DP for a neighbouring relation when delta bounds both orderings; the
answer reported is the worse of the two (for the Poisson-subsampled Gaussian: "remove", P the
mixture, and "add").

**How the bracket is proven.**  Each loss is rounded to the nearest point of the grid h Z:
R = h round(L / h), bins ((k - 1/2) h, (k + 1/2) h].  The rounding error D = R - L lies in an
interval of length h, is independent across steps and has a mean dbar we compute (from the grid
masses and the partial mean of L, an integral).  A concentration inequality gives, except with
probability eta on each side, |S_R - S - T dbar| <= t; since (1 - e^{eps - s})_+ is
non-decreasing in s and lies in [0, 1],

    E g(S_R - T dbar - t) - eta  <=  delta(eps)  <=  E g(S_R - T dbar + t) + eta.

t is the smaller of two proven deviations, for each law:

* Hoeffding (range h): t = h sqrt(T log(1/eta) / 2);
* Bernstein (Boucheron, Lugosi & Massart 2013, Thm 2.10, Cor. 2.11): the centred errors
  X = D - E D satisfy X <= h (both signs) and E X^2 <= E D^2 <= v, a bound computed per step
  from the float CDF on cells of width h / M of each bin
  (:func:`~gdpproof.accounting.coupling._second_moment`, its errors charged), so with V = sum v and
  l = log(1/eta), P(sum X >= t) <= eta at t = h l / 3 + sqrt((h l / 3)^2 + 2 V l).  On a law
  smooth on the scale h, v is near the uniform's h^2 / 12 (0.35 to 0.40 of h^2 / 4), so for
  many steps t is about 0.6 of Hoeffding's and the grid for a given width about 1.6 times
  coarser.  Used from BERNSTEIN_MIN_STEPS steps (below, Hoeffding alone).

Either way the failure probability eta is charged to delta exactly as before: added to the upper
bound and subtracted from the lower (each side uses one tail).

So one lattice distribution gives both sides, and the bracket is about 2 t wide in epsilon:
it shrinks like h sqrt(T), not like h T as rounding all losses up or down would.  The lattice law
of S_R is composed exactly except for:

* truncation: per-step mass beyond the window and mass trimmed from the tails after each
  convolution is dropped; the upper bound adds all of it back at +infinity (it counts as 1);
* the float64 CDF: each bin edge is mapped to the mechanism's output space in float64 (which
  moves the edge by a few ulps: the rounding map's bins move, charged to the range h_eff of D),
  and the CDF there is accurate to ``CDF_ERROR`` = 1e-15 (absolute; an assumption about
  ``scipy.special.ndtr`` and the few float operations around it, whose worst error the test
  suite measures against arb and mpmath at 1.6e-16).  That moves each step's law by at most
  5 CDF_ERROR in Kolmogorov distance, hence T times that at the end;
* FFT rounding: each convolution (zero-padded, so there is no wrap-around) is charged the
  a-priori l1 error bound of Higham, *Accuracy and Stability of Numerical Algorithms* (2002),
  Thm 24.2, for an FFT of length 2^k, with twiddle factors accurate to 4u; the errors are
  propagated through the repeated squaring.  The last squarings and their products are one
  FFT (r * b^k, :func:`~gdpproof.accounting.coupling._convolve_power`, its bound derived there),
  cyclic on half the zero-padded length when a Chernoff bound proves the mass it folds into
  the window tiny (that mass is charged as error, and the error is also counted as lost
  mass, which covers the mass outside the window: folding keeps the total).  The theorem is for radix-2 Cooley–Tukey; numpy's
  pocketfft uses radix-4 and real-input passes, and that it obeys the same bound is an
  assumption (measured: actual / claimed error <= 3e-3 against exact integer convolution, in
  review, and checked against exact rationals in the test suite).  This is not interval
  arithmetic; the other steps of the proof are.

The result is a :class:`Bound` whose ``lower`` is rounded down and ``upper`` rounded up.
Both ends come from the same lattice law moved by the two ends of the shift interval, so the
eps bracket is about 2 t wide whatever the lattice: :func:`epsilon_bracket` chooses its first
grid from that and a CLT estimate of eps (usually the only grid it needs).
Composition is by repeated squaring; after each convolution the tails below the trimming budget
and the convolution's own error bound are dropped (and counted as lost), so memory is bounded
by the width of the composed distribution on the grid, not by T.

**A second discretization: pairs** (``compose_losses(..., discretization="pairs")``,
:mod:`gdpproof.accounting.pairs`).  Instead of one rounded law and a shift, each step gives two
grid measures: a dominating one (connect the dots: each cell's mass spread to its two ends with
its P- and Q-mass kept; Jensen) and a dominated one (below the hockey-stick curve's chords by a
proven gap, checked in ball arithmetic).  Composing each by the same FFT gives the upper and the
lower end directly; no eta, no shift.  Their error is second order in the grid step, so on many
steps of a loss narrow on the grid (DP-SGD with small sampling rates) a grid 10 to 20 times
coarser reaches the same width; where a few large losses decide delta (large eps) their error
is closer to first order and the coupling is cheaper.  :func:`epsilon_bracket` tries them
first where the coupling's grid would be large and much finer (``_pairs_pay``), and
:func:`delta_bracket` wherever they apply.  Their masses are arb balls, so they assume only the
FFT bound (``PAIRS_ASSUMPTIONS``), and so do their trade-off curves: the upper ends come from
points of the dominated measure (:func:`_pair_np_points`), the lower ends from delta's upper.

**Two routes for the lattice law** (``ComposedLoss.route``).  The float64 FFT lattice above
(``FLOAT_ROUTE``; ``ComposedLoss.assumptions`` lists its three assumptions) has additive errors
(T x the CDF error, the FFT bound, eta) that put a floor near delta = 1e-10.  The exact integer
lattice (``EXACT_ROUTE``, :mod:`gdpproof.accounting.exact_lattice`) replaces the last two bullets by
exact arithmetic: bin masses enclosed in arb balls and floored to integers at a scale 2^K, composed
by ``fmpz_poly`` products floored back to 2^K, so the composed vector V is below the true lattice
law pointwise (products of non-negative vectors preserve the order; floors and trims only lower
entries); the missing mass 1 - |V| 2^{-K} is an exact rational that counts as 1 in the upper bound
and 0 in the lower, in both orderings (g = (1 - e^{eps - s})_+ lies in [0, 1] whatever the sign
of the argument).  The coupling is the same, with dbar enclosed in balls and D's range exactly h
(the edges are doubles); delta(eps) is a ball compared with the target exactly.  It resolves any
delta (``"1e-400"``) for bits: K grows with log(1/delta).

:func:`epsilon_bracket` and :func:`delta_bracket` choose the route (``route="auto"``: the float
one where delta is large enough for it, the exact one otherwise) and refine the grid to a
relative width; when it cannot be reached they return the narrowest proven bracket with a
:class:`~gdpproof.errors.WidthNotReachedWarning` (``ComposedLoss.target_met`` is then False).

References: Koskela, Jälkö & Honkela (AISTATS 2020) and Gopi, Lee & Wutschitz (NeurIPS 2021)
for FFT accounting and its error analysis (the Hoeffding coupling is theirs in spirit: their
"PRV accountant" bounds the same discretisation error); Dong, Roth & Su (2022) for the
trade-off view; Higham (2002) for the FFT error bound.
"""


from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import warnings

import numpy as np
import scipy.special as sc

from .._args import _bad, nonnegative, positive, probability
from ..errors import InvalidParameterError, PrecisionError, show, WidthNotReachedWarning
from ..numeric.engine import fast as _fast
from ..numeric.engine.bound import FLOAT_ROUTE_ASSUMPTIONS, U, Bound, _down, _float_down, _up
from .exact_lattice import ROUTE as EXACT_ROUTE
from .exact_lattice import compose_exact, grid_step_exact
from .coupling import BULK_TAIL, SUBCELL_POINTS, _cell_factor, _cells, _convolve, _discretize, _Lattice, _power
from .pairs import pair_steps, supports_pairs
from .losses import (
    CDF_ERROR,
    GaussianLoss,
    LaplaceLoss,
    PrivacyLoss,
    RandomizedResponseLoss,
    SubsampledGaussianLoss,
)
from ..numeric.tradeoff.solve import delta_from_epsilon, mu_from_epsilon_delta, mu_from_error_rates

__all__ = [
    "Bound",
    "PrivacyLoss",
    "GaussianLoss",
    "LaplaceLoss",
    "RandomizedResponseLoss",
    "SubsampledGaussianLoss",
    "ComposedLoss",
    "compose_losses",
    "CDF_ERROR",
    "epsilon_bracket",
    "delta_bracket",
    "HonestMu",
    "FLOAT_ROUTE",
    "EXACT_ROUTE",
    "FLOAT_ASSUMPTIONS",
]

#: The name of the float route (``ComposedLoss.route``).
FLOAT_ROUTE = "float64 FFT lattice"
#: What the float route assumes (module doc; written once, in :mod:`.bound`); the exact route
#: assumes nothing of the kind.
FLOAT_ASSUMPTIONS = FLOAT_ROUTE_ASSUMPTIONS
#: What the pairs discretization assumes: its masses are arb balls, so only the FFT's bound.
PAIRS_ASSUMPTIONS = (FLOAT_ROUTE_ASSUMPTIONS[1],)
#: Below this delta, ``route="auto"`` takes the exact route at once (the float route's floor is
#: near 1e-10, and a bracket needs delta well above it); above it the float route is tried
#: first and the exact route takes over when the floor stops it.
AUTO_EXACT_BELOW = 1e-7
#: The smallest delta a bracket is computed for: below it the exact lattice's masses need more
#: than 3,300 bits each, and the cost grows with them (refused up front, not after minutes).
SMALLEST_DELTA = Fraction(1, 10**1000)


@dataclass
class _Direction:
    """The lattice law of S_R for one ordering, with the coupling shift and error terms."""

    name: str
    lattice: _Lattice
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
        return min(1.0, _up(hi + self.slack + self.lost))

    def lower(self, eps: float) -> float:
        """Proven lower bound on this ordering's delta(eps) (rounded down)."""
        lo = self._sum(*self._sorted(), eps, self.shift[0], upper=False)
        return max(0.0, _down(lo - self.slack))

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
class _PairDirection(_Direction):
    """One ordering on the pairs discretization (:mod:`gdpproof.accounting.pairs`): the upper end
    from the composed dominating masses (this object's lattice, no shift), the lower end from
    the composed dominated masses (``low``, whose slack is its FFT bound), composed when first
    needed: an eps(delta) bracket needs it only for the worse ordering (where the upper bound
    is already at most the target, the lower one is too, and is not composed)."""

    make_low: Callable[[], _Direction] | None = None

    @property
    def low(self) -> _Direction:
        built = self.__dict__.get("_low")
        if built is None:
            assert self.make_low is not None
            built = self.__dict__["_low"] = self.make_low()
        return built

    def lower(self, eps: float) -> float:
        return self.low.lower(eps)

    def lower_gt(self, eps: float, target: float) -> bool:
        if self.upper(eps) <= target:
            return False
        return self.lower(eps) > target

    def guess_lower(self, target: float) -> float | None:
        # an estimate only: the upper lattice's where the dominated one is not composed yet
        if "_low" not in self.__dict__:
            return self.guess_upper(target)
        return self.low.guess_lower(target)

    def top(self) -> float:
        built = self.__dict__.get("_low")
        return super().top() if built is None else max(super().top(), built.top())


@dataclass
class ComposedLoss:
    """The composition of privacy losses with a proven bracket on delta(eps) and eps(delta).

    Built by :func:`compose_losses`.  ``delta(eps)`` and ``epsilon(delta)`` return a
    :class:`Bound` for the worse of the two orderings; ``*_by_ordering`` give each.
    """

    parts: tuple[tuple[PrivacyLoss, int], ...]
    h: float
    eta: float
    t: float
    directions: tuple[Any, Any]
    delta_target: float | None = None
    #: How the lattice law was composed: ``FLOAT_ROUTE`` or ``EXACT_ROUTE``.
    route: str = "float64 FFT lattice"
    #: What the bracket assumes beyond ball and integer arithmetic (empty for the exact route).
    assumptions: tuple[str, ...] = ()
    #: Set by :func:`epsilon_bracket` / :func:`delta_bracket`: whether the asked relative width
    #: was reached, the width reached and the width asked.
    target_met: bool = True
    rel_width_reached: float | None = None
    rel_width_asked: float | None = None
    #: The exact route's parameters (``intlattice.ExactPlan``); None for the float route.
    plan: Any = None
    #: Set by :func:`epsilon_bracket` / :func:`delta_bracket`: how many compositions the
    #: refinement ran to reach this one (1 when the first grid sufficed).
    passes: int = 1
    #: Float route: per law, each part's (E D^2 bound / h^2, bulk bins, count), and h_eff / h:
    #: what :func:`_predicted_t` needs to aim the next grid (never part of a bound).
    coupling_model: Any = None
    #: Float route: how each step's loss met the grid: ``"coupling"`` (rounded to the nearest
    #: point, module doc) or ``"pairs"`` (dominating and dominated grid masses,
    #: :mod:`gdpproof.accounting.pairs`; eta and t are then 0).
    discretization: str = "coupling"

    def __repr__(self) -> str:
        """One line: what was composed, the grid and the route (not the lattice arrays)."""
        parts = " (x) ".join(f"{loss!r}" + (f" x {count}" if count != 1 else "") for loss, count in self.parts)
        return (f"ComposedLoss({parts}; grid_step={self.h:.6g}, eta={self.eta:.3g}, route={self.route!r}, "
                f"orderings={tuple(d.name for d in self.directions)})")

    @property
    def steps(self) -> int:
        """The total number of composed mechanisms."""
        return sum(c for _, c in self.parts)

    def delta_by_ordering(self, eps: Any) -> dict[str, Bound]:
        """The bracket on delta(eps) of each ordering, keyed by its name (e.g. "remove", "add")."""
        e = _check_eps(eps)
        return {d.name: Bound(*d.delta(e)) for d in self.directions}

    def delta(self, eps: Any) -> Bound:
        """Bracket on the mechanism's delta(eps) (the worse ordering): lower down, upper up.

        Examples
        --------
        Four G_{1/2} compose to G_1, whose delta(1) is 0.12693673750664...:

        >>> from gdpproof.accounting.pld import GaussianLoss, compose_losses
        >>> c = compose_losses([(GaussianLoss(0.5), 4)], grid_step=1e-4)
        >>> b = c.delta(1.0)
        >>> b.lower < 0.1269367375066 < b.upper, b.width < 3e-4
        (True, True)
        """
        per = self.delta_by_ordering(eps)
        return Bound(max(b.lower for b in per.values()), max(b.upper for b in per.values()))

    def worse_ordering(self, eps: Any) -> str:
        """The name of the ordering with the larger upper bound on delta(eps)."""
        per = self.delta_by_ordering(eps)
        return max(per, key=lambda k: (per[k].upper, per[k].lower))

    def epsilon(self, delta: Any) -> Bound:
        """Bracket on the smallest eps >= 0 with delta(eps) <= ``delta``: lower down, upper up.

        ``delta`` may be a float, a :class:`~fractions.Fraction` or a decimal string; the exact
        route compares with its exact value (so "1e-400" works there).  Raises PrecisionError
        when ``delta`` is below what this grid resolves (the upper bound on delta(eps) never
        drops to ``delta``).
        """
        d: Any = _check_delta_exact(delta) if self.route == EXACT_ROUTE else _check_delta(delta)
        up_ok = lambda e: all(dd.upper_le(e, d) for dd in self.directions)  # noqa: E731
        lo_ok = lambda e: not any(dd.lower_gt(e, d) for dd in self.directions)  # noqa: E731
        top = self._top()
        if not up_ok(top):
            floor = self.delta_floor()
            raise PrecisionError(f"delta={delta} is below this bracket's floor {floor:.3g} "
                                 f"(truncated mass, eta={self.eta:g} and float error): ask for a larger "
                                 "delta, or compose with a smaller eta or long_double=True")
        # float estimates of both ends narrow the proven bisections (any evaluation of the
        # monotone predicates narrows them validly, so a poor estimate only costs steps)
        guess_up = guess_lo = None
        if self.route == FLOAT_ROUTE:
            dd_f = float(d)
            guess_up = _max_or_none(dd.guess_upper(dd_f) for dd in self.directions)
            guess_lo = _max_or_none(dd.guess_lower(dd_f) for dd in self.directions)
        e_up = 0.0 if up_ok(0.0) else _boundary(up_ok, 0.0, top, want_le=True, guess=guess_up)
        e_lo = 0.0 if lo_ok(0.0) else _boundary(lo_ok, 0.0, top, want_le=False, guess=guess_lo)
        return Bound(min(e_lo, e_up), e_up)

    # -- the trade-off curve and the honest mu ---------------------------------------------

    def delta_floor(self) -> float:
        """The smallest upper bound on delta this bracket can give (truncation, eta, float error)."""
        return max(d.upper(self._top()) for d in self.directions)

    def _top(self) -> float:
        return max(dd.top() for dd in self.directions)

    def _eps_grid(self, points: int = 400) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """eps_j on [0, eps_max] and the proven bounds delta_up(eps_j), delta_low(eps_j) (worse
        ordering); eps_max is where delta_up falls to 100 x the floor."""
        cache = self.__dict__.setdefault("_grid_cache", {})
        if points not in cache:
            target = min(0.5, max(1e-300, 100 * self.delta_floor()))
            eps_max = self.epsilon(target).upper if max(d.upper(0.0) for d in self.directions) > target else 0.0
            eps = np.linspace(0.0, max(eps_max, 1e-9), points)
            dup = np.array([max(d.upper(float(e)) for d in self.directions) for e in eps])
            dlow = np.array([max(d.lower(float(e)) for d in self.directions) for e in eps])
            cache[points] = (eps, dup, dlow)
        return cache[points]

    def _eps_grid_each(self, points: int = 400) -> tuple[np.ndarray, list[np.ndarray]]:
        """The eps grid of :meth:`_eps_grid` with each ordering's delta_up on it."""
        cache = self.__dict__.setdefault("_grid_each_cache", {})
        if points not in cache:
            eps = self._eps_grid(points)[0]
            cache[points] = (eps, [np.array([d.upper(float(e)) for e in eps]) for d in self.directions])
        return cache[points]

    def _np_points(self, max_points: int = 4000) -> tuple[np.ndarray, np.ndarray]:
        """(a, b) with a = P(S_R <= k h) and b = Q(S_R > k h), both bounded above: the errors of
        the tests "reject P when S_R <= k h" of the pair (P, Q) (swap them for (Q, P))."""
        cache = self.__dict__.setdefault("_np_cache", {})
        if max_points in cache:
            return cache[max_points]
        if self.discretization == "pairs":
            a0, b0 = _pair_np_points(self.directions[0])
            a1, b1 = _pair_np_points(self.directions[1])  # points of T(Q, P): (b, a) for T(P, Q)
            a, b = np.concatenate((a0, b1)), np.concatenate((b0, a1))
            step = max(1, len(a) // max_points)
            order = np.argsort(a, kind="stable")
            cache[max_points] = (a[order][::step], b[order][::step])
            return cache[max_points]
        dp, dq = self.directions
        lo = min(dp.lattice.k0, dq.lattice.k0)
        hi = max(dp.lattice.k0 + len(dp.lattice.w), dq.lattice.k0 + len(dq.lattice.w))
        vp, vq = np.zeros(hi - lo), np.zeros(hi - lo)
        vp[dp.lattice.k0 - lo: dp.lattice.k0 - lo + len(dp.lattice.w)] = dp.lattice.w
        vq[dq.lattice.k0 - lo: dq.lattice.k0 - lo + len(dq.lattice.w)] = dq.lattice.w
        kolm = self.steps * (5 * CDF_ERROR + 2 * U)
        up_p = dp.lost + dp.lattice.err + kolm + len(vp) * U
        up_q = dq.lost + dq.lattice.err + kolm + len(vq) * U
        a = np.minimum(1.0, np.cumsum(vp) + up_p)                       # P(S_R <= k h), up
        b = np.minimum(1.0, (np.sum(vq) - np.cumsum(vq)) + up_q)        # Q(S_R > k h), up
        step = max(1, len(a) // max_points)
        cache[max_points] = (a[::step], b[::step])
        return cache[max_points]

    def _upper_points(self, max_points: int = 4000) -> np.ndarray:
        """Points (a, b) with f(a) <= b for the mechanism's symmetric trade-off f: the
        Neyman–Pearson tests of both orderings, their errors bounded above; their hull."""
        cache = self.__dict__.setdefault("_points_cache", {})
        if max_points not in cache:
            a, b = self._np_points(max_points)
            pts = np.concatenate([np.stack([a, b], 1), np.stack([b, a], 1), [[0.0, 1.0], [1.0, 0.0]]])
            cache[max_points] = _lower_hull(pts)
        return cache[max_points]

    def tradeoff_curves(self, ordering: str | None = None) -> tuple[Callable[[Any], np.ndarray],
                                                                     Callable[[Any], np.ndarray]]:
        """Two float64 functions of an array of alpha: proven lower and upper bounds of a
        trade-off curve (lower rounded down, upper up; for plots and Monte Carlo checks).

        ``ordering=None``: the mechanism's symmetric curve (see :meth:`tradeoff`).  An ordering
        name (``"remove"``/``"add"``, or ``"P||Q"``/``"Q||P"``): T(X, Y) of that ordering X||Y,
        bounded below by sup_eps max(1 - delta_{Y||X}(eps) - e^eps alpha,
        e^{-eps}(1 - delta_{X||Y}(eps) - alpha)) and above by the hull of its Neyman–Pearson
        points.
        """
        names = [d.name for d in self.directions]
        if ordering is not None and ordering not in names:
            raise _bad("ordering", ordering, f"must be None or one of {names}")
        eps, dups = self._eps_grid_each()
        with np.errstate(over="ignore"):
            ee = np.exp(eps)[:, None]
        if ordering is None:
            d_xy = d_yx = np.maximum(dups[0], dups[1])[:, None]
            pts = self._upper_points()
        else:
            i = names.index(ordering)
            d_xy, d_yx = dups[i][:, None], dups[1 - i][:, None]
            a, b = self._np_points()
            raw = np.stack([a, b], 1) if i == 0 else np.stack([b, a], 1)
            pts = _lower_hull(np.concatenate([raw, [[0.0, 1.0], [1.0, 0.0]]]))

        def lower(alpha: Any) -> np.ndarray:
            x = np.atleast_1d(np.asarray(alpha, dtype=float))[None, :]
            # e^eps overflows beyond eps ~ 709 (a loss that large): its line is 1 - delta at
            # alpha = 0 (not inf x 0 = NaN) and -inf elsewhere
            with np.errstate(invalid="ignore"):
                slope = np.where(x > 0, ee * x, 0.0)
            lines = np.maximum(np.maximum(0.0, 1 - d_yx - slope), (1 - d_xy - x) / ee)
            return np.maximum(0.0, np.max(lines, axis=0) * (1 - 8 * U) - 4 * U)

        def upper(alpha: Any) -> np.ndarray:
            x = np.atleast_1d(np.asarray(alpha, dtype=float))
            return np.minimum(np.clip(1 - x, 0.0, 1.0), np.interp(x, pts[:, 0], pts[:, 1]) * (1 + 8 * U) + 4 * U)

        return lower, upper

    def tradeoff(self, alpha: Any, ordering: str | None = None) -> Bound:
        """Bracket on a trade-off f(alpha).  By default the mechanism's curve: the tightest
        symmetric f such that the composed mechanism is f-DP (both orderings); with
        ``ordering`` the curve T(X, Y) of that ordering (:meth:`tradeoff_curves`).

        lower: sup over a grid of eps of the (eps, delta_up(eps)) lines (DRS Prop 2.12), proven;
        upper: the convex hull of Neyman–Pearson points whose errors are bounded above.
        """
        a = _check_alpha(alpha)
        lo_fn, up_fn = self.tradeoff_curves(ordering)
        lower, upper = float(lo_fn(a)[0]), float(up_fn(a)[0])
        return Bound(_down(min(lower, upper)), _up(upper))


    def honest_mu(self) -> HonestMu:
        r"""Bracket on the smallest mu such that the composed mechanism is mu-GDP, and the gap.

        GDP constrains every (eps, delta); a numerical bracket resolves delta only down to its
        floor.  So the statement is about the range it resolves, with eps_max (where delta_up
        falls to about 100 times the floor) and ``delta_min`` = delta_up(eps_max).  ``mu``
        brackets the smallest mu such that the mechanism is (eps, delta_mu(eps))-DP

        * for every eps in [0, eps_max] (the eps reading), and equally
        * for every eps with delta_mu(eps) >= delta_min (the delta reading: mu-GDP for every
          (eps, delta) on the G_mu curve with delta >= delta_min; it is vacuous, and excluded, for
          mu so small that delta_mu(0) < delta_min).

        ``mu.upper``: checked on a grid with the monotone step delta_up(eps_j) <=
        delta_mu(eps_{j+1}), the tight comparisons in ball arithmetic; that is the eps reading, and
        it implies the delta reading (for eps > eps_max, delta(eps) <= delta_up(eps_max) =
        delta_min <= delta_mu(eps)).  ``mu.lower``: some grid point has delta_low(eps_j) >
        delta_mu(eps_j) for every smaller mu (certified), and only grid points with
        delta_low(eps_j) > delta_min are used, so that for mu just below it delta_mu(eps_j) >=
        delta_min and the delta reading covers eps_j too.  Smaller mu are refuted because the
        delta reading is monotone in mu (if mu-GDP holds at every delta >= delta_min, so does
        mu'-GDP for mu' > mu: where delta_mu(eps) < delta_min <= delta_mu'(eps), take eps' <= eps
        with delta_mu(eps') = delta_min, then delta(eps) <= delta(eps') <= delta_min).

        ``mu_tail``: a certified lower bound on the *unrestricted* tightest mu (every delta), from
        Neyman–Pearson points anywhere on the curve: it is not an end of the ranged bracket;
        above ``mu.upper`` it says the mechanism's tails are heavier than any G_mu with mu in the
        bracket.  ``gap``: sup_alpha f(alpha) - G_{mu.upper}(alpha) over all of [0, 1],
        bracketed (from below by its value at grid points, from above cell by cell by
        monotonicity; both from bounds of f valid on the whole curve): how far the mechanism is
        from a Gaussian one.
        """

        eps, dup, dlow = self._eps_grid()
        e_next, d_here = eps[1:], dup[:-1]
        keep = d_here < 1
        mu_est = np.zeros_like(e_next)
        if keep.any():
            mu_est[keep] = _fast.mu_from_epsilon_delta(e_next[keep], d_here[keep])
        j = int(np.argmax(mu_est))
        # smallest mu with delta_mu(e_{j+1}) >= d_j: one 17-digit decimal above the certified root
        m_down = mu_from_epsilon_delta(float(e_next[j]), float(d_here[j]), digits=17)
        mu_up = _up(float(m_down.to_fraction() + Fraction(10) ** (m_down.adjusted() - 16)))
        for _ in range(60):
            if not _violations(mu_up, e_next, d_here, delta_from_epsilon, _fast):
                break
            mu_up = float(np.nextafter(mu_up * (1 + 1e-9), np.inf))
        else:
            raise PrecisionError("could not certify an upper bound on mu")
        # restricted lower bound: delta_low(eps_j) > delta_mu(eps_j) for every mu below it, from
        # points whose delta range the statement covers (delta_low(eps_j) > delta_min)
        mu_low = 0.0
        ok = (dlow > dup[-1]) & (dlow > 0) & (dlow < 1)
        if ok.any():
            est = _fast.mu_from_epsilon_delta(eps[ok], dlow[ok])
            i = int(np.argmax(est))
            mu_low = _float_down(mu_from_epsilon_delta(float(eps[ok][i]), float(dlow[ok][i]), digits=17))
        pts = self._upper_points()
        inner = (pts[:, 0] > 0) & (pts[:, 0] < 1) & (pts[:, 1] > 0) & (pts[:, 1] < 1)
        mu_tail = 0.0
        if inner.any():
            z = sc.ndtri(1 - pts[inner, 0]) - sc.ndtri(pts[inner, 1])
            i = int(np.argmax(z))
            if z[i] > 0:
                # G_mu through (a, b) with f(a) <= b: not mu'-GDP for mu' below it (rounded down)
                mu_tail = _float_down(mu_from_error_rates(float(pts[inner][i, 0]), float(pts[inner][i, 1]),
                                                          digits=17, rounding="down"))
        # gap: at any alpha, f_lower - G is below the sup (a lower bound); on each cell
        # [a_i, a_{i+1}] both curves are non-increasing, so f - G <= f_upper(a_i) - G(a_{i+1})
        # (an upper bound).  G in float64, charged 1e-12.
        alphas = np.linspace(0.0, 1.0, 2001)
        g = sc.ndtr(sc.ndtri(1 - alphas) - mu_up)
        lo_fn, up_fn = self.tradeoff_curves()
        lows, highs = lo_fn(alphas), up_fn(alphas)
        gap = Bound(max(0.0, float(np.max(lows - g)) - 1e-12),
                    max(0.0, float(np.max(highs[:-1] - g[1:]))) + 1e-12)
        if mu_low > mu_up:  # pragma: no cover - would mean the bracket itself is inconsistent
            raise PrecisionError(f"inconsistent mu bracket [{mu_low}, {mu_up}]")
        return HonestMu(Bound(mu_low, mu_up), gap, float(eps[-1]), float(dup[-1]), mu_tail)


@dataclass(frozen=True)
class HonestMu:
    """The tightest GDP description of a composed mechanism (:meth:`ComposedLoss.honest_mu`).

    Attributes
    ----------
    mu : Bound
        The smallest mu such that the mechanism is (eps, delta_mu(eps))-DP for every
        eps <= eps_max, equally for every eps with delta_mu(eps) >= delta_min (mu-GDP for all
        (eps, delta) on the G_mu curve with delta >= delta_min), lies in [lower, upper]; report
        ``mu.upper`` with ``delta_min`` (or ``eps_max``).  Both ends are proven under both readings
        (:meth:`ComposedLoss.honest_mu`).
    gap : Bound
        sup_alpha f(alpha) - G_{mu.upper}(alpha) over the whole curve: 0 means the mechanism is
        exactly Gaussian; a large gap means GDP describes it loosely.
    eps_max, delta_min : float
        The range where the bracket holds (delta_up(eps_max) = delta_min).
    mu_tail : float
        A certified lower bound on the tightest mu over the whole curve (no range restriction):
        a statement about every delta, not an end of ``mu``.

    All of these describe the composition of the losses given.  Where those are a dominating
    pair that the mechanism need not attain (:attr:`gdpproof.Account.pair_tight` false: replace-one
    compositions), only ``mu.upper`` bounds the mechanism; ``mu.lower``, ``mu_tail`` and ``gap``
    are the pair's, not the mechanism's.
    """

    mu: Bound
    gap: Bound
    eps_max: float
    delta_min: float
    mu_tail: float


def _pair_np_points(d: Any) -> tuple[np.ndarray, np.ndarray]:
    """Points (a, b) with T(a) <= b for the trade-off T of one ordering X||Y of a pairs
    composition, from its composed dominated measure W (P-masses w_j at the ordering's own
    losses s_j): for A_k = {s > s_k}, a_k = 1 - W(A_k) and b_k = sum_{j > k} w_j e^{-s_j}.

    Why: T(a) = sup over real eps of e^{-eps} (1 - a - delta(eps)) (the trade-off is the envelope
    of its supporting lines; DRS Prop. 2.12), and delta >= delta_W for every eps (the pairs'
    lemma), so T is below the envelope of the lines of delta_W, whose vertices are these points
    (between the kinks s_k each line is monotone in eps; below the lattice delta >= 1 - e^eps
    gives T(a) <= 1 - a).  W may be any measure below the composed dominated one, since
    delta_W only grows with each w_j: take the exact composition of the steps' masses with the
    same windows and trims (they drop mass, anywhere on the intermediate lattices).  The
    computed lattice differs from it by at most its l1 bound err, so a_k gets + err and b_k
    + err e^{-s_{k+1}} (e^{-s} largest at the lowest point of the sum), with the float sums'
    rounding (relative (n + 8) u).  Where e^{-s} overflows (s below -709) b is 1.
    """
    low = d.low
    s, w = low._sorted()
    n = len(w)
    err = low.lattice.err
    with np.errstate(over="ignore", invalid="ignore"):
        e = np.exp(-s)
        p_suf = np.concatenate((np.cumsum(w[::-1])[::-1][1:], [0.0]))
        q_suf = np.concatenate((np.cumsum((w * e)[::-1])[::-1][1:], [0.0]))
        nxt = np.concatenate((e[1:], [e[-1]]))
        pad = (n + 8) * U
        a = np.minimum(1.0, 1.0 - p_suf * (1 - pad) + err + 4 * U)
        b = q_suf * (1 + pad) + err * nxt * (1 + 4 * U) + 4 * U
    b = np.where(np.isfinite(b), np.minimum(1.0, b), 1.0)
    return a, b


def _lower_hull(pts: np.ndarray) -> np.ndarray:
    """Lower convex hull of points (x, y), sorted by x (Andrew's monotone chain)."""
    order = np.lexsort((pts[:, 1], pts[:, 0]))
    hull: list[tuple[float, float]] = []
    for x, y in pts[order]:
        while len(hull) >= 2:
            (x1, y1), (x2, y2) = hull[-2], hull[-1]
            if (x2 - x1) * (y - y1) - (y2 - y1) * (x - x1) <= 0:
                hull.pop()
            else:
                break
        if hull and hull[-1][0] == x:
            continue
        hull.append((float(x), float(y)))
    return np.array(hull)


def _violations(mu: float, e_next: np.ndarray, d_here: np.ndarray, certified: Callable[..., Any],
                fast: Any) -> bool:
    """True unless delta_up(eps_j) <= delta_mu(eps_{j+1}) for all j (float check with a 1e-6
    relative margin; the tight ones certified in ball arithmetic, delta_mu rounded down)."""
    dm = fast.delta_from_epsilon(np.full_like(e_next, mu), e_next)
    close = d_here > dm * (1 - 1e-6)
    for j in np.flatnonzero(close):
        exact = certified(mu, float(e_next[j]), digits=20)
        # delta_from_epsilon rounds up; the value one unit lower is a lower bound
        lo = exact.to_fraction() * (1 - Fraction(1, 10**18))
        if Fraction(float(d_here[j])) > lo:
            return True
    return False


def _max_or_none(values: Any) -> float | None:
    """The largest of the values, or None when any is None."""
    out = [v for v in values]
    return None if any(v is None for v in out) else max(out)


def _boundary(ok: Callable[[float], bool], a: float, b: float, want_le: bool,
              guess: float | None = None) -> float:
    """For a monotone predicate with ok(a) false and ok(b) true (``ok(x)``: f(x) <= target for a
    non-increasing f): the smallest x with ok(x) (want_le) or the largest x without it, to float
    resolution, found by bisection.  A ``guess`` of the crossing is tried first, 1e-7 either
    side: each evaluation keeps ok(a) false and ok(b) true, so it only narrows the search."""
    if guess is not None and a < guess < b and math.isfinite(guess):
        span = 1e-7 * max(1.0, abs(guess))
        for x in (min(b, guess + span), max(a, guess - span)):
            if a < x < b:
                if ok(x):
                    b = x
                else:
                    a = x
    for _ in range(200):
        m = 0.5 * (a + b)
        if m in (a, b) or b - a <= 1e-10 * max(1.0, abs(b)):
            break
        if ok(m):
            b = m
        else:
            a = m
    return b if want_le else a


def _check_eps(eps: Any) -> float:
    try:
        return float(nonnegative("eps", eps, symbolic=False))
    except InvalidParameterError:
        raise _bad("eps", eps, "must be a finite number >= 0") from None


def _check_delta(delta: Any) -> float:
    try:
        d = float(probability("delta", delta, symbolic=False))
    except InvalidParameterError:
        d = math.nan
    if not 0 < d < 1:
        raise _bad("delta", delta, "must be in (0, 1)")
    return d


def _check_delta_exact(delta: Any) -> Fraction:
    """delta in (0, 1) as an exact rational (a float exactly, a decimal string exactly)."""
    try:
        r = probability("delta", delta, symbolic=False)
        d = Fraction(int(r.p), int(r.q)) if r.is_Rational else None
    except (InvalidParameterError, TypeError, AttributeError):
        d = None
    if d is None or not 0 < d < 1:
        raise _bad("delta", delta, "must be in (0, 1)")
    return d


def _check_alpha(alpha: Any) -> float:
    try:
        return float(probability("alpha", alpha, symbolic=False))
    except InvalidParameterError:
        raise _bad("alpha", alpha, "must be in [0, 1]") from None


def _check_refinement(rel_width: Any, max_refinements: Any) -> float:
    """The relative width asked of a refined bracket, validated with the number of refinements."""
    w = float(positive("rel_width", rel_width))
    if not 1e-4 <= w <= 10:
        raise _bad("rel_width", rel_width, "must be in [1e-4, 10]")
    if isinstance(max_refinements, bool) or not isinstance(max_refinements, int) or not 0 <= max_refinements <= 20:
        raise _bad("max_refinements", max_refinements, "must be an integer in [0, 20]")
    return w


def compose_losses(parts: Sequence[tuple[PrivacyLoss, int]], *, grid_step: float = 1e-4,
                   eta: Any = 1e-12, long_double: bool = False, route: str = "float",
                   fft_error: float | None = None, discretization: str = "coupling") -> ComposedLoss:
    r"""Compose privacy losses (each given with its number of repetitions) with proven bounds.

    Parameters
    ----------
    parts : sequence of (PrivacyLoss, count)
        The mechanisms, in any order (composition commutes).
    grid_step : float
        The grid h.  The bracket on epsilon is about 2 t wide, t = h sqrt(T log(1/eta) / 2)
        (Hoeffding) or, for many steps, about 0.6 of that (Bernstein, module doc); halving h
        halves it and doubles the work.
    eta : float
        The coupling's failure probability (Hoeffding's or Bernstein's); it is added to the upper
        and subtracted from the lower delta, so deltas below ~10 eta are not resolved.
    long_double : bool
        Run every squaring in long double (about 3 times slower, a 2048 times smaller FFT error
        bound where numpy's long double is 80-bit): for small delta, where the float64 bound
        dominates the bracket.  By default only the early squarings do.
    route : {"float", "exact"}
        ``"float"``: the float64 FFT lattice (module doc; its additive errors put a floor near
        delta = 1e-10).  ``"exact"``: the integer lattice of :mod:`gdpproof.accounting.exact_lattice`,
        no float assumption and no floor but its budget: the window tails, trimming and
        rounding together lose about 3 eta (exactly measured), so eta may be any rational
        (a Fraction or decimal string such as "1e-40"); the grid step is rounded down to an
        8-bit mantissa.  ``long_double`` does not apply to it.
    fft_error : float, optional
        Float route: the additive delta error the FFTs may cost.  The squarings whose float64
        error bound, times the number of times their square is repeated, would exceed its share
        run in long double, the others in float64 (every bound is charged either way).  None
        (default): the squarings repeated more than 64 times run in long double.
    discretization : {"coupling", "pairs"}
        Float route: ``"coupling"`` rounds each loss to the nearest grid point and bounds the
        sum of the rounding errors (module doc; any loss); ``"pairs"`` composes dominating and
        dominated grid masses (:mod:`gdpproof.accounting.pairs`; compiled losses without atoms),
        whose bracket narrows like h^2: on many steps a grid 10 to 20 times coarser reaches
        the same width.  ``eta`` then only sets the window tails (T eta / 16 of mass at most).

    Examples
    --------
    >>> from gdpproof.accounting.pld import SubsampledGaussianLoss, compose_losses
    >>> c = compose_losses([(SubsampledGaussianLoss(1.0, 0.01), 1000)], grid_step=5e-4)
    >>> b = c.epsilon(1e-5)
    >>> b.lower < 1.8282 < b.upper, b.relative_width < 0.2
    (True, True)
    """
    if not parts:
        raise _bad("parts", parts, "must be a non-empty list of (PrivacyLoss, count)")
    if route not in ("float", "exact"):
        raise _bad("route", route, 'must be "float" or "exact"')
    h = float(positive("grid_step", grid_step))
    if not 1e-8 <= h <= 1:
        raise _bad("grid_step", grid_step, "must be in [1e-8, 1]")
    if route == "exact":
        eta_exact = _check_delta_exact(eta) if eta is not None else None
        if eta_exact is None or not eta_exact < Fraction(1, 1000):
            raise _bad("eta", eta, "must be in (0, 1e-3)")
        return _compose_exact(_clean_parts(parts), h, 4 * eta_exact)
    eta = float(positive("eta", eta))
    if not 1e-300 < eta < 1e-3:
        raise _bad("eta", eta, "must be in (1e-300, 1e-3)")
    if fft_error is not None:
        fft_error = float(positive("fft_error", fft_error))
        if not fft_error < 1e-3:
            raise _bad("fft_error", fft_error, "must be in (0, 1e-3)")
    clean = _clean_parts(parts)
    if discretization == "pairs":
        return _compose_pairs(clean, h, eta, bool(long_double), fft_error)
    if discretization != "coupling":
        raise _bad("discretization", discretization, 'must be "coupling" or "pairs"')
    total = sum(c for _, c in clean)
    tau = eta / (16.0 * total)             # per-step tail mass dropped on each side (x T steps)
    budget = eta / 4.0                     # mass trimmed after convolutions (x 1.5 with the fused step's fold)
    kolm = total * (5 * CDF_ERROR + 2 * U)
    orderings = _orderings(clean)
    # the second-moment bound (for Bernstein) costs CDF values on cells of the bulk; below
    # BERNSTEIN_MIN_STEPS steps its t gains too little (t_B / t_H > 0.75) to pay for them
    moments = total >= BERNSTEIN_MIN_STEPS
    steps = {law: [_discretize(loss, law, h, tau, moments) for loss, _ in clean] for law in "PQ"}
    # the rounding errors have range h_eff (h plus the float error of the bin edges) and second
    # moments bounded per step: Hoeffding or Bernstein, whichever is smaller, per law
    h_eff = max(st.h_eff for law in "PQ" for st in steps[law])
    ts = {law: _coupling_t(h_eff, [(st.second, count) for st, (_, count) in zip(steps[law], clean)], eta)
          for law in "PQ"}
    directions = []
    for law, sign, name in (("P", 1, orderings[0]), ("Q", -1, orderings[1])):
        t = ts[law]
        acc: _Lattice | None = None
        for step, (loss, count) in zip(steps[law], clean):
            powered = _power(step.lattice, count, budget / (2 * len(clean)), all_long=bool(long_double),
                             fft_error=None if fft_error is None else fft_error / len(clean))
            acc = powered if acc is None else _convolve(acc, powered, budget / (4 * len(clean)))
        assert acc is not None
        d_lo = math.fsum(count * st.dbar[0] for st, (_, count) in zip(steps[law], clean))
        d_hi = math.fsum(count * st.dbar[1] for st, (_, count) in zip(steps[law], clean))
        pad = 4 * U * (abs(d_lo) + abs(d_hi) + t)   # the float sums above
        # S = S_R - sum D: with prob >= 1 - eta, S_R - T dhi - t <= S <= S_R - T dlo + t (law P);
        # for the Q||P ordering the variable is -S = -S_R + sum D.
        if sign == 1:
            shift = (_down(-d_hi - t - pad), _up(-d_lo + t + pad))
        else:
            shift = (_down(d_lo - t - pad), _up(d_hi + t + pad))
        lost = max(0.0, 1.0 - acc.l1()) + acc.err + 4 * U
        slack = eta + kolm + acc.err
        directions.append(_Direction(name, acc, h, sign, shift, slack, _up(lost)))
    comp = ComposedLoss(tuple(clean), h, eta, max(ts.values()), (directions[0], directions[1]), route=FLOAT_ROUTE,
                        assumptions=FLOAT_ASSUMPTIONS)
    comp.coupling_model = [[(st.second / (h * h), st.bulk_bins, count) for st, (_, count) in zip(steps[law], clean)]
                           for law in "PQ"], h_eff / h
    return comp


def _compose_pairs(clean: list[tuple[PrivacyLoss, int]], h: float, eta: float, long_double: bool,
                   fft_error: float | None) -> ComposedLoss:
    """The float route on the pairs discretization (:mod:`gdpproof.accounting.pairs`).

    Per ordering, the dominating masses and the dominated ones are composed apart (the same
    FFT power as the coupling's).  Upper end: sum_k w_k g(s_k) + the FFT bound + the mass
    missing from the composed lattice (the +infinity mass, the per-step window tails and the
    trims, all counting 1) + what rounding the masses up added to the total ((1 + r)^T - 1 for
    a per-step excess r).  Lower end: the dominated masses' sum minus the FFT bound (trims and
    window tails only lower it).  The grid step is rounded down to an 8-bit mantissa so that
    every point k h is a double.
    """
    h = grid_step_exact(h)
    bad = [loss.name for loss, _ in clean if not supports_pairs(loss)]
    if bad:
        raise PrecisionError(f"the pairs discretization does not take {', '.join(bad)} (atoms or not compiled)")
    total = sum(c for _, c in clean)
    tau = eta / (16.0 * total)
    budget = eta / 4.0
    steps = [pair_steps(loss, h, tau) for loss, _ in clean]
    orderings = _orderings(clean)

    def compose(lattices: list[_Lattice]) -> _Lattice:
        acc: _Lattice | None = None
        for lat, (_, count) in zip(lattices, clean):
            powered = _power(lat, count, budget / (2 * len(clean)), all_long=long_double,
                             fft_error=None if fft_error is None else fft_error / len(clean))
            acc = powered if acc is None else _convolve(acc, powered, budget / (4 * len(clean)))
        assert acc is not None
        return acc

    directions = []
    for o, (sign, name) in enumerate(((1, orderings[0]), (-1, orderings[1]))):
        up = compose([st[o].upper for st in steps])
        log_excess = math.fsum(count * math.log1p(st[o].excess) for st, (_, count) in zip(steps, clean))
        excess = _up(math.expm1(_up(log_excess * (1 + 4 * U))) * (1 + 4 * U))
        lost = max(0.0, 1.0 - up.l1()) + up.err + excess + 4 * U

        def make_low(o: int = o, sign: int = sign, name: str = name) -> _Direction:
            low = compose([st[o].lower for st in steps])
            return _Direction(name, low, h, sign, (0.0, 0.0), low.err, 0.0)

        directions.append(_PairDirection(name, up, h, sign, (0.0, 0.0), up.err, _up(lost), make_low=make_low))
    comp = ComposedLoss(tuple(clean), h, 0.0, 0.0, (directions[0], directions[1]), route=FLOAT_ROUTE,
                        assumptions=PAIRS_ASSUMPTIONS)
    comp.discretization = "pairs"
    return comp


def _hoeffding_t(h: float, total: int, eta: float) -> float:
    """Hoeffding's deviation t = h sqrt(T log(1/eta) / 2) for T rounding errors of range h
    (rounded up): half the width of the coupling's shift interval, hence of the eps bracket."""
    return _up(h * math.sqrt(total * math.log(1 / eta) / 2) * (1 + 4 * U))


def _bernstein_t(b: float, var: float, eta: float) -> float:
    """Bernstein's deviation for independent centred X_i <= b with sum E X_i^2 <= var (rounded
    up): P(sum X_i >= t) <= exp(-t^2 / (2 (var + b t / 3))) (Boucheron, Lugosi & Massart,
    *Concentration Inequalities*, 2013, Thm 2.10 and Cor. 2.11 with c = b / 3), which is eta at
    t = b l / 3 + sqrt((b l / 3)^2 + 2 var l), l = log(1/eta)."""
    ell = math.log(1 / eta) * (1 + 4 * U)
    x = b * ell / 3
    return _up((x + math.sqrt(x * x + 2 * var * ell)) * (1 + 8 * U))


def _coupling_t(h_eff: float, seconds: Sequence[tuple[float, int]], eta: float) -> float:
    """The coupling's deviation t for one law: the smaller of Hoeffding's (range h_eff) and
    Bernstein's, whose X_i = D_i - E D_i have X_i <= h_eff / 2 + |E D_i| <= h_eff (both tails)
    and E X_i^2 = Var D_i <= E D_i^2, bounded per step in ``seconds`` as (bound, count)."""
    total = sum(c for _, c in seconds)
    var = _up(math.fsum(s * c for s, c in seconds) * (1 + 4 * U))
    return min(_hoeffding_t(h_eff, total, eta), _bernstein_t(h_eff, var, eta))


def _clean_parts(parts: Sequence[tuple[PrivacyLoss, int]]) -> list[tuple[PrivacyLoss, int]]:
    clean: list[tuple[PrivacyLoss, int]] = []
    for part in parts:
        if not (isinstance(part, tuple) and len(part) == 2):
            raise _bad("parts", part, "must be (PrivacyLoss, count) pairs")
        loss, count = part
        if not isinstance(loss, PrivacyLoss):
            raise _bad("parts", loss, "must be a PrivacyLoss")
        if isinstance(count, bool) or not isinstance(count, (int, np.integer)) or not 1 <= count <= 10**9:
            raise _bad("count", count, "must be an integer in [1, 10^9]")
        clean.append((loss, int(count)))
    return clean


def _orderings(clean: list[tuple[PrivacyLoss, int]]) -> tuple[str, str]:
    """The orderings' names: a symmetric loss is the same in both, so the others name them."""
    named = {loss.orderings for loss, _ in clean if not loss.symmetric}
    return named.pop() if len(named) == 1 else (clean[0][0].orderings if len(clean) == 1 else ("P||Q", "Q||P"))


def _compose_exact(clean: list[tuple[PrivacyLoss, int]], h: float, budget: Fraction) -> ComposedLoss:
    """The exact integer-lattice composition with additive delta budget ``budget``."""
    dirs, h_used, eta, t, plan = compose_exact(clean, grid_step=h, budget=budget, orderings=_orderings(clean))
    comp = ComposedLoss(tuple(clean), h_used, _up(float(eta)), t, dirs, route=EXACT_ROUTE, assumptions=())
    comp.plan = plan
    return comp


def _check_route(route: Any) -> str:
    if route not in ("auto", "float", "exact"):
        raise _bad("route", route, 'must be "auto", "float" or "exact"')
    return str(route)


def _rel(b: Bound) -> float:
    """The relative width used to stop refining: width / lower, or width / upper when lower is 0."""
    return b.width / b.upper if b.lower == 0 and b.upper > 0 else b.relative_width


@dataclass
class _Best:
    """The narrowest bracket reached so far."""

    rw: float = math.inf
    bound: Bound | None = None
    comp: ComposedLoss | None = None
    passes: int = 0                    # compositions offered so far

    def offer(self, b: Bound, comp: ComposedLoss, rw: float) -> None:
        self.passes += 1
        # ties (a lower end of 0 gives 1 whatever the grid) go to the smaller upper end
        if self.bound is None or (rw, b.upper) < (self.rw, self.bound.upper):
            self.rw, self.bound, self.comp = rw, b, comp


def _finish(best: _Best, w: float, what: str, why: str) -> tuple[Bound, ComposedLoss]:
    """The best bracket, flagged; a WidthNotReachedWarning when it is wider than asked."""
    if best.bound is None or best.comp is None:
        raise PrecisionError(f"{what}: no finite bracket ({why})")
    comp = best.comp
    comp.rel_width_reached, comp.rel_width_asked, comp.passes = best.rw, w, best.passes
    comp.target_met = best.rw <= w
    if not comp.target_met:
        warnings.warn(WidthNotReachedWarning(
            f"{what}: reached a relative width of {best.rw:.3g}, asked {w:g} ({why}); the bracket "
            f"{best.bound} is proven, only wider"), stacklevel=3)
    return best.bound, comp


def _next_step(h: float, w: float, rw: float, floor_step: float) -> float:
    """The next grid step: the width is close to proportional to h."""
    return h * max(floor_step, min(0.9, 0.93 * w / rw))


#: The first grid's bracket is aimed at this fraction of the width asked (the a-priori eps
#: estimate is a CLT value, a few percent off where the composition is close to Gaussian).
FIRST_AIM = 0.9
#: Later grids aim at this fraction: the width is then measured and scales with h.
REFINED_AIM = 0.95
#: Where the composition is far from Gaussian (its Berry–Esseen ratio sum E|L - m|^3 / s^3 is
#: above BERRY_ESSEEN_ROUGH) the CLT estimate can be several times too small: the first grid is
#: then aimed at ROUGH_AIM times the width asked, a cheap pass whose midpoint sets the next.
BERRY_ESSEEN_ROUGH = 0.25
ROUGH_AIM = 8.0
#: The share of the relative width asked that the float64 FFTs may cost in delta (an additive
#: error FFT_SHARE w delta moves the eps bracket by a small part of its width).
FFT_SHARE = 0.02
#: Compositions of fewer steps use Hoeffding's t alone (module doc): Bernstein's would gain
#: less than a quarter of the width there, and the cells of its second-moment bound cost CDF
#: values comparable with the composition itself.
BERNSTEIN_MIN_STEPS = 256
#: The ratio of lattice._second_moment's bound to h^2 / 4 the first grid is aimed with (its
#: value on a smooth law with 16 cells a bin; an aim, never part of a bound).
AIM_SECOND = 0.4
#: The first grid is never chosen finer than this many points across the composed loss's
#: estimated range (mean +- 7 standard deviations): a bad estimate costs a pass, not memory.
FIRST_GRID_POINTS = 2**22


def _clt_estimate(clean: list[tuple[PrivacyLoss, int]], d: float,
                  tau: float) -> tuple[float, float, float, float]:
    """(eps, s, r, bulk): a CLT estimate of eps(d) (an approximation, not a bound), the standard
    deviation s of the composed loss under P, its Berry–Esseen ratio r = sum E|L - m|^3 / s^3
    and the widest step's bulk (between its BULK_TAIL quantiles, to a cell, under P).

    Each step's loss under P is binned on 4096 cells of its window.  A mu-GDP loss has mean
    mu^2 / 2 and variance mu^2 (the CLT of Dong, Roth & Su 2022, Thm 3.5); eps is that of G_mu
    with the smaller of mu = s and mu = sqrt(2 mean) (a smaller estimate asks for a finer
    first grid, which reaches the width in one pass more often); r says how far from Gaussian
    the sum may be.  It only chooses the first grid; the bracket never depends on it.
    """
    var = third = kl = bulk = 0.0
    for loss, count in clean:
        moments = _step_moments(loss, tau)
        if moments is None:
            continue
        mean, second, absolute_third, step_bulk = moments
        bulk = max(bulk, step_bulk)
        kl += count * mean
        var += count * second
        third += count * absolute_third
    s = math.sqrt(var)
    if not s > 0:
        return 0.0, 0.0, math.inf, 0.0
    mu = min(s, math.sqrt(2 * kl)) if kl > 0 else s
    return float(_fast.epsilon_from_delta(min(mu, 1e3), d)), s, third / s**3, bulk


def _step_moments(loss: PrivacyLoss, tau: float) -> tuple[float, float, float, float] | None:
    """(mean, variance, E|L - mean|^3, bulk width) of one step's loss under P, binned on 4096
    cells of its window at tail ``tau`` (None when the cells hold no mass); kept per tau on the
    loss, like its window: the grid choices of both discretizations ask for it several times."""
    cache = loss.__dict__.setdefault("_moments_cache", {})
    key = float(tau)
    if key not in cache:
        lo, hi = loss.window(tau, "P")
        edges = np.linspace(lo, hi, 4097)
        mass = np.maximum(np.diff(np.clip(loss.cdf(edges, "P"), 0.0, 1.0)), 0.0)
        total = float(np.sum(mass))
        if not total > 0:
            cache[key] = None
        else:
            mid = 0.5 * (edges[1:] + edges[:-1])
            cum = np.cumsum(mass) / total
            cells = np.searchsorted(cum, 1 - BULK_TAIL) - np.searchsorted(cum, BULK_TAIL) + 2
            mean = float(np.sum(mass * mid)) / total
            cache[key] = (mean, float(np.sum(mass * (mid - mean) ** 2)) / total,
                          float(np.sum(mass * np.abs(mid - mean) ** 3)) / total, float(cells) * (hi - lo) / 4096)
    return cache[key]


def _first_step(clean: list[tuple[PrivacyLoss, int]], d: float, w: float, eta: float) -> float:
    """The first grid step, chosen a priori so that usually no second grid is needed.

    The eps bracket is the shift interval of the coupling wide (module doc: both ends come from
    the same lattice law, moved by shift[0] and shift[1]), about 2 t: Hoeffding's
    2 h sqrt(T log(1/eta)/2), or Bernstein's with the second moment AIM_SECOND h^2 / 4 where the
    per-step bulk fits lattice._second_moment's cells, known before composing (an aim: the
    second-moment bound is computed, and charged, when composing).  So with an estimate e of eps (:func:`_clt_estimate`) the grid with
    2 t = FIRST_AIM w e / (1 + w/2) meets (upper - lower) / lower <= w when e is right; a wrong
    estimate only costs a second grid (:func:`_refined_step`).  Far from Gaussian, ROUGH_AIM
    replaces FIRST_AIM (a coarse pass, then one aimed from its midpoint).  Clamped to [2e-7, 0.05], and
    to at most FIRST_GRID_POINTS points across the composed loss's range.
    """
    total = sum(c for _, c in clean)
    eps, s, rough, bulk = _clt_estimate(clean, d, eta / (16.0 * total))
    if not eps > 0:
        return 1e-3
    aim = (FIRST_AIM if rough <= BERRY_ESSEEN_ROUGH else ROUGH_AIM) * w * eps / (1 + w / 2)
    h = aim / (2 * _hoeffding_t(1.0, total, eta))
    # Bernstein's t, with the second-moment bound a smooth law usually gets (AIM_SECOND h^2 / 4),
    # where the bulk is narrow enough for the cells of lattice._second_moment
    t_b = _bernstein_t(1.0, total * AIM_SECOND / 4, eta)
    if total >= BERNSTEIN_MIN_STEPS and 4 * bulk / (aim / (2 * t_b)) <= SUBCELL_POINTS:
        h = max(h, aim / (2 * t_b))
    h = max(h, 14 * s / FIRST_GRID_POINTS)
    return min(0.05, max(2e-7, h))


def _predicted_t(comp: ComposedLoss, h_new: float) -> float:
    """An estimate (not a bound) of the coupling's t on grid ``h_new``: each step's second-moment
    bound scaled by h_new^2 and by the cell factor at the bins the bulk will have there."""
    laws, ratio = comp.coupling_model
    ts = []
    for parts in laws:
        seconds = []
        for per_h2, bins, count in parts:
            factor = 1.0 if bins < 0 else \
                _cell_factor(_cells(math.ceil(bins * comp.h / h_new))) / _cell_factor(_cells(bins))
            seconds.append((min(per_h2 * factor, ratio * ratio / 4) * h_new * h_new, count))
        ts.append(_coupling_t(h_new * ratio, seconds, comp.eta))
    return max(ts)


def _refined_step(h: float, b: Bound, w: float, comp: ComposedLoss | None = None) -> float:
    """The next grid step after a bracket b on grid h that is wider than asked.

    Once the lower end is positive and the bracket narrower than its value, the width is
    proportional to h (it is the shift interval, 2 t plus T times the width of the mean
    rounding error's interval, both proportional to h) and the midpoint estimates eps far
    better than the width (the actual rounding deviation is about sqrt(T/12) h, the coupling's
    t about sqrt(T log(1/eta)/6) h or more): aim at REFINED_AIM of the width asked there, in one step.
    Otherwise (a bracket reaching 0) shrink h tenfold.
    """
    if b.lower > 0 and b.width < b.lower:
        mid = 0.5 * (b.lower + b.upper)
        r0 = REFINED_AIM * w * mid / (1 + w / 2) / b.width
        new = h * r0
        if comp is not None and comp.coupling_model is not None and \
                any(bins >= 0 for parts in comp.coupling_model[0] for _, bins, _ in parts):
            # the width scales like t, and t / h changes with h where the second-moment bound's
            # cells do (fewer a bin as the bins multiply): aim at t(h_new) = r0 t(h)
            t_old = _predicted_t(comp, h)
            for _ in range(3):
                new = h * r0 * (t_old / h) / (_predicted_t(comp, new) / new)
        return h * max(1e-3, min(0.9, new / h))
    return 0.1 * h


def epsilon_bracket(parts: Sequence[tuple[PrivacyLoss, int]], delta: Any, *, rel_width: float = 0.01,
                    max_refinements: int = 5, route: str = "auto") -> tuple[Bound, ComposedLoss]:
    """The proven bracket on eps(delta) of a composition, refined to a relative width.

    Refines the grid (the width is close to proportional to h) until ``(upper - lower) / lower
    <= rel_width``.  Two routes (``route``):

    * ``"float"``: the float64 FFT lattice, from a first grid chosen a priori (a CLT estimate of
      eps and the bracket's known width), eta = min(1e-8, delta rel_width / 20); fast,
      but its additive float errors stop it near delta = 1e-10;
    * ``"exact"``: the integer lattice (:mod:`gdpproof.accounting.exact_lattice`), no float
      assumption, any delta (a Fraction or a string such as "1e-400" is taken exactly), its
      additive budget (eta, tails, rounding) delta * rel_width / 10; from h = 2^-6;
    * ``"auto"`` (default): the float route where delta >= ``AUTO_EXACT_BELOW`` and its floor
      lets it reach the width, else the exact route.

    Best effort: when the width is not reached (``max_refinements`` finer grids, a grid too fine
    to build, or the float floor), the narrowest bracket reached is returned with a
    :class:`~gdpproof.errors.WidthNotReachedWarning`, and the composition says so
    (``target_met``, ``rel_width_reached``).  The bracket is proven either way.  Returns the
    bracket and the composition (for other eps or delta on the same grid).  Raises
    PrecisionError only when no finite bracket exists on the route asked for (delta below the
    float route's floor with ``route="float"``).

    Examples
    --------
    >>> from gdpproof.accounting.pld import GaussianLoss, RandomizedResponseLoss, epsilon_bracket
    >>> b, comp = epsilon_bracket([(GaussianLoss(0.3), 10), (RandomizedResponseLoss(0.2), 20)], 1e-6)
    >>> b.relative_width <= 0.01, comp.steps, comp.target_met
    (True, 30, True)
    >>> b, comp = epsilon_bracket([(GaussianLoss(0.5), 4)], "1e-30")
    >>> b.lower < 11.7439 < b.upper, comp.route, comp.assumptions
    (True, 'exact integer lattice', ())
    """
    dq = _check_delta_exact(delta)
    if dq < SMALLEST_DELTA:  # refused before any work: the lattice's bits grow like log2(1/delta)
        raise PrecisionError(f"delta={show(delta)} is below 1e-1000: the exact lattice would hold about "
                             f"{dq.denominator.bit_length() - dq.numerator.bit_length():,} bits per mass (at "
                             "1e-1000 a 4-fold Gaussian already takes 20 s); ask for a larger delta")
    w = _check_refinement(rel_width, max_refinements)
    r = _check_route(route)
    clean = _clean_parts(parts)
    best = _Best()
    why = ""
    if r == "float" or (r == "auto" and dq >= AUTO_EXACT_BELOW):
        if dq < Fraction(1, 10**280):
            raise PrecisionError(f"delta={delta} is below what a float64 lattice resolves (1e-280): "
                                 'use route="exact"')
        if _pairs_pay(clean, float(dq), w):
            why = _epsilon_float(clean, dq, w, max_refinements, best, "pairs")
        if best.rw > w:
            why = _epsilon_float(clean, dq, w, max_refinements, best)
        if best.rw <= w or r == "float":
            if best.bound is None:
                raise PrecisionError(f"delta={delta} is below the float route's floor: use route=\"exact\"")
            return _finish(best, w, "epsilon_bracket", why)
    why = _epsilon_exact(clean, dq, w, max_refinements, best)
    return _finish(best, w, "epsilon_bracket", why)


def _eps_at(comp: ComposedLoss, dq: Fraction) -> Bound:
    """The eps bracket at the exact delta: the upper end at the double below it, the lower end at
    the double above (float route); the exact route compares with dq itself."""
    if comp.route == EXACT_ROUTE:
        return comp.epsilon(dq)
    d_down = float(dq)
    if Fraction(d_down) > dq:
        d_down = _down(d_down)
    b = comp.epsilon(d_down)
    if Fraction(d_down) == dq:
        return b
    d_up = min(_up(d_down), math.nextafter(1.0, 0.0))
    return Bound(min(comp.epsilon(d_up).lower, b.upper), b.upper)


def _float_eta(d: float, w: float) -> float:
    """The float route's coupling failure probability for an eps bracket at delta ``d`` and
    relative width ``w``: eta moves delta by at most eta / d = w / 20 relatively (a small part
    of the width, which the refinement measures), and t grows only like sqrt(log(1/eta)) as
    it shrinks; at most 1e-8."""
    return min(1e-8, d * w / 20)


#: The pairs discretization is tried first where every step's window holds at most this many
#: grid points on its first grid (its masses are ball arithmetic, about 50 us a point).
PAIRS_MAX_POINTS = 20_000
#: Its first grid aims at PAIRS_AIM of the width asked, from width ~ h^2 T eps / s^2 (s the
#: composed loss's standard deviation; measured on subsampled Gaussians, where the second-order
#: error of the pairs grows with the steps and shrinks with the spread of the loss).
PAIRS_AIM = 0.9


def _pairs_first_step(clean: list, d: float, w: float, eta: float) -> float | None:
    """The pairs' first grid step, or None where they should not be tried (a loss they do not
    take, or too many points a step)."""
    if not all(supports_pairs(loss) for loss, _ in clean):
        return None
    total = sum(c for _, c in clean)
    eps, s, _, _ = _clt_estimate(clean, d, eta / (16.0 * total))
    if not (eps > 0 and s > 0):
        return None
    h = s * math.sqrt(PAIRS_AIM * w / total)
    if _pairs_too_fine(clean, h, eta):
        return None
    return min(0.05, max(2e-7, h))


def _pairs_too_fine(clean: list, h: float, eta: float) -> bool:
    """Whether some step's window (tails eta / (16 T)) holds more than PAIRS_MAX_POINTS points
    of the grid h."""
    tau = eta / (16.0 * sum(c for _, c in clean))
    for loss, _ in clean:
        span = max(loss.window(tau, law)[1] for law in "PQ") - min(loss.window(tau, law)[0] for law in "PQ")
        if span / h > PAIRS_MAX_POINTS:
            return True
    return False


#: The pairs are tried first where the coupling's first grid is both large (at least
#: PAIRS_MIN_POINTS points across the composed loss, mean +- 7 standard deviations) and at least
#: PAIRS_RATIO times finer than theirs: there they win clearly; elsewhere the coupling is as
#: fast or faster (their masses cost ball arithmetic and they compose twice as many lattices).
#: Measured (DP-SGD at delta 1e-5, one run, CPU): sigma 2, p 0.001, T 1e5 (ratio 12): 0.2 s
#: against 1.0 s; the MNIST run (ratio 11): 0.5 s against 0.9 s; sigma 1, p 0.01, T 1e5 and
#: 1e6 (ratios 7 and 4, eps 25 and 139, where a few large losses decide delta and their width
#: model does not fit): 3 passes, 2-4 times slower.  Either way the bracket is proven.
PAIRS_MIN_POINTS = 100_000
PAIRS_RATIO = 8.0
#: When their first grid misses the width asked by more than this factor anyway, the coupling
#: takes over.
PAIRS_GIVE_UP = 4.0


def _pairs_pay(clean: list, d: float, w: float) -> bool:
    """Whether :func:`epsilon_bracket` tries the pairs discretization first (a choice of cost)."""
    eta = _float_eta(d, w)
    try:
        h_p = _pairs_first_step(clean, d, w, eta)
        if h_p is None:
            return False
        h_c = _first_step(clean, d, w, eta)
    except PrecisionError:
        return False
    total = sum(c for _, c in clean)
    _, s, _, _ = _clt_estimate(clean, d, eta / (16.0 * total))
    return 14 * s / h_c >= PAIRS_MIN_POINTS and h_p >= PAIRS_RATIO * h_c


def _epsilon_float(clean: list, dq: Fraction, w: float, max_refinements: int, best: _Best,
                   discretization: str = "coupling") -> str:
    """The float route's refinement loop; offers its brackets to ``best``, returns why it stopped
    ("" when the width was reached).  On the pairs discretization the width shrinks like h^2:
    each refinement aims h at sqrt(REFINED_AIM w mid / width) times the last."""
    d = float(dq)
    eta = _float_eta(d, w)
    pairs = discretization == "pairs"
    long_double = False
    previous = math.inf
    try:
        h = _pairs_first_step(clean, d, w, eta) if pairs else _first_step(clean, d, w, eta)
    except PrecisionError as exc:
        return f"the float route stopped: {exc}"
    if h is None:
        return "the pairs discretization does not apply"
    # the FFTs may cost an additive delta error of FFT_SHARE w delta (long double where float64
    # would exceed it): a small part of the width asked
    fft_error = FFT_SHARE * w * d
    for attempt in range(max_refinements + 1):
        try:
            comp = compose_losses(clean, grid_step=h, eta=eta, long_double=long_double,
                                  fft_error=None if long_double else fft_error, discretization=discretization)
            # the additive error (FFT, truncation, eta) does not shrink with h: when it is a
            # visible part of delta, run in long double; when even that does not help, stop
            floor = comp.delta_floor()
            if floor > 0.02 * d and not long_double:
                long_double = True
                best.passes += 1
                comp = compose_losses(clean, grid_step=h, eta=eta, long_double=True, discretization=discretization)
                floor = comp.delta_floor()
            b = _eps_at(comp, dq)
        except PrecisionError as exc:
            return f"the float route stopped ({discretization}): {exc}"
        rw = _rel(b)
        best.offer(b, comp, rw)
        if rw <= w:
            return ""
        if floor > 0.2 * d:
            return f"delta is within a factor 5 of the float route's floor {floor:.2g}"
        if pairs and not attempt and rw > PAIRS_GIVE_UP * w:
            return f"the pairs' first grid gave a relative width of {rw:.3g} (their cost model does not fit this composition)"
        if attempt and rw > (0.95 if pairs else 0.8) * previous:
            return f"the bracket stopped narrowing (grid step {h:.3g}, float floor {floor:.2g})"
        previous = rw
        if not pairs:
            h = _refined_step(h, b, w, comp)
        elif b.lower > 0 and b.width < b.lower:
            mid = 0.5 * (b.lower + b.upper)
            h *= max(0.1, min(0.9, math.sqrt(REFINED_AIM * w * mid / (1 + w / 2) / b.width)))
        else:
            h *= 0.3
        if h < 2e-7:
            return f"grid step {h:.3g} is below the float route's limit"
    return f"{max_refinements} refinements"


#: The exact route's first grid step (coarse: it estimates eps for the next).
EXACT_FIRST_STEP = 2.0 ** -6


def _exact_attempt(clean: list, h: float, budget: Fraction, answer: Callable[[ComposedLoss], Bound]) -> tuple[Any, Any]:
    """(composition, bracket) on the exact route, or (None, why) when it cannot be built."""
    try:
        comp = _compose_exact(clean, h, budget)
        return comp, answer(comp)
    except PrecisionError as exc:
        return None, f"the exact route stopped: {exc}"


def _epsilon_exact(clean: list, dq: Fraction, w: float, max_refinements: int, best: _Best) -> str:
    """The exact route's refinement loop (grid steps shrink by at most 16 per refinement)."""
    budget = dq * Fraction(w).limit_denominator(10**6) / 10
    h = EXACT_FIRST_STEP
    for _ in range(max_refinements + 1):
        comp, b = _exact_attempt(clean, h, budget, lambda c: c.epsilon(dq))
        if comp is None:
            return b
        rw = _rel(b)
        best.offer(b, comp, rw)
        if rw <= w:
            return ""
        # the width is close to proportional to h once the lower end is positive: go there in one
        # step, aiming the absolute width at w times the bracket's midpoint (the coarse lower end
        # is far below eps, so width / lower would ask for a grid many times finer than needed)
        steer = b.width / ((b.lower + b.upper) / 2) if b.lower > 0 else rw
        h = _next_step(comp.h, w, steer, 1 / 1024 if b.lower > 0 else 1 / 16)
    return f"{max_refinements} refinements"


def delta_bracket(parts: Sequence[tuple[PrivacyLoss, int]], epsilon: Any, *, rel_width: float = 0.01,
                  max_refinements: int = 5, route: str = "auto") -> tuple[Bound, ComposedLoss]:
    """The proven bracket on delta(eps) of a composition, refined to a relative width.

    The twin of :func:`epsilon_bracket`: refines the grid until ``(upper - lower) / upper <=
    rel_width``.  ``route="float"``: the pairs discretization first where it applies (its first
    grid from the eps width that moves log delta by rel_width, usually the only one), then the
    coupling from h = 1e-3, eta = 1e-12; ``"exact"``: the integer
    lattice, whose budget follows the delta found (a tenth of rel_width times its lower end);
    ``"auto"``: the float route, and the exact one when delta(eps) is too close to the float
    floor.  When delta(eps) is 0 (beyond the largest loss) or below what the route resolves,
    the lower end stays 0 and [0, upper] is returned (with the warning: no grid narrows it to
    a relative width).  Best effort as in :func:`epsilon_bracket`: the narrowest bracket
    reached, with a :class:`~gdpproof.errors.WidthNotReachedWarning` when wider than asked.

    Examples
    --------
    >>> from gdpproof.accounting.pld import GaussianLoss, delta_bracket
    >>> b, comp = delta_bracket([(GaussianLoss(0.5), 4)], 1.0)
    >>> b.lower < 0.1269367375066 < b.upper, b.width <= 0.01 * b.upper
    (True, True)
    """
    e = _check_eps(epsilon)
    w = _check_refinement(rel_width, max_refinements)
    r = _check_route(route)
    clean = _clean_parts(parts)
    best = _Best()
    why = ""
    if r in ("float", "auto"):
        why = _delta_float(clean, e, w, max_refinements, best, "pairs")
        if best.rw > w:
            why = _delta_float(clean, e, w, max_refinements, best)
        if best.rw <= w or r == "float":
            return _finish(best, w, "delta_bracket", why)
    why = _delta_exact(clean, e, w, max_refinements, best)
    return _finish(best, w, "delta_bracket", why)


def _pairs_delta_step(clean: list, e: float, w: float, eta: float) -> float | None:
    """The pairs' first grid step for delta(eps) to a relative width w: the eps width that moves
    log delta by w (its slope about eps / s^2 + 1 for a near-Gaussian loss, s the composed loss's
    standard deviation), from the same model as :func:`_pairs_first_step`.  None where the
    pairs do not apply."""
    h_eps = _pairs_first_step(clean, 1e-5, w, eta)
    if h_eps is None:
        return None
    total = sum(c for _, c in clean)
    _, s, _, _ = _clt_estimate(clean, 1e-5, eta / (16.0 * total))
    e_eff = max(e, s)
    # h_eps aims a relative eps width w; here the absolute eps width is w / (e/s^2 + 1)
    h = min(0.05, max(2e-7, h_eps * math.sqrt(1 / ((e_eff / (s * s) + 1) * e_eff))))
    # (finer than h_eps: the cap on the points is checked again, else G_30 at eps 100 ran the
    # balls on 283,000 points, 37 s, where the coupling takes 0.2 s)
    return None if _pairs_too_fine(clean, h, eta) else h


def _delta_float(clean: list, e: float, w: float, max_refinements: int, best: _Best,
                 discretization: str = "coupling") -> str:
    """The float route's loop for delta(eps); on the pairs discretization from
    :func:`_pairs_delta_step`, each refinement aimed by the h^2 law."""
    pairs = discretization == "pairs"
    eta = 1e-12
    if pairs:
        try:
            first = _pairs_delta_step(clean, e, w, eta)
        except PrecisionError as exc:
            return f"the float route stopped (pairs): {exc}"
        if first is None:
            return "the pairs discretization does not apply"
        h = first
    else:
        h = 1e-3
    long_double = False
    previous = math.inf
    for attempt in range(max_refinements + 1):
        try:
            comp = compose_losses(clean, grid_step=h, eta=eta, long_double=long_double, discretization=discretization)
            b, floor = comp.delta(e), comp.delta_floor()
            if floor > 0.02 * b.upper and not long_double:
                long_double = True
                comp = compose_losses(clean, grid_step=h, eta=eta, long_double=True, discretization=discretization)
                b, floor = comp.delta(e), comp.delta_floor()
        except PrecisionError as exc:
            if best.bound is None and not pairs:
                raise
            return f"the float route stopped ({discretization}): {exc}"
        rw = 0.0 if b.upper == 0 else b.width / b.upper
        best.offer(b, comp, rw)
        if rw <= w:
            return ""
        if floor > 0.2 * b.upper:
            return f"delta there is within a factor 5 of the float route's floor {floor:.2g}"
        if pairs and not attempt and rw > PAIRS_GIVE_UP * w:
            return f"the pairs' first grid gave a relative width of {rw:.3g}"
        if attempt and rw > (0.95 if pairs else 0.8) * previous:
            return f"the bracket stopped narrowing (grid step {h:.3g})"
        previous = rw
        if pairs:
            h *= max(0.1, min(0.9, math.sqrt(REFINED_AIM * w / rw))) if b.lower > 0 and rw < 0.5 else 0.3
        else:
            # once the lower end is positive and the bracket narrower than delta, its width is
            # close to proportional to h: go there in one step (else at most tenfold)
            h = _next_step(h, w, rw, 1e-3 if b.lower > 0 and rw < 0.5 else 0.1)
        if h < 2e-7:
            return f"grid step {h:.3g} is below the float route's limit"
    return f"{max_refinements} refinements"


def _delta_exact(clean: list, e: float, w: float, max_refinements: int, best: _Best) -> str:
    """The exact route's loop for delta(eps): the additive budget follows the delta found (a
    tenth of the width asked, relative to its lower end; 2^-40 times smaller while the floor
    hides it), the grid shrinks by at most 16 per refinement."""
    wq = Fraction(w).limit_denominator(10**6)
    budget = Fraction(1, 10**12) * wq
    if best.bound is not None and best.bound.lower > 0:
        budget = Fraction(best.bound.lower) * wq / 10
    h = EXACT_FIRST_STEP
    previous = math.inf
    refinements = deepenings = 0
    while refinements <= max_refinements:
        comp, b = _exact_attempt(clean, h, budget, lambda c: c.delta(e))
        if comp is None:
            return b
        rw = 0.0 if b.upper == 0 else b.width / b.upper
        best.offer(b, comp, rw)
        if rw <= w:
            return ""
        floor = comp.delta_floor()
        if b.lower > 0 and Fraction(b.lower) * wq / 10 < budget:
            budget = Fraction(b.lower) * wq / 10
            continue  # the same grid with a budget below the delta found
        if b.lower == 0 and floor > 0.1 * w * b.upper and deepenings < 8:
            deepenings += 1
            budget /= 2**40
            continue  # the floor hides delta: a smaller budget (more bits) on the same grid
        if b.lower == 0 and rw >= previous:
            return "the lower end stays 0 (delta may be 0 at this epsilon)"
        previous = rw
        refinements += 1
        h = _next_step(comp.h, w, rw, 1 / 16)
    return f"{max_refinements} refinements"
