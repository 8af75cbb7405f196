"""The bracket search: :func:`epsilon_bracket` and :func:`delta_bracket` choose the
discretization and the first grid, and refine it until the proven bracket is as narrow as asked
(best effort: the narrowest proven bracket, with a WidthNotReachedWarning, where it is not).

The grid choice is a heuristic (:mod:`gdpproof.accounting.aim`: a CLT estimate, the coupling's
width model, the pairs' cost); whatever it picks, the bracket is proven (``docs/proofs/``).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from ..errors import PrecisionError, WidthNotReachedWarning
from ..text import show
from ..numeric.engine.bound import Bound, directed_double, down, next_up
from .compose import (
    AUTO_EXACT_BELOW,
    check_route,
    clean_parts,
    compose_on_exact_lattice,
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
from .exact_lattice import ROUTE as EXACT_ROUTE
from .losses import (
    PrivacyLoss,
)
from .aim import (
    FFT_SHARE,
    PAIRS_FIT_MAX_POINTS,
    PAIRS_FIT_POWER,
    REFINED_AIM,
    clt_estimate,
    first_step,
    float_eta,
    next_step,
    pairs_delta_step,
    pairs_first_step,
    pairs_too_fine,
    pass_cost,
    predicted_costs,
    refined_step,
)


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
    float route's floor with ``route="float"``).  On the pairs, the lesser ordering's dominated
    masses (its lower bounds, and their check) are built when first used, which the eps bracket
    mostly is not: a failed check then raises PrecisionError from that use of the returned
    composition (another delta or eps, the curves, the honest mu), not from this search (building
    them here would cost 3-9% of a DP-SGD bracket for a check never seen to fail).

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
        costs = predicted_costs(clean, float(dq), w)
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
        why = _tilted(clean, w, max_refinements, best, lambda: pairs_first_step(
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
        if pairs_too_fine(clean, h, 1e-12, PAIRS_FIT_MAX_POINTS):
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
        h = pairs_first_step(clean, d, w, eta, fit=True) if pairs else first_step(clean, d, w, eta)
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
            h = refined_step(h, b, w, comp.completed())
        else:
            if b.lower > 0 and b.width < b.lower:
                mid = 0.5 * (b.lower + b.upper)
                h *= max(0.1, min(0.9, (REFINED_AIM * w * mid / (1 + w / 2) / b.width) ** PAIRS_FIT_POWER))
            else:
                h *= 0.3
            if pairs_too_fine(clean, h, eta, PAIRS_FIT_MAX_POINTS):
                return f"the pairs' next grid ({h:.3g}) is too fine for their masses"
            _, s, _, bulk = clt_estimate(clean, d, eta / (16.0 * sum(c for _, c in clean)))
            if pass_cost(clean, h, s, eta / (16.0 * sum(c for _, c in clean)), True, bulk) > rival:
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
        h = next_step(comp.h, w, steer, 1 / 1024 if b.lower > 0 else 1 / 16)
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
    floor.  At eps at least the largest composed loss of bounded losses, delta is 0 and [0, 0]
    is returned (:meth:`ComposedLoss.loss_caps`); where delta(eps) is below what the route
    resolves, the lower end stays 0 and [0, upper] is returned (with the warning: no grid
    narrows it to a relative width).  Best effort as in :func:`epsilon_bracket`: the narrowest bracket
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
        why = _tilted(clean, w, max_refinements, best, lambda: pairs_delta_step(clean, e, w, 1e-12, PAIRS_FIT_MAX_POINTS),
                      {"eps": e}, lambda c: c.delta(e), lambda b: b.width / (b.upper or 1.0),
                      lambda: delta_search(clean, e, w, max_refinements, "exact")[1], "delta")
        if best.rw <= w:
            return _finish(best, w, "delta_bracket", why)
    why = _delta_exact(clean, e, w, max_refinements, best)
    return _finish(best, w, "delta_bracket", why)


def _delta_float(clean: list, e: float, w: float, max_refinements: int, best: _Best,
                 discretization: str = "coupling") -> str:
    """The float route's loop for delta(eps); on the pairs discretization from
    :func:`pairs_delta_step`, each refinement aimed by the h^2 law."""
    pairs = discretization == "pairs"
    eta = 1e-12
    if pairs:
        try:
            first = pairs_delta_step(clean, e, w, eta)
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
            h = next_step(h, w, rw, 1e-3 if b.lower > 0 and rw < 0.5 else 0.1)
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
        h = next_step(comp.h, w, rw, 1 / 16)
    return f"{max_refinements} refinements"
