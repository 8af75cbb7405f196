"""The bracket search: :func:`epsilon_bracket` and :func:`delta_bracket` choose the
discretization and the first grid, and refine it until the proven bracket is as narrow as asked
(best effort: the narrowest proven bracket, with a WidthNotReachedWarning, where it is not).

The grid choice is a heuristic (a CLT estimate, the coupling's width model, the pairs' cost);
whatever it picks, the bracket is proven (``docs/proofs/``).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from ..errors import PrecisionError, WidthNotReachedWarning
from ..text import show
from ..numeric.engine import fast as _fast
from ..numeric.engine.bound import Bound, directed_double, down, next_up
from .compose import (
    AUTO_EXACT_BELOW,
    BERNSTEIN_MIN_STEPS,
    bernstein_t,
    check_route,
    clean_parts,
    compose_on_exact_lattice,
    coupling_t,
    hoeffding_t,
    compose_losses,
    compose_tilted,
)
from .composed import (
    SMALLEST_DELTA,
    ComposedLoss,
    check_delta_exact,
    check_eps,
    check_refinement,
)
from .coupling import BULK_TAIL, SUBCELL_POINTS, cell_factor, subcells
from .exact_lattice import ROUTE as EXACT_ROUTE
from .losses import (
    PrivacyLoss,
)
from .pairs import MAX_MERGE, MERGE_WIDTH, supports_pairs


def rel_width_of(b: Bound) -> float:
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


#: The ratio of coupling._second_moment's bound to h^2 / 4 the first grid is aimed with (its
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
    # kept on the first loss (like its moments): the grid choices ask for it several times
    cache = clean[0][0].__dict__.setdefault("_clt_cache", {}) if clean else {}
    key = (tuple((id(loss), count) for loss, count in clean), float(d), float(tau))
    if key not in cache:  # the losses are kept with the value, so that their ids are not reused
        cache[key] = (_clt_uncached(clean, d, tau), [loss for loss, _ in clean])
    return cache[key][0]


def _clt_uncached(clean: list[tuple[PrivacyLoss, int]], d: float,
                  tau: float) -> tuple[float, float, float, float]:
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
    per-step bulk fits coupling._second_moment's cells, known before composing (an aim: the
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
    h = aim / (2 * hoeffding_t(1.0, total, eta))
    # Bernstein's t, with the second-moment bound a smooth law usually gets (AIM_SECOND h^2 / 4),
    # where the bulk is narrow enough for the cells of coupling._second_moment
    t_b = bernstein_t(1.0, total * AIM_SECOND / 4, eta)
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
                cell_factor(subcells(math.ceil(bins * comp.h / h_new))) / cell_factor(subcells(bins))
            seconds.append((min(per_h2 * factor, ratio * ratio / 4) * h_new * h_new, count))
        ts.append(coupling_t(h_new * ratio, seconds, comp.eta))
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
      lets it reach the width; else the tilted pairs (:func:`~gdpproof.accounting.compose.compose_tilted`:
      the float route with its FFT error relative to delta, down to 1e-300), and the exact route
      where they do not apply or do not reach the width.

    Best effort: when the width is not reached (``max_refinements`` finer grids, a grid too fine
    to build, or the float floor), the narrowest bracket reached is returned with a
    :class:`~gdpproof.errors.WidthNotReachedWarning`, and the composition says so
    (``target_met``, ``rel_width_reached``).  The bracket is proven either way.  Returns the
    bracket and the composition (for other eps or delta on the same grid).  Raises
    PrecisionError only when no finite bracket exists on the route asked for (delta below the
    float route's floor with ``route="float"``).

    Args:
        parts: (privacy loss, count) pairs to compose.
        delta: The delta, in (0, 1).
        rel_width: The relative width asked, in [1e-4, 10].
        max_refinements: How many times the grid may be refined.
        route: ``"float"``, ``"exact"`` or ``"auto"``.

    Returns:
        (the proven :class:`Bound` on eps(delta), the :class:`ComposedLoss` of the last grid).

    Raises:
        InvalidParameterError: delta, rel_width or route is out of range.

    Examples:
        >>> from gdpproof.accounting.losses import GaussianLoss, RandomizedResponseLoss
        >>> from gdpproof.accounting.search import epsilon_bracket
        >>> b, comp = epsilon_bracket([(GaussianLoss(0.3), 10), (RandomizedResponseLoss(0.2), 20)], 1e-6)
        >>> b.relative_width <= 0.01, comp.steps, comp.target_met
        (True, 30, True)
        >>> b, comp = epsilon_bracket([(GaussianLoss(0.5), 4)], "1e-30")
        >>> b.lower < 11.7439 < b.upper, comp.discretization
        (True, 'tilted pairs')
        >>> b, comp = epsilon_bracket([(GaussianLoss(0.5), 4)], "1e-30", rel_width=0.03, route="exact")
        >>> b.lower < 11.7439 < b.upper, comp.route, comp.assumptions
        (True, 'exact integer lattice', ())
    """
    dq = check_delta_exact(delta)
    return epsilon_search(parts, dq, check_refinement(rel_width, max_refinements), max_refinements,
                          check_route(route), given=delta)


