"""Issue 33: inputs whose work is unbounded are refused before it starts, with a message naming
the limit, and inputs with an easy answer get it.  Each reproducer here hung (over 60 s of CPU)."""

from __future__ import annotations

from fractions import Fraction

import pytest
import sympy

import gdpproof
from gdpproof.mechanisms import Composed, GaussianMechanism, LaplaceMechanism, PoissonSampled, Repeated


def test_t_runs_of_a_gaussian_are_answered_as_convert_answers_mu():
    """sqrt(T)/sigma-GDP at T = 10^9: the profile search took minutes (its deltas are decimals of
    millions of digits); now the certified solver, from rationals around sqrt(10^9)."""
    acc = gdpproof.account(Repeated(GaussianMechanism(1), 10**9), delta="1e-5", digits=12)
    assert acc.route == "exact"
    # mu = sqrt(10^9) lies between these two; epsilon grows with mu, and both round up alike
    low = gdpproof.epsilon_from_delta(Fraction(316227766016837933, 10**13), "1e-5", digits=12)
    high = gdpproof.epsilon_from_delta(Fraction(316227766016837934, 10**13), "1e-5", digits=12)
    assert str(low) == str(high) == str(acc.epsilon)
    # a sample rate of 1 takes every record: the same mechanism, the same answer
    same = gdpproof.account(Repeated(PoissonSampled(GaussianMechanism(1), 1), 10**9), delta="1e-5", digits=12)
    assert same.route == "exact" and str(same.epsilon) == str(acc.epsilon)
    # sigma = 1e-5 is 1e5-GDP
    tiny = gdpproof.account(GaussianMechanism("1e-5"), delta="1e-5", digits=12)
    assert str(tiny.epsilon) == str(gdpproof.epsilon_from_delta(10**5, "1e-5", digits=12))


def test_epsilon_of_an_irrational_mu_is_bracketed_by_rationals():
    e = gdpproof.epsilon_from_delta(sympy.sqrt(2), "1e-5", digits=20)
    lo = gdpproof.epsilon_from_delta(Fraction(14142135623730950488, 10**19), "1e-5", digits=20)
    hi = gdpproof.epsilon_from_delta(Fraction(14142135623730950489, 10**19), "1e-5", digits=20)
    assert lo <= e <= hi and e.rounding == "up"


def test_a_delta_of_a_hundred_million_digits_has_its_lower_neighbour():
    """The proven lower end of a certified delta = 9.7E-54286816 was made as a Fraction of
    10^54286816 (minutes); now in the decimal's integers."""
    acc = gdpproof.account(Repeated(GaussianMechanism(1), 10**9), epsilon=10**9, digits=6)
    assert acc.delta_upper.adjusted() == acc.delta_lower.adjusted() < -54_000_000
    assert str(acc.delta_upper).startswith("9.72619E") and str(acc.delta_lower).startswith("9.72618E")


def test_verify_compares_with_a_far_exact_value_without_forming_it(tmp_path, monkeypatch):
    """rr-composition at n = 10^12 has beta = 7.6E-200694931398: its Fraction took minutes to form.
    The stand-in interval gives every value the verdict the exact enclosure gives (checked at a
    scale where the exact one is cheap: values within 10^+-40 of few digits, _FAR = 60)."""
    from decimal import Decimal

    from gdpproof.numeric.engine.certify import Certified
    from gdpproof.reference import verify

    monkeypatch.setattr(verify, "_FAR", 60)
    for sign in ("", "-"):
        for digits in ("7.5", "1.0", "9.99"):
            ref = Certified(f"{sign}{digits}E-63", digits=len(digits) - 1, rounding="down", method="arb")
            for v in ("0", "0.1", "-0.1", "1E-40", "-1E+40", "9.9E+39", "0E-40", "7.5E-40"):
                for claim in ("up", "down", "nearest", None):
                    for rtol in (Fraction(0), Fraction(1, 2), Fraction(999, 1000)):
                        assert verify._broken(Decimal(v), claim, verify._enclosure(ref), 1, rtol) == \
                            verify._broken(Decimal(v), claim, ref.enclosure(), 1, rtol), (ref, v, claim, rtol)
    monkeypatch.undo()
    row = tmp_path / "rr.csv"
    row.write_text("eps,n,alpha,beta\n1,1000000000000,0.5,0.1\n")
    assert gdpproof.reference.verify_table(str(row)).values_checked == 1


