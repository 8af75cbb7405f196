"""gdpproof.account: the routes agree with each other and with the closed forms they rest on.

Every comparison is between proven quantities: a certified value (exact routes) must lie in every
proven bracket of the same quantity, two certified routes must give the same digits, and a
certified epsilon rounded up must satisfy delta(eps) <= target while one unit lower does not.
"""

from __future__ import annotations

from fractions import Fraction

import pytest
import sympy

import gdpproof
from gdpproof import account
from gdpproof.errors import InvalidParameterError, NotSupportedError, WidthNotReachedWarning
from gdpproof.mechanisms import (
    GDP,
    Composed,
    EpsDelta,
    GaussianMechanism,
    LaplaceMechanism,
    PoissonSampled,
    PureDP,
    RandomizedResponse,
    Repeated,
    dpsgd,
)
from gdpproof.accounting.dpsgd import dpsgd_epsilon


def _in(value, bound) -> bool:
    """A certified decimal inside a float Bound (compared exactly)."""
    v = value.to_fraction()
    return Fraction(bound.lower) <= v <= Fraction(bound.upper)


def test_gaussian_composition_is_exact_and_certified() -> None:
    # the done-when of the one-model issue: Repeated(GDP(0.3), 10) is G_{sqrt(10) 0.3}
    a = account(Repeated(GDP("0.3"), 10), delta="1e-5")
    assert a.route == "exact" and a.given == "delta" and a.digits == 30
    mu = sympy.sqrt(10) * sympy.Rational(3, 10)
    assert a.mu == gdpproof.tightest_mu(gdpproof.gaussian(mu), digits=30)
    f = gdpproof.gaussian(mu)
    # rounded up: delta at eps is <= 1e-5, and one unit lower it is not (certified at 40 digits)
    assert f.delta(a.epsilon, digits=40).to_fraction() <= Fraction(1, 10**5)
    below = a.eps_lower
    assert below.rounding == "down" and below < a.epsilon
    d_below = f.delta(below, digits=40)
    assert d_below.to_fraction() - Fraction(10) ** (d_below.adjusted() - 39) > Fraction(1, 10**5)
    # the other query: delta at eps equals the closed form's certified delta
    b = account(Repeated(GDP("0.3"), 10), epsilon=1)
    assert b.route == "exact" and b.delta == f.delta(1, digits=30)


def test_dpsgd_account_is_the_dpsgd_bracket() -> None:
    a = account(dpsgd(1.0, 0.01, 1000), delta="1e-5")
    r = dpsgd_epsilon(1.0, 0.01, 1000, 1e-5)
    assert a.route == "bracket" and a.epsilon == r.eps and a.ordering == r.ordering
    # the CLT travels beside it, labelled, and here it understates the proven epsilon
    assert a.clt is not None and a.clt.approximation
    assert a.clt.epsilon < a.eps_lower
    d = a.to_dict()
    assert d["route"] == "bracket" and d["clt"]["approximation"] is True
    assert Fraction(d["eps_lower"]) <= Fraction(r.eps.lower) and Fraction(d["eps_upper"]) >= Fraction(r.eps.upper)


def test_mixed_gaussian_laplace_bracket_and_a_finer_one_agree() -> None:
    m = Composed(Repeated(GaussianMechanism(sigma="10/3"), 10), Repeated(LaplaceMechanism(scale=10), 5))
    a = account(m, delta="1e-5")
    assert a.route == "bracket" and a.epsilon.relative_width <= 0.01
    fine = account(m, delta="1e-5", rel_width=0.002)
    assert fine.epsilon.relative_width <= 0.002
    # two proven brackets of one number intersect, and the finer one is not looser
    assert max(a.epsilon.lower, fine.epsilon.lower) <= min(a.epsilon.upper, fine.epsilon.upper)
    assert any("rounded to the neighbouring double" in n for n in a.notes)  # sigma = 10/3 is not a double
    s = a.statement()
    assert "(ε, δ)-DP" in s and str(a.eps_upper) in s and "proven" in s


