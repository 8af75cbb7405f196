"""The generated loss kernels (gdpproof/numeric/engine/_loss_kernels.py) equal what the engines
compiled at run time before them: the float64 functions return the arrays ``sympy.lambdify``'s
numpy/scipy code returns (bit for bit, NaN where it is NaN), the laws' arb CDFs the balls of the
run-time law kernels (printed with common subexpressions once, as the exact lattice compiled them), and every other arb
kernel the ball :func:`~gdpproof.numeric.engine.compile_arb.arb_function` returns for its
expression (same midpoint, same radius), so every bracket keeps its digits.  The freshness test is in
test_kernels.py.  Cost: about two seconds (one compilation of each expression).
"""

from __future__ import annotations

import inspect

import flint
import numpy as np
import pytest
import sympy

from gdpproof.numeric.engine import _loss_kernels as generated
from gdpproof.numeric.engine._ballfun import ERFC_NATIVE_BALL, arb_erfc, arb_erfcx, relation
from gdpproof.numeric.engine.codegen import LOSS_FAMILIES, cse_kernel_source
from gdpproof.numeric.engine.compile_arb import arb_function
from gdpproof.numeric.engine._mp import arb_precision
from gdpproof.symbolic import losses as sl
from gdpproof.symbolic.symbols import ell as ELL
from gdpproof.symbolic.symbols import x as X

#: parameters per family (doubles, as the engines pass them), the edges of their ranges included
PARAMETERS = {
    "gaussian": [(0.5,), (3.0,), (1e-3,)],
    "randomized_response": [(0.1,), (2.0,)],
    "k_randomized_response": [(0.7, 3.0), (2.0, 10.0)],
    "laplace": [(0.3,), (5.0,)],
    "subsampled_gaussian": [(1.1, 256 / 60000), (0.5, 0.5), (2.0, 1.0)],
    "symmetric_subsampled_gaussian": [(1.1, 0.01), (0.8, 0.3), (2.0, 1.0)],
}
ELLS = [-30.0, -2.5, -0.7, -1e-3, 0.0, 1e-9, 0.3, 0.7, 1.0, 2.0, 6.5, 40.0]


def _key(x: flint.arb) -> tuple:
    if x.is_nan():
        return ("nan",)
    return (x.mid().man_exp(), x.rad().man_exp()) if x.is_finite() else (str(x),)


def _keys(v: object) -> tuple:
    return tuple(_key(b) for b in v) if isinstance(v, tuple) else _key(v)  # type: ignore[arg-type]


@pytest.mark.parametrize("family", LOSS_FAMILIES)
def test_float_kernels_are_lambdify_bit_for_bit(family):
    fam = sl.FAMILIES[family]
    ells = np.array(ELLS)
    for kind in ("cdf", "sf"):
        for law in "PQ":
            ref = sympy.lambdify((ELL, *fam.parameters), getattr(fam, kind)[law], modules=["scipy", "numpy"])
            ours = getattr(generated, f"{family}__{kind}_float__{law}")
            assert inspect.getsource(ours).split(":", 1)[1] == inspect.getsource(ref).split(":", 1)[1]
            for params in PARAMETERS[family]:
                with np.errstate(all="ignore"):
                    a = np.broadcast_to(np.asarray(ref(ells, *params), dtype=float), ells.shape)
                    b = np.broadcast_to(np.asarray(ours(ells, *params), dtype=float), ells.shape)
                np.testing.assert_array_equal(a, b)


def law_kernel(family: str, kind: str, law: str):
    """What the engines ran before the laws' kernels were generated: the printed kernel with its
    common subexpressions once, executed here, or compile_arb's tree where the printer has no form."""
    fam = sl.FAMILIES[family]
    exprs = [getattr(fam, kind)[w] for w in law]
    symbols = (ELL, *fam.parameters)
    constants: dict[str, str] = {}
    try:
        src = cse_kernel_source("kernel", exprs, symbols, constants)
    except TypeError:
        fns = [arb_function(e, symbols) for e in exprs]
        return (lambda *a: fns[0](*a)) if len(fns) == 1 else (lambda *a: tuple(fn(*a) for fn in fns))
    namespace = {"flint": flint, "arb_erfc": arb_erfc, "arb_erfcx": arb_erfcx, "relation": relation,
                 "ERFC_NATIVE_BALL": ERFC_NATIVE_BALL}
    for name, ball in constants.items():
        namespace[name] = eval(ball, {"flint": flint})
    exec(compile(src, f"<{family}.{kind}[{law}]>", "exec"), namespace)
    return namespace["kernel"]


@pytest.mark.parametrize("family", LOSS_FAMILIES)
def test_arb_kernels_return_the_compiled_balls(family):
    fam = sl.FAMILIES[family]
    symbols = (ELL, *fam.parameters)
    pairs = []
    for kind in ("cdf", "sf"):
        for law in ("P", "Q", "PQ"):
            # the engines' law kernels before generation: printed with common subexpressions once,
            # compile_arb's tree where the printer had no form (law_kernel compiles the same way)
            pairs.append((getattr(generated, f"{family}__{kind}__{law}"), law_kernel(family, kind, law), True))
    if fam.partial is not None:
        pairs += [(getattr(generated, f"{family}__partial__{w}"), arb_function(fam.partial[w], symbols), True)
                  for w in "PQ"]
    if fam.x_of_ell is not None:
        pairs.append((generated.__dict__[f"{family}__x_of_ell"], arb_function(fam.x_of_ell, symbols), True))
    for which, end in zip(("support_lo", "support_hi"), fam.support):
        if end not in (sympy.oo, -sympy.oo):
            pairs.append((getattr(generated, f"{family}__{which}"), arb_function(end, fam.parameters), False))
    for bits in (128, 200):
        with arb_precision(bits):
            for params in PARAMETERS[family]:
                balls = [flint.arb(v) for v in params]
                for ours, ref, with_ell in pairs:
                    for e in (ELLS if with_ell else [None]):
                        args = ([flint.arb(e)] if with_ell else []) + balls
                        assert _keys(ours(*args)) == _keys(ref(*args)), (family, ours.__name__, bits, params, e)


@pytest.mark.parametrize("family", [f for f in LOSS_FAMILIES if sl.FAMILIES[f].integrand is not None])
def test_integrands_are_the_printed_pieces(family):
    fam = sl.FAMILIES[family]
    info = generated.FAMILIES[family]
    def ball(z: object) -> object:
        return flint.acb(z) if isinstance(z, int) else z

    names = {"exp": lambda z: ball(z).exp(), "log": lambda z: ball(z).log(), "sqrt": lambda z: ball(z).sqrt(),
             "pi": flint.arb.pi()}
    for law in "PQ":
        expr = fam.integrand[law]
        pairs = expr.as_expr_set_pairs() if isinstance(expr, sympy.Piecewise) else \
            [(expr, sympy.Interval(-sympy.oo, sympy.oo))]
        pieces = [(e, iv) for e, iv in pairs if e != 0]
        assert len(pieces) == len(info.integrand[law])
        for (e, _), (_, _, maker) in zip(pieces, info.integrand[law]):
            ref = arb_function(e, (X, *fam.parameters))
            ours = maker(**names)
            with arb_precision(128):
                for params in PARAMETERS[family][:2]:
                    for xv in (-3.0, 0.2, 0.5, 4.0):
                        got = ours(flint.acb(xv), *[flint.arb(v) for v in params])
                        want = ref(flint.arb(xv), *[flint.arb(v) for v in params])
                        assert got.real.overlaps(want) and got.imag == 0, (family, law, params, xv)
