"""The generated kernels (gdpproof/numeric/engine/_kernels.py) are fresh and equal the compiled forms.

The freshness test is the scipy ``_precompute`` discipline: the committed file must be exactly
what the generator writes today.  The equality tests check that each arb kernel returns the
same ball as :func:`gdpproof.numeric.engine.compiler.arb_function` on the same expression (same
midpoint, same radius), so both certified routes give the same digits.
"""

from __future__ import annotations

import math
from fractions import Fraction

import flint
import pytest

from gdpproof.numeric.engine import codegen as _codegen
from gdpproof.numeric.engine import _kernels
from gdpproof.numeric.engine._mp import arb_of_fraction, arb_precision
from gdpproof.numeric.engine.compiler import arb_function


def test_committed_kernels_are_what_the_generator_writes():
    assert _codegen.TARGET.read_text(encoding="utf-8") == _codegen.source(), (
        "gdpproof/numeric/engine/_kernels.py is stale: run python -m gdpproof.numeric.engine.codegen"
    )


def test_check_mode_reports_freshness(capsys):
    assert _codegen.main(["--check"]) == 0


def test_committed_loss_kernels_are_what_the_generator_writes():
    assert _codegen.LOSS_TARGET.read_text(encoding="utf-8") == _codegen.loss_source(), (
        "gdpproof/numeric/engine/_loss_kernels.py is stale: run python -m gdpproof.numeric.engine.codegen")


def _key(x: flint.arb) -> tuple:
    if x.is_nan():
        return ("nan",)
    return (x.mid().man_exp(), x.rad().man_exp()) if x.is_finite() else (str(x),)


# (epsilon, mu) from the solvers' ranges: both Piecewise branches of the log dual, tiny and huge mu
#: (epsilon, mu) of the conversion kernels; (sigma, p, steps) of the CLT kernels, which take three
POINTS = [
    (Fraction(0), Fraction(1), 1),
    (Fraction(1), Fraction(1), 100),
    (Fraction(1, 10), Fraction(3), 10**4),
    (Fraction(20), Fraction(1, 2), 7),
    (Fraction(1000), Fraction(1, 100), 10**9),
    (Fraction(7, 3), Fraction(10**6), 3),
    (Fraction(5), Fraction(1, 10**8), 10**6),
    (Fraction(10**6), Fraction(1, 1000), 2),
]


@pytest.mark.parametrize("name, meaning, expr, symbols", _codegen.kernels(), ids=lambda v: v if isinstance(v, str) else "")
def test_arb_kernel_equals_compiled_expression(name, meaning, expr, symbols):
    kernel = getattr(_kernels, name)
    compiled = arb_function(expr, symbols)
    for bits in (64, 200, 1000):
        with arb_precision(bits):
            for point in POINTS:
                args = tuple(arb_of_fraction(Fraction(v)) for v in point[:len(symbols)])
                assert _key(kernel(*args)) == _key(compiled(*args)), (name, bits, point)
            # a wide ball across the Piecewise breakpoint epsilon = mu^2/2 joins both branches
            wide = (flint.arb(0.5, 0.01), flint.arb(1), flint.arb(100))[:len(symbols)]
            assert _key(kernel(*wide)) == _key(compiled(*wide)), (name, bits, "wide")


@pytest.mark.parametrize("name, meaning, expr, symbols", _codegen.limb_kernels(), ids=lambda v: v if isinstance(v, str) else "")
def test_limb_kernel_encloses_the_value_to_its_bits(name, meaning, expr, symbols):
    # the kernels whose erfc runs at a precision of their own (erfc_at, last argument): a ball
    # that contains the value (the compiled expression's at 600 bits), about as tight as that
    # precision and the operations' allow, with the operations' precision restored
    kernel = getattr(_kernels, name)
    compiled = arb_function(expr, symbols)
    for point in POINTS:
        args = tuple(arb_of_fraction(Fraction(v)) for v in point[:len(symbols)])
        with arb_precision(600):
            exact = compiled(*args)
        for ops, bits in ((128, 108), (192, 150), (64, 40)):
            with arb_precision(ops):
                got = kernel(*args, bits)
                assert flint.ctx.prec == ops
            assert got.overlaps(exact), (name, point, ops, bits)
            if exact.rel_accuracy_bits() > 500 and not exact.is_zero():
                assert got.rel_accuracy_bits() >= min(bits, ops) - 45, (name, point, ops, bits, got)


