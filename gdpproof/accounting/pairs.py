"""Pairs: each step's loss as two grid measures, one dominating (connect the dots: each cell's
mass spread to its two ends, its P- and Q-mass kept; Jensen) and one dominated (below the
hockey-stick curve's chords by a proven gap, checked cell by cell in ball arithmetic).  Composed
by the same FFT, they give the upper and the lower end of delta(eps) directly, with an error
second order in the grid step.

:class:`~gdpproof.accounting.direction.PairDirection` is their ordering.  The proof (the
composition lemma, connect the dots, the lower curve and its ball check) and what it assumes
(the FFT bound only): ``docs/proofs/pairs.md``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import flint
import numpy as np

from ..errors import PrecisionError
from ..numeric.engine.bound import U, next_up
from .exact_lattice import bin_mass, LawBalls, law_kernel, arb_precision
from .coupling import Lattice
from .losses import CompiledLoss, PrivacyLoss

__all__ = ["PairStep", "pair_steps", "supports_pairs", "coarsened", "PRECISION"]

#: Working precision of the bin masses (bits): the masses' relative error must stay far below
#: 1 / (steps x grid points) so that rounding them outward costs nothing visible.
PRECISION = 80
#: The lower curve aims this fraction of the chord gap below the bound it is checked against,
#: so that float64 construction errors never fail the ball check.
MARGIN = 1e-3
#: The most grid points one step's pair may have.
MAX_POINTS = 2_000_000
#: The largest |loss| on a step's grid: e^{+-loss} must be a finite, normal double.
MAX_LOSS = 700.0


@dataclass
class PairStep:
    """One step's dominating (``upper``) and dominated (``lower``) grid masses for one ordering,
    on the points k h of L (the Q||P ordering's own loss is -L: its masses sit at -k h)."""

    upper: Lattice        # P-masses, each rounded up
    lower_of: Any         # the lower Lattice, or a function building (and verifying) it on first use
    excess: float          # upper bound on sum(upper) minus the exact total of the dominating masses
    top: float = 1.0       # upper bound on the P-mass beyond the grid (the dominating measure's at +infinity)

    @property
    def lower(self) -> Lattice:
        """P-masses, each rounded down, verified (:func:`_verify`)."""
        if callable(self.lower_of):
            self.lower_of = self.lower_of()
        return self.lower_of


def supports_pairs(loss: PrivacyLoss) -> bool:
    """True when :func:`pair_steps` can discretize ``loss``: a compiled loss whose family declares
    no atoms (atoms it does not declare, such as Laplace's at +-mu, are handled: module doc)."""
    return isinstance(loss, CompiledLoss) and not loss.has_atoms


def pair_steps(loss: CompiledLoss, h: float, tau: float, others: int = 0,
               widen: tuple[float, float] = (0.0, 0.0),
               tilts: tuple[float, float] | None = None, lazy: bool = False) -> tuple[PairStep, PairStep]:
    """The pairs of both orderings (P||Q, then Q||P) on the grid h Z, window tails <= ``tau``
    (as the float CDFs find them; the masses beyond are computed in balls, ``PairStep.top``),
    the step to be composed with ``others`` more (it weighs the lower curve's candidates:
    :func:`_lower_masses`), the window widened by ``widen`` (below, above) in loss; the cells
    merged as the tilts (lam of P||Q, lam of Q||P) weigh them, where given (:func:`_cell_edges`).

    ``h`` must have a short mantissa (``exact_lattice.grid_step_exact``) so that every grid point
    k h is a double, the same in float and in arb.  With ``lazy``, each ordering's dominated
    masses are built and verified when first asked for (``PairStep.lower``; an eps bracket needs
    them of one ordering only).
    """
    if not supports_pairs(loss):
        raise PrecisionError(f"{loss.name}: the pairs discretization needs a compiled loss without atoms")
    s_lo, s_hi = loss.support()
    lo = max(s_lo, min(loss.window(tau, "P")[0], loss.window(tau, "Q")[0]) - widen[0])
    hi = min(s_hi, max(loss.window(tau, "P")[1], loss.window(tau, "Q")[1]) + widen[1])
    k_lo, k_hi = math.floor(lo / h), math.ceil(hi / h)
    if k_hi - k_lo < 2:
        k_hi = k_lo + 2
    n = k_hi - k_lo
    if n > MAX_POINTS:
        raise PrecisionError(f"grid of {n} points for {loss.name}: too fine for the pairs discretization")
    if max(-k_lo * h, k_hi * h) > MAX_LOSS:
        # the lower curve is built in float64 from x_j = e^{l_j} and 1 / x_j: refused before the
        # balls (at many more bits where the loss is large) are paid for
        raise PrecisionError(f"{loss.name}: its loss reaches {max(-lo, hi):.4g} on the grid, where e^loss is "
                             f"beyond float64 (the pairs discretization takes |loss| <= {MAX_LOSS})")
    idx = _cell_edges(loss, k_lo, n, h, tilts)
    c = len(idx) - 1
    with arb_precision(PRECISION):
        ells = [(k_lo + j) * h for j in idx]
        medians = {law: float(loss._median(law)) for law in "PQ"}
        left = {law: [e <= medians[law] for e in ells] for law in "PQ"}
        vals = _edge_values_both(loss, ells, left, relative=tilts is not None)
        bins, below, above = {}, {}, {}
        for law in "PQ":
            v, lf = vals[law], left[law]
            bins[law] = [_nonneg(bin_mass(v, lf, i)) for i in range(c)]
            below[law] = _nonneg(v[0] if lf[0] else 1 - v[0])          # mass at L <= l_0
            above[law] = _nonneg(v[c] if not lf[c] else 1 - v[c])      # mass at L > l_top
        xs = [flint.arb(e).exp() for e in ells]
        # P||Q: the loss L on the points l_j.  Q||P: the loss -L under Q on the points -l_{c-j}
        # (bins closed on the other side, tails with >=: module doc).
        first = _ordering(xs, bins["P"], bins["Q"], below["P"], above["P"], above["Q"], c, others, lazy)
        inv = [1 / x for x in reversed(xs)]
        second = _ordering(inv, bins["Q"][::-1], bins["P"][::-1], above["Q"], below["Q"], below["P"], c, others,
                           lazy)
        tops = (next_up(float(above["P"].upper())), next_up(float(below["Q"].upper())))
    where = np.array(idx)

    def spread(v: np.ndarray) -> Lattice:
        w = np.zeros(n + 1)
        w[where] = v
        return Lattice(k_lo, w, 0.0)

    up1, low1, ex1 = first
    up2, low2, ex2 = second
    if not lazy:
        return (PairStep(spread(up1), spread(low1), ex1, tops[0]),
                PairStep(spread(up2[::-1]), spread(low2[::-1]), ex2, tops[1]))
    return (PairStep(spread(up1), lambda: spread(low1()), ex1, tops[0]),
            PairStep(spread(up2[::-1]), lambda: spread(low2()[::-1]), ex2, tops[1]))


def coarsened(step: PairStep, sign: int, h: float, m: int) -> PairStep:
    """The dominating masses of ``step`` (one ordering, its own loss s = sign k h) moved to the
    grid m h by connecting the dots once more: each mass w at s, between the coarse points
    a < s < b, is split into w (e^{a - s} - e^{a - b}) / (1 - e^{a - b}) at a and w (1 - e^{a - s}) /
    (1 - e^{a - b}) at b, which keeps its P-mass and its Q-mass (w e^{-s}); by Jensen, as for the
    bins (docs/proofs/pairs.md), the new curve lies above the old one, which lies above the
    step's.  The split's coefficients are arb balls rounded up, the sums raised by their float
    error (and by what an underflow may lose); ``excess`` grows by what the new total may exceed
    the old one by.  The +infinity mass (``top``) is the step's.  ``lower`` is left empty: the
    coarse masses only serve an upper end (:class:`~gdpproof.accounting.direction.CoarseFirst`).
    ``h`` has a short mantissa, so m h (m a power of 2) is exact."""
    lat = step.upper
    j0 = lat.k0 // m
    lead = lat.k0 - j0 * m
    rows = -(-(lead + len(lat.w)) // m)
    w = np.zeros(rows * m)
    w[lead: lead + len(lat.w)] = lat.w
    grid = w.reshape(rows, m)
    to_j, to_next = np.zeros(m), np.zeros(m)   # the share of residue r going to the points j and j + 1
    to_j[0] = 1.0
    with arb_precision(PRECISION):
        far = (-flint.arb(m * h)).exp()
        for r in range(1, m):
            rho = r if sign > 0 else m - r
            near = (-flint.arb(rho * h)).exp()
            low_share, high_share = (near - far) / (1 - far), (1 - near) / (1 - far)
            a, b = (low_share, high_share) if sign > 0 else (high_share, low_share)
            to_j[r], to_next[r] = next_up(float(a.upper())), next_up(float(b.upper()))
    out = np.zeros(rows + 1)
    out[:-1] += np.sum(grid * to_j, axis=1)
    out[1:] += np.sum(grid * to_next, axis=1)
    held = np.zeros(rows + 1, dtype=bool)
    held[:-1] |= np.any(grid > 0, axis=1)
    held[1:] |= np.any(grid > 0, axis=1)
    # 2m products and sums of non-negative terms: relative error below (2m + 2) u, and in the
    # subnormal range an absolute one of 2^-1075 each
    out = out * (1 + 4 * (m + 2) * U) + np.where(held, (4 * m + 4) * 2.0**-1074, 0.0)
    grown = math.fsum(out.tolist()) * (1 + 2 * U) - math.fsum(lat.w.tolist()) * (1 - 2 * U)
    excess = next_up((step.excess + max(0.0, grown)) * (1 + 4 * U))
    return PairStep(Lattice(j0, out, 0.0), Lattice(j0, np.zeros(1), 0.0), excess, step.top)


#: Cells away from the bulk merge grid steps while their chord-gap estimate stays below this
#: fraction of the largest one-step cell's (module doc).
MERGE_SHARE = 0.05
#: ... and at most this many grid steps, and this wide in loss: in a tail that decides delta
#: (few large losses, large eps) a wide cell's error is first order in its width.  (2e-3
#: before: on DP-SGD at delta 1e-5 the cells of 8e-3 halve the ball work of a 1% bracket, and
#: move its width by 0 to 10%.)
MAX_MERGE = 16
MERGE_WIDTH = 8e-3


def float_masses(loss: CompiledLoss, e: np.ndarray) -> dict[str, np.ndarray]:
    """Each law's float mass of the cells (e_i, e_{i+1}] (differences of the CDF left of 0, of
    the SF right of it; an estimate, never part of a bound)."""
    mass = {}
    for law in "PQ":
        with np.errstate(all="ignore"):
            from_cdf = np.diff(np.clip(loss.cdf(e, law), 0.0, 1.0))
            from_sf = -np.diff(np.clip(loss.sf(e, law), 0.0, 1.0))
        mass[law] = np.maximum(np.nan_to_num(np.where(e[1:] <= 0, from_cdf, from_sf)), 0.0)
    return mass


def _cell_edges(loss: CompiledLoss, k_lo: int, n: int, h: float,
                tilts: tuple[float, float] | None = None) -> list[int]:
    """The offsets j (0 = k_lo, ..., n) of the cell edges: every grid point where the loss has
    mass, wider cells (many grid steps) in its tails, where a cell's chord gap (about its
    width times x Q for P||Q, P / x for Q||P) stays below MERGE_SHARE times the largest gap of a
    one-step cell.  Under ``tilts`` (lam_1, lam_2) the gaps are weighted e^{lam_1 l} for P||Q and
    e^{-lam_2 l} for Q||P (each relative to its largest), as the tilted composition sees them.
    Float CDFs choose them; the proof holds for any cells with edges on the
    grid (masses sit only at their edges), so the choice only trades accuracy for ball work."""
    e = (k_lo + np.arange(n + 1, dtype=float)) * h
    mass = float_masses(loss, e)
    x_hi, x_lo = np.exp(e[1:]), np.exp(e[:-1])
    unit = h * np.maximum(x_hi * mass["Q"], mass["P"] / x_lo)
    if tilts is None:
        w_up = w_down = np.ones(n + 1)
    else:
        w_up = np.exp(tilts[0] * (e - e[-1]))        # e^{lam_1 l}, largest at the top
        w_down = np.exp(-tilts[1] * (e - e[0]))      # e^{-lam_2 l}, largest at the bottom
    limit_up = MERGE_SHARE * float(np.max(unit * w_up[1:])) if len(unit) else 0.0
    limit_down = MERGE_SHARE * float(np.max(unit * w_down[:-1])) if len(unit) else 0.0
    # Python floats in the loop (the same doubles, the same operations: far cheaper than indexing arrays)
    cum_p = np.concatenate(([0.0], np.cumsum(mass["P"]))).tolist()
    cum_q = np.concatenate(([0.0], np.cumsum(mass["Q"]))).tolist()
    el, wu, wd = e.tolist(), w_up.tolist(), w_down.tolist()
    cap = max(1, min(MAX_MERGE, int(MERGE_WIDTH / h)))
    edges = [0]
    j = 0
    while j < n:
        k = j + 1
        # widen the cell [j, k] while its gap estimate stays under the limit (doubling, then back)
        step = 1
        while k + step <= n and k + step - j <= cap:
            t = k + step
            width = (t - j) * h
            gap = width * max(math.exp(el[t]) * (cum_q[t] - cum_q[j]), (cum_p[t] - cum_p[j]) / math.exp(el[j]))
            if not (gap * wu[t] <= limit_up and gap * wd[j] <= limit_down):
                break
            k = t
            step *= 2
        edges.append(k)
        j = k
    return edges


def _edge_values_both(loss: CompiledLoss, ells: list[float], left: dict[str, list[bool]],
                      relative: bool = False) -> dict[str, list]:
    """For each law, the CDF at the edges ``left[law]`` marks (left of that law's median) and
    the SF at the others, as balls: both laws from one kernel call (their common subexpressions
    once; both kernels between the two medians); 0 or 1 outside the support, an undecided ball
    replaced by [0, 1]."""
    kernels = {True: law_kernel(loss.family, "cdf", "PQ"), False: law_kernel(loss.family, "sf", "PQ")}
    params = loss._balls()
    s_lo, s_hi = loss.support()
    # no value is multiplied by more than e^{|l|} on this grid: an absolute accuracy of
    # 2^-(PRECISION + extra) is all the masses need, however small the value (a far tail, such as
    # Phi(-2000) at the floor of a subsampled Gaussian with sigma 200, would want millions of bits)
    extra = math.ceil(max(abs(ells[0]), abs(ells[-1])) / math.log(2)) + 8
    enough = flint.arb(2) ** -(PRECISION + extra)
    most = 64 + extra
    if relative:  # a tilt multiplies a far tail's masses by up to e^{lam |l|}: each value to 2^-48 of itself
        enough, most = flint.arb(0), 64 + extra + RELATIVE_BITS
    out: dict[str, list] = {"P": [], "Q": []}
    for i, e in enumerate(ells):
        kinds = (left["P"][i], left["Q"][i])
        if e < s_lo:
            pair = tuple(flint.arb(0 if k else 1) for k in kinds)
        elif e >= s_hi:
            pair = tuple(flint.arb(1 if k else 0) for k in kinds)
        else:
            x = flint.arb(e)
            first = kernels[kinds[0]](x, *params)
            second = first if kinds[1] == kinds[0] else kernels[kinds[1]](x, *params)
            pair = (LawBalls._clip(first[0]), LawBalls._clip(second[1]))
            for j in (0, 1):
                if not (_relative(pair[j]) or pair[j].rad() <= enough):
                    pair = _sharper(pair, j, kernels[kinds[j]], x, loss, most)
        out["P"].append(pair[0])
        out["Q"].append(pair[1])
    return out


#: An edge value is re-evaluated at a higher precision when its ball's radius exceeds this
#: fraction of its magnitude: a tail value of one law is multiplied by up to e^{|l|} in the
#: other ordering's masses, so it needs relative, not absolute, accuracy (down to an absolute
#: 2^-(PRECISION + |l| / log 2), which is all that product needs: :func:`_edge_values_both`).
RELATIVE = 2.0 ** -48
#: ... and, for a tilted composition (every value relative), at most this many bits more.
RELATIVE_BITS = 3400


def _relative(b: flint.arb) -> bool:
    return bool(b.rad() <= RELATIVE * abs(b.mid())) or (b.is_exact() and b.is_zero())


def _sharper(pair: tuple, j: int, kernel: Any, x: flint.arb, loss: CompiledLoss, most: int) -> tuple:
    """``pair`` with its law-j value re-evaluated at more bits: those below 1 that the value
    has, plus 64, at most ``most`` (twice at most; a ball that stays wide is kept: it is still an
    enclosure)."""
    value = pair[j]
    for _ in range(2):
        top = value.upper()
        bits = 64 + (max(0, -int(top.man_exp()[1]) - int(top.man_exp()[0]).bit_length()) if top > 0 else 64)
        with arb_precision(PRECISION + min(bits, most)):
            value = LawBalls._clip(kernel(flint.arb(x.mid()), *loss._balls())[j])
        if _relative(value) or bits >= most:
            break
    return (value, pair[1]) if j == 0 else (pair[0], value)


def _nonneg(b: flint.arb) -> flint.arb:
    """A ball known to hold a non-negative number, its negative part cut (radius kept honest)."""
    if b.upper() < 0:
        raise PrecisionError(f"a probability enclosed as {b} < 0: the bin masses did not settle")
    return b if b.lower() >= 0 else b.intersection(flint.arb(b.upper() / 2, b.upper() / 2))


def _ordering(xs: list, pb: list, qb: list, bottom: flint.arb, top_p: flint.arb, top_q: flint.arb,
              n: int, others: int = 0, lazy: bool = False) -> tuple[np.ndarray, Any, float]:
    """Upper and lower P-masses on the points l_0 < ... < l_n (x_j = e^{l_j}) of one ordering
    whose bins (l_i, l_{i+1}] have P-mass pb[i] and Q-mass qb[i]; ``bottom`` is the P-mass at
    or below l_0, ``top_p``/``top_q`` the P-/Q-mass above l_n (the dominating measure's P-mass
    at +infinity is top_p: the composition counts it as the mass its lattice misses).  Returns
    (upper, lower, excess); with ``lazy``, a function computing lower (at PRECISION bits)."""
    dx = [xs[i + 1] - xs[i] for i in range(n)]
    e = [_nonneg(pb[i] - xs[i] * qb[i]) for i in range(n)]
    f = [_nonneg(xs[i + 1] * qb[i] - pb[i]) for i in range(n)]
    # -- upper: connect the dots, each mass rounded up
    up = np.zeros(n + 1)
    up_exact = [flint.arb(0)] * (n + 1)
    up_exact[0] = bottom
    for i in range(n):
        up_exact[i + 1] = up_exact[i + 1] + xs[i + 1] * e[i] / dx[i]
        up_exact[i] = up_exact[i] + xs[i] * f[i] / dx[i]
    excess = flint.arb(0)
    for j in range(n + 1):
        up[j] = next_up(float(up_exact[j].upper()))
        excess += flint.arb(up[j]) - up_exact[j].lower()
    if lazy:
        def later() -> np.ndarray:
            with arb_precision(PRECISION):
                return _lower_of(xs, pb, qb, top_p, top_q, n, others, dx, e, f)
        return up, later, next_up(float(excess.upper()))
    return up, _lower_of(xs, pb, qb, top_p, top_q, n, others, dx, e, f), next_up(float(excess.upper()))


def _lower_of(xs: list, pb: list, qb: list, top_p: flint.arb, top_q: flint.arb, n: int, others: int,
              dx: list, e: list, f: list) -> np.ndarray:
    """The lower P-masses of :func:`_ordering` (its arguments, with the cells' widths dx and the
    balls E and F), verified."""
    # -- the curve D at the points, from the top: D_j = D_{j+1} + E_j + dx_j Q(L > l_{j+1})
    qt = [flint.arb(0)] * (n + 1)
    pt = [flint.arb(0)] * (n + 1)
    qt[n], pt[n] = top_q, top_p
    for j in range(n - 1, -1, -1):
        qt[j] = qt[j + 1] + qb[j]
        pt[j] = pt[j + 1] + pb[j]
    d = [flint.arb(0)] * (n + 1)    # D(x_n) >= 0 is all that is used of the top
    for j in range(n - 1, -1, -1):
        d[j] = d[j + 1] + e[j] + dx[j] * qt[j + 1]
    gap = [_gap(e[i], f[i], dx[i], qb[i]) for i in range(n)]
    cross = [_crossing(e[i], f[i]) for i in range(n)]
    lower = _lower_masses(xs, [float(v.lower()) for v in d], gap, cross, n, float(pt[0].lower()),
                          [float(v.lower()) for v in qt], others)
    _verify(lower, xs, pt, qt, d, gap, cross, n)
    return lower


def _gap(e: flint.arb, f: flint.arb, dx: flint.arb, q: flint.arb) -> float:
    """Upper bound on the chord's excess over D on one cell: D lies above its tangents at both
    ends (slopes -Q(L > l_j) and -Q(L > l_{j+1}), which differ by the cell's Q-mass q), so the
    excess is at most theta (1 - theta) q dx with theta the chord slope's place between them:
    E F / (dx q) (E + F = dx q), at most dx q / 4."""
    if not q.lower() > 0:  # (rounded up by a step, not by a relative bump: that fails on subnormals)
        return next_up(float((dx * q / 4).upper())) if q.upper() > 0 else 0.0
    return next_up(float((e * f / (dx * q)).upper()))


def _crossing(e: flint.arb, f: flint.arb) -> float:
    """Where, as a fraction t of the cell, its two end tangents cross: E / (E + F) (a float in
    [0, 1], an estimate: the check holds for any t in [0, 1]; 1/2 when E + F is not positive)."""
    em, fm = max(0.0, float(e.mid())), max(0.0, float(f.mid()))
    return em / (em + fm) if em + fm > 0 else 0.5


#: The split that puts each cell's lowering on its right end is used on the cells below the
#: point where the Q-mass above falls under this share of the total (the bottom of the loss).
RIGHT_SHARE = 0.9
#: ... where the excess Q-mass of the other candidate, times the other steps, is above this: it
#: moves the composed loss by about that much (the excess lowers every u = e^{-L} by its share).
EXCESS_SHIFT = 1e-4


def _lower_masses(xs: list, d_lo: list[float], gap: list[float], cross: list[float], n: int, mass: float,
                  qt_lo: list[float], others: int = 0) -> np.ndarray:
    """Float64 P-masses of a convex curve below D with kinks at the points, checked by
    :func:`_verify`.

    Cell j asks (1 - t_j) (D_j - Lambda_j) + t_j (D_{j+1} - Lambda_{j+1}) >= g_j, t_j where
    its end tangents cross (module doc, (d)).  Two ways of lowering the points meet it: both
    ends by g_j (condition (a)), or the right end alone by g_j / t_j = F_j.  Lowering left ends
    where D is (nearly) linear below the loss's bottom (the pile of a subsampled Gaussian at
    log(1 - p)) drags the whole convex minorant down there, which gives the measure an excess
    Q-mass whose cost the composition multiplies by the steps; so the candidates are (a) on
    every cell, and the right end on the cells up to where RIGHT_SHARE of the Q-mass lies
    above, (a) beyond, tried where the first's excess Q-mass times ``others`` (the steps this
    one is composed with) is above EXCESS_SHIFT.  Each is the greatest convex minorant of its
    lowered points (:func:`_minorant`); the one whose curve lies least below D is returned:
    its deficit in d log y over the points, plus ``others`` times x_0 times its excess Q-mass
    (the deficit over (0, x_0], which each of the other steps meets)."""
    x = np.array([float(v.mid()) for v in xs])
    d = np.array(d_lo)
    g = np.array(gap)
    t = np.array(cross)
    to_right = t > 1e-3
    right = np.where(to_right, g / np.where(to_right, t, 1.0), g)
    left = np.where(to_right, 0.0, g)
    bottom = np.array(qt_lo[:-1]) > RIGHT_SHARE * qt_lo[0]
    best, score = None, math.inf
    for lo_end, hi_end in ((g, g), (np.where(bottom, left, g), np.where(bottom, right, g))):
        eta = np.maximum(np.concatenate(([0.0], hi_end)), np.concatenate((lo_end, [0.0])))
        p = _minorant(x, d - eta * (1 + MARGIN), n, mass, qt_lo)
        # Lambda(x_j) = sum_{k > j} p_k (1 - x_j / x_k), from suffix sums
        sp = np.concatenate((np.cumsum(p[::-1])[::-1][1:], [0.0]))
        sq = np.concatenate((np.cumsum((p / x)[::-1])[::-1][1:], [0.0]))
        deficit = d - (sp - x * sq)
        excess = max(0.0, float(np.sum(p / x)) - qt_lo[0])
        s = float(np.sum(deficit[:-1] * np.diff(np.log(x)))) + others * x[0] * excess
        if best is None or s < score:
            best, score = p, s
        if others * excess <= EXCESS_SHIFT:
            break  # (a) on every cell: its excess Q-mass costs the composition nothing visible
    assert best is not None
    return best


def _minorant(x: np.ndarray, b: np.ndarray, n: int, mass: float, qt_lo: list[float]) -> np.ndarray:
    """Float64 P-masses of the greatest convex minorant of the points (x_j, b_j) for j < m and
    (x_m, 0), with m the first point where b_j <= 0 (or n): the curve is 0 from x_m on.  The
    point before the anchor is lowered to at most (x_m - x_{m-1}) Q(L > l_m) so that the last
    cell passes check (c) (D(x_m) may be 0 or only known to be >= 0).  Rounded down; the total
    is then brought to ``mass`` (a lower bound on P(L > l_0)) by a mass at x_0 (which moves
    nothing from x_0 on), or down to it by trimming the lowest masses."""
    nonpos = np.flatnonzero(b[1:] <= 0)
    m = int(nonpos[0]) + 1 if len(nonpos) else n
    b = b[: m + 1].copy()
    b[m] = 0.0
    dxf = np.diff(x[: m + 1])
    b[m - 1] = max(0.0, min(b[m - 1], dxf[m - 1] * qt_lo[m] * (1 - 1e-6)))
    slopes = np.diff(b) / dxf
    # pool adjacent violators: non-decreasing slopes, weights dx (the greatest convex minorant)
    vals: list[float] = []
    wts: list[float] = []
    cnt: list[int] = []
    for s, w in zip(slopes.tolist(), dxf.tolist()):
        vals.append(s)
        wts.append(w)
        cnt.append(1)
        while len(vals) > 1 and vals[-2] > vals[-1]:
            s2, w2, c2 = vals.pop(), wts.pop(), cnt.pop()
            vals[-1] = (vals[-1] * wts[-1] + s2 * w2) / (wts[-1] + w2)
            wts[-1] += w2
            cnt[-1] += c2
    pooled = np.minimum(np.repeat(np.array(vals), cnt), 0.0)
    # anchored at (x_m, 0): slope 0 beyond; the masses are the slope jumps times x
    jumps = np.diff(np.concatenate((pooled, [0.0])))
    p = np.zeros(n + 1)
    p[1: m + 1] = np.maximum(jumps, 0.0) * x[1: m + 1] * (1 - 1e-12)
    # the left end: Lambda(0) = sum p <= P(L > l_0).  A mass at x_0 changes nothing from x_0 on
    # and raises Lambda(0): it takes what is left; trimming the lowest masses only lowers the curve
    extra = float(np.sum(p)) - mass * (1 - 1e-12)
    if extra < 0:
        p[0] = -extra
        return p
    j = 0
    while extra > 0 and j <= n:
        cut = min(float(p[j]), extra)
        p[j] -= cut
        extra -= cut
        j += 1
    return p


def _verify(p: np.ndarray, xs: list, pt: list, qt: list, d: list, gap: list[float], cross: list[float],
            n: int) -> None:
    """Check in ball arithmetic that the masses ``p`` (at the points x_j) give a curve below the
    balls ``d`` of D(x_j) (module doc: the masses non-negative, conditions (a)-(d) on each
    interval, the left end);
    raises PrecisionError when any of them fails (nothing is adjusted here)."""
    # the composition lemma needs a measure: masses >= 0 (this also refuses NaN)
    if not bool(np.all(p >= 0)):
        raise PrecisionError("pairs: the lower curve has a negative or undefined mass")
    # Lambda(x_j) = SP_j - x_j SQ_j with SP_j = sum_{k > j} p_k, SQ_j = sum_{k > j} p_k / x_k;
    # the slope on (x_j, x_{j+1}) is -SQ_j
    sp = [flint.arb(0)] * (n + 1)
    sq = [flint.arb(0)] * (n + 1)
    for j in range(n - 1, -1, -1):
        pk = flint.arb(float(p[j + 1]))
        sp[j] = sp[j + 1] + pk
        sq[j] = sq[j + 1] + pk / xs[j + 1]
    total = sp[0] + flint.arb(float(p[0]))
    if not total <= pt[0]:
        raise PrecisionError("pairs: the lower curve's total mass exceeds P(L > l_0)")
    lam = [sp[j] - xs[j] * sq[j] for j in range(n + 1)]
    if not lam[0] <= d[0]:
        raise PrecisionError(f"pairs: the lower curve is above D at the grid's first point ({lam[0]} > {d[0]})")
    for j in range(n):
        if lam[j] <= 0:
            break  # Lambda is 0 from here on
        # D >= 0: a curve that is 0 at x_{j+1} is below D there even where the ball of D(x_{j+1})
        # reaches below 0 (an atom of the loss on x_{j+1}, whose E is then 0 exactly)
        gj = flint.arb(gap[j])
        right_end = lam[j + 1] <= 0 or lam[j + 1] <= d[j + 1]
        ok = (lam[j] <= d[j] - gj and lam[j + 1] <= d[j + 1] - gj) \
            or (lam[j] <= d[j] and -sq[j] <= -qt[j]) \
            or (right_end and -sq[j] >= -qt[j + 1])
        if not ok and lam[j] <= d[j] and right_end:
            # (d): at c = x_j + t dx_j the line is below both tangents
            t = flint.arb(cross[j])
            at = lam[j] - t * (xs[j + 1] - xs[j]) * sq[j]
            ok = at <= d[j] - t * (xs[j + 1] - xs[j]) * qt[j] and at <= d[j + 1] + (1 - t) * (xs[j + 1] - xs[j]) * qt[j + 1]
        if not ok:
            raise PrecisionError(f"pairs: the lower curve could not be verified below D on cell {j} of {n}")
