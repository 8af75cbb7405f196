"""The accurate float64 Gaussian dual of ``gdpproof.fast``, generated from the symbolic form.

Part of :mod:`gdpproof.numeric.engine.codegen` (which writes its text into
:mod:`gdpproof.numeric.engine._loss_kernels`): from
:data:`gdpproof.symbolic.tradeoff.GAUSSIAN_DUAL_SCALED` = e^Z (erfcx(A) - erfcx(B))/2 it checks
Z = -A^2 and finds D = B - A, then prints a function giving Z in double-double arithmetic (the
operations of :mod:`gdpproof.numeric.engine.ddfloat`, one per node of Z's expression), A and D in
float64; and it fits the polynomial of erfcx that :func:`gdpproof.numeric.engine.ddfloat.tail_difference`
evaluates (Chebyshev interpolation in mpmath of sqrt(pi) (x + K) erfcx(x) in t = (x - K)/(x + K),
converted to monomials).  So the formula is still written once, in :mod:`gdpproof.symbolic`.
"""

from __future__ import annotations

from typing import Any

import sympy

__all__ = ["ERFCX_K", "ERFCX_TERMS", "erfcx_polynomial", "dd_function_source", "dual_parts_source"]

#: The polynomial's centre K and number of coefficients: with K = 4, 23 coefficients interpolate
#: sqrt(pi) (x + K) erfcx(x) (between 1 and 7.1 on x >= 0) to about 1e-16 (24 give 4e-17, 22
#: 1e-15; the float64 delta's largest error measured 1.09e-15 with 23, 1.03e-15 with 24).
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


def dd_function_source(name: str, doc: str, exact: dict[str, sympy.Expr], rounded: dict[str, sympy.Expr],
                       symbols: tuple[sympy.Symbol, ...]) -> str:
    """A function of float64 arrays (the ``symbols``, taken as exact) returning each expression of
    ``exact`` as a double-double (hi, lo), one ddfloat operation per node (rationals must be
    powers of two, a scaling; powers -1 or 2), then each of ``rounded`` as a float64 array: a
    constant times a symbol or a node already printed (its hi + lo times the constant rounded),
    so that shared subexpressions are computed once.  TypeError for anything else."""
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
                return out(f"dd_scale({hi}, {lo}, {float(coeff)!r})")
            num: list[sympy.Expr] = []
            den: list[sympy.Expr] = []
            for f in e.args:
                (den if f.is_Pow and f.exp == -1 else num).append(f.base if f.is_Pow and f.exp == -1 else f)
            if not num:
                raise TypeError(f"{name}: a bare reciprocal")
            acc = node(num[0])
            for f in num[1:]:
                acc = out(f"dd_mul({acc[0]}, {acc[1]}, {', '.join(node(f))})")
            for f in den:
                acc = out(f"dd_div({acc[0]}, {acc[1]}, {', '.join(node(f))})")
            return acc
        if e.is_Add:
            acc = node(e.args[0])
            for f in e.args[1:]:
                acc = out(f"dd_add({acc[0]}, {acc[1]}, {', '.join(node(f))})")
            return acc
        if e.is_Pow and e.exp == 2:
            hi, lo = node(e.base)
            return out(f"dd_mul({hi}, {lo}, {hi}, {lo})")
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
        lines.append(f"    {key} = {hi} * {c}" if lo == "None" else
                     f"    {key} = ({hi} if {lo} is None else {hi} + {lo}) * {c}")
        results.append(key)
    body = "\n".join(lines)
    shown = "; ".join(f"{k} = {e}" for k, e in {**exact, **rounded}.items())
    return (f"def {name}({', '.join(names[s] for s in symbols)}):\n    \"\"\"{doc}\n\n    {shown}\n    \"\"\"\n"
            f"{body}\n    return {', '.join(results)}\n")


def _is_power_of_two(r: sympy.Rational) -> bool:
    p, q = int(r.p), int(r.q)
    return (p & (p - 1)) == 0 and (q & (q - 1)) == 0


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
