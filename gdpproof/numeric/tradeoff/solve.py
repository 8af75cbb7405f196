"""Certified conversions between mu-GDP, (epsilon, delta)-DP and the Gaussian mechanism's sigma.

Every solver here returns the decimal that is *proven* to be the exact answer rounded in the
safe direction: a candidate found quickly (float64 Newton, then Halley steps in ball arithmetic;
Newton on log delta outside the float range), then certified by two sign checks in ball
arithmetic (the candidate meets the privacy condition and its neighbouring decimal does not),
the precision doubling until they decide.  The formulas are the arb kernels generated from
:mod:`gdpproof.symbolic.tradeoff` (:mod:`gdpproof.numeric.engine._kernels`), so plain arguments
load neither sympy nor scipy.

The method, the references and what loads sympy: ``docs/proofs/conversions.md``.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import flint

from ...errors import InvalidParameterError, PrecisionError, bad
from ...text import show
from ..engine._kernels import (
    gaussian_dlog_dual_eps,
    gaussian_dlog_dual_eps_float,
    gaussian_dlog_dual_mu,
    gaussian_dlog_dual_mu_float,
    gaussian_dual,
    gaussian_dual_at,
    gaussian_dual_halley,
    gaussian_dual_halley_mu,
    gaussian_dual_slope,
    gaussian_epsilon_start_float,
    gaussian_log_dual,
    gaussian_log_dual_float,
)
from ..engine._mp import arb_of_fraction, arb_precision, fraction_of_exact_arb
from ..._args import is_sympy, nonnegative_fraction, probability_fraction, rational_fraction, sympy_rational
from ..engine.certified import (
    MAX_DIGITS,
    Certified,
    certified_arb,
    check_request,
    scaled_round,
    certify_balls,
    certify_at_floats,
    working_bits,
)
from .rates import (  # noqa: F401  (re-exported: the conversions' historical home)
    beta_from_mu,
    mu_from_error_rates,
    mu_from_pure_epsilon,
    mu_from_sigma,
    sigma_from_error_rates,
)
from .roots import (
    bracket_root,
    certify_boundary,
    float_root,
    gallop_down,
    newton,
    sign_of,
)

__all__ = [
    "delta_from_epsilon",
    "log_delta_from_epsilon",
    "epsilon_from_delta",
    "epsilon_from_log_delta",
    "mu_from_epsilon_delta",
    "sigma_from_epsilon_delta",
    "mu_from_sigma",
    "mu_from_pure_epsilon",
    "mu_from_error_rates",
    "beta_from_mu",
    "sigma_from_error_rates",
]


# the kernels, as functions of (epsilon, mu) balls: generated from the symbolic expressions
_DUAL = gaussian_dual


_LOG_DUAL = gaussian_log_dual


_DLOG_DUAL_EPS = gaussian_dlog_dual_eps


_DLOG_DUAL_MU = gaussian_dlog_dual_mu


def _nonneg(name: str, value: Any, *, infinite: bool = False) -> Fraction:
    return nonnegative_fraction(name, value, infinite=infinite)  # type: ignore[return-value]


def _real(name: str, value: Any) -> Fraction:
    """A finite real epsilon, exactly (negative allowed: delta(eps) is defined for every real eps)."""
    return rational_fraction(name, value)  # type: ignore[return-value]


def _outward(name: str, value: Any, up: bool, check: Any = None) -> Any:
    """An irrational sympy argument as a rational just beside it (:func:`~..engine.irrational.outward`),
    validated by ``check(name, value)`` when given (an error names the value as given)."""
    if not is_sympy(value) or getattr(value, "is_Rational", True):
        return value if check is None else check(name, value)
    from ..engine.irrational import outward

    return outward(name, value, up, check)


def _one_minus_exp(e: Fraction, digits: int) -> Certified:
    """delta(eps) = 1 - e^eps of the identity trade-off (mu = 0) at eps < 0."""
    return certify_balls(lambda x: 1 - x.exp(), (e,), digits=digits, rounding="up", unit_interval=True,
                         what=lambda: f"delta at mu=0, epsilon={show(e)}")


def _probability(name: str, value: Any) -> Fraction:
    return probability_fraction(name, value)


#: The arguments the hot path of :func:`delta_from_epsilon` takes as they are (bool is not one).
_PLAIN = (float, int)
#: Guard bits of that hot path over the digits' own, for its erfcs (gaussian_dual_at; its other
#: ball operations run at the 64-bit multiple at least 16 bits above, 128 for 30 digits).
#: delta = T1 - T2, with T1 = Phi(mu/2 - eps/mu) and T2 = e^eps Phi(-eps/mu - mu/2), loses about
#: log2(T1/delta) bits to cancellation; T1/delta is about eps/mu^2 + 1/2 for large eps/mu
#: (T2/T1 ~ (eps/mu - mu/2)/(eps/mu + mu/2)) and small otherwise, so the bits of int(eps/mu^2)
#: are added too (60 beyond 1e18).  The precisions only set the cost: any ball decides soundly
#: or not at all, and an undecided one takes the general route (which starts at working_bits).
#: 30 digits take 100 bits and the guard 8 more.  erfc_at serves up to 118 bits from erfc's cell
#: polynomials (erfc_cells, 123-125 bits at 128), so over mu in [0.5, 3], eps in [0, 5] no input
#: of 20,000 was left undecided; before a cell is built (its first uses) it runs 1 - erf at 111
#: bits for z <= 1 and arb's erfc at 108-113 above, which leave about 1 input in 500 undecided
#: (guards of 4 to 8 bits cost alike there; 2 is a third dearer).
_HOT_GUARD = 8
_HOT_BITS = tuple(math.ceil(d * 3.3219280948873626) + _HOT_GUARD for d in range(MAX_DIGITS + 1))


def _exact_ball(value: Any) -> flint.arb | None:
    """A finite float or an int >= 0 as its exact ball (exact at every precision), else None.

    The hot path of the conversions: no Fraction, no parser.  Everything else (negative, NaN,
    strings, Fractions, sympy numbers) goes through the one parser of plain numbers
    (:func:`gdpproof._args.plain_value`), which also words the errors.
    """
    kind = type(value)
    if kind is float:
        if 0.0 <= value < math.inf:
            return flint.arb(value)
    elif kind is int and value >= 0:
        return flint.arb(value)
    return None



def _exact_gaussian(log: bool, e: Fraction, m: Fraction) -> Any:
    """The exact value sympy gives for the dual (or its log) at (e, m): the last resort of the
    certification loop when no ball decides (it loads sympy, as it always did)."""
    from ...symbolic.symbols import epsilon as EPS
    from ...symbolic.symbols import mu as MU
    from ...symbolic.tradeoff import GAUSSIAN_DUAL, GAUSSIAN_LOG_DUAL
    from ..engine.certify import exact_substitution

    if any(max(abs(v.numerator).bit_length(), v.denominator.bit_length()) > EXACT_MAX_BITS for v in (e, m)):
        return None  # sympy's substitution at mu = 1e999999 did not end; no short decimal is there to settle
    expr = GAUSSIAN_LOG_DUAL if log else GAUSSIAN_DUAL
    return exact_substitution(expr, (EPS, MU), (sympy_rational(e), sympy_rational(m)))


#: The exact last resort of the dual's certification takes arguments of at most this many bits.
EXACT_MAX_BITS = 4096


def _inf(digits: int, rounding: str) -> Certified:
    return Certified("Infinity", digits=digits, rounding=rounding, method="exact")


def _zero(digits: int, rounding: str) -> Certified:
    return Certified(0, digits=digits, rounding=rounding, method="exact")


#: log delta below which GAUSSIAN_EPSILON_TAIL_START is the Newton start (its t exceeds 1).
_TAIL_FROM = -(1 + math.log(2 * math.pi)) / 2


def _float_epsilon_guess(mu: float, log_target: float) -> float | None:
    """A float64 estimate of epsilon with log delta_mu(epsilon) = log_target; None outside the
    float range.

    Newton starts from the tail's leading term (``GAUSSIAN_EPSILON_TAIL_START`` of
    :mod:`gdpproof.symbolic.tradeoff`, its generated float kernel), or from eps = 1 where that is
    not meant (delta above about 0.22, where t <= 1) or not real (the bracket under its square
    root negative): three
    Newton steps usually reach float precision from it (from eps = 1 about ten evaluations more).
    """
    if not (1e-3 <= mu <= 1e3) or not (-700 < log_target < 0):
        return None
    start = 1.0
    if log_target < _TAIL_FROM:  # t = -2 log delta - log(2 pi) > 1: the tail form applies
        try:
            start = max(gaussian_epsilon_start_float(math.exp(log_target), mu), 1e-6)
        except (ValueError, OverflowError):  # the bracket under the square root is negative
            start = 1.0
    return float_root(lambda x: gaussian_log_dual_float(x, mu) - log_target,
                       lambda x: gaussian_dlog_dual_eps_float(x, mu), increasing=False, span=(1e-12, 1e7),
                       start=start)


def _float_mu_guess(eps: float, log_target: float) -> float | None:
    """A float64 estimate of mu with log delta_mu(eps) = log_target; None outside the float range."""
    if not (0 < eps <= 1e3) or not (-700 < log_target < 0):
        return None
    return float_root(lambda x: gaussian_log_dual_float(eps, x) - log_target,
                       lambda x: gaussian_dlog_dual_mu_float(eps, x), increasing=True, span=(1e-3, 1e3))


def delta_from_epsilon(mu: Any, epsilon: Any, *, digits: int = 30) -> Certified:
    r"""delta(epsilon) of mu-GDP, rounded up (a privacy loss).

    .. math:: \delta_\mu(\varepsilon) = \Phi(-\varepsilon/\mu + \mu/2)
              - e^\varepsilon \Phi(-\varepsilon/\mu - \mu/2)

    (Dong, Roth & Su 2022, Cor. 2.13).  mu-GDP implies (epsilon, delta)-DP for this delta and
    no smaller one.  mu = 0 gives delta = 0.  No underflow: delta = 1e-100000 is returned as
    such; see :func:`log_delta_from_epsilon` for its logarithm.

    Args:
        mu: real, mu >= 0 and finite.
        epsilon (real and finite; at epsilon < 0 the closed form still holds (delta > 1 - e^eps): there: the
            guarantee P(S) <= e^eps Q(S) + delta is then weaker than trivial only through delta, as in DRS
            Prop. 2.12, which holds for every real eps).
        digits: int, significant digits (default 30).

    Examples:
        >>> import gdpproof
        >>> gdpproof.delta_from_epsilon(1, 1, digits=40)
        Certified('0.1269367375066439458008296247577668804151', digits=40, rounding='up')
        >>> gdpproof.delta_from_epsilon("0.5", 20, digits=10)
        Certified('9.744331372E-348', digits=10, rounding='up')
    """
    if type(mu) in _PLAIN and type(epsilon) in _PLAIN and type(digits) is int and 0 < mu < 1e300 \
            and 0 <= epsilon < 1e300 and 1 <= digits <= MAX_DIGITS:
        # the hot path, whose cost stays near that of two arb erfcs (docs/performance.md): two exact
        # balls, one evaluation at the precision this value needs, rounded up in arb and integers;
        # undecided, the general route below proves it
        c = epsilon / mu / mu  # the cancellation's bits (_HOT_GUARD)
        bits = _HOT_BITS[digits] + (int(c).bit_length() if c < 1e18 else 60)
        first = certify_at_floats(gaussian_dual_at, epsilon, mu, digits, (bits + 79) & -64, bits)
        if first is not None:
            return first
    check_request(digits, "up")
    bm, be = _exact_ball(mu), _exact_ball(epsilon)
    if bm is not None and be is not None and bm > 0:  # floats and ints: straight to balls
        return certify_balls(_DUAL, (be, bm), digits=digits, rounding="up", unit_interval=True,
                             exact=lambda: _exact_gaussian(False, Fraction(epsilon), Fraction(mu)),
                             what=lambda: f"delta at mu={show(Fraction(mu))}, epsilon={show(Fraction(epsilon))}")
    if is_sympy(mu) or is_sympy(epsilon):
        return _delta_of_sympy_mu(mu, epsilon, digits)
    m = _nonneg("mu", mu)
    e = _real("epsilon", epsilon)  # the closed form holds for every real epsilon
    if m == 0:
        return _zero(digits, "up") if e >= 0 else _one_minus_exp(e, digits)
    return certify_balls(_DUAL, (e, m), digits=digits, rounding="up", unit_interval=True,
                         exact=lambda: _exact_gaussian(False, e, m), what=lambda: f"delta at mu={show(m)}, epsilon={show(e)}")


def _delta_of_sympy_mu(mu: Any, epsilon: Any, digits: int) -> Certified:
    """delta_from_epsilon for a sympy mu or epsilon, which may be irrational (sqrt(2), log(3)): compiled
    by sympy, certified for the exact values."""
    from ..._args import exact, nonnegative
    from ...symbolic.symbols import epsilon as EPS
    from ...symbolic.symbols import mu as MU
    from ...symbolic.tradeoff import GAUSSIAN_DUAL
    from ..engine.certify import certify

    m = nonnegative("mu", mu)
    e = exact("epsilon", epsilon, symbolic=False)
    if m == 0:
        # an irrational eps < 0 is taken just below itself: 1 - e^eps only grows (the safe side)
        if e >= 0:
            return _zero(digits, "up")
        return _one_minus_exp(_real("epsilon", _outward("epsilon", e, up=False)), digits)
    if m.free_symbols:
        raise bad("mu", m, "is symbolic; numeric evaluation needs a number")
    return certify(GAUSSIAN_DUAL, (EPS, MU), (e, m), digits=digits, rounding="up", unit_interval=True,
                   what=lambda: f"delta at mu={show(m)}, epsilon={show(e)}")


def log_delta_from_epsilon(mu: Any, epsilon: Any, *, digits: int = 30) -> Certified:
    """The natural logarithm of delta_mu(epsilon), rounded up; for delta far below 1e-300.

    mu = 0 gives -Infinity (delta = 0).

    Args:
        mu: mu, real, finite and >= 0.
        epsilon: epsilon, real, finite and >= 0.
        digits: Significant digits of the answer (1 to 4000).

    Returns:
        log delta, a :class:`Certified` rounded up.

    Raises:
        InvalidParameterError: An argument is out of its domain or not a real number.
        PrecisionError: The digits asked cannot be certified.

    Examples:
        >>> import gdpproof
        >>> gdpproof.log_delta_from_epsilon("0.01", 1000, digits=12)
        Certified('-4999999528.54', digits=12, rounding='up')
    """
    check_request(digits, "up")
    m = _nonneg("mu", mu)
    e = _nonneg("epsilon", epsilon)
    if m == 0:
        return Certified("-Infinity", digits=digits, rounding="up", method="exact")
    return certify_balls(_LOG_DUAL, (e, m), digits=digits, rounding="up", exact=lambda: _exact_gaussian(True, e, m),
                         what=lambda: f"log delta at mu={show(m)}, epsilon={show(e)}")


def _delta_le(mu_f: Fraction, eps_f: Fraction, target: Fraction, digits: int) -> bool:
    """Certified test delta_mu(eps) <= target."""
    if mu_f == 0:
        return True

    def diff(bits: int) -> flint.arb:
        return _DUAL(arb_of_fraction(eps_f), arb_of_fraction(mu_f)) - arb_of_fraction(target)

    return sign_of(diff, working_bits(digits)) <= 0


def _clearly_positive_root(mu: float, log_delta: float) -> bool:
    """Whether delta_mu(0) is far above the target by float64 (a 1e-6 relative margin), so the
    certified test at epsilon = 0 may be skipped.  Only a cost decision: the answer's own two
    sign checks prove it (delta above the target just below the answer means delta_mu(0) is too,
    by monotonicity), and a wrong "yes" here only makes the certification refuse, never lie."""
    if not (1e-3 <= mu <= 1e3 and -690 < log_delta < 0):
        return False
    try:
        return gaussian_log_dual_float(0.0, mu) > log_delta + 1e-6
    except (ValueError, OverflowError, ZeroDivisionError):
        return False


def _epsilon_root(mf: Fraction, log_target: flint.arb, bits: int) -> Fraction:
    """An estimate of the epsilon where log delta_mu(epsilon) = log_target (not certified):
    Newton on log delta from a float64 root when one exists, else from a point at or above the
    root (found by doubling from 1, or, for mu above 16, :func:`_epsilon_start_large_mu`)."""
    guess = _float_epsilon_guess(float(mf), float(log_target.mid())) if mf < 10**300 else None

    def log_step(x: flint.arb) -> tuple[flint.arb, flint.arb]:
        am = arb_of_fraction(mf)
        return _LOG_DUAL(x, am) - log_target, _DLOG_DUAL_EPS(x, am)

    def excess(x: flint.arb) -> flint.arb:
        return _LOG_DUAL(x, arb_of_fraction(mf)) - log_target

    if guess is not None:
        return newton(flint.arb(guess), log_step, bits)
    if mf.numerator.bit_length() - mf.denominator.bit_length() > 4:
        hi, cancellation = _epsilon_start_large_mu(mf, log_target, excess, bits)
        return newton(hi, log_step, bits, cancellation=cancellation)
    return newton(bracket_root(excess, flint.arb(1), 2, bits), log_step, bits)


def _epsilon_start_large_mu(mf: Fraction, log_target: flint.arb, excess: Callable[[flint.arb], flint.arb],
                            bits: int) -> tuple[flint.arb, int]:
    """A start at or above the epsilon where ``excess`` (log delta_mu(epsilon) minus the target's
    log, decreasing in epsilon) changes sign, for mu above 16, and the bits the dual cancels there.

    In z = epsilon/mu - mu/2, delta_mu = Phi(-z) - e^eps Phi(-z - mu) < Phi(-z) <= e^(-z^2/2)/2
    for z >= 0, so z = sqrt(-2 log(2 delta)) (0 for delta >= 1/2), rounded up to an integer, is
    at or above the root's z and close to it: Newton comes down from epsilon = mu^2/2 + mu z in
    a few steps (log delta is about -z^2/2 - log z there).  (A start doubled from mu^2/32
    overshot the root to a z near mu/2, from where each Newton step only halved z: at mu = 1e100
    the 200 steps ended at z = 2e39, an estimate 3e-61 off, which the certification could not
    bridge beyond about 1200 digits.)  The dual cancels about log2(mu/z) bits where z is below
    mu (forming z from epsilon) and log2(z/mu) where it is above (the difference of the two
    erfcx of its log form); both are counted.  Where the ball does not show the start at or
    above the root, z is doubled (plus one): a target given by a long log (log delta = -8.5e251
    at 50 digits is a ball of radius 1e173) leaves a start this close to the root undecided at
    any precision.  Only a start: the certification proves the answer.
    """
    m_bits = mf.numerator.bit_length() - mf.denominator.bit_length()
    with arb_precision(bits + 64):
        two_log_two_delta = (2 * (log_target + flint.arb(2).log())).mid()  # a start: no rigour needed
        z = 0 if two_log_two_delta >= 0 else math.ceil(fraction_of_exact_arb((-two_log_two_delta).sqrt().mid()))
    for _ in range(64):
        cancellation = max(m_bits, z.bit_length() - m_bits) + 16
        with arb_precision(bits + 32 + cancellation):
            x = arb_of_fraction(mf * mf / 2 + mf * z).mid()
            if excess(x) <= 0:
                return x, cancellation
        z = 2 * z + 1
    raise PrecisionError(f"could not bracket the epsilon of mu={show(mf)} (z above {show(z)})")


def _delta_root(guess: float, mu: flint.arb, target: flint.arb, bits: int) -> flint.arb:
    """An estimate of the epsilon where delta_mu(epsilon) = target (not certified), as an exact
    ball, from its float64 root ``guess``: one Halley step on delta in balls reaches the digits
    (the error goes from about 1e-16 to about its cube); a step too large to have converged goes
    on in :func:`newton`.  ``mu`` and ``target`` are balls of the exact values (made once)."""
    x = flint.arb(guess)

    def delta_step(x: flint.arb) -> tuple[flint.arb, flint.arb, flint.arb]:
        value, slope, curve = gaussian_dual_halley(x, mu)  # two erfcs for all three
        return value - target, slope, curve

    # the precision newton runs at (frexp gives the float's binary exponent, as magnitude)
    extra = 8 + max(0, -math.frexp(guess)[1])
    with arb_precision(bits + extra):
        g, dg, ddg = delta_step(x)
        new = (x - 2 * g * dg / (2 * dg * dg - g * ddg)).mid()
        # newton's stopping rule for Halley: a step this small leaves an error far below the digits
        if new.is_finite() and new > 0 and abs(new - x) <= x * _halley_tolerance(bits):
            return new
    with arb_precision(bits + extra + 64):
        return arb_of_fraction(newton(x, delta_step, bits))  # exact: a midpoint of that many bits


@functools.lru_cache(maxsize=64)
def _halley_tolerance(bits: int) -> flint.arb:
    """2^(-(bits + 8) // 3 + 8), newton's tolerance for a Halley step (an exact ball)."""
    return flint.arb(2) ** (-(bits + 8) // 3 + 8)


@functools.lru_cache(maxsize=256)
def _unit_expm1(unit: int, bits: int) -> flint.arb:
    """A ball of e^(-10^unit) - 1 at ``bits`` of precision (balls are immutable: cached)."""
    with arb_precision(bits):
        return _arb_decimal(-1, unit).expm1()


def _arb_decimal(m: int, e: int) -> flint.arb:
    """A ball of m * 10^e at the current precision."""
    return flint.arb(m * 10**e) if e >= 0 else flint.arb(flint.fmpq(m, 10**-e))


def _certify_epsilon_by_tangent(est: flint.arb, mu: flint.arb, target: flint.arb, digits: int) -> Certified | None:
    """Both sign checks of the answer c (the estimate rounded up) from ONE evaluation at c, or
    None when that evaluation does not decide them (then :func:`certify_boundary` does).

    c is admissible when the ball of delta_mu(c) is <= delta.  The decimal c' one unit below c
    is not admissible when delta_mu(c') > delta, and that follows from the same evaluation:
    delta_mu is convex in s = e^eps (it is the supremum over alpha of 1 - G_mu(alpha) - s alpha,
    affine in s; Dong, Roth & Su 2022, Prop. 2.12), so it lies above its tangent in s at c:
    delta_mu(c') >= delta_mu(c) + delta_mu'(c) (e^(c'-c) - 1), with delta_mu' the
    epsilon-derivative (d/ds = e^-eps d/deps).  The kernel that gives delta_mu(c) gives a ball
    of delta_mu'(c) from the same two erfcs, so the answer costs two erfcs instead of four.
    The tangent falls short of delta_mu(c') by a relative (c - c')^2 or so, far below the
    unit's effect from about 6 digits on; with fewer digits, or a root within that of c', it
    may not decide.  ``est`` is a ball of the estimate (any point of it may be taken as c's
    source: only c is certified); ``mu`` and ``target`` are balls of the exact values.
    """
    bits = working_bits(digits)
    with arb_precision(bits):
        me = scaled_round(est, digits, True)  # c (the scaling is rounded at this precision)
        if me is None or me[0] <= 0:
            return None
        m, e = me
        unit = e - 1 if m == 10 ** (digits - 1) else e  # c' = c - 10^unit (1.000 -> 0.9999)
        value, slope = gaussian_dual_slope(_arb_decimal(m, e), mu)
        if not value <= target:  # c not proven admissible
            return None
        if not value + slope * _unit_expm1(unit, bits) > target:  # c' not proven inadmissible
            return None
    return certified_arb(f"{m}E{e}", digits, "up")


def epsilon_from_delta(mu: Any, delta: Any, *, digits: int = 30) -> Certified:
    r"""The smallest epsilon >= 0 with delta_mu(epsilon) <= delta, rounded up (a privacy loss).

    Limits: delta >= delta_mu(0) gives 0; delta = 0 gives Infinity (mu > 0); mu = 0 gives 0.
    The root is bracketed by doubling, never by a fixed interval, so epsilon = 10^4 and
    delta = 1e-100000 work.

    Args:
        mu: mu, real, finite and >= 0.
        delta: delta, in [0, 1].
        digits: Significant digits of the answer (1 to 4000).

    Returns:
        epsilon, a :class:`Certified` rounded up.

    Raises:
        InvalidParameterError: An argument is out of its domain or not a real number.
        PrecisionError: The digits asked cannot be certified.

    Examples:
        >>> import gdpproof
        >>> gdpproof.epsilon_from_delta(1, "1e-5", digits=20)
        Certified('4.3771780956812246277', digits=20, rounding='up')
        >>> gdpproof.epsilon_from_delta(1, "1e-1000", digits=10)
        Certified('68.22326031', digits=10, rounding='up')
    """
    if type(mu) is float and type(delta) is float and type(digits) is int and 0.0 < mu <= 1e300 \
            and 0.0 < delta < 1.0 and 1 <= digits <= MAX_DIGITS:
        # the hot path: floats are exact balls, so no Fraction is made unless the tangent
        # certificate does not decide (then the general route below starts over)
        log_delta = math.log(delta)
        guess = _float_epsilon_guess(mu, log_delta) if _clearly_positive_root(mu, log_delta) else None
        if guess is not None:
            mu_ball, target = flint.arb(mu), flint.arb(delta)
            answer = _certify_epsilon_by_tangent(_delta_root(guess, mu_ball, target, working_bits(digits)),
                                                 mu_ball, target, digits)
            if answer is not None:
                return answer
    check_request(digits, "up")
    if is_sympy(mu) and not getattr(mu, "is_Rational", False) and getattr(mu**2, "is_Rational", False):
        return _epsilon_of_irrational_mu(mu, delta, digits)  # sqrt(q), as Gaussian compositions have
    m = _outward("mu", mu, True, _nonneg)  # a larger mu, a smaller delta: a larger eps
    d = _outward("delta", delta, False, _probability)
    if m == 0:
        return _zero(digits, "up")
    if d == 0:
        return _inf(digits, "up")
    mf, df = m, d
    _solvable("mu", mu, mf)
    mu_float = float(mf) if mf < 10**300 else math.inf
    log_delta_float = math.log(df.numerator) - math.log(df.denominator)  # no underflow below 1e-308
    if not _clearly_positive_root(mu_float, log_delta_float) and _delta_le(mf, Fraction(0), df, digits):
        return _zero(digits, "up")
    bits = working_bits(digits)
    with arb_precision(bits + 64):  # balls of the exact mu and delta, valid at every precision
        mu_ball, target = arb_of_fraction(mf), arb_of_fraction(df)
    guess = _float_epsilon_guess(mu_float, log_delta_float) if mu_float < math.inf else None
    if guess is not None:
        est = _delta_root(guess, mu_ball, target, bits)
        estimate = fraction_of_exact_arb(est)
    else:
        with arb_precision(bits + 64):
            estimate = _epsilon_root(mf, target.log(), bits)
        with arb_precision(estimate.numerator.bit_length() + estimate.denominator.bit_length()):
            est = arb_of_fraction(estimate)  # exact: a dyadic of fewer bits than that
    return _certify_epsilon_by_tangent(est, mu_ball, target, digits) or certify_boundary(
        estimate, lambda e: _delta_le(mf, e, df, digits), digits=digits, rounding="up", increasing_ok=True,
        what=lambda: f"epsilon at mu={show(mu)}, delta={show(delta)}")


def _epsilon_of_irrational_mu(mu: Any, delta: Any, digits: int) -> Certified:
    """epsilon_from_delta for an exact irrational mu with a rational square (sqrt(T)/sigma, T runs
    of a Gaussian), from rational mu_lo <= mu <= mu_hi.  epsilon(delta) increases with mu, so when
    the answers at
    mu_lo and mu_hi (each the smallest decimal at or above its epsilon) are the same decimal c,
    c >= epsilon(mu_hi) >= epsilon(mu) and the decimal below c is < epsilon(mu_lo) <= epsilon(mu):
    c is epsilon(mu) rounded up.  They differ only when a decimal boundary falls between the two;
    the enclosure then narrows, and after three narrowings PrecisionError is raised."""
    from ..._args import nonnegative

    m = nonnegative("mu", mu, symbolic=False)
    for extra in (10, 40, 160):
        ends = _enclosure(m, working_bits(digits + extra))
        low, high = (epsilon_from_delta(end, delta, digits=digits) for end in ends)
        if str(low) == str(high):
            return high
    raise PrecisionError(f"could not certify {digits} digits of the epsilon of mu={show(m)}: an epsilon "
                         "boundary lies too close to it")


def _enclosure(m: Any, bits: int) -> tuple[Fraction, Fraction]:
    """Rationals lo <= m <= hi about 2^-bits apart relatively, for m >= 0 with a rational m^2,
    by integer square roots."""
    square = m**2
    p, q = int(square.p), int(square.q)
    k = max(0, bits - (p * q).bit_length() // 2 + 2)
    root = math.isqrt(p * q << (2 * k))  # floor(sqrt(p q) 2^k)
    return Fraction(root, q << k), Fraction(root + 1, q << k)


def epsilon_from_log_delta(mu: Any, log_delta: Any, *, digits: int = 30) -> Certified:
    r"""The smallest epsilon >= 0 with log delta_mu(epsilon) <= log_delta, rounded up.

    For targets below every float and beyond exact decimals (delta = 10^-10^9): the target is
    given by its natural logarithm.  log_delta <= 0; -Infinity gives Infinity.

    Args:
        mu: mu, real, finite and >= 0.
        log_delta: log delta, <= 0 (-Infinity allowed).
        digits: Significant digits of the answer (1 to 4000).

    Returns:
        epsilon, a :class:`Certified` rounded up.

    Raises:
        InvalidParameterError: An argument is out of its domain or not a real number.
        PrecisionError: The digits asked cannot be certified.

    Examples:
        >>> import gdpproof
        >>> gdpproof.epsilon_from_log_delta(1, -1e9, digits=15)
        Certified('44721.8590505617', digits=15, rounding='up')
    """
    check_request(digits, "up")
    m = _nonneg("mu", mu)
    ld = rational_fraction("log_delta", log_delta, infinite=True)
    if ld > 0:
        raise bad("log_delta", log_delta, "must be <= 0")
    if m == 0:
        return _zero(digits, "up")
    if ld == -math.inf:
        return _inf(digits, "up")
    mf, lf = m, Fraction(ld)
    _solvable("mu", mu, mf)

    def log_le(eps_f: Fraction) -> bool:
        def diff(bits: int) -> flint.arb:
            return _LOG_DUAL(arb_of_fraction(eps_f), arb_of_fraction(mf)) - arb_of_fraction(lf)

        return sign_of(diff, working_bits(digits)) <= 0

    if log_le(Fraction(0)):
        return _zero(digits, "up")

    bits = working_bits(digits)
    with arb_precision(bits + 64):
        est = _epsilon_root(mf, arb_of_fraction(lf), bits)
    return certify_boundary(est, log_le, digits=digits, rounding="up", increasing_ok=True,
                            what=lambda: f"epsilon at mu={show(mu)}, log_delta={show(log_delta)}")


def _mu_estimate(ef: Fraction, df: Fraction, bits: int) -> Fraction:
    """An estimate of the mu with delta_mu(ef) = df (not certified): ball Newton on delta from a
    float64 root when one exists, else on log delta from a bracket found by halving."""
    with arb_precision(bits + 64):
        log_target = arb_of_fraction(df).log()
    guess = _float_mu_guess(float(ef), float(log_target.mid())) if ef < 10**300 else None
    if guess is not None:
        def delta_step(x: flint.arb) -> tuple[flint.arb, flint.arb, flint.arb]:
            value, slope, curve = gaussian_dual_halley_mu(arb_of_fraction(ef), x)  # two erfcs
            return value - arb_of_fraction(df), slope, curve

        return newton(flint.arb(guess), delta_step, bits)

    def step(x: flint.arb) -> tuple[flint.arb, flint.arb]:
        ae = arb_of_fraction(ef)
        return _LOG_DUAL(ae, x) - log_target, _DLOG_DUAL_MU(ae, x)

    def excess(x: flint.arb) -> flint.arb:
        return _LOG_DUAL(arb_of_fraction(ef), x) - log_target

    if ef > _LARGE_EPSILON:
        lo, cancellation = _mu_start_large_epsilon(ef, excess, bits)
        return newton(lo, step, bits, cancellation=cancellation)
    return newton(gallop_down(excess, bits), step, bits)


#: Beyond this epsilon the mu solver starts from the curve's shape at large epsilon, not from mu = 1.
_LARGE_EPSILON = 1000


#: The largest epsilon mu and sigma are solved for, and the largest mu epsilon is (epsilon is then
#: about mu^2/2): near the root, epsilon/mu - mu/2 cancels log2(mu) bits, and the precision limit
#: MAX_BITS leaves about this much room.
MAX_SOLVER_EPSILON, MAX_SOLVER_MU = 10**10000, 10**5000


_SOLVER_RULE = ("must be at most {} to solve for {} (near the root epsilon/mu - mu/2 cancels log2(mu) bits, "
                "beyond the precision limit; there mu is about sqrt(2 epsilon))")


def _solvable(name: str, value: Any, v: Fraction) -> None:
    """Refuse, before any work, an epsilon (solving for mu) or a mu (solving for epsilon) beyond
    the solvers' limits."""
    limit, text, unknown = ((MAX_SOLVER_EPSILON, "1e10000", "mu or sigma") if name == "epsilon"
                            else (MAX_SOLVER_MU, "1e5000", "epsilon"))
    if v > limit:
        raise InvalidParameterError(argument=name, value=value, rule=_SOLVER_RULE.format(text, unknown))


def _mu_start_large_epsilon(ef: Fraction, excess: Callable[[flint.arb], flint.arb],
                            bits: int) -> tuple[flint.arb, int]:
    """A start at or below the mu where ``excess`` (log delta_mu(ef) minus the target's log,
    increasing in mu) changes sign, for a large epsilon, and the bits the dual cancels there.

    delta_mu(eps) depends on mu through z = mu/2 - eps/mu and eps/mu + mu/2, and for a huge
    eps it is a function of z alone up to a relative O(1/mu) (the second term of the dual is
    about phi(z)/mu): the root sits at a z of moderate size, where mu = z + sqrt(z^2 + 2 eps)
    (the positive inverse of that map).  At mu = 1 instead, the dual's two terms agree to eps/mu^2
    relative, 200 bits at eps = 1e60: the bracket's ball was NaN there and the search went on
    shrinking mu, away from the root, for 65,536 steps at a rising precision.  Here z is halved
    towards minus infinity from 0 until the excess is certified <= 0 (|z| stays below 2200 for
    delta >= 1e-1000000, so about a dozen steps), at the precision the map costs: forming z from
    mu cancels about log2(mu) bits.
    """
    e_bits = ef.numerator.bit_length() - ef.denominator.bit_length()
    cancellation = e_bits // 2 + 16

    def mu_at(z: int) -> flint.arb:
        ae = arb_of_fraction(ef)
        return (z + (flint.arb(z) ** 2 + 2 * ae).sqrt()).mid()

    with arb_precision(bits + 32 + cancellation):
        z = 0
        if excess(mu_at(0)) <= 0:  # delta above about 1/2: the root is at z >= 0, Newton climbs to it
            return mu_at(0), cancellation
        z = -1
        while not excess(mu_at(z)) <= 0:
            if z < -(1 << 14):
                raise PrecisionError(f"could not bracket the mu of epsilon={show(ef)} (z below {z})")
            z *= 2
        return mu_at(z), cancellation


def mu_from_epsilon_delta(epsilon: Any, delta: Any, *, digits: int = 30) -> Certified:
    r"""The largest mu with delta_mu(epsilon) <= delta, rounded down (a budget to stay within).

    Every mu-GDP mechanism with the returned mu is (epsilon, delta)-DP.  delta = 0 gives 0;
    delta = 1 gives Infinity.

    Args:
        epsilon: epsilon, real, finite and >= 0.
        delta: delta, in [0, 1].
        digits: Significant digits of the answer (1 to 4000).

    Returns:
        mu, a :class:`Certified` rounded down.

    Raises:
        InvalidParameterError: An argument is out of its domain or not a real number.
        PrecisionError: The digits asked cannot be certified.

    Examples:
        >>> import gdpproof
        >>> gdpproof.mu_from_epsilon_delta(1, "1e-5", digits=20)
        Certified('0.26805112321129421790', digits=20, rounding='down')
    """
    check_request(digits, "down")
    e = _outward("epsilon", epsilon, False, _nonneg)  # a smaller eps or delta: a smaller mu
    d = _outward("delta", delta, False, _probability)
    if d == 0:
        return _zero(digits, "down")
    if d == 1:
        return _inf(digits, "down")
    if e == 0:
        return _at_zero_epsilon(1, d, digits, "down")
    ef, df = e, d
    _solvable("epsilon", epsilon, ef)
    est = _mu_estimate(ef, df, working_bits(digits))
    return certify_boundary(est, lambda m: _delta_le(m, ef, df, digits), digits=digits, rounding="down",
                            increasing_ok=False, what=lambda: f"mu at epsilon={show(epsilon)}, delta={show(delta)}")


def _at_zero_epsilon(sensitivity: Fraction, d: Fraction, digits: int, rounding: str) -> Certified:
    """At epsilon = 0 the root has a closed form, mu = 2 sqrt(2) erfinv(delta) (sigma = sensitivity /
    mu when rounding up): the search would need a precision beyond the limit for a delta of 1e-100000."""
    from ...symbolic.duality import DELTA, MU_AT_ZERO_EPSILON
    from ..engine.certify import certify

    expr = MU_AT_ZERO_EPSILON if rounding == "down" else sympy_rational(sensitivity) / MU_AT_ZERO_EPSILON
    return certify(expr, (DELTA,), (sympy_rational(d),), digits=digits, rounding=rounding,
                   what="mu at epsilon = 0" if rounding == "down" else "sigma at epsilon = 0")


def sigma_from_epsilon_delta(epsilon: Any, delta: Any, sensitivity: Any = 1, *, digits: int = 30) -> Certified:
    r"""The smallest noise sigma making the Gaussian mechanism (epsilon, delta)-DP, rounded up.

    The Gaussian mechanism with L2 sensitivity Delta and noise N(0, sigma^2 I) is exactly
    (Delta/sigma)-GDP, so sigma = Delta / mu(epsilon, delta): the analytic Gaussian mechanism
    (Balle & Wang 2018).  delta = 0 gives Infinity; delta = 1 or sensitivity = 0 gives 0.

    Args:
        epsilon: epsilon, real, finite and >= 0.
        delta: delta, in [0, 1].
        sensitivity: The query's L2 sensitivity Delta, >= 0.
        digits: Significant digits of the answer (1 to 4000).

    Returns:
        sigma, a :class:`Certified` rounded up.

    Raises:
        InvalidParameterError: An argument is out of its domain or not a real number.
        PrecisionError: The digits asked cannot be certified.

    Examples:
        >>> import gdpproof
        >>> gdpproof.sigma_from_epsilon_delta(1, "1e-5", digits=20)
        Certified('3.7306316348159418323', digits=20, rounding='up')
        >>> gdpproof.sigma_from_epsilon_delta(1, "1e-5", sensitivity=2, digits=5)
        Certified('7.4613', digits=5, rounding='up')
    """
    check_request(digits, "up")
    e = _outward("epsilon", epsilon, False, _nonneg)  # a larger sigma each way
    d = _outward("delta", delta, False, _probability)
    s = _outward("sensitivity", sensitivity, True, _nonneg)
    if s == 0 or d == 1:
        return _zero(digits, "up")
    if d == 0:
        return _inf(digits, "up")
    if e == 0:
        return _at_zero_epsilon(s, d, digits, "up")
    ef, df, sf = e, d, s
    _solvable("epsilon", epsilon, ef)
    est = sf / _mu_estimate(ef, df, working_bits(digits))
    return certify_boundary(est, lambda sig: _delta_le(sf / sig, ef, df, digits), digits=digits, rounding="up",
                            increasing_ok=True, what=lambda: f"sigma at epsilon={show(epsilon)}, delta={show(delta)}, "
                                                             f"sensitivity={show(sensitivity)}")
