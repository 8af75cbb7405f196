"""Symbolic duality: conjugates, delta(epsilon) curves, inverses and symmetrization.

References: Dong, Roth & Su, "Gaussian differential privacy", JRSS-B 2022 (DRS).
"""

from __future__ import annotations

import functools
from typing import Any

import sympy
from sympy import Piecewise, sqrt

from .._args import exact_floats
from ..errors import SymbolicError
from .symbols import SYMPY_GAVE_UP, Phi, Phi_inv, alpha, delta, epsilon, mu, y
from .special import fold, held

__all__ = [
    "MU",
    "DELTA",
    "MU_FROM_PURE_EPSILON",
    "MU_AT_ZERO_EPSILON",
    "GAUSSIAN_TOUCHING_ALPHA",
    "DELTA_AT_NEGATIVE_EPSILON",
    "piecewise_form",
    "pointwise_mu",
    "pointwise_mu_points",
    "conjugate",
    "inverse",
    "ordered_pieces",
    "symmetrize",
    "is_symmetric",
    "envelope",
    "envelope_pure_dp_conditions",
]

MU = mu
DELTA = delta

#: epsilon-DP implies mu-GDP with mu = -2 Phi^{-1}(1/(1 + e^epsilon)), and no smaller mu
#: (f_{epsilon,0} touches G_mu at alpha = 1/(1 + e^epsilon)); see derivations/d05_pure_dp_to_gdp.py.
MU_FROM_PURE_EPSILON = -2 * Phi_inv(1 / (1 + sympy.exp(epsilon)))

#: The largest mu with delta_mu(0) <= delta: delta_mu(0) = Phi(mu/2) - Phi(-mu/2) = erf(mu/(2 sqrt 2))
#: (DRS Cor. 2.13 at epsilon = 0), so mu = 2 Phi^{-1}((1 + delta)/2) = 2 sqrt(2) erfinv(delta); in
#: erfinv form a delta of 1e-100000 needs no 332,000-bit 1 + delta.
MU_AT_ZERO_EPSILON = 2 * sympy.sqrt(2) * sympy.erfinv(delta)

#: The alpha where the supporting line 1 - delta(epsilon) - e^epsilon alpha touches G_mu
#: (DRS Prop. 2.12 with Cor. 2.13): Phi(-epsilon/mu - mu/2).
GAUSSIAN_TOUCHING_ALPHA = Phi(-epsilon / mu - mu / 2)

#: delta(eps) from delta(-eps) (``delta`` stands for delta(-eps)): the hockey-stick identity
#: H_g(P||Q) = 1 - g + g H_{1/g}(Q||P) (integrate (p - g q)_+ - (g q - p)_+ = p - g q), so with the
#: two orderings swapped delta(eps) = 1 - e^eps + e^eps delta(-eps) for the max over both orderings
#: (and for each ordering of a pair with the other's delta).  A bracket at eps < 0 is computed
#: from one at -eps by it (the map is increasing in delta(-eps), so a bracket maps to a bracket).
DELTA_AT_NEGATIVE_EPSILON = 1 - sympy.exp(epsilon) + sympy.exp(epsilon) * delta


def piecewise_form(expr: sympy.Expr) -> sympy.Expr:
    """``expr`` with Max/Min/Abs rewritten as Piecewise, so it differentiates piece by piece."""
    def run(e: sympy.Expr) -> sympy.Expr:
        # rewrite only what needs it: sympy's rewrite of nested Piecewise can fail
        extrema = e.atoms(sympy.Max, sympy.Min, sympy.Abs)
        if extrema:
            e = e.xreplace({m: m.rewrite(Piecewise) for m in extrema})
        return sympy.piecewise_fold(e)

    return held(expr, run)


def pointwise_mu(f_expr: sympy.Expr, z: sympy.Symbol) -> sympy.Expr:
    """The smallest mu with G_mu(alpha) <= f(alpha) at alpha = Phi(-z), as an expression in z.

    G_mu(alpha) <= f(alpha) iff mu >= Phi^{-1}(1 - alpha) - Phi^{-1}(f(alpha)), and
    Phi^{-1}(1 - Phi(-z)) = z exactly, so the expression is z + sqrt(2) erfcinv(2 f(Phi(-z))).
    """
    return z - Phi_inv(f_expr.xreplace({alpha: Phi(-z)}))


