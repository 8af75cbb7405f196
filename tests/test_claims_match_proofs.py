"""Every claim is exactly as strong as its proof (issue 20).

* Berry–Esseen (DRS Thm 3.5) is proven for symmetric trade-off functions only: a band of a curve
  not proven symmetric is labelled an approximation, everywhere it is shown;
* the honest mu's lower end holds under the stated delta reading (the README example);
* numeric subsampling envelopes answer delta = 0 exactly beyond the log of their steepest slope;
* brackets name the numerical assumptions they rest on (measured in tests/numeric/test_assumptions.py).
"""

from __future__ import annotations

import json
import math
from fractions import Fraction

import pytest
import sympy
from sympy import E, Piecewise, Rational

import gdpproof
from gdpproof import TradeOff, berry_esseen, subsample
from gdpproof.errors import InvalidParameterError
from gdpproof.numeric.engine.bound import FLOAT_ROUTE_ASSUMPTIONS
from gdpproof.numeric.tradeoff.clt import NON_SYMMETRIC_NOTE, gaussian_mixture
from gdpproof.symbolic.clt import APPROXIMATION_NOTE
from gdpproof.symbolic.duality import is_symmetric
from gdpproof.symbols import alpha


def _pw(slope, kink):
    """1 - slope alpha up to the kink, then the line to (1, 0)."""
    top = 1 - slope * kink
    return TradeOff(Piecewise((1 - slope * alpha, alpha <= kink), (top - top / (1 - kink) * (alpha - kink), True)))


# -- item 1: symmetry decides whether the band is proven ------------------------------------


@pytest.mark.parametrize(("f", "symmetric"), [
    (gdpproof.gaussian(1), True),
    (gdpproof.randomized_response(1), True),
    (_pw(4, Rational(1, 5)), True),            # f_{log 4, 0}, written as a bare Piecewise
    (_pw(2, Rational(1, 3)), True),            # kink on the diagonal: symmetric
    (_pw(2, Rational(1, 5)), False),           # kink off the diagonal
    (TradeOff((1 - alpha) ** Rational(11, 10)), False),
    (TradeOff((1 - alpha) ** 3), False),
    (gaussian_mixture(1, "1/2"), False),
    (gaussian_mixture(1, 1), True),            # p = 1 is G_mu
])
def test_symmetry_is_decided_exactly(f, symmetric) -> None:
    assert is_symmetric(f) is symmetric


def test_band_of_a_non_symmetric_curve_is_an_approximation() -> None:
    # the reproducer is (1 - alpha)^(11/10) (not symmetric, above; its quadrature takes
    # seconds): a non-symmetric piecewise-linear curve has closed-form functionals
    band = berry_esseen(_pw(2, Rational(1, 5)), n=900, digits=6)
    assert band.approximation and band.note == NON_SYMMETRIC_NOTE and "not a proven bound" in band.note
    assert not berry_esseen(gdpproof.randomized_response("0.1"), n=10, digits=6).approximation
    # one non-symmetric factor among symmetric ones is enough
    assert berry_esseen([gdpproof.randomized_response("0.1"), _pw(2, Rational(1, 5))], n=3, digits=6).approximation


def test_symmetrized_mixture_band_is_proven_and_is_c_p() -> None:
    proven = berry_esseen(gaussian_mixture(1, "1/2"), n=100, digits=3, symmetrize=True)
    assert not proven.approximation and proven.symmetrized
    cp = subsample(gdpproof.gaussian(1), "1/2")
    assert proven.factors == ((cp, 100),)
    # the same band as asking for C_p directly
    direct = berry_esseen(cp, n=100, digits=3)
    assert (direct.mu, direct.gamma) == (proven.mu, proven.gamma)
    assert "both orderings" in proven.note


def test_linear_curves_are_refused_clearly() -> None:
    # log|f'| constant: the CLT variance is 0 (before: PrecisionError "not finite")
    with pytest.raises(InvalidParameterError, match="variance"):
        berry_esseen(TradeOff((1 - alpha) / 2), n=4)


def test_dpsgd_gamma_is_labelled_by_sampling() -> None:
    poisson = gdpproof.dpsgd_mu("1.1", "256/60000", 100, digits=6, gamma=False, exact=False)
    uniform = gdpproof.dpsgd_mu("1.1", "256/60000", 100, sampling="uniform", digits=6, gamma=False, exact=False)
    assert poisson.gamma_approximation and "not a bound" in poisson.gamma_note
    assert not uniform.gamma_approximation and "proven bound" in uniform.gamma_note and "G_mu_T" in uniform.gamma_note
    assert "error term of an approximation, not a bound" in APPROXIMATION_NOTE


def test_cli_compose_clt_names_what_gamma_is(capsys) -> None:
    from gdpproof.cli import main

    assert main(["compose", "clt", "randomized-response", "--eps", "0.1", "--n", "100", "--json",
                 "--digits", "6"]) == 0
    obj = json.loads(capsys.readouterr().out)
    assert obj["gamma_approximation"] is False and obj["band"].startswith("proven band")