def epsilon_search(parts: Sequence[tuple[PrivacyLoss, int]], dq: Fraction, w: float, max_refinements: int = 5,
                   r: str = "auto", *, given: Any = None) -> tuple[Bound, ComposedLoss]:
    """:func:`epsilon_bracket` for arguments its caller has validated (``account()`` validates
    delta and the width once, at its door): ``dq`` in (0, 1) exact, ``w`` in [1e-4, 10],
    ``max_refinements`` in [0, 20], route ``r``; ``given`` is delta as the user wrote it, for a
    message (``dq`` when None)."""
    delta = dq if given is None else given
    if dq < SMALLEST_DELTA:  # refused before any work: the lattice's bits grow like log2(1/delta)
        raise PrecisionError(f"delta={show(delta)} is below 1e-1000: the exact lattice would hold about "
                             f"{dq.denominator.bit_length() - dq.numerator.bit_length():,} bits per mass (at "
                             "1e-1000 a 4-fold Gaussian already takes 20 s); ask for a larger delta")
    clean = clean_parts(parts)
    best = _Best()
    why = ""
    if r == "float" or (r == "auto" and dq >= AUTO_EXACT_BELOW):
        if dq < Fraction(1, 10**280):
            raise PrecisionError(f"delta={delta} is below what a float64 lattice resolves (1e-280): "
                                 'use route="exact"')
        costs = _predicted_costs(clean, float(dq), w)
        if costs["pairs"] < costs["coupling"]:
            why = _epsilon_float(clean, dq, w, max_refinements, best, "pairs", rival=costs["coupling"])
        if best.rw > w:
            why = _epsilon_float(clean, dq, w, max_refinements, best)
        if best.rw <= w or r == "float":
            if best.bound is None:
                raise PrecisionError(f"delta={delta} is below the float route's floor: use route=\"exact\"")
            return _finish(best, w, "epsilon_bracket", why)
    if r == "auto" and Fraction(1, 10**300) <= dq <= Fraction(1, 1000):
        # the tilted pairs first (far cheaper); the exact lattice where they miss, and for the curve
        why = _tilted(clean, w, max_refinements, best, lambda: _pairs_first_step(
            clean, float(dq), w, float_eta(float(dq), w), fit=True), {"delta": float(dq)}, lambda c: eps_at(c, dq),
            rel_width_of, lambda: epsilon_search(clean, dq, w, max_refinements, "exact")[1])
        if best.rw <= w:
            return _finish(best, w, "epsilon_bracket", why)
    why = _epsilon_exact(clean, dq, w, max_refinements, best)
    return _finish(best, w, "epsilon_bracket", why)


#: The tilted pairs' first grid over the pairs' model step, and the power of the width ratio aiming the next.
TILT_FIRST = {"eps": (2.0, 0.5), "delta": (6.0, 0.5)}


