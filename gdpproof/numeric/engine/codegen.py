"""Write the generated kernel modules from the sympy expressions of :mod:`gdpproof.symbolic`.

:mod:`gdpproof.numeric.engine._kernels` holds the GDP conversions and the CLT mu of DP-SGD (arb, plus
float64 Newton starts); :mod:`gdpproof.numeric.engine._loss_kernels` the privacy-loss laws of
:mod:`gdpproof.symbolic.losses`.  Their text is what :mod:`gdpproof.numeric.engine.compiler` prints,
so the engines run without importing sympy; ``tests/numeric/test_kernels.py`` regenerates both and
fails when a committed one differs by a byte.  Why ahead of time: docs/how-it-works.md, "Kernels".

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
from .compiler import Printer, acb_printer, cse_kernel_source, fraction_source, lambdified_source
from ...symbolic.symbols import delta as DELTA
from ...symbolic.symbols import epsilon as EPS
from ...symbolic.symbols import mu as MU
from ...symbolic.clt import MU_CLT_POISSON, MU_CLT_UNIFORM
from ...symbolic.symbols import n as N
from ...symbolic.symbols import p as P
from ...symbolic.symbols import sigma as SIGMA
from ...symbolic.tradeoff import GAUSSIAN_DUAL, GAUSSIAN_EPSILON_TAIL_START, GAUSSIAN_LOG_DUAL

__all__ = ["kernels", "limb_kernels", "fused_kernels", "float_kernels", "source", "main"]

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


#: The erfc rule of :func:`limb_kernels`: erfc at the kernel's argument ``bits``
#: (:func:`gdpproof.numeric.engine._ballfun.erfc_at`: erfc's cell polynomials, or arb's erf or
#: erfc raised to the limb), the other operations at the current precision.
ERFC_AT_RULE = {sympy.erfc: "erfc_at({0}, bits)"}


def limb_kernels() -> list[tuple[str, str, sympy.Expr, tuple[sympy.Symbol, ...]]]:
    """(name, meaning, expression, arguments) of each arb kernel whose erfc runs at a precision of
    its own, the last argument ``bits`` (:func:`gdpproof.numeric.engine._ballfun.erfc_at`), and the
    other operations at the current one: the certified delta(epsilon)'s hot path, which runs the
    cheap operations at 128 bits and each erfc at the most bits its cost allows.  They are printed
    lean (:class:`Printer`'s ``lean``: subtractions, divisions, one constant per product), so
    their ball operations are fewer than, and not the same as, those of the plain kernels."""
    return [
        ("gaussian_dual_at", "delta_mu(epsilon) of G_mu (GAUSSIAN_DUAL, its factor 1/2 taken out), each erfc at "
         "`bits` bits or a few more", sympy.factor_terms(GAUSSIAN_DUAL, radical=False, clear=False, fraction=False),
         (EPS, MU)),
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


def _function(name: str, meaning: str, expr: sympy.Expr | tuple[sympy.Expr, ...], symbols: tuple[sympy.Symbol, ...],
              arb: bool, constants: dict[str, str], hoisted: dict[str, tuple[str, str]],
              rules: dict[type, str] | None = None) -> str:
    """The text of a generated kernel: :class:`Printer`'s code with annotations and a docstring
    quoting its expressions (with ``rules``: a last argument ``bits: int`` they may use)."""
    printer = Printer(symbols, arb, constants, hoisted if arb else None, rules=rules, lean=rules is not None)
    exprs = expr if isinstance(expr, tuple) else (expr,)
    results = [printer.expr(sympy_value(e)) for e in exprs]
    kind = "flint.arb" if arb else "float"
    params = ", ".join([f"x{i}: {kind}" for i in range(len(symbols))] + (["bits: int"] if rules else []))
    names = ", ".join(f"x{i} = {s}" for i, s in enumerate(symbols))
    out = kind if len(exprs) == 1 else f"tuple[{', '.join([kind] * len(exprs))}]"
    lines = [f"def {name}({params}) -> {out}:", f'    """{meaning}; {names}.', ""]
    lines += [f"    {e}" for e in exprs] + ['    """']
    lines += printer.lines
    if arb:
        results = [Printer.ball(r) for r in results]
    lines.append(f"    return {', '.join(results)}")
    return "\n".join(lines)


_HEADER = '''"""Arb and float64 kernels of the GDP conversions.

Generated by ``python -m gdpproof.numeric.engine.codegen`` from the sympy expressions of
:mod:`gdpproof.symbolic.tradeoff` by :mod:`gdpproof.numeric.engine.compiler`; do not edit.  Each arb
kernel performs the ball operations :func:`gdpproof.numeric.engine.compiler.arb_function` performs for
its expression (quoted in its docstring), so it returns the same ball, except those taking ``bits``
(codegen.limb_kernels: erfc at that precision, printed lean), whose balls contain the same values;
the float kernels only start Newton iterations.
This module imports flint and the standard library only.
"""

# ruff: noqa
from __future__ import annotations

import math

import flint

from ._ballfun import ERFC_NATIVE_BALL, arb_erfc, arb_erfcx, at_precision as _at_precision, erfc_at, erfcx_float, relation

__all__ = [{names}]

'''


def source() -> str:
    """The text of ``_kernels.py``."""
    constants: dict[str, str] = {}
    hoisted: dict[str, tuple[str, str]] = {}
    bodies = [_function(n, m, e, s, True, constants, hoisted) for n, m, e, s in kernels()]
    bodies += [_function(n, m, e, s, True, constants, hoisted, ERFC_AT_RULE) for n, m, e, s in limb_kernels()]
    bodies += [_function(n, m, e, s, True, constants, hoisted) for n, m, e, s in fused_kernels()]
    bodies += [_function(n, m, e, s, False, constants, hoisted) for n, m, e, s in float_kernels()]
    names = ", ".join(repr(n) for n, *_ in kernels() + limb_kernels() + fused_kernels() + float_kernels())  # type: ignore[operator]
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
    acb = acb_printer()
    for family in LOSS_FAMILIES:
        fam = sl.FAMILIES[family]
        params = (ELL, *fam.parameters)
        names = tuple(s.name for s in params)
        for kind in ("cdf", "sf"):
            for law in "PQ":
                src, namespace = lambdified_source(params, getattr(fam, kind)[law], ["scipy", "numpy"])
                float_sources.append((src, namespace, names))
                floats.append(_renamed(src, f"{family}__{kind}_float__{law}"))
            for law in ("P", "Q", "PQ"):
                name, exprs = f"{family}__{kind}__{law}", [getattr(fam, kind)[w] for w in law]
                try:  # common subexpressions once (what the engines ran at run time before)
                    balls.append(cse_kernel_source(name, exprs, params, dict(constants)))
                except TypeError:  # a condition cse took out of a Piecewise: the plain printed operations
                    balls.append(_function(name, f"{kind} of {family} under {law}", tuple(exprs) if len(exprs) > 1
                                           else exprs[0], params, True, constants, hoisted))
                    continue
                cse_kernel_source(name, exprs, params, constants)
        if fam.x_of_ell is not None:
            src, namespace = lambdified_source(params, fam.x_of_ell, ["scipy", "numpy"])
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
                                       dict(hoisted)))
            except TypeError:
                continue
            _function(f"{family}__{key}", f"{key} of {family}", expr, symbols, True, constants, hoisted)
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
                    src, _ = lambdified_source((X, *fam.parameters), e, [{}], acb)
                    fname = f"{family}__integrand__{law}{k}"
                    inner = _renamed(src, "integrand").replace("\n", "\n    ").rstrip()
                    integrands.append(f"def {fname}(exp, log, sqrt, pi):\n    {inner}\n    return integrand\n")
                    pieces[law].append(f"({_fraction_text(iv.inf)}, {_fraction_text(iv.sup)}, {fname})")
        for law in "PQ":
            medians.append(fraction_source(f"{family}__median__{law}", fam.median[law], fam.parameters))
        table.append(
            f"    {family!r}: Family({family!r}, {tuple(s.name for s in fam.parameters)!r}, {fam.orderings!r}, "
            f"{fam.symmetric!r}, {fam.riskier!r}, {fam.atoms is not None!r}, {fam.partial is not None!r}, "
            f"{fam.x_of_ell is not None!r}, ({_end_kind(fam.support[0])!r}, {_end_kind(fam.support[1])!r}), "
            + ("None" if not pieces else "{" + ", ".join(f"{w!r}: ({', '.join(pieces[w])},)" for w in "PQ") + "}")
            + "),")
    # the float64 Gaussian dual's parts for its accurate evaluation (numeric/engine/fast.py's
    # vectorized conversions: codegen_float, ddfloat.tail_difference)
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


