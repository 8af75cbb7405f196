"""The discrete Gaussian and discrete Laplace mechanisms against brute-force sums in mpmath.

Brute-force sums run over |x| <= 40 (sigma <= 2): the dropped mass is below
e^{-41^2/8} < 1e-90 per coordinate, far below every tolerance here, and is counted into it."""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import pytest
import sympy

from gdpproof import account, gaussian
from gdpproof.errors import InvalidParameterError, NotSupportedError
from gdpproof.mechanisms import (
    Composed,
    DiscreteGaussianMechanism,
    DiscreteLaplaceMechanism,
    Repeated,
    mechanism_from_spec,
)
from gdpproof.numeric.engine._mp import arb_from_exact, arb_precision
from gdpproof.accounting.discrete import discrete_gaussian_delta, loss_tail_bound, normaliser
from gdpproof.accounting.losses import DiscreteGaussianLoss, DiscreteLaplaceLoss

R = sympy.Rational
SPAN = range(-40, 41)
#: the mass dropped by the brute-force sums (module doc), counted into their tolerances
DROPPED = mpmath.mpf("1e-90")


@pytest.fixture(autouse=True)
def _digits():
    with mpmath.workdps(60):  # restored afterwards (conftest checks)
        yield


def _dg_pmf(sigma: Fraction, shift: int = 0) -> dict[int, mpmath.mpf]:
    s = mpmath.mpf(sigma.numerator) / sigma.denominator
    w = {x: mpmath.exp(-mpmath.mpf(x - shift) ** 2 / (2 * s * s)) for x in range(-60 + shift, 61 + shift)}
    total = mpmath.fsum(w.values())
    return {x: v / total for x, v in w.items()}


def _hockey(pairs, eps) -> mpmath.mpf:
    e = mpmath.exp(mpmath.mpf(eps.numerator) / eps.denominator)
    return mpmath.fsum(max(0, p - e * q) for p, q in pairs)


def _convolve(a: dict, b: dict) -> dict:
    out: dict = {}
    for x, p in a.items():
        for y, q in b.items():
            out[x + y] = out.get(x + y, 0) + p * q
    return out


def test_normaliser_and_single_delta_against_mpmath() -> None:
    s = mpmath.mpf(3) / 2
    direct = mpmath.fsum(mpmath.exp(-mpmath.mpf(z) ** 2 / (2 * s * s)) for z in range(-80, 81))
    got = normaliser(R(3, 2), digits=40).to_fraction()
    assert abs(Fraction(mpmath.nstr(direct, 55, strip_zeros=False)) - got) <= Fraction(1, 10**38)
    for delta_sens, eps in ((1, Fraction(1, 2)), (2, Fraction(1, 2)), (2, Fraction(-1, 3))):
        p, q = _dg_pmf(Fraction(3, 2)), _dg_pmf(Fraction(3, 2), delta_sens)
        brute = _hockey([(p.get(x, 0), q.get(x, 0)) for x in range(-70, 72)], eps)
        a = account(DiscreteGaussianMechanism("3/2", delta_sens), epsilon=R(eps.numerator, eps.denominator), digits=50)
        assert a.route == "exact"
        d = a.delta.to_fraction()
        b = Fraction(mpmath.nstr(brute, 58, strip_zeros=False))
        assert b <= d <= b * (1 + Fraction(1, 10**48)) + Fraction(1, 10**80)  # rounded up, 50 digits
    # sensitivity 2 is less private than 1 at every eps (d14)
    assert discrete_gaussian_delta(R(3, 2), 1, R(1), digits=20) < discrete_gaussian_delta(R(3, 2), 2, R(1), digits=20)
    # eps(delta): the certified solve inverts the certified profile
    e = account(DiscreteGaussianMechanism(5), delta="1e-6", digits=15).epsilon.to_fraction()
    assert discrete_gaussian_delta(5, 1, R(e.numerator, e.denominator), digits=15).to_fraction() <= Fraction(1, 10**6)


@pytest.mark.parametrize("sigma", ["1e-2", "1e-100", "1e-400"])
def test_a_tiny_sigma_certifies_delta_just_below_one(sigma: str) -> None:
    # delta(1) = 1 - (e - 1) e^{-1/(2 sigma^2)}/S: below 1 by less than any printed digit, so the
    # 30 digits rounded up are 1; the ball's own ends lie past 1 and must be clipped exactly
    assert str(discrete_gaussian_delta(sigma, 1, 1, digits=30)) == "1.00000000000000000000000000000"
    # and just above the point where delta(1) leaves 1 (sigma = 1/10: 1 - 7.2e-22)
    assert str(discrete_gaussian_delta("1/10", 1, 1, digits=30)) == "0.999999999999999999999282836449"


