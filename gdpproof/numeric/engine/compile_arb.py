"""The sympy -> arb compiler: any expression of the symbolic layer as a function of arb balls.

:func:`arb_function` compiles an expression once (cached) into a tree of ball operations; the
result contains the exact value at every point of the input balls.  The special functions of
:mod:`gdpproof.symbolic.special` compile to the routines of :mod:`gdpproof.numeric.engine.special`
and :mod:`gdpproof.numeric.tradeoff.envelope`.  The formulas the certified conversions need are also
compiled ahead of time, by the same rules, into :mod:`gdpproof.numeric.engine._kernels`
(:mod:`gdpproof.numeric.engine.codegen`), so that those run without sympy.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

import flint
import sympy

from ..._args import sympy_value
from ...symbolic.special import fold
from ...symbolic.symbols import SYMPY_GAVE_UP
from ._ballfun import arb_erfc, arb_erfcx, relation
from ._mp import arb_from_exact, set_constant_ball
from ..tradeoff.envelope import arb_conjugate, arb_envelope, arb_envelope_slope
from .lambdify_mp import mpmath_function
from .special import compile_special

__all__ = ["arb_function", "arb_erfc", "arb_erfcx"]

ArbFn = Callable[..., flint.arb]
_Node = Callable[[Sequence[flint.arb]], Any]


@functools.lru_cache(maxsize=1024)
def arb_function(expr: sympy.Expr, symbols: tuple[sympy.Symbol, ...]) -> ArbFn:
    """Compile ``expr`` into a function of arb balls for ``symbols`` (cached).

    Every operation is evaluated in ball arithmetic, so the result is a ball that contains the
    exact value at every point of the input balls.  ``Piecewise`` branches whose condition the
    balls cannot decide are all evaluated and their balls joined, which keeps the enclosure
    valid across a breakpoint.
    """
    index = {s: i for i, s in enumerate(symbols)}
    node = _compile(sympy_value(expr), index)

    def fn(*args: flint.arb) -> flint.arb:
        out = node(args)
        return out if isinstance(out, flint.arb) else flint.arb(out)

    return fn


def _const(value: sympy.Expr) -> _Node:
    if value.is_Rational and (int(value.q) & (int(value.q) - 1)) == 0:
        exact_ball = arb_from_exact(value)  # a dyadic rational is exact at every precision
        return lambda env: exact_ball
    return lambda env: arb_from_exact(value)


_UNARY: dict[type, Callable[[flint.arb], flint.arb]] = {
    sympy.exp: lambda a: a.exp(),
    sympy.log: lambda a: a.log(),
    sympy.erf: lambda a: a.erf(),
    sympy.erfc: arb_erfc,
    sympy.erfinv: lambda a: a.erfinv(),
    sympy.erfcinv: lambda a: a.erfcinv(),
    sympy.Abs: lambda a: abs(a),
    sympy.sqrt: lambda a: a.sqrt(),
    sympy.sinh: lambda a: a.sinh(),
    sympy.cosh: lambda a: a.cosh(),
    sympy.tanh: lambda a: a.tanh(),
    sympy.atan: lambda a: a.atan(),
    sympy.sin: lambda a: a.sin(),
    sympy.cos: lambda a: a.cos(),
    sympy.LambertW: lambda a: a.lambertw(),
}


def _compile(e: sympy.Basic, index: dict) -> _Node:
    if e.is_Symbol:
        if e not in index:
            raise TypeError(f"free symbol {e} has no value")
        i = index[e]
        return lambda env: env[i]
    if e.is_Rational or e in (sympy.oo, -sympy.oo):
        return _const(e)
    if isinstance(e, sympy.Float):
        return _const(sympy.Rational(e))
    if e is sympy.pi:
        return lambda env: flint.arb.pi()
    if e is sympy.E:
        return lambda env: flint.arb(1).exp()
    if e is sympy.EulerGamma:
        return lambda env: flint.arb.const_euler()
    if e.is_Add:
        parts = [_compile(a, index) for a in e.args]

        def add(env: Sequence[flint.arb]) -> flint.arb:
            acc = parts[0](env)
            for f in parts[1:]:
                acc = acc + f(env)
            return acc

        return add
    if e.is_Mul:
        parts = [_compile(a, index) for a in e.args]

        def mul(env: Sequence[flint.arb]) -> flint.arb:
            acc = parts[0](env)
            for f in parts[1:]:
                acc = acc * f(env)
            return acc

        return mul
    if e.is_Pow:
        base = _compile(e.base, index)
        ex = e.exp
        if ex == sympy.S.Half:
            return lambda env: base(env).sqrt()
        if ex == -sympy.S.Half:
            return lambda env: base(env).rsqrt()
        if ex.is_Integer:
            n = int(ex)
            if n == -1:
                return lambda env: 1 / base(env)
            return lambda env: base(env) ** n
        expo = _compile(ex, index)
        if e.base is sympy.E:
            return lambda env: expo(env).exp()
        return lambda env: base(env) ** expo(env)
    if type(e).__name__ == "log1p":
        arg = _compile(e.args[0], index)
        return lambda env: arg(env).log1p()
    if type(e).__name__ == "expm1":
        arg = _compile(e.args[0], index)
        return lambda env: arg(env).expm1()
    if type(e).__name__ == "erfcx":
        arg = _compile(e.args[0], index)
        return lambda env: arb_erfcx(arg(env))
    if isinstance(e, sympy.Function) and type(e).__module__.endswith("symbolic.special"):
        node = compile_special(e, index, _compile)
        if node is None:
            node = _compile_envelope(e, index)
        if node is not None:
            return node
    if type(e) in _UNARY:
        op = _UNARY[type(e)]
        arg = _compile(e.args[0], index)
        return lambda env: op(arg(env))
    if isinstance(e, (sympy.Max, sympy.Min)):
        parts = [_compile(a, index) for a in e.args]
        pick = "max" if isinstance(e, sympy.Max) else "min"

        def extremum(env: Sequence[flint.arb]) -> flint.arb:
            acc = parts[0](env)
            for f in parts[1:]:
                acc = getattr(acc, pick)(f(env))
            return acc

        return extremum
    if isinstance(e, sympy.Piecewise):
        branches = [(_compile(v, index), _compile_condition(c, index)) for v, c in e.args]

        def piecewise(env: Sequence[flint.arb]) -> flint.arb:
            joined = None
            for value, cond in branches:
                verdict = cond(env)
                if verdict is False:
                    continue
                v = value(env)
                joined = v if joined is None else joined.union(v)
                if verdict is True:
                    return joined
            if joined is None:
                return flint.arb.nan()
            return joined

        return piecewise
    raise TypeError(f"no ball-arithmetic form for {type(e).__name__}: {e}")


def _compile_condition(c: sympy.Basic, index: dict) -> Callable[[Sequence[flint.arb]], bool | None]:
    """Three-valued condition: True, False, or None when the balls cannot decide."""
    if c is sympy.true:
        return lambda env: True
    if c is sympy.false:
        return lambda env: False
    if isinstance(c, (sympy.And, sympy.Or)):
        parts = [_compile_condition(a, index) for a in c.args]
        # And stops at the first False, Or at the first True; an undecided part leaves None
        stop = not isinstance(c, sympy.And)

        def connective(env: Sequence[flint.arb]) -> bool | None:
            out: bool | None = not stop
            for f in parts:
                v = f(env)
                if v is stop:
                    return stop
                if v is None:
                    out = None
            return out

        return connective
    if isinstance(c, sympy.ITE):
        test, then, other = (_compile_condition(a, index) for a in c.args)

        def ite(env: Sequence[flint.arb]) -> bool | None:
            v = test(env)
            if v is None:
                a, b = then(env), other(env)
                return a if a == b else None
            return then(env) if v else other(env)

        return ite
    if isinstance(c, sympy.Not):
        inner = _compile_condition(c.args[0], index)

        def not_(env: Sequence[flint.arb]) -> bool | None:
            v = inner(env)
            return None if v is None else not v

        return not_
    if isinstance(c, sympy.core.relational.Relational):
        diff = _compile(c.lhs - c.rhs, index)
        rel = c.rel_op
        if rel not in ("<", ">=", ">", "<=", "==", "!="):
            raise TypeError(f"unsupported relation {rel}")
        return lambda env: relation(diff(env), rel)
    raise TypeError(f"no ball-arithmetic form for condition {c}")


_ENVELOPE_NODES = ("symmetrized", "symmetrized_slope", "tradeoff_conjugate", "inverse_conjugate")


def _compile_envelope(e: sympy.Basic, index: dict) -> _Node | None:
    """The ball node of an envelope or conjugate node (:mod:`gdpproof.numeric.tradeoff.envelope`), or None."""
    name = type(e).__name__
    if name not in _ENVELOPE_NODES:
        return None
    (var,) = e.function.variables
    inner = dict(index)
    inner[var] = len(index)
    bodies = e.bodies()
    if any(b.free_symbols - {var} for b in bodies):
        # the solver runs on lambdified mpmath code of the curve alone
        raise TypeError(f"no ball-arithmetic form for {name} of a curve with free parameters: {e.function}")
    h, dh = (_compile(b, inner) for b in bodies[:2])
    v = _compile(e.args[1], index)
    at_zero = _compile(e.args[2], index) if len(e.args) > 2 else None
    ends = _end_slopes(bodies[1], var) if name.endswith("conjugate") else (None, None)

    def mp_functions(ctx: Any) -> tuple:
        return tuple(mpmath_function(b, (var,), ctx) for b in bodies)

    def node(env: Sequence[flint.arb]) -> flint.arb:
        env = tuple(env)
        hf, dhf = (lambda t: h((*env, t))), (lambda t: dh((*env, t)))
        if name in ("tradeoff_conjugate", "inverse_conjugate"):
            slopes = tuple(None if c is None else c(()) for c in ends)
            return arb_conjugate(hf, dhf, mp_functions, v(env), name == "inverse_conjugate", slopes)
        a = v(env)
        if at_zero is not None and a.is_exact() and a.is_zero():
            return at_zero(env)
        run = arb_envelope if name == "symmetrized" else arb_envelope_slope
        return run(hf, dhf, mp_functions, a)

    return node


def _end_slopes(slope: sympy.Expr, var: sympy.Symbol) -> tuple:
    """h'(0) and h'(1) as ball nodes, from the slope's formula simplified before substitution
    (None where that gives no finite number).

    Formulas such as e (1 - t)^e / (1 - t) are 0/0 at an end in any arithmetic; collected into
    e (1 - t)^(e - 1) (powsimp) they are not.  The value decides whether an end maximises a conjugate
    exactly.  (sympy's limit would do more, but takes seconds on erfcinv forms.)
    """
    out = []
    for point in (0, 1):
        found = None
        for form in (lambda e: e, sympy.powsimp, lambda e: sympy.powsimp(sympy.cancel(e))):
            try:
                value = fold(form(slope).xreplace({var: sympy.Integer(point)}))
                if isinstance(value, sympy.Piecewise):
                    value = value.doit()
            except SYMPY_GAVE_UP:
                continue
            if value.is_number and value.is_finite is True and value.is_real:
                found = _compile(value, {})
                break
        out.append(found)
    return tuple(out)


def _constant_ball(value: sympy.Expr) -> flint.arb:
    return arb_function(value, ())()


set_constant_ball(_constant_ball)


def outward(name: str, value: Any, up: bool) -> Any:
    """An irrational real constant (log(3)) as a rational within a relative 2^-250 of it, above it
    with ``up`` (else below), with a :class:`~gdpproof.errors.RoundedArgumentWarning`: for the
    solvers, which bisect in rationals, on the side that only overstates the privacy loss.  Any
    other value (a rational, a symbol, a non-real) is returned as it is, for the gates to judge."""
    if getattr(value, "is_Rational", True) or not getattr(value, "is_number", False) \
            or value.is_real is not True or value.is_infinite:
        return value
    import warnings

    from ...errors import RoundedArgumentWarning
    from ._mp import rational_enclosure

    lo, hi = rational_enclosure(value)
    warnings.warn(RoundedArgumentWarning(
        f"{name}={value} is irrational: taken as a rational within a relative 2^-250 {'above' if up else 'below'} "
        "it, the side that only overstates the privacy loss; the result is a bound on the exact one, its last "
        "digit possibly one unit off the correctly rounded value"), stacklevel=4)
    return hi if up else lo
