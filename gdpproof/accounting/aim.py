"""Where the float route puts its grids: the a-priori estimates (a CLT value of eps, the
composed loss's spread, how far from Gaussian it is), the first grid step of each
discretization, the next one after a bracket that is too wide, and the cost model that chooses
between the coupling and the pairs.

Everything here is a heuristic that only sets cost: whatever grid it picks, the bracket the
search returns is proven (``docs/proofs/``), and a poor choice costs a pass, never a bound.
"""

from __future__ import annotations

import math

import numpy as np

from ..errors import PrecisionError
from ..numeric.engine import fast as _fast
from ..numeric.engine.bound import Bound
from .compose import BERNSTEIN_MIN_STEPS, bernstein_t, coupling_t, hoeffding_t
from .composed import ComposedLoss
from .coupling import BULK_TAIL, SUBCELL_POINTS, cell_factor, subcells
from .losses import PrivacyLoss
from .pairs import MAX_MERGE, MERGE_WIDTH, supports_pairs


def next_step(h: float, w: float, rw: float, floor_step: float) -> float:
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


def clt_estimate(clean: list[tuple[PrivacyLoss, int]], d: float,
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


def first_step(clean: list[tuple[PrivacyLoss, int]], d: float, w: float, eta: float) -> float:
    """The first grid step, chosen a priori so that usually no second grid is needed.

    The eps bracket is the shift interval of the coupling wide (module doc: both ends come from
    the same lattice law, moved by shift[0] and shift[1]), about 2 t: Hoeffding's
    2 h sqrt(T log(1/eta)/2), or Bernstein's with the second moment AIM_SECOND h^2 / 4 where the
    per-step bulk fits coupling._second_moment's cells, known before composing (an aim: the
    second-moment bound is computed, and charged, when composing).  So with an estimate e of eps (:func:`clt_estimate`) the grid with
    2 t = FIRST_AIM w e / (1 + w/2) meets (upper - lower) / lower <= w when e is right; a wrong
    estimate only costs a second grid (:func:`refined_step`).  Far from Gaussian, ROUGH_AIM
    replaces FIRST_AIM (a coarse pass, then one aimed from its midpoint).  Clamped to [2e-7, 0.05], and
    to at most FIRST_GRID_POINTS points across the composed loss's range.
    """
    total = sum(c for _, c in clean)
    eps, s, rough, bulk = clt_estimate(clean, d, eta / (16.0 * total))
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


def refined_step(h: float, b: Bound, w: float, comp: ComposedLoss | None = None) -> float:
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


def pairs_first_step(clean: list, d: float, w: float, eta: float, fit: bool = False) -> float | None:
    """The pairs' first grid step, or None where they should not be tried (a loss they do not
    take, or too many points a step).  With ``fit`` (an eps bracket) the width model is scaled
    by :func:`pairs_eps_factor` and aimed at PAIRS_FIT_AIM."""
    if not all(supports_pairs(loss) for loss, _ in clean):
        return None
    total = sum(c for _, c in clean)
    eps, s, _, _ = clt_estimate(clean, d, eta / (16.0 * total))
    if not (eps > 0 and s > 0):
        return None
    if fit:
        w_ref = PAIRS_FIT_WIDTH
        h = s * math.sqrt(PAIRS_FIT_AIM * w_ref / (total * pairs_eps_factor(eps))) * (w / w_ref) ** PAIRS_FIRST_POWER
    else:
        h = s * math.sqrt(PAIRS_AIM * w / total)
    if pairs_too_fine(clean, h, eta, PAIRS_FIT_MAX_POINTS if fit else PAIRS_MAX_POINTS):
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


def pairs_too_fine(clean: list, h: float, eta: float, limit: int = PAIRS_MAX_POINTS) -> bool:
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


def pass_cost(clean: list, h: float, s: float, tau: float, pairs: bool, bulk: float = 0.0) -> float:
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


def predicted_costs(clean: list, d: float, w: float) -> dict[str, float]:
    """The predicted cost of each float discretization for an eps bracket of relative width w
    (infinite where it does not apply): one pass on its first grid, and a second, coarse one
    before it where the coupling aims roughly (far from Gaussian)."""
    eta = float_eta(d, w)
    total = sum(c for _, c in clean)
    tau = eta / (16.0 * total)
    try:
        eps, s, rough, bulk = clt_estimate(clean, d, tau)
        h_c = first_step(clean, d, w, eta)
        h_p = pairs_first_step(clean, d, w, eta, fit=True)
    except PrecisionError:
        return {"pairs": math.inf, "coupling": 0.0}
    # far from Gaussian the coupling's first pass is a rough one at ROUGH_AIM, whose midpoint
    # aims a second, some five times finer (measured: 2.5 to 4 times the first pass's cost)
    coupling = pass_cost(clean, h_c, s, tau, False) * (ROUGH_COST if rough > BERRY_ESSEEN_ROUGH else 1.0)
    pairs = math.inf if h_p is None else pass_cost(clean, h_p, s, tau, True, bulk)
    return {"pairs": pairs, "coupling": coupling}


def pairs_delta_step(clean: list, e: float, w: float, eta: float, limit: int = PAIRS_MAX_POINTS) -> float | None:
    """The pairs' first grid step for delta(eps) to a relative width w: the eps width that moves
    log delta by w (its slope about eps / s^2 + 1 for a near-Gaussian loss, s the composed loss's
    standard deviation), from the same model as :func:`pairs_first_step`.  None where the
    pairs do not apply."""
    h_eps = pairs_first_step(clean, 1e-5, w, eta)
    if h_eps is None:
        return None
    total = sum(c for _, c in clean)
    _, s, _, _ = clt_estimate(clean, 1e-5, eta / (16.0 * total))
    e_eff = max(e, s)
    # h_eps aims a relative eps width w; here the absolute eps width is w / (e/s^2 + 1)
    h = min(0.05, max(2e-7, h_eps * math.sqrt(1 / ((e_eff / (s * s) + 1) * e_eff))))
    # (finer than h_eps: the cap on the points is checked again, since far out in eps, as for
    # G_30 at eps 100, this step would put some 283,000 points in ball arithmetic, tens of
    # seconds, where the coupling needs a fraction of one)
    return None if pairs_too_fine(clean, h, eta, limit) else h
