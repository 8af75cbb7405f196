"""Certified conversions and calibration: oracles, directions, round trips, limits, extremes."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import gdpproof
from gdpproof import fast
from tests.oracles import CTX, _frac, assert_certified, gaussian_delta


def up_ulp(c) -> Fraction:
    return Fraction(10) ** (c.adjusted() - c.digits + 1)


def oracle_eps(mu, delta) -> Fraction:
    m, d = CTX.mpf(Fraction(mu).numerator) / Fraction(mu).denominator, CTX.mpf(Fraction(delta).numerator) / Fraction(delta).denominator
    f = lambda e: CTX.ncdf(-e / m + m / 2) - CTX.exp(e) * CTX.ncdf(-e / m - m / 2) - d  # noqa: E731
    lo, hi = CTX.mpf(0), CTX.mpf(64)  # plain bisection: slow, simple, independent
    for _ in range(400):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if f(mid) > 0 else (lo, mid)
    return _frac(hi)


@pytest.mark.parametrize(("mu", "delta"), [("1", "1e-5"), ("0.5", "1e-3"), ("2", "1e-10"), ("3", "0.01")])
def test_epsilon_matches_oracle_rounded_up(mu, delta):
    e = gdpproof.epsilon_from_delta(mu, delta, digits=30)
    assert e.rounding == "up"
    assert_certified(e, oracle_eps(mu, delta), 30)


def test_headline_and_published_values():
    # Issue 3: delta = 0.12693673750664394580082962475776688041508065011... rounded up.
    assert str(gdpproof.delta_from_epsilon(1, 1, digits=40)) == "0.1269367375066439458008296247577668804151"
    # Balle & Wang (2018), analytic Gaussian mechanism at eps = 1, delta = 1e-5: sigma ~ 3.73
    assert 3.73 < float(gdpproof.sigma_from_epsilon_delta(1, "1e-5", digits=10)) < 3.731


def test_directions_are_safe():
    mu = gdpproof.mu_from_epsilon_delta(1, "1e-5", digits=25)
    sigma = gdpproof.sigma_from_epsilon_delta(1, "1e-5", digits=25)
    eps = gdpproof.epsilon_from_delta(1, "1e-5", digits=25)
    assert (mu.rounding, sigma.rounding, eps.rounding) == ("down", "up", "up")
    # the budget mu keeps delta within the target; one unit more does not
    assert gaussian_delta(mu.to_fraction(), 1) <= Fraction(1, 10**5)
    assert gaussian_delta(mu.to_fraction() + up_ulp(mu), 1) > Fraction(1, 10**5)
    assert gaussian_delta(1 / sigma.to_fraction(), 1) <= Fraction(1, 10**5)
    assert gaussian_delta(1, eps.to_fraction()) <= Fraction(1, 10**5)
    assert gaussian_delta(1, eps.to_fraction() - up_ulp(eps)) > Fraction(1, 10**5)


mus = st.decimals(min_value="0.001", max_value="30", places=4).map(str)
epss = st.decimals(min_value="0", max_value="50", places=3).map(str)


def oracle_delta(mu: Fraction, eps: Fraction) -> Fraction:
    return gaussian_delta(mu, eps) if mu > 0 else Fraction(0)


@settings(deadline=None)
@given(mus, epss)
@example("1", "0")
@example("0.001", "50")
@example("30", "0.001")
def test_round_trip_eps_delta_eps(mu, eps):
    d = gdpproof.delta_from_epsilon(mu, eps, digits=30)
    if d.adjusted() < -900_000:  # beyond exact decimals (and Fractions): go through the logarithm
        back = gdpproof.epsilon_from_log_delta(mu, gdpproof.log_delta_from_epsilon(mu, eps, digits=30), digits=25)
        assert abs(back.to_fraction() - Fraction(eps)) <= Fraction(eps) * Fraction(1, 10**20)
        return
    assert oracle_delta(Fraction(mu), Fraction(eps)) <= d.to_fraction()  # delta rounded up
    back = gdpproof.epsilon_from_delta(mu, d, digits=25)
    # the defining property, checked with the independent oracle: back is admissible and a
    # unit less is not; as d >= delta(eps), back <= eps
    assert oracle_delta(Fraction(mu), back.to_fraction()) <= d.to_fraction()
    if back > 0:
        assert oracle_delta(Fraction(mu), back.to_fraction() - up_ulp(back)) > d.to_fraction()
    assert back.to_fraction() <= Fraction(eps) + up_ulp(back)


@settings(deadline=None)
@given(mus, epss)
@example("0.001", "1")
@example("14.184", "0.5")
def test_round_trip_mu_delta_mu(mu, eps):
    d = gdpproof.delta_from_epsilon(mu, eps, digits=30)
    if d == 1 or d.adjusted() < -900_000:
        return  # mu is infinite, or delta is beyond exact decimals
    back = gdpproof.mu_from_epsilon_delta(eps, d, digits=25)
    assert back.rounding == "down"
    ulp = up_ulp(back)
    # defining property with the oracle: back keeps delta within d, one unit more does not
    assert oracle_delta(back.to_fraction(), Fraction(eps)) <= d.to_fraction()
    assert oracle_delta(back.to_fraction() + ulp, Fraction(eps)) > d.to_fraction()
    # and it is mu itself, up to what rounding delta to 30 digits can move it
    assert back.to_fraction() >= Fraction(mu) - ulp


@settings(deadline=None)
@given(epss, st.integers(min_value=1, max_value=300), st.sampled_from(["1", "0.5", "3"]))
def test_round_trip_calibration(eps, k, sens):
    target = Fraction(1, 10**k)
    sigma = gdpproof.sigma_from_epsilon_delta(eps, target, sens, digits=20)
    mu = gdpproof.mu_from_sigma(sigma, sens, digits=40)
    achieved = gdpproof.delta_from_epsilon(mu, eps, digits=20)
    # the calibrated mechanism meets the target (with mu rounded up, so this is conservative)
    assert achieved.to_fraction() <= target * (1 + Fraction(1, 10**15))
    assert gaussian_delta(Fraction(sens) / sigma.to_fraction(), Fraction(eps)) <= target


def test_limits():
    assert gdpproof.epsilon_from_delta(1, 0).is_infinite()
    assert gdpproof.epsilon_from_delta(0, "1e-9") == 0
    assert gdpproof.epsilon_from_delta(1, "0.9") == 0  # above delta_mu(0) = 0.3829...
    assert gdpproof.mu_from_epsilon_delta(1, 0) == 0
    assert gdpproof.mu_from_epsilon_delta(1, 1).is_infinite()
    assert gdpproof.sigma_from_epsilon_delta(1, 0).is_infinite()
    assert gdpproof.sigma_from_epsilon_delta(1, 1) == 0
    assert gdpproof.delta_from_epsilon(0, 3) == 0
    assert gdpproof.log_delta_from_epsilon(0, 3).is_infinite()
    assert gdpproof.mu_from_error_rates("0.6", "0.5") == 0
    assert gdpproof.mu_from_error_rates(0, "0.5").is_infinite()
    assert gdpproof.sigma_from_error_rates("0.3", "0.7").is_infinite()


@pytest.mark.parametrize("mu", ["1e-6", "0.01", "1", "50", "1000"])
@pytest.mark.parametrize("eps", ["0", "1e-6", "1", "700", "10000"])
def test_whole_domain_delta(mu, eps):
    try:
        d = gdpproof.delta_from_epsilon(mu, eps, digits=30)
    except gdpproof.PrecisionError as exc:
        # only for delta beyond what a Decimal holds (about 10^-2e19); its log is finite
        assert "beyond what a Decimal can hold" in str(exc)
        assert gdpproof.log_delta_from_epsilon(mu, eps, digits=10) < -2e17
        return
    assert 0 < d <= 1
    ld = gdpproof.log_delta_from_epsilon(mu, eps, digits=10)
    assert ld <= 0


@pytest.mark.parametrize("mu", ["1e-6", "0.01", "1", "50", "1000"])
@pytest.mark.parametrize("delta", ["0.5", "1e-5", "1e-300", "1e-5000"])
def test_whole_domain_epsilon(mu, delta):
    e = gdpproof.epsilon_from_delta(mu, delta, digits=30)
    assert e >= 0 and e.is_finite()
    if e > 0:  # certified boundary: delta at e is within the target, a unit below it is not
        assert gdpproof.delta_from_epsilon(mu, e, digits=10) <= gdpproof.Certified(delta, digits=10, rounding="up", method="exact") * 1


@pytest.mark.parametrize("eps", ["0", "1e-6", "1", "700", "10000"])
@pytest.mark.parametrize("delta", ["0.5", "1e-5", "1e-300", "1e-5000"])
def test_whole_domain_mu_sigma(eps, delta):
    m = gdpproof.mu_from_epsilon_delta(eps, delta, digits=30)
    s = gdpproof.sigma_from_epsilon_delta(eps, delta, digits=30)
    assert m > 0 and s > 0
    # sigma = 1/mu: mu rounded down, sigma up, so their product is 1 up to two roundings
    assert abs(m.to_fraction() * s.to_fraction() - 1) < Fraction(1, 10**28)


def test_log_delta_far_below_float_range():
    ld = gdpproof.log_delta_from_epsilon("0.01", 1000, digits=12)
    assert str(ld) == "-4999999528.54"
    # the decimal exponent of delta itself is floor(log delta / ln 10) = floor(-2171472204.77)
    assert gdpproof.delta_from_epsilon("0.01", 1000, digits=5).adjusted() == math.floor(float(ld) / math.log(10))


def test_error_rate_readings():
    m = gdpproof.mu_from_error_rates("0.05", "0.5", digits=20)
    assert gdpproof.beta_from_mu(m, "0.05", digits=15) <= gdpproof.Certified("0.5", digits=1, rounding="up", method="exact")
    s = gdpproof.sigma_from_error_rates("0.05", "0.5", digits=20)
    assert abs(s.to_fraction() * m.to_fraction() - 1) < Fraction(1, 10**18)
    assert gdpproof.mu_from_pure_epsilon(1, digits=15) == gdpproof.tightest_mu(gdpproof.randomized_response(1), digits=15)


def test_certified_agrees_with_mpmath_route():
    # the lambdified mpmath evaluator of the same symbolic delta agrees with the ball route
    g = gdpproof.gaussian("0.7")
    from gdpproof.numeric.engine.evaluate import _mp_eval
    from gdpproof.symbolic.symbols import epsilon, mu
    from gdpproof.symbolic.tradeoff import GAUSSIAN_DUAL

    for e in ("0", "0.5", "3", "12"):
        c = gdpproof.delta_from_epsilon("0.7", e, digits=30, ).to_fraction()
        m = _mp_eval(GAUSSIAN_DUAL, (epsilon, mu), (gdpproof._args.exact("e", e), gdpproof._args.exact("m", "0.7")), 60)
        assert abs(m - c) <= abs(c) * Fraction(1, 10**29)
    assert g.delta(3, digits=30) == gdpproof.delta_from_epsilon("0.7", 3, digits=30)


# ---------------------------------------------------------------------------------------------
# float64 path (the README's target: relative error <= 1e-10 over mu in [0.01, 50], eps in [0, 700])
# ---------------------------------------------------------------------------------------------


def test_fast_delta_dense_grid():
    mus = np.logspace(-2, np.log10(50), 30)
    eps = np.concatenate([[0.0], np.logspace(-4, np.log10(700), 30)])
    M, E = np.meshgrid(mus, eps)
    with pytest.warns(RuntimeWarning, match="below the float64 range"):
        D = fast.delta_from_epsilon(M, E)
    assert np.isfinite(D).all() and (D >= 0).all()
    worst = 0.0
    for m, e, d in zip(M.ravel(), E.ravel(), D.ravel()):
        ref = float(gdpproof.delta_from_epsilon(float(m), float(e), digits=20))
        if ref >= 1e-300:
            worst = max(worst, abs(d - ref) / ref)
    assert worst <= 1e-10, worst


def test_fast_inverses_dense_grid():
    mus = np.logspace(-2, np.log10(50), 12)
    ds = np.logspace(-300, -0.5, 14)
    M, D = np.meshgrid(mus, ds)
    E = fast.epsilon_from_delta(M, D)
    worst = 0.0
    for m, d, e in zip(M.ravel(), D.ravel(), E.ravel()):
        ref = float(gdpproof.epsilon_from_delta(float(m), float(d), digits=20))
        worst = max(worst, abs(e - ref) / ref if ref else abs(e))
    assert worst <= 1e-10, worst
    eps = np.concatenate([[0.0], np.logspace(-3, np.log10(700), 12)])
    EE, DD = np.meshgrid(eps, ds)
    MU = fast.mu_from_epsilon_delta(EE, DD)
    S = fast.sigma_from_epsilon_delta(EE, DD, 2.0)
    worst = 0.0
    for e, d, m, s in zip(EE.ravel(), DD.ravel(), MU.ravel(), S.ravel()):
        ref = float(gdpproof.mu_from_epsilon_delta(float(e), float(d), digits=20))
        worst = max(worst, abs(m - ref) / ref, abs(s * ref / 2 - 1))
    assert worst <= 1e-10, worst


def test_fast_inverses_where_the_root_is_ill_conditioned():
    # delta just below delta_mu(0), where delta is flat in eps (the root tiny), and delta near 1,
    # where it is flat in mu: the float root finders hand over these entries (before, their
    # relative errors reached 74 and 1e-4); the rest stay within 1e-10 of the certified path
    rng = np.random.default_rng(31)
    m = 10 ** rng.uniform(-2, np.log10(50), 80)
    e = np.minimum(m * m * 10 ** rng.uniform(-10, 0, 80), 690)
    d = np.array([float(gdpproof.delta_from_epsilon(float(a), float(b), digits=20)) for a, b in zip(m, e)])
    E = fast.epsilon_from_delta(m, d)
    for mm, dd, ee in zip(m, d, E):
        ref = float(gdpproof.epsilon_from_delta(float(mm), float(dd), digits=20))
        assert abs(ee - ref) <= 1e-10 * ref, (mm, dd, ee, ref)
    e = np.concatenate([rng.uniform(0, 1, 40), rng.uniform(0, 700, 40)])
    d = 1 - 10 ** rng.uniform(-12, -0.3, 80)
    M = fast.mu_from_epsilon_delta(e, d)
    for ee, dd, mm in zip(e, d, M):
        ref = float(gdpproof.mu_from_epsilon_delta(float(ee), float(dd), digits=20))
        assert abs(mm - ref) <= 1e-10 * ref, (ee, dd, mm, ref)


def test_fast_limits_and_bad_input():
    assert fast.epsilon_from_delta(1.0, 0.0) == np.inf
    assert fast.epsilon_from_delta(1.0, 0.9) == 0.0
    assert fast.mu_from_epsilon_delta(1.0, 0.0) == 0.0
    with pytest.raises(gdpproof.InvalidParameterError):
        fast.delta_from_epsilon(-1.0, 1.0)
    with pytest.raises(gdpproof.InvalidParameterError):
        fast.epsilon_from_delta(1.0, np.nan)


def test_fast_root_finder_stops_at_float_resolution():
    # the Illinois iteration stops each entry once its bracket is below the float64 resolution:
    # far fewer evaluations than the 80 of fixed bisection, and the root of a known function
    from gdpproof.numeric.engine.fast import _log_root

    rng = np.random.default_rng(4)
    roots = 10 ** rng.uniform(-6, 3, 1000)
    calls = []

    def f(x, active_index):
        calls.append(len(active_index))
        return np.log(roots[active_index]) - np.log(x)  # decreasing, zero at the root

    got = _log_root(f, np.full(1000, 1e-12), np.full(1000, 1e4))
    assert np.max(np.abs(got / roots - 1)) <= 4e-15
    assert len(calls) <= 40, len(calls)


def test_epsilon_tangent_certificate_equals_the_unit_steps():
    # epsilon_from_delta certifies the answer c and the decimal below it from one evaluation at c
    # (the tangent of delta in e^eps); each answer must be the one the two separate sign checks
    # of _certify_boundary give, at 40 digits too, and at the decade boundary where the decimal
    # below 10.000... is 9.999... (its unit ten times smaller)
    from gdpproof.numeric.tradeoff import solve

    rng = np.random.default_rng(21)
    cases = [(str(round(float(rng.uniform(0.3, 4)), 4)), f"{float(10 ** rng.uniform(-12, -1)):.6e}",
              int(rng.choice([6, 20, 40]))) for _ in range(6)]
    # delta_mu(10 - 1e-45) rounded up at 60 digits: the root lies within 1e-45 below 10
    near_ten = gdpproof.delta_from_epsilon(1, Fraction(10) - Fraction(1, 10**45), digits=60)
    cases.append((1, near_ten, 40))
    taken = []
    tangent = solve._certify_epsilon_by_tangent

    def spy(*args):
        result = tangent(*args)
        taken.append(result is not None)
        return result

    for mu, delta, digits in cases:
        solve._certify_epsilon_by_tangent = spy
        try:
            fast_answer = gdpproof.epsilon_from_delta(mu, delta, digits=digits)
            solve._certify_epsilon_by_tangent = lambda *args: None  # the separate checks only
            slow_answer = gdpproof.epsilon_from_delta(mu, delta, digits=digits)
        finally:
            solve._certify_epsilon_by_tangent = tangent
        assert str(fast_answer) == str(slow_answer), (mu, delta, digits)
    assert all(taken) and len(taken) == len(cases)
    assert str(fast_answer) == "10." + "0" * 38  # the decade boundary case, certified by the tangent


def test_float_epsilon_start_reaches_the_root_in_few_steps():
    # the float64 Newton starts at the root of the tail's leading term: in the benchmark's range
    # it needs at most four evaluations of log delta (ten or more from eps = 1), and a step below
    # one ulp ends it (the case below bisected on for 30 evaluations), at the root
    from gdpproof.numeric.tradeoff import solve
    from gdpproof.numeric.engine._kernels import gaussian_log_dual_float

    calls = []

    def counted(x, mu):
        calls.append(x)
        return gaussian_log_dual_float(x, mu)

    rng = np.random.default_rng(22)
    cases = [(1.2247112447863504, 0.0007152807752890482)]
    cases += [(float(rng.uniform(0.5, 3)), float(10 ** rng.uniform(-10, -2))) for _ in range(30)]
    original = solve.gaussian_log_dual_float
    solve.gaussian_log_dual_float = counted
    try:
        for mu, delta in cases:
            calls.clear()
            root = solve._float_epsilon_guess(mu, math.log(delta))
            assert len(calls) <= 4, (mu, delta, len(calls))
            assert math.isclose(float(gaussian_delta(Fraction(mu), Fraction(root))), delta, rel_tol=1e-12)
    finally:
        solve.gaussian_log_dual_float = original


def _delta_far(mu: Fraction, eps: Fraction, dps: int) -> object:
    """delta_mu(eps) at a huge eps, independently: with a = eps/mu - mu/2 and b = eps/mu + mu/2,
    e^eps Phi(-b) = e^(-a^2/2) U(1/2, 1/2, b^2/2) / (2 sqrt(pi)) (eps - b^2/2 = -a^2/2), which
    mpmath's erfc (it overflows at b = 1e30) does not need."""
    ctx = CTX.clone()
    ctx.dps = dps
    m, e = ctx.mpf(mu.numerator) / mu.denominator, ctx.mpf(eps.numerator) / eps.denominator
    a, b = e / m - m / 2, e / m + m / 2
    return _frac(ctx.ncdf(-a) - ctx.exp(-a * a / 2) * ctx.hyperu(0.5, 0.5, b * b / 2) / (2 * ctx.sqrt(ctx.pi)))


