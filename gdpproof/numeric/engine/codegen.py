"""Generate the kernels the engines run from the sympy expressions of :mod:`gdpproof.symbolic`.

Two generated modules, each written by this generator only (the model is scipy's
``scipy/special/_precompute``):

* :mod:`gdpproof.numeric.engine._kernels`: the GDP conversion formulas and the CLT mu of DP-SGD,
  printed as Python functions of arb balls that perform exactly the ball operations
  :func:`gdpproof.numeric.engine.compile_arb.arb_function` performs for the same expression, plus
  float64 versions of the log-dual for the solvers' starting guesses;
* :mod:`gdpproof.numeric.engine._loss_kernels`: the privacy-loss laws of
  :mod:`gdpproof.symbolic.losses` (float64 CDFs as ``sympy.lambdify`` prints them for numpy/scipy,
  their arb forms with common subexpressions once, partial means, inverses, support ends, the
  integrands in complex balls, exact medians) and the float64 Gaussian dual of the fast path.

Why precomputed: compiling the expressions at run time needs sympy, whose import alone takes
three times as long as ``import flint, numpy``; accounting a mechanism must start without it.
The formulas stay written once, in :mod:`gdpproof.symbolic`; ``tests/numeric/test_kernels.py``
regenerates both modules and fails when a committed one differs by a byte.  Nothing is printed
and executed at run time: the engines import the generated functions.

How long it runs: a few seconds (one ``sympy.simplify``, the laws' ``sympy.cse``).

Usage::

    python -m gdpproof.numeric.engine.codegen          # rewrite both generated modules
    python -m gdpproof.numeric.engine.codegen --check  # exit 1 if a committed one is stale
"""

from __future__ import annotations

import os
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import sympy

from ..._args import sympy_value
from ...symbolic.symbols import delta as DELTA
from ...symbolic.symbols import epsilon as EPS
from ...symbolic.symbols import mu as MU
from ...symbolic.clt import MU_CLT_POISSON, MU_CLT_UNIFORM
from ...symbolic.symbols import n as N
from ...symbolic.symbols import p as P
from ...symbolic.symbols import sigma as SIGMA
from ...symbolic.tradeoff import GAUSSIAN_DUAL, GAUSSIAN_EPSILON_TAIL_START, GAUSSIAN_LOG_DUAL

__all__ = ["kernels", "fused_kernels", "float_kernels", "source", "main"]

TARGET = Path(__file__).with_name("_kernels.py")
LOSS_TARGET = Path(__file__).with_name("_loss_kernels.py")


def kernels() -> list[tuple[str, str, sympy.Expr, tuple[sympy.Symbol, ...]]]:
    """(name, meaning, expression, arguments) of each arb kernel."""
    return [
        ("gaussian_dual", "delta_mu(epsilon) of G_mu (GAUSSIAN_DUAL)", GAUSSIAN_DUAL, (EPS, MU)),
        ("gaussian_log_dual", "log delta_mu(epsilon) (GAUSSIAN_LOG_DUAL)", GAUSSIAN_LOG_DUAL, (EPS, MU)),
        ("gaussian_dlog_dual_eps", "d log(GAUSSIAN_DUAL) / d epsilon",
         sympy.diff(sympy.log(GAUSSIAN_DUAL), EPS), (EPS, MU)),
        ("gaussian_dlog_dual_mu", "d log(GAUSSIAN_DUAL) / d mu", sympy.diff(sympy.log(GAUSSIAN_DUAL), MU), (EPS, MU)),
        ("mu_clt_poisson", "the CLT mu of DP-SGD with Poisson sampling (MU_CLT_POISSON)", MU_CLT_POISSON, (SIGMA, P, N)),
        ("mu_clt_uniform", "the CLT mu of DP-SGD with fixed-size batches (MU_CLT_UNIFORM)", MU_CLT_UNIFORM,
         (SIGMA, P, N)),
    ]