def pointwise_mu_points(a: sympy.Symbol, b: sympy.Symbol) -> sympy.Expr:
    """Phi^{-1}(1 - a) - Phi^{-1}(b): the mu certified by a test with errors (a, b)."""
    return sqrt(2) * sympy.erfcinv(2 * a) + sqrt(2) * sympy.erfcinv(2 * b)


def pointwise_epsilon_points(a: sympy.Symbol, b: sympy.Symbol, d: sympy.Symbol) -> sympy.Expr:
    """log max{(1 - d - b) / a, (1 - d - a) / b}: the smallest eps with f_{eps,d}(a) <= b, where
    f_{eps,d}(a) = max{0, 1 - d - e^eps a, e^-eps (1 - d - a)} (for a, b > 0; clipped at 0 by the caller)."""
    return sympy.log(sympy.Max((1 - d - b) / a, (1 - d - a) / b))


def pointwise_delta_points(a: sympy.Symbol, b: sympy.Symbol, e: sympy.Symbol) -> sympy.Expr:
    """max{0, 1 - b - e^e a, 1 - a - e^e b}: the smallest delta with f_{e,delta}(a) <= b."""
    return sympy.Max(0, 1 - b - sympy.exp(e) * a, 1 - a - sympy.exp(e) * b)


def _pieces(expr: sympy.Expr) -> tuple:
    return expr.args if isinstance(expr, Piecewise) else ((expr, sympy.true),)


def _inside(v: sympy.Expr, lo: Any = 0, hi: Any = 1) -> bool:
    """True when the number v is provably in [lo, hi]."""
    return bool(sympy.Ge(v, lo) == sympy.true and sympy.Le(v, hi) == sympy.true)


def _breakpoints(expr: sympy.Expr) -> set:
    points = {sympy.Integer(0), sympy.Integer(1)}
    for _, cond in _pieces(expr):
        for rel in cond.atoms(sympy.core.relational.Relational):
            for sol in sympy.solve(rel.lhs - rel.rhs, alpha):
                points.add(sympy.simplify(sol))
    return points


def conjugate(f: Any) -> sympy.Expr:
    """f*(y) = sup_alpha (y alpha - f(alpha)) in closed form, as an expression in ``y``.

    Piecewise-linear f (numeric parameters): the maximum over the vertices in [0, 1].  Smooth
    f: the stationary point f'(alpha) = y, solved by sympy (valid for y in the range of f').
    Raises :class:`SymbolicError` otherwise.
    """
    expr = piecewise_form(f.expr)
    pieces = _pieces(expr)
    linear = all(e.is_polynomial(alpha) and sympy.Poly(e, alpha).degree() <= 1 for e, _ in pieces)
    if isinstance(expr, Piecewise) or linear:
        if not linear:
            raise SymbolicError(f"no closed-form conjugate for the piecewise function {f!r}")
        points = _breakpoints(expr)
        if any(not (v.is_number and v.is_real) for v in points):
            raise SymbolicError(f"the vertices of {f!r} depend on symbolic parameters")
        cands = [y * v - expr.xreplace({alpha: v}) for v in points if _inside(v)]
        return sympy.Max(*[fold(c) for c in cands])
    slope = sympy.diff(expr, alpha)
    sols = sympy.solve(sympy.Eq(slope, y), alpha)
    if len(sols) != 1:
        raise SymbolicError(f"sympy could not solve f'(alpha) = y for {f!r}")
    a_star = sols[0]
    return sympy.simplify(y * a_star - expr.xreplace({alpha: a_star}))


def ordered_pieces(expr: sympy.Expr) -> list[tuple[sympy.Expr, sympy.Expr, sympy.Expr]]:
    """The pieces of a (piecewise) function of alpha as (expression, start, end), left to right.

    Needs numeric parameters.  The breakpoints are the roots in (0, 1) of the conditions'
    boundaries; the active piece between two of them is found by evaluating the conditions at
    the midpoint (sympy's ``as_set`` is avoided: it can hang on conditions with exp(1/3)).
    """
    expr = piecewise_form(exact_floats(expr))
    points = {sympy.Integer(0), sympy.Integer(1)}
    for _, cond in _pieces(expr):
        for rel in cond.atoms(sympy.core.relational.Relational):
            try:
                sols = sympy.solve(rel.lhs - rel.rhs, alpha)
            except SYMPY_GAVE_UP as exc:
                # sympy's simplification overflows on extreme parameters (eps = 1e19 asks for e^(1e19))
                raise SymbolicError(f"cannot solve the breakpoint condition {rel}") from exc
            for sol in sols:
                if not sol.is_number:
                    raise SymbolicError(f"the breakpoint {sol} of {rel} is not a number")
                if sol.has(sympy.Float):
                    raise SymbolicError(f"the breakpoint {sol} of {rel} is only known approximately")
                if sol.is_real and _inside(sol) and sol not in (0, 1):
                    points.add(sol)
    ordered = sorted(points, key=lambda v: sympy.N(v, 40))
    out: list[tuple[sympy.Expr, sympy.Expr, sympy.Expr]] = []
    for a, b in zip(ordered, ordered[1:]):
        if sympy.N(b - a, 40) == 0:
            continue
        mid = (a + b) / 2
        for e, cond in _pieces(expr):
            verdict = cond.xreplace({alpha: mid})  # numbers: sympy decides by evaluating
            if verdict is sympy.true:
                break
        else:
            raise SymbolicError(f"no piece of {expr} applies at alpha = {mid}")
        if out and out[-1][0] == e:
            out[-1] = (e, out[-1][1], b)
        else:
            out.append((e, a, b))
    return out