@pytest.mark.parametrize(("eps", "delta"), [("1e20", "1e-5"), ("1e20", "0.9"), ("5000", "1e-300"), ("1e40", "1e-5")])
def test_mu_at_a_huge_epsilon_is_the_certified_boundary(eps, delta):
    """The bracket of mu at a huge epsilon started at mu = 1, where the dual's two terms agree to
    eps/mu^2 relative: its ball was NaN and the search shrank mu 65,536 times (convert --eps 1e60
    hung).  Now the answer is the largest decimal whose delta is within the target."""
    m = gdpproof.mu_from_epsilon_delta(eps, delta, digits=25)
    e, d = Fraction(eps), Fraction(delta)
    dps = 2 * len(str(Fraction(eps).numerator)) + 60
    assert _delta_far(m.to_fraction(), e, dps) <= d < _delta_far(m.to_fraction() + up_ulp(m), e, dps)
    s = gdpproof.sigma_from_epsilon_delta(eps, delta, digits=25)
    assert abs(m.to_fraction() * s.to_fraction() - 1) < Fraction(1, 10**23)


def test_mu_and_epsilon_solvers_refuse_beyond_their_limits_at_once():
    with pytest.raises(gdpproof.InvalidParameterError, match=r"epsilon='1e999999' must be at most 1e10000"):
        gdpproof.mu_from_epsilon_delta("1e999999", "1e-5")
    with pytest.raises(gdpproof.InvalidParameterError, match=r"epsilon='1e10001' must be at most 1e10000"):
        gdpproof.sigma_from_epsilon_delta("1e10001", "1e-5")
    with pytest.raises(gdpproof.InvalidParameterError, match=r"mu='1e999999' must be at most 1e5000"):
        gdpproof.epsilon_from_delta("1e999999", "1e-5")
    # the largest allowed are answered (mu about sqrt(2 eps); eps about mu^2/2)
    assert str(gdpproof.mu_from_epsilon_delta("1e10000", "1e-5", digits=6)) == "1.41421E+5000"
    assert str(gdpproof.epsilon_from_delta("1e1000", "1e-5", digits=6)) == "5.00001E+1999"
    # a float at the top of the range goes through the certified route (fast hands it over)
    assert fast.mu_from_epsilon_delta(1e308, 1e-5) == pytest.approx(math.sqrt(2) * 1e154, rel=1e-15)