def _tilted(clean: list, w: float, max_refinements: int, best: _Best, first: Callable[[], float | None],
            aim: dict, answer: Callable[[ComposedLoss], Bound], width: Callable[[Bound], float],
            curve: Callable[[], ComposedLoss], kind: str = "eps") -> str:
    """The tilted pairs' refinement loop (:func:`compose_tilted` aimed by ``aim``, the whole curve
    from ``curve``) from TILT_FIRST[kind] times ``first()``; offers each bracket ``answer`` gives
    to ``best``; why it stopped ("" at the width; the ends move with the grid: two stalls stop it)."""
    try:
        h = first()
    except PrecisionError as exc:
        return f"the tilted pairs stopped: {exc}"
    if h is None:
        return "the pairs discretization does not apply"
    (factor, power), previous, stalls, last_h = TILT_FIRST[kind], math.inf, 0, 0.0
    h *= factor
    for _ in range(max_refinements + 1):
        try:
            comp = compose_tilted(clean, grid_step=h, rel_width=w, **aim)
            b = answer(comp)
        except PrecisionError as exc:
            return f"the tilted pairs stopped: {exc}"
        comp.whole_curve = curve
        rw = width(b)
        best.offer(b, comp, rw)
        if rw <= w:
            return ""
        stalls += rw > 0.95 * previous
        if stalls == 2:
            return f"the tilted bracket stopped narrowing (grid step {h:.3g})"
        if last_h and 1.2 * rw < previous < 0.5:  # the width's power law as measured on the last two grids
            power = max(0.3, min(0.7, math.log(last_h / h) / math.log(previous / rw)))
        previous, last_h = rw, h
        h *= max(0.1, min(0.9, (REFINED_AIM * w / rw) ** power)) if b.lower > 0 and rw < 0.5 else 0.3
        if _pairs_too_fine(clean, h, 1e-12, PAIRS_FIT_MAX_POINTS):
            return f"the tilted pairs' next grid ({h:.3g}) is too fine for their masses"
    return f"{max_refinements} refinements"


def eps_at(comp: ComposedLoss, dq: Fraction) -> Bound:
    """The eps bracket at the exact delta: the upper end at the double below it, the lower end at
    the double above (float route); the exact route compares with dq itself."""
    if comp.route == EXACT_ROUTE:
        return comp.epsilon(dq)
    d_down = float(dq)
    if Fraction(d_down) > dq:
        d_down = down(d_down)
    if Fraction(d_down) == dq:
        return comp.epsilon(d_down)
    up = comp.epsilon(d_down, ends="upper").upper  # each end bisected once, at its own double
    d_up = min(next_up(d_down), math.nextafter(1.0, 0.0))
    return Bound(min(comp.epsilon(d_up, ends="lower").lower, up), up)


def delta_at(comp: ComposedLoss, eq: Fraction, eq_hi: Fraction | None = None) -> Bound:
    """The delta bracket at the exact eps >= 0 (or at any eps in [eq, eq_hi], an irrational one's
    enclosure): the upper end at the double below eq (delta does not increase with eps), the lower
    end at the double above eq_hi; beyond 1e300 the upper end is the one at 1e300 and the lower end 0."""
    hi = eq if eq_hi is None else eq_hi
    e_down = directed_double(min(eq, Fraction(10**300)), up=False)
    e_up = directed_double(hi, up=True) if hi <= 10**300 else None
    b = comp.delta(e_down)
    lower = 0.0 if e_up is None else (comp.delta(e_up).lower if e_up != e_down else b.lower)
    return Bound(min(lower, b.upper), b.upper)


def float_eta(d: float, w: float) -> float:
    """The float route's coupling failure probability for an eps bracket at delta ``d`` and
    relative width ``w``: eta moves delta by at most eta / d = w / 20 relatively (a small part
    of the width, which the refinement measures), and t grows only like sqrt(log(1/eta)) as
    it shrinks; at most 1e-8."""
    return min(1e-8, d * w / 20)


#: The pairs discretization is tried first where every step's window holds at most this many
#: grid points on its first grid (its masses are ball arithmetic, about 50 us a point).
PAIRS_MAX_POINTS = 20_000
#: ... and for an eps bracket, where the cost model weighs them against the coupling (their
#: tails' cells merge, so a step's cells grow far slower than its points).
PAIRS_FIT_MAX_POINTS = 400_000


#: Its first grid aims at PAIRS_AIM of the width asked, from width ~ h^2 T eps / s^2 (s the
#: composed loss's standard deviation; measured on subsampled Gaussians, where the second-order
#: error of the pairs grows with the steps and shrinks with the spread of the loss).
PAIRS_AIM = 0.9


