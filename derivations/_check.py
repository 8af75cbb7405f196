"""Shared helper of the derivations: a 50-digit numeric check where sympy cannot close a step.

sympy's evalf has no erfcinv, so expressions are evaluated through gdpproof's certified
evaluator (ball arithmetic) at the given points; two expressions agree when their certified
50-digit values are within a few units of the last digit.
"""

from __future__ import annotations

import random
from fractions import Fraction

import sympy

from gdpproof.numeric.engine.certify import certify

DIGITS = 50


def value(expr: sympy.Expr, point: dict) -> Fraction:
    """The certified 50-digit value of expr at point (keys: symbol names)."""
    expr = sympy.sympify(expr)
    by_name = {s.name: s for s in expr.free_symbols}
    syms = tuple(by_name[n] for n in point if n in by_name)
    vals = tuple(sympy.Rational(point[s.name].numerator, point[s.name].denominator) for s in syms)
    return certify(expr, syms, vals, digits=DIGITS, rounding="nearest").to_fraction()


def agree(lhs: sympy.Expr, rhs: sympy.Expr, points: list[dict]) -> None:
    """Assert lhs = rhs to 50 digits at every point (the numeric substitute for simplify)."""
    for point in points:
        a, b = value(lhs, point), value(rhs, point)
        scale = max(abs(a), abs(b), Fraction(1, 10**300))
        assert abs(a - b) <= scale * Fraction(1, 10 ** (DIGITS - 3)), (point, float(a), float(b))


def random_points(seed: int, n: int, **ranges: tuple[str, str]) -> list[dict]:
    """n points with coordinates drawn (seeded) as exact decimals from the given ranges."""
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        point = {}
        for name, (lo, hi) in ranges.items():
            lo_f, hi_f = Fraction(lo), Fraction(hi)
            point[name] = lo_f + (hi_f - lo_f) * Fraction(rng.randrange(1, 10**6), 10**6)
        out.append(point)
    return out