def test_sigma_given_as_the_square_root_of_a_rational() -> None:
    # the pmf sees sigma^2 only: sigma = sqrt(5/2) is exact (the Census scales are of this kind)
    sigma = sympy.sqrt(R(5, 2))
    s2 = mpmath.mpf(5) / 2
    w = {x: mpmath.exp(-mpmath.mpf(x) ** 2 / (2 * s2)) for x in range(-60, 62)}
    total = mpmath.fsum(w.values())
    brute = _hockey([(w.get(x, 0) / total, w.get(x - 1, 0) / total) for x in range(-60, 62)], Fraction(1, 2))
    d = account(DiscreteGaussianMechanism(sigma), epsilon=R(1, 2), digits=40).delta.to_fraction()
    b = Fraction(mpmath.nstr(brute, 58, strip_zeros=False))
    assert b <= d <= b * (1 + Fraction(1, 10**38)) + Fraction(1, 10**80)
    with pytest.raises(InvalidParameterError, match="square root"):
        DiscreteGaussianMechanism(sympy.pi)


@pytest.mark.parametrize("sigma", [5, 20])
def test_delta_at_zero_approaches_the_gaussian(sigma: int) -> None:
    """At eps = 0 and Delta = 1, delta is 1/S for the discrete Gaussian and 2 Phi(1/(2 sigma)) - 1
    for G_{1/sigma}; with A = 1/(sqrt(2 pi) sigma), Poisson summation gives
    S = sqrt(2 pi) sigma (1 + 2 sum_k e^{-2 pi^2 sigma^2 k^2}), so 1/S lies in [A (1 - 3e^{-2 pi^2 sigma^2}), A],
    and the Gaussian's integral of phi over a width 1/sigma lies in [A e^{-1/(8 sigma^2)}, A]:
    the two differ by at most A/(8 sigma^2) + 3 A e^{-2 pi^2 sigma^2}."""
    d = discrete_gaussian_delta(sigma, 1, 0, digits=20).to_fraction()
    assert d == Fraction(1) / normaliser(sigma, digits=30).to_fraction() or \
        abs(d - 1 / normaliser(sigma, digits=30).to_fraction()) <= d * Fraction(1, 10**18)
    g = gaussian(R(1, sigma)).delta(0, digits=20).to_fraction()
    a = 1 / (math.sqrt(2 * math.pi) * sigma)
    assert abs(float(d - g)) <= a / (8 * sigma**2) * (1 + 1e-9) + 3 * a * math.exp(-2 * math.pi**2 * sigma**2)


def test_composition_bracket_contains_the_convolution() -> None:
    """Three discrete Gaussians (sigma = 3/2): the loss of the composition is a function of the
    sum of the outputs, whose laws are 3-fold convolutions; and a mixed pair by a double sum
    (30 digits: the brackets are far wider)."""
    with mpmath.workdps(30):
        _composition_checks()


def _composition_checks() -> None:
    p1 = {x: v for x, v in _dg_pmf(Fraction(3, 2)).items() if x in SPAN}
    p3 = _convolve(_convolve(p1, p1), p1)
    eps = Fraction(1)
    brute = _hockey([(p3.get(y, 0), p3.get(y - 3, 0)) for y in range(-130, 131)], eps)
    a = account(Repeated(DiscreteGaussianMechanism("3/2"), 3), epsilon=1)
    assert a.route == "bracket"
    assert a.delta.lower <= brute + DROPPED and brute - DROPPED <= a.delta.upper
    # mixed sigmas and sensitivities: DG(3/2, 1) and DG(2, 2)
    q1 = {x: v for x, v in _dg_pmf(Fraction(2)).items() if x in SPAN}
    q1s = _dg_pmf(Fraction(2), 2)
    p1s = _dg_pmf(Fraction(3, 2), 1)
    e = mpmath.exp(1)
    mixed = mpmath.fsum(max(0, p1[x] * q1[y] - e * p1s[x] * q1s[y]) for x in SPAN for y in SPAN)
    b = account(Composed(DiscreteGaussianMechanism("3/2"), DiscreteGaussianMechanism(2, 2)), epsilon=1)
    assert b.delta.lower <= mixed + DROPPED and mixed - DROPPED <= b.delta.upper
    # small delta: the exact integer lattice's eps bracket contains the eps where the convolution's
    # profile crosses 1e-20 (delta(eps) decreases)
    c = account(Repeated(DiscreteGaussianMechanism("3/2"), 3), delta="1e-20")
    pairs = [(p3.get(y, 0), p3.get(y - 3, 0)) for y in range(-130, 131)]
    at = lambda v: _hockey(pairs, Fraction(v))  # noqa: E731
    assert at(c.epsilon.lower) + DROPPED >= mpmath.mpf("1e-20") >= at(c.epsilon.upper) - DROPPED
    # far below the double range of a table at the working precision (the lattice's tails are
    # resolved at the bits tau needs; before, delta near 1e-50 ... 1e-60 was refused)
    q3 = _convolve(_convolve(q1, q1), q1)
    pairs2 = [(q3.get(y, 0), q3.get(y - 3, 0)) for y in range(-130, 131)]
    at2 = lambda v: _hockey(pairs2, Fraction(v))  # noqa: E731
    d = account(Repeated(DiscreteGaussianMechanism(2), 3), delta="1e-55")
    assert at2(d.epsilon.lower) + DROPPED >= mpmath.mpf("1e-55") >= at2(d.epsilon.upper) - DROPPED


