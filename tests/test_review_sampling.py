"""Regression tests from the soundness review of sampling schemes, with truths computed here.

- F1: a fixed-size batch has no free slot, so removing a record lets another take its place and a
  clipped batch sum moves by up to 2C under add/remove too.  One step, B = 1 of N = 100, noise
  standard deviation 1 = sigma C with C = 1: x contributes +1, everyone else -1, so
  M(D) = q N(1, 1) + (1 - q) N(-1, 1) and M(D') = N(-1, 1) with q = 1/100; its epsilon at
  delta = 1e-5 is 3.02536 (solved below from the closed-form hockey-stick divergence).
- F3: the Berry-Esseen gamma belongs to mu_T = 2 ||kl||_1 / sqrt(||kappa2||_1 - ||kl||_2^2) of the
  finite T (DRS Thm 3.5), not to the T -> infinity mu_clt; mu_T is computed here by quadrature of
  log|f'| over C_p(G_mu).
- F4: the value next to a calibrated sigma is *not proven* to meet the target; it may meet it.
- The robustness reproducers answer.
"""

from __future__ import annotations

import json

import mpmath
import pytest

from gdpproof import account, berry_esseen, calibrate, location_family
from gdpproof.cli import main
from gdpproof.mechanisms import dpsgd
from gdpproof.accounting.dpsgd import dpsgd_mu

CTX = mpmath.MPContext()
CTX.dps = 50


def _mixture_delta(eps, mu, q):
    """delta(eps) of the worse ordering of (q N(mu, 1) + (1 - q) N(0, 1), N(0, 1)), in closed form:
    the privacy loss log(q e^{mu y - mu^2/2} + 1 - q) is increasing in y, so each ordering's
    hockey-stick divergence is a difference of normal tails at one threshold."""
    e, m, q = CTX.mpf(eps), CTX.mpf(mu), CTX.mpf(q)
    # P || Q: loss above eps for y > y1
    y1 = (CTX.log((CTX.exp(e) - 1 + q) / q) + m**2 / 2) / m
    forward = q * CTX.ncdf(m - y1) + (1 - q) * CTX.ncdf(-y1) - CTX.exp(e) * CTX.ncdf(-y1)
    # Q || P: loss -log(...) above eps for y < y2 (none when e^-eps <= 1 - q)
    backward = CTX.mpf(0)
    if CTX.exp(-e) > 1 - q:
        y2 = (CTX.log((CTX.exp(-e) - 1 + q) / q) + m**2 / 2) / m
        backward = CTX.ncdf(y2) - CTX.exp(e) * (q * CTX.ncdf(y2 - m) + (1 - q) * CTX.ncdf(y2))
    return max(forward, backward)


def _mixture_epsilon(delta, mu, q):
    lo, hi = CTX.mpf(0), CTX.mpf(50)
    for _ in range(200):  # bisection: delta(eps) is decreasing
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if _mixture_delta(mid, mu, q) > delta else (lo, mid)
    return hi


TRUTH_F1 = _mixture_epsilon(CTX.mpf("1e-5"), 2, CTX.mpf(1) / 100)


def test_the_closed_form_truth_is_the_reviewers():
    assert abs(TRUTH_F1 - CTX.mpf("3.02536")) < 5e-6


def test_fixed_batch_add_remove_step_has_sensitivity_2C(capsys):
    code = main(["account", "--sigma", "1", "--batch-size", "1", "--dataset-size", "100", "--steps", "1",
                 "--sampling", "fixed-batch", "--neighbours", "add-remove", "--delta", "1e-5", "--json"])
    obj = json.loads(capsys.readouterr().out)
    assert code == 0 and obj["sensitivity"] == "2C"
    upper = CTX.mpf(obj["eps_upper"])
    assert TRUTH_F1 <= upper <= CTX.mpf("1.01") * TRUTH_F1
    # the API says the same
    a = account(dpsgd(1, batch_size=1, dataset_size=100, steps=1, sampling="fixed-batch", neighbours="add-remove"),
                delta="1e-5", digits=6)
    assert str(a.eps_upper) == obj["eps_upper"]


def test_dp_accounting_adapter_reads_fixed_batches_with_sensitivity_2C():
    dpa = pytest.importorskip("dp_accounting")
    from gdpproof.integrations.dp_accounting import GdpproofAccountant

    acc = GdpproofAccountant().compose(dpa.SampledWithoutReplacementDpEvent(100, 1, dpa.GaussianDpEvent(1.0)))
    eps = acc.get_epsilon(1e-5)
    assert TRUTH_F1 <= eps <= 1.01 * TRUTH_F1


