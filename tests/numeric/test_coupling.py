"""The coupling's deviation t: the second-moment bound on the rounding error and Bernstein's t.

The bracket is about 2 t wide in epsilon; Bernstein's inequality with a proven bound on E[D^2]
gives a t about sqrt(3) smaller than Hoeffding's where many steps are composed.  Checked here:
the bound on E[D^2] against closed forms (a Gaussian loss's partial moments; randomized
response, whose rounding errors are deterministic), Bernstein's t against its defining
inequality, and brackets built with it against exact compositions (k-fold Gaussian =
G_{mu sqrt k}, k-fold randomized response through the exact finite route).
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from scipy.stats import norm

from gdpproof import GDP, RandomizedResponse, Repeated, account
from gdpproof.accounting.coupling import discretize
from gdpproof.accounting.losses import GaussianLoss, RandomizedResponseLoss
from gdpproof.accounting.compose import bernstein_t, hoeffding_t, compose_losses


def _in(value, bound) -> bool:
    """A certified decimal inside a float Bound (compared exactly)."""
    return Fraction(bound.lower) <= value.to_fraction() <= Fraction(bound.upper)


def _gaussian_second_moment(mu: float, h: float, law: str) -> float:
    """E[(k h - L)^2] summed over the bins, L ~ N(+-mu^2/2, mu^2) (P: +, Q: -), in closed form:
    with z = (l - m)/s, (c - s z)^2 integrated against phi on each bin."""
    m, s = (mu * mu / 2 if law == "P" else -mu * mu / 2), mu
    k = np.arange(math.floor((m - 12 * s) / h), math.ceil((m + 12 * s) / h) + 1)
    za, zb = ((k - 0.5) * h - m) / s, ((k + 0.5) * h - m) / s
    c = k * h - m
    p = norm.cdf(zb) - norm.cdf(za)
    ez = norm.pdf(za) - norm.pdf(zb)
    ez2 = p + za * norm.pdf(za) - zb * norm.pdf(zb)
    return float(np.sum(c * c * p - 2 * c * s * ez + s * s * ez2))


@pytest.mark.parametrize("law", ["P", "Q"])
def test_second_moment_bound_covers_the_gaussian_closed_form_and_is_near_uniform(law):
    mu, h = 0.01, 1e-4
    st = discretize(GaussianLoss(mu), law, h, 1e-20)
    exact = _gaussian_second_moment(mu, h, law)
    # the law is smooth on the scale h: E[D^2] is the uniform's h^2/12 to many digits
    assert abs(exact / (h * h / 12) - 1) < 1e-6
    # 64 cells a bin: (66 * 65) / (6 * 64^2) = 0.349 of h^2/4, about 4.7% above h^2/12
    assert exact <= st.second <= 0.352 * h * h / 4, (st.second, exact)


def test_second_moment_bound_covers_randomized_response_whose_error_is_deterministic():
    eps, h = Fraction(3, 10), 1e-3
    loss = RandomizedResponseLoss(0.3)
    q = math.exp(0.3) / (1 + math.exp(0.3))
    for law, p_plus in (("P", q), ("Q", 1 - q)):
        st = discretize(loss, law, h, 1e-20)
        # the losses are +-0.3 (a double); D = k h - l with k the nearest grid point
        exact = 0.0
        for sign, prob in ((1, p_plus), (-1, 1 - p_plus)):
            lv = sign * 0.3
            exact += prob * (round(lv / h) * h - lv) ** 2
        assert exact <= st.second, (law, st.second, exact)
        # each atom's cell reaches at most h/64 beyond its |D|
        assert st.second <= (max(abs(round(float(eps) / h) * h - 0.3), 0.0) + h / 64) ** 2 * 1.01 + 1e-20


def test_bernstein_t_meets_its_inequality_and_beats_hoeffding_for_many_steps():
    for b, var, eta in ((1.0, 1e4 / 12, 1e-12), (2e-3, 50 * 4e-6 / 12, 1e-9), (1.0, 0.0, 1e-6)):
        t = bernstein_t(b, var, eta)
        assert math.exp(-t * t / (2 * (var + b * t / 3))) <= eta
        t_in = t * (1 - 1e-9)
        assert math.exp(-t_in * t_in / (2 * (var + b * t_in / 3))) > eta * (1 - 1e-6)
    # T = 1e4 uniform-like errors of range 1: Bernstein 0.603 of Hoeffding (sqrt(1/3) = 0.577 less the b t / 3 term)
    assert bernstein_t(1.0, 1e4 / 12, 1e-12) < 0.61 * hoeffding_t(1.0, 10_000, 1e-12)


def test_many_step_gaussian_bracket_uses_bernstein_and_contains_g_mu():
    # 10^4 steps of G_{0.01} are G_1; the coupling's t is Bernstein's, well below Hoeffding's
    c = compose_losses([(GaussianLoss(0.01), 10_000)], grid_step=1e-3, eta=1e-12)
    assert c.t < 0.65 * hoeffding_t(1e-3, 10_000, 1e-12)
    for eps in (0.0, 0.7, 2.5):
        d = c.delta(eps)
        exact = norm.cdf(-eps + 0.5) - math.exp(eps) * norm.cdf(-eps - 0.5)
        # a double reference is within 1e-15 of the truth; the bracket is far wider than that
        assert d.lower + 1e-14 <= exact <= d.upper - 1e-14, (eps, d, exact)


def test_bracket_route_checks_the_exact_routes_with_bernstein():
    # G_{0.05} x 400 = G_1: the bracket route against the exact route
    m = Repeated(GDP("0.05"), 400)
    exact = account(m, delta="1e-5", digits=20)
    bracket = account(m, delta="1e-5", route="bracket")
    assert _in(exact.epsilon, bracket.epsilon)
    # randomized response: D is deterministic, so the second-moment bound is tiny
    r = Repeated(RandomizedResponse("0.05"), 400)
    finite = account(r, epsilon="1", digits=20, route="exact-finite")
    rb = account(r, epsilon="1", route="bracket")
    assert _in(finite.delta, rb.delta)
