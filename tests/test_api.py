"""The public surface: __all__ is exact and every public name is documented."""

from __future__ import annotations

import inspect

import gdpproof


def test_all_is_exactly_the_public_names():
    # dir(), not vars(): the package loads its public names on first use (PEP 562)
    public = {n for n in dir(gdpproof) if not n.startswith("_")} - {"annotations"}
    # submodules imported as a side effect of importing the package are not API
    public -= {n for n in public if inspect.ismodule(getattr(gdpproof, n)) and n != "symbols"}
    assert set(gdpproof.__all__) - {"__version__"} == public


def test_every_lazy_name_is_public_and_resolves():
    lazy = set(gdpproof._WHERE) | set(gdpproof._SUBMODULES)
    assert lazy <= set(gdpproof.__all__)
    for name in lazy:
        assert getattr(gdpproof, name) is not None, name
    assert "gdpproof.numeric" in __import__("sys").modules  # symbolic values find their numeric methods


def test_an_unknown_name_is_an_attribute_error():
    import pytest

    with pytest.raises(AttributeError, match="no attribute 'no_such_name'"):
        gdpproof.no_such_name  # noqa: B018


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


def test_no_public_name_is_also_a_submodule():
    """A public name that shared a submodule's name (the function ``account`` and the old module
    gdpproof/account.py) was hidden whenever the submodule was imported; the accounting package
    has no such name, and none may come back (``symbols`` is the submodule itself)."""
    import importlib.util

    clashes = [name for name in gdpproof.__all__ if name != "symbols" and not name.startswith("__")
               and importlib.util.find_spec(f"gdpproof.{name}") is not None]
    assert not clashes