def test_nesting_and_runs_are_bounded_when_built():
    """Repeated 40 deep passed the 10^9 check at each level (10^360 runs); Composed 2,000 deep
    ended in a RecursionError."""
    m = GaussianMechanism(1)
    with pytest.raises(gdpproof.InvalidParameterError, match=r"makes 1,000,000,000,000,000,000 runs .* more than 10\^9"):
        Repeated(Repeated(m, 10**9), 10**9)
    assert Repeated(Repeated(m, 1000), 1000).leaves() == [(m, 10**6)]
    deep = m
    with pytest.raises(gdpproof.InvalidParameterError, match="nest 101 deep, more than 100"):
        for _ in range(2000):
            deep = Composed(deep, GaussianMechanism(2))
    assert len(deep.leaves()) == 2


def test_many_distinct_mechanisms_are_refused_before_the_work():
    with pytest.raises(gdpproof.InvalidParameterError, match="composes 1,001 distinct mechanisms, more than 1,000"):
        gdpproof.account(Composed(*(GaussianMechanism(1 + Fraction(i, 7)) for i in range(1001))), delta="1e-5")
    # 20,000 equal ones are one leaf
    assert gdpproof.account(Composed(*[GaussianMechanism(1)] * 20000), delta="1e-5", digits=6).route == "exact"
    with pytest.raises(gdpproof.NotSupportedError, match="257 distinct privacy losses, more than 256"):
        gdpproof.account(Composed(*(LaplaceMechanism(10 + i) for i in range(257))), delta="1e-5")


def test_the_exact_gdp_mu_of_many_distinct_gaussians_is_summed_pairwise():
    """sigmas with distinct denominators: the sum of the mu_i^2 has a denominator of thousands of
    bits (58,000 for 20,000 of them), which sympy summed one term at a time, then factored."""
    m = Composed(*(GaussianMechanism(1 + Fraction(i, 7)) for i in range(60)))
    total = sum(Fraction(49, (7 + i) ** 2) for i in range(60))
    assert m.gdp_mu() ** 2 == sympy.Rational(total.numerator, total.denominator)


def test_a_finite_mechanism_has_at_most_ten_thousand_outcomes():
    from gdpproof.mechanisms import FiniteMechanism

    with pytest.raises(gdpproof.InvalidParameterError, match="P has more than 10,000 outcomes"):
        FiniteMechanism(["1/10001"] * 10001, ["1/10001"] * 10001)


@pytest.mark.parametrize(("text", "needle"), [
    ("gamma(10**9)", "gamma at the integer or half-integer 1000000000"),  # the factorial of 10^9 - 1
    ("gamma(10**9 + 1/2)", "gamma at the integer or half-integer"),
    ("sqrt(10**10000+1)", "a power of more than 4,096 bits"),  # sympy factored it
    ("tanh(10**1300 + 1)", "a number of more than 4,096 bits"),  # sympy asked whether it is prime
    ("exp(log(2**4000 * 2**4000 + 1)/2)", "a number of more than 4,096 bits"),
])
def test_formulas_hold_no_number_sympy_cannot_build_on_quickly(text, needle):
    from gdpproof.symbolic.parse import formula

    with pytest.raises(gdpproof.InvalidParameterError, match=needle):
        formula("density", text)


def test_formulas_within_the_bounds_are_read():
    from gdpproof.symbolic.parse import formula

    assert formula("f", "gamma(7/2)") == 15 * sympy.sqrt(sympy.pi) / 8
    assert formula("f", "2**4095") == 2**4095 and formula("f", "3**2584") == 3**2584


def test_the_conjugate_route_of_delta_stops_at_a_bounded_precision():
    """delta of C_p(G_mu) at mu = 1e-5 is about 1e-(2 10^9): the conjugate's bisection went on
    doubling the precision to 65,536 bits (a bisection step per bit at each) for hours."""
    with pytest.raises(gdpproof.PrecisionError, match=r"within 528 bits of precision \(last enclosure \[0, "):
        gdpproof.subsample(gdpproof.gaussian("1e-5"), "0.1").delta(1, digits=10)