# -- item 2: the honest mu's lower end under the delta reading --------------------------------


def test_readme_honest_mu_holds_under_the_delta_reading() -> None:
    # the README example: its lower end must be refuted at a point the delta reading covers
    from gdpproof.numeric.engine import fast
    from gdpproof.numeric.tradeoff.solve import delta_from_epsilon

    c = gdpproof.compose_losses([(gdpproof.SubsampledGaussianLoss(1.0, 0.01), 1000)], grid_step=7e-5)
    hm = c.honest_mu()
    eps, dup, dlow = c._eps_grid()
    assert hm.delta_min == dup[-1] and hm.eps_max == eps[-1]
    assert f"{hm.mu.lower:.4f}" == "0.4887" and f"{hm.mu.upper:.4f}" == "0.4926"  # README's figures
    # at eps_max itself delta_low is below delta_min: that point is outside the delta reading
    assert dlow[-1] < hm.delta_min
    # a witness: delta_low(eps_j) > delta_{mu.lower}(eps_j) >= delta_min, so every mu' just below
    # mu.lower has delta_min <= delta_mu'(eps_j) < delta_low(eps_j) (not mu'-GDP at that delta)
    covered = dlow > hm.delta_min
    mus = fast.mu_from_epsilon_delta(eps[covered], dlow[covered])
    j = int(mus.argmax())
    e_j, d_j = float(eps[covered][j]), float(dlow[covered][j])
    at_lower = delta_from_epsilon(hm.mu.lower, e_j, digits=20).to_fraction()  # rounded up
    assert at_lower <= Fraction(d_j)
    below = Fraction(hm.mu.lower) * (1 - Fraction(1, 10**6))
    assert delta_from_epsilon(float(below), e_j, digits=20).to_fraction() >= Fraction(hm.delta_min)
    # the upper end: (eps, delta_mu(eps))-DP at the largest eps with delta_mu >= delta_min needs
    # only delta_up(eps_max) = delta_min <= delta_mu(eps_max)
    assert delta_from_epsilon(hm.mu.upper, float(hm.eps_max), digits=20).to_fraction() >= Fraction(hm.delta_min)


# -- item 4: delta = 0 of numeric envelopes beyond the pure-DP level ---------------------------


@pytest.mark.parametrize(("f", "p", "eps"), [(TradeOff((1 - alpha) ** 3), "0.7", 2),
                                               (TradeOff((1 - alpha) ** E), "0.3", "0.5")])
def test_envelope_delta_is_an_exact_zero_past_the_pure_dp_level(f, p, eps) -> None:
    c = subsample(f, p)
    d = c.delta(eps, digits=20)
    assert d == 0 and d.method == "exact"


def test_envelope_pure_dp_level_is_sharp() -> None:
    # (1 - a)^3 at p = 0.7: f_p'(0) = -2.4, f_p'(1) = -0.3, so delta = 0 exactly for
    # eps >= log max(2.4, 1/0.3) = log(10/3) and positive below it
    c = subsample(TradeOff((1 - alpha) ** 3), "0.7")
    level = sympy.log(Rational(10, 3))
    assert c.delta(level, digits=10) == 0
    below = c.delta(float(level) - 0.01, digits=10)
    assert below > 0
    assert c.delta(1, digits=10) > 0  # 1 < log(10/3)


# -- item 3: the assumptions are named where the numbers are shown ----------------------------


def test_account_and_dpsgd_json_name_the_assumptions() -> None:
    from gdpproof.mechanisms import GaussianMechanism, LaplaceMechanism, Composed, Repeated
    from gdpproof.accounting.dpsgd import dpsgd_epsilon

    bracket = gdpproof.account(Composed(Repeated(GaussianMechanism(sigma=3), 4), LaplaceMechanism(scale=10)),
                               delta="1e-5", rel_width=0.1)
    out = bracket.to_dict()
    assert bracket.route == "bracket" and out["assumptions"] == list(FLOAT_ROUTE_ASSUMPTIONS)
    assert all(a in out["statement"] for a in FLOAT_ROUTE_ASSUMPTIONS)
    exact = gdpproof.account(Repeated(GaussianMechanism(sigma=3), 4), delta="1e-5", digits=8)
    assert exact.route == "exact" and exact.to_dict()["assumptions"] == []
    r = dpsgd_epsilon(2.0, 0.01, 10, 1e-5, rel_width=0.1)
    d = r.to_dict()
    assert d["assumptions"] == list(FLOAT_ROUTE_ASSUMPTIONS) and json.loads(json.dumps(d)) == d
    assert Fraction(d["eps_lower"]) <= Fraction(r.eps.lower) and Fraction(d["eps_upper"]) >= Fraction(r.eps.upper)
    assert math.isfinite(r.eps.upper)