def fused_kernels() -> list[tuple[str, str, tuple[sympy.Expr, ...], tuple[sympy.Symbol, ...]]]:
    """(name, meaning, expressions, arguments) of each arb kernel returning several values at
    once, their common subexpressions computed once (only the solvers' Halley steps use these)."""
    return [
        # for Halley steps on delta: the derivatives unsimplified, so their erfc is the dual's
        # second erfc (computed once) and the phi terms cost exp calls only; a step costs two
        # erfcs, and from a float64 start one step reaches 30 digits
        ("gaussian_dual_halley", "delta_mu(epsilon) and its first two epsilon-derivatives (unsimplified)",
         (GAUSSIAN_DUAL, sympy.diff(GAUSSIAN_DUAL, EPS), sympy.diff(GAUSSIAN_DUAL, EPS, 2)), (EPS, MU)),
        # for certifying epsilon(delta): delta and its slope at the answer, from the same two erfcs
        ("gaussian_dual_slope", "delta_mu(epsilon) and its epsilon-derivative (unsimplified)",
         (GAUSSIAN_DUAL, sympy.diff(GAUSSIAN_DUAL, EPS)), (EPS, MU)),
        ("gaussian_dual_halley_mu", "delta_mu(epsilon) and its first two mu-derivatives (unsimplified)",
         (GAUSSIAN_DUAL, sympy.diff(GAUSSIAN_DUAL, MU), sympy.diff(GAUSSIAN_DUAL, MU, 2)), (EPS, MU)),
    ]


def float_kernels() -> list[tuple[str, str, sympy.Expr, tuple[sympy.Symbol, ...]]]:
    """(name, meaning, expression, arguments) of each float64 kernel (estimates only)."""
    return [
        ("gaussian_log_dual_float", "GAUSSIAN_LOG_DUAL in float64", GAUSSIAN_LOG_DUAL, (EPS, MU)),
        ("gaussian_dlog_dual_eps_float", "d GAUSSIAN_LOG_DUAL / d epsilon in float64",
         sympy.diff(GAUSSIAN_LOG_DUAL, EPS), (EPS, MU)),
        ("gaussian_dlog_dual_mu_float", "d GAUSSIAN_LOG_DUAL / d mu in float64",
         sympy.diff(GAUSSIAN_LOG_DUAL, MU), (EPS, MU)),
        ("gaussian_epsilon_start_float", "GAUSSIAN_EPSILON_TAIL_START in float64 (a Newton start)",
         GAUSSIAN_EPSILON_TAIL_START, (DELTA, MU)),
    ]


# ---------------------------------------------------------------------------------------------
# printers
# ---------------------------------------------------------------------------------------------

#: arb methods for the unary functions (compile_arb._UNARY); erfc goes through arb_erfc.
_ARB_METHODS = {
    sympy.exp: "exp", sympy.log: "log", sympy.erf: "erf", sympy.erfinv: "erfinv", sympy.erfcinv: "erfcinv",
    sympy.sinh: "sinh", sympy.cosh: "cosh", sympy.tanh: "tanh", sympy.atan: "atan", sympy.sin: "sin",
    sympy.cos: "cos", sympy.LambertW: "lambertw",
}
_MATH_FUNCTIONS = {sympy.exp: "math.exp", sympy.log: "math.log", sympy.erf: "math.erf", sympy.erfc: "math.erfc"}