def test_discrete_laplace_exact_and_pure() -> None:
    scale, sens = 2, 3
    r = mpmath.exp(-mpmath.mpf(1) / scale)
    table = {z: (1 - r) / (1 + r) * r ** abs(z) for z in range(-210, 210)}
    pmf = table.__getitem__
    span = range(-200, 204)  # r^200 < 1e-43
    for eps in (Fraction(1), Fraction(1, 3), Fraction(-1, 2)):
        brute = _hockey([(pmf(x), pmf(x - sens)) for x in span], eps)
        a = account(DiscreteLaplaceMechanism(scale, sens), epsilon=R(eps.numerator, eps.denominator), digits=30)
        assert a.route == "exact-finite"
        b = Fraction(mpmath.nstr(brute, 38, strip_zeros=False))
        assert b - Fraction(1, 10**36) <= a.delta.to_fraction() <= b * (1 + Fraction(1, 10**28)) + Fraction(1, 10**36)
    # pure DP with eps = Delta/scale: delta is exactly 0 there, positive just below
    assert account(DiscreteLaplaceMechanism(scale, sens), epsilon=R(3, 2)).delta.to_fraction() == 0
    assert account(DiscreteLaplaceMechanism(scale, sens), epsilon=R(149, 100)).delta.to_fraction() > 0
    # two runs: a double sum, on the exact-finite route
    with mpmath.workdps(20):  # r^60 < 1e-13 per coordinate: the tolerance below is 1e-12
        brute2 = _hockey([(pmf(x) * pmf(y), pmf(x - sens) * pmf(y - sens)) for x in range(-60, 64)
                          for y in range(-60, 64)], Fraction(1))
    two = account(Repeated(DiscreteLaplaceMechanism(scale, sens), 2), epsilon=1, digits=20)
    assert two.route == "exact-finite"
    assert abs(two.delta.to_fraction() - Fraction(mpmath.nstr(brute2, 30))) <= Fraction(1, 10**12)
    # the bracket route (taken beyond the exact table, or mixed with a discrete Gaussian) contains it
    five = Repeated(DiscreteLaplaceMechanism(scale, sens), 5)
    exact5 = account(five, epsilon=1, digits=20).delta.to_fraction()
    b = account(five, epsilon=1, route="bracket").delta
    assert Fraction(b.lower) <= exact5 <= Fraction(b.upper)
    mixed = account(Composed(five, DiscreteGaussianMechanism(3)), epsilon=1)
    # one more mechanism cannot lower delta (the pair of the five is a marginal of the composed pair)
    assert mixed.route == "bracket" and Fraction(mixed.delta.upper) >= exact5


def test_bad_inputs_and_specs() -> None:
    for args, name in (((0,), "sigma"), ((-1,), "sigma"), ((1, 0), "sensitivity"), ((1, "1.5"), "sensitivity"),
                       ((1, True), "sensitivity"), ((1, -2), "sensitivity"), ((float("nan"),), "sigma")):
        with pytest.raises(InvalidParameterError) as err:
            DiscreteGaussianMechanism(*args)
        assert err.value.argument == name
    with pytest.raises(InvalidParameterError):
        DiscreteLaplaceMechanism(0)
    with pytest.raises(InvalidParameterError):
        DiscreteLaplaceMechanism(1, "2.5")
    with pytest.raises(NotSupportedError, match="infinitely many"):
        DiscreteGaussianMechanism(2).tradeoff()
    assert repr(mechanism_from_spec("discrete-gaussian:sigma=10/3,sensitivity=2,times=4")) == \
        "Repeated(DiscreteGaussianMechanism(sigma=10/3, sensitivity=2), 4)"
    assert mechanism_from_spec("discrete-laplace:scale=2") == DiscreteLaplaceMechanism(2)


