"""Is it a trade-off function?  Symbolic proof where sympy can decide, numeric refutation else.

A trade-off function is convex, continuous, non-increasing, and below Id(alpha) = 1 - alpha
(DRS Prop. 2.2).  Each property gets a verdict:

``proved``
    sympy decided it for all alpha in [0, 1];
``refuted``
    a point (or triple of points) where it certainly fails, found in ball arithmetic, so the
    counterexample is proven, not a rounding artefact;
``not refuted``
    no violation on the grid (log-spaced towards both ends plus uniform points).  This is
    evidence, not proof, and is reported as such.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import flint
import sympy

from ..._args import sympy_value
from ...errors import bad as bad_argument
from ...symbolic.duality import piecewise_form
from ...symbolic.symbols import SYMPY_GAVE_UP
from ...symbolic.symbols import alpha as ALPHA
from ..engine._mp import arb_from_exact, arb_precision
from ..engine.certify import arb_function, working_bits
from ..engine.optimize import arb_of_fraction
from ...symbolic.special import fold

__all__ = ["Verdict", "ValidityReport", "check_tradeoff", "grid"]


@dataclass(frozen=True, slots=True)
class Verdict:
    """The outcome of checking one property.

    Args:
        property: The property checked (``"convex"``, ...).
        status: ``"proved"``, ``"refuted"`` or ``"not refuted"``.
        method: How it was checked (``"numeric"``, ``"symbolic"``, ...).
        detail: What was checked, in words.

    Examples:
        >>> import gdpproof
        >>> gdpproof.check_tradeoff(gdpproof.gaussian(1)).verdicts[0]
        Verdict(property='range', status='not refuted', method='numeric', detail='0 <= f <= 1 at 89 points')
    """

    property: str
    status: str  # "proved", "refuted" or "not refuted"
    method: str  # "symbolic" or "numeric"
    detail: str = ""


@dataclass(frozen=True, slots=True)
class ValidityReport:
    """Verdicts for each defining property of a trade-off function.

    Args:
        function: The function's repr.
        verdicts: One :class:`Verdict` per property.

    Examples:
        >>> import gdpproof
        >>> r = gdpproof.check_tradeoff(gdpproof.gaussian(1))
        >>> r.function, [v.property for v in r.verdicts]
        ('gaussian(mu=1)', ['range', 'below_identity', 'non_increasing', 'convex', 'continuous'])
    """

    function: str
    verdicts: tuple[Verdict, ...]

    @property
    def ok(self) -> bool:
        """True when no property was refuted."""
        return all(v.status != "refuted" for v in self.verdicts)

    def __getitem__(self, name: str) -> Verdict:
        for v in self.verdicts:
            if v.property == name:
                return v
        raise KeyError(name)

    def __str__(self) -> str:
        rows = [f"{self.function}: {'valid' if self.ok else 'NOT a trade-off function'}"]
        for v in self.verdicts:
            rows.append(f"  {v.property:<15} {v.status:<12} {v.method:<9} {v.detail}")
        return "\n".join(rows)


def grid(points: int) -> list[Fraction]:
    """Check points: 0, 1, 10^-k and 1 - 10^-k for k = 1..12, and i/points."""
    pts = {Fraction(0), Fraction(1)}
    for k in range(1, 13):
        pts.add(Fraction(1, 10**k))
        pts.add(1 - Fraction(1, 10**k))
    for i in range(1, points):
        pts.add(Fraction(i, points))
    return sorted(pts)


def _symbolic(expr: sympy.Expr, test: str) -> bool | None:
    """Try to decide a sign with sympy's assumptions (alpha is declared nonnegative)."""
    if isinstance(expr, sympy.Piecewise) or expr.has(sympy.Piecewise, sympy.Max, sympy.Min):
        return None
    try:
        value = getattr(sympy.simplify(expr), test)
    except (TypeError, NotImplementedError, RecursionError):
        return None
    return value


