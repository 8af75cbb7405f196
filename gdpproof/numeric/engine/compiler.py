"""The one sympy -> code compiler: every expression the engines evaluate is compiled here.

Targets, one rule table each: arb balls (:data:`ARB_RULES`, printed as Python on python-flint),
float64 ``math`` (:data:`FLOAT_RULES`), double-double float64 (:func:`dd_function_source`, the
operations of :mod:`~gdpproof.numeric.engine.ddfloat`), mpmath and numpy/scipy (sympy's ``lambdify``
printers, names resolved in :func:`mpmath_namespace` and the special functions' numpy namespaces)
and complex balls (:func:`acb_printer`, the loss integrands).  :mod:`gdpproof.numeric.engine.codegen` writes what
:class:`Printer` prints into the generated kernel modules; :func:`arb_function` compiles the same
printed text at run time for expressions known only then (an arbitrary curve, the discrete families,
the finite routes), so a generated kernel and a run-time compilation perform the same ball
operations.  Nothing else in gdpproof calls ``lambdify`` or ``compile`` (tests/test_import_graph.py).
Why the balls enclose the exact values: docs/how-it-works.md, "Ball arithmetic".
"""

from __future__ import annotations

import functools
import inspect
import math
import types
from collections.abc import Callable, Sequence
from typing import Any

import flint
import sympy
from sympy.codegen.cfunctions import expm1, log1p

from ..._args import sympy_value
from ...symbolic.special import erfcx, fold
from ...symbolic.symbols import SYMPY_GAVE_UP
from ..tradeoff.envelope import arb_conjugate, arb_envelope, arb_envelope_slope
from ..tradeoff.envelope import mpmath_namespace as envelope_mpmath
from ..tradeoff.envelope import numpy_namespace as envelope_numpy
from ._ballfun import ERFC_NATIVE_BALL, arb_erfc, arb_erfcx, erfcx_float, relation
from ._mp import mp_erfcinv, set_constant_ball
from .special import compile_special
from .special import mpmath_namespace as special_mpmath
from .special import numpy_namespace as special_numpy

__all__ = ["ARB_RULES", "FLOAT_RULES", "Printer", "arb_function", "mpmath_function", "numpy_function", "float_values",
           "dd_function_source"]

#: The arb target: a function of one argument -> the code of its ball (``{0}``: the argument's ball).
#: erfc: arb's own where it keeps full relative accuracy (arb_erfc's first test, without its call).
ARB_RULES: dict[type, str] = {
    sympy.exp: "{0}.exp()", sympy.log: "{0}.log()", sympy.erf: "{0}.erf()",
    sympy.erfc: "{0}.erfc() if {0} < ERFC_NATIVE_BALL else arb_erfc({0})", sympy.erfinv: "{0}.erfinv()",
    sympy.erfcinv: "{0}.erfcinv()", sympy.Abs: "abs({0})", sympy.sinh: "{0}.sinh()",
    sympy.cosh: "{0}.cosh()", sympy.tanh: "{0}.tanh()", sympy.atan: "{0}.atan()", sympy.sin: "{0}.sin()",
    sympy.cos: "{0}.cos()", sympy.LambertW: "{0}.lambertw()", log1p: "{0}.log1p()", expm1: "{0}.expm1()",
    erfcx: "arb_erfcx({0})",
}
#: The float64 target (estimates only: Newton starts): the same, in the standard library's math.
FLOAT_RULES: dict[type, str] = {
    sympy.exp: "math.exp({0})", sympy.log: "math.log({0})", sympy.erf: "math.erf({0})", sympy.erfc: "math.erfc({0})",
    sympy.Abs: "abs({0})", log1p: "math.log1p({0})", expm1: "math.expm1({0})", erfcx: "erfcx_float({0})",
}
#: Names the printed arb code uses, bound when it is compiled at run time (the generated modules
#: import the same names).
_ARB_NAMES = {"flint": flint, "arb_erfc": arb_erfc, "arb_erfcx": arb_erfcx, "relation": relation,
              "ERFC_NATIVE_BALL": ERFC_NATIVE_BALL}
_ENVELOPE_NODES = ("symmetrized", "symmetrized_slope", "tradeoff_conjugate", "inverse_conjugate")


