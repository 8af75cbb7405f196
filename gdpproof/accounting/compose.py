"""Composing privacy losses on one grid: :func:`compose_losses` builds a
:class:`~gdpproof.accounting.composed.ComposedLoss` by the coupling (float64 FFT lattice), the
pairs or the exact integer lattice, with the coupling's concentration terms (Hoeffding, Bernstein).

The proofs: ``docs/proofs/coupling.md`` (the coupling and its error terms),
``docs/proofs/pairs.md`` and ``docs/proofs/exact_lattice.md``.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from fractions import Fraction
from typing import Any

import numpy as np

from .._args import checked
from ..errors import bad
from ..errors import PrecisionError
from ..numeric.engine.bound import U, down, next_up
from .composed import (
    FLOAT_ASSUMPTIONS,
    FLOAT_ROUTE,
    PAIRS_ASSUMPTIONS,
    ComposedLoss,
    check_delta_exact,
    check_eps,
)
from .coupling import BULK_TAIL, convolve_lattices, discretize, grid_h_eff, Lattice, power, trivial_second
from .direction import CoarseFirst, LatticeDirection, PairDirection
from .exact_lattice import ROUTE as EXACT_ROUTE
from .exact_lattice import compose_exact, grid_step_exact
from .losses import (
    CDF_ERROR,
    PrivacyLoss,
)
from .pairs import coarsened, float_masses, pair_steps, supports_pairs
from .tilt import BITS, cgf, chernoff_eps, log_chernoff, saddle_j, saddle_lam, tilted_direction

#: The discretization name of a tilted pairs composition (``ComposedLoss.discretization``).
TILTED = "tilted pairs"

#: Below this delta, ``route="auto"`` takes the exact route at once (the float route's floor is
#: near 1e-10, and a bracket needs delta well above it); above it the float route is tried
#: first and the exact route takes over when the floor stops it.
AUTO_EXACT_BELOW = 1e-7


def compose_losses(parts: Sequence[tuple[PrivacyLoss, int]], *, grid_step: float = 1e-4,
                   eta: Any = 1e-12, long_double: bool = False, route: str = "float",
                   fft_error: float | None = None, discretization: str = "coupling",
                   aim_delta: float | None = None, earlier: Any = None) -> ComposedLoss:
    r"""Compose privacy losses (each given with its number of repetitions) with proven bounds.

    Args:
        parts (sequence of (PrivacyLoss, count)): The mechanisms, in any order (composition commutes).
        grid_step (float): The grid h.  The bracket on epsilon is about 2 t wide, t = h sqrt(T log(1/eta) / 2)
            (Hoeffding) or, for many steps, about 0.6 of that (Bernstein, module doc); halving h halves it and
            doubles the work.
        eta (float): The coupling's failure probability (Hoeffding's or Bernstein's); it is added to the upper
            and subtracted from the lower delta, so deltas below ~10 eta are not resolved.
        long_double (bool): Run every squaring in long double (about 3 times slower, a 2048 times smaller FFT
            error bound where numpy's long double is 80-bit): for small delta, where the float64 bound
            dominates the bracket.  By default only the early squarings do.
        route ({"float", "exact"}): ``"float"``: the float64 FFT lattice (module doc; its additive errors put
            a floor near delta = 1e-10).  ``"exact"``: the integer lattice of
            :mod:`gdpproof.accounting.exact_lattice`, no float assumption and no floor but its budget: the
            window tails, trimming and rounding together lose about 3 eta (exactly measured), so eta may be
            any rational (a Fraction or decimal string such as "1e-40"); the grid step is rounded down to an
            8-bit mantissa.  ``long_double`` does not apply to it.
        fft_error (float, optional): Float route: the additive delta error the FFTs may cost.  The squarings
            whose float64 error bound, times the number of times their square is repeated, would exceed its
            share run in long double, the others in float64 (every bound is charged either way).  None
            (default): the squarings repeated more than 64 times run in long double.
        discretization ({"coupling", "pairs"}): Float route: ``"coupling"`` rounds each loss to the nearest
            grid point and bounds the sum of the rounding errors (module doc; any loss); ``"pairs"`` composes
            dominating and dominated grid masses (:mod:`gdpproof.accounting.pairs`; compiled losses without
            atoms), whose bracket narrows like h^2: on many steps a grid 10 to 20 times coarser reaches the
            same width.  ``eta`` then only sets the window tails (T eta / 16 of mass at most).
        aim_delta (float, optional): The delta an eps bracket will be sought at.  The ordering a Chernoff
            estimate puts well below the other there is known first by a cheaper proven upper end (its
            pairs, or its coupling, on a grid 8 times coarser; or ``earlier``'s), and composed on
            ``grid_step`` only where a bound needs it; every upper end is the smaller of the two, so no
            bracket is wider than without it.  On the pairs, each ordering's dominated masses are
            then built and checked on first use (a failed check raises PrecisionError there).
        earlier (tuple, optional): Coupling, with ``aim_delta``: (a float-route composition of the same parts
            with the same ``eta``, the lower end of its eps bracket at ``aim_delta``).  An ordering whose
            upper bound there is below half ``aim_delta`` (the other's is not) keeps that composition's as a
            proven upper end, and is discretized and composed on ``grid_step`` only where a bound needs it.

    Examples:
        >>> from gdpproof.accounting.losses import SubsampledGaussianLoss
        >>> from gdpproof.accounting.compose import compose_losses
        >>> c = compose_losses([(SubsampledGaussianLoss(1.0, 0.01), 1000)], grid_step=5e-4)
        >>> b = c.epsilon(1e-5)
        >>> b.lower < 1.8282 < b.upper, b.relative_width < 0.2
        (True, True)
    """
    if not parts:
        raise bad("parts", parts, "must be a non-empty list of (PrivacyLoss, count)")
    if route not in ("float", "exact"):
        raise bad("route", route, 'must be "float" or "exact"')
    h = float(checked("grid_step", grid_step, "positive"))
    if not 1e-8 <= h <= 1:
        raise bad("grid_step", grid_step, "must be in [1e-8, 1]")
    if route == "exact":
        eta_exact = check_delta_exact(eta) if eta is not None else None
        if eta_exact is None or not eta_exact < Fraction(1, 1000):
            raise bad("eta", eta, "must be in (0, 1e-3)")
        return compose_on_exact_lattice(clean_parts(parts), h, 4 * eta_exact)
    eta = float(checked("eta", eta, "positive"))
    if not 1e-300 < eta < 1e-3:
        raise bad("eta", eta, "must be in (1e-300, 1e-3)")
    if fft_error is not None:
        fft_error = float(checked("fft_error", fft_error, "positive"))
        if not fft_error < 1e-3:
            raise bad("fft_error", fft_error, "must be in (0, 1e-3)")
    clean = clean_parts(parts)
    aim = None if aim_delta is None else float(checked("aim_delta", aim_delta, "probability"))
    if aim is not None and not 0 < aim < 1:
        raise bad("aim_delta", aim_delta, "must be in (0, 1)")
    if earlier is not None:
        _check_earlier(earlier, clean)
    if discretization == "pairs":
        return _compose_pairs(clean, h, eta, bool(long_double), fft_error, aim)
    if discretization != "coupling":
        raise bad("discretization", discretization, 'must be "coupling" or "pairs"')
    return _compose_coupling(clean, h, eta, bool(long_double), fft_error, aim, earlier)


def _check_earlier(earlier: Any, clean: list[tuple[PrivacyLoss, int]]) -> None:
    """Refuse an ``earlier`` whose orderings are not proven bounds of *these* parts: its upper
    ends are kept as this composition's, so it must compose the same losses with the same
    counts on the float route, untilted (a tilted one's masses are accurate near its aim only)."""
    if not (isinstance(earlier, tuple) and len(earlier) == 2
            and isinstance(earlier[0], ComposedLoss) and isinstance(earlier[1], float)):
        raise bad("earlier", earlier, "must be (a ComposedLoss, the float lower end of its eps bracket)")
    comp = earlier[0]
    if comp.route != FLOAT_ROUTE or comp.discretization == TILTED:
        raise bad("earlier", earlier, "must be an untilted float-route composition")
    if list(comp.parts) != clean:
        raise bad("earlier", earlier, "must compose the same losses with the same counts as parts")


def _known(d: Any) -> Any:
    """An ordering's best bound built so far: a CoarseFirst's fine one where it is composed, else
    its coarse one; any other ordering itself."""
    if not isinstance(d, CoarseFirst):
        return d
    return d.fine if d.built else d.coarse


def _compose_coupling(clean: list[tuple[PrivacyLoss, int]], h: float, eta: float, long_double: bool,
                      fft_error: float | None, aim: float | None = None, earlier: Any = None) -> ComposedLoss:
    """The float route on the coupling (module doc).  With ``aim`` (the delta an eps bracket is
    sought at), an ordering expected to be the lesser there is known first by a cheaper proven
    bound (:class:`~gdpproof.accounting.direction.CoarseFirst`), its law discretized and composed
    on this grid only where that bound does not decide (:meth:`ComposedLoss.completed`):

    * with ``earlier`` (a composition of the same parts with the same eta, and the lower end of
      its eps bracket at ``aim``): the ordering whose upper bound there is below LESSER_SHARE
      ``aim`` keeps that composition's;
    * otherwise, the ordering a Chernoff estimate puts below LESSER_SHARE ``aim`` even with its
      loss shifted by what the coarse bound adds is composed on the grid COARSE_FACTOR h
      (:func:`_coarse_coupling`)."""
    total = sum(c for _, c in clean)
    tau = eta / (16.0 * total)             # per-step tail mass dropped on each side (x T steps)
    budget = eta / 4.0                     # mass trimmed after convolutions (x 1.5 with the fused step's fold)
    kolm = _kolmogorov(total)
    orderings = _orderings(clean)
    specs = (("P", 1, orderings[0]), ("Q", -1, orderings[1]))
    kept = _kept_ordering(earlier, aim)
    coarse: dict[int, Any] = {}
    if kept is not None:
        coarse[kept] = _known(earlier[0].directions[kept])
    elif aim is not None:
        coarse = _coarse_coupling(clean, specs, h, tau, eta, long_double, fft_error, aim)
    # the second-moment bound (for Bernstein) costs CDF values on cells of the bulk; below
    # BERNSTEIN_MIN_STEPS steps its t gains too little (t_B / t_H > 0.75) to pay for them
    moments = total >= BERNSTEIN_MIN_STEPS
    steps = {law: [discretize(loss, law, h, tau, moments) for loss, _ in clean]
             for o, (law, _, _) in enumerate(specs) if o not in coarse}
    # the rounding errors have range h_eff (h plus the float error of the bin edges) and second
    # moments bounded per step: Hoeffding or Bernstein, whichever is smaller, per law
    h_eff = max(grid_h_eff(loss, law, h, tau) for law in "PQ" for loss, _ in clean)
    ts: dict[str, float] = {}

    def discretized(law: str) -> None:
        """The law's steps on this grid and its t (what the model needs), not composed."""
        if law not in steps:
            steps[law] = [discretize(loss, law, h, tau, moments) for loss, _ in clean]
        ts[law] = coupling_t(h_eff, [(st.second, count) for st, (_, count) in zip(steps[law], clean)], eta)

    def direction(law: str, sign: int, name: str) -> LatticeDirection:
        discretized(law)
        acc = _composed_power([st.lattice for st in steps[law]], clean, budget, long_double, fft_error)
        return _coupling_direction(name, sign, acc, steps[law], clean, h, eta, ts[law], kolm)

    directions: list[Any] = []
    for o, (law, sign, name) in enumerate(specs):
        if o not in coarse:
            directions.append(direction(law, sign, name))
            continue

        def build(law: str = law, sign: int = sign, name: str = name) -> LatticeDirection:
            d = direction(law, sign, name)
            _coupling_model(comp, clean, steps, ts, h, h_eff, trivial)
            return d

        directions.append(CoarseFirst(coarse[o], build))
    comp = ComposedLoss(tuple(clean), h, eta, 0.0, (directions[0], directions[1]), route=FLOAT_ROUTE,
                        assumptions=FLOAT_ASSUMPTIONS)
    trivial = None if moments else {law: [grid_h_eff(loss, law, h, tau) for loss, _ in clean] for law in "PQ"}
    _coupling_model(comp, clean, steps, ts, h, h_eff, trivial)
    if coarse:
        def complete_model() -> None:
            for law, _, _ in specs:
                discretized(law)
            _coupling_model(comp, clean, steps, ts, h, h_eff, trivial)

        comp.complete_model = complete_model
    return comp


def _composed_power(lattices: list[Lattice], clean: list[tuple[PrivacyLoss, int]], budget: float,
                    long_double: bool, fft_error: float | None) -> Lattice:
    """The steps' lattices composed (each to its count, then together), trims within ``budget``."""
    acc: Lattice | None = None
    for lat, (_, count) in zip(lattices, clean):
        powered = power(lat, count, budget / (2 * len(clean)), all_long=long_double,
                        fft_error=None if fft_error is None else fft_error / len(clean))
        acc = powered if acc is None else convolve_lattices(acc, powered, budget / (4 * len(clean)))
    assert acc is not None
    return acc


def _coarse_coupling(clean: list[tuple[PrivacyLoss, int]], specs: tuple, h: float, tau: float, eta: float,
                     long_double: bool, fft_error: float | None, aim: float) -> dict[int, LatticeDirection]:
    """{ordering: its coupling on the grid COARSE_FACTOR h} for the ordering a Chernoff estimate
    from both laws' coarse step lattices puts below LESSER_SHARE ``aim`` at the other's answer
    less what the coarse bound adds to its loss: T h_eff / 2 + t with the trivial mean interval
    [-h_eff/2, h_eff/2] (no partial-mean integral), else 2 t with the mean computed; Hoeffding's
    or Bernstein's t with the trivial second moment.  Empty where neither holds."""
    total = sum(c for _, c in clean)
    hc = COARSE_FACTOR * h
    try:
        rough = {law: [discretize(loss, law, hc, tau, False, mean=False) for loss, _ in clean] for law in "PQ"}
        if min(_bulk_bins(st.lattice.w) for law in "PQ" for st in rough[law]) < COARSE_MIN_BINS:
            return {}  # the coarse grid does not resolve a loss: its Chernoff pick means nothing
        h_eff = max(st.h_eff for law in "PQ" for st in rough[law])
        t = coupling_t(h_eff, [(st.second, count) for st, (_, count) in zip(rough["P"], clean)], eta)
        found = _lesser_ordering([[st.lattice for st in rough[law]] for law in "PQ"], clean, (hc, hc), aim,
                                 (total * h_eff / 2 + t, 2 * t))
        if found is None:
            return {}
        o, with_mean = found
        law, sign, name = specs[o]
        law_steps = [discretize(loss, law, hc, tau, False) for loss, _ in clean] if with_mean else rough[law]
    except PrecisionError:
        return {}  # the coarse grid does not resolve a loss: both on this one
    acc = _composed_power([st.lattice for st in law_steps], clean, eta / 4.0, long_double, fft_error)
    t = coupling_t(h_eff, [(st.second, count) for st, (_, count) in zip(law_steps, clean)], eta)
    return {o: _coupling_direction(name, sign, acc, law_steps, clean, hc, eta, t, _kolmogorov(total))}


#: The coupling's coarse grid is used only where every step's lattice on it has at least this
#: many bins holding all but BULK_TAIL of its mass (fewer do not resolve the loss).
COARSE_MIN_BINS = 64


def _bulk_bins(w: np.ndarray) -> int:
    """How many of the largest masses ``w`` hold all but BULK_TAIL of their total."""
    top = np.sort(w)[::-1].cumsum()
    return int(np.searchsorted(top, (1 - BULK_TAIL) * top[-1])) + 1


def _kept_ordering(earlier: Any, aim: float | None) -> int | None:
    """The ordering (0 or 1) whose upper bound in the ``earlier`` (composition, eps) is below
    LESSER_SHARE ``aim`` at that eps (the other's is not), or None."""
    if earlier is None or aim is None:
        return None
    below = [_known(d).upper(earlier[1]) <= LESSER_SHARE * aim for d in earlier[0].directions]
    return below.index(True) if below.count(True) == 1 else None


def _coupling_direction(name: str, sign: int, acc: Lattice, law_steps: list, clean: list[tuple[PrivacyLoss, int]],
                        h: float, eta: float, t: float, kolm: float) -> LatticeDirection:
    """One ordering of the coupling: the composed lattice ``acc`` of ``clean`` (each step as
    ``law_steps`` discretized it) with its shift interval, slack and lost mass."""
    d_lo = math.fsum(count * st.dbar[0] for st, (_, count) in zip(law_steps, clean))
    d_hi = math.fsum(count * st.dbar[1] for st, (_, count) in zip(law_steps, clean))
    pad = 4 * U * (abs(d_lo) + abs(d_hi) + t)   # the float sums above
    # S = S_R - sum D: with prob >= 1 - eta, S_R - T dhi - t <= S <= S_R - T dlo + t (law P);
    # for the Q||P ordering the variable is -S = -S_R + sum D.
    if sign == 1:
        shift = (down(-d_hi - t - pad), next_up(-d_lo + t + pad))
    else:
        shift = (down(d_lo - t - pad), next_up(d_hi + t + pad))
    lost = max(0.0, 1.0 - acc.l1()) + acc.err + 4 * U
    slack = eta + kolm + acc.err
    return LatticeDirection(name, acc, h, sign, shift, slack, next_up(lost))


def _coupling_result(clean: list[tuple[PrivacyLoss, int]], steps: dict, h: float, eta: float, ts: dict,
                     directions: list, h_eff: float) -> ComposedLoss:
    comp = ComposedLoss(tuple(clean), h, eta, 0.0, (directions[0], directions[1]), route=FLOAT_ROUTE,
                        assumptions=FLOAT_ASSUMPTIONS)
    _coupling_model(comp, clean, steps, ts, h, h_eff)
    return comp


def _coupling_model(comp: ComposedLoss, clean: list[tuple[PrivacyLoss, int]], steps: dict, ts: dict, h: float,
                    h_eff: float, trivial: dict | None = None) -> None:
    """The coupling's t, the model that aims the next grid and the step laws, of the laws
    discretized so far, and of those whose steps' second moments are the trivial bound
    (``trivial``: per law, each step's h_eff; below BERNSTEIN_MIN_STEPS steps), known without
    discretizing them."""
    model = {law: [(st.second / (h * h), st.bulk_bins, count) for st, (_, count) in zip(steps[law], clean)]
             for law in steps}
    for law, effs in (trivial or {}).items():
        if law not in model:
            seconds = [(trivial_second(e), count) for e, (_, count) in zip(effs, clean)]
            model[law] = [(second / (h * h), -1, count) for second, count in seconds]
            ts.setdefault(law, coupling_t(h_eff, seconds, comp.eta))
    comp.t = max(ts.values())
    comp.coupling_model = [model[law] for law in "PQ" if law in model], h_eff / h
    comp.step_laws = steps


def _kolmogorov(total: int) -> float:
    """The CDFs' and the bin edges' float error over ``total`` steps (the coupling's slack)."""
    return total * (5 * CDF_ERROR + 2 * U)


def compose_prefixes(like: ComposedLoss, counts: Sequence[int]) -> Iterator[ComposedLoss]:
    """The compositions of ``like``'s one loss with itself ``c`` times, for each ``c`` of ``counts``
    (increasing, at most ``like.steps``), on ``like``'s grid and discretization, built
    incrementally: each from the one before by one convolution with the increment's power (equal
    increments share it), so the whole list costs about as much as one composition's squarings,
    not one composition a count.

    The per-step laws are ``like``'s (discretized with the window tails of its T steps, smaller
    than a shorter composition's own); every bound is the one :func:`compose_losses` charges (the
    coupling's t, drift and Kolmogorov terms at each count; mass trimmed or cut, and the FFT
    errors, measured on each composed lattice), so each bracket is proven as
    :func:`compose_losses`'s is.

    Examples:
        >>> from gdpproof.accounting.losses import GaussianLoss
        >>> like = compose_losses([(GaussianLoss(0.1), 100)], grid_step=1e-3, eta=1e-10)
        >>> comps = list(compose_prefixes(like, [25, 100]))
        >>> [c.steps for c in comps], [round(c.epsilon(1e-5).upper, 2) for c in comps]
        ([25, 100], [2.01, 4.41])
    """
    if like.route != FLOAT_ROUTE or like.step_laws is None or len(like.parts) != 1:
        raise bad("like", like, "must be a float-route composition of one loss (from compose_losses)")
    counts = [int(c) for c in counts]
    if not counts or any(b <= a for a, b in zip(counts, counts[1:])) or counts[0] < 1 or counts[-1] > like.steps:
        raise bad("counts", counts, f"must be a non-empty increasing list of step counts in [1, {like.steps}]")
    loss = like.parts[0][0]
    h, eta = like.h, like.eta
    # the trims' share: mass cut is measured on each lattice (lost), so this only sets how much
    budget = (eta if eta > 0 else 1e-12) / 4.0
    trim = budget / (4 * len(counts))
    orderings = _orderings(list(like.parts))
    increments = [b - a for a, b in zip([0] + counts, counts)]

    def prefixes(base: Lattice) -> Iterator[Lattice]:
        powers: dict[int, Lattice] = {}
        acc: Lattice | None = None
        for inc in increments:
            if inc not in powers:
                powers[inc] = power(base, inc, budget / 2)
            acc = powers[inc] if acc is None else convolve_lattices(acc, powers[inc], trim)
            yield acc

    if like.discretization == "pairs":
        st = like.step_laws[0]
        runs = [(prefixes(st[o].upper), prefixes(st[o].lower)) for o in (0, 1)]
        for c in counts:
            directions = [_pair_direction(name, sign, next(runs[o][0]), next(runs[o][1]), [st[o]], [(loss, c)], h)
                          for o, (sign, name) in enumerate(((1, orderings[0]), (-1, orderings[1])))]
            comp = ComposedLoss(((loss, c),), h, 0.0, 0.0, (directions[0], directions[1]), route=FLOAT_ROUTE,
                                assumptions=PAIRS_ASSUMPTIONS)
            comp.discretization = "pairs"
            yield comp
        return
    for d in like.directions:
        if isinstance(d, CoarseFirst):
            d.fine  # noqa: B018  (the coupling's step laws of both orderings: composed on first use)
    steps = like.step_laws
    h_eff = max(st.h_eff for law in "PQ" for st in steps[law])
    runs_c = {law: prefixes(steps[law][0].lattice) for law in "PQ"}
    for c in counts:
        part = [(loss, c)]
        ts = {law: coupling_t(h_eff, [(steps[law][0].second, c)], eta) for law in "PQ"}
        directions = [_coupling_direction(name, sign, next(runs_c[law]), steps[law], part, h, eta, ts[law],
                                          _kolmogorov(c))
                      for law, sign, name in (("P", 1, orderings[0]), ("Q", -1, orderings[1]))]
        yield _coupling_result(part, steps, h, eta, ts, directions, h_eff)


def _compose_pairs(clean: list[tuple[PrivacyLoss, int]], h: float, eta: float, long_double: bool,
                   fft_error: float | None, aim: float | None = None) -> ComposedLoss:
    """The float route on the pairs discretization (:mod:`gdpproof.accounting.pairs`).

    Per ordering, the dominating masses and the dominated ones are composed apart (the same
    FFT power as the coupling's).  Upper end: sum_k w_k g(s_k) + the FFT bound + the mass
    missing from the composed lattice (the +infinity mass, the per-step window tails and the
    trims, all counting 1) + what rounding the masses up added to the total ((1 + r)^T - 1 for
    a per-step excess r).  Lower end: the dominated masses' sum minus the FFT bound (trims and
    window tails only lower it).  The grid step is rounded down to an 8-bit mantissa so that
    every point k h is a double.

    With ``aim`` (the delta an eps bracket is sought at), the ordering a Chernoff estimate puts
    well below the other there (:func:`_lesser_ordering`) is composed first on the grid
    COARSE_FACTOR h (:func:`~gdpproof.accounting.pairs.coarsened`), and on h only where that
    bound does not decide (:class:`~gdpproof.accounting.direction.CoarseFirst`).
    """
    h = grid_step_exact(h)
    bad = [loss.name for loss, _ in clean if not supports_pairs(loss)]
    if bad:
        raise PrecisionError(f"the pairs discretization does not take {', '.join(bad)} (atoms or not compiled)")
    total = sum(c for _, c in clean)
    tau = eta / (16.0 * total)
    budget = eta / 4.0
    steps = [pair_steps(loss, h, tau, total - 1, lazy=aim is not None) for loss, _ in clean]
    orderings = _orderings(clean)

    def compose(lattices: list[Lattice]) -> Lattice:
        return _composed_power(lattices, clean, budget, long_double, fft_error)

    def fine(o: int, sign: int, name: str) -> PairDirection:
        return _pair_direction(name, sign, compose([st[o].upper for st in steps]),
                               lambda: compose([st[o].lower for st in steps]), [st[o] for st in steps], clean, h)

    found = None if aim is None else _lesser_ordering([[st[o].upper for st in steps] for o in (0, 1)], clean,
                                                       (h, h), aim)
    lesser = None if found is None else found[0]
    directions: list[Any] = []
    for o, (sign, name) in enumerate(((1, orderings[0]), (-1, orderings[1]))):
        if o != lesser:
            directions.append(fine(o, sign, name))
            continue
        coarse = [coarsened(st[o], sign, h, COARSE_FACTOR) for st in steps]
        up = compose([st.upper for st in coarse])
        directions.append(CoarseFirst(LatticeDirection(name, up, COARSE_FACTOR * h, sign, (0.0, 0.0), up.err,
                                                       _pair_lost(up, coarse, clean)),
                                      lambda o=o, sign=sign, name=name: fine(o, sign, name)))
    comp = ComposedLoss(tuple(clean), h, 0.0, 0.0, (directions[0], directions[1]), route=FLOAT_ROUTE,
                        assumptions=PAIRS_ASSUMPTIONS)
    comp.discretization = "pairs"
    comp.step_laws = steps
    return comp


def compose_tilted(parts: Sequence[tuple[PrivacyLoss, int]], *, grid_step: float, delta: float | None = None,
                   eps: float | None = None, rel_width: float = 0.01, tilt: float | None = None) -> ComposedLoss:
    r"""The pairs composed under an exponential tilt (:mod:`gdpproof.accounting.tilt`): a bracket
    on delta(eps) whose additive error is relative to the Chernoff bound of the tail at eps, so
    that small deltas (1e-30, 1e-100) get the float route's cost.

    Args:
        parts (sequence of (PrivacyLoss, count)): The mechanisms (compiled losses without atoms).
        grid_step (float): The grid h (rounded down to an 8-bit mantissa), in [1e-8, 1].
        delta (float, optional): The delta the tilt is aimed at, in [1e-300, 1e-3]: each ordering
            is tilted to the saddle point of the Chernoff bound where that bound reaches it, and
            the window tails drop delta rel_width / 200 of mass in all.
        eps (float, optional): Instead of delta, the eps the tilt is aimed at (a delta(eps) bracket),
            finite and >= 0: each ordering's tilted mean is eps, and the window tails drop 1e-4
            rel_width / 200 times the Chernoff bound of the tail at eps.  Exactly one of the two.
        rel_width (float): The width the bracket is meant for, in (0, 1] (sets the window tails).
        tilt (float, optional): Use this lam >= 0 (rounded to the tilt's grid) in both orderings
            instead of the saddle point: any lam gives a proven bracket, a poor one a wider one.

    Returns:
        ComposedLoss: its ``discretization`` is ``"tilted pairs"``; delta and eps brackets as any
        composition's (no trade-off curve: the masses are accurate near the tilt's eps only).

    Raises:
        InvalidParameterError: an argument is out of range.
        PrecisionError: a loss the pairs do not take, or a grid or tilt the bounds cannot serve.

    Examples:
        >>> from gdpproof.accounting.losses import GaussianLoss
        >>> from gdpproof.accounting.compose import compose_tilted
        >>> c = compose_tilted([(GaussianLoss(0.1), 100)], grid_step=0.01, delta=1e-30)  # G_1: eps 11.74388...
        >>> b = c.epsilon(1e-30)
        >>> b.lower < 11.7439 < b.upper, b.relative_width < 0.01
        (True, True)
    """
    if not parts:
        raise bad("parts", parts, "must be a non-empty list of (PrivacyLoss, count)")
    h = float(checked("grid_step", grid_step, "positive"))
    if not 1e-8 <= h <= 1:
        raise bad("grid_step", grid_step, "must be in [1e-8, 1]")
    if (delta is None) == (eps is None):
        raise bad("delta", delta, "give exactly one of delta= and eps= (what the tilt aims at)")
    d = e = None
    if delta is not None:
        d = float(checked("delta", delta, "positive"))
        if not 1e-300 <= d <= 1e-3:
            raise bad("delta", delta, "must be in [1e-300, 1e-3]")
    else:
        e = check_eps(eps)
    w = float(checked("rel_width", rel_width, "positive"))
    if not w <= 1:
        raise bad("rel_width", rel_width, "must be in (0, 1]")
    if tilt is not None and not checked("tilt", tilt, "nonnegative") <= 10**4:
        raise bad("tilt", tilt, "must be a number in [0, 1e4]")
    tilt = None if tilt is None else float(tilt)
    clean = clean_parts(parts)
    h = grid_step_exact(h)
    refused = [loss.name for loss, _ in clean if not supports_pairs(loss)]
    if refused:
        raise PrecisionError(f"the pairs discretization does not take {', '.join(refused)} (atoms or not compiled)")
    total = sum(c for _, c in clean)
    counts = [c for _, c in clean]
    # each ordering's tilt from float masses on 4096 cells of each window: it weighs the cells'
    # merging (an estimate; the tilt used is the saddle point of the balls' masses below)
    tau = max(1e-300, (d if d is not None else 1e-30) * w / (400.0 * total))
    pts, masses = [], []
    for loss, _ in clean:
        lo = min(loss.window(tau, law)[0] for law in "PQ")
        hi = max(loss.window(tau, law)[1] for law in "PQ")
        x = np.linspace(lo, hi, 4097)
        pts.append(0.5 * (x[1:] + x[:-1]))
        masses.append(float_masses(loss, x))
    sides = ((pts, [m["P"] for m in masses]), ([-p for p in pts], [m["Q"] for m in masses]))
    tilts = (saddle_lam(*sides[0], counts, d, e), saddle_lam(*sides[1], counts, d, e))
    steps = [_wide_pairs(loss, h, tau, tilts, total - 1) for loss, _ in clean]
    if e is not None:  # the tails' share of delta(eps): 1e-4 of the Chernoff bound (an estimate from above)
        at = [log_chernoff([st[o].upper for st in steps], counts, sign, h, e) for o, sign in ((0, 1), (1, -1))]
        need = max(1e-300, math.exp(max(-690.0, min(0.0, max(c for _, c in at)))) * 1e-4 * w / (400.0 * total))
        if need < tau / 4:  # wider windows, the cells merged as these tilts weigh them
            tau = need
            steps = [_wide_pairs(loss, h, tau, (at[0][0], at[1][0]), total - 1) for loss, _ in clean]
    orderings = _orderings(clean)
    directions = []
    for o, (sign, name) in enumerate(((1, orderings[0]), (-1, orderings[1]))):
        ups = [st[o].upper for st in steps]
        j = saddle_j(ups, counts, sign, h, d, e) if tilt is None else int(round(tilt * h * (1 << BITS) / math.log(2)))
        directions.append(tilted_direction(name, sign, h, j, ups, lambda o=o: [st[o].lower for st in steps],
                                           counts, [st[o].top for st in steps]))
    comp = ComposedLoss(tuple(clean), h, 0.0, 0.0, (directions[0], directions[1]), route=FLOAT_ROUTE,
                        assumptions=PAIRS_ASSUMPTIONS)
    comp.discretization = TILTED
    comp.step_laws = steps
    return comp


def _wide_pairs(loss: PrivacyLoss, h: float, tau: float, tilts: tuple[float, float], others: int) -> tuple:
    """The pairs on a window whose masses at +infinity (both orderings, computed in balls) are at
    most 4 tau: the float CDFs that find the window may lose a far tail below their own error
    (1e-15), so a side whose mass is more is widened, doubling, up to 8 times."""
    widen = [0.0, 0.0]
    for _ in range(9):
        steps = pair_steps(loss, h, tau, others, (widen[0], widen[1]), tilts)
        if steps[0].top <= 4 * tau and steps[1].top <= 4 * tau:
            return steps
        span = (len(steps[0].upper.w) - 1) * h
        for side, st in ((1, steps[0]), (0, steps[1])):  # P||Q's +infinity is above, Q||P's below
            if st.top > 4 * tau:
                widen[side] = max(2 * widen[side], 0.25 * span)
    return steps


def _pair_direction(name: str, sign: int, up: Lattice, low: Any, law_steps: list,
                    clean: list[tuple[PrivacyLoss, int]], h: float) -> PairDirection:
    """One ordering of the pairs: the composed dominating masses ``up`` with the mass missing from
    them and what rounding the masses up added ((1 + r)^T - 1 for a per-step excess r); ``low``
    is the composed dominated masses, or a function composing them when first asked."""
    lost = _pair_lost(up, law_steps, clean)

    def make_low() -> LatticeDirection:
        lattice = low() if callable(low) else low
        return LatticeDirection(name, lattice, h, sign, (0.0, 0.0), lattice.err, 0.0)

    return PairDirection(name, up, h, sign, (0.0, 0.0), up.err, lost, make_low=make_low)


def _pair_lost(up: Lattice, law_steps: list, clean: list[tuple[PrivacyLoss, int]]) -> float:
    """The mass missing from the composed dominating masses ``up`` (rounded up), with what
    rounding the steps' masses up added to the total ((1 + r)^T - 1 for a per-step excess r)."""
    log_excess = math.fsum(count * math.log1p(st.excess) for st, (_, count) in zip(law_steps, clean))
    excess = next_up(math.expm1(next_up(log_excess * (1 + 4 * U))) * (1 + 4 * U))
    return next_up(max(0.0, 1.0 - up.l1()) + up.err + excess + 4 * U)


#: The pairs' lesser ordering is composed first on a grid this many times coarser (its error,
#: second order in the grid step, 64 times the fine one's: on DP-SGD at delta 1e-5 its delta at the
#: other's lower end stays below half the target wherever the estimate below said it would).
COARSE_FACTOR = 8
#: ... where a Chernoff estimate puts its delta, at the eps where the other's reaches the target,
#: below this share of the target.
LESSER_SHARE = 0.5


#: The golden-section steps of the Chernoff estimate that picks the lesser ordering.
PREDICT_ITERATIONS = 24


def _lesser_ordering(lattices: list[list[Lattice]], clean: list[tuple[PrivacyLoss, int]], hs: tuple[float, float],
                     d: float, shifts: tuple[float, ...] = (0.0,)) -> tuple[int, int] | None:
    """(o, i): the ordering o (0 or 1) whose delta a Chernoff estimate from the steps' masses
    (``lattices`` per ordering, P-masses at its own losses sign k h, grid ``hs``) puts below
    LESSER_SHARE d at the eps where the other's reaches d, less ``shifts[i]`` (the first that
    does; its bound at the other's lam, above its best), or None: an estimate that only decides
    which ordering is known first by a cheaper bound (the bounds never depend on it)."""
    counts = [c for _, c in clean]
    sides = []
    for lats, h, sign in zip(lattices, hs, (1, -1)):
        keep = [np.flatnonzero(lat.w > 0) for lat in lats]
        pts = [sign * h * (lat.k0 + k).astype(float) for lat, k in zip(lats, keep)]
        sides.append((pts, [lat.w[k] for lat, k in zip(lats, keep)]))
    try:
        found = []   # (eps, lam) of each ordering's Chernoff bound at d (a few digits suffice)
        for pts, ws in sides:
            lam = saddle_lam(pts, ws, counts, delta=d, iterations=PREDICT_ITERATIONS)
            found.append((chernoff_eps(pts, [np.log(w) for w in ws], counts, lam, d), lam))
        worse = int(found[1][0] > found[0][0])
        (eps, lam), (pts, ws) = found[worse], sides[1 - worse]
        k = cgf(pts, [np.log(w) for w in ws], counts, lam)[0]   # the other's, at the same lam
    except (ValueError, ZeroDivisionError, OverflowError):
        return None
    for i, shift in enumerate(shifts):
        if k - lam * (eps - shift) <= math.log(LESSER_SHARE * d):
            return 1 - worse, i
    return None


def hoeffding_t(h: float, total: int, eta: float) -> float:
    """Hoeffding's deviation t = h sqrt(T log(1/eta) / 2) for T rounding errors of range h
    (rounded up): half the width of the coupling's shift interval, hence of the eps bracket."""
    return next_up(h * math.sqrt(total * math.log(1 / eta) / 2) * (1 + 4 * U))


def bernstein_t(b: float, var: float, eta: float) -> float:
    """Bernstein's deviation for independent centred X_i <= b with sum E X_i^2 <= var (rounded
    up): P(sum X_i >= t) <= exp(-t^2 / (2 (var + b t / 3))) (Boucheron, Lugosi & Massart,
    *Concentration Inequalities*, 2013, Thm 2.10 and Cor. 2.11 with c = b / 3), which is eta at
    t = b l / 3 + sqrt((b l / 3)^2 + 2 var l), l = log(1/eta)."""
    ell = math.log(1 / eta) * (1 + 4 * U)
    x = b * ell / 3
    return next_up((x + math.sqrt(x * x + 2 * var * ell)) * (1 + 8 * U))


def coupling_t(h_eff: float, seconds: Sequence[tuple[float, int]], eta: float) -> float:
    """The coupling's deviation t for one law: the smaller of Hoeffding's (range h_eff) and
    Bernstein's, whose X_i = D_i - E D_i have X_i <= h_eff / 2 + |E D_i| <= h_eff (both tails)
    and E X_i^2 = Var D_i <= E D_i^2, bounded per step in ``seconds`` as (bound, count)."""
    total = sum(c for _, c in seconds)
    var = next_up(math.fsum(s * c for s, c in seconds) * (1 + 4 * U))
    return min(hoeffding_t(h_eff, total, eta), bernstein_t(h_eff, var, eta))


def clean_parts(parts: Sequence[tuple[PrivacyLoss, int]]) -> list[tuple[PrivacyLoss, int]]:
    clean: list[tuple[PrivacyLoss, int]] = []
    for part in parts:
        if not (isinstance(part, tuple) and len(part) == 2):
            raise bad("parts", part, "must be (PrivacyLoss, count) pairs")
        loss, count = part
        if not isinstance(loss, PrivacyLoss):
            raise bad("parts", loss, "must be a PrivacyLoss")
        if isinstance(count, bool) or not isinstance(count, (int, np.integer)) or not 1 <= count <= 10**9:
            raise bad("count", count, "must be an integer in [1, 10^9]")
        clean.append((loss, int(count)))
    return clean


def _orderings(clean: list[tuple[PrivacyLoss, int]]) -> tuple[str, str]:
    """The orderings' names: a symmetric loss is the same in both, so the others name them."""
    named = {loss.orderings for loss, _ in clean if not loss.symmetric}
    return named.pop() if len(named) == 1 else (clean[0][0].orderings if len(clean) == 1 else ("P||Q", "Q||P"))


def compose_on_exact_lattice(clean: list[tuple[PrivacyLoss, int]], h: float, budget: Fraction) -> ComposedLoss:
    """The exact integer-lattice composition with additive delta budget ``budget``."""
    dirs, h_used, eta, t, plan = compose_exact(clean, grid_step=h, budget=budget, orderings=_orderings(clean))
    comp = ComposedLoss(tuple(clean), h_used, next_up(float(eta)), t, dirs, route=EXACT_ROUTE, assumptions=())
    comp.plan = plan
    return comp


def check_route(route: Any) -> str:
    if route not in ("auto", "float", "exact"):
        raise bad("route", route, 'must be "auto", "float" or "exact"')
    return str(route)


#: Compositions of fewer steps use Hoeffding's t alone (module doc): Bernstein's would gain
#: less than a quarter of the width there, and the cells of its second-moment bound cost CDF
#: values comparable with the composition itself.
BERNSTEIN_MIN_STEPS = 256
