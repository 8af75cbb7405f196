"""Conversions with no root to solve: mu from sigma, from pure epsilon and from a test's error
rates, sigma from error rates, and the type II error of mu-GDP, each certified and rounded on the
safe side.  Plain arguments are parsed without sympy (:func:`gdpproof._args.rational_fraction` and its kin);
the closed forms that need sympy load it when they run.
"""

from __future__ import annotations

from typing import Any

from ...errors import bad
from ...text import show
from ..._args import nonnegative_fraction, positive_fraction, probability_fraction, rational_fraction, sympy_rational
from ..engine.certified import Certified, check_request, decimal, round_fraction

__all__ = ["mu_from_sigma", "mu_from_pure_epsilon", "mu_from_error_rates", "beta_from_mu", "sigma_from_error_rates"]



def mu_from_sigma(sigma: Any, sensitivity: Any = 1, *, digits: int = 30) -> Certified:
    """mu = sensitivity / sigma, the exact GDP parameter of the Gaussian mechanism; rounded up.

    Args:
        sigma: The noise's standard deviation, > 0.
        sensitivity: The query's L2 sensitivity Delta, >= 0.
        digits: Significant digits of the answer (1 to 4000).

    Returns:
        mu, a :class:`Certified` rounded up.

    Raises:
        InvalidParameterError: An argument is out of its domain or not a real number.
        PrecisionError: The digits asked cannot be certified.

    Examples:
        >>> import gdpproof
        >>> gdpproof.mu_from_sigma(3, digits=10)
        Certified('0.3333333334', digits=10, rounding='up')
    """
    check_request(digits, "up")
    sg = positive_fraction("sigma", sigma)
    s = nonnegative_fraction("sensitivity", sensitivity)
    value = s / sg
    m, e = round_fraction(value, digits, "up")
    return Certified(decimal(m, e, digits), digits=digits, rounding="up", method="exact")


def mu_from_pure_epsilon(epsilon: Any, *, digits: int = 30) -> Certified:
    """mu = -2 Phi^{-1}(1/(1 + e^epsilon)): epsilon-DP implies mu-GDP (DRS Cor. 2.11); rounded up.

    Args:
        epsilon: epsilon, real, finite and >= 0.
        digits: Significant digits of the answer (1 to 4000).

    Returns:
        mu, a :class:`Certified` rounded up.

    Raises:
        InvalidParameterError: An argument is out of its domain or not a real number.
        PrecisionError: The digits asked cannot be certified.

    Examples:
        >>> import gdpproof
        >>> gdpproof.mu_from_pure_epsilon(1, digits=15)
        Certified('1.23203538534491', digits=15, rounding='up')
    """
    from ...symbolic.duality import MU_FROM_PURE_EPSILON
    from ...symbolic.symbols import epsilon as EPS
    from ..engine.certify import certify

    check_request(digits, "up")
    e = sympy_rational(rational_fraction("epsilon", epsilon))
    return certify(MU_FROM_PURE_EPSILON, (EPS,), (e,), digits=digits, rounding="up", what="mu of pure DP")


def mu_from_error_rates(alpha: Any, beta: Any, *, digits: int = 30, rounding: str = "up") -> Certified:
    r"""The mu a test with type I error alpha and type II error beta certifies.

    .. math:: \mu = \max\{0,\ \Phi^{-1}(1 - \alpha) - \Phi^{-1}(\beta)\}

    G_mu passes through (alpha, beta): a mechanism on which some test reaches these errors is
    not mu'-GDP for any mu' < mu.  Rounded up by default (the mechanism's mu, a privacy loss);
    pass ``rounding="down"`` for a lower bound to quote in an audit.  alpha = 0 with beta < 1
    (or beta = 0 with alpha < 1) gives Infinity.

    Args:
        alpha: The type I error, in [0, 1].
        beta: The type II error, in [0, 1].
        digits: Significant digits of the answer (1 to 4000).
        rounding: ``"up"`` (the default: a privacy claim) or ``"down"``.

    Returns:
        mu, a :class:`Certified` rounded as asked.

    Raises:
        InvalidParameterError: An argument is out of its domain or not a real number.
        PrecisionError: The digits asked cannot be certified.

    Examples:
        >>> import gdpproof
        >>> gdpproof.mu_from_error_rates("0.05", "0.05", digits=15)
        Certified('3.28970725390295', digits=15, rounding='up')
    """
    import sympy

    from ...symbolic.duality import pointwise_mu_points
    from ..engine.certify import certify

    check_request(digits, rounding)
    a = probability_fraction("alpha", alpha)
    b = probability_fraction("beta", beta)
    if a + b >= 1:
        return Certified(0, digits=digits, rounding=rounding, method="exact")
    if a == 0 or b == 0:
        return Certified("Infinity", digits=digits, rounding=rounding, method="exact")
    s, u = sympy.Symbol("s", positive=True), sympy.Symbol("u", positive=True)
    return certify(pointwise_mu_points(s, u), (s, u), (sympy_rational(a), sympy_rational(b)), digits=digits,
                   rounding=rounding, what="mu of the error rates")


