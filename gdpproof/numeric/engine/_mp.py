"""The one module that touches mpmath contexts and python-flint's global precision.

It is the floor of :mod:`gdpproof.numeric`: it imports no other module of gdpproof, and not
sympy either (sympy numbers are recognised by their attributes, and sympy is imported only
when one is given), so the certified conversions can run without loading sympy.

python-flint keeps its working precision in a process-global ``flint.ctx``; mpmath keeps one in
``mpmath.mp``.  gdpproof never changes either for longer than a call: arb code runs inside
:func:`arb_precision`, which restores the previous value, and mpmath code runs in private
:class:`mpmath.MPContext` objects from :func:`private_context`.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from fractions import Fraction
from typing import Any

import flint

TYPE_CHECKING = False
if TYPE_CHECKING:
    import mpmath

__all__ = [
    "arb_precision",
    "call_at_precision",
    "precision_lock",
    "private_context",
    "arb_from_exact",
    "arb_of_fraction",
    "set_constant_ball",
    "arb_endpoints",
    "fraction_of_exact_arb",
    "rational_enclosure",
    "mpf_from_exact",
    "mpf_to_fraction",
    "mp_erfcinv",
    "mpf_exact",
]

_lock = threading.RLock()
#: The lock held while python-flint's global precision is not the caller's (public for the hot
#: paths that set the precision themselves, as :func:`call_at_precision` does, without its call).
precision_lock = _lock


class arb_precision:
    """Run arb arithmetic at ``bits`` of precision, restoring the previous precision after.

    A class rather than a generator context manager: it is entered once per certified value,
    and a generator's enter and exit cost several times an arb multiplication.
    """

    __slots__ = ("bits", "saved")

    def __init__(self, bits: int) -> None:
        self.bits = int(bits)

    def __enter__(self) -> None:
        _lock.acquire()
        self.saved = flint.ctx.prec
        flint.ctx.prec = self.bits

    def __exit__(self, *exc: object) -> None:
        flint.ctx.prec = self.saved
        _lock.release()


_ctx = flint.ctx


def call_at_precision(bits: int, fn: Callable[..., Any], args: tuple[Any, ...]) -> Any:
    """``fn(*args)`` with arb at ``bits`` of precision, the previous precision restored after.

    The one-call form of :class:`arb_precision` for the hot paths: no context-manager protocol,
    and no precision change when the current one is already ``bits`` (setting python-flint's
    precision costs about as much as an arb multiplication)."""
    with _lock:
        saved = _ctx.prec
        if saved == bits:
            return fn(*args)
        _ctx.prec = bits
        try:
            return fn(*args)
        finally:
            _ctx.prec = saved


class _ContextPool(threading.local):
    def __init__(self) -> None:
        self.free: list[mpmath.ctx_mp.MPContext] = []


_pool = _ContextPool()


@contextmanager
def private_context(dps: int) -> Iterator[mpmath.ctx_mp.MPContext]:
    """Borrow a private mpmath context at ``dps`` decimal digits.

    Numbers made in it must not escape the ``with`` block: convert them (for example with
    :func:`mpf_to_fraction`) before returning.
    """
    if _pool.free:
        ctx = _pool.free.pop()
    else:
        import mpmath  # loaded by the first mpmath evaluation, not by the ball arithmetic

        ctx = mpmath.MPContext()
    ctx.dps = int(dps)
    try:
        yield ctx
    finally:
        _pool.free.append(ctx)


def arb_of_fraction(q: Fraction) -> flint.arb:
    """The ball of the rational ``q`` at the current precision (exact when q is dyadic)."""
    return flint.arb(flint.fmpq(q.numerator, q.denominator))


#: How an irrational sympy constant (sqrt(2), pi, ...) becomes a ball: set by the sympy->arb
#: compiler (:mod:`gdpproof.numeric.engine.compile_arb`), which this floor module must not import.
_constant_ball: Callable[[Any], flint.arb] | None = None


def set_constant_ball(fn: Callable[[Any], flint.arb]) -> None:
    """Install the evaluator :func:`arb_from_exact` uses for irrational sympy constants."""
    global _constant_ball
    _constant_ball = fn


def arb_from_exact(value: Any) -> flint.arb:
    """An arb ball containing the exact number ``value`` (at the current precision).

    ``value`` is an int, a :class:`~fractions.Fraction` or an exact sympy number (Integer,
    Rational, +-oo, or an irrational constant such as sqrt(2)).
    """
    if isinstance(value, int) and not isinstance(value, bool):
        return flint.arb(value)
    if isinstance(value, Fraction):
        return arb_of_fraction(value)
    if getattr(value, "is_Integer", False):
        return flint.arb(int(value))
    if getattr(value, "is_Rational", False):
        return flint.arb(flint.fmpq(int(value.p), int(value.q)))
    if getattr(value, "is_infinite", False) and getattr(value, "is_extended_real", False):
        return flint.arb("inf") if value.is_extended_positive else flint.arb("-inf")
    if getattr(value, "is_number", False) and getattr(value, "is_real", None) is not False:
        # an irrational constant such as sqrt(2) or pi: its ball at the current precision
        if _constant_ball is None:
            raise TypeError(f"no evaluator for the constant {value!r}: import gdpproof.numeric.engine.compile_arb")
        return _constant_ball(value)
    raise TypeError(f"not an exact real number: {value!r}")


def rational_enclosure(value: Any, bits: int = 256) -> tuple[Fraction, Fraction]:
    """Rationals lo <= value <= hi for an exact real number (``value`` itself twice when it is an
    int, a Fraction or a sympy Rational; else the ends of its ball at ``bits`` bits: an
    irrational constant such as log(3))."""
    if isinstance(value, Fraction) or (isinstance(value, int) and not isinstance(value, bool)):
        return Fraction(value), Fraction(value)
    if getattr(value, "is_Rational", False):
        v = Fraction(int(value.p), int(value.q))
        return v, v
    with arb_precision(bits):  # (a constant needs gdpproof.numeric.engine.compile_arb imported)
        ball = arb_from_exact(value)
        return fraction_of_exact_arb(ball.lower()), fraction_of_exact_arb(ball.upper())


def fraction_of_exact_arb(x: flint.arb) -> Fraction:
    """The exact value of a finite exact ball (a midpoint) as a Fraction."""
    return _fraction_of_exact_arb(x)


def _fraction_of_exact_arb(x: flint.arb) -> Fraction:
    man, exp = x.man_exp()
    man, exp = int(man), int(exp)
    # shifts, not man * 2**exp: the power is built by squaring, which for the 2^(7e7)-wide
    # derivative balls of a tail costs half a second where the shift costs half a millisecond
    return Fraction(man << exp) if exp >= 0 else Fraction(man, 1 << -exp)


#: A radius this many bits below the midpoint's magnitude is widened to that level: far beyond
#: any precision a decision needs (4000 digits are 13,300 bits), and it keeps the endpoints small
#: Fractions (a radius of 2^(-7e38), as delta at mu = 1e20 gives, would be a 7e38-bit integer).
_RADIUS_FLOOR_BITS = 1 << 16


#: A ball whose midpoint or radius is beyond 2^+-this has no endpoints as Fractions (None, as for
#: a ball that is not finite): the integers would not fit in memory (2^(1e60), from e^(1e60)).
#: Tails of tightest_mu reach 2^(7e7), within it.
_MAX_ENDPOINT_BITS = 1 << 27


def arb_endpoints(x: flint.arb) -> tuple[Fraction, Fraction] | None:
    """Lower and upper endpoints of a finite ball as Fractions (None if it is not finite, or
    beyond 2^+-_MAX_ENDPOINT_BITS).

    The interval returned contains the ball; it is the ball itself unless the radius is more
    than :data:`_RADIUS_FLOOR_BITS` bits below the midpoint, when it is widened to that level.
    """
    if not x.is_finite():
        return None
    mid_ball, rad_ball = x.mid(), x.rad()
    for end in (mid_ball, rad_ball):
        if not end.is_zero() and abs(int(end.man_exp()[1])) > _MAX_ENDPOINT_BITS:
            return None
    if not mid_ball.is_zero() and not rad_ball.is_zero():
        m_man, m_exp = mid_ball.man_exp()
        r_man, r_exp = rad_ball.man_exp()
        top = int(m_exp) + int(m_man).bit_length()
        if int(r_exp) + int(r_man).bit_length() < top - _RADIUS_FLOOR_BITS:
            rad_ball = flint.arb(2) ** (top - _RADIUS_FLOOR_BITS)  # a power of two: exact
    mid = _fraction_of_exact_arb(mid_ball)
    rad = _fraction_of_exact_arb(rad_ball)
    return mid - rad, mid + rad


def mpf_from_exact(ctx: mpmath.ctx_mp.MPContext, value: Any) -> mpmath.mpf:
    """``value`` (an int, a Fraction or an exact sympy number) as an mpf of ``ctx``, correctly rounded."""
    if isinstance(value, (int, Fraction)) and not isinstance(value, bool):
        v = Fraction(value)
        return ctx.mpf(v.numerator) / v.denominator
    import sympy  # only sympy numbers come here

    if value.is_Rational:
        return ctx.mpf(int(value.p)) / int(value.q)
    if value is sympy.oo:
        return ctx.inf
    if value is -sympy.oo:
        return ctx.ninf
    if isinstance(value, sympy.Expr) and value.is_number:
        return ctx.mpf(sympy.N(value, int(ctx.dps) + 10))
    raise TypeError(f"not an exact real number: {value!r}")


def mpf_exact(value: Fraction) -> mpmath.mpf:
    """An mpf holding the dyadic rational ``value`` exactly, whatever the global precision."""
    den = value.denominator
    exp = den.bit_length() - 1
    if den != 1 << exp:
        raise ValueError(f"{value} is not a dyadic rational")
    import mpmath

    return mpmath.mp.make_mpf(mpmath.libmp.from_man_exp(value.numerator, -exp))


def mpf_to_fraction(value: mpmath.mpf) -> Fraction:
    """The exact binary value of a finite mpf (``man_exp`` holds the magnitude; the sign is apart)."""
    man, exp = value.man_exp
    man, exp = int(man), int(exp)
    if value < 0:
        man = -man
    return Fraction(man << exp) if exp >= 0 else Fraction(man, 1 << -exp)  # shifts: see above


def mp_erfcinv(ctx: mpmath.ctx_mp.MPContext, z: mpmath.mpf) -> mpmath.mpf:
    """erfcinv(z) in ``ctx``, accurate in both tails (mpmath only has erfinv).

    Newton's method on erfc from a double-precision start; erfinv(1 - z) would cancel for
    small z and lose every digit below 1e-dps.
    """
    z = ctx.mpf(z)
    if z <= 0:
        return ctx.inf if z == 0 else ctx.nan
    if z >= 2:
        return ctx.ninf if z == 2 else ctx.nan
    if z == 1:
        return ctx.zero
    if z > 1:
        return -mp_erfcinv(ctx, 2 - z)
    import scipy.special

    zf = float(z)
    if zf > 0:
        x = ctx.mpf(float(scipy.special.erfcinv(zf)))
    else:
        # below the double range: the leading asymptotic term sqrt(-log z) is a fine start
        x = ctx.sqrt(-ctx.log(z))
    two_over_sqrt_pi = 2 / ctx.sqrt(ctx.pi)
    tol = ctx.mpf(2) ** (-ctx.prec + 4)
    for _ in range(200):
        fx = ctx.erfc(x) - z
        dfx = -two_over_sqrt_pi * ctx.exp(-x * x)
        step = fx / dfx
        # Halley: erfc'' = -2x erfc', so the step is s / (1 + x s); convergence is cubic
        step = step / (1 + x * step)
        x -= step
        if abs(step) <= tol * abs(x):
            break
    return x