class Printer:
    """Straight-line Python for expressions of ``symbols`` (named ``x0, x1, ...``).

    Args:
        symbols: The arguments, in order.
        arb: Ball code (:data:`ARB_RULES`) or float64 code (:data:`FLOAT_RULES`).
        constants: Collects the dyadic constants (module-level name -> source; exact at every
            precision, made once); shared by the functions of one generated module.
        hoisted: Generator only: collects the symbol-free subexpressions that cost ball
            operations (sqrt(2)/2), key -> (function name, source); the code takes their ball
            from a per-precision cache, which holds the ball the same operations give.
        nodes: Run time only: collects the special functions of :mod:`gdpproof.symbolic.special`
            that are solvers rather than formulas, as callables of the argument balls.
        rules: Generator only: rules replacing those of the target's table for some functions
            (erfc at a precision of its own, :func:`gdpproof.numeric.engine._ballfun.erfc_at`).
        lean: Generator only (arb): sums and products in fewer ball operations
            (:meth:`_lean`), for the kernels of a hot path.

    Examples:
        >>> import sympy
        >>> x = sympy.Symbol("x")
        >>> print(Printer((x,), True, {}).function("f", [sympy.exp(x) + 1]), end="")
        def f(x0):
            t0 = x0.exp()
            t1 = _C_1_1 + t0
            return (t1 if isinstance(t1, flint.arb) else flint.arb(t1))
    """

    def __init__(self, symbols: tuple[sympy.Symbol, ...], arb: bool, constants: dict[str, str],
                 hoisted: dict[str, tuple[str, str]] | None = None, nodes: dict[str, Any] | None = None,
                 rules: dict[type, str] | None = None, lean: bool = False) -> None:
        self.symbols = symbols
        self.lean = lean and arb and hoisted is not None
        self.args = {s: f"x{i}" for i, s in enumerate(symbols)}
        self.arb = arb
        self.rules = {**(ARB_RULES if arb else FLOAT_RULES), **(rules or {})}
        self.constants = constants
        self.hoisted = hoisted
        self.nodes = nodes
        #: name -> (p, q) of each dyadic constant this printer named (run time binds their balls)
        self.dyadic: dict[str, tuple[int, int]] = {}
        self.lines: list[str] = []
        self.count = 0
        #: code -> temporary in scope: a repeated subexpression (sqrt(2), 1/mu) is computed once
        #: (arb operations are deterministic, so the ball is the same).  A branch of a Piecewise
        #: sees the temporaries computed before it, and its own are forgotten after it.
        self.seen: dict[str, str] = {}

    def _tmp(self, code: str, indent: int) -> str:
        if code in self.seen:
            return self.seen[code]
        name = f"t{self.count}"
        self.count += 1
        self.lines.append("    " * indent + f"{name} = {code}")
        self.seen[code] = name
        return name

    def _branch(self, e: sympy.Basic, indent: int, condition: bool = False) -> str:
        """``expr`` (or a condition) inside a conditional block: its temporaries go out of scope after it."""
        outer = dict(self.seen)
        try:
            return self._condition(e, indent) if condition else self.expr(e, indent)
        finally:
            self.seen = outer

    def _constant(self, value: sympy.Expr, indent: int) -> str:
        if not self.arb:
            if value is sympy.oo:
                return "math.inf"
            if value is -sympy.oo:
                return "-math.inf"
            return repr(float(value)) if not value.is_Integer else f"{int(value)}.0"
        if value is sympy.oo or value is -sympy.oo:
            return self._tmp('flint.arb("inf")' if value is sympy.oo else 'flint.arb("-inf")', indent)
        p, q = int(value.p), int(value.q)
        ball = f"flint.arb({p})" if q == 1 else f"flint.arb(flint.fmpq({p}, {q}))"
        if (q & (q - 1)) == 0 and abs(p).bit_length() <= 53 and q.bit_length() <= 64:
            name = f"_C_{'m' if p < 0 else ''}{abs(p)}_{q}"  # a dyadic rational: exact at every precision
            self.constants[name] = ball
            self.dyadic[name] = (p, q)
            return name
        return self._tmp(ball, indent)

    def _hoist(self, key: str, parts: list[sympy.Basic], op: str, indent: int) -> str:
        """The ball of ``parts`` joined by ``op`` in order (one subexpression when a single
        part), computed once per precision by a module-level function."""
        assert self.hoisted is not None
        if key not in self.hoisted:
            sub = Printer((), True, self.constants, None)
            codes = [sub.expr(p, 1) for p in parts]
            acc = codes[0]
            for code in codes[1:]:
                acc = sub._tmp(f"{acc}{op}{code}", 1)
            name = f"_K{len(self.hoisted)}"
            body = [f"def {name}() -> flint.arb:", f'    """{key} at the current precision."""']
            body += sub.lines + [f"    return {acc}"]
            self.hoisted[key] = (name, "\n".join(body))
        return self._tmp(f"_at_precision({self.hoisted[key][0]})", indent)

    def _costs(self, e: sympy.Basic) -> bool:
        """Whether e is symbol-free and needs arb operations (not a plain or infinite constant)."""
        return not e.free_symbols and not (e.is_Rational or e in (sympy.oo, -sympy.oo) or isinstance(e, sympy.Float))

    def _fold(self, parts: list[str], template: str, indent: int) -> str:
        acc = parts[0]
        for part in parts[1:]:
            acc = self._tmp(template.format(acc, part), indent)
        return acc

    def expr(self, e: sympy.Basic, indent: int = 1) -> str:
        """The name (or literal) holding the value of ``e``; the lines computing it are appended."""
        if self.arb and self.hoisted is not None and self._costs(e):
            return self._hoist(str(e), [e], "", indent)
        if e.is_Symbol:
            if e not in self.args:
                raise TypeError(f"free symbol {e} has no value")
            return self.args[e]
        if e.is_Rational or e in (sympy.oo, -sympy.oo):
            return self._constant(e, indent)
        if isinstance(e, sympy.Float):
            return self._constant(sympy.Rational(e), indent)
        if e is sympy.pi:
            return self._tmp("flint.arb.pi()", indent) if self.arb else "math.pi"
        if e is sympy.E:
            return self._tmp("flint.arb(1).exp()", indent) if self.arb else "math.e"
        if e is sympy.EulerGamma and self.arb:
            return self._tmp("flint.arb.const_euler()", indent)
        if (e.is_Add or e.is_Mul) and self.lean:
            code = self._lean(e, indent)
            if code is not None:
                return code
        if e.is_Add or e.is_Mul:
            op = " + " if e.is_Add else " * "
            args = list(e.args)
            lead = 0
            while lead < len(args) and not args[lead].free_symbols:
                lead += 1
            if self.arb and self.hoisted is not None and lead >= 2:
                # a symbol-free leading run (1/2 * sqrt(2)): its partial result from the cache
                key = op.strip().join(f"({a})" for a in args[:lead])
                parts = [self._hoist(key, args[:lead], op, indent)] + [self.expr(a, indent) for a in args[lead:]]
            else:
                parts = [self.expr(a, indent) for a in args]
            return self._fold(parts, "{0}" + op + "{1}", indent)
        if e.is_Pow:
            return self._pow(e, indent)
        if type(e) in self.rules:
            return self._tmp(self.rules[type(e)].format(self.expr(e.args[0], indent)), indent)
        if isinstance(e, (sympy.Max, sympy.Min)):
            pick = "max" if isinstance(e, sympy.Max) else "min"
            parts = [self.expr(a, indent) for a in e.args]
            return self._fold(parts, "{0}." + pick + "({1})" if self.arb else pick + "({0}, {1})", indent)
        if isinstance(e, sympy.Piecewise):
            outer = dict(self.seen)  # conditions after the first are computed inside blocks
            try:
                return self._piecewise(e, indent)
            finally:
                self.seen = outer
        if self.arb and self.nodes is not None and isinstance(e, sympy.Function):
            node = compile_special(e, self._index(), _node) or _compile_envelope(e, self._index())
            if node is not None:
                name = f"_n{len(self.nodes)}"
                self.nodes[name] = node
                return self._tmp(f"{name}(({''.join(a + ', ' for a in self.args.values())}))", indent)
        raise TypeError(f"the compiler has no {'arb' if self.arb else 'float64'} form for {type(e).__name__}: {e}")

    def _lean(self, e: sympy.Expr, indent: int) -> str | None:
        """A sum or product in fewer ball operations than term by term: terms with a minus sign
        subtracted (eps/mu - mu/2 shares mu/2 with eps/mu + mu/2), a factor 1/x as a division
        (one rounding, not two), the rational and symbol-free factors as one constant (hoisted
        when it costs operations).  None when that form does not apply (no positive term, no
        factor with symbols): then the plain printing."""
        if e.is_Add:
            pos = [t for t in e.args if not t.could_extract_minus_sign()]
            neg = [-t for t in e.args if t.could_extract_minus_sign()]
            if not pos:
                return None
            acc = self.expr(pos[0], indent)
            for t in pos[1:]:
                acc = self._tmp(f"{acc} + {self.expr(t, indent)}", indent)
            for t in neg:
                acc = self._tmp(f"{acc} - {self.expr(t, indent)}", indent)
            return acc
        rational = [a for a in e.args if a.is_Rational]
        fixed = [a for a in e.args if not a.free_symbols and not a.is_Rational]
        den = [a.base for a in e.args if a.is_Pow and a.exp == -1 and a.base.free_symbols]
        num = [a for a in e.args if a.free_symbols and not (a.is_Pow and a.exp == -1)]
        if not num:
            return None
        acc = self._fold([self.expr(a, indent) for a in num], "{0} * {1}", indent)
        for d in den:
            acc = self._tmp(f"{acc} / {self.expr(d, indent)}", indent)
        coeff = sympy.Mul(*rational)
        if fixed:
            parts = ([coeff] if coeff != 1 else []) + fixed
            key = "*".join(f"({a})" for a in parts)
            factor = self._hoist(key, parts, " * ", indent) if len(parts) > 1 else self.expr(parts[0], indent)
        elif coeff != 1:
            factor = self._constant(coeff, indent)
        else:
            return acc
        return self._tmp(f"{factor} * {acc}", indent)

    def _index(self) -> dict[sympy.Symbol, int]:
        return {s: i for i, s in enumerate(self.symbols)}

    def _pow(self, e: sympy.Pow, indent: int) -> str:
        ex = e.exp
        if e.base is sympy.E and not (ex == sympy.S.Half or ex == -sympy.S.Half or ex.is_Integer):
            arg = self.expr(ex, indent)
            return self._tmp(f"{arg}.exp()" if self.arb else f"math.exp({arg})", indent)
        base = self.expr(e.base, indent)
        if ex == sympy.S.Half:
            return self._tmp(f"{base}.sqrt()" if self.arb else f"math.sqrt({base})", indent)
        if ex == -sympy.S.Half:
            return self._tmp(f"{base}.rsqrt()" if self.arb else f"1 / math.sqrt({base})", indent)
        if ex.is_Integer:
            n = int(ex)
            return self._tmp(f"1 / {base}" if n == -1 else f"{base} ** {n}", indent)
        return self._tmp(f"{base} ** {self.expr(ex, indent)}", indent)

    def _piecewise(self, e: sympy.Piecewise, indent: int) -> str:
        """The pieces one after the other at one depth (a nested form would meet Python's
        limit of 100 indentation levels at about a hundred pieces), each after the first run only
        while ``d`` says no earlier condition was true."""
        out, done = f"t{self.count}", f"d{self.count}"
        self.count += 1
        pad = "    " * indent
        # arb: three-valued conditions; the branches whose condition the balls cannot decide are
        # all evaluated and their balls joined, which keeps the enclosure valid across a
        # breakpoint.  float64: the first true branch, like lambdify's conditional expressions.
        self.lines.append(pad + f"{out} = {'None' if self.arb else 'math.nan'}")
        last = len(e.args) - 1
        if last:
            self.lines.append(pad + f"{done} = False")
        for k, (value, cond) in enumerate(e.args):
            outer = dict(self.seen)  # what a later piece computes is in scope in its block only
            level = indent + (k > 0)
            if k:
                self.lines.append(pad + f"if not {done}:")
            inner = "    " * level
            if not self.arb and cond is sympy.true:
                self.lines.append(inner + f"{out} = {self._branch(value, level)}")
            elif not self.arb:
                self.lines.append(inner + f"if {self._condition(cond, level)}:")
                self.lines.append(inner + f"    {out} = {self._branch(value, level + 1)}")
                if k < last:
                    self.lines.append(inner + f"    {done} = True")
            elif cond is sympy.true:
                ball = self._branch(value, level)
                self.lines.append(inner + f"{out} = {ball} if {out} is None else {out}.union({ball})")
            else:
                verdict = self._verdict(cond, level)
                self.lines.append(inner + f"if {verdict} is not False:")
                ball = self._branch(value, level + 1)
                self.lines.append(inner + f"    {out} = {ball} if {out} is None else {out}.union({ball})")
                if k < last:
                    self.lines.append(inner + f"    {done} = {verdict} is True")
            if k:
                self.seen = outer
            if cond is sympy.true:
                break
        if self.arb:
            self.lines.append(pad + f"if {out} is None:")
            self.lines.append(pad + f"    {out} = flint.arb.nan()")
        return out

    def _verdict(self, c: sympy.Basic, indent: int, branch: bool = False) -> str:
        """The name of a variable holding a condition's value (its lines scoped when ``branch``)."""
        code = self._branch(c, indent, condition=True) if branch else self._condition(c, indent)
        if code.isidentifier() or code in ("True", "False"):
            return code
        name = f"v{self.count}"
        self.count += 1
        self.lines.append("    " * indent + f"{name} = {code}")
        return name

    def _condition(self, c: sympy.Basic, indent: int) -> str:
        """A condition's value: in arb code three-valued (True, False, or None when the balls
        cannot decide), its parts evaluated in order only as far as they can change it."""
        if c is sympy.true:
            return "True"
        if c is sympy.false:
            return "False"
        if isinstance(c, sympy.core.relational.Relational):
            diff = self.expr(c.lhs - c.rhs, indent)
            return f"relation({diff}, {c.rel_op!r})" if self.arb else f"{diff} {c.rel_op} 0"
        if not self.arb and isinstance(c, (sympy.And, sympy.Or, sympy.Not)):
            parts = [f"({self._condition(a, indent)})" for a in c.args]
            return f"not {parts[0]}" if isinstance(c, sympy.Not) else (
                " and " if isinstance(c, sympy.And) else " or ").join(parts)
        if not self.arb:
            raise TypeError(f"the compiler has no float64 form for the condition {c}")
        out = f"v{self.count}"
        self.count += 1
        pad = "    " * indent
        if isinstance(c, sympy.Not):
            inner = self._verdict(c.args[0], indent)
            self.lines.append(pad + f"{out} = None if {inner} is None else not {inner}")
        elif isinstance(c, (sympy.And, sympy.Or)):
            # And stops at the first False, Or at the first True; an undecided part leaves None
            stop = not isinstance(c, sympy.And)
            self.lines.append(pad + f"{out} = {not stop}")
            for k, part in enumerate(c.args):
                if k:
                    self.lines.append(pad + f"if {out} is not {stop}:")
                level = indent + (k > 0)
                v = self._verdict(part, level, branch=True)
                self.lines.append("    " * level + f"{out} = {stop} if {v} is {stop} else None if {v} is None else {out}")
        elif isinstance(c, sympy.ITE):
            test = self._verdict(c.args[0], indent)
            self.lines.append(pad + f"if {test} is None:")
            then, other = (self._verdict(a, indent + 1, branch=True) for a in c.args[1:])
            self.lines.append(pad + f"    {out} = {then} if {then} == {other} else None")
            self.lines.append(pad + f"elif {test}:")
            self.lines.append(pad + f"    {out} = {self._verdict(c.args[1], indent + 1, branch=True)}")
            self.lines.append(pad + "else:")
            self.lines.append(pad + f"    {out} = {self._verdict(c.args[2], indent + 1, branch=True)}")
        else:
            raise TypeError(f"the compiler has no arb form for the condition {c}")
        return out

    @staticmethod
    def ball(result: str) -> str:
        """The code returning ``result`` as a ball (a literal such as ``x0`` may be a plain number)."""
        return f"({result} if isinstance({result}, flint.arb) else flint.arb({result}))"

    def function(self, name: str, exprs: Sequence[sympy.Expr]) -> str:
        """The text of ``def name(x0, x1, ...)`` returning the ball (a tuple of balls when several)
        of ``exprs``, without annotations: what :func:`arb_function` compiles."""
        results = [self.expr(sympy_value(e)) for e in exprs]
        params = ", ".join(f"x{i}" for i in range(len(self.symbols)))
        if self.arb:
            results = [self.ball(r) for r in results]
        return "\n".join([f"def {name}({params}):", *self.lines, f"    return {', '.join(results)}"]) + "\n"