def test_numeric_layer_refuses_a_bad_sensitivity() -> None:
    # the numeric functions are public too: a negative sensitivity reversed the cut (a certified
    # delta of -0.85), 2.5 was truncated to 2, 0 divided by zero
    for bad in (-1, 0, "2.5", True):
        with pytest.raises(InvalidParameterError) as err:
            discrete_gaussian_delta(1, bad, "1/2", digits=10)
        assert err.value.argument == "sensitivity"
        with pytest.raises(InvalidParameterError) as err:
            DiscreteGaussianLoss(1, bad)
        assert err.value.argument == "sensitivity"
    with pytest.raises(InvalidParameterError) as err:
        DiscreteLaplaceLoss(1, 10**5 + 1)
    assert err.value.argument == "sensitivity"
    # sigma may be the square root of a rational, but not negative (-1 squares to 1: it took
    # 65536 bits to a PrecisionError, and the loss an IndexError)
    for bad in (-1, "-3/2", -sympy.sqrt(2)):
        with pytest.raises(InvalidParameterError) as err:
            discrete_gaussian_delta(bad, 1, 0, digits=10)
        assert err.value.argument == "sigma"


@pytest.mark.parametrize(("sigma", "delta", "n"), [(1, 3, 2), (R(1, 2), 10**20, 1), (2, 1, 7)])
def test_partial_mean_tail_bound_contains_the_tail(sigma, delta, n) -> None:
    # sum over |z| >= n of |L(z + shift)| W(z), shift 0 or Delta, against a 60-digit sum (the
    # old constant 1e-300 did not depend on Delta: 1e-101 of tail at Delta = 1e150, sigma = 1)
    s = mpmath.mpf(Fraction(sigma).numerator) / Fraction(sigma).denominator
    with arb_precision(128):
        bound = loss_tail_bound(n, arb_from_exact(sympy.Rational(sigma)), delta)
        upper = mpmath.mpf(bound.upper().str(30, radius=False))
    for shift in (0, delta):
        tail = mpmath.fsum(abs(delta**2 - 2 * delta * (z + shift)) / (2 * s * s) * mpmath.exp(-mpmath.mpf(z) ** 2 / (2 * s * s))
                           for z in list(range(n, n + 80)) + list(range(-n - 79, -n + 1)))
        assert tail <= upper <= 10 * tail + DROPPED


def test_loss_cdf_places_every_atom_exactly() -> None:
    """The float CDF/SF of the discrete Gaussian loss (sigma = 1: atoms at 1/2 - x, on doubles)
    against mpmath sums, at atoms and one double below them, within CDF_ERROR; the ball CDF of the
    exact lattice contains the same values."""
    import flint
    import numpy as np

    from gdpproof.numeric.engine._mp import arb_precision
    from gdpproof.accounting.losses import CDF_ERROR, DiscreteGaussianLoss

    loss = DiscreteGaussianLoss(1, 1)
    p0 = _dg_pmf(Fraction(1))
    ells = [0.5, math.nextafter(0.5, -1), -2.5, math.nextafter(-2.5, -9), 7.5, 1e-300, -40.0]
    cdf_fn, _ = loss.ball_law("P")
    _, sf_q = loss.ball_law("Q")
    for ell in ells:
        # P(L <= ell) under P: the x with 1/2 - x <= ell; under Q = N_Z(1): the same x, shifted law
        want_p = mpmath.fsum(v for x, v in p0.items() if 0.5 - x <= ell)
        want_q = mpmath.fsum(v for x, v in p0.items() if 0.5 - (x + 1) <= ell)
        got_p, got_q = loss.cdf(np.array([ell]), "P")[0], loss.cdf(np.array([ell]), "Q")[0]
        assert abs(got_p - want_p) <= CDF_ERROR and abs(got_q - want_q) <= CDF_ERROR, ell
        assert abs(loss.sf(np.array([ell]), "Q")[0] - (1 - want_q)) <= CDF_ERROR
        with arb_precision(200):
            near = lambda v: flint.arb(mpmath.nstr(v, 55)) + flint.arb(0, 1e-45)  # noqa: E731
            assert cdf_fn(flint.arb(ell)).overlaps(near(want_p)) and sf_q(flint.arb(ell)).overlaps(near(1 - want_q))
            assert not cdf_fn(flint.arb(ell)).overlaps(near(want_p + mpmath.mpf("1e-30")))  # the check can fail


def test_an_irrational_sigma_is_accounted_in_a_fresh_process() -> None:
    # sigma = sqrt(2) is a ball of the square root of its rational square: the account must not
    # depend on the sympy->arb compiler having been imported first (it exited 5 in a new process)
    import subprocess
    import sys

    run = subprocess.run([sys.executable, "-m", "gdpproof.cli", "account", "--mechanism",
                          "discrete-gaussian:sigma=sqrt(2),sensitivity=2", "--delta", "1e-5"],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0 and "ε = 6.70130" in run.stdout, run.stderr