def beta_from_mu(mu: Any, alpha: Any, *, digits: int = 30) -> Certified:
    """The smallest type II error any test reaches at type I error alpha against mu-GDP.

    G_mu(alpha), rounded down: no attacker does better than the returned value.

    Args:
        mu: mu, real, finite and >= 0.
        alpha: The type I error, in [0, 1].
        digits: Significant digits of the answer (1 to 4000).

    Returns:
        G_mu(alpha), a :class:`Certified` rounded down.

    Raises:
        InvalidParameterError: An argument is out of its domain or not a real number.
        PrecisionError: The digits asked cannot be certified.

    Examples:
        >>> import gdpproof
        >>> gdpproof.beta_from_mu(1, "0.05", digits=12)
        Certified('0.740488977158', digits=12, rounding='down')
    """
    from ...symbolic.tradeoff import gaussian

    return gaussian(mu).evaluate(alpha, digits=digits, rounding="down")


def sigma_from_error_rates(alpha: Any, beta: Any, sensitivity: Any = 1, *, digits: int = 30) -> Certified:
    r"""The smallest sigma such that no test on the Gaussian mechanism beats (alpha, beta).

    With sigma >= sensitivity / mu(alpha, beta) every test with type I error alpha has type II
    error at least beta.  Rounded up.  alpha + beta = 1 gives Infinity (only infinite noise
    forces the trivial trade-off); alpha + beta > 1 is impossible to force (the test ignoring
    the output already beats it) and raises.

    Args:
        alpha: The type I error, in [0, 1].
        beta: The type II error, in [0, 1].
        sensitivity: The query's L2 sensitivity Delta, >= 0.
        digits: Significant digits of the answer (1 to 4000).

    Returns:
        sigma, a :class:`Certified` rounded up.

    Raises:
        InvalidParameterError: An argument is out of its domain or not a real number.
        PrecisionError: The digits asked cannot be certified.

    Examples:
        >>> import gdpproof
        >>> gdpproof.sigma_from_error_rates("0.05", "0.5", digits=12)
        Certified('0.607956831912', digits=12, rounding='up')
    """
    import sympy

    from ...symbolic.duality import pointwise_mu_points
    from ..engine.certify import certify

    check_request(digits, "up")
    a = probability_fraction("alpha", alpha)
    b = probability_fraction("beta", beta)
    s = nonnegative_fraction("sensitivity", sensitivity)
    if a + b > 1:
        raise bad("beta", beta, f"must be <= 1 - alpha, alpha={show(alpha)} (a test that ignores the output "
                  "already reaches type II error 1 - alpha)")
    if s == 0:
        return Certified(0, digits=digits, rounding="up", method="exact")
    if a + b == 1:
        return Certified("Infinity", digits=digits, rounding="up", method="exact")
    if a == 0 or b == 0:
        return Certified(0, digits=digits, rounding="up", method="exact")
    sv, uv = sympy.Symbol("s", positive=True), sympy.Symbol("u", positive=True)
    expr = sympy.Symbol("D", positive=True) / pointwise_mu_points(sv, uv)
    values = tuple(sympy_rational(v) for v in (s, a, b))
    return certify(expr, (sympy.Symbol("D", positive=True), sv, uv), values, digits=digits, rounding="up",
                   what="sigma for the error rates")