def _pairs_first_step(clean: list, d: float, w: float, eta: float, fit: bool = False) -> float | None:
    """The pairs' first grid step, or None where they should not be tried (a loss they do not
    take, or too many points a step).  With ``fit`` (an eps bracket) the width model is scaled
    by :func:`pairs_eps_factor` and aimed at PAIRS_FIT_AIM."""
    if not all(supports_pairs(loss) for loss, _ in clean):
        return None
    total = sum(c for _, c in clean)
    eps, s, _, _ = _clt_estimate(clean, d, eta / (16.0 * total))
    if not (eps > 0 and s > 0):
        return None
    if fit:
        w_ref = PAIRS_FIT_WIDTH
        h = s * math.sqrt(PAIRS_FIT_AIM * w_ref / (total * pairs_eps_factor(eps))) * (w / w_ref) ** PAIRS_FIRST_POWER
    else:
        h = s * math.sqrt(PAIRS_AIM * w / total)
    if _pairs_too_fine(clean, h, eta, PAIRS_FIT_MAX_POINTS if fit else PAIRS_MAX_POINTS):
        return None
    return min(0.05, max(2e-7, h))


#: An eps bracket's first pairs grid: the one the width model of the earlier lower curve aimed at
#: PAIRS_FIT_AIM of the width asked (fitted at PAIRS_FIT_WIDTH, the step scaling with the width
#: to the power PAIRS_FIRST_POWER, with :func:`pairs_eps_factor`).  That lower end was the
#: wider by 10 to 20 times; the present one (:func:`gdpproof.accounting.pairs._lower_masses`)
#: makes the bracket 2 to 8 times narrower on the same grid, but the upper end, whose error is
#: second order too, is that grid's: a coarser grid would move it up (and a calibrated sigma
#: with it), so the grid is kept and the bracket comes out narrower than asked.
PAIRS_FIT_AIM = 0.55
PAIRS_FIT_WIDTH = 1e-3
PAIRS_FIRST_POWER = 0.37
#: A refinement scales h by this power of the width's ratio: the width now goes like h^2.
PAIRS_FIT_POWER = 0.5


def pairs_eps_factor(eps: float) -> float:
    """How the earlier pairs' relative eps width departed from h^2 T / s^2 with eps (fitted on
    DP-SGD runs at delta 1e-5, eps from 0.015 to 215: a quarter of it at small eps, where the
    bulk decides delta, five times it at large eps, where a few large losses do)."""
    return min(5.0, max(0.3, eps / 2)) ** 0.8


def _pairs_too_fine(clean: list, h: float, eta: float, limit: int = PAIRS_MAX_POINTS) -> bool:
    """Whether some step's window (tails eta / (16 T)) holds more than ``limit`` points of the
    grid h."""
    tau = eta / (16.0 * sum(c for _, c in clean))
    for loss, _ in clean:
        span = max(loss.window(tau, law)[1] for law in "PQ") - min(loss.window(tau, law)[0] for law in "PQ")
        if span / h > limit:
            return True
    return False


#: The cost model that orders the two discretizations (CPU seconds on the development machine;
#: it only chooses which runs first, never enters a bound): the pairs' ball arithmetic per cell
#: of a step's window, the coupling's float CDFs per grid point of it (both laws), and one point
#: of a composed lattice per squaring level (the pairs compose four lattices, the coupling two,
#: more of its early squarings in long double).
COST_BALL_CELL = 2.5e-5
COST_STEP_POINT = 1e-6
COST_FFT_PAIRS = 1.5e-8
COST_FFT_COUPLING = 4e-8


def _step_span(clean: list, tau: float) -> float:
    """The summed width of the steps' windows (both laws) at tail ``tau``."""
    return sum(max(loss.window(tau, law)[1] for law in "PQ") - min(loss.window(tau, law)[0] for law in "PQ")
               for loss, _ in clean)


def _pass_cost(clean: list, h: float, s: float, tau: float, pairs: bool, bulk: float = 0.0) -> float:
    """The predicted CPU seconds of one composition on grid h (an estimate): the steps' masses,
    then the squarings of a composed lattice about (14 s + the steps' span) / h points long."""
    span = _step_span(clean, tau)
    levels = sum(c.bit_length() for _, c in clean)
    points = (14 * s + span) / h
    if pairs:  # cells of one step in the bulk, up to MAX_MERGE steps and MERGE_WIDTH wide beyond
        cells = min(span / h, len(clean) * bulk / h + span / min(MAX_MERGE * h, MERGE_WIDTH))
        return COST_BALL_CELL * cells + 4 * COST_FFT_PAIRS * points * levels
    return COST_STEP_POINT * span / h + 2 * COST_FFT_COUPLING * points * levels