def test_mu_near_zero_is_galloped_to_or_refused_at_the_precision_limit():
    """At eps = 0, mu = 2 sqrt(2) erfinv(delta), about sqrt(2 pi) delta: the bracket shrank mu by
    2^-8 a step at a precision rising with it (1e-100000 took 41,000 steps, at up to 330,000 bits)."""
    m = gdpproof.mu_from_epsilon_delta(0, "1e-10000", digits=20)
    ctx = CTX.clone()
    ctx.dps = 40
    assert_certified(m, _frac(ctx.sqrt(2 * ctx.pi) * ctx.mpf(10) ** -10000), 20)
    # at eps = 0 itself the closed form answers (sqrt(2 pi) delta is within delta^3 of it, relative);
    # at an eps just above 0 the search still needs more than the limit and says so at once
    assert_certified(gdpproof.mu_from_epsilon_delta(0, "1e-100000", digits=20),
                     _frac(ctx.sqrt(2 * ctx.pi) * ctx.mpf(10) ** -100000), 20)
    with pytest.raises(gdpproof.PrecisionError, match="65,536 bits of precision, the limit"):
        gdpproof.mu_from_epsilon_delta("1e-100010", "1e-100000")


def test_fast_eps_below_the_float_domain_of_mu_is_not_read_as_zero():
    # below mu ~ 8e-16 the float delta_mu(0) (about 0.4 mu) underflows to 0: the float test
    # "delta >= delta_mu(0)" then passed for every delta and eps came out 0; such entries now
    # go to the certified path, which gives the root (and 0 above delta_mu(0))
    import numpy as np

    from gdpproof import fast
    from gdpproof.numeric.tradeoff.solve import delta_from_epsilon, epsilon_from_delta

    for mu in (1e-300, 1e-20, 1e-16, 5e-16):
        d0 = float(delta_from_epsilon(mu, 0, digits=20))
        below, above = 0.5 * d0, 2 * d0
        got = fast.epsilon_from_delta(np.array([mu, mu]), np.array([below, above]))
        assert got[0] == float(epsilon_from_delta(mu, below, digits=17)) > 0
        assert got[1] == 0.0


