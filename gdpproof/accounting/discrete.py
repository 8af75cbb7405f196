r"""The discrete Gaussian mechanism in ball arithmetic: its normalising constant, its privacy profile,
and its privacy loss for the numerical composition.

Every quantity is a sum over the integers, evaluated from the laws of
:data:`gdpproof.symbolic.losses.DISCRETE_GAUSSIAN` as a finite sum in arb balls plus a proven
geometric tail; the cut between losses at most ell and above it is an exact integer.
:func:`discrete_gaussian_delta` certifies delta(eps) for every real eps;
:class:`~gdpproof.accounting.losses.DiscreteGaussianLoss` gives the numerical composition its
CDFs and partial means.  The sums, the tail bound and why they hold:
``docs/proofs/discrete.md``.
"""

from __future__ import annotations

import functools
import math
from fractions import Fraction
from typing import Any

import flint
import numpy as np
from ..errors import bad
from ..errors import PrecisionError
from ..text import show
from ..numeric.engine._mp import arb_from_exact, arb_of_fraction, arb_precision
from .._args import exact
from ..numeric.engine.certified import Certified, below_one, certify_enclosure

TYPE_CHECKING = False
if TYPE_CHECKING:
    import sympy


__all__ = ["normaliser", "discrete_gaussian_delta", "cut", "check_sigma", "sigma_ball", "check_sensitivity", "TABLE_BITS"]

#: Working precision (bits) of the tables behind the float CDF and the partial means.
TABLE_BITS = 128

#: The largest sigma accounted (the sums and tables hold up to about 40 sigma terms).
MAX_SIGMA = 10**4


@functools.lru_cache(maxsize=None)
def kernels() -> tuple[Any, Any, Any, Any]:
    """The weight W(z), the tail bound TB(n), the loss L(x) and the ratio W(z + 1)/W(z), compiled
    to ball functions."""
    from ..numeric.engine.compiler import arb_function
    from ..symbolic import losses as sl
    from ..symbolic.symbols import Delta as DELTA
    from ..symbolic.symbols import sigma as SIGMA
    from ..symbolic.symbols import x as X
    from ..symbolic.symbols import z as Z

    return (arb_function(sl.DG_WEIGHT, (Z, SIGMA)), arb_function(sl.DG_TAIL_BOUND, (X, SIGMA)),
            arb_function(sl.DG_LOSS_AT, (X, SIGMA, DELTA)), arb_function(sl.DG_RATIO, (Z, SIGMA)))


def weights_from(a: int, s: flint.arb) -> Any:
    """W(a), W(a + 1), ... as balls, by the recurrence W(z + 1) = W(z) rho(z), rho(z + 1) = rho(z) q,
    q = rho(1)/rho(0) = e^{-1/sigma^2} (two products a term; every ball contains its value)."""
    w, _, _, ratio = kernels()
    term, rho = w(flint.arb(a), s), ratio(flint.arb(a), s)
    q = ratio(flint.arb(1), s) / ratio(flint.arb(0), s)
    while True:
        yield term
        term, rho = term * rho, rho * q


@functools.lru_cache(maxsize=64)
def cut_line(sigma: sympy.Rational, delta: int) -> tuple[Fraction, Fraction]:
    """(A, B) with DG_CUT(ell) = ceil(A + B ell), read off the symbolic cut."""
    import sympy

    from ..symbolic import losses as sl
    from ..symbolic.symbols import Delta as DELTA
    from ..symbolic.symbols import ell as ELL
    from ..symbolic.symbols import sigma as SIGMA

    inner = sl.DG_CUT.args[0].xreplace({SIGMA: sigma, DELTA: sympy.Integer(delta)})
    b, a = sympy.Poly(sympy.expand(inner), ELL).all_coeffs()
    return Fraction(int(a.p), int(a.q)), Fraction(int(b.p), int(b.q))


def cut(sigma: sympy.Rational, delta: int, ell: Fraction) -> int:
    """The smallest integer output x with L(x) <= ell, exactly (:data:`~gdpproof.symbolic.losses.DG_CUT`)."""
    a, b = cut_line(sigma, delta)
    return math.ceil(a + b * Fraction(ell))


def _interval(hi: flint.arb) -> flint.arb:
    """The ball [0, upper(hi)]."""
    u = flint.arb(hi.upper())
    return flint.arb(u / 2, u / 2)


def _upper_sum(a: int, s: flint.arb) -> flint.arb:
    """G(a) = sum_{z >= a} W(z) for a >= 1, at the current precision, with the proven tail."""
    tb = kernels()[1]
    prec = flint.ctx.prec
    stop = flint.arb(2) ** -(prec + 10)
    # W(a + d)/W(a) <= e^{-d^2/(2 sigma^2)}: after this many terms the rest is below 2^-(prec + 10)
    # of the first; the tail bound holds wherever the sum stops (balls too wide to decide the
    # criterion just stop there, and the enclosure is then wide: the caller raises the precision)
    last = a + int(math.ceil(_sigma_float(s) * math.sqrt(2 * math.log(2) * (prec + 10)))) + 1
    total = flint.arb(0)
    n = a
    for term in weights_from(a, s):
        total += term
        if n >= last or term < stop * total:
            break
        n += 1
    return total + _interval(tb(flint.arb(n), s))