#: The coupling's predicted cost far from Gaussian, in units of its first (rough) pass.
ROUGH_COST = 4.0


def _predicted_costs(clean: list, d: float, w: float) -> dict[str, float]:
    """The predicted cost of each float discretization for an eps bracket of relative width w
    (infinite where it does not apply): one pass on its first grid, and a second, coarse one
    before it where the coupling aims roughly (far from Gaussian)."""
    eta = float_eta(d, w)
    total = sum(c for _, c in clean)
    tau = eta / (16.0 * total)
    try:
        eps, s, rough, bulk = _clt_estimate(clean, d, tau)
        h_c = _first_step(clean, d, w, eta)
        h_p = _pairs_first_step(clean, d, w, eta, fit=True)
    except PrecisionError:
        return {"pairs": math.inf, "coupling": 0.0}
    # far from Gaussian the coupling's first pass is a rough one at ROUGH_AIM, whose midpoint
    # aims a second, some five times finer (measured: 2.5 to 4 times the first pass's cost)
    coupling = _pass_cost(clean, h_c, s, tau, False) * (ROUGH_COST if rough > BERRY_ESSEEN_ROUGH else 1.0)
    pairs = math.inf if h_p is None else _pass_cost(clean, h_p, s, tau, True, bulk)
    return {"pairs": pairs, "coupling": coupling}


def _why_stop(rw: float, w: float, comp: ComposedLoss, delta: float, pairs: bool, attempt: int, previous: float,
              h: float) -> str:
    """Why the float route's refinement stops after a pass that missed the width ``w`` ("" to
    refine on): delta too close to the route's additive floor, or a bracket that no longer
    narrows."""
    if comp.floor_above(0.2 * delta):
        return f"delta is within a factor 5 of the float route's floor {comp.delta_floor():.2g}"
    if attempt and rw > (0.95 if pairs else 0.8) * previous:
        return f"the bracket stopped narrowing (grid step {h:.3g}, float floor {comp.delta_floor():.2g})"
    return ""


def _epsilon_float(clean: list, dq: Fraction, w: float, max_refinements: int, best: _Best,
                   discretization: str = "coupling", rival: float = math.inf) -> str:
    """The float route's refinement loop; offers its brackets to ``best``, returns why it stopped
    ("" when the width was reached).  On the pairs discretization the width shrinks like h^2:
    each refinement aims h at sqrt(REFINED_AIM w mid / width) times the last, while that pass's
    predicted cost stays below ``rival`` (the coupling's, which then takes over)."""
    d = float(dq)
    eta = float_eta(d, w)
    pairs = discretization == "pairs"
    long_double = False
    previous = math.inf
    try:
        h = _pairs_first_step(clean, d, w, eta, fit=True) if pairs else _first_step(clean, d, w, eta)
    except PrecisionError as exc:
        return f"the float route stopped: {exc}"
    if h is None:
        return "the pairs discretization does not apply"
    # the FFTs may cost an additive delta error of FFT_SHARE w delta (long double where float64
    # would exceed it): a small part of the width asked
    fft_error = FFT_SHARE * w * d
    for attempt in range(max_refinements + 1):
        try:
            earlier = None if best.comp is None or best.bound is None else (best.comp, best.bound.lower)
            comp = compose_losses(clean, grid_step=h, eta=eta, long_double=long_double, aim_delta=d, earlier=earlier,
                                  fft_error=None if long_double else fft_error, discretization=discretization)
            # the additive error (FFT, truncation, eta) does not shrink with h: when it is a
            # visible part of delta, run in long double; when even that does not help, stop
            if not long_double and comp.floor_above(0.02 * d):
                long_double = True
                best.passes += 1
                comp = compose_losses(clean, grid_step=h, eta=eta, long_double=True, discretization=discretization,
                                      aim_delta=d, earlier=earlier)
            b = eps_at(comp, dq)
        except PrecisionError as exc:
            return f"the float route stopped ({discretization}): {exc}"
        rw = rel_width_of(b)
        best.offer(b, comp, rw)
        if rw <= w:
            return ""
        why = _why_stop(rw, w, comp, d, pairs, attempt, previous, h)
        if why:
            return why
        previous = rw
        if not pairs:
            h = _refined_step(h, b, w, comp.completed())
        else:
            if b.lower > 0 and b.width < b.lower:
                mid = 0.5 * (b.lower + b.upper)
                h *= max(0.1, min(0.9, (REFINED_AIM * w * mid / (1 + w / 2) / b.width) ** PAIRS_FIT_POWER))
            else:
                h *= 0.3
            if _pairs_too_fine(clean, h, eta, PAIRS_FIT_MAX_POINTS):
                return f"the pairs' next grid ({h:.3g}) is too fine for their masses"
            _, s, _, bulk = _clt_estimate(clean, d, eta / (16.0 * sum(c for _, c in clean)))
            if _pass_cost(clean, h, s, eta / (16.0 * sum(c for _, c in clean)), True, bulk) > rival:
                return f"the pairs' next grid ({h:.3g}) is predicted dearer than the coupling's"
        if h < 2e-7:
            return f"grid step {h:.3g} is below the float route's limit"
    return f"{max_refinements} refinements"


