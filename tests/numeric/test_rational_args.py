"""The Fraction parsers of gdpproof._args (the *_fraction functions) give exactly what its sympy
parsers give, with the same messages, without sympy."""

from __future__ import annotations

import math
from decimal import Decimal
from fractions import Fraction

import mpmath
import numpy as np
import pytest
import sympy

from gdpproof import _args
from gdpproof.errors import InvalidParameterError
from gdpproof.numeric.tradeoff import solve
from gdpproof.numeric.engine.certified import Certified
from gdpproof.numeric.engine.certify import certify
from gdpproof.symbolic.symbols import epsilon as EPS
from gdpproof.symbolic.symbols import mu as MU
from gdpproof.symbolic.tradeoff import GAUSSIAN_DUAL, GAUSSIAN_LOG_DUAL

VALUES = [0, 1, 7, -3, 0.1, 1e-300, -0.0, 2.5, float("nan"), float("inf"), -float("inf"), Fraction(10, 3),
          Decimal("0.1"), Decimal("NaN"), Decimal("-Infinity"), "0.1", " 1_000 ", "10/3", "1/0", "1e-5", "inf",
          "nan", "sqrt(2)", "abc", "1e1000001", True, None, [1], mpmath.mpf("0.1"), mpmath.mpf("nan"),
          np.float64(0.25), np.int64(3), sympy.Rational(1, 3), sympy.sqrt(2), sympy.Symbol("z"), sympy.oo]


def _sympy_route(kind, name, value, infinite=False):
    if kind == "nonnegative":
        return _args.rational(name, _args.nonnegative(name, value, symbolic=False, infinite=infinite))
    if kind == "positive":
        return _args.rational(name, _args.positive(name, value, symbolic=False))
    if kind == "probability":
        return _args.rational(name, _args.probability(name, value, symbolic=False))
    return _args.rational(name, _args.exact(name, value, symbolic=False, infinite=infinite))


def _plain_route(kind, name, value, infinite=False):
    if kind == "nonnegative":
        return _args.nonnegative_fraction(name, value, infinite=infinite)
    if kind == "positive":
        return _args.positive_fraction(name, value)
    if kind == "probability":
        return _args.probability_fraction(name, value)
    return _args.rational_fraction(name, value, infinite=infinite)


def _outcome(fn, *args, **kwargs):
    try:
        v = fn(*args, **kwargs)
    except (InvalidParameterError, TypeError, ValueError) as exc:
        return type(exc).__name__, str(exc)
    if v in (sympy.oo, math.inf):
        return "inf"
    if v in (-sympy.oo, -math.inf):
        return "-inf"
    return Fraction(int(v.p), int(v.q)) if isinstance(v, sympy.Basic) else v


@pytest.mark.parametrize("kind", ["nonnegative", "positive", "probability", "rational"])
@pytest.mark.parametrize("infinite", [False, True])
def test_same_values_and_messages_as_args(kind, infinite):
    if infinite and kind in ("positive", "probability"):
        return
    for value in VALUES:
        got = _outcome(_plain_route, kind, "x", value, infinite)
        want = _outcome(_sympy_route, kind, "x", value, infinite)
        assert got == want, (kind, value)


@pytest.mark.parametrize("mu, eps", [(1, 1), ("0.5", 20), (3, "0.001"), ("1e-3", 2), (40, 1000)])
def test_kernel_route_equals_compiled_route(mu, eps):
    """delta from the generated kernel = delta from the sympy-compiled expression, digit for digit."""
    m, e = _args.exact("mu", mu), _args.exact("epsilon", eps)
    for digits in (5, 30, 60):
        via_kernel = solve.delta_from_epsilon(mu, eps, digits=digits)
        compiled = certify(GAUSSIAN_DUAL, (EPS, MU), (e, m), digits=digits, rounding="up", unit_interval=True)
        assert isinstance(via_kernel, Certified)
        assert (str(via_kernel), via_kernel.rounding, via_kernel.method) == (str(compiled), "up", compiled.method)
        log_kernel = solve.log_delta_from_epsilon(mu, eps, digits=digits)
        log_compiled = certify(GAUSSIAN_LOG_DUAL, (EPS, MU), (e, m), digits=digits, rounding="up")
        assert str(log_kernel) == str(log_compiled)


