"""Special functions sympy lacks, defined for the numerically safer forms of the formulas."""

from __future__ import annotations

from collections.abc import Callable

import sympy
from sympy import S, erfc, exp, pi, sqrt

__all__ = ["erfcx", "fold", "held", "apply_at", "implicit_inverse", "symmetrized", "symmetrized_slope",
           "tradeoff_conjugate",
           "inverse_conjugate", "rr_composed", "rr_composed_slope", "rr_composed_delta"]


class erfcx(sympy.Function):
    r"""The scaled complementary error function, erfcx(z) = e^{z^2} erfc(z).

    erfc(z) underflows for z > 27 in double precision and loses relative accuracy in some ball
    libraries; erfcx(z) ~ 1/(z sqrt(pi)) is of moderate size for every z >= 0, so formulas
    rewritten through it neither underflow nor cancel in their exponential factors.  Its
    ``rewrite(erfc)`` form is how derivations prove such rewrites equal to the textbook forms.
    """

    nargs = 1

    @classmethod
    def eval(cls, z: sympy.Expr) -> sympy.Expr | None:
        if z is S.Zero:
            return S.One
        if z is S.Infinity:
            return S.Zero
        return None

    def fdiff(self, argindex: int = 1) -> sympy.Expr:
        z = self.args[0]
        return 2 * z * erfcx(z) - 2 / sqrt(pi)

    def _eval_rewrite_as_erfc(self, z: sympy.Expr, **kwargs: object) -> sympy.Expr:
        return exp(z**2) * erfc(z)

    def _eval_is_positive(self) -> bool | None:
        return True if self.args[0].is_real else None


class _CurveNode(sympy.Function):
    """A function of a trade-off curve ``Lambda(t, h(t))`` and one number, evaluated numerically.

    The printers pass h, h' and h'' as lambdas, so the numeric layer's routine (named like the
    class) gets everything it needs; in ball arithmetic :mod:`gdpproof.numeric.engine.special` compiles
    the same three bodies.
    """

    nargs: int | tuple[int, ...] = 2

    @classmethod
    def eval(cls, h: sympy.Basic, v: sympy.Expr) -> sympy.Expr | None:
        if not isinstance(h, sympy.Lambda) or len(h.variables) != 1:
            raise TypeError(f"{cls.__name__} needs a one-variable Lambda, got {h}")
        return None

    def _eval_is_real(self) -> bool:
        return True

    @property
    def function(self) -> sympy.Lambda:
        return self.args[0]

    def bodies(self) -> tuple[sympy.Expr, sympy.Expr, sympy.Expr]:
        """h, h' and h'' as expressions in the Lambda's variable."""
        (var,) = self.function.variables
        body = self.function.expr
        d1 = sympy.diff(body, var)
        return body, d1, sympy.diff(d1, var)

    def _code(self, printer: object) -> str:
        (var,) = self.function.variables
        name = printer._print(var)  # type: ignore[attr-defined]
        parts = ", ".join(f"lambda {name}: ({printer._print(b)})" for b in self.bodies())  # type: ignore[attr-defined]
        return f"{type(self).__name__}({parts}, {printer._print(self.args[1])})"  # type: ignore[attr-defined]

    _mpmathcode = _code
    _pythoncode = _code
    _numpycode = _code


class implicit_inverse(_CurveNode):
    r"""inf{t in [0, 1] : g(t) <= v} for a continuous non-increasing g on [0, 1].

    ``implicit_inverse(Lambda(t, g(t)), v)`` is the generalised inverse used for trade-off
    functions with no closed-form inverse, such as (p G_mu + (1 - p) Id)^{-1} in subsampling.
    Its derivative in v is 1/g'(t) at the root.  The numeric layer evaluates it by a
    safeguarded Newton iteration: in ball arithmetic the result is an enclosure of the root
    (two certified sign checks of g(t) - v), in mpmath and numpy an approximation.
    """

    nargs = 2

    @classmethod
    def eval(cls, g: sympy.Basic, v: sympy.Expr) -> sympy.Expr | None:
        super().eval(g, v)
        if v.is_number and not v.free_symbols and not g.expr.free_symbols - set(g.variables):
            # exact ends: g(0) <= v gives 0 (for trade-off curves: v >= f_p(0))
            g0 = g(S.Zero)
            if g0.is_number and sympy.Le(g0, v) is sympy.true:
                return S.Zero
        return None

    def _eval_is_nonnegative(self) -> bool:
        return True

    def derivative_function(self) -> sympy.Lambda:
        """g' as a Lambda in the same variable."""
        (var,) = self.function.variables
        return sympy.Lambda(var, sympy.diff(self.function.expr, var))

    def fdiff(self, argindex: int = 2) -> sympy.Expr:
        if argindex != 2:
            raise sympy.ArgumentIndexError(self, argindex)
        # g'(root), kept unevaluated: substituting the root into a piecewise g' would let sympy
        # fold conditions on the bound variable out of the Lambda
        return 1 / apply_at(self.derivative_function(), self)

    def _code(self, printer: object) -> str:
        (var,) = self.function.variables
        name = printer._print(var)  # type: ignore[attr-defined]
        body = printer._print(self.function.expr)  # type: ignore[attr-defined]
        dbody = printer._print(self.derivative_function().expr)  # type: ignore[attr-defined]
        value = printer._print(self.args[1])  # type: ignore[attr-defined]
        return f"implicit_inverse(lambda {name}: ({body}), lambda {name}: ({dbody}), {value})"

    _mpmathcode = _code
    _pythoncode = _code
    _numpycode = _code