def cse_kernel_source(name: str, exprs: list[sympy.Expr], symbols: tuple[sympy.Symbol, ...],
                      constants: dict[str, str]) -> str:
    """The text of an arb function ``name(x0, x1, ...)`` of ``exprs`` (a ball, or a tuple of balls
    when several), their common subexpressions (``sympy.cse``) computed once, outside the branches
    of a Piecewise: each ball still holds its subexpression's value.  TypeError where the printer
    has no form for an expression."""
    replacements, reduced = sympy.cse(exprs)
    printer = Printer(symbols, True, constants)
    for sym, sub in replacements:
        printer.args[sym] = printer.expr(sub)
    results = [printer.expr(r) for r in reduced]
    params = ", ".join(f"x{i}" for i in range(len(symbols)))
    body = "\n".join(printer.lines)
    balls = ", ".join(Printer.ball(r) for r in results)
    return f"def {name}({params}):\n{body}\n    return {balls if len(results) > 1 else balls[1:-1]}\n"


def _function_of(source: str, name: str, namespace: dict[str, Any]) -> Any:
    """The function ``name`` that ``source`` (printed by this module, never text from elsewhere)
    defines, its globals ``namespace``."""
    module = compile(source, f"<gdpproof compiled {name}>", "exec")
    (code,) = (c for c in module.co_consts if isinstance(c, types.CodeType) and c.co_name == name)
    return types.FunctionType(code, namespace, name)