#: The exact route's first grid step (coarse: it estimates eps for the next).
EXACT_FIRST_STEP = 2.0 ** -6


def _exact_attempt(clean: list, h: float, budget: Fraction, answer: Callable[[ComposedLoss], Bound]) -> tuple[Any, Any]:
    """(composition, bracket) on the exact route, or (None, why) when it cannot be built."""
    try:
        comp = compose_on_exact_lattice(clean, h, budget)
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
        rw = rel_width_of(b)
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

    Examples:
        >>> from gdpproof.accounting.losses import GaussianLoss
        >>> from gdpproof.accounting.search import delta_bracket
        >>> b, comp = delta_bracket([(GaussianLoss(0.5), 4)], 1.0)
        >>> b.lower < 0.1269367375066 < b.upper, b.width <= 0.01 * b.upper
        (True, True)
    """
    return delta_search(parts, check_eps(epsilon), check_refinement(rel_width, max_refinements), max_refinements,
                        check_route(route))


def delta_search(parts: Sequence[tuple[PrivacyLoss, int]], e: float, w: float, max_refinements: int = 5,
                 r: str = "auto") -> tuple[Bound, ComposedLoss]:
    """:func:`delta_bracket` for arguments its caller has validated: ``e`` a finite double >= 0,
    ``w`` in [1e-4, 10], ``max_refinements`` in [0, 20], route ``r``."""
    clean = clean_parts(parts)
    best = _Best()
    why = ""
    if r in ("float", "auto"):
        why = _delta_float(clean, e, w, max_refinements, best, "pairs")
        if best.rw > w:
            why = _delta_float(clean, e, w, max_refinements, best)
        if best.rw <= w or r == "float":
            return _finish(best, w, "delta_bracket", why)
    if r == "auto" and best.bound is not None and 0 < best.bound.upper <= 1e-3:  # small: the tilted pairs
        why = _tilted(clean, w, max_refinements, best, lambda: _pairs_delta_step(clean, e, w, 1e-12, PAIRS_FIT_MAX_POINTS),
                      {"eps": e}, lambda c: c.delta(e), lambda b: b.width / (b.upper or 1.0),
                      lambda: delta_search(clean, e, w, max_refinements, "exact")[1], "delta")
        if best.rw <= w:
            return _finish(best, w, "delta_bracket", why)
    why = _delta_exact(clean, e, w, max_refinements, best)
    return _finish(best, w, "delta_bracket", why)


def _pairs_delta_step(clean: list, e: float, w: float, eta: float, limit: int = PAIRS_MAX_POINTS) -> float | None:
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
    # (finer than h_eps: the cap on the points is checked again, since far out in eps, as for
    # G_30 at eps 100, this step would put some 283,000 points in ball arithmetic, tens of
    # seconds, where the coupling needs a fraction of one)
    return None if _pairs_too_fine(clean, h, eta, limit) else h


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
        why = _why_stop(rw, w, comp, b.upper, pairs, attempt, previous, h)
        if why:
            return why
        previous = rw
        if pairs:
            h *= max(0.1, min(0.9, (REFINED_AIM * w / rw) ** PAIRS_FIT_POWER)) if b.lower > 0 and rw < 0.5 else 0.3
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