def _like(f: Any, template: sympy.Expr, params: tuple, name: str, symmetric: bool | None,
          dual: sympy.Expr | None = None) -> Any:
    """A :class:`~gdpproof.symbolic.tradeoff.TradeOff` (the class of ``f``) with these fields.

    The operations here take a TradeOff and return one of the same class; building it from
    ``type(f)`` keeps this module below :mod:`gdpproof.symbolic.tradeoff`, whose methods
    (``inverse``, ``symmetrize``) call it.
    """
    return type(f)(template, params, name, symmetric, dual)


def inverse(f: Any) -> Any:
    """f^{-1}(alpha) = inf{t : f(t) <= alpha} as a TradeOff.

    Symmetric families are their own inverse.  Otherwise each piece is solved by sympy; a
    piece valid on alpha in [a, b] becomes a piece valid on [f(b), f(a)].
    """
    if f.symmetric:
        return f
    q = sympy.Symbol("q", nonnegative=True)
    branches = []
    for e, lo, hi in ordered_pieces(f.expr):
        if not e.has(alpha):
            continue  # a constant piece (the zero tail) does not invert
        sols = sympy.solve(sympy.Eq(e, q), alpha)
        if len(sols) != 1:
            raise SymbolicError(f"sympy could not invert the piece {e} of {f!r}")
        # the piece covers values [e(hi), e(lo)]; its inverse applies for q up to e(lo)
        branches.append((sols[0], sympy.simplify(e.xreplace({alpha: lo}))))
    if not branches:
        raise SymbolicError(f"{f!r} has no invertible piece")
    # left to right in alpha is top to bottom in value: the last piece covers the smallest values
    branches.reverse()
    out = [(b[0], q <= b[1]) for b in branches[:-1]] + [(branches[-1][0], True)]
    inv = Piecewise(*out).xreplace({q: alpha}) if len(out) > 1 else out[0][0].xreplace({q: alpha})
    top = sympy.simplify(f.expr.xreplace({alpha: 0}))
    if top != 1:
        # values above f(0) are reached already at t = 0
        inv = Piecewise((inv, alpha <= top), (0, True))
    return _like(f, inv, (), f"inverse({f!r})", None)


def xbar(f: Any) -> sympy.Expr:
    """inf{x in [0, 1] : -1 is a subgradient of f at x}."""
    pieces = ordered_pieces(f.expr)
    prev_slope = None
    for e, lo, hi in pieces:
        slope = sympy.diff(e, alpha)
        left = sympy.simplify(slope.xreplace({alpha: lo}))
        # at a breakpoint the subdifferential is [previous slope, this slope]
        if prev_slope is not None and sympy.Le(prev_slope, -1) == sympy.true and sympy.Ge(left, -1) == sympy.true:
            return lo
        if not slope.has(alpha):
            if slope == -1:
                return lo
        else:
            sols = [s for s in sympy.solve(sympy.Eq(slope, -1), alpha) if s.is_number and _inside(s, lo, hi)]
            if sols:
                return min(sols, key=lambda s: sympy.N(s, 30))
        prev_slope = sympy.simplify(slope.xreplace({alpha: hi}))
    raise SymbolicError(f"f' never reaches -1 for {f!r}")


def _vertices(f: Any) -> list[tuple[sympy.Expr, sympy.Expr]]:
    """The vertices (alpha, f(alpha)) of a piecewise-linear f on [0, 1], left to right."""
    pieces = ordered_pieces(f.expr)
    pts = [(lo, sympy.simplify(e.xreplace({alpha: lo}))) for e, lo, _ in pieces]
    e_last, _, hi = pieces[-1]
    pts.append((hi, sympy.simplify(e_last.xreplace({alpha: hi}))))
    return pts