def test_sympy_arguments_still_work():
    assert solve.delta_from_epsilon(sympy.Integer(1), sympy.Integer(1), digits=20) == solve.delta_from_epsilon(1, 1, digits=20)
    irrational = solve.delta_from_epsilon(sympy.sqrt(2), 1, digits=20)
    assert str(irrational) == "0.28620821192209649780"
    assert solve.epsilon_from_delta(sympy.Rational(1, 2), sympy.Rational(1, 10**5), digits=10) == \
        solve.epsilon_from_delta("0.5", "1e-5", digits=10)
    with pytest.raises(InvalidParameterError, match="mu=z is symbolic"):
        solve.delta_from_epsilon(sympy.Symbol("z"), 1)
    # an irrational mu is enclosed between rationals: eps(1e-5) of G_sqrt2 is 6.57297006703033150316...
    # (mpmath at 60 digits), rounded up
    assert str(solve.epsilon_from_delta(sympy.sqrt(2), "1e-5", digits=20)) == "6.5729700670303315032"


def test_an_irrational_negative_epsilon_at_mu_zero_is_taken_on_the_safe_side():
    # delta of the identity is 1 - e^eps: an irrational eps < 0 (it was refused as "must be a
    # rational number" at mu = 0 only) is taken just below itself, which rounds delta up
    from gdpproof.errors import RoundedArgumentWarning

    with pytest.warns(RoundedArgumentWarning):
        d = solve.delta_from_epsilon(0, -sympy.log(3), digits=20)
    assert str(d) == "0.66666666666666666667" and d.rounding == "up"


@pytest.mark.parametrize(("call", "message"), [
    (lambda: solve.epsilon_from_delta(1, sympy.sqrt(2)), "delta=sqrt(2) must be in [0, 1]"),
    (lambda: solve.mu_from_epsilon_delta(-sympy.log(3), "1e-5"), "epsilon=-log(3) must be >= 0"),
    (lambda: solve.mu_from_epsilon_delta(1, sympy.pi), "delta=pi must be in [0, 1]"),
    (lambda: solve.sigma_from_epsilon_delta(-sympy.E, "1e-5"), "epsilon=-E must be >= 0"),
    (lambda: solve.sigma_from_epsilon_delta(1, "1e-5", sensitivity=-sympy.sqrt(3)), "sensitivity=-sqrt(3) must be >= 0"),
])
def test_a_refused_irrational_argument_is_shown_as_given(call, message):
    # the solvers take an irrational argument as a rational beside it: a refusal names the value
    # the user gave (it showed the rational, "delta=~1.41421e+0"), and no rounding warning precedes it
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(InvalidParameterError) as info:
            call()
    assert str(info.value) == message


def test_an_accepted_irrational_argument_still_warns_from_the_callers_line():
    from gdpproof.errors import RoundedArgumentWarning

    with pytest.warns(RoundedArgumentWarning, match="delta=exp\\(-10\\) is irrational") as record:
        solve.mu_from_epsilon_delta(1, sympy.exp(-10), digits=10)
    assert all(w.filename == __file__ for w in record)


def test_an_irrational_argument_just_outside_its_domain_is_refused():
    # the rational standing in for 1 + exp(-1000) may lie at or below 1: both ends of its
    # enclosure are judged, the enclosure narrowed until they agree
    import sympy

    from gdpproof import epsilon_from_delta
    from gdpproof.errors import InvalidParameterError, PrecisionError, RoundedArgumentWarning

    with pytest.raises(InvalidParameterError, match=r"delta=exp\(-1000\) \+ 1 must be in \[0, 1\]"):
        epsilon_from_delta(1, sympy.sympify("1 + exp(-1000)"))
    with pytest.warns(RoundedArgumentWarning):
        assert str(epsilon_from_delta(1, sympy.sympify("1 - exp(-1000)"))) == "0"
    with pytest.raises(PrecisionError, match="not decided"):
        epsilon_from_delta(1, sympy.sympify("1 + exp(-10000)"))