class KernelPrinter:
    """Straight-line code for one expression; ``arb`` chooses ball or float operations."""

    def __init__(self, symbols: tuple[sympy.Symbol, ...], arb: bool, constants: dict[str, str],
                 hoisted: dict[str, tuple[str, str]] | None = None) -> None:
        self.args = {s: f"x{i}" for i, s in enumerate(symbols)}
        self.arb = arb
        self.constants = constants  # module-level constant name -> source (shared between kernels)
        #: symbol-free subexpressions that cost arb operations (sqrt(2)/2): key -> (function name,
        #: source); the kernel takes their ball from a per-precision cache (_at_precision), which
        #: holds the ball the same operations give, so the kernel's ball does not change.
        #: None in the printer of such a function itself (it computes, never hoists).
        self.hoisted = hoisted
        self.lines: list[str] = []
        self.count = 0
        #: code -> temporary in scope: a repeated subexpression (sqrt(2), 1/mu) is computed once.
        #: The ball is the same (arb operations are deterministic), so the kernel still returns
        #: what compile_arb's tree returns.  A branch of a Piecewise sees the temporaries
        #: computed before it, and its own are forgotten after it (:meth:`_branch`).
        self.seen: dict[str, str] = {}

    def _tmp(self, code: str, indent: int) -> str:
        if code in self.seen:
            return self.seen[code]
        name = f"t{self.count}"
        self.count += 1
        self.lines.append("    " * indent + f"{name} = {code}")
        self.seen[code] = name
        return name

    def _branch(self, e: sympy.Basic, indent: int) -> str:
        """``expr`` inside a conditional block: its temporaries go out of scope after it."""
        outer = dict(self.seen)
        try:
            return self.expr(e, indent)
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
            # a dyadic rational is exact at every precision (compile_arb._const makes it once too)
            name = f"_C_{'m' if p < 0 else ''}{abs(p)}_{q}"
            self.constants[name] = ball
            return name
        return self._tmp(ball, indent)

    def _hoist(self, key: str, parts: list[sympy.Basic], op: str, indent: int) -> str:
        """The ball of ``parts`` joined by ``op`` in order (one subexpression when a single
        part), computed once per precision by a module-level function."""
        assert self.hoisted is not None
        if key not in self.hoisted:
            sub = KernelPrinter((), True, self.constants, None)
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

    def expr(self, e: sympy.Basic, indent: int = 1) -> str:
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
            acc = parts[0]
            for part in parts[1:]:
                acc = self._tmp(f"{acc}{op}{part}", indent)
            return acc
        if e.is_Pow:
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
        name = type(e).__name__
        if name == "log1p":
            arg = self.expr(e.args[0], indent)
            return self._tmp(f"{arg}.log1p()" if self.arb else f"math.log1p({arg})", indent)
        if name == "erfcx":
            arg = self.expr(e.args[0], indent)
            return self._tmp(f"arb_erfcx({arg})" if self.arb else f"erfcx_float({arg})", indent)
        if type(e) is sympy.erfc:
            arg = self.expr(e.args[0], indent)
            # arb's own erfc inline where it is accurate (arb_erfc's own first test, without its call)
            return self._tmp(f"{arg}.erfc() if {arg} < ERFC_NATIVE_BALL else arb_erfc({arg})" if self.arb
                             else f"math.erfc({arg})", indent)
        if type(e) is sympy.Abs:
            return self._tmp(f"abs({self.expr(e.args[0], indent)})", indent)
        if self.arb and type(e) in _ARB_METHODS:
            return self._tmp(f"{self.expr(e.args[0], indent)}.{_ARB_METHODS[type(e)]}()", indent)
        if not self.arb and type(e) in _MATH_FUNCTIONS:
            return self._tmp(f"{_MATH_FUNCTIONS[type(e)]}({self.expr(e.args[0], indent)})", indent)
        if isinstance(e, (sympy.Max, sympy.Min)):
            pick = "max" if isinstance(e, sympy.Max) else "min"
            parts = [self.expr(a, indent) for a in e.args]
            acc = parts[0]
            for part in parts[1:]:
                acc = self._tmp(f"{acc}.{pick}({part})" if self.arb else f"{pick}({acc}, {part})", indent)
            return acc
        if isinstance(e, sympy.Piecewise):
            return self._piecewise(e, indent)
        raise TypeError(f"the kernel generator has no form for {name}: {e}")

    def _piecewise(self, e: sympy.Piecewise, indent: int) -> str:
        outer = dict(self.seen)  # conditions after the first are computed inside blocks
        try:
            return self._piecewise_body(e, indent)
        finally:
            self.seen = outer

    def _piecewise_body(self, e: sympy.Piecewise, indent: int) -> str:
        out = f"t{self.count}"
        self.count += 1
        if not self.arb:
            # two-valued conditions: the first true branch, like lambdify's conditional expressions
            for k, (value, cond) in enumerate(e.args):
                pad = "    " * (indent + k)
                if cond is sympy.true:
                    self.lines.append(pad + f"{out} = {self._branch(value, indent + k)}")
                    break
                test = self._condition(cond, indent + k)
                self.lines.append(pad + f"if {test}:")
                self.lines.append("    " * (indent + k + 1) + f"{out} = {self._branch(value, indent + k + 1)}")
                self.lines.append(pad + "else:")
            else:
                self.lines.append("    " * (indent + len(e.args)) + f"{out} = math.nan")
            return out
        # three-valued conditions: branches whose condition the balls cannot decide are all
        # evaluated and joined, as compile_arb's piecewise node does
        self.lines.append("    " * indent + f"{out} = None")
        level = indent
        for value, cond in e.args:
            pad = "    " * level
            verdict = f"v{self.count}"
            self.count += 1
            self.lines.append(pad + f"{verdict} = {self._condition(cond, level)}")
            self.lines.append(pad + f"if {verdict} is not False:")
            inner = self._branch(value, level + 1)
            self.lines.append("    " * (level + 1) + f"{out} = {inner} if {out} is None else {out}.union({inner})")
            if cond is sympy.true:
                break
            self.lines.append(pad + f"if {verdict} is not True:")
            level += 1
        self.lines.append("    " * indent + f"if {out} is None:")
        self.lines.append("    " * (indent + 1) + f"{out} = flint.arb.nan()")
        return out

    def _condition(self, c: sympy.Basic, indent: int) -> str:
        if c is sympy.true:
            return "True"
        if c is sympy.false:
            return "False"
        if isinstance(c, sympy.core.relational.Relational):
            diff = self.expr(c.lhs - c.rhs, indent)
            return f"relation({diff}, {c.rel_op!r})" if self.arb else f"{diff} {c.rel_op} 0"
        raise TypeError(f"the kernel generator has no form for the condition {c}")