def _piecewise_proofs(f: Any) -> dict[str, str]:
    """Exact proofs for piecewise functions with numeric parameters; {property: detail}.

    Per piece, the sign of f' and f'' is decided by sympy with alpha replaced by a positive
    symbol (breakpoints are isolated points); across breakpoints, continuity is an exact
    identity and convexity needs the slopes to increase (decided exactly or in 4096-bit
    balls).  Convexity with f(0) <= 1 and f(1) <= 0 then gives f <= 1 - alpha, and
    monotonicity with f(1) >= 0 gives f >= 0.
    """
    from ...errors import SymbolicError
    from ...symbolic.duality import ordered_pieces
    from .duality import sign

    try:
        pieces = ordered_pieces(f.expr)
    except (SymbolicError, TypeError, ValueError, NotImplementedError):
        return {}
    if len(pieces) < 2:
        return {}
    ap = sympy.Symbol("a", positive=True)
    proved: dict[str, str] = {}
    continuous = all(sympy.simplify(e1.xreplace({ALPHA: hi}) - e2.xreplace({ALPHA: lo})) == 0
                     for (e1, _, hi), (e2, lo, _) in zip(pieces, pieces[1:]))
    if continuous:
        proved["continuous"] = f"pieces agree exactly at {len(pieces) - 1} breakpoints"
    slopes = [sympy.diff(e, ALPHA) for e, _, _ in pieces]
    decreasing = all(sympy.simplify(d.xreplace({ALPHA: ap})).is_nonpositive for d in slopes)
    if decreasing and continuous:  # a jump could go up: continuity is needed too
        proved["non_increasing"] = "continuous, and f' <= 0 on every piece"
    piece_convex = all(sympy.simplify(sympy.diff(e, ALPHA, 2).xreplace({ALPHA: ap})).is_nonnegative
                       for e, _, _ in pieces)
    kinks = all(sign(d2.xreplace({ALPHA: lo}) - d1.xreplace({ALPHA: hi})) in (0, 1)
                for d1, d2, (_, _, hi), (_, lo, _) in zip(slopes, slopes[1:], pieces, pieces[1:]))
    if continuous and piece_convex and kinks:
        proved["convex"] = "f'' >= 0 on every piece and slopes increase at every breakpoint"
    f0 = sympy.simplify(pieces[0][0].xreplace({ALPHA: 0}))
    f1 = sympy.simplify(pieces[-1][0].xreplace({ALPHA: 1}))
    if "convex" in proved and sign(1 - f0) in (0, 1) and sign(-f1) in (0, 1):
        proved["below_identity"] = "convex with f(0) <= 1 and f(1) <= 0"
    if "non_increasing" in proved and continuous and sign(f1) in (0, 1) and sign(1 - f0) in (0, 1):
        proved["range"] = "non-increasing from f(0) <= 1 to f(1) >= 0"
    return proved


def _huge(v: Any) -> bool:
    """True for a number beyond 10^6 in magnitude (False for anything that is not a number)."""
    try:
        return bool(abs(sympy_value(v)) > 10**6)
    except (TypeError, ValueError):
        return False


#: The largest grid check_tradeoff evaluates (a ball evaluation a point, several checks a pair).
MAX_POINTS = 100_000


