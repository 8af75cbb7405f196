"""The one compiler (gdpproof/numeric/engine/compiler.py): each rule of each target against mpmath.

The generated kernels are compared with the run-time compilation in test_kernels.py and
test_loss_kernels.py; both print with the same rules, so here every rule is checked on its own:
each arb rule's ball contains mpmath's value at 60 digits, each float64 rule is within 1e-13 of it,
and the three-valued conditions join the branches the balls cannot decide.  Cost: about 0.3 s.
"""

from __future__ import annotations

import math

import flint
import pytest
import sympy

from gdpproof.numeric.engine import compiler
from gdpproof.numeric.engine._ballfun import erfcx_float
from gdpproof.numeric.engine._mp import arb_precision, private_context

x, y = sympy.symbols("x y", real=True)

#: points inside each function's domain
POINTS = {sympy.log: (0.25, 3.5), sympy.erfinv: (-0.5, 0.75), sympy.erfcinv: (0.2, 1.5), sympy.LambertW: (0.5, 7.0)}


def _mp_value(expr: sympy.Expr, v: float) -> str:
    """mpmath's value at 60 digits, as 55 significant digits."""
    with private_context(60) as ctx:
        return ctx.nstr(compiler.mpmath_function(expr, (x,), ctx)(ctx.mpf(v)), 55)


@pytest.mark.parametrize("fn", list(compiler.ARB_RULES), ids=lambda f: f.__name__)
def test_each_arb_rule_encloses_the_value(fn):
    expr = fn(x)
    f = compiler.arb_function(expr, (x,))
    for v in POINTS.get(fn, (-0.75, 0.5, 2.0)):
        exact = _mp_value(expr, v)
        with arb_precision(128):
            ball = f(flint.arb(v))
        assert ball.rad() < 1e-30 * max(1, abs(float(ball.mid()))), (fn, v, ball)  # a ball of 128 bits, not nan
        with arb_precision(256):  # exact within 1e-54 relative, far inside the ball's radius
            assert ball.contains(flint.arb(exact)), (fn, v, ball, exact)


def _float_function(expr: sympy.Expr) -> object:
    printer = compiler.Printer((x,), False, {})
    namespace = {"math": math, "erfcx_float": erfcx_float}
    exec(compile(printer.function("f", [expr]), "<test>", "exec"), namespace)  # noqa: S102 - the printer's own text
    return namespace["f"]


@pytest.mark.parametrize("fn", list(compiler.FLOAT_RULES), ids=lambda f: f.__name__)
def test_each_float_rule_is_close_to_the_value(fn):
    expr = fn(x)
    f = _float_function(expr)
    for v in POINTS.get(fn, (-0.75, 0.5, 2.0)):
        assert math.isclose(f(v), float(_mp_value(expr, v)), rel_tol=1e-13, abs_tol=1e-300), (fn, v)


def test_an_undecided_condition_joins_its_branches():
    # And, Or, Not and ITE decide as the balls allow; undecided, both branches are joined
    conds = [sympy.And(x > 0, y > 0), sympy.Or(x > 0, y > 0), sympy.Not(x > 0), sympy.ITE(x > 0, y > 0, y < 0)]
    for cond in conds:
        f = compiler.arb_function(sympy.Piecewise((x + 10, cond), (x - 10, True)), (x, y))
        for xv, yv in [(1, 1), (1, -1), (-1, 1), (-1, -1)]:
            want = float(sympy.Piecewise((xv + 10, cond.subs({x: xv, y: yv})), (xv - 10, True)))
            assert f(flint.arb(xv), flint.arb(yv)) == flint.arb(want), (cond, xv, yv)
        wide = f(flint.arb(0, 2), flint.arb(0, 2))  # x and y in [-2, 2]: every condition undecided
        assert wide.contains(flint.arb(-11)) and wide.contains(flint.arb(11)), (cond, wide)


def test_a_free_symbol_without_a_value_is_refused():
    with pytest.raises(TypeError, match="free symbol y has no value"):
        compiler.arb_function(x + y, (x,))
    with pytest.raises(TypeError, match="no arb form for gamma"):
        compiler.arb_function(sympy.gamma(x), (x,))


def test_float_values_skip_what_is_undefined():
    assert compiler.float_values(sympy.log(x), x, [math.e, 0.0, -1.0]) == [1.0, None, None]
    assert compiler.float_values(sympy.log(sympy.sin(x)), x, [math.pi / 2, -1.0]) == [0.0, None]  # mpmath


def test_a_piecewise_of_many_pieces_compiles():
    # the pieces are printed at one depth: a nested form meets Python's 100 indentation levels
    pw = sympy.Piecewise(*[(x + i, x < i) for i in range(150)], (x, True))
    f = compiler.arb_function(pw, (x,))
    assert f(flint.arb(100.5)) == flint.arb(201.5) and f(flint.arb(200)) == flint.arb(200)
    both = f(flint.arb(100, 0.5))  # x in [99.5, 100.5]: x < 100 undecided, x < 101 true
    assert both.contains(flint.arb(199.5)) and both.contains(flint.arb(201.5))


def test_no_text_of_the_expression_reaches_the_code():
    # symbols are printed as x0, x1, ...; numbers as integers; functions from the rule tables only
    payload = sympy.Symbol('__import__("os").system("false")')
    printer = compiler.Printer((payload,), True, {})
    source = printer.function("f", [sympy.exp(payload) + sympy.Rational(1, 3) + sympy.Float("0.1")])
    assert "import" not in source and "os" not in source
    assert compiler.arb_function(sympy.exp(payload), (payload,))(flint.arb(0)) == 1