def test_routes_check_each_other_on_randomized_response() -> None:
    m = Repeated(RandomizedResponse("0.1"), 100)
    exact = account(m, delta="1e-5", digits=25)
    finite = account(m, delta="1e-5", digits=25, route="exact-finite")
    bracket = account(m, delta="1e-5", route="bracket")
    assert exact.route == "exact" and finite.route == "exact-finite"
    assert exact.epsilon == finite.epsilon
    assert _in(exact.epsilon, bracket.epsilon)
    d_exact = account(m, epsilon="0.5", digits=25)
    d_finite = account(m, epsilon="0.5", digits=25, route="exact-finite")
    d_bracket = account(m, epsilon="0.5", route="bracket")
    assert d_exact.delta == d_finite.delta and _in(d_exact.delta, d_bracket.delta)


def test_the_exact_finite_route_reaches_its_module_without_building_anything_per_call() -> None:
    from gdpproof.accounting import routes

    assert routes._finite() is routes._finite()


def test_heterogeneous_finite_composition_against_a_closed_form() -> None:
    # f_{eps,delta} is randomized response with an extra delta: one (1, 1e-3)-DP mechanism
    one = EpsDelta(1, "1e-3")
    assert account(one, epsilon="0.5", route="exact").delta == account(one, epsilon="0.5", route="exact-finite").delta
    # pure DP at different epsilons: the finite route against its own definition in sympy
    m = Composed(PureDP("0.5"), Repeated(PureDP("0.2"), 2))
    a = account(m, epsilon="0.3", digits=20, route="exact-finite")
    q = lambda e: 1 / (1 + sympy.exp(-e))  # noqa: E731
    total = sympy.Integer(0)
    for s1 in (1, -1):
        for k in range(3):
            loss = s1 * sympy.Rational(1, 2) + (2 * k - 2) * sympy.Rational(1, 5)
            p1 = q(sympy.Rational(1, 2)) if s1 == 1 else 1 - q(sympy.Rational(1, 2))
            p2 = sympy.binomial(2, k) * q(sympy.Rational(1, 5)) ** k * (1 - q(sympy.Rational(1, 5))) ** (2 - k)
            total += p1 * p2 * sympy.Max(0, 1 - sympy.exp(sympy.Rational(3, 10) - loss))
    exact = sympy.N(total, 40)
    assert abs(sympy.Rational(str(a.delta)) - exact) <= sympy.Rational(1, 10**19) * exact


def test_delta_query_bracket_contains_the_exact_delta() -> None:
    b = account(Repeated(GDP("0.5"), 4), epsilon=1, route="bracket")
    # G_1's delta(1) = 0.1269367375066439458008296...
    assert Fraction("0.1269367375066439458") in b.delta
    assert b.delta.width <= 0.01 * b.delta.upper


def test_poisson_subsampled_gaussian_once_exact_and_bracket_agree() -> None:
    m = PoissonSampled(GaussianMechanism(1), "0.5")
    exact = account(m, epsilon=1, digits=12)
    bracket = account(m, epsilon=1, route="bracket")
    assert exact.route == "exact" and _in(exact.delta, bracket.delta)


def test_no_privacy_loss_is_delta_zero() -> None:
    a = account(Repeated(GDP(0), 3), epsilon=0)
    assert a.delta == 0


@pytest.mark.parametrize(("call", "text"), [
    (lambda: account(GDP(1)), "exactly one of delta"),
    (lambda: account(GDP(1), delta="1e-5", epsilon=1), "exactly one of delta"),
    (lambda: account(GDP(1), delta=0), "delta=0"),
    (lambda: account(GDP(1), delta="1.5"), "delta='1.5'"),
    (lambda: account(GDP(1), epsilon=float("inf")), "epsilon=inf"),
    (lambda: account(GDP(1), epsilon=float("inf")), "epsilon=inf"),
    (lambda: account(GDP(1), delta="1e-5", route="fast"), "route='fast'"),
    (lambda: account(gdpproof.gaussian(1), delta="1e-5"), "mechanism="),
    (lambda: account(GDP(1), delta="1e-5", digits=0), "digits=0"),
])
def test_bad_arguments(call, text: str) -> None:
    with pytest.raises(InvalidParameterError, match=None) as info:
        call()
    assert text in str(info.value)


