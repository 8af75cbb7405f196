"""The composed result: :class:`ComposedLoss`, a composition of privacy losses with a proven
bracket on delta(eps) and eps(delta), its trade-off curves and the honest mu (:class:`HonestMu`).

Built by :func:`gdpproof.accounting.compose.compose_losses`; what each bracket assumes is listed
in ``ComposedLoss.assumptions`` (proofs: ``docs/proofs/coupling.md``, ``docs/proofs/pairs.md``,
``docs/proofs/exact_lattice.md``).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any

import numpy as np

from .._args import checked
from .checks import check_refinement  # noqa: F401  (its callers in the engine import it from here)
from ..errors import bad
from ..errors import InvalidParameterError, PrecisionError
from ..numeric.engine import fast as _fast
from ..numeric.engine.bound import (
    FLOAT_ROUTE_ASSUMPTIONS,
    Bound,
    U,
    directed_double,
    down,
    float_down,
    next_up,
)
from ..numeric.tradeoff.solve import (
    delta_from_epsilon,
    mu_from_epsilon_delta,
    mu_from_error_rates,
)
from .direction import CoarseFirst
from .exact_lattice import ROUTE as EXACT_ROUTE
from .losses import (
    CDF_ERROR,
    CompiledLoss,
    ExactLaw,
    PrivacyLoss,
)

if TYPE_CHECKING:
    from .direction import Direction


#: The name of the float route (``ComposedLoss.route``).
FLOAT_ROUTE = "float64 FFT lattice"


#: What the float route assumes (module doc; written once, in :mod:`.bound`); the exact route
#: assumes nothing of the kind.
FLOAT_ASSUMPTIONS = FLOAT_ROUTE_ASSUMPTIONS


#: What the pairs discretization assumes: its masses are arb balls, so only the FFT's bound.
PAIRS_ASSUMPTIONS = (FLOAT_ROUTE_ASSUMPTIONS[1],)


#: The smallest delta a bracket is computed for: below it the exact lattice's masses need more
#: than 3,300 bits each, and the cost grows with them (refused up front, not after minutes).
SMALLEST_DELTA = Fraction(1, 10**1000)


@dataclass
class ComposedLoss:
    """The composition of privacy losses with a proven bracket on delta(eps) and eps(delta).

    Built by :func:`compose_losses`.  ``delta(eps)`` and ``epsilon(delta)`` return a
    :class:`Bound` for the worse of the two orderings; ``*_by_ordering`` give each.

    Args:
        parts: (privacy loss, count) pairs composed.
        h: The grid step.
        eta: The Hoeffding failure probability of the coupling (float route).
        t: The coupling's deviation bound at eta (float route).
        directions: The two orderings' composed laws (remove, add).
        delta_target: The delta the grid was chosen for, or None.
        route: How the lattice law was composed: ``FLOAT_ROUTE`` or ``EXACT_ROUTE``.
        assumptions: What the bracket assumes beyond ball and integer arithmetic (empty for the
            exact route).
        target_met: Whether the asked relative width was reached (set by the bracket search).
        rel_width_reached: The width reached, or None.
        rel_width_asked: The width asked, or None.
        plan: The exact route's parameters; None for the float route.
        passes: How many compositions the refinement ran to reach this one.
        coupling_model: Float route: what aims the next grid (never part of a bound).
        discretization: ``"coupling"``, ``"pairs"`` or ``"tilted pairs"``: how each step's loss met the grid.
        step_laws: Float route: each step's discretized laws, to compose fewer steps on the same
            grid.
        whole_curve: Tilted pairs: builds the composition that answers the trade-off curve and
            the honest mu (the exact lattice at the same delta and width), or None.
        complete_model: Coupling with an ordering known coarse first: completes
            ``coupling_model`` and ``t`` by discretizing the other law on this grid, or None.

    Examples:
        >>> from gdpproof import GaussianLoss, compose_losses
        >>> c = compose_losses([(GaussianLoss(0.5), 16)], grid_step=2e-4)   # G_0.5 16 times is G_2
        >>> b = c.delta(1.0)
        >>> b.lower < 0.5098616600547 < b.upper
        True
    """

    parts: tuple[tuple[PrivacyLoss, int], ...]
    h: float
    eta: float
    t: float
    directions: tuple[Direction, Direction]
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
    #: The exact route's parameters (``exact_lattice.ExactPlan``); None for the float route.
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
    #: Float route: each step's discretized laws (the coupling's per law, the pairs' per loss),
    #: kept so that :func:`compose_prefixes` composes fewer steps on the same grid.
    step_laws: Any = None
    #: Tilted pairs (accurate near the tilt's eps only): builds the composition that answers the
    #: whole curve (the trade-off, the honest mu), set by the search; None refuses them.
    whole_curve: Callable[[], Any] | None = None
    #: Coupling with an ordering known coarse first: discretizes the laws not yet discretized on
    #: this grid and completes ``coupling_model`` and ``t`` (without composing them), or None.
    complete_model: Callable[[], None] | None = None

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
        """The bracket on delta(eps) of each ordering, keyed by its name (e.g. "remove", "add"):
        exactly 0 at eps at least that ordering's largest composed loss (:meth:`loss_caps`)."""
        e = check_eps(eps)
        caps = self.loss_caps() or (math.inf, math.inf)
        out = {}
        for d, cap in zip(self.directions, caps):
            b = Bound(*d.delta(e))
            if e >= cap:
                if b.lower > 0:
                    raise RuntimeError(f"a bug: the lower bound {b.lower!r} on delta({e!r}) of {d.name} is positive "
                                       f"beyond its largest privacy loss {cap!r}, where delta is 0")
                b = Bound(0.0, 0.0)
            out[d.name] = b
        return out

    def loss_caps(self) -> tuple[float, float] | None:
        """Each ordering's largest composed privacy loss, rounded up (:func:`largest_losses`),
        or None when some part's loss is unbounded (in either ordering: no cap then); kept."""
        if "_caps" not in self.__dict__:
            caps = largest_losses(self.parts)
            self.__dict__["_caps"] = caps if math.isfinite(max(caps)) else None
        return self.__dict__["_caps"]

    def delta(self, eps: Any) -> Bound:
        """Bracket on the mechanism's delta(eps) (the worse ordering): lower down, upper up.

        Examples:
            Four G_{1/2} compose to G_1, whose delta(1) is 0.12693673750664...:

            >>> from gdpproof.accounting.losses import GaussianLoss
            >>> from gdpproof.accounting.compose import compose_losses
            >>> c = compose_losses([(GaussianLoss(0.5), 4)], grid_step=1e-4)
            >>> b = c.delta(1.0)
            >>> b.lower < 0.1269367375066 < b.upper, b.width < 3e-4
            (True, True)
        """
        per = self.delta_by_ordering(eps)
        return Bound(max(b.lower for b in per.values()), max(b.upper for b in per.values()))

    def worse_ordering(self, eps: Any) -> str:
        """The name of the ordering with the larger upper bound on delta(eps) (the larger lower
        bound on a tie; the lower bounds are evaluated only then: on the pairs they cost a
        composition of the dominated masses)."""
        e = check_eps(eps)
        plain = [d for d in self.directions if not isinstance(d, CoarseFirst)]
        if len(plain) == 1 and len(self.directions) == 2:  # one known coarse first: not composed where lesser
            other = next(d for d in self.directions if isinstance(d, CoarseFirst))
            if other.upper_below(e, plain[0].upper(e)):
                return plain[0].name
        ups = {d.name: d.upper(e) for d in self.directions}
        if len(set(ups.values())) > 1:
            return max(ups, key=lambda k: ups[k])
        per = self.delta_by_ordering(eps)
        return max(per, key=lambda k: (per[k].upper, per[k].lower))

    def epsilon(self, delta: Any, ends: str = "both") -> Bound:
        """Bracket on the smallest eps >= 0 with delta(eps) <= ``delta``: lower down, upper up.

        ``delta`` may be a float, a :class:`~fractions.Fraction` or a decimal string; the exact
        route compares with its exact value (so "1e-400" works there).  Where every loss is
        bounded, the upper end is at most the largest composed loss (:meth:`loss_caps`: delta is 0
        from there on).  Raises PrecisionError when ``delta`` is below what this grid resolves (the
        upper bound on delta(eps) never drops to ``delta``; never where the losses are bounded).  ``ends="upper"`` or ``"lower"`` bisects for that end only (the
        other is returned as 0, or as +inf): half the work where one end is wanted.
        """
        if ends not in ("both", "upper", "lower"):
            raise bad("ends", ends, "must be 'both', 'upper' or 'lower'")
        d: Any = check_delta_exact(delta) if self.route == EXACT_ROUTE else _check_delta(delta)
        lazy = [dd for dd in self.directions if isinstance(dd, CoarseFirst)]
        for dd in lazy:
            dd.asked = False
        b = self._bisect(delta, d, ends, fine=False)
        if any(dd.asked for dd in lazy):
            # a coarse bound did not decide somewhere: bisect again from the fine orderings' span
            # and estimates, as without the coarse bounds (whose predicates only add "yes" answers
            # to the upper end's, which can only move it down, and leave the lower end's alone)
            b = self._bisect(delta, d, ends, fine=True)
        return b

    def _bisect(self, delta: Any, d: Any, ends: str, fine: bool) -> Bound:
        """:meth:`epsilon`'s bisections for the delta ``d`` as parsed, the span and the estimates
        from each ordering known coarse first's coarse bound, or (``fine``) its fine one."""
        views = [dd.fine if fine and isinstance(dd, CoarseFirst) else dd for dd in self.directions]
        # (an ordering known coarse first is asked last: the other often decides alone)
        caps = self.loss_caps()
        ordered = sorted(zip(self.directions, caps or (math.inf, math.inf)), key=lambda dc: isinstance(dc[0], CoarseFirst))
        # an ordering's delta is 0 at eps beyond its largest loss (its cap): proven there, unasked
        up_ok = lambda e: all(e >= cap or dd.upper_le(e, d) for dd, cap in ordered)  # noqa: E731
        lo_ok = lambda e: not any(dd.lower_gt(e, d) for dd, _ in ordered)  # noqa: E731
        top = max(dd.top() for dd in views)
        if caps is not None and (max(caps) < top or not up_ok(top)):
            top = max(caps)  # every ordering's delta is 0 there
            if ends != "upper" and not lo_ok(top):
                raise RuntimeError(f"a bug: a lower bound on delta({top!r}) exceeds {delta}, beyond the largest "
                                   "privacy loss, where delta is 0")
        if not up_ok(top):
            if not fine and any(isinstance(dd, CoarseFirst) for dd in self.directions):
                return self._bisect(delta, d, ends, fine=True)  # the fine orderings' span, as without them
            floor = self.delta_floor()
            remedy = ("aim the tilt at this delta (compose_tilted(delta=...)) or ask for a larger delta"
                      if self.discretization == "tilted pairs" else
                      "ask for a larger delta, or compose with a smaller eta or long_double=True")
            raise PrecisionError(f"delta={delta} is below this bracket's floor {floor:.3g} "
                                 f"(truncated mass, eta={self.eta:g} and float error): {remedy}")
        # float estimates of both ends narrow the proven bisections (any evaluation of the
        # monotone predicates narrows them validly, so a poor estimate only costs steps)
        guess_up = guess_lo = None
        if self.route == FLOAT_ROUTE:
            dd_f = float(d)
            guess_up = _max_or_none(dd.guess_upper(dd_f) for dd in views)
            guess_lo = _max_or_none(dd.guess_lower(dd_f) for dd in views)
        e_up = math.inf if ends == "lower" else 0.0 if up_ok(0.0) else _boundary(up_ok, 0.0, top, want_le=True,
                                                                                 guess=guess_up)
        e_lo = 0.0 if ends == "upper" or lo_ok(0.0) else _boundary(lo_ok, 0.0, top, want_le=False, guess=guess_lo)
        return Bound(min(e_lo, e_up), e_up)

    # -- the trade-off curve and the honest mu ---------------------------------------------

    def delta_floor(self) -> float:
        """The smallest upper bound on delta this bracket can give (truncation, eta, float error)."""
        return _upper_max(self.directions, self._top())

    def completed(self) -> ComposedLoss:
        """This composition with the coupling's model (which aims a next grid) and t covering
        both orderings: the law of an ordering known coarse first (:class:`~gdpproof.accounting.direction.CoarseFirst`)
        whose model needs its discretization on this grid (second moments from its CDF) is
        discretized on it now (not composed).  Returns ``self``."""
        model = self.coupling_model
        if model is not None and len(model[0]) < 2 and self.complete_model is not None:
            self.complete_model()
        return self

    def floor_above(self, x: float) -> bool:
        """Whether :meth:`delta_floor` is above ``x`` (an ordering known coarse first is composed
        only where its coarse floor is above it)."""
        top = self._top()
        return not all(d.upper_le(top, x) for d in sorted(self.directions, key=lambda d: isinstance(d, CoarseFirst)))

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
        self._no_tilt()
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

    def _no_tilt(self) -> None:
        """Refuse the whole-curve answers on a tilted composition (its bounds are tight only near
        the eps the tilt aims at)."""
        if self.discretization == "tilted pairs":
            raise PrecisionError("a tilted composition (the small-delta route) has no trade-off curve or honest mu: "
                                 "its masses are accurate near the tilt's eps only; compose at delta >= 1e-7 for them")

    def _whole(self) -> ComposedLoss:
        """For a tilted composition, the composition that answers the whole curve (built by
        ``whole_curve`` when first asked); refused where there is none."""
        built = self.__dict__.get("_whole_built")
        if built is None:
            if self.whole_curve is None:
                self._no_tilt()
            assert self.whole_curve is not None
            built = self.__dict__["_whole_built"] = self.whole_curve()
        return built

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
            raise bad("ordering", ordering, f"must be None or one of {names}")
        if self.discretization == "tilted pairs":
            return self._whole().tradeoff_curves(ordering)
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
        return Bound(down(min(lower, upper)), next_up(upper))


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
        if self.discretization == "tilted pairs":
            return self._whole().honest_mu()
        eps, dup, dlow = self._eps_grid()
        e_next, d_here = eps[1:], dup[:-1]
        keep = d_here < 1
        mu_est = np.zeros_like(e_next)
        if keep.any():
            mu_est[keep] = _fast.mu_from_epsilon_delta(e_next[keep], d_here[keep])
        j = int(np.argmax(mu_est))
        # smallest mu with delta_mu(e_{j+1}) >= d_j: one 17-digit decimal above the certified root
        m_down = mu_from_epsilon_delta(float(e_next[j]), float(d_here[j]), digits=17)
        mu_up = next_up(float(m_down.to_fraction() + Fraction(10) ** (m_down.adjusted() - 16)))
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
            mu_low = float_down(mu_from_epsilon_delta(float(eps[ok][i]), float(dlow[ok][i]), digits=17))
        import scipy.special as sc  # here, not at import: an account that asks no honest mu never pays for scipy

        pts = self._upper_points()
        inner = (pts[:, 0] > 0) & (pts[:, 0] < 1) & (pts[:, 1] > 0) & (pts[:, 1] < 1)
        mu_tail = 0.0
        if inner.any():
            z = sc.ndtri(1 - pts[inner, 0]) - sc.ndtri(pts[inner, 1])
            i = int(np.argmax(z))
            if z[i] > 0:
                # G_mu through (a, b) with f(a) <= b: not mu'-GDP for mu' below it (rounded down)
                mu_tail = float_down(mu_from_error_rates(float(pts[inner][i, 0]), float(pts[inner][i, 1]),
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

    Attributes:
        mu (Bound): The smallest mu such that the mechanism is (eps, delta_mu(eps))-DP for every eps <=
            eps_max, equally for every eps with delta_mu(eps) >= delta_min (mu-GDP for all (eps, delta) on the
            G_mu curve with delta >= delta_min), lies in [lower, upper]; report ``mu.upper`` with
            ``delta_min`` (or ``eps_max``).  Both ends are proven under both readings
            (:meth:`ComposedLoss.honest_mu`).
        gap (Bound): sup_alpha f(alpha) - G_{mu.upper}(alpha) over the whole curve: 0 means the mechanism is
            exactly Gaussian; a large gap means GDP describes it loosely.
        eps_max (float): The range where the bracket holds (delta_up(eps_max) = delta_min).
        delta_min (float): The range where the bracket holds (delta_up(eps_max) = delta_min).
        mu_tail (float): A certified lower bound on the tightest mu over the whole curve (no range
            restriction): a statement about every delta, not an end of ``mu``.

    All of these describe the composition of the losses given.  Where those are a dominating
    pair that the mechanism need not attain (:attr:`gdpproof.Account.pair_tight` false: replace-one
    compositions), only ``mu.upper`` bounds the mechanism; ``mu.lower``, ``mu_tail`` and ``gap``
    are the pair's, not the mechanism's.

    Examples:
        >>> from gdpproof import GaussianLoss, compose_losses
        >>> h = compose_losses([(GaussianLoss(0.5), 16)], grid_step=2e-4).honest_mu()
        >>> h.mu.lower <= 2 <= h.mu.upper
        True
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


def _upper_max(directions: Any, eps: float) -> float:
    """The largest of the directions' upper bounds on delta(eps); an ordering known coarse first
    (:class:`~gdpproof.accounting.direction.CoarseFirst`) is composed only where its coarse bound
    is not below the others'."""
    plain = [d.upper(eps) for d in directions if not isinstance(d, CoarseFirst)]
    top = max(plain, default=0.0)
    for d in directions:
        if isinstance(d, CoarseFirst) and not (plain and d.upper_below(eps, top)):
            top = max(top, d.upper(eps))
    return top


def _max_or_none(values: Any) -> float | None:
    """The largest of the values, or None when any is None."""
    out = [v for v in values]
    return None if any(v is None for v in out) else max(out)


def largest_losses(parts: Any) -> tuple[float, float]:
    """Upper bounds of the largest composed privacy loss in each ordering: sum T_i sup L_i under
    P||Q, sum T_i sup(-L_i) = -sum T_i inf L_i under Q||P (infinite where some part's loss is
    unbounded on that side), from the ends of the supports (:meth:`PrivacyLoss.support`, rounded
    outward; exact where the law gives them as rationals), summed exactly and rounded up to
    doubles.  An ordering's delta(eps) is 0 at every eps at least its bound, so eps(delta) is at
    most the larger one at every delta (``docs/proofs/losses.md``).

    Args:
        parts: (privacy loss, count) pairs.

    Returns:
        (P||Q's, Q||P's): the orderings of :attr:`ComposedLoss.directions`, in order.

    Examples:
        >>> from gdpproof.accounting.losses import GaussianLoss, LaplaceLoss, SubsampledGaussianLoss
        >>> largest_losses([(LaplaceLoss(1.0), 3)]), largest_losses([(LaplaceLoss(1.0), 3), (GaussianLoss(1.0), 1)])
        ((3.0, 3.0), (inf, inf))
        >>> largest_losses([(SubsampledGaussianLoss(1.0, 0.5), 3)])  # remove: unbounded; add: -3 log(1/2), up
        (inf, 2.0794415416798366)
    """
    # exact ends only where every loss is bounded (before any sympy: DP-SGD's accounts do not load it)
    bounded = all(math.isfinite(end) for loss, _ in parts for end in loss.support())
    hi = lo = Fraction(0)
    for loss, count in parts:
        s_lo, s_hi = loss.support()
        if math.isinf(s_hi):
            hi = None
        elif hi is not None:
            hi += count * (_support_end(loss, 1, s_hi) if bounded else Fraction(s_hi))
        if math.isinf(s_lo):
            lo = None
        elif lo is not None:
            lo += count * (_support_end(loss, 0, s_lo) if bounded else Fraction(s_lo))
    return (math.inf if hi is None else directed_double(hi, up=True),
            math.inf if lo is None else directed_double(-lo, up=True))


def _support_end(loss: PrivacyLoss, which: int, outward: float) -> Fraction:
    """An end of the support of a compiled loss exactly, where its law gives it as a rational at
    the compiled parameters (Laplace's mu, randomized response's eps: ``support()`` widens them
    by an ulp), else the outward double ``outward``."""
    if isinstance(loss, CompiledLoss):
        law = loss.law.sympy_law() if isinstance(loss.law, ExactLaw) else loss.law
        end = law.substitute(law.family.support[which])
        if end.is_Rational:
            return Fraction(int(end.p), int(end.q))
    return Fraction(outward)


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


def check_eps(eps: Any) -> float:
    if type(eps) is float and 0.0 < eps < math.inf:  # the search's own doubles: no parse (0 and -0.0 parsed)
        return eps
    try:
        return float(checked("eps", eps, "nonnegative"))
    except InvalidParameterError:
        raise bad("eps", eps, "must be a finite number >= 0") from None


def _check_delta(delta: Any) -> float:
    if type(delta) is float and 0.0 < delta < 1.0:  # the search's own doubles: no parse
        return delta
    try:
        d = float(checked("delta", delta, "probability"))
    except InvalidParameterError:
        d = math.nan
    if not 0 < d < 1:
        raise bad("delta", delta, "must be in (0, 1)")
    return d


def check_delta_exact(delta: Any) -> Fraction:
    """delta in (0, 1) as an exact rational (a float exactly, a decimal string exactly)."""
    if type(delta) is Fraction and 0 < delta < 1:  # a value the door already made exact: no parse
        return delta
    try:
        r = checked("delta", delta, "probability")
        d = r if isinstance(r, Fraction) else Fraction(int(r.p), int(r.q)) if r.is_Rational else None
    except (InvalidParameterError, TypeError, AttributeError):
        d = None
    if d is None or not 0 < d < 1:
        raise bad("delta", delta, "must be in (0, 1)")
    return d


def _check_alpha(alpha: Any) -> float:
    try:
        return float(checked("alpha", alpha, "probability"))
    except InvalidParameterError:
        raise bad("alpha", alpha, "must be in [0, 1]") from None