def test_erfc_at_encloses_erfc_and_restores_the_precision():
    # all of its routes: erfc's cell polynomials (-8 <= z < 10 at bits <= CELL_BITS, here 100),
    # and otherwise (here 119 bits) 1 - erf for z <= 1, arb's erfc above, arb_erfc beyond 1e5,
    # through python-flint's ctx._prec: the precision arb reads, which the prec setter sets (if a
    # python-flint release changed that, this fails rather than the hot path slowing silently)
    from gdpproof.numeric.engine._ballfun import arb_erfc, erfc_at

    with arb_precision(128):
        flint.ctx._prec = 70
        assert flint.ctx.prec == 70 and (flint.arb(1) / 3).rel_accuracy_bits() < 72
        flint.ctx._prec = 128
        for bits in (100, 119):
            for z in (-30.0, -3.0, -1e-9, 1 / 3, 1.0, 1.5, 2.5, 9.0, 40.0, 2e5):
                y = erfc_at(flint.arb(z) * (1 + flint.arb(2) ** -120), bits)
                assert flint.ctx.prec == 128
                with arb_precision(400):
                    exact = arb_erfc(flint.arb(z) * (1 + flint.arb(2) ** -120))
                assert y.overlaps(exact), z
                # (at 2e5 the argument's own radius, 2^-128 relative, leaves erfc about 64 bits)
                assert y.rel_accuracy_bits() >= (96 if abs(z) < 100 else 60), (z, y)
    with arb_precision(256):  # a request above CELL_BITS is not served by the 128-bit table
        assert erfc_at(flint.arb(1) / 3, 240).rel_accuracy_bits() >= 240


@pytest.mark.parametrize("name, meaning, expr, symbols", _codegen.float_kernels(), ids=lambda v: v if isinstance(v, str) else "")
def test_float_kernel_close_to_balls(name, meaning, expr, symbols):
    kernel = getattr(_kernels, name)
    compiled = arb_function(expr, symbols)
    # (epsilon, mu) points; the epsilon start's kernel takes (delta, mu), delta in its tail domain
    points = [(0.0, 1.0), (1.0, 1.0), (0.1, 3.0), (20.0, 0.5), (30.0, 1.0), (300.0, 5.0), (2.0, 0.01)] \
        if symbols[0].name != "delta" else [(1e-3, 1.0), (1e-10, 0.5), (1e-5, 3.0), (1e-100, 1.0), (1e-300, 10.0)]
    for e, m in points:
        with arb_precision(128):
            exact = float(compiled(flint.arb(e), flint.arb(m)).mid())
        got = kernel(e, m)
        assert math.isclose(got, exact, rel_tol=1e-11, abs_tol=1e-300), (name, e, m, got, exact)


@pytest.mark.parametrize("name, meaning, exprs, symbols", _codegen.fused_kernels())
def test_fused_kernel_equals_each_compiled_expression(name, meaning, exprs, symbols):
    kernel = getattr(_kernels, name)
    compiled = [arb_function(e, symbols) for e in exprs]
    for bits in (64, 200):
        with arb_precision(bits):
            for e, m, _ in POINTS:
                args = (arb_of_fraction(e), arb_of_fraction(m))
                got = kernel(*args)
                assert len(got) == len(compiled)
                for value, fn in zip(got, compiled):
                    assert _key(value) == _key(fn(*args)), (name, bits, e, m)