def is_piecewise_linear(f: Any) -> bool:
    try:
        pieces = ordered_pieces(f.expr)
    except (SymbolicError, TypeError):
        return False
    return all(e.is_polynomial(alpha) and sympy.Poly(e, alpha).degree() <= 1 for e, _, _ in pieces)


def _cross(o: tuple, a: tuple, b: tuple) -> int:
    """Sign of the cross product (a - o) x (b - o), decided exactly."""
    v = (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])
    approx = sympy.N(v, 60)
    if approx != 0 and abs(approx) > sympy.Float("1e-50"):
        return 1 if approx > 0 else -1
    v = sympy.simplify(v)
    if v == 0:
        return 0
    sign = sympy.sign(v)
    if sign in (1, -1):
        return int(sign)
    raise SymbolicError(f"cannot decide the orientation of three vertices ({v})")


def _lower_hull(points: list[tuple[sympy.Expr, sympy.Expr]]) -> list[tuple[sympy.Expr, sympy.Expr]]:
    """The lower convex hull of exact points (monotone chain), left to right."""
    by_x: dict[Any, tuple[sympy.Expr, sympy.Expr]] = {}
    for x_, y_ in points:
        key = sympy.nsimplify(x_) if x_.is_Rational else x_
        if key not in by_x or sympy.N(y_ - by_x[key][1], 60) < 0:
            by_x[key] = (x_, y_)
    ordered = sorted(by_x.values(), key=lambda pt: (sympy.N(pt[0], 60), sympy.N(pt[1], 60)))
    hull: list[tuple[sympy.Expr, sympy.Expr]] = []
    for pt in ordered:
        while len(hull) >= 2 and _cross(hull[-2], hull[-1], pt) <= 0:
            hull.pop()
        hull.append(pt)
    return hull


def symmetrize(f: Any) -> Any:
    """Symm(f) = min{f, f^{-1}}**: the symmetric guarantee from a one-sided one.

    When f bounds T(M(S), M(S')) for one order of each neighbouring pair only (as for
    subsampling, DRS Thm 4.2), the other order is bounded by f^{-1}, and the largest symmetric
    trade-off function below both is the lower convex envelope of min{f, f^{-1}}.  Symmetric f
    are returned unchanged.  For piecewise-linear f it is computed exactly: the epigraph of the
    minimum is the union of two polygons, so the envelope is the lower convex hull of the
    vertices of f and of f^{-1} (the reflected vertices).  Curved non-symmetric f (numeric
    parameters) get :func:`envelope`, a :class:`~gdpproof.symbolic.special.symmetrized` node
    evaluated to certified digits by :mod:`gdpproof.numeric.tradeoff.envelope`: the familiar closed form
    (f on [0, xbar], a slope -1 segment, f^{-1} after) is the envelope only when also
    f <= f^{-1} on [0, xbar], which fails for some f (for example slopes -3/2, -1, -3/5).
    """
    if f.symmetric:
        return f
    if not is_piecewise_linear(f):
        return envelope(f)
    verts = _vertices(f)
    hull = _lower_hull(verts + [(y_, x_) for x_, y_ in verts])
    segments = []
    for (x0, y0), (x1, y1) in zip(hull, hull[1:]):
        line = sympy.simplify(y0 + (y1 - y0) / (x1 - x0) * (alpha - x0))
        segments.append((line, alpha <= x1))
    segments[-1] = (segments[-1][0], sympy.true)
    sym = Piecewise(*segments) if len(segments) > 1 else segments[0][0]
    return _like(f, sym, (), f"symmetrize({f!r})", True)


def _zero_exact(v: sympy.Expr) -> bool:
    """True when sympy proves v = 0 (False when it proves v != 0 or cannot decide)."""
    try:
        return bool(sympy.simplify(v) == 0)
    except SYMPY_GAVE_UP:
        return False


def _polygon_inverse(verts: list[tuple[sympy.Expr, sympy.Expr]], v: sympy.Expr) -> sympy.Expr:
    """inf{t in [0, 1] : f(t) <= v} for the piecewise-linear f through ``verts`` (left to right)."""
    if sympy.simplify(v - verts[0][1]).is_nonnegative:
        return verts[0][0]
    for (x0, y0), (x1, y1) in zip(verts, verts[1:]):
        if sympy.simplify(y1 - v).is_nonpositive and sympy.simplify(y0 - y1).is_positive:
            return sympy.simplify(x0 + (y0 - v) * (x1 - x0) / (y0 - y1))
    return verts[-1][0]