def _sigma_float(s: flint.arb) -> float:
    return float(s.upper())


def _normaliser_ball(s: flint.arb) -> flint.arb:
    return 1 + 2 * _upper_sum(1, s)


def _G(a: int, s: flint.arb, big_s: flint.arb) -> flint.arb:
    """sum_{z >= a} W(z) for any integer a."""
    return _upper_sum(a, s) if a >= 1 else big_s - _upper_sum(1 - a, s)


def check_sigma(sigma: Any) -> sympy.Expr:
    """sigma as an exact sympy number whose square is rational (a rational, or the square root of
    one such as ``sympy.sqrt(Rational(5, 2))``: the pmf and the loss only see sigma^2, so every cut
    stays an exact integer)."""
    s = exact("sigma", sigma, symbolic=False)
    square = s**2  # sympy squares sqrt(r) to r exactly; anything else stays irrational and is refused
    if not (s.is_positive and square.is_Rational and 0 < square <= MAX_SIGMA**2):  # -1 squares to 1 too
        raise bad("sigma", sigma, f"must be a rational number, or the square root of one, in (0, {MAX_SIGMA}]")
    return s


def sigma_ball(s: sympy.Expr) -> flint.arb:
    """sigma (as :func:`check_sigma` returns it) as a ball at the current precision: the square
    root of its rational square when it is irrational (sqrt(2)), so no evaluator of sympy
    constants is needed.

    >>> import sympy
    >>> sigma_ball(check_sigma("1/2"))
    0.500000000000000
    >>> abs(float(sigma_ball(check_sigma(sympy.sqrt(2))).mid()) - 2**0.5) < 1e-14
    True
    """
    if s.is_Rational:
        return arb_from_exact(s)
    square = s**2
    return arb_of_fraction(Fraction(int(square.p), int(square.q))).sqrt()


def check_sensitivity(sensitivity: Any, largest: int | None = None) -> int:
    """The sensitivity of an integer-valued query as an int: an integer >= 1 (at most ``largest``).

    Every formula here assumes Delta >= 1 (the cut divides by 2 Delta; a negative Delta would
    reverse it), and a non-integer is not truncated: bad input is refused by name."""
    rule = "must be an integer >= 1" + ("" if largest is None else f" and <= {largest}") + \
        " (the sensitivity of an integer-valued query)"
    if isinstance(sensitivity, bool):
        raise bad("sensitivity", sensitivity, rule)
    v = exact("sensitivity", sensitivity, symbolic=False)
    if not (v.is_Integer and v >= 1 and (largest is None or v <= largest)):
        raise bad("sensitivity", sensitivity, rule)
    return int(v)


def normaliser(sigma: Any, *, digits: int = 30) -> Certified:
    """S(sigma) = sum over the integers of exp(-z^2/(2 sigma^2)), certified to ``digits`` digits
    (rounded to nearest): S = theta_3(0, e^{-1/(2 sigma^2)}).

    >>> normaliser(1, digits=20)
    Certified('2.5066282880429055448', digits=20, rounding='nearest')
    """
    s = check_sigma(sigma)

    def enclose(bits: int) -> flint.arb:
        return _normaliser_ball(sigma_ball(s))

    return certify_enclosure(enclose, digits=digits, rounding="nearest", what=f"S(sigma={show(s)})")


def discrete_gaussian_delta(sigma: Any, sensitivity: int, epsilon: Any, *, digits: int) -> Certified:
    r"""delta(eps) of N_Z(0, sigma^2) against N_Z(Delta, sigma^2), certified to ``digits`` digits,
    rounded up: sum_x (P(x) - e^eps Q(x))_+ = (G(-c) - e^eps G(Delta - c))/S with c = DG_CUT(eps) - 1
    (:data:`~gdpproof.symbolic.losses.DG_DELTA`), for any real eps.

    Args:
        sigma: The scale sigma (sigma^2 rational).
        sensitivity: Delta, a positive integer.
        epsilon: Any real eps.
        digits: Significant digits.

    Returns:
        delta(eps), a :class:`Certified` rounded up.

    Examples:
        >>> discrete_gaussian_delta(1, 1, 0, digits=12)
        Certified('0.398942278267', digits=12, rounding='up')
    """
    s = check_sigma(sigma)
    d = check_sensitivity(sensitivity)
    e = exact("epsilon", epsilon, symbolic=False)
    if not e.is_Rational:
        raise bad("epsilon", epsilon, "must be a finite rational number")
    c = cut(s, d, Fraction(int(e.p), int(e.q))) - 1

    def enclose(bits: int) -> flint.arb:
        sb = sigma_ball(s)
        big_s = _normaliser_ball(sb)
        out = (_G(-c, sb, big_s) - arb_from_exact(e).exp() * _G(d - c, sb, big_s)) / big_s
        if out.is_finite() and out > 0 and not out < 1:
            return below_one(out)  # delta <= 1 (at sigma 1e-100 it is 1 - e^{-5e199})
        return out.intersection(flint.arb(0.5, 0.5)) if out.overlaps(flint.arb(0.5, 0.5)) else out

    return certify_enclosure(enclose, digits=digits, rounding="up",
                             what=f"delta at epsilon={show(e)} of the discrete Gaussian (sigma={show(s)}, Delta={d})")


