"""The accurate float64 Gaussian dual of ``gdpproof.fast``, generated from the symbolic form.

Part of :mod:`gdpproof.numeric.engine.codegen` (which writes its text into
:mod:`gdpproof.numeric.engine._loss_kernels`): from
:data:`gdpproof.symbolic.tradeoff.GAUSSIAN_DUAL_SCALED` = e^Z (erfcx(A) - erfcx(B))/2 it checks
Z = -A^2 and finds D = B - A, then has the compiler's double-double target
(:func:`gdpproof.numeric.engine.compiler.dd_function_source`) print a function giving Z in
double-double arithmetic, A and D in float64; and it fits the polynomial of erfcx that :func:`gdpproof.numeric.engine.ddfloat.tail_difference`
evaluates (Chebyshev interpolation in mpmath of sqrt(pi) (x + K) erfcx(x) in t = (x - K)/(x + K),
converted to monomials).  So the formula is still written once, in :mod:`gdpproof.symbolic`.
"""

from __future__ import annotations

from typing import Any

import sympy

from .compiler import dd_function_source

__all__ = ["ERFCX_K", "ERFCX_TERMS", "erfcx_polynomial", "dual_parts_source"]

#: The polynomial's centre K and number of coefficients: with K = 4, 23 coefficients interpolate
#: sqrt(pi) (x + K) erfcx(x) (between 1 and 7.1 on x >= 0) to about 1e-16 (24 give 4e-17, 22
#: 1e-15; a 24th did not lower the float64 delta's measured error: docs/guides/conversions.md).
ERFCX_K = 4
ERFCX_TERMS = 23


def erfcx_polynomial(k: int = ERFCX_K, n: int = ERFCX_TERMS) -> list[float]:
    """The float64 coefficients (highest degree first) of the degree n - 1 polynomial p with
    p(t) ~ sqrt(pi) (x + k) erfcx(x), x = k (1 + t)/(1 - t), t in [-1, 1] (x in [0, inf]):
    the interpolant at the n Chebyshev points of the first kind, computed at 60 digits."""
    import mpmath

    ctx = mpmath.mp.clone()
    ctx.dps = 60
    kk = ctx.mpf(k)

    def h(t: Any) -> Any:
        if t >= 1:
            return ctx.mpf(1)
        x = kk * (1 + t) / (1 - t)
        return ctx.exp(x * x) * ctx.erfc(x) * (x + kk) * ctx.sqrt(ctx.pi)

    nodes = [ctx.cos(ctx.pi * (j + ctx.mpf(1) / 2) / n) for j in range(n)]
    values = [h(t) for t in nodes]
    cheb = [2 * ctx.fsum(v * ctx.cos(ctx.pi * m * (j + ctx.mpf(1) / 2) / n) for j, v in enumerate(values)) / n
            for m in range(n)]
    cheb[0] /= 2
    # sum_m cheb[m] T_m(t) in monomials: T_0 = 1, T_1 = t, T_(m+1) = 2t T_m - T_(m-1)
    mono = [ctx.mpf(0)] * n
    prev, cur = [ctx.mpf(1)], [ctx.mpf(0), ctx.mpf(1)]
    for m in range(n):
        poly = prev if m == 0 else cur
        for i, c in enumerate(poly):
            mono[i] += cheb[m] * c
        if m >= 1:
            nxt = [ctx.mpf(0)] + [2 * c for c in cur]
            for i, c in enumerate(prev):
                nxt[i] -= c
            prev, cur = cur, nxt
    return [float(c) for c in reversed(mono)]


def dual_parts_source() -> tuple[str, list[tuple[str, Any, tuple[str, ...]]]]:
    """The generated text for the float64 Gaussian dual: ERFCX_POLY_K, ERFCX_POLY and
    ``gaussian_dual_scaled_parts(epsilon, mu) -> (z_hi, z_lo, a, d)`` (see the module docstring),
    and the lambdified sources it used for the module's imports (none: it is printed here)."""
    from ...symbolic.symbols import epsilon as EPS
    from ...symbolic.symbols import mu as MU
    from ...symbolic.tradeoff import GAUSSIAN_DUAL_SCALED

    e = GAUSSIAN_DUAL_SCALED
    exps = [f for f in e.args if isinstance(f, sympy.exp)]
    diffs = [f for f in e.args if f.is_Add]
    if len(exps) != 1 or len(diffs) != 1 or sympy.simplify(e - exps[0] * diffs[0] / 2) != 0:
        raise TypeError("GAUSSIAN_DUAL_SCALED is not exp(Z) (erfcx(A) - erfcx(B))/2")
    z = exps[0].args[0]
    terms = sorted(diffs[0].args, key=lambda t: t.could_extract_minus_sign())
    a, b = terms[0].args[0], (-terms[1]).args[0]
    if sympy.simplify(z + a**2) != 0:
        raise TypeError("GAUSSIAN_DUAL_SCALED's exponent is not -A^2")
    d = sympy.simplify(b - a)
    coeffs = erfcx_polynomial()
    parts = dd_function_source(
        "gaussian_dual_scaled_parts",
        "(z_hi, z_lo, a, d) with GAUSSIAN_DUAL_SCALED = e^z (erfcx(a) - erfcx(a + d))/2, z = -a^2: z in\n"
        "    double-double, a and d in float64 (a from the double-double of its argument).",
        {"z": z}, {"a": a, "d": d}, (EPS, MU))
    text = (f"#: erfcx(x) = p(t)/(sqrt(pi) (x + K)), t = (x - K)/(x + K), x >= 0, p of these coefficients\n"
            f"#: (highest degree first): the ddfloat.tail_difference polynomial (codegen_float.erfcx_polynomial)\n"
            f"ERFCX_POLY_K = {float(ERFCX_K)!r}\n"
            f"ERFCX_POLY = (\n" + "".join(f"    {c!r},\n" for c in coeffs) + ")\n\n\n" + parts)
    sources: list[tuple[str, Any, tuple[str, ...]]] = []
    return text, sources