def _polygon_value(verts: list[tuple[sympy.Expr, sympy.Expr]], x: sympy.Expr) -> sympy.Expr:
    """f(x) for the piecewise-linear f through ``verts`` (left to right)."""
    for (x0, y0), (x1, y1) in zip(verts, verts[1:]):
        if sympy.simplify(x1 - x).is_nonnegative and sympy.simplify(x1 - x0).is_positive:
            return sympy.simplify(y0 + (y1 - y0) * (x - x0) / (x1 - x0))
    return verts[-1][1]


def is_symmetric(f: Any) -> bool:
    r"""True when f = f^{-1} is proven; False when it is refuted *or cannot be decided*.

    Theorems that need a symmetric trade-off function (the Berry–Esseen band of DRS Thm 3.5)
    may rely on a True answer; False only means "not proven".  Decided exactly:

    * families known to be symmetric by a theorem (``f.symmetric is True``: G_mu, f_{eps,delta},
      Laplace, randomized response, C_p(f), ...);
    * ``gaussian_mixture(mu, p)`` = p G_mu + (1 - p) Id is symmetric only for p = 1;
    * piecewise-linear f: f and f^{-1} are both linear between the points
      {0, 1, x_i, f(x_i)} (the kinks of f and their mirror images, the kinks of f^{-1}), so
      f = f^{-1} everywhere iff they agree at those points, compared exactly;
    * a single smooth expression: f(f(alpha)) = alpha proven by sympy.  A non-increasing f with
      f o f = id is a bijection of [0, 1], so f^{-1} is its functional inverse, f itself.

    Examples:
        >>> from sympy import Piecewise, Rational
        >>> from gdpproof.symbolic.tradeoff import TradeOff, gaussian
        >>> from gdpproof.symbolic.symbols import alpha
        >>> is_symmetric(gaussian(1)), is_symmetric(TradeOff(1 - alpha**2))
        (True, False)
        >>> is_symmetric(TradeOff(Piecewise((1 - 2*alpha, alpha <= Rational(1, 3)), ((1 - alpha)/2, True))))
        True
    """
    if f.symmetric is not None:
        return bool(f.symmetric)
    if f.name == "gaussian_mixture":
        return bool(f.parameters["p"] == 1)
    expr = f.expr
    if expr.free_symbols - {alpha}:
        return False
    if is_piecewise_linear(f):
        try:
            verts = _vertices(f)
            points = {sympy.Integer(0), sympy.Integer(1), *(x for x, _ in verts), *(v for _, v in verts)}
            return all(_zero_exact(_polygon_value(verts, x) - _polygon_inverse(verts, x)) for x in points)
        except (SymbolicError, TypeError, *SYMPY_GAVE_UP):
            return False
    if expr.has(Piecewise, sympy.Max, sympy.Min, sympy.Abs):
        return False
    return _zero_exact(expr.xreplace({alpha: expr}) - alpha)


def _zero_of(h: sympy.Lambda) -> sympy.Expr | None:
    """h^{-1}(0) = inf{t in [0, 1] : h(t) <= 0} when sympy's solveset returns every root, else None."""
    (var,) = h.variables
    try:
        roots = sympy.solveset(h.expr, var, sympy.Interval(0, 1))
    except SYMPY_GAVE_UP:
        return None
    if not isinstance(roots, sympy.FiniteSet) or not roots:
        return None
    return sympy.Min(*roots)