_LOSS_HEADER = '''"""Kernels of the privacy-loss laws (generated: do not edit).

Generated by ``python -m gdpproof.numeric.engine.codegen`` from the sympy expressions of
:mod:`gdpproof.symbolic.losses` by :mod:`gdpproof.numeric.engine.compiler`; do not edit.  The float64
functions are the code sympy's ``lambdify`` prints for numpy/scipy; the arb functions perform the ball
operations of :func:`gdpproof.numeric.engine.compiler.arb_function` (common subexpressions once in the
laws' CDFs); each integrand maker takes the ball functions (exp, log, sqrt, pi) and returns the piece.
"""

# ruff: noqa
from __future__ import annotations

import math
from collections import namedtuple
from fractions import Fraction

import flint
{imports}

from ._ballfun import ERFC_NATIVE_BALL, arb_erfc, arb_erfcx, at_precision as _at_precision, erfcx_float, relation
from .ddfloat import dd_add, dd_div, dd_mul, dd_round, dd_scale

#: A family: its parameters, orderings, symmetry, the side to round each parameter to, whether its
#: law has atoms, a closed-form partial mean, an inverse x_of_ell; its support's ends ("inf",
#: "-inf" or "kernel"); its integrand's pieces per law ((lo, hi, maker), ...) or None.
Family = namedtuple("Family", "name parameters orderings symmetric riskier atoms partial x_of_ell support integrand")

'''



if __name__ == "__main__":
    raise SystemExit(main())