def test_family_parameters_lie_within_ten_to_the_hundred():
    """laplace(1e-999999): sympy's 1/10^999999 >= 0 alone took 11 s; tightest_mu then hung."""
    for make in (gdpproof.gaussian, gdpproof.laplace, gdpproof.randomized_response):
        with pytest.raises(gdpproof.InvalidParameterError, match=r"must be 0 or within \[1e-100, 1e100\]"):
            make("1e-999999")
        with pytest.raises(gdpproof.InvalidParameterError, match=r"must be 0 or within \[1e-100, 1e100\]"):
            make("1.0000001e100")
    with pytest.raises(gdpproof.InvalidParameterError, match=r"epsilon='1e-101' must be 0 or within"):
        gdpproof.rr_composition("1e-101", 5)
    with pytest.raises(gdpproof.InvalidParameterError, match=r"p='1e-400' must be 0 or within"):
        gdpproof.subsample(gdpproof.gaussian(1), "1e-400")
    assert gdpproof.gaussian("1e100").parameters["mu"] == 10**100 and gdpproof.laplace(0).parameters["mu"] == 0


def test_balls_beyond_two_to_the_two_to_the_27_have_no_fraction_endpoints():
    """e^(1e60) as a ball: its endpoints as Fractions raised OverflowError (exit 5)."""
    import flint

    from gdpproof.numeric.engine._mp import arb_endpoints, arb_precision

    with arb_precision(64):
        assert arb_endpoints(flint.arb(10**60).exp()) is None
        assert arb_endpoints(flint.arb(2) ** (1 << 26)) is not None


def test_clt_refuses_what_it_cannot_compute():
    with pytest.raises(gdpproof.InvalidParameterError, match=r"must be 0 or within \[1e-6, 1e6\] for the CLT"):
        gdpproof.berry_esseen(gdpproof.subsample(gdpproof.gaussian("1e-100"), "0.1"), n=10)
    with pytest.raises(gdpproof.InvalidParameterError, match=r"n=.* must be at most 10\^18"):
        gdpproof.berry_esseen(gdpproof.gaussian(1), n=10**18 + 1)  # a 5,000-digit n took 453 s
    assert gdpproof.berry_esseen(gdpproof.gaussian(1), n=10**18, digits=5).mu == 10**9


def test_delta_of_the_families_at_an_extreme_epsilon():
    # n-fold randomized response: J counts no outcome at eps' >= n eps (its r = (n - eps'/eps)/2 is
    # decided as a ball: -5e399 at eps' = 1e400 was a float infinity, exit 5)
    import flint

    from gdpproof.numeric.engine.special import arb_rr_delta

    assert arb_rr_delta(flint.arb(5), flint.arb(1), flint.arb(10) ** 400) == 0
    assert arb_rr_delta(flint.arb(5), flint.arb(1), -flint.arb(10) ** 400).is_finite()
    # other families: e^eps beyond 1e100 is refused (e^(1e999999) had mpmath compute log 2 for minutes)
    with pytest.raises(gdpproof.InvalidParameterError, match=r"epsilon='1e999999' must be within \[-1e100, 1e100\]"):
        gdpproof.subsample(gdpproof.gaussian(1), "0.1").delta("1e999999")
    assert gdpproof.laplace(1).delta("1e100", digits=10) == 0


def test_check_grid_size_is_bounded():
    with pytest.raises(gdpproof.InvalidParameterError, match=r"points=10000001 must be an integer in \[2, 100,000\]"):
        gdpproof.gaussian(1).check(points=10**7 + 1)


def test_dpsgd_schedules_refuse_counts_beyond_their_limits():
    with pytest.raises(gdpproof.InvalidParameterError, match=r"dataset_size='1e999999' must be at most 10\^18"):
        gdpproof.mechanisms.dpsgd_schedule(batch_size=256, dataset_size="1e999999", epochs=1)
    with pytest.raises(gdpproof.InvalidParameterError, match=r"epochs='1e999999' gives more than 10\^9 steps"):
        gdpproof.mechanisms.dpsgd_schedule(sample_rate="0.01", epochs="1e999999")


def test_calibration_of_one_step_accounted_exactly():
    """--epochs 1e-400 is one step, accounted on the exact route (a Certified, without .lower):
    exit 5 before."""
    c = gdpproof.calibrate(3, "1e-5", sample_rate="0.01", epochs="1e-400", digits=3)
    assert c.account.route == "exact" and c.account.eps_upper <= 3 < c.neighbour_account.eps_upper