def envelope(f: Any, *, at_zero: sympy.Expr | None = None, name: str | None = None) -> Any:
    """min{f, f^{-1}}** for any trade-off curve f with numeric parameters, as a special node.

    The template is ``symmetrized(Lambda(t, f(t)), alpha)``; its delta curve is
    1 + max(f*(-e^eps), (f^{-1})*(-e^eps)) (the conjugate of the envelope is that of the
    minimum, the maximum of the conjugates).  ``at_zero`` is the exact value at alpha = 0,
    min{f(0), f^{-1}(0)}, when the caller knows it (f_p with p < 1: f_p(0)); otherwise sympy's
    solveset is asked for f^{-1}(0), and without it the value at 0 is left to the numeric layer.
    """
    from .special import inverse_conjugate, symmetrized, tradeoff_conjugate
    from .symbols import epsilon_prime, t

    expr = piecewise_form(exact_floats(f.expr))
    if expr.free_symbols - {alpha}:
        raise SymbolicError(f"the envelope min(f, f^-1)** of {f!r} needs numeric parameters")
    h = sympy.Lambda(t, expr.xreplace({alpha: t}))
    if at_zero is None:
        head = fold(expr.xreplace({alpha: sympy.Integer(0)}))
        if isinstance(head, Piecewise):
            head = head.doit()
        z = _zero_of(h)
        if head.is_number and z is not None:
            value = sympy.Min(head, z)
            at_zero = value if value.is_number and not value.has(sympy.Min) else None
    template = symmetrized(h, alpha) if at_zero is None else symmetrized(h, alpha, at_zero)
    y = -sympy.exp(epsilon_prime)
    dual = 1 + sympy.Max(tradeoff_conjugate(h, y), inverse_conjugate(h, y))
    return _like(f, template, (), name or f"symmetrize({f!r})", True, dual)


@functools.lru_cache(maxsize=256)
def envelope_pure_dp_conditions(h: sympy.Lambda) -> tuple[sympy.Expr, sympy.Expr, sympy.Expr]:
    r"""Where the delta curve of C = min{h, h^{-1}}** is exactly 0: three expressions in epsilon.

    Returns (A, B, D) = (h(0) - 1, e^eps + h'(0+), -e^eps h'(1-) - 1).  For h convex,
    continuous, non-increasing on [0, 1] with h(1) = 0 and h(0) <= 1 (the hypotheses of
    :class:`~gdpproof.symbolic.special.symmetrized`) and eps >= 0:

        delta_C(eps) = 0  iff  A = 0, B >= 0 and D >= 0,

    that is, h(0) = 1 and eps >= log max(-h'(0+), -1/h'(1-)), the log of the steepest slope of C.

    Proof.  delta_C(eps) = 1 + C*(-e^eps) = sup_a (1 - e^eps a - C(a)) >= 1 - C(0) >= 0, so
    delta_C(eps) = 0 iff C >= l := max(0, 1 - e^eps a) on [0, 1] (C >= 0).  l is convex and C is
    the largest convex function below g = min{h, h^{-1}}, so C >= l iff g >= l, i.e. h >= l and
    h^{-1} >= l.
    (i) h >= l iff h(0) = 1 and h'(0+) >= -e^eps: if so, convexity gives
    h(a) >= 1 + h'(0+) a >= 1 - e^eps a; conversely a = 0 forces h(0) >= 1, and h'(0+) < -e^eps
    puts h below 1 - e^eps a > 0 for small a > 0.
    (ii) h^{-1} >= l iff h(b) >= e^{-eps} (1 - b) for all b: if the latter holds and
    h(t) <= a, then e^{-eps}(1 - t) <= a, so t >= 1 - e^eps a and h^{-1}(a) >= l(a); conversely
    t = b is admissible for a = h(b), so b >= h^{-1}(h(b)) >= 1 - e^eps h(b).
    (iii) h(b) >= e^{-eps}(1 - b) for all b iff h'(1-) <= -e^{-eps}: convexity at b = 1 gives
    h(b) >= -h'(1-)(1 - b); conversely h(b) = -h'(1-)(1 - b) + o(1 - b) as b -> 1.
    The one-sided slopes are those of the first and last pieces of h.
    """
    (var,) = h.variables
    pieces = ordered_pieces(h.expr.xreplace({var: alpha}))
    first, last = pieces[0][0], pieces[-1][0]
    e = sympy.exp(epsilon)

    def slope(piece: sympy.Expr, at: int) -> sympy.Expr:
        # powsimp: sympy differentiates (1 - a)^E to E (1 - a)^E / (a - 1), which is 0/0 at a = 1
        v = sympy.powsimp(sympy.diff(piece, alpha)).xreplace({alpha: sympy.Integer(at)})
        if v.has(sympy.zoo, sympy.oo, -sympy.oo) and at == 0:
            return -sympy.oo  # a slope that blows up at 0 is -oo there: delta is never 0
        if v.has(sympy.nan, sympy.zoo, sympy.oo, -sympy.oo):
            return sympy.nan  # undecided (G_mu's 0 * oo at 0): the caller certifies delta as usual
        return v

    slope0, slope1 = slope(first, 0), slope(last, 1)
    return first.xreplace({alpha: sympy.Integer(0)}) - 1, e + slope0, -e * slope1 - 1