def _mu_T(sigma, p, steps):
    """mu_T of the T-fold C_p(G_{1/sigma}) by quadrature.  On [0, x*], x* = Phi(-mu/2), the curve is
    f_p = p G_mu + (1 - p) Id with |f_p'| = p e^{mu z - mu^2/2} + 1 - p at alpha = 1 - Phi(z); then a
    segment of slope -1 (log|f'| = 0); then f_p^{-1}, whose integrals map back to [0, x*] with the
    weight |f_p'| and log|f'| = -log|f_p'|."""
    mu, p = 1 / CTX.mpf(sigma), CTX.mpf(p)

    def over_z(g):  # integral over alpha in [0, x*] of g(log|f_p'|, |f_p'|), as z runs from mu/2 to oo
        def integrand(z):
            s = p * CTX.exp(mu * z - mu**2 / 2) + 1 - p
            return g(CTX.log(s), s) * CTX.npdf(z)
        return CTX.quad(integrand, [mu / 2, mu / 2 + 5, mu / 2 + 15, CTX.inf])

    kl = -(over_z(lambda ls, s: ls) - over_z(lambda ls, s: ls * s))
    kappa2 = over_z(lambda ls, s: ls**2) + over_z(lambda ls, s: ls**2 * s)
    return 2 * CTX.sqrt(steps) * kl / CTX.sqrt(kappa2 - kl**2)


@pytest.mark.parametrize("sigma, p, steps, mu_T, mu_clt, gamma", [
    (1, "0.01", 1000, "0.52888", "0.54079", "0.0889"),
    ("1/2", "1/10", 50, "2.4501", "7.2801", "0.396"),
    (8, "0.9", 1000, "3.5741", "3.7451", "0.0285"),
])
def test_gamma_is_reported_with_its_finite_T_mu(sigma, p, steps, mu_T, mu_clt, gamma):
    truth = _mu_T(sigma, mpmath.mpf(p) if "/" not in p else mpmath.mpf(1) / int(p.split("/")[1]), steps)
    assert abs(truth - CTX.mpf(mu_T)) < 1e-4  # the reviewer's table
    acc = dpsgd_mu(sigma, p, steps, sampling="uniform", digits=6, gamma_digits=4, exact=False)
    assert acc.mu_T is not None and acc.gamma is not None
    # mu_T is rounded up to 4 digits, gamma likewise
    assert truth <= CTX.mpf(str(acc.mu_T)) <= truth * (1 + CTX.mpf("1e-3"))
    unit = CTX.mpf(10) ** -(len(gamma) - 2)  # the table's last digit
    assert abs(CTX.mpf(str(acc.gamma)) - CTX.mpf(gamma)) <= unit
    assert abs(CTX.mpf(str(acc.mu_clt)) - CTX.mpf(mu_clt)) < 1e-4
    assert f"mu_T = {acc.mu_T}" in acc.gamma_note and "G_mu_clt" not in acc.gamma_note


def test_cli_prints_gamma_beside_its_mu_T(capsys):
    code = main(["account", "--sigma", "2", "--sample-rate", "0.01", "--steps", "1000", "--sampling", "fixed-batch",
                 "--json"])
    obj = json.loads(capsys.readouterr().out)
    assert code == 0 and abs(float(obj["mu_T"]) - 0.52888) < 1e-5 and abs(float(obj["mu_clt"]) - 0.54079) < 1e-5
    assert obj["rounding"]["mu_T"] == "up"


def test_calibration_says_the_next_value_is_not_proven_to_meet_the_target():
    """The reviewer's case: the value next to the answer straddles the target, and an independent
    pessimistic estimate (dp_accounting's PLD accountant, an upper bound by construction) shows
    that it meets the target: the calibration must not say that it does not."""
    dpa = pytest.importorskip("dp_accounting")
    from dp_accounting.pld import PLDAccountant

    c = calibrate(3, "1e-5", sample_rate="0.01", steps=1000, digits=4)
    n = c.neighbour_account
    assert c.account.epsilon.upper <= 3 < n.epsilon.upper and n.epsilon.lower < 3  # it straddles the target
    pld = PLDAccountant(value_discretization_interval=1e-4)
    pld.compose(dpa.PoissonSampledDpEvent(0.01, dpa.GaussianDpEvent(float(c.neighbour))), 1000)
    assert pld.get_epsilon(1e-5) < 3  # the neighbour in fact meets the target
    words = c.statement()
    assert "is not proven to meet the target at rel_width 0.01 (its bracket holds the target: its true epsilon may " \
           "still meet it)" in words and "does not" not in words and "smallest" not in words


def test_overstated_verdict_at_eps_zero_does_not_divide_by_zero():
    a = account(dpsgd("0.5", "0.5", 3), delta="0.9")
    assert a.eps_upper == 0 or float(a.eps_upper) >= 0
    assert a.clt is not None and "eps_upper is 0" in a.clt.verdict


def test_berry_esseen_of_a_logistic_location_family_answers():
    import sympy

    from gdpproof.symbols import x

    f = location_family(sympy.exp(-x) / (1 + sympy.exp(-x)) ** 2, x, mu=1)
    band = berry_esseen(f, n=50, digits=6)
    assert 4.0 < float(band.mu) < 4.2 and 0 < float(band.gamma) < 1


def test_delta_at_negative_epsilon_needs_only_absolute_accuracy():
    """delta(eps) = 1 - e^eps + e^eps delta(-eps) >= 1 - e^eps: a tiny delta(-eps) needs no relative
    accuracy (this case resolved delta(0.2) relatively, 89 s, before)."""
    a = account(dpsgd(2, "0.001", 100), epsilon="-0.2", route="bracket")
    floor = 1 - mpmath.exp(-0.2)
    # the lower end is the floor rounded outward to a double
    assert a.composition.target_met and floor * (1 - 1e-15) <= a.delta.lower <= a.delta.upper <= 1.01 * floor
