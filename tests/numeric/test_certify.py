"""Certified digits: rounding direction, exact fallbacks, refusal, and independent oracles."""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction

import pytest
import sympy

import gdpproof
from gdpproof.numeric.engine.certify import Certified, certify, certify_enclosure, round_fraction
from gdpproof.symbols import alpha
from tests.oracles import assert_certified, gaussian_delta, gaussian_tradeoff, pure_dp_mu


@pytest.mark.parametrize(
    ("x", "digits", "rounding", "expected"),
    [
        (Fraction(1, 3), 3, "up", (334, -3)),
        (Fraction(1, 3), 3, "down", (333, -3)),
        (Fraction(2, 3), 3, "nearest", (667, -3)),
        (Fraction(-1, 3), 2, "up", (-33, -2)),
        (Fraction(-1, 3), 2, "down", (-34, -2)),
        (Fraction(9999, 10000), 3, "up", (100, -2)),  # carries into a new digit
        (Fraction(1, 10**400), 2, "down", (10, -401)),
        (Fraction(10**50 + 1), 5, "up", (10001, 46)),
    ],
)
def test_round_fraction(x, digits, rounding, expected):
    assert round_fraction(x, digits, rounding) == expected


@pytest.mark.parametrize("digits", [5, 15, 30, 60, 120])
@pytest.mark.parametrize("a", ["0.05", "0.3", "0.5", "0.9", "1e-9"])
def test_gaussian_tradeoff_matches_oracle(a, digits):
    for rounding in ("down", "up", "nearest"):
        v = gdpproof.gaussian("1.5").evaluate(a, digits=digits, rounding=rounding)
        assert v.digits == digits and v.rounding == rounding
        assert_certified(v, gaussian_tradeoff("1.5", Fraction(a)), digits)


@pytest.mark.parametrize("mu", ["0.01", "0.5", "1", "3", "10"])
@pytest.mark.parametrize("eps", ["0", "0.1", "1", "5"])
def test_gaussian_delta_matches_oracle_and_rounds_up(mu, eps):
    d = gdpproof.gaussian(mu).delta(eps, digits=30)
    assert d.rounding == "up"
    assert_certified(d, gaussian_delta(Fraction(mu), Fraction(eps)), 30)


def test_headline_values():
    # Issue 2: delta(1) for mu = 1 is 0.12693673750664394580082962475776688041508065011...,
    # so to 40 digits rounded up it ends in ...804151.
    assert str(gdpproof.gaussian(1).delta(1, digits=40)) == "0.1269367375066439458008296247577668804151"
    assert_certified(gdpproof.gaussian(1).evaluate("0.05", digits=40), gaussian_tradeoff(1, Fraction(1, 20)), 40)


def test_pure_dp_mu_matches_oracle():
    for eps in ("0.1", "1", "3"):
        assert_certified(gdpproof.tightest_mu(gdpproof.randomized_response(eps), digits=25), pure_dp_mu(Fraction(eps)), 25)


def test_exact_values_use_exact_arithmetic():
    g = gdpproof.gaussian(2)
    assert g.evaluate(0, digits=10) == 1 and g.evaluate(0, digits=10).method == "exact"
    assert g.evaluate(1, digits=10) == 0
    ident = gdpproof.eps_delta(0, 0)
    v = ident.evaluate("0.95", digits=10, rounding="up")  # 1 - alpha = 0.05 exactly: no ball decides it
    assert v == Decimal("0.05") and v.method == "exact"
    assert str(v) == "0.05000000000"  # trailing zeros are certified digits too


def test_precision_error_when_undecidable():
    # sin(pi * alpha) at alpha = 1 is exactly 0, but sympy cannot see through this form exactly
    # and the ball straddles 0 for ever: the answer must be a refusal, not a guess.
    def enclose(bits):
        return (Fraction(-1, 2**bits), Fraction(1, 2**bits))

    with pytest.raises(gdpproof.PrecisionError):
        certify_enclosure(enclose, digits=10, rounding="up", max_bits=4096)


def test_certified_is_a_decimal_and_pickles():
    import pickle

    v = gdpproof.gaussian(1).delta(1, digits=12)
    assert isinstance(v, Decimal) and isinstance(v, Certified)
    w = pickle.loads(pickle.dumps(v))
    assert w == v and w.rounding == "up" and w.digits == 12
    assert float(v) == pytest.approx(0.12693673750664394)


def test_string_arguments_are_exact():
    # "0.1" is 1/10; 0.1 is the double 0.1000000000000000055511151231257827...
    a = gdpproof.gaussian(1).evaluate("0.1", digits=30)
    b = gdpproof.gaussian(1).evaluate(0.1, digits=30)
    c = gdpproof.gaussian(1).evaluate(Fraction(1, 10), digits=30)
    d = gdpproof.gaussian(1).evaluate(Decimal("0.1"), digits=30)
    assert a == c == d != b