@functools.lru_cache(maxsize=1024)
def arb_function(expr: sympy.Expr, symbols: tuple[sympy.Symbol, ...]) -> Callable[..., flint.arb]:
    """Compile ``expr`` into a function of arb balls for ``symbols`` (cached).

    The printed code is the generated kernels' (without their per-precision constant cache):
    every operation is evaluated in ball arithmetic, so the result is a ball that contains the
    exact value at every point of the input balls.  ``Piecewise`` branches whose condition the
    balls cannot decide are all evaluated and their balls joined, which keeps the enclosure valid
    across a breakpoint.

    Args:
        expr: A sympy expression in ``symbols``.
        symbols: The arguments, in order.

    Returns:
        The function ``f(*balls) -> flint.arb``.

    Raises:
        TypeError: The expression has a free symbol not in ``symbols`` or a function with no ball form.

    Examples:
        >>> import flint, sympy
        >>> x = sympy.Symbol("x")
        >>> f = arb_function(sympy.exp(x) / 2, (x,))
        >>> f(flint.arb(0))
        0.500000000000000
    """
    constants: dict[str, str] = {}
    nodes: dict[str, Any] = {}
    printer = Printer(tuple(symbols), True, constants, None, nodes)
    source = printer.function("compiled", [expr])
    namespace = {**_ARB_NAMES, **nodes}
    for name, (p, q) in printer.dyadic.items():  # made once, like the generated modules' constants
        namespace[name] = flint.arb(p) if q == 1 else flint.arb(flint.fmpq(p, q))
    return _function_of(source, "compiled", namespace)