class LawPrinter(KernelPrinter):
    """The arb printer with the two functions the loss laws add (expm1, log1p as ball methods)."""

    def expr(self, e: Any, indent: int = 1) -> str:
        name = type(e).__name__
        if self.arb and name in ("expm1", "log1p") and not (self.hoisted is not None and self._costs(e)):
            return self._tmp(f"{self.expr(e.args[0], indent)}.{name}()", indent)
        return super().expr(e, indent)


def cse_kernel_source(name: str, exprs: list[sympy.Expr], symbols: tuple[sympy.Symbol, ...],
                      constants: dict[str, str]) -> str:
    """The text of an arb function ``name(x0, x1, ...)`` of ``exprs`` (a ball, or a tuple of balls
    when several), their common subexpressions (``sympy.cse``) computed once, outside the branches
    of a Piecewise: each ball still holds its subexpression's value.  TypeError where the printer
    has no form for an expression."""
    replacements, reduced = sympy.cse(exprs)
    printer = LawPrinter(symbols, True, constants)
    for sym, sub in replacements:
        printer.args[sym] = printer.expr(sub)
    results = [printer.expr(r) for r in reduced]
    params = ", ".join(f"x{i}" for i in range(len(symbols)))
    body = "\n".join(printer.lines)
    balls = ", ".join(f"({r} if isinstance({r}, flint.arb) else flint.arb({r}))" for r in results)
    return f"def {name}({params}):\n{body}\n    return {balls if len(results) > 1 else balls[1:-1]}\n"


def _function(name: str, meaning: str, expr: sympy.Expr | tuple[sympy.Expr, ...], symbols: tuple[sympy.Symbol, ...],
              arb: bool, constants: dict[str, str], hoisted: dict[str, tuple[str, str]],
              printer_class: type = None) -> str:  # type: ignore[assignment]
    printer = (printer_class or KernelPrinter)(symbols, arb, constants, hoisted if arb else None)
    exprs = expr if isinstance(expr, tuple) else (expr,)
    results = [printer.expr(sympy_value(e)) for e in exprs]
    kind = "flint.arb" if arb else "float"
    params = ", ".join(f"x{i}: {kind}" for i in range(len(symbols)))
    names = ", ".join(f"x{i} = {s}" for i, s in enumerate(symbols))
    out = kind if len(exprs) == 1 else f"tuple[{', '.join([kind] * len(exprs))}]"
    lines = [f"def {name}({params}) -> {out}:", f'    """{meaning}; {names}.', ""]
    lines += [f"    {e}" for e in exprs] + ['    """']
    lines += printer.lines
    if arb:
        results = [f"({r} if isinstance({r}, flint.arb) else flint.arb({r}))" for r in results]
    lines.append(f"    return {', '.join(results)}")
    return "\n".join(lines)


_HEADER = '''"""Arb and float64 kernels of the GDP conversions.

Generated by ``python -m gdpproof.numeric.engine.codegen`` from the sympy expressions of
:mod:`gdpproof.symbolic.tradeoff`; do not edit.  Each arb kernel performs the ball operations
:func:`gdpproof.numeric.engine.compile_arb.arb_function` performs for its expression (quoted in its
docstring), so it returns the same ball; the float kernels only start Newton iterations.
This module imports flint and the standard library only.
"""

# ruff: noqa
from __future__ import annotations

import math

import flint

from ._ballfun import ERFC_NATIVE_BALL, arb_erfc, arb_erfcx, at_precision as _at_precision, erfcx_float, relation

__all__ = [{names}]

'''