def test_a_forced_route_that_does_not_apply_is_refused() -> None:
    with pytest.raises(NotSupportedError, match="exact-finite"):
        account(Repeated(LaplaceMechanism(1), 3), delta="1e-5", route="exact-finite")
    with pytest.raises(NotSupportedError, match="not supported yet"):
        account(PoissonSampled(LaplaceMechanism(1), "0.1"), delta="1e-5", route="bracket")


def test_eps_delta_mechanisms_compose_with_continuous_ones_in_the_bracket() -> None:
    # G_1 (x) f_{0,delta} has the closed form delta + (1 - delta) delta_G(eps): the bracket folds
    # the revealing outcome in and must hold it, on both queries
    m = Composed(GDP(1), EpsDelta(0, "1e-3"))
    exact_d = account(m, epsilon="0.5", digits=20)
    assert exact_d.route == "exact"
    assert _in(exact_d.delta, account(m, epsilon="0.5", route="bracket").delta)
    exact_e = account(m, delta="0.05", digits=20)
    assert _in(exact_e.epsilon, account(m, delta="0.05", route="bracket").epsilon)
    # a delta below the revealing probability has no finite epsilon, on every route
    mixed = Composed(GaussianMechanism(1), Repeated(EpsDelta(1, "1e-3"), 2))
    assert account(mixed, delta="1e-5").eps_upper.is_infinite()
    assert account(Repeated(EpsDelta(1, "1e-3"), 2), delta="1e-5").epsilon.is_infinite()
    assert "for no finite ε" in account(mixed, delta="1e-5").statement()


# ---- found by review: each of these once crashed, hung or overstated its claim ----------------


def test_exact_delta_beyond_the_largest_loss_is_the_revealing_probability() -> None:
    # 1 - (1 - 1/100)^2 = 199/10000 exactly (a ball straddles it forever; the exact value settles it)
    a = account(Repeated(EpsDelta(1, "0.01"), 2), epsilon=2, route="exact-finite", digits=10)
    assert a.delta == Fraction(199, 10000)


def test_no_finite_loss_composes_exactly() -> None:
    assert account(RandomizedResponse(0), epsilon=0, route="exact-finite").delta == 0
    # f_{0,1/2} (x) f_{0,1/10}: delta = 1 - (1/2)(9/10) = 0.55 at every eps
    a = account(Composed(EpsDelta(0, "0.5"), EpsDelta(0, "0.1")), epsilon=1, route="exact-finite")
    assert a.delta == Fraction(55, 100)


def test_poisson_subsample_of_a_subsample_is_one_subsample() -> None:
    m = PoissonSampled(PoissonSampled(GDP(1), "0.5"), "0.5")
    assert m == PoissonSampled(GDP(1), "0.25")
    assert account(m, epsilon="0.5", digits=10).delta == account(PoissonSampled(GDP(1), "0.25"), epsilon="0.5",
                                                                 digits=10).delta


def test_a_large_epsilon_is_found_not_called_infinite() -> None:
    a = account(GDP(2000), delta="1e-5", digits=10)
    assert a.epsilon.is_finite() and 2e6 < a.epsilon < 2.1e6
    f = gdpproof.gaussian(2000)
    assert f.delta(a.epsilon, digits=12).to_fraction() <= Fraction(1, 10**5)


def test_subsampled_pure_dp_epsilon() -> None:
    # delta(0) of C_p(f_{1,0}) is a value the balls cannot round; the search goes on from above
    a = account(PoissonSampled(PureDP(1), "0.5"), delta="1e-5", digits=5)
    f = PoissonSampled(PureDP(1), "0.5").tradeoff()
    assert f.delta(a.epsilon, digits=15).to_fraction() <= Fraction(1, 10**5)


def test_irrational_parameters_reach_the_bracket_on_the_safe_side() -> None:
    b = account(Composed(GDP(sympy.sqrt(2)), LaplaceMechanism(1)), delta="1e-5")
    assert b.route == "bracket" and any("rounded" in n for n in b.notes)
    exact_gdp = account(GDP(sympy.sqrt(2)), delta="1e-5", digits=15)
    assert _in(exact_gdp.epsilon, account(GDP(sympy.sqrt(2)), delta="1e-5", route="bracket").epsilon)