def _node(expr: sympy.Basic, index: dict[sympy.Symbol, int]) -> Callable[[Sequence[flint.arb]], flint.arb]:
    """``expr`` as a function of the tuple of balls of ``index``'s symbols (for the solver nodes)."""
    fn = arb_function(expr, tuple(sorted(index, key=index.__getitem__)))
    return lambda env: fn(*env)


def _compile_envelope(e: sympy.Basic, index: dict) -> Any:
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
    h, dh = (_node(b, inner) for b in bodies[:2])
    v = _node(e.args[1], index)
    at_zero = _node(e.args[2], index) if len(e.args) > 2 else None
    ends = _end_slopes(bodies[1], var) if name.endswith("conjugate") else (None, None)

    def mp_functions(ctx: Any) -> tuple:
        return tuple(mpmath_function(b, (var,), ctx) for b in bodies)

    def node(env: Sequence[flint.arb]) -> flint.arb:
        env = tuple(env)
        hf, dhf = (lambda t: h((*env, t))), (lambda t: dh((*env, t)))
        if name in ("tradeoff_conjugate", "inverse_conjugate"):
            slopes = tuple(None if c is None else c() for c in ends)
            return arb_conjugate(hf, dhf, mp_functions, v(env), name == "inverse_conjugate", slopes)
        a = v(env)
        if at_zero is not None and a.is_exact() and a.is_zero():
            return at_zero(env)
        run = arb_envelope if name == "symmetrized" else arb_envelope_slope
        return run(hf, dhf, mp_functions, a)

    return node