def test_certify_generic_expression():
    v = certify(sympy.exp(alpha) - 1, (alpha,), (sympy.Rational(1, 10**30),), digits=20, rounding="nearest")
    assert str(v) == "1.0000000000000000000E-30"


def test_floats_in_templates_are_exact_binary_values_never_guessed():
    # a sympy Float 0.1 in a template is 0.1000000000000000055511151231257827..., not 1/10
    f = gdpproof.TradeOff(1 - sympy.Float(0.1) * alpha, name="float_template")
    v = f.evaluate(1, digits=20, rounding="up")
    assert 1 - Fraction(0.1) <= v.to_fraction() < 1 - Fraction(0.1) + Fraction(1, 10**20)
    # an exact value at a decimal boundary (Float 0.5 is exactly 1/2) goes through the exact
    # path, which must use the binary value rather than a guess
    g = gdpproof.TradeOff(1 - sympy.Float(0.5) * alpha, name="half")
    w = g.evaluate("0.2", digits=10, rounding="down")  # exactly 0.9: no ball decides it
    assert w == Decimal("0.9") and w.method == "exact"


@pytest.mark.timeout(60)
@pytest.mark.parametrize("eps", ["1e10", "1e20"])
def test_a_ball_around_zero_with_a_huge_radius_is_refused_quickly(eps):
    # delta(1e10) of G_1 is about 10^(-2.2e19); at the first precision its ball is [+/- 2^(-7e19)],
    # whose radius once made certify build a 7e19-bit integer (it hung)
    with pytest.raises(gdpproof.PrecisionError, match="beyond what a Decimal can hold"):
        gdpproof.delta_from_epsilon(1, eps, digits=10)


@pytest.mark.timeout(60)
def test_huge_mu_is_answered_quickly():
    # found by a review of the tables: at mu = 1e20 the ball of delta has a radius of 2^(-7e38)
    # below a midpoint near 1 (it hung building that Fraction); mu = 1e400 overflowed a float
    assert gdpproof.delta_from_epsilon("1e20", 1, digits=10) == Decimal("1.000000000")
    assert gdpproof.delta_from_epsilon("1e400", 1, digits=10) == Decimal("1.000000000")
    # eps = mu^2/2 + mu Phi^{-1}(1 - delta) + ...: 5e799 and 5e39 to ten digits, rounded up
    assert gdpproof.epsilon_from_delta("1e400", "1e-5", digits=10) == Decimal("5.000000001E+799")
    assert gdpproof.epsilon_from_delta("1e20", "1e-5", digits=10) == Decimal("5.000000001E+39")


def test_an_exact_value_outside_the_proven_enclosure_is_refused():
    # defence in depth (found by review: a wrong "exact" envelope value was certified as is): the
    # ball [0.19, 0.21] cannot decide 2 digits, and the offered exact value 0.175 lies outside it
    def enclose(bits):
        return Fraction(19, 100), Fraction(21, 100)

    with pytest.raises(gdpproof.PrecisionError):
        certify_enclosure(enclose, digits=2, rounding="down", exact=lambda: sympy.Rational(7, 40))


@pytest.mark.parametrize("route", ["scaled", "decimal"])
def test_directed_rounding_in_arb_equals_the_fraction_route(route):
    # certify_enclosure rounds most balls in arb: by arb's ceiling or floor of the ball scaled by
    # a power of ten (_scaled_text), else in integers from arb's decimal conversion
    # (_decimal_text); where a route decides, it must give exactly the decimal the exact-Fraction
    # route gives
    import random

    import flint

    from gdpproof.numeric.engine._mp import arb_endpoints, arb_precision
    from gdpproof.numeric.engine.certified import decide, _decimal_text, _scaled_text

    if route == "scaled":
        def _directed_text(x, digits, rounding):
            return _scaled_text(x, digits, rounding == "up")
    else:
        _directed_text = _decimal_text
    rng = random.Random(5)
    decided = 0
    for _ in range(3000):
        digits = rng.choice([1, 2, 5, 15, 30, 50])
        with arb_precision(rng.choice([40, 64, 132, 300])):
            if rng.random() < 0.3:  # short decimals: balls around an exact d-digit value
                mid = flint.arb(rng.randint(1, 10**digits)) * flint.arb(10) ** rng.randint(-20, 20)
            else:
                mid = flint.arb(rng.uniform(1, 10)) * flint.arb(10) ** rng.randint(-300, 300)
            mid = mid if rng.random() < 0.7 else -mid
            x = flint.arb(mid.mid(), flint.arb(2) ** rng.randint(-400, -5) * abs(mid).mid())
            for rounding in ("up", "down"):
                fast = _directed_text(x, digits, rounding)
                if fast is None:
                    continue
                decided += 1
                lo, hi = arb_endpoints(x)
                slow = decide(lo, hi, digits, rounding)
                assert slow is not None and str(Decimal(fast)) == str(slow), (x, digits, rounding, fast, slow)
    assert decided > 1500  # the fast route is taken (wide balls decide on neither route)


