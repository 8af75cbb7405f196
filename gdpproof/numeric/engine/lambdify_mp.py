"""sympy expressions as lambdified code: the one place the engines call ``sympy.lambdify``.

sympy's ``lambdify`` prints an expression as Python source once (cached).  :func:`mpmath_function`
binds that code to the namespace of one private :class:`mpmath.MPContext`
(:func:`gdpproof.numeric.engine._mp.private_context`), never the global ``mpmath.mp``.  The namespace
holds mpmath's functions plus the special functions of :mod:`gdpproof.symbolic.special`
(:mod:`gdpproof.numeric.engine.special` and :mod:`gdpproof.numeric.tradeoff.envelope` give them).
:func:`numpy_function` is the float64 form of a curve (numpy/scipy); :func:`lambdified_source` is
the text the kernel generator (:mod:`gdpproof.numeric.engine.codegen`) writes into the generated
modules, so the engines' float64 and complex-ball kernels are what ``lambdify`` prints.
"""

from __future__ import annotations

import functools
import types
from collections.abc import Sequence
from typing import Any

import sympy

from ._mp import mp_erfcinv
from ..tradeoff.envelope import mpmath_namespace as _envelope_namespace
from .special import mpmath_namespace as _special_namespace

__all__ = ["mpmath_function", "numpy_function", "lambdified_source"]


@functools.lru_cache(maxsize=1024)
def _mpmath_code(expr: sympy.Expr, symbols: tuple[sympy.Symbol, ...]) -> types.CodeType:
    fn = sympy.lambdify(symbols, expr, modules=["mpmath"])
    return fn.__code__


def _namespace(ctx: Any) -> dict:
    ns = getattr(ctx, "_gdpproof_namespace", None)
    if ns is None:
        ns = {name: getattr(ctx, name) for name in dir(ctx) if not name.startswith("_")}
        ns.update(
            mpmath=ctx,
            erfcinv=lambda z: mp_erfcinv(ctx, z),
            erfcx=lambda z: ctx.exp(z * z) * ctx.erfc(z),
            log1p=ctx.log1p,
            builtins=__builtins__,
            max=max,
            min=min,
            abs=abs,
        )
        ns.update(_special_namespace(ctx))
        ns.update(_envelope_namespace(ctx))
        ctx._gdpproof_namespace = ns
    return ns


def mpmath_function(expr: sympy.Expr, symbols: Sequence[sympy.Symbol], ctx: Any) -> Any:
    """sympy's lambdified mpmath code for ``expr``, bound to the private context ``ctx``."""
    code = _mpmath_code(expr, tuple(symbols))
    return types.FunctionType(code, _namespace(ctx))


@functools.lru_cache(maxsize=512)
def numpy_function(expr: sympy.Expr, symbols: tuple[sympy.Symbol, ...]) -> Any:
    """sympy's lambdified scipy/numpy code for ``expr`` (cached), with gdpproof's special functions."""
    from ..tradeoff.envelope import numpy_namespace as envelope_namespace
    from .special import numpy_namespace

    return sympy.lambdify(symbols, expr, modules=[{**numpy_namespace(), **envelope_namespace()}, "scipy", "numpy"])


def lambdified_source(args: tuple[sympy.Symbol, ...], expr: sympy.Expr, modules: Any, printer: Any = None) -> tuple[str, Any]:
    """``sympy.lambdify``'s source text of ``expr`` and the namespace it resolves its names in."""
    import inspect

    fn = sympy.lambdify(args, expr, modules=modules, printer=printer)
    return inspect.getsource(fn), fn.__globals__