def check_tradeoff(f: Any, *, points: int = 64, digits: int = 20) -> ValidityReport:
    """Check that ``f`` is a trade-off function (convex, continuous, non-increasing, <= 1 - alpha).

    Args:
        f: TradeOff
        points (int): Uniform grid size; the grid also has log-spaced points near 0 and 1.
        digits (int): Working precision of the ball evaluations, in decimal digits.

    Returns:
        ValidityReport: ``report.ok`` is False when some property is refuted; ``str(report)`` is a table.

    Examples:
        >>> import gdpproof, sympy
        >>> gdpproof.check_tradeoff(gdpproof.laplace(1)).ok
        True
        >>> from gdpproof.symbols import alpha
        >>> bad = gdpproof.TradeOff(1 - alpha**2 / 2 - alpha / 2, name="concave")
        >>> r = gdpproof.check_tradeoff(bad)
        >>> r.ok, r["convex"].status
        (False, 'refuted')
    """
    if isinstance(points, bool) or not isinstance(points, int) or not 2 <= points <= MAX_POINTS:
        raise bad_argument("points", points, f"must be an integer in [2, {MAX_POINTS:,}]")
    syms, vals = f._numeric_params()
    expr = f.expr
    from ...symbolic.special import implicit_inverse, rr_composed, rr_composed_slope, symmetrized

    # step functions, implicit roots and numeric envelopes: their derivatives hide jumps and
    # branches, so no symbolic sign argument is built on them (the numeric checks still run)
    opaque = expr.has(rr_composed, rr_composed_slope, implicit_inverse, symmetrized)
    # parameters beyond 10^6 in magnitude (eps = 1e308): sympy's sign arguments evaluate e^eps
    # to decide them, seconds per call, so they are not attempted; the numeric checks still run
    extreme = any(_huge(v) for v in vals)
    opaque = opaque or extreme
    pw = piecewise_form(f.template)
    fn = arb_function(f.template, (ALPHA, *syms))
    xs = grid(points)
    verdicts = []
    with arb_precision(working_bits(digits)):
        args = [arb_from_exact(v) for v in vals]
        ys = []
        for a in xs:
            if a in (0, 1) and not extreme:  # exact at the ends (removable singularities), but not at 1e308
                try:
                    v = fold(expr.xreplace({ALPHA: sympy.Rational(a.numerator, a.denominator)}))
                    if isinstance(v, sympy.Piecewise):
                        v = v.doit()
                except SYMPY_GAVE_UP:  # a Max sympy cannot order (1 - e^(5e-324) against 0): not evaluated
                    v = None
                ys.append(arb_from_exact(v) if v is not None and v.is_Rational else flint.arb.nan())
            else:
                ys.append(fn(arb_of_fraction(a), *args))
        finite = all(y.is_finite() for y in ys)

        # endpoints and range
        bad = [(a, y) for a, y in zip(xs, ys) if y < 0 or y > 1]
        if bad:
            a, y = bad[0]
            verdicts.append(Verdict("range", "refuted", "numeric", f"f({a}) = {y.mid().str(6)} outside [0, 1]"))
        elif not finite:
            # a ball that is not finite is an evaluation that failed (e^(4e59) at alpha = 0), not a
            # value outside [0, 1]: it refutes nothing
            n_bad = sum(1 for y in ys if not y.is_finite())
            verdicts.append(Verdict("range", "not refuted", "numeric",
                                    f"0 <= f <= 1 at {len(xs) - n_bad} points; {n_bad} could not be evaluated"))
        else:
            verdicts.append(Verdict("range", "not refuted", "numeric", f"0 <= f <= 1 at {len(xs)} points"))

        # below the identity
        sym = None if opaque else _symbolic(1 - ALPHA - expr, "is_nonnegative")
        bad = [(a, y) for a, y in zip(xs, ys) if y - (1 - arb_of_fraction(a)) > 0]
        if bad:
            a, y = bad[0]
            verdicts.append(Verdict("below_identity", "refuted", "numeric", f"f({a}) = {y.mid().str(6)} > 1 - alpha"))
        elif sym is True:
            verdicts.append(Verdict("below_identity", "proved", "symbolic", "1 - alpha - f >= 0"))
        else:
            verdicts.append(Verdict("below_identity", "not refuted", "numeric", f"f <= 1 - alpha at {len(xs)} points"))

        # non-increasing
        sym = None if opaque else _symbolic(sympy.diff(expr, ALPHA), "is_nonpositive")
        bad = [(a, b) for (a, ya), (b, yb) in zip(zip(xs, ys), list(zip(xs, ys))[1:]) if yb - ya > 0]
        if bad:
            a, b = bad[0]
            verdicts.append(Verdict("non_increasing", "refuted", "numeric", f"f({b}) > f({a})"))
        elif sym is True:
            verdicts.append(Verdict("non_increasing", "proved", "symbolic", "f' <= 0"))
        else:
            verdicts.append(Verdict("non_increasing", "not refuted", "numeric", f"at {len(xs)} points"))

        # convex: every chord of consecutive grid triples lies above the graph
        sym = None if opaque else _symbolic(sympy.diff(expr, ALPHA, 2), "is_nonnegative")
        bad = []
        for i in range(1, len(xs) - 1):
            a, b, c = xs[i - 1], xs[i], xs[i + 1]
            chord = (ys[i - 1] * arb_of_fraction(c - b) + ys[i + 1] * arb_of_fraction(b - a)) / arb_of_fraction(c - a)
            if ys[i] - chord > 0:
                bad.append((a, b, c))
        if bad:
            a, b, c = bad[0]
            verdicts.append(Verdict("convex", "refuted", "numeric", f"f({b}) above the chord from {a} to {c}"))
        elif sym is True:
            verdicts.append(Verdict("convex", "proved", "symbolic", "f'' >= 0"))
        else:
            verdicts.append(Verdict("convex", "not refuted", "numeric", f"chords of {len(xs) - 2} triples"))

        # continuity at the breakpoints of a piecewise form
        verdicts.append(_continuity(pw, syms, args, fn))
    proofs = {} if extreme else _piecewise_proofs(f)  # see `extreme` above
    verdicts = [Verdict(v.property, "proved", "symbolic", proofs[v.property])
                if v.status == "not refuted" and v.property in proofs else v for v in verdicts]
    return ValidityReport(repr(f), tuple(verdicts))


def _continuity(pw: sympy.Expr, syms: tuple, args: list, fn: Any) -> Verdict:
    if not isinstance(pw, sympy.Piecewise):
        return Verdict("continuous", "not refuted", "numeric", "no breakpoints; finite on the grid")
    points = set()
    for _, cond in pw.args:
        for rel in cond.atoms(sympy.core.relational.Relational):
            try:
                sols = sympy.solve(rel.lhs - rel.rhs, ALPHA)
            except SYMPY_GAVE_UP:
                # sympy's simplification can overflow on extreme parameters (eps = 1e19)
                return Verdict("continuous", "not refuted", "numeric", "breakpoints could not be located")
            points.update(sols)
    pieces = [arb_function(e, (ALPHA, *syms)) for e, _ in pw.args]
    checked = 0
    for pnt in points:
        val = arb_function(pnt, tuple(syms))(*args) if pnt.free_symbols else arb_from_exact(pnt) if pnt.is_Rational else None
        if val is None:
            val = arb_function(pnt, ())()
        if not (val > 0 and val < 1):
            continue
        checked += 1
        # a jump: the values just left and right of the breakpoint differ, and the difference does
        # not shrink with the distance (near a steep continuous piece, eps = 81 has slope -e^81,
        # it shrinks in proportion; a bare threshold called that a jump)
        h = flint.arb(2) ** (-(flint.ctx.prec // 4))
        near = h * flint.arb(2) ** -40
        wide = abs(fn(val - h, *args) - fn(val + h, *args))
        close = abs(fn(val - near, *args) - fn(val + near, *args))
        if close > 1024 * near * (1 + abs(fn(val, *args))) and close * 2 > wide:
            return Verdict("continuous", "refuted", "numeric", f"jump at alpha = {val.mid().str(8)}")
    return Verdict("continuous", "not refuted", "numeric", f"no jump at {checked} breakpoints")