def source() -> str:
    """The text of ``_kernels.py``."""
    constants: dict[str, str] = {}
    hoisted: dict[str, tuple[str, str]] = {}
    bodies = [_function(n, m, e, s, True, constants, hoisted) for n, m, e, s in kernels()]
    bodies += [_function(n, m, e, s, True, constants, hoisted) for n, m, e, s in fused_kernels()]
    bodies += [_function(n, m, e, s, False, constants, hoisted) for n, m, e, s in float_kernels()]
    names = ", ".join(repr(n) for n, *_ in kernels() + fused_kernels() + float_kernels())  # type: ignore[operator]
    head = _HEADER.replace("{names}", names)
    consts = "".join(f"{k} = {v}\n" for k, v in sorted(constants.items()))
    makers = [src for _, src in hoisted.values()]
    return head + consts + "\n\n" + "\n\n\n".join(makers + bodies) + "\n"


def _write(text: str, path: Path) -> None:
    """Write to a temporary file beside ``path`` and rename it over (never a half-written file)."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".kernels-", suffix=".py")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


def main(argv: list[str] | None = None, write: Callable[[str, Path], None] = _write) -> int:
    """Write the generated modules (``--check``: exit 1 when a committed one differs)."""
    args = sys.argv[1:] if argv is None else argv
    stale = 0
    for target, make in ((TARGET, source), (LOSS_TARGET, loss_source)):
        text = make()
        if "--check" not in args:
            write(text, target)
        elif (target.read_text(encoding="utf-8") if target.exists() else "") != text:
            print(f"{target} is stale: run python -m gdpproof.numeric.engine.codegen", file=sys.stderr)
            stale = 1
    return stale



# ---------------------------------------------------------------------------------------------
# the privacy-loss laws (gdpproof/numeric/engine/_loss_kernels.py)
# ---------------------------------------------------------------------------------------------

#: The families whose kernels are generated: every family of symbolic/losses.py whose parameters the
#: engines take as doubles (the discrete ones keep exact parameters and are compiled at run time).
LOSS_FAMILIES = ("gaussian", "randomized_response", "k_randomized_response", "laplace", "subsampled_gaussian",
                 "symmetric_subsampled_gaussian")


def _lambdified(args: tuple[sympy.Symbol, ...], expr: sympy.Expr, modules: Any, printer: Any = None) -> tuple[str, Any]:
    from .lambdify_mp import lambdified_source

    return lambdified_source(args, expr, modules, printer)


def _numpy_imports(sources: list[tuple[str, Any, tuple[str, ...]]]) -> str:
    """The imports that give each name of the lambdified float sources the object lambdify gave it."""
    import builtins
    import keyword
    import re

    import numpy
    import scipy.special

    wanted: dict[str, str] = {}
    for src, namespace, params in sources:
        for name in sorted(set(re.findall(r"\b[A-Za-z_][A-Za-z_0-9]*\b", src.split(":", 1)[1]))):
            if name in params or keyword.iskeyword(name) or name in ("default",):
                continue
            obj = namespace[name] if name in namespace else getattr(builtins, name)
            if getattr(builtins, name, None) is obj:
                continue
            if getattr(scipy.special, name, None) is obj:
                wanted[name] = "scipy.special"
            elif getattr(numpy, name, None) is obj or (isinstance(obj, float) and getattr(numpy, name, None) == obj):
                wanted[name] = "numpy"
            else:
                raise TypeError(f"the loss-kernel generator cannot import {name} ({obj!r})")
    lines = []
    for module in ("numpy", "scipy.special"):
        names = sorted(n for n, m in wanted.items() if m == module)
        if names:
            lines.append(f"from {module} import {', '.join(names)}")
    return "\n".join(lines)


def _renamed(src: str, name: str) -> str:
    return src.replace("def _lambdifygenerated(", f"def {name}(", 1).rstrip() + "\n"


def _median_source(name: str, expr: sympy.Expr, params: tuple[sympy.Symbol, ...]) -> str:
    """A median as Python arithmetic on Fractions (exact: the medians are polynomials)."""
    if not expr.free_symbols <= set(params) or not all(a.is_Rational or a.is_Symbol or a.is_Add or a.is_Mul or
                                                        a.is_Pow for a in sympy.preorder_traversal(expr)):
        raise TypeError(f"the median {expr} is not a rational polynomial")
    names = {s: sympy.Symbol(f"x{i}") for i, s in enumerate(params)}
    body = sympy.sstr(expr.xreplace(names))
    if not expr.free_symbols:
        body = f"Fraction({body!r})" if not expr.is_Integer else f"Fraction({int(expr)})"
    return f"def {name}({', '.join(f'x{i}' for i in range(len(params)))}):\n    return {body}\n"


def _end_kind(v: sympy.Expr) -> str:
    return "inf" if v is sympy.oo else "-inf" if v is -sympy.oo else "kernel"


def loss_source() -> str:
    """The text of ``_loss_kernels.py``: for each family of :data:`LOSS_FAMILIES`, its float64 CDF and
    survival function (lambdify's numpy/scipy code), its arb kernels (the laws' CDF and survival
    function, common subexpressions once; partial means, x_of_ell and support ends), the pieces of
    its integrand in complex balls, its medians in exact arithmetic, and its description."""
    from ...symbolic import losses as sl
    from ...symbolic.symbols import ell as ELL
    from ...symbolic.symbols import x as X

    constants: dict[str, str] = {}
    hoisted: dict[str, tuple[str, str]] = {}
    floats: list[str] = []
    float_sources: list[tuple[str, Any, tuple[str, ...]]] = []
    balls: list[str] = []
    integrands: list[str] = []
    medians: list[str] = []
    table: list[str] = []
    acb_printer = _acb_printer()
    for family in LOSS_FAMILIES:
        fam = sl.FAMILIES[family]
        params = (ELL, *fam.parameters)
        names = tuple(s.name for s in params)
        for kind in ("cdf", "sf"):
            for law in "PQ":
                src, namespace = _lambdified(params, getattr(fam, kind)[law], ["scipy", "numpy"])
                float_sources.append((src, namespace, names))
                floats.append(_renamed(src, f"{family}__{kind}_float__{law}"))
            for law in ("P", "Q", "PQ"):
                name, exprs = f"{family}__{kind}__{law}", [getattr(fam, kind)[w] for w in law]
                try:  # common subexpressions once (what the engines ran at run time before)
                    balls.append(cse_kernel_source(name, exprs, params, dict(constants)))
                except TypeError:  # a condition cse took out of a Piecewise: compile_arb's operations
                    balls.append(_function(name, f"{kind} of {family} under {law}", tuple(exprs) if len(exprs) > 1
                                           else exprs[0], params, True, constants, hoisted, LawPrinter))
                    continue
                cse_kernel_source(name, exprs, params, constants)
        if fam.x_of_ell is not None:
            src, namespace = _lambdified(params, fam.x_of_ell, ["scipy", "numpy"])
            float_sources.append((src, namespace, names))
            floats.append(_renamed(src, f"{family}__x_of_ell_float"))
        arb = {}
        if fam.partial is not None:
            arb.update({f"partial__{w}": (fam.partial[w], params) for w in "PQ"})
        if fam.x_of_ell is not None:
            arb["x_of_ell"] = (fam.x_of_ell, params)
        for which, end in zip(("support_lo", "support_hi"), fam.support):
            if _end_kind(end) == "kernel":
                arb[which] = (end, fam.parameters)
        for key, (expr, symbols) in arb.items():
            try:  # what the printer has no form for is compiled at run time
                balls.append(_function(f"{family}__{key}", f"{key} of {family}", expr, symbols, True, dict(constants),
                                       dict(hoisted), LawPrinter))
            except TypeError:
                continue
            _function(f"{family}__{key}", f"{key} of {family}", expr, symbols, True, constants, hoisted, LawPrinter)
        pieces: dict[str, list[str]] = {}
        if fam.integrand is not None:
            for law in "PQ":
                expr = fam.integrand[law]
                pairs = expr.as_expr_set_pairs() if isinstance(expr, sympy.Piecewise) else \
                    [(expr, sympy.Interval(-sympy.oo, sympy.oo))]
                pieces[law] = []
                for k, (e, iv) in enumerate((e, iv) for e, iv in pairs if e != 0):
                    for r in e.atoms(sympy.Rational):
                        if int(r.q) & (int(r.q) - 1):
                            raise TypeError(f"{family}: the integrand has the non-dyadic constant {r}")
                    src, _ = _lambdified((X, *fam.parameters), e, [{}], acb_printer)
                    fname = f"{family}__integrand__{law}{k}"
                    inner = _renamed(src, "integrand").replace("\n", "\n    ").rstrip()
                    integrands.append(f"def {fname}(exp, log, sqrt, pi):\n    {inner}\n    return integrand\n")
                    pieces[law].append(f"({_fraction_text(iv.inf)}, {_fraction_text(iv.sup)}, {fname})")
        for law in "PQ":
            medians.append(_median_source(f"{family}__median__{law}", fam.median[law], fam.parameters))
        table.append(
            f"    {family!r}: Family({family!r}, {tuple(s.name for s in fam.parameters)!r}, {fam.orderings!r}, "
            f"{fam.symmetric!r}, {fam.riskier!r}, {fam.atoms is not None!r}, {fam.partial is not None!r}, "
            f"{fam.x_of_ell is not None!r}, ({_end_kind(fam.support[0])!r}, {_end_kind(fam.support[1])!r}), "
            + ("None" if not pieces else "{" + ", ".join(f"{w!r}: ({', '.join(pieces[w])},)" for w in "PQ") + "}")
            + "),")
    # the float64 Gaussian dual in its erfcx form (numeric/engine/fast.py's vectorized conversions)
    from ...symbolic.tradeoff import GAUSSIAN_DUAL_SCALED

    import scipy.special

    src, namespace = _lambdified((EPS, MU), GAUSSIAN_DUAL_SCALED, [{"erfcx": scipy.special.erfcx}, "scipy", "numpy"])
    float_sources.append((src, namespace, ("epsilon", "mu")))
    floats.append(_renamed(src, "gaussian_dual_scaled_float"))
    # and its parts for the accurate evaluation (codegen_float, ddfloat.tail_difference)
    from .codegen_float import dual_parts_source

    text, used = dual_parts_source()
    float_sources.extend(used)
    floats.append(text)
    head = _LOSS_HEADER.replace("{imports}", _numpy_imports(float_sources))
    consts = "".join(f"{k} = {v}\n" for k, v in sorted(constants.items()))
    makers = [src for _, src in hoisted.values()]
    tail = "\n\nFAMILIES = {\n" + "\n".join(table) + "\n}\n"
    return (head + consts + "\n\n" + "\n\n".join(makers + balls + floats + integrands + medians) + tail)


def _fraction_text(v: sympy.Expr) -> str:
    if v is sympy.oo:
        return "math.inf"
    if v is -sympy.oo:
        return "-math.inf"
    return f"Fraction({int(v.p)}, {int(v.q)})"


def _acb_printer() -> Any:
    """The printer of the complex-ball integrands: functions by their plain names (resolved in the
    ball namespace the caller passes), the terms of a sum in sympy's order (``order="none"``), so
    1 - p + p e^u is evaluated as (1 - p) + p e^u: exact zero plus e^u at p = 1."""

    class AcbPrinter(sympy.printing.str.StrPrinter):
        pass

    return AcbPrinter({"order": "none"})


_LOSS_HEADER = '''"""Kernels of the privacy-loss laws (generated: do not edit).