def _end_slopes(slope: sympy.Expr, var: sympy.Symbol) -> tuple:
    """h'(0) and h'(1) as functions of no ball, from the slope's formula simplified before
    substitution (None where that gives no finite number).

    Formulas such as e (1 - t)^e / (1 - t) are 0/0 at an end in any arithmetic; collected into
    e (1 - t)^(e - 1) (powsimp) they are not.  The value decides whether an end maximises a
    conjugate exactly.  (sympy's limit would do more, but takes seconds on erfcinv forms.)
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
                found = arb_function(value, ())
                break
        out.append(found)
    return tuple(out)


def _constant_ball(value: sympy.Expr) -> flint.arb:
    return arb_function(value, ())()


set_constant_ball(_constant_ball)


# ---- the lambdify targets: mpmath, numpy/scipy, complex balls --------------------------------------


@functools.lru_cache(maxsize=1024)
def _mpmath_code(expr: sympy.Expr, symbols: tuple[sympy.Symbol, ...]) -> types.CodeType:
    return sympy.lambdify(symbols, expr, modules=["mpmath"]).__code__


def mpmath_namespace(ctx: Any) -> dict[str, Any]:
    """The mpmath target's names, bound to the private context ``ctx`` (never the global
    ``mpmath.mp``): mpmath's functions plus gdpproof's special functions (made once per context)."""
    ns = getattr(ctx, "_gdpproof_namespace", None)
    if ns is None:
        ns = {name: getattr(ctx, name) for name in dir(ctx) if not name.startswith("_")}
        ns.update(mpmath=ctx, erfcinv=lambda z: mp_erfcinv(ctx, z), erfcx=lambda z: ctx.exp(z * z) * ctx.erfc(z),
                  log1p=ctx.log1p, LambertW=ctx.lambertw, builtins=__builtins__, max=max, min=min, abs=abs)
        ns.update(special_mpmath(ctx))
        ns.update(envelope_mpmath(ctx))
        ctx._gdpproof_namespace = ns
    return ns


@functools.lru_cache(maxsize=256)
def _float_function(expr: sympy.Expr, symbols: tuple[sympy.Symbol, ...]) -> Callable[..., float]:
    source = Printer(symbols, False, {}).function("compiled", [sympy_value(expr)])
    return _function_of(source, "compiled", {"math": math, "erfcx_float": erfcx_float})


def float_values(expr: sympy.Expr, symbol: sympy.Symbol, points: Sequence[float]) -> list[float | None]:
    """``expr`` at each point in double precision, None where it is undefined, not real or not
    finite: the float64 printer's code, or mpmath's at 53 bits for a function with no float64 rule.

    Args:
        expr: A sympy expression in ``symbol``.
        symbol: Its variable.
        points: The points (floats).

    Returns:
        One float or None per point.

    Examples:
        >>> import sympy
        >>> x = sympy.Symbol("x")
        >>> float_values(sympy.log(x), x, [1.0, 0.0, -1.0])
        [0.0, None, None]
        >>> float_values(sympy.cos(x), x, [0.0])  # no float64 rule: mpmath's code
        [1.0]
    """
    from ._mp import private_context

    def values(fn: Callable[[Any], Any], number: Callable[[float], Any]) -> list[float | None]:
        out: list[float | None] = []
        for v in points:
            try:
                y: float | None = float(fn(number(v)))
            except (ValueError, ZeroDivisionError, OverflowError, TypeError):
                y = None
            out.append(y if y is not None and math.isfinite(y) else None)
        return out

    try:
        return values(_float_function(expr, (symbol,)), float)
    except TypeError:  # the printer has no float64 form (sin, gamma, ...)
        with private_context(15) as ctx:
            return values(mpmath_function(expr, (symbol,), ctx), ctx.mpf)


def mpmath_function(expr: sympy.Expr, symbols: Sequence[sympy.Symbol], ctx: Any) -> Any:
    """sympy's lambdified mpmath code for ``expr`` (printed once, cached), bound to the private
    context ``ctx`` (:func:`gdpproof.numeric.engine._mp.private_context`).

    Args:
        expr: A sympy expression in ``symbols``.
        symbols: The arguments, in order.
        ctx: An mpmath context.

    Returns:
        The function of mpmath numbers.

    Examples:
        >>> import sympy
        >>> from gdpproof.numeric.engine._mp import private_context
        >>> x = sympy.Symbol("x")
        >>> with private_context(20) as ctx:
        ...     print(mpmath_function(sympy.erfc(x), (x,), ctx)(1))
        0.15729920705028513066
    """
    return types.FunctionType(_mpmath_code(expr, tuple(symbols)), mpmath_namespace(ctx))


@functools.lru_cache(maxsize=512)
def numpy_function(expr: sympy.Expr, symbols: tuple[sympy.Symbol, ...]) -> Any:
    """sympy's lambdified scipy/numpy code for ``expr`` (cached), with gdpproof's special functions.

    Args:
        expr: A sympy expression in ``symbols``.
        symbols: The arguments, in order.

    Returns:
        The function of float64 arrays.

    Examples:
        >>> import sympy
        >>> x = sympy.Symbol("x")
        >>> round(float(numpy_function(sympy.erfc(x), (x,))(1.0)), 12)
        0.15729920705
    """
    return sympy.lambdify(symbols, expr, modules=[{**special_numpy(), **envelope_numpy()}, "scipy", "numpy"])


def lambdified_source(args: tuple[sympy.Symbol, ...], expr: sympy.Expr, modules: Any,
                      printer: Any = None) -> tuple[str, Any]:
    """``sympy.lambdify``'s source text of ``expr`` and the namespace it resolves its names in
    (what the generator writes into the generated modules)."""
    fn = sympy.lambdify(args, expr, modules=modules, printer=printer)
    return inspect.getsource(fn), fn.__globals__


def fraction_source(name: str, expr: sympy.Expr, params: tuple[sympy.Symbol, ...]) -> str:
    """The exact target: ``def name(x0, ...)`` computing a rational polynomial (a loss law's median)
    in Python arithmetic on Fractions.  TypeError for anything else."""
    if not expr.free_symbols <= set(params) or not all(a.is_Rational or a.is_Symbol or a.is_Add or a.is_Mul or
                                                        a.is_Pow for a in sympy.preorder_traversal(expr)):
        raise TypeError(f"the median {expr} is not a rational polynomial")
    names = {s: sympy.Symbol(f"x{i}") for i, s in enumerate(params)}
    body = sympy.sstr(expr.xreplace(names))
    if not expr.free_symbols:
        body = f"Fraction({body!r})" if not expr.is_Integer else f"Fraction({int(expr)})"
    return f"def {name}({', '.join(f'x{i}' for i in range(len(params)))}):\n    return {body}\n"


def dd_function_source(name: str, doc: str, exact: dict[str, sympy.Expr], rounded: dict[str, sympy.Expr],
                       symbols: tuple[sympy.Symbol, ...]) -> str:
    """A function of float64 arrays (the ``symbols``, taken as exact) returning each expression of
    ``exact`` as a double-double (hi, lo), one ddfloat operation per node (rationals must be
    powers of two, a scaling; powers -1 or 2), then each of ``rounded`` as a float64 array: a
    constant times a symbol or a node already printed (its hi + lo times the constant rounded),
    so that shared subexpressions are computed once.  The function's last argument ``ws``, a
    :class:`gdpproof.numeric.engine.ddfloat.Workspace` or None, is passed to every operation (its
    temporaries' buffers).  TypeError for anything else."""
    lines: list[str] = []
    names = {s: s.name for s in symbols}
    memo: dict[sympy.Expr, tuple[str, str]] = {}

    def node(e: sympy.Expr) -> tuple[str, str]:
        if e in names:
            return names[e], "None"
        if e not in memo:
            memo[e] = _node(e)
        return memo[e]

    def _node(e: sympy.Expr) -> tuple[str, str]:
        if e.is_Mul:
            coeff, rest = e.as_coeff_Mul()
            if coeff != 1:
                if not (coeff.is_Rational and _is_power_of_two(abs(coeff))):
                    raise TypeError(f"{name}: the factor {coeff} is not a power of two")
                hi, lo = node(rest)
                return out(f"dd_scale({hi}, {lo}, {float(coeff)!r}, ws)")
            num: list[sympy.Expr] = []
            den: list[sympy.Expr] = []
            for f in e.args:
                (den if f.is_Pow and f.exp == -1 else num).append(f.base if f.is_Pow and f.exp == -1 else f)
            if not num:
                raise TypeError(f"{name}: a bare reciprocal")
            acc = node(num[0])
            for f in num[1:]:
                acc = out(f"dd_mul({acc[0]}, {acc[1]}, {', '.join(node(f))}, ws)")
            for f in den:
                acc = out(f"dd_div({acc[0]}, {acc[1]}, {', '.join(node(f))}, ws)")
            return acc
        if e.is_Add:
            acc = node(e.args[0])
            for f in e.args[1:]:
                acc = out(f"dd_add({acc[0]}, {acc[1]}, {', '.join(node(f))}, ws)")
            return acc
        if e.is_Pow and e.exp == 2:
            hi, lo = node(e.base)
            return out(f"dd_mul({hi}, {lo}, {hi}, {lo}, ws)")
        raise TypeError(f"{name}: no double-double form for {e}")

    def out(code: str) -> tuple[str, str]:
        k = len(lines)
        lines.append(f"    h{k}, l{k} = {code}")
        return f"h{k}", f"l{k}"

    results = []
    for e in exact.values():
        hi, lo = node(e)
        results += [hi, f"({lo} if {lo} is not None else 0.0 * {hi})"]
    for key, e in rounded.items():
        coeff, rest = e.as_independent(*symbols, as_Add=False)
        if not coeff.free_symbols <= set() or rest not in names and rest not in memo:
            raise TypeError(f"{name}: {key} = {e} is not a constant times a printed node")
        hi, lo = node(rest)
        c = repr(float(coeff))
        lines.append(f"    {key} = dd_round({hi}, {lo}, {c}, ws)")
        results.append(key)
    body = "\n".join(lines)
    shown = "; ".join(f"{k} = {e}" for k, e in {**exact, **rounded}.items())
    return (f"def {name}({', '.join(names[s] for s in symbols)}, ws=None):\n    \"\"\"{doc}\n\n    {shown}\n    \"\"\"\n"
            f"{body}\n    return {', '.join(results)}\n")


def _is_power_of_two(r: sympy.Rational) -> bool:
    p, q = int(r.p), int(r.q)
    return (p & (p - 1)) == 0 and (q & (q - 1)) == 0


def acb_printer() -> Any:
    """The printer of the complex-ball integrands: functions by their plain names (resolved in the
    ball namespace the caller passes), the terms of a sum in sympy's order (``order="none"``), so
    1 - p + p e^u is evaluated as (1 - p) + p e^u: exact zero plus e^u at p = 1."""

    class AcbPrinter(sympy.printing.str.StrPrinter):
        pass

    return AcbPrinter({"order": "none"})