def test_many_eps_delta_copies_do_not_hang() -> None:
    a = account(Repeated(EpsDelta(1, "0.01"), 10**5), epsilon=1)
    assert a.route == "exact-finite" and a.delta == 1  # 1 - 0.99^100000, rounded up to 30 digits


def test_delta_is_zero_at_the_largest_loss_and_bracketed_from_zero_just_below() -> None:
    m = Composed(RandomizedResponse(1), LaplaceMechanism(1))
    b = account(m, epsilon=2)  # the largest loss is 1 + 1: delta is 0 there, exactly
    assert b.route == "bracket" and b.delta.lower == b.delta.upper == 0
    assert any(n.startswith("delta = 0: eps = 2 is at least the largest privacy loss") for n in b.notes)
    with pytest.warns(WidthNotReachedWarning):
        b = account(m, epsilon="1.9999")  # delta is about 4e-5, below what the first grids resolve
    assert b.route == "bracket" and b.delta.lower == 0 and 0 < b.delta.upper < 1e-3
    assert any("lower end of delta is 0" in n for n in b.notes)


def test_rel_width_is_checked_on_every_route() -> None:
    with pytest.raises(InvalidParameterError, match="rel_width=0"):
        account(GDP(1), delta="1e-5", rel_width=0)


def test_extreme_queries_on_the_bracket_route() -> None:
    m = Repeated(LaplaceMechanism(1), 3)
    tiny = account(m, delta="1e-400", rel_width=0.05)  # the exact integer lattice: no float floor
    # the losses are at most 3, so eps(1e-400) is just below 3: the upper end is 3, the largest loss,
    # and the lower end within the width asked
    assert tiny.route == "bracket" and 3 / 1.05 <= tiny.epsilon.lower < 3 == tiny.epsilon.upper
    assert tiny.composition is not None and tiny.composition.assumptions == ()
    assert tiny.to_dict()["target_met"] is True and "no float assumption" in tiny.statement()
    huge = account(m, epsilon="1e400")  # beyond every loss: delta is 0
    assert huge.delta.lower == huge.delta.upper == 0


def test_statements_state_a_given_double_rounded_up() -> None:
    # the double 1e-5 is 1.00000000000000008e-5: the sentence names a delta at least that large
    s = account(GDP(1), delta=1e-5, digits=6).statement()
    assert "δ = 1.0000000000000001E-5" in s
    assert "δ = 1E-5" in account(GDP(1), delta="1e-5", digits=6).statement()


def test_statement_for_a_paper_names_scheme_relation_and_honest_mu():
    from gdpproof.mechanisms import dpsgd

    a = account(dpsgd(1.0, 0.01, 300), delta="1e-5")
    text = a.statement(honest_mu=True)
    h = a.honest_mu_decimals()
    assert f"lies in [{h['mu_lower']}, {h['mu_upper']}]" in text and f"δ ≥ {h['delta_min']}" in text
    assert "Poisson sampling, add/remove neighbours" in text and f"ε = {a.eps_upper}" in text
    assert len(str(a.eps_upper).replace(".", "").lstrip("0")) == 6  # six significant digits by default
    assert "honest" not in a.statement()


def test_an_irrational_epsilon_on_an_exact_route_has_a_proven_lower_end():
    # the route sums at a rational just below log(3): its answer is an upper bound, whose lower
    # neighbour is not a bound; the lower end charges e^eps times the gap (0.0797347, not ...348)
    import sympy

    from gdpproof.mechanisms import DiscreteLaplaceMechanism, Repeated

    m = Repeated(DiscreteLaplaceMechanism(2, 1), 3)
    a = account(m, epsilon=sympy.log(3), digits=6)
    assert (str(a.delta_lower), str(a.delta_upper)) == ("0.0797347", "0.0797349")
    assert "an upper bound on the exact δ" in a.statement() and "at least 0.0797347" in a.statement()
    fine = account(m, epsilon=sympy.log(3), digits=20)
    assert a.delta_lower.to_fraction() < fine.delta_lower.to_fraction() <= fine.delta_upper.to_fraction()