def test_an_audit_claim_of_a_million_digits_is_printed_at_once():
    from gdpproof.text import terminating_text

    assert terminating_text(Fraction(1, 10**999999)) == "1.00000000000000000000000000000E-999999"
    assert terminating_text(Fraction(3, 8)) == "0.375"


def test_terminating_and_decimal_text_read_the_same_decimal():
    """One conversion behind both: they differ only in layout (str of the Decimal, which keeps
    an integer's zeros, against decimal_text's fixed/scientific rule)."""
    from decimal import Decimal

    from gdpproof.text import decimal_text, terminating_text

    for x in (Fraction(100), Fraction(-3, 8), Fraction(1, 10**5), Fraction(7, 2**40), Fraction(123, 10**20)):
        assert Fraction(Decimal(terminating_text(x))) == Fraction(Decimal(decimal_text(x))) == x
    assert terminating_text(Fraction(100)) == "100" and terminating_text(Fraction(1, 10**5)) == "0.00001"
    assert decimal_text(Fraction(1, 10**5)) == "1E-5" and decimal_text(Fraction(1, 3)) is None


def test_the_exact_lattice_refuses_a_product_beyond_its_cost_limit():
    """10^9 DP-SGD steps at sigma = 5, p = 0.001 grew the exact vector to 10^8 entries: refused before
    the product, so the float route's bracket stands."""
    import flint

    from gdpproof.accounting.exact_lattice import MAX_PRODUCT_BITS, _IntVec, _product

    n = MAX_PRODUCT_BITS // (2 * 80) // 2 + 2  # 2n - 1 entries of 160 bits: just beyond the limit
    big = _IntVec(0, flint.fmpz_poly([1] * n))
    with pytest.raises(gdpproof.PrecisionError, match="the exact lattice would hold"):
        _product(big, big, 80, 0)
    assert _product(_IntVec(0, flint.fmpz_poly([1, 1])), _IntVec(0, flint.fmpz_poly([1, 1])), 0, 0).poly.length() == 3


def test_account_and_calibrate_take_sane_sizes():
    with pytest.raises(gdpproof.InvalidParameterError, match=r"epsilon='1e-999999' must be 0 or of a size within"):
        gdpproof.account(GaussianMechanism(1), epsilon="1e-999999")  # its decimal was printed digit by digit
    with pytest.raises(gdpproof.InvalidParameterError, match=r"sample_rate=.* must be within"):
        PoissonSampled(GaussianMechanism(1), "1e-999999")
    with pytest.raises(gdpproof.InvalidParameterError, match=r"target_epsilon='1e400' must be within"):
        gdpproof.calibrate("1e400", "1e-5", sample_rate="0.01", steps=100)  # a float overflow: exit 5
    with pytest.raises(gdpproof.InvalidParameterError, match=r"delta='1e-400' must be at least 1e-300"):
        gdpproof.calibrate(3, "1e-400", noise_multiplier=1, steps=100)


def test_the_tightest_mu_of_an_identity_by_its_parameters_is_zero():
    """rr_composition at eps = 0 is Id: branch and bound could not settle its flat pointwise mu."""
    assert gdpproof.rr_composition(0, 5).tightest_mu(digits=10) == 0


def test_mu_and_sigma_at_epsilon_zero_have_a_closed_form():
    """convert --eps 0 --delta 1e-100000: the search for the root needed 332,000 bits (exit 3); at
    eps = 0 mu = 2 sqrt(2) erfinv(delta).  Where the search reaches, both agree to the last digit."""
    from gdpproof.numeric.tradeoff import solve

    for d in ("1e-5", "0.5", "0.999999999", "1e-300"):
        closed = gdpproof.mu_from_epsilon_delta(0, d, digits=25)
        assert closed == solve.certify_boundary(solve._mu_estimate(Fraction(0), Fraction(d), 200),
                                                lambda m: solve._delta_le(m, Fraction(0), Fraction(d), 25),
                                                digits=25, rounding="down", increasing_ok=False)
    assert str(gdpproof.mu_from_epsilon_delta(0, "1e-100000", digits=10)) == "2.506628274E-100000"
    # 1 / 2.50662827463100050241576528481e-5 = 39894.2280390988393462016117374 (mpmath at 50 digits: ...73 6)
    assert str(gdpproof.sigma_from_epsilon_delta(0, "1e-5", digits=30)) == "39894.2280390988393462016117374"