class symmetrized(_CurveNode):
    r"""min{h, h^{-1}}**(v): the lower convex envelope of a trade-off curve h and its inverse.

    ``symmetrized(Lambda(t, h(t)), v)`` for h convex, continuous, non-increasing on [0, 1] with
    h(1) = 0 and h(0) <= 1 (a trade-off curve such as f_p = p f + (1 - p) Id) is DRS's Symm(h),
    and C_p(f) = symmetrized(f_p) (Thm 4.2).  An optional third argument is the exact value at
    v = 0, min{h(0), h^{-1}(0)}, when the caller knows it (for f_p with p < 1 it is f_p(0)).  It has no closed form for a curved h that is not
    symmetric; :mod:`gdpproof.numeric.tradeoff.envelope` encloses it between a supporting line of the
    conjugate (below) and values and chords of min{h, h^{-1}} (above).  Its derivative in v is
    :class:`symmetrized_slope`.
    """

    nargs = (2, 3)

    @classmethod
    def eval(cls, h: sympy.Basic, v: sympy.Expr, at_zero: sympy.Expr | None = None) -> sympy.Expr | None:
        super().eval(h, v)
        if v is S.One:
            return S.Zero  # min{h(1), h^{-1}(1)} = 0, and the envelope is squeezed to 0 there
        if v is S.Zero and at_zero is not None:
            return at_zero  # min{h(0), h^{-1}(0)}, when the caller knows it exactly
        return None

    def _eval_is_nonnegative(self) -> bool:
        return True

    def fdiff(self, argindex: int = 2) -> sympy.Expr:
        if argindex != 2:
            raise sympy.ArgumentIndexError(self, argindex)
        return symmetrized_slope(*self.args[:2])


class symmetrized_slope(_CurveNode):
    """The derivative in v of :class:`symmetrized` (a subgradient where it has a kink)."""


class tradeoff_conjugate(_CurveNode):
    r"""h*(y) = sup_{t in [0, 1]} (y t - h(t)), the convex conjugate of a trade-off curve h.

    ``tradeoff_conjugate(Lambda(t, h(t)), y)``; with :class:`inverse_conjugate` it gives the
    delta(epsilon) curve of symmetrized(h): 1 + max(h*(-e^eps), (h^{-1})*(-e^eps)) (the
    conjugate of a minimum is the maximum of the conjugates).
    """


class inverse_conjugate(_CurveNode):
    r"""(h^{-1})*(y) = sup_{t in [0, 1]} (y h(t) - t) for y < 0: the conjugate of the inverse.

    Every x in [0, h(0)] is h(t) for t = h^{-1}(x), and x > h(0) only lowers y x, so the
    supremum over x of y x - h^{-1}(x) is this one over t; it needs no inverse.
    """


#: Exact rational evaluation of the binomial curves is done up to this n (cost O(n) rationals).
EXACT_RR_LIMIT = 1000


def _rational_rr(n: sympy.Expr, eps: sympy.Expr) -> tuple[int, sympy.Rational] | None:
    """(n, e^eps) when n is a modest integer and e^eps is rational, else None."""
    if not (n.is_Integer and 1 <= int(n) <= EXACT_RR_LIMIT) or not eps.is_number or eps.free_symbols:
        return None
    e = sympy.exp(eps)
    if not e.is_Rational:
        return None
    return int(n), sympy.Rational(e)


class apply_at(_CurveNode):
    """``apply_at(Lambda(t, h(t)), x)`` = h(x), kept unevaluated (for the derivative of an implicit inverse)."""

    def fdiff(self, argindex: int = 2) -> sympy.Expr:
        if argindex != 2:
            raise sympy.ArgumentIndexError(self, argindex)
        (var,) = self.function.variables
        return apply_at(sympy.Lambda(var, sympy.diff(self.function.expr, var)), self.args[1])

    def _code(self, printer: object) -> str:
        (var,) = self.function.variables
        name = printer._print(var)  # type: ignore[attr-defined]
        body = printer._print(self.function.expr)  # type: ignore[attr-defined]
        return f"(lambda {name}: ({body}))({printer._print(self.args[1])})"  # type: ignore[attr-defined]

    _mpmathcode = _code
    _pythoncode = _code
    _numpycode = _code