def _delta_mills(mu: Fraction, eps: Fraction, dps: int, log: bool = False) -> object:
    """delta_mu(eps) (or its log, an mpf) by mpmath in z = eps/mu - mu/2, independently of the arb
    kernels: e^eps phi(z + mu) = phi(z), so delta = Phi(-z) - phi(z) M(z + mu), M(w) =
    Phi(-w)/phi(w) the Mills ratio (its asymptotic series 1/w - 1/w^3 + 3/w^5 - ... beyond
    w = 1e6, where Phi(-z) is phi(z) M(z) too): no e^eps to form."""
    ctx = CTX.clone()
    ctx.dps = dps

    def mills(w):
        if w <= 10**6:
            return ctx.ncdf(-w) / ctx.npdf(w)
        total, term, k = ctx.mpf(0), 1 / w, 0
        while abs(term) > ctx.mpf(2) ** (-ctx.prec - 10) * abs(total):
            total, k = total + term, k + 1
            term *= -(2 * k - 1) / (w * w)
        return total

    z = eps / mu - mu / 2
    zz = ctx.mpf(z.numerator) / z.denominator
    w = zz + ctx.mpf(mu.numerator) / mu.denominator
    value = ctx.npdf(zz) * (mills(zz) - mills(w)) if zz > 10**6 else ctx.ncdf(-zz) - ctx.npdf(zz) * mills(w)
    return ctx.log(value) if log else _frac(value)


