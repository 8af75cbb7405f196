"""The public surface: __all__ is exact and every public name is documented."""

from __future__ import annotations

import inspect

import gdpproof


def test_all_is_exactly_the_public_names():
    public = {n for n in vars(gdpproof) if not n.startswith("_")} - {"annotations"}
    # submodules imported as a side effect of importing the package are not API
    public -= {n for n in public if inspect.ismodule(getattr(gdpproof, n)) and n != "symbols"}
    assert set(gdpproof.__all__) - {"__version__"} == public


def test_every_public_name_is_documented():
    for name in gdpproof.__all__:
        obj = getattr(gdpproof, name)
        if name == "__version__":
            continue
        assert inspect.getdoc(obj), name
        if inspect.isclass(obj):
            for meth, member in vars(obj).items():
                if not meth.startswith("_") and callable(member):
                    assert inspect.getdoc(member), f"{name}.{meth}"


def test_no_global_mpmath_state_is_touched():
    import mpmath

    before = mpmath.mp.prec
    gdpproof.gaussian(1).evaluate_mpmath("0.3", dps=80)
    gdpproof.gaussian(1).evaluate("0.3", digits=200)
    assert mpmath.mp.prec == before


def test_flint_precision_is_restored():
    import flint

    before = flint.ctx.prec
    gdpproof.laplace(1).delta("0.5", digits=50)
    assert flint.ctx.prec == before
