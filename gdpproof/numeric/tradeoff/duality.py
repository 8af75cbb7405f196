"""Certified duality operations: delta(epsilon), the convex conjugate, the inverse, the
tightest GDP guarantee, and the trade-off envelope of a delta(epsilon) family.

References: Dong, Roth & Su, "Gaussian differential privacy", JRSS-B 2022 (DRS): Prop. 2.12
(primal–dual), Cor. 2.13 (Gaussian delta), Prop. 2.5 / Example (epsilon-DP implies GDP).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from fractions import Fraction
from typing import Any

import flint
import sympy

from ..._args import exact, probability
from ...errors import PrecisionError, SymbolicError, bad
from ...text import show
from ...symbolic import duality as sd
from ...symbolic.parse import formula
from ...symbolic.symbols import alpha as ALPHA
from ...symbolic.symbols import epsilon as EPS
from ...symbolic.symbols import epsilon_prime as EPS_PRIME
from ...symbolic.tradeoff import GAUSSIAN
from ..engine._mp import arb_endpoints, arb_from_exact, arb_precision
from ..engine.bound import Bound, directed_double
from ..engine.certify import Certified, check_request, arb_function, certify, certify_enclosure, working_bits
from ..engine.evaluate import parse_alpha
from ..engine.optimize import arb_of_fraction, branch_and_bound_sup, concave_sup, monotone_crossing
from .solve import delta_from_epsilon
from ...symbolic.composition import is_identity
from ...symbolic.special import fold

__all__ = [
    "delta_value",
    "delta_bracket_at_negative",
    "conjugate_value",
    "inverse_value",
    "tightest_mu",
    "mu_from_points",
    "tradeoff_from_delta",
]

#: Families whose ``dual_template`` holds at every real epsilon: the Gaussian closed form (DRS Cor.
#: 2.13, whose derivation does not use eps >= 0) and the hockey-stick sums of finite pairs.
ALL_REAL_DUALS = frozenset({"gaussian", "k_randomized_response", "finite"})

#: tightest_mu searches alpha in [Phi(-Z), Phi(Z)]; Phi(-10) is about 7.6e-24.
TAIL_Z = 10

#: Laplace curves of mu up to this are searched.  Their pointwise mu is largest near the fixed
#: point f(alpha) = alpha = e^(-mu/2) / 2, which lies in the range searched (alpha >= Phi(-10))
#: for mu <= 2 log(1 / (2 Phi(-10))) = 105.0; beyond, tightest_mu refuses, naming the pure-DP bound.
LAPLACE_MAX_MU = 104


def _epsilon(value: Any) -> sympy.Expr:
    """epsilon for delta(epsilon): any finite real number (the duality delta(eps) = 1 + f*(-e^eps)
    holds for every real eps; DRS Prop. 2.12)."""
    return exact("epsilon", value, symbolic=False)


def _compiled(f: Any, expr: sympy.Expr) -> tuple[Any, tuple]:
    syms, vals = f._numeric_params()
    return arb_function(expr, (ALPHA, *syms)), vals


def _f_and_df(f: Any) -> tuple[Any, Any, tuple]:
    smooth = sd.piecewise_form(f.template)
    fn, vals = _compiled(f, smooth)
    dfn, _ = _compiled(f, sympy.diff(smooth, ALPHA))
    return fn, dfn, vals


def _endpoint(f: Any, a: int) -> Fraction | None:
    v = f.template.xreplace({ALPHA: sympy.Integer(a), **dict(f.params)})
    v = fold(v)
    if isinstance(v, sympy.Piecewise):
        v = v.doit()
    return Fraction(int(v.p), int(v.q)) if v.is_Rational else None


def _conjugate_enclosure(f: Any, y_of_bits: Any) -> Any:
    fn, dfn, vals = _f_and_df(f)
    f0, f1 = _endpoint(f, 0), _endpoint(f, 1)

    def enclose(bits: int) -> tuple[Fraction, Fraction] | None:
        y = y_of_bits()
        args = [arb_from_exact(v) for v in vals]
        yends = arb_endpoints(y)
        if yends is None:
            return None
        e0 = None if f0 is None else -f0
        e1 = None if f1 is None else (yends[0] - f1)  # a lower bound of g(1) = y - f(1)
        return concave_sup(lambda a: y * a - fn(a, *args), lambda a: y - dfn(a, *args),
                           Fraction(0), Fraction(1), bits, (e0, e1))

    return enclose


def sign(expr: sympy.Expr) -> int | None:
    """The sign of a real number expression: exactly if sympy can, else by a 4096-bit ball."""
    e = sympy.simplify(expr)
    if e.is_zero:
        return 0
    if e.is_positive:
        return 1
    if e.is_negative:
        return -1
    try:
        with arb_precision(4096):
            ends = arb_endpoints(arb_function(e, ())())
    except TypeError:
        return None
    if ends is None:
        return None
    if ends[0] > 0:
        return 1
    if ends[1] < 0:
        return -1
    return None


def _exact_conjugate(f: Any, yv: sympy.Expr, shift: int = 0) -> sympy.Expr | None:
    """shift + f*(y) exactly, when the supremum sits at a breakpoint with a rational value.

    A breakpoint v of f (or an end of [0, 1]) maximises the concave y alpha - f(alpha) exactly
    when its one-sided slopes straddle zero: y - f'(v-) >= 0 >= y - f'(v+).  Those signs are
    decided exactly by sympy or in 4096-bit balls; nothing is taken from sympy's ordering of
    unevaluated numbers.
    """
    try:
        pieces = sd.ordered_pieces(f.expr)
    except SymbolicError:
        return None
    a = sympy.Symbol("alpha", nonnegative=True)
    for i in range(len(pieces) + 1):
        left = pieces[i - 1] if i > 0 else None
        right = pieces[i] if i < len(pieces) else None
        v = right[1] if right is not None else left[2]
        if left is not None:
            s_left = sign(yv - sympy.diff(left[0], a).xreplace({a: v}))
            if s_left is None or s_left < 0:
                continue
        if right is not None:
            s_right = sign(yv - sympy.diff(right[0], a).xreplace({a: v}))
            if s_right is None or s_right > 0:
                continue
        piece = right if right is not None else left
        value = sympy.simplify(shift + yv * v - piece[0].xreplace({a: v}))
        return value if value.is_Rational else None
    return None


def conjugate_value(f: Any, y: Any, *, digits: int, rounding: str) -> Certified:
    """f*(y) = sup_{alpha in [0,1]} (y alpha - f(alpha)), certified (see TradeOff.conjugate_at)."""
    check_request(digits, rounding)
    yv = exact("y", y, symbolic=False)
    enclose = _conjugate_enclosure(f, lambda: arb_from_exact(yv))
    return certify_enclosure(enclose, digits=digits, rounding=rounding, exact=lambda: _exact_conjugate(f, yv),
                             what=lambda: f"conjugate of {f!r} at y={show(yv)}")


def _envelope_delta_is_zero(f: Any, e: sympy.Expr) -> bool:
    """True when f is an envelope min{h, h^{-1}}** (a numeric subsampling envelope) and its delta
    at e is proven exactly 0: beyond the log of its steepest slope
    (:func:`gdpproof.symbolic.duality.envelope_pure_dp_conditions`, which carries the proof).
    No ball can round an exact 0 up, so this is decided before any is computed."""
    from ...symbolic.special import symmetrized

    node = f.expr
    if not isinstance(node, symmetrized) or e < 0:  # at eps < 0, delta >= 1 - e^eps > 0
        return False
    try:
        at_zero, left, right = (c.xreplace({EPS: e}) for c in sd.envelope_pure_dp_conditions(node.args[0]))
    except (SymbolicError, TypeError, ValueError):
        return False
    if sign(at_zero) != 0:
        return False
    for c in (left, right):
        if c.has(sympy.nan):
            return False
        try:  # a quick ball first: most epsilons are clearly below the level (no simplify needed)
            with arb_precision(128):
                ends = arb_endpoints(arb_function(c, ())())
        except (TypeError, ValueError):
            ends = None
        if ends is not None and ends[1] < 0:
            return False
        if (ends is None or not ends[0] > 0) and sign(c) not in (0, 1):
            return False
    return True


def _reflected_delta(f: Any, e: sympy.Expr, digits: int) -> Certified:
    """delta(e) at e < 0 for symmetric f: delta(e) = 1 - e^e + e^e delta(-e).

    Proof: for a pair (P, Q) with T(P, Q) = f, sum (P - e^e Q)_+ = sum (P - e^e Q) + sum (e^e Q - P)_+
    = 1 - e^e + e^e sum (Q - e^-e P)_+, and the last sum is the profile of T(Q, P) = f^{-1} = f at
    -e (DRS Prop. 2.12 for the profile of a trade-off function).  delta(-e) is certified to more
    digits and enters as the interval between its decimal and the decimal one unit below."""
    for extra in (10, 40):
        d = delta_value(f, -e, digits=digits + extra)
        hi = d.to_fraction()
        lo = max(Fraction(0), hi - Fraction(10) ** (d.adjusted() - (digits + extra) + 1)) if hi > 0 else hi

        def enclose(bits: int, lo: Fraction = lo, hi: Fraction = hi) -> flint.arb:
            x = arb_from_exact(e).exp()
            mid = (arb_of_fraction(lo) + arb_of_fraction(hi)) / 2
            ball = mid.union(arb_of_fraction(lo)).union(arb_of_fraction(hi))
            return 1 - x + x * ball

        try:
            return certify_enclosure(enclose, digits=digits, rounding="up", max_bits=4 * working_bits(digits + extra),
                                     what=lambda: f"delta of {f!r} at epsilon={show(e)}")
        except PrecisionError:
            continue
    raise PrecisionError(f"could not certify {digits} digits of the delta of {f!r} at epsilon={show(e)}")


#: The largest |epsilon| delta_value takes for a family other than the Gaussian.
MAX_EPSILON = 10**100


def delta_value(f: Any, epsilon: Any, *, digits: int) -> Certified:
    """delta(epsilon) = 1 + f*(-e^epsilon), rounded up (see TradeOff.delta)."""
    check_request(digits, "up")
    if f.name == "gaussian" and f.template is GAUSSIAN and len(f.params) == 1:
        mu = f.params[0][1]
        if mu.is_Rational and mu > 0:
            # G_mu at a rational mu: the conversions' closed-form kernel, compiled ahead of time
            # (solve.delta_from_epsilon: the same formula, GAUSSIAN_DUAL), not a sympy
            # compilation per mu; a mu that is a float exactly takes its float hot path
            m = Fraction(int(mu.p), int(mu.q))
            fm = float(m) if m < 2**1000 else math.inf
            return delta_from_epsilon(fm if fm == m else m, epsilon, digits=digits)
    e = _epsilon(epsilon)
    if e.is_Rational and abs(e) > MAX_EPSILON:
        # e^(1e999999) is what the conjugate and sympy's sign tests evaluate: mpmath computes log 2
        # to millions of bits for it, for minutes
        raise bad("epsilon", epsilon, "must be within [-1e100, 1e100]")
    syms, vals = f._numeric_params()
    if _envelope_delta_is_zero(f, e):
        return Certified(0, digits=digits, rounding="up", method="exact")
    if e < 0 and f.name not in ALL_REAL_DUALS and f.symmetric:
        return _reflected_delta(f, e, digits)
    # the closed-form duals are derived for eps >= 0 (Laplace's, for one, is wrong below -mu); at
    # eps < 0 only those written for every real eps are used, the conjugate elsewhere
    if f.dual_template is not None and (e >= 0 or f.name in ALL_REAL_DUALS):
        return certify(f.dual_template, (EPS_PRIME, *syms), (e, *vals), digits=digits, rounding="up",
                       what=lambda: f"delta of {f!r} at epsilon={show(e)}", unit_interval=True)
    inner = _conjugate_enclosure(f, lambda: -arb_from_exact(e).exp())

    def enclose(bits: int) -> tuple[Fraction, Fraction] | None:
        box = inner(bits)
        if box is None:
            return None
        # delta is a probability: clamp the enclosure to [0, 1] (both ends stay valid bounds)
        lo, hi = 1 + box[0], 1 + box[1]
        return max(lo, Fraction(0)), min(max(hi, Fraction(0)), Fraction(1))

    def exact_value() -> sympy.Expr | None:
        # exact values (delta = 0 at epsilon >= the pure-DP level) that no ball can decide
        return _exact_conjugate(f, -sympy.exp(e), shift=1)

    # each precision bisects the conjugate's maximiser once per bit, at that precision: beyond four
    # times the digits' bits that is minutes (a delta of 1e-(2e9) asked 65,536 bits), never needed
    # for a delta a decimal of these digits can hold
    return certify_enclosure(enclose, digits=digits, rounding="up", exact=exact_value,
                             max_bits=CONJUGATE_MAX_BITS_FACTOR * working_bits(digits),
                             what=lambda: f"delta of {f!r} at epsilon={show(e)}")


#: The generic conjugate route of delta_value stops at this many times the digits' working bits.
CONJUGATE_MAX_BITS_FACTOR = 8


def inverse_value(f: Any, alpha: Any, *, digits: int, rounding: str) -> Certified:
    """f^{-1}(alpha) = inf{t in [0, 1] : f(t) <= alpha}, certified."""
    check_request(digits, rounding)
    a = parse_alpha(alpha)
    if f.symmetric:
        return f.evaluate(a, digits=digits, rounding=rounding)
    fn, vals = _compiled(f, f.template)
    f0 = _endpoint(f, 0)
    if f0 is not None and f0 <= Fraction(int(a.p), int(a.q)):
        return Certified(0, digits=digits, rounding=rounding, method="exact")

    def enclose(bits: int) -> tuple[Fraction, Fraction]:
        args = [arb_from_exact(v) for v in vals]
        tgt = arb_from_exact(a)

        def le(t: Fraction) -> bool | None:
            d = fn(arb_of_fraction(t), *args) - tgt
            if d <= 0:
                return True
            if d > 0:
                return False
            return None

        return monotone_crossing(le, Fraction(0), Fraction(1), bits)

    def exact_value() -> sympy.Expr | None:
        sols = sympy.solve(sympy.Eq(sd.piecewise_form(f.expr), a), ALPHA)
        rat = sorted(s for s in sols if s.is_Rational and 0 <= s <= 1)
        return rat[0] if rat else None

    return certify_enclosure(enclose, digits=digits, rounding=rounding, exact=exact_value,
                             what=lambda: f"inverse of {f!r} at alpha={show(a)}")


def tightest_mu(f: Any, *, digits: int) -> Certified:
    r"""The smallest mu >= 0 with f >= G_mu on [0, 1], rounded up.

    Closed forms: G_mu gives mu; f_{eps,0} (and randomized response) gives
    -2 Phi^{-1}(1/(1 + e^eps)) (DRS Example after Prop. 2.5); f(0) < 1 gives infinity (no
    Gaussian curve starts below 1).  Otherwise mu = sup_alpha [Phi^{-1}(1-alpha) -
    Phi^{-1}(f(alpha))] by certified branch and bound over alpha in [Phi(-10), Phi(10)]
    (alpha at least 7.6e-24 from either end; [Phi(-10), 1/2] for symmetric f, which suffices
    by symmetry): a supremum attained only beyond that range is
    not seen, which the docstring of :func:`gdpproof.tightest_mu` states.  Functions very
    close to a Gaussian curve make the pointwise mu nearly flat, which branch and bound cannot
    settle to many digits: those raise PrecisionError rather than guess.
    """
    check_request(digits, "up")
    syms, vals = f._numeric_params()
    params = dict(f.params)
    if f.name == "gaussian":
        return certify(sd.MU, (sd.MU,), (params[sd.MU],), digits=digits, rounding="up", what="mu")
    if f.name in ("eps_delta", "randomized_response"):
        if params[sd.DELTA] != 0:
            return Certified("Infinity", digits=digits, rounding="up", method="exact")
        return certify(sd.MU_FROM_PURE_EPSILON, (EPS,), (params[EPS],), digits=digits, rounding="up",
                       what="mu of pure epsilon-DP")
    f0 = _endpoint(f, 0)
    if f0 is not None and f0 < 1:
        return Certified("Infinity", digits=digits, rounding="up", method="exact")
    if (is_identity(f)  # by its parameters: rr_composition at eps = 0 left branch and bound unsettled
            or sympy.simplify(sd.piecewise_form(f.expr) - (1 - ALPHA)) == 0):
        return Certified(0, digits=digits, rounding="up", method="exact")  # Id = G_0
    z = sympy.Symbol("z", real=True)
    h = sd.pointwise_mu(sd.piecewise_form(f.template), z)
    hfn = arb_function(h, (z, *syms))
    dhfn = arb_function(sympy.diff(h, z), (z, *syms))

    # a symmetric f is >= G_mu everywhere once it is on alpha <= 1/2 (z >= 0): were
    # f(a) < G_mu(a) for some a > 1/2, then b = f(a) < 1/2 would have f(b) <= a < G_mu(b)
    z_low = Fraction(0) if f.symmetric else Fraction(-TAIL_Z)
    if f.name == "laplace":
        # beyond LAPLACE_MAX_MU the pointwise mu peaks past the range searched (alpha >= Phi(-10)):
        # the search would return the value at the range's end, below the supremum; refused
        m = Fraction(params[sd.MU]) if params[sd.MU].is_Rational else None
        if m is None or m > LAPLACE_MAX_MU:
            raise PrecisionError(
                f"tightest mu of {f!r}: its pointwise mu peaks near alpha = e^(-mu/2) / 2, beyond the range "
                f"searched (alpha >= Phi(-10)) for mu > {LAPLACE_MAX_MU:g}; the curve is mu-DP, so it is GDP with "
                "mu' = -2 Phi^-1(1 / (1 + e^mu)) (gdpproof tightest-mu randomized-response --eps MU), an upper bound")

    def enclose(bits: int) -> tuple[Fraction, Fraction] | None:
        # alpha = Phi(-10) is 7.6e-24: 1 - alpha needs ~80 more bits than the digits asked for
        with arb_precision(bits + 96):
            return _bnb(bits)

    def _bnb(bits: int) -> tuple[Fraction, Fraction] | None:
        args = [arb_from_exact(v) for v in vals]
        box = branch_and_bound_sup(lambda s: hfn(s, *args), lambda s: dhfn(s, *args),
                                   z_low, Fraction(TAIL_Z),
                                   rel_tol=Fraction(1, 10 ** (digits + 3)))
        if box is None and bits < 2 * working_bits(digits):
            return None  # boxes near the tails need more precision: try again with it
        if box is None:
            why = "" if f.name == "laplace" else " (the function is nearly Gaussian)"
            raise PrecisionError(
                f"branch and bound could not settle {digits} digits of the tightest mu of {f!r}: "
                f"its pointwise mu is too flat near the supremum{why}"
            )
        return max(box[0], Fraction(0)), max(box[1], Fraction(0))

    return certify_enclosure(enclose, digits=digits, rounding="up", what=lambda: f"tightest mu of {f!r}")


def _points(points: Iterable[tuple[Any, Any]]) -> list[tuple[sympy.Expr, sympy.Expr]]:
    """Error pairs (alpha, beta), each in [0, 1], at least one."""
    pts = []
    for i, pair in enumerate(points):
        try:
            a_raw, b_raw = pair
        except (TypeError, ValueError):
            raise bad(f"points[{i}]", pair, "must be a pair (alpha, beta)") from None
        pts.append((parse_alpha(a_raw, f"points[{i}][0]"), parse_alpha(b_raw, f"points[{i}][1]")))
    if not pts:
        raise bad("points", [], "must contain at least one (alpha, beta) pair")
    return pts


def _max_over(fn: Any, rows: list[tuple[Any, ...]], digits: int, what: str) -> Certified:
    def enclose(bits: int) -> flint.arb:
        vals = [fn(*(arb_from_exact(v) for v in row)) for row in rows]
        out = vals[0]
        for v in vals[1:]:
            out = out.max(v)
        return out

    return certify_enclosure(enclose, digits=digits, rounding="up", what=what)


def epsilon_from_points(points: Iterable[tuple[Any, Any]], delta: Any, *, digits: int = 30) -> Certified:
    r"""The smallest eps >= 0 with f_{eps,delta}(alpha_i) <= beta_i for every observed point, rounded up.

    f_{eps,delta}(alpha) = max{0, 1 - delta - e^eps alpha, e^-eps (1 - delta - alpha)}, so eps =
    max(0, max_i log max{(1 - delta - beta_i) / alpha_i, (1 - delta - alpha_i) / beta_i}).  A
    mechanism whose tests reach these error pairs is not (eps', delta)-DP for any eps' below it
    (the twin of :func:`mu_from_points`); Infinity when a point has alpha = 0 and beta < 1 - delta
    (or beta = 0 and alpha < 1 - delta).

    Args:
        points: (alpha, beta) error pairs observed, each coordinate in [0, 1].
        delta: delta, in [0, 1).
        digits: Significant digits of the answer.

    Returns:
        eps, a :class:`~gdpproof.Certified` rounded up.

    Raises:
        InvalidParameterError: A point or delta is out of range, or no point is given.

    Examples:
        >>> import gdpproof
        >>> gdpproof.epsilon_from_points([("0.05", "0.5"), ("0.2", "0.3")], "1e-5", digits=12)
        Certified('2.30256509280', digits=12, rounding='up')
    """
    check_request(digits, "up")
    pts = _points(points)
    d = probability("delta", delta)
    live = []
    for a, b in pts:
        if 1 - d - a <= b:
            continue  # f_{0,d}(a) = max{0, 1 - d - a} <= b already: eps = 0 fits this point
        if a == 0 or b == 0:
            return Certified("Infinity", digits=digits, rounding="up", method="exact")
        live.append((a, b, d))
    if not live:
        return Certified(0, digits=digits, rounding="up", method="exact")
    s, u, v = sympy.symbols("s u v", positive=True)
    fn = arb_function(sympy.Max(0, sd.pointwise_epsilon_points(s, u, v)), (s, u, v))
    return _max_over(fn, live, digits, "eps of the observed points")


def delta_from_points(points: Iterable[tuple[Any, Any]], epsilon: Any, *, digits: int = 30) -> Certified:
    r"""The smallest delta >= 0 with f_{epsilon,delta}(alpha_i) <= beta_i for every observed
    point, rounded up: delta = max(0, max_i max{1 - beta_i - e^eps alpha_i, 1 - alpha_i - e^eps
    beta_i}).  A mechanism whose tests reach these error pairs is not (epsilon, delta')-DP for any
    delta' below it (the twin of :func:`mu_from_points`).

    Args:
        points: (alpha, beta) error pairs observed, each coordinate in [0, 1].
        epsilon: epsilon, real and finite.
        digits: Significant digits of the answer.

    Returns:
        delta, a :class:`~gdpproof.Certified` rounded up.

    Raises:
        InvalidParameterError: A point or epsilon is out of range, or no point is given.

    Examples:
        >>> import gdpproof
        >>> gdpproof.delta_from_points([("0.05", "0.5"), ("0.2", "0.3")], 1, digits=12)
        Certified('0.364085908578', digits=12, rounding='up')
    """
    check_request(digits, "up")
    pts = _points(points)
    e = exact("epsilon", epsilon, symbolic=False)
    if not e >= 0:
        raise bad("epsilon", epsilon, "must be >= 0")
    s, u, v = sympy.symbols("s u v", nonnegative=True)
    fn = arb_function(sd.pointwise_delta_points(s, u, v), (s, u, v))
    return _max_over(fn, [(a, b, e) for a, b in pts], digits, "delta of the observed points")


def mu_from_points(points: Iterable[tuple[Any, Any]], *, digits: int = 30) -> Certified:
    r"""The smallest mu >= 0 with G_mu(alpha_i) <= beta_i for every observed point, rounded up.

    mu = max(0, max_i [Phi^{-1}(1 - alpha_i) - Phi^{-1}(beta_i)]).  A mechanism whose tests
    reach these (type I, type II) error pairs cannot be mu'-GDP for any mu' below this value;
    rounding up keeps G_mu below every point.

    Args:
        points (iterable of (alpha, beta)): Error pairs, each coordinate in [0, 1].
        digits: Significant digits of the answer.

    Examples:
        >>> import gdpproof
        >>> gdpproof.mu_from_points([("0.05", "0.5"), ("0.2", "0.3")], digits=12)
        Certified('1.64485362696', digits=12, rounding='up')
    """
    check_request(digits, "up")
    pts = _points(points)
    for a, b in pts:
        if (a == 0 and b < 1) or (b == 0 and a < 1):
            return Certified("Infinity", digits=digits, rounding="up", method="exact")
    live = [(a, b) for a, b in pts if a + b < 1]
    if not live:
        return Certified(0, digits=digits, rounding="up", method="exact")
    s = sympy.Symbol("s", nonnegative=True)
    u = sympy.Symbol("u", nonnegative=True)
    fn = arb_function(sd.pointwise_mu_points(s, u), (s, u))
    return _max_over(fn, live, digits, "mu of the observed points")


def tradeoff_from_delta(delta: sympy.Expr, alpha: Any, *, digits: int = 30) -> Certified:
    r"""The trade-off envelope of a privacy profile delta(epsilon), at alpha, rounded down.

    .. math:: f(\alpha) = \sup_{\varepsilon \ge 0} \max\{0,\ 1 - \delta(\varepsilon) -
              e^\varepsilon\alpha,\ e^{-\varepsilon}(1 - \delta(\varepsilon) - \alpha)\}

    (DRS Prop. 2.12).  Every epsilon gives a valid lower bound, so the result is always a
    valid lower bound on the envelope; it is the envelope to ``digits`` digits when the
    profile comes from a trade-off function (then 1 - delta(log s) is concave in s, which the
    upper end of the enclosure uses).

    Args:
        delta (sympy.Expr or str): delta as an expression in :data:`gdpproof.symbols.epsilon` (no other free
            symbols).  A string is read by the restricted grammar of :func:`gdpproof.symbolic.parse.formula`:
            nothing in it is executed, so untrusted strings are safe.  Containers are refused.
        alpha: real in [0, 1].
        digits: Significant digits of the answer.

    Examples:
        >>> import gdpproof
        >>> g = gdpproof.gaussian(1)
        >>> gdpproof.tradeoff_from_delta(g.delta_expression(), "0.05", digits=15)
        Certified('0.740488977158555', digits=15, rounding='down')
    """
    from ..engine.certify import check_request as chk

    chk(digits, "down")
    a = parse_alpha(alpha)
    dexpr = formula("delta", delta)  # a string is parsed, never executed
    extra = dexpr.free_symbols - {EPS}
    if extra:
        raise bad("delta", dexpr, f"has free symbols {sorted(map(str, extra))} besides epsilon")
    if a == 0:
        lim = sympy.limit(1 - dexpr, EPS, sympy.oo)
        if not lim.is_number:
            raise SymbolicError(f"could not find the limit of 1 - delta(epsilon) as epsilon -> oo for {dexpr}")
        return certify(sympy.Max(0, lim), (), (), digits=digits, rounding="down", what="envelope at alpha=0")
    s, u = sympy.Symbol("s", positive=True), sympy.Symbol("u", positive=True)
    dexpr = sd.piecewise_form(dexpr)  # Max/Min as Piecewise: derivatives without Heaviside
    g1 = 1 - dexpr.xreplace({EPS: sympy.log(s)}) - s * a  # concave in s >= 1
    g2 = u * (1 - dexpr.xreplace({EPS: -sympy.log(u)}) - a)  # concave in u in (0, 1]
    g1f, dg1f = arb_function(g1, (s,)), arb_function(sympy.diff(g1, s), (s,))
    g2f, dg2f = arb_function(g2, (u,)), arb_function(sympy.diff(g2, u), (u,))

    def enclose(bits: int) -> tuple[Fraction, Fraction] | None:
        hi = Fraction(2)
        for _ in range(4096):  # g1 decreases eventually since alpha > 0
            d = arb_endpoints(dg1f(arb_of_fraction(hi)))
            if d is None:
                return None
            if d[1] < 0:
                break
            hi *= 2
        else:
            return None
        b1 = concave_sup(g1f, dg1f, Fraction(1), hi, bits)
        b2 = concave_sup(g2f, dg2f, Fraction(0), Fraction(1), bits)
        if b1 is None or b2 is None:
            return None
        return max(b1[0], b2[0], Fraction(0)), max(b1[1], b2[1], Fraction(0))

    return certify_enclosure(enclose, digits=digits, rounding="down", what=lambda: f"envelope at alpha={show(a)}")


def delta_bracket_at_negative(at_minus: Bound, epsilon: Fraction) -> Bound:
    """A proven bracket on delta(eps) at ``epsilon`` < 0 from one on delta(-eps) (``at_minus``).

    By the hockey-stick identity (:data:`gdpproof.symbolic.duality.DELTA_AT_NEGATIVE_EPSILON`)
    delta(eps) = 1 - e^eps + e^eps delta(-eps) for the worse of the two orderings; the map is
    increasing in delta(-eps), so each end maps to the same end, evaluated in ball arithmetic and
    rounded outward to doubles.  The relative width shrinks by the factor e^eps delta(-eps) /
    delta(eps).

    >>> import math
    >>> from fractions import Fraction
    >>> b = delta_bracket_at_negative(Bound(0.25, 0.25), Fraction(-1))
    >>> b.lower <= 1 - 0.75 * math.exp(-1) <= b.upper, b.width < 1e-15
    (True, True)
    """
    if not epsilon < 0:
        raise bad("epsilon", epsilon, "must be negative here")
    fn = arb_function(sd.DELTA_AT_NEGATIVE_EPSILON, (EPS, sd.DELTA))
    with arb_precision(128):
        e = arb_of_fraction(Fraction(epsilon))
        lo = arb_endpoints(fn(e, arb_of_fraction(Fraction(at_minus.lower))))
        hi = arb_endpoints(fn(e, arb_of_fraction(Fraction(at_minus.upper))))
    if lo is None or hi is None:
        raise PrecisionError(f"delta at epsilon={show(epsilon)}: the identity's ball is not finite")
    low = max(0.0, directed_double(lo[0], up=False))
    high = min(1.0, directed_double(hi[1], up=True))
    return Bound(min(low, high), high)