def test_float_hot_path_of_delta_matches_the_oracle():
    # float (mu, eps) take one evaluation at the first precision and the integer rounding of
    # arb's decimal conversion (numeric.certified.certify_exact_balls); each result must be the
    # exact delta rounded up to exactly `digits` digits
    import random

    rng = random.Random(11)
    for _ in range(40):
        mu, eps = rng.uniform(0.05, 8.0), rng.choice([0.0, rng.uniform(0.0, 30.0)])
        digits = rng.choice([1, 3, 17, 30, 45])
        value = gdpproof.delta_from_epsilon(mu, eps, digits=digits)
        assert value.method == "arb" and len(value.as_tuple().digits) == digits, value
        assert_certified(value, gaussian_delta(Fraction(mu), Fraction(eps)), digits)


def test_delta_hot_path_left_undecided_takes_the_general_route():
    # delta at (mu, eps) = (2.45, 38.52) lies so close to a 30-digit boundary that the hot path's
    # one ball (128 bits, its erfcs from the cell polynomials, 6 bits cancelled: erfcs asked at
    # 100 + 8 + 3 bits, gaussian_dual_at) does not decide it (found by a search of 2-decimal
    # inputs: about 1 in 10^4 with eps/mu^2 in [1, 8]), and the general route (working_bits,
    # doubling) gives the exact value rounded up
    from gdpproof.numeric.engine._kernels import gaussian_dual_at
    from gdpproof.numeric.engine.certified import certify_at_floats
    from gdpproof.numeric.engine.erfc_cells import BUILD_AFTER

    for _ in range(BUILD_AFTER):  # the cells of both inputs' erfc arguments built
        certify_at_floats(gaussian_dual_at, 38.52, 2.45, 30, 128, 111)
        certify_at_floats(gaussian_dual_at, 2.42, 1.37, 30, 128, 109)
    assert certify_at_floats(gaussian_dual_at, 38.52, 2.45, 30, 128, 111) is None
    value = gdpproof.delta_from_epsilon(2.45, 38.52)
    assert str(value) == "9.02122330112924787757417287575E-49"
    assert_certified(value, gaussian_delta(Fraction(2.45), Fraction(38.52)), 30)
    # (1.37, 2.42), within about 1e-31 of a boundary, was undecided by arb's erfc at 109 bits
    # and is decided by the cells' 123 or so, to the same digits
    assert certify_at_floats(gaussian_dual_at, 2.42, 1.37, 30, 128, 109) == gdpproof.delta_from_epsilon(1.37, 2.42)
    # a decided one comes from that first ball, with the same digits as the general route's
    first = certify_at_floats(gaussian_dual_at, 1.0, 1.0, 30, 128, 108)
    assert first is not None and first == gdpproof.delta_from_epsilon(1, 1) and first.method == "arb"


def test_scaled_rounding_carries_and_signs():
    # the ceiling (or a negative floor) that carries into a new digit is renormalised: just
    # below 1 rounds up to 1.00, just above -1 rounds down to -1.00; the other direction there
    # has one digit fewer than the float's magnitude announced, which this route may decline
    # (the other routes settle it); a ball across a decimal decides nothing
    import flint

    from gdpproof.numeric.engine._mp import arb_precision
    from gdpproof.numeric.engine.certified import _scaled_text

    with arb_precision(132):
        below_one = 1 - flint.arb(2) ** -100  # exact
        assert Decimal(_scaled_text(below_one, 3, True)) == 1
        assert Decimal(_scaled_text(-below_one, 3, False)) == -1
        assert _scaled_text(below_one, 3, False) in (None, "999E-3")
        assert _scaled_text(-below_one, 3, True) in (None, "-999E-3")
    assert str(certify_enclosure(lambda bits: below_one, digits=3, rounding="down")) == "0.999"
    assert str(certify_enclosure(lambda bits: -below_one, digits=3, rounding="up")) == "-0.999"
    with arb_precision(132):
        assert _scaled_text(flint.arb("0.125", "1e-20"), 2, True) == "13E-2"
        assert _scaled_text(flint.arb("0.13", "1e-20"), 2, True) is None  # 0.12999.. and 0.13000..1 differ
        assert _scaled_text(flint.arb(1) / 3, 30, True) == "3" * 29 + "4E-30"