def loss_tail_bound(n: int, s: flint.arb, delta: int) -> flint.arb:
    r"""A ball [-B, B] containing sum_{|z| >= n} |L(z + shift)| W(z), shift in {0, Delta}, n >= 1.

    |L(x)| = |Delta^2 - 2 Delta x|/(2 sigma^2) <= A + C |z| with A = 3 Delta^2/(2 sigma^2) and
    C = Delta/sigma^2 (|x| <= |z| + Delta), and for z >= n, W(z) <= W(n) rho^{z - n} with
    rho = W(n + 1)/W(n) (the ratio W(z + 1)/W(z) decreases in z: :data:`DG_RATIO`), so each
    side is at most W(n) ((A + C n)/(1 - rho) + C rho/(1 - rho)^2) and B is twice that: valid
    for every sigma and Delta (the partial means' tail beyond the table)."""
    w, _, _, ratio = kernels()
    rho = ratio(flint.arb(n), s)
    big_a = 3 * flint.arb(delta) ** 2 / (2 * s * s)
    big_c = flint.arb(delta) / (s * s)
    side = w(flint.arb(n), s) * ((big_a + big_c * n) / (1 - rho) + big_c * rho / (1 - rho) ** 2)
    u = flint.arb((2 * side).upper())
    return flint.arb(0, u) if u.is_finite() and u >= 0 else flint.arb("nan")


class Table:
    """G(a)/S for |a| <= M as balls at one precision; beyond M, the proven tail interval."""

    def __init__(self, sigma: sympy.Rational, depth: int) -> None:
        tb = kernels()[1]
        s = sigma_ball(sigma)
        # the range: W(M + 1) below 2^-depth (e^{-(M+1)^2/(2 s^2)}), checked with the ball
        m = int(math.ceil(float(sigma) * math.sqrt(2 * math.log(2) * depth))) + 1
        while not tb(flint.arb(m), s) < flint.arb(2) ** -depth:
            m += max(1, m // 8)
        self.m = m
        tail = _interval(tb(flint.arb(m), s))
        g = [flint.arb(0)] * (m + 2)   # g[a] = G(a), a = 1..m + 1
        g[m + 1] = tail
        weights = weights_from(1, s)
        ws = [next(weights) for _ in range(m)]
        for a in range(m, 0, -1):
            g[a] = g[a + 1] + ws[a - 1]
        self.S = 1 + 2 * g[1]
        self.g = g
        self.tail = tail / self.S

    def upper(self, a: int) -> flint.arb:
        """P(X >= a) under N_Z(0, sigma^2), a ball."""
        if a > self.m:
            return self.tail
        if a >= 1:
            return self.g[a] / self.S
        if a < -self.m:
            return 1 - self.tail
        return (self.S - self.g[1 - a]) / self.S


@functools.lru_cache(maxsize=32)
def ball_table(sigma: sympy.Rational, depth: int, bits: int) -> Table:
    with arb_precision(bits):
        return Table(sigma, depth)


@functools.lru_cache(maxsize=32)
def float_table(sigma: sympy.Rational) -> tuple[int, np.ndarray]:
    """(M, U) with U[a + M + 1] = P(X >= a) in float64 for a in [-M - 1, M + 1] (0 and 1 beyond)."""
    t = ball_table(sigma, 1100, TABLE_BITS)
    with arb_precision(TABLE_BITS):
        balls = [t.upper(a) for a in range(-t.m - 1, t.m + 2)]
        vals = [float(b.mid()) for b in balls]
        # each float is its ball's midpoint rounded once (within 2^-53 of values <= 1): the
        # radii are checked far below CDF_ERROR (about 1e-30 at sigma = 10^4, 128 bits)
        worst = max(float(b.rad()) for b in balls)
    if not worst <= 1e-20:
        raise PrecisionError(f"the discrete Gaussian's CDF table (sigma={show(sigma)}) is only accurate to {worst:.2g}")
    return t.m, np.array(vals)