class rr_composed(sympy.Function):
    r"""The n-fold composition of randomized response f_{eps,0}, at alpha.

    The trade-off between Binomial(n, e^eps/(1+e^eps)) and Binomial(n, 1/(1+e^eps)) (Dong–Roth–Su
    §3.1): the Neyman–Pearson tests reject for fewer than j successes, giving the vertices
    (alpha_j, beta_j) = (P(K < j), Q(K >= j)), j = 0..n+1, joined by segments of slope
    -e^{eps(n - 2j)}.  Arguments: n, eps, alpha.
    """

    nargs = 3

    @classmethod
    def eval(cls, n: sympy.Expr, eps: sympy.Expr, a: sympy.Expr) -> sympy.Expr | None:
        if a.is_Rational and n.is_Integer and (a == 0 or a == 1):
            return S.One if a == 0 else S.Zero  # f(0) = 1, f(1) = 0 for every n and eps
        parts = _rational_rr(n, eps)
        if parts is None or not a.is_Rational:
            return None
        k, e = parts
        a = sympy.Rational(a)
        if not 0 <= a <= 1:
            return None
        # walk the vertices (P(K < j), Q(K >= j)) in exact rationals
        q1 = e / (1 + e)
        q0 = 1 - q1
        acc_a, acc_b = sympy.Integer(0), sympy.Integer(1)
        for j in range(k + 1):
            pj = sympy.binomial(k, j) * q1**j * q0 ** (k - j)
            if acc_a + pj >= a:
                return acc_b - (a - acc_a) * e ** (k - 2 * j)
            acc_a += pj
            acc_b -= sympy.binomial(k, j) * q0**j * q1 ** (k - j)
        return sympy.Integer(0)

    def fdiff(self, argindex: int = 3) -> sympy.Expr:
        if argindex != 3:
            raise sympy.ArgumentIndexError(self, argindex)
        return -rr_composed_slope(*self.args)


class rr_composed_slope(sympy.Function):
    """|f'(alpha)| = e^{eps(n - 2j)} on the segment j of :class:`rr_composed` (n, eps, alpha).

    A step function: its derivative is 0 between the vertices, which is what ``diff`` returns
    (numeric code needs it); the jumps, which make the curve convex, are not represented, so
    :func:`gdpproof.check_tradeoff` never builds a symbolic proof on it.
    """

    nargs = 3

    def fdiff(self, argindex: int = 3) -> sympy.Expr:
        return S.Zero


class rr_composed_delta(sympy.Function):
    r"""delta(eps') of the n-fold randomized response composition (n, eps, eps').

    delta(eps') = sum_k max(0, Q(k) - e^{eps'} P(k)) = Q(K < J) - e^{eps'} P(K < J) with
    J = #{k : eps (n - 2k) > eps'} (Kairouz, Oh & Viswanath 2015; Dong–Roth–Su Prop. 2.12).
    """

    nargs = 3

    @classmethod
    def eval(cls, n: sympy.Expr, eps: sympy.Expr, eps_prime: sympy.Expr) -> sympy.Expr | None:
        if n.is_Integer and eps.is_number and eps_prime.is_number and sympy.Ge(eps_prime, n * eps) is sympy.true:
            return S.Zero  # eps' >= n eps: the composition is (n eps)-DP
        parts = _rational_rr(n, eps)
        if parts is None or not eps_prime.is_number or eps_prime.free_symbols:
            return None
        ep = sympy.exp(eps_prime)
        if not ep.is_Rational:
            return None
        k, e = parts
        q1 = e / (1 + e)
        q0 = 1 - q1
        total = sympy.Integer(0)
        for j in range(k + 1):
            c = sympy.binomial(k, j)
            total += sympy.Max(0, c * q0**j * q1 ** (k - j) - ep * c * q1**j * q0 ** (k - j))
        return total


def held(expr: sympy.Expr, operation: Callable[[sympy.Expr], sympy.Expr]) -> sympy.Expr:
    """``operation(expr)`` with every :class:`implicit_inverse` held out of its reach.

    sympy's piecewise_fold and rewrite(Piecewise) descend into function arguments, including
    the Lambda of an implicit inverse, whose conditions are on the bound variable: folding them
    outside would be wrong (and rewrite can crash).  The inverses are replaced by placeholders
    while ``operation`` runs.
    """
    inverses = (expr.atoms(implicit_inverse, apply_at, symmetrized, symmetrized_slope, tradeoff_conjugate,
                           inverse_conjugate)
                if isinstance(expr, sympy.Basic) else set())
    if not inverses:
        return operation(expr)
    # the conjugate and the slope are not signed like a root: hold them as plain reals
    hold = {e: sympy.Dummy("inv", real=True) if isinstance(e, (tradeoff_conjugate, inverse_conjugate, symmetrized_slope))
            else sympy.Dummy("inv", nonnegative=True) for e in inverses}
    out = operation(expr.xreplace(hold))
    return out.xreplace({d: e for e, d in hold.items()})


def fold(expr: sympy.Expr) -> sympy.Expr:
    """``sympy.piecewise_fold`` that leaves implicit inverses alone (see :func:`held`)."""
    return held(expr, sympy.piecewise_fold)