Generated by ``python -m gdpproof.numeric.engine.codegen`` from the sympy expressions of
:mod:`gdpproof.symbolic.losses`; do not edit.  The float64 functions are the code sympy's
``lambdify`` prints for numpy/scipy; the arb functions perform the ball operations of
:func:`gdpproof.numeric.engine.compile_arb.arb_function` (common subexpressions once in the laws'
CDFs); each integrand maker takes the ball functions (exp, log, sqrt, pi) and returns the piece.
"""

# ruff: noqa
from __future__ import annotations

import math
from collections import namedtuple
from fractions import Fraction

import flint
{imports}

from ._ballfun import ERFC_NATIVE_BALL, arb_erfc, arb_erfcx, at_precision as _at_precision, erfcx_float, relation
from .ddfloat import dd_add, dd_div, dd_mul, dd_scale

#: A family: its parameters, orderings, symmetry, the side to round each parameter to, whether its
#: law has atoms, a closed-form partial mean, an inverse x_of_ell; its support's ends ("inf",
#: "-inf" or "kernel"); its integrand's pieces per law ((lo, hi, maker), ...) or None.
Family = namedtuple("Family", "name parameters orderings symmetric riskier atoms partial x_of_ell support integrand")

'''



if __name__ == "__main__":
    raise SystemExit(main())