@pytest.mark.parametrize(("mu", "delta", "digits"), [
    ("1e100", "1e-5", 4000), ("1e1000", "1e-5", 4000), ("1e70", "1e-5", 2000),
    # Newton stepped to NaN where its slope's ball held 0 (main: "left the finite range")
    ("3.66834865557167e-07", "6.876862258679649e-112", 15), ("96e3", "3e-300", 5)])
def test_epsilon_at_a_huge_mu_to_thousands_of_digits(mu, delta, digits):
    """convert --mu 1e100 --delta 1e-5 --digits 4000 ran 7.6 s and failed: Newton started at a z
    = eps/mu - mu/2 near mu/2 and only halved it each step, 200 steps ending 3e-61 off, beyond
    what the certification bridges past 1200 digits.  The answer is the decimal rounded up:
    delta at it is within the target, one unit below it is not."""
    e = gdpproof.epsilon_from_delta(mu, delta, digits=digits)
    m, d, c = Fraction(mu), Fraction(delta), e.to_fraction()
    dps = digits + 60
    assert _delta_mills(m, c, dps) <= d < _delta_mills(m, c - up_ulp(e), dps)



def test_epsilon_at_a_large_mu_and_a_log_delta_far_below_its_square():
    # z = eps/mu - mu/2 near 1.3e126, far above mu = 9.13e17: the dual's log form cancels
    # log2(z/mu) bits there, and the target -8.5e251 at 50 digits is a ball of radius 1e173
    e = gdpproof.epsilon_from_log_delta("913e15", "-8.5e251", digits=50)
    m, c = Fraction("913e15"), e.to_fraction()
    dps = 50 + 60 + 110  # and the 108 digits of z/mu its two terms share
    bound = CTX.clone()
    bound.dps = dps
    assert _delta_mills(m, c, dps, log=True) <= bound.mpf("-8.5e251") < _delta_mills(m, c - up_ulp(e), dps, log=True)

def test_epsilon_at_the_largest_mu_to_4000_digits():
    # eps = mu^2/2 + mu z, z = 4.26...: at 4000 digits the unit of 5e9999 is 1e6000 = mu 1e1000,
    # so the decimal mu^2/2 (z = 0, delta near 1/2) is not admissible and the next one (z = 1e1000) is
    e = gdpproof.epsilon_from_delta("1e5000", "1e-5", digits=4000)
    assert str(e) == "5." + "0" * 3998 + "1E+9999"


def test_certify_boundary_names_what_it_could_not_settle():
    from gdpproof.numeric.tradeoff.roots import certify_boundary

    with pytest.raises(gdpproof.PrecisionError, match=r"^could not certify 5 digits of epsilon at mu=2, "
                       r"delta=0\.5: the certified tests did not find the boundary near its estimate 1$"):
        certify_boundary(Fraction(1), lambda x: x >= 10**2000, digits=5, rounding="up", increasing_ok=True,
                         what=lambda: "epsilon at mu=2, delta=0.5")
