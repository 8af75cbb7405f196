"""Certified digits without sympy: the :class:`Certified` result, directed decimal rounding, and
the precision-doubling loop that turns ball enclosures into proven digits.

:func:`certify_enclosure` raises the precision until every number in an enclosure of the exact
value rounds to the same ``digits``-digit decimal in the requested direction (an optional exact
evaluation decides what no enclosure can, such as f(0) = 1; otherwise
:class:`~gdpproof.errors.PrecisionError`); :func:`certify_balls` does it for a function of arb
balls (a compiled or generated kernel) at exact arguments.  This module imports neither sympy nor
scipy, so the certified conversions of :mod:`gdpproof.numeric.tradeoff.solve` start fast.  Why
the digits are right: docs/how-it-works.md, "Certified digits".
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from decimal import Decimal
from fractions import Fraction
from typing import Any, Literal

import flint

from ..._certified import Certified, rebuild  # noqa: F401  (re-exported: Certified's home in numeric)
from ...errors import PrecisionError
from ...text import decimal_digits, round_fraction, show  # noqa: F401  (round_fraction re-exported)
from ._mp import arb_endpoints, arb_from_exact, arb_precision, call_at_precision, precision_lock
from ...errors import bad

__all__ = [
    "Certified",
    "Rounding",
    "MAX_BITS",
    "below_one",
    "MAX_DIGITS",
    "certify_balls",
    "certify_exact_balls",
    "certify_at_floats",
    "certify_enclosure",
    "round_fraction",
    "working_bits",
]

Rounding = Literal["up", "down", "nearest"]
_ROUNDINGS = ("up", "down", "nearest")

#: Precision ceiling in bits for the doubling loop (about 20,000 decimal digits).
MAX_BITS = 1 << 16
#: Largest number of digits a result may have (Python refuses to print ints above 4300 digits).
MAX_DIGITS = 4000


#: Guard digits added to the working precision of the mpmath routes (lambdified, quadrature).
GUARD_DIGITS = 15


def working_bits(digits: int) -> int:
    """The first working precision tried for ``digits`` decimal digits."""
    return int(math.ceil(digits * 3.3219280948873626)) + 32


#: working_bits(d) for the usual digit counts (the hot path of the conversions).
_WORKING_BITS = {d: working_bits(d) for d in range(1, 101)}


# ---------------------------------------------------------------------------------------------
# Directed decimal rounding of exact rationals
# ---------------------------------------------------------------------------------------------


#: Python's Decimal holds exponents up to about 1e18 in magnitude.
_DECIMAL_EXPONENT_LIMIT = 10**17


def decimal(m: int, e: int, digits: int) -> Decimal:
    """``m * 10**e`` as a Decimal of ``digits`` digits (:func:`gdpproof.text.decimal_digits`),
    refused with PrecisionError when its exponent is beyond what a Decimal holds."""
    if m != 0 and abs(e) > _DECIMAL_EXPONENT_LIMIT:
        raise PrecisionError(
            f"the value is about 10^({show(e)}), beyond what a Decimal can hold; "
            "use its logarithm (for delta: log_delta_from_epsilon)"
        )
    return decimal_digits(m, e, digits)


def _same(a: tuple[int, int], b: tuple[int, int]) -> bool:
    if a == b:
        return True
    (ma, ea), (mb, eb) = a, b
    if ea > eb:
        (ma, ea), (mb, eb) = (mb, eb), (ma, ea)
    return ma == mb * 10 ** (eb - ea)


def decide(lo: Fraction, hi: Fraction, digits: int, rounding: str) -> Decimal | None:
    a = round_fraction(lo, digits, rounding)
    b = round_fraction(hi, digits, rounding)
    if not _same(a, b):
        return None
    return decimal(a[0], a[1], digits)


#: Balls whose binary exponent exceeds this are rounded in arb (no giant Fractions).
_HUGE_EXPONENT = 1 << 14


def _is_extreme(x: flint.arb) -> bool:
    if not x.is_finite() or x.is_zero():
        return False
    # a ball around 0 (like [+/- 2e-21714724092991118993]) is judged by its radius: turning
    # that radius into a Fraction would build a 7e19-bit integer
    part = x.rad() if x.mid().is_zero() else x.mid()
    exp = int(part.man_exp()[1])
    return abs(exp) > _HUGE_EXPONENT


def _decide_arb(x: flint.arb, digits: int, rounding: str) -> Decimal | None:
    """Directed decimal rounding of a ball of extreme magnitude (like 1e-217147240970).

    The decimal exponent comes from a ball of log10|x|, the mantissa from x scaled by a power
    of ten in ball arithmetic, so no number with a huge exponent is ever turned into a Fraction.
    """
    if x.contains(0):
        return None
    negative = x < 0
    ax = -x if negative else x
    lg = ax.log() / flint.arb(10).log()
    e10 = lg.floor().unique_fmpz()
    if e10 is None:
        return None  # too close to a power of ten at this precision
    e10 = int(e10)
    scaled = ax * flint.arb(10) ** (digits - 1 - e10)
    ends = arb_endpoints(scaled)
    if ends is None:
        return None
    lo, hi = (-ends[1], -ends[0]) if negative else ends
    pick = {"up": math.ceil, "down": math.floor}.get(rounding, round)
    a, b = pick(lo), pick(hi)
    if a != b:
        return None
    m, e = a, e10 - digits + 1
    if abs(m) >= 10**digits:
        m, e = m // 10, e + 1
    return decimal(m, e, digits)


_floor, _log10 = math.floor, math.log10

#: Powers of ten as ints, for the directed rounding of moderate digit counts.
_POW10 = tuple(10**k for k in range(128))


#: 10^k as exact balls (arb holds an integer exactly at every precision), k < 400.
_TEN_BALLS = tuple(flint.arb(10**k) for k in range(400))


def _scaled_text(x: flint.arb, digits: int, up: bool) -> str | None:
    """Directed rounding of a ball of moderate magnitude by arb's own ceiling (or floor): the
    decimal's text, or None when this route does not decide it (then :func:`_decimal_text`
    tries).

    With k chosen from the float value so that x * 10^k has ``digits`` digits before the
    point, the exact value v in x has ceil(v * 10^k) = a when the ceiling of the ball x * 10^k
    (which contains v * 10^k) is the single integer a; then v rounded up to ``digits`` digits
    is a * 10^-k (a carry to 10^digits is renormalised; a count of digits off by one, from a
    float near a power of ten, returns None).  Floors likewise for rounding down.  The scaling
    is rounded at the precision set: call it at the working precision (at 53 bits a 30-digit
    ball never decides here).
    """
    me = scaled_round(x, digits, up)
    return None if me is None else f"{me[0]}E{me[1]}"


def scaled_round(x: flint.arb, digits: int, up: bool) -> tuple[int, int] | None:
    """:func:`_scaled_text`'s rounding as integers (m, e), value m * 10^e with ``digits``
    digits in m, or None when it does not decide."""
    f = float(x)
    if f < 0:
        f = -f
    if not 1e-290 < f < 1e290:
        return None
    k = digits - 1 - _floor(_log10(f))
    if k >= 400:
        return None
    y = x * _TEN_BALLS[k] if k >= 0 else x / _TEN_BALLS[-k]  # a ball of every v * 10^k
    c = (y.ceil() if up else y.floor()).unique_fmpz()
    if c is None:
        return None
    a = int(c)
    top = _POW10[digits] if digits < 128 else 10**digits
    b = a if a >= 0 else -a
    if b >= top:
        if b != top:
            return None
        a, k = a // 10, k - 1  # a ceiling (or a negative floor) carried into a new digit
    elif b * 10 < top:
        return None
    return a, -k


def _directed_text(x: flint.arb, digits: int, rounding: str) -> str | None:
    """Directed rounding of a ball ("up" or "down"): the decimal's text, or None when neither
    :func:`_scaled_text` (arb's ceiling or floor, the faster) nor :func:`_decimal_text` (arb's
    decimal conversion, for any magnitude) decides it; anything else ("nearest") returns None
    and the caller takes the general route."""
    if rounding not in ("up", "down"):
        return None
    return _scaled_text(x, digits, rounding == "up") or _decimal_text(x, digits, rounding)


def _decimal_text(x: flint.arb, digits: int, rounding: str) -> str | None:
    """Directed rounding of a ball ("up" or "down") in integers: the decimal's text, or None.

    arb gives integers (m, r, e) with the ball inside [m - r, m + r] * 10^e (``mid_rad_10exp``,
    its outward-rounded decimal conversion, with a few digits more than asked).  Every value v
    of [lo, hi] = [m - r, m + r] then has, with lo at d + k digits, ceil(v / 10^k) (or floor)
    between those of lo and hi; when the two agree that integer is the rounded decimal.  Its
    exponent is right: lo >= 10^(d+k-1), so the quotient has d digits, or d + 1 for a ceiling
    that carried to exactly 10^d (a power of ten, renormalised), and a floor that agrees with
    hi's is below 10^d since lo's is.  Anything else (a ball around 0, too wide, not finite,
    "nearest") returns None.
    """
    m, r, e = x.mid_rad_10exp(digits + 4)
    m, r = int(m), int(r)
    lo, hi = m - r, m + r
    if lo > 0:
        sign = ""
    elif hi < 0:  # rounding -x the other way, then the sign back
        lo, hi, sign = -hi, -lo, "-"
        rounding = "down" if rounding == "up" else "up"
    else:
        return None
    n = ((lo.bit_length() - 1) * 30102) // 100000  # <= log10(lo) (0.30102 < log10 2)
    while lo >= (_POW10[n + 1] if n < 127 else 10 ** (n + 1)):
        n += 1
    k = n + 1 - digits  # lo has n + 1 digits
    if k < 0:
        return None
    p = _POW10[k] if k < 128 else 10**k
    # hi >= lo, so hi rounds as lo does when it does not pass the next multiple of p
    if rounding == "up":
        a = -(-lo // p)
        if hi > a * p:
            return None
    else:
        a = lo // p
        if hi >= (a + 1) * p:
            return None
    exp = int(e) + k
    if a >= (_POW10[digits] if digits < 128 else 10**digits):  # a ceiling carried into a new digit
        a, exp = a // 10, exp + 1
    if abs(exp) > _DECIMAL_EXPONENT_LIMIT:
        return None
    return f"{sign}{a}E{exp}"




def check_request(digits: int, rounding: str) -> None:
    if isinstance(digits, bool) or not isinstance(digits, int):
        raise bad("digits", digits, "must be an int")
    if not 1 <= digits <= MAX_DIGITS:
        raise bad("digits", digits, f"must be between 1 and {MAX_DIGITS}")
    if rounding not in _ROUNDINGS:
        raise bad("rounding", rounding, f"must be one of {', '.join(_ROUNDINGS)}")


def certify_enclosure(
    enclose: Callable[[int], flint.arb | tuple[Fraction, Fraction] | None],
    *,
    digits: int,
    rounding: str,
    exact: Callable[[], Any] | None = None,
    what: str | Callable[[], str] = "value",
    max_bits: int = MAX_BITS,
) -> Certified:
    """Certify a quantity given by a precision-dependent enclosure.

    ``enclose(bits)`` returns an arb ball (or exact endpoints ``(lo, hi)``) that contains the
    exact value, computed at ``bits`` of working precision; the precision is doubled until the
    enclosure decides ``digits`` digits in direction ``rounding``.  ``exact()``, if given, may
    return the exact value as a sympy Rational for the cases a ball cannot decide.
    """
    check_request(digits, rounding)
    bits = working_bits(digits)
    tried_exact = False
    last = None
    while bits <= max_bits:
        with arb_precision(bits):
            box = enclose(bits)
            if isinstance(box, flint.arb) and box.is_finite():
                text = _directed_text(box, digits, rounding)
                if text is not None:
                    return certified_arb(text, digits, rounding)
            if isinstance(box, flint.arb) and _is_extreme(box):
                value = _decide_arb(box, digits, rounding)
                if value is not None:
                    return Certified(value, digits=digits, rounding=rounding, method="arb")
                bits *= 2
                continue
            ends = arb_endpoints(box) if isinstance(box, flint.arb) else box
        if ends is not None:
            last = ends
            value = decide(ends[0], ends[1], digits, rounding)
            if value is not None:
                return Certified(value, digits=digits, rounding=rounding, method="arb")
        if exact is not None and not tried_exact and (ends is None or bits >= 4 * working_bits(digits)):
            tried_exact = True
            value = _exact_value(exact)
            # an "exact" value outside the last proven enclosure is wrong: refuse it (defence in depth)
            if value is not None and last is not None and not last[0] <= value <= last[1]:
                value = None
            if value is not None:
                m, e = round_fraction(value, digits, rounding)
                return Certified(decimal(m, e, digits), digits=digits, rounding=rounding, method="exact")
        bits *= 2
    width = "not finite" if last is None else f"[{float(last[0]):.3g}, {float(last[1]):.3g}]"
    what = what() if callable(what) else what
    raise PrecisionError(
        f"could not certify {digits} digits of the {what} within {max_bits} bits of precision "
        f"(last enclosure {width})"
    )


def _exact_value(exact: Callable[[], Any]) -> Fraction | None:
    try:
        value = exact()
    except (TypeError, ValueError, ZeroDivisionError, ArithmeticError):
        return None
    if value is None:
        return None
    if isinstance(value, (int, Fraction)) and not isinstance(value, bool):
        return Fraction(value)
    import sympy  # a sympy value: sympy is loaded already

    if isinstance(value, sympy.Rational):  # anything else (a string above all) is not read
        return Fraction(int(value.p), int(value.q))
    return None


def certify_exact_balls(fn: Callable[..., flint.arb], values: Sequence[flint.arb], digits: int,
                        rounding: str) -> Certified | None:
    """One evaluation of ``fn`` at exact balls (a float's or an int's, exact at every precision)
    at the first working precision, rounded if it decides, else None (then :func:`certify_balls`
    decides).  The hot path of the conversions: the caller has checked ``digits`` (an int in
    [1, MAX_DIGITS]) and ``rounding`` ("up" or "down")."""
    bits = _WORKING_BITS.get(digits) or working_bits(digits)
    # the rounding scales the ball at the precision set: at the working one, with the evaluation
    text = call_at_precision(bits, _evaluate_and_round, (fn, values, digits, rounding))
    return None if text is None else certified_arb(text, digits, rounding)


def _evaluate_and_round(fn: Callable[..., flint.arb], values: Sequence[flint.arb], digits: int,
                        rounding: str) -> str | None:
    return _directed_text(fn(*values), digits, rounding)


_new_decimal = Decimal.__new__
_ctx = flint.ctx
_arb = flint.arb


def certify_at_floats(fn: Callable[..., flint.arb], x0: float, x1: float, digits: int, bits: int,
                      special: int | None = None) -> Certified | None:
    """``fn`` at the exact balls of two floats (or ints), evaluated once at ``bits`` and rounded
    up to ``digits`` digits when that ball decides the rounding, else None (then
    :func:`certify_balls` decides).

    The conversions' hot path, :func:`certify_exact_balls` without its layers: the precision is
    set and restored here (under the lock :func:`call_at_precision` takes), the ball is rounded
    by :func:`scaled_round` at the same precision, and the :class:`Certified` is built from its
    text.  With ``special``, ``fn`` takes it as a third argument: the precision of its special
    functions (a kernel of :func:`gdpproof.numeric.engine.codegen.limb_kernels`).  The caller has
    checked ``digits`` (an int in [1, MAX_DIGITS]) and chosen the precisions: any gives a sound
    answer (the ball holds the exact value and the rounding is decided only when every point of
    it rounds alike); a low one is undecided more often.
    """
    with precision_lock:
        saved = _ctx._prec  # python-flint's prec setter, less its decimal digits for printing
        _ctx._prec = bits
        try:
            y = fn(_arb(x0), _arb(x1)) if special is None else fn(_arb(x0), _arb(x1), special)
            me = scaled_round(y, digits, True)
        finally:
            _ctx._prec = saved
    if me is None:
        return None
    obj = _new_decimal(Certified, f"{me[0]}E{me[1]}")
    obj.digits, obj.rounding, obj.method = digits, "up", "arb"
    return obj


def certified_arb(text: str, digits: int, rounding: str) -> Certified:
    """``Certified(text, digits=digits, rounding=rounding, method="arb")`` for a decimal string
    from :func:`_directed_text`, without the keyword-argument call (the hot path's last step)."""
    obj = _new_decimal(Certified, text)
    obj.digits, obj.rounding, obj.method = digits, rounding, "arb"
    return obj


def certify_balls(
    fn: Callable[..., flint.arb],
    values: Sequence[Any],
    *,
    digits: int,
    rounding: str,
    exact: Callable[[], Any] | None = None,
    what: str | Callable[[], str] = "value",
    unit_interval: bool = False,
) -> Certified:
    """Certify ``fn(*values)`` for a function of arb balls at exact ``values`` (ints, Fractions
    or exact sympy numbers, turned into balls at each working precision; or exact arb balls,
    such as a float's, which are exact at every precision and passed as they are).

    ``unit_interval=True`` states that the exact value is known to lie in [0, 1] (a
    probability), so the ball may be intersected with it: 1 - 1e-54000 then rounds up to 1
    without 180,000 bits of precision.  ``exact()``, if given, returns the exact value for the
    cases no ball decides (see :func:`certify_enclosure`).
    """

    if all(type(v) is flint.arb for v in values):
        # exact balls (a float's): first the one evaluation that usually decides, without the
        # general loop's machinery; undecided, the loop below starts over
        check_request(digits, rounding)
        first = certify_exact_balls(fn, values, digits, rounding)
        if first is not None:
            return first

    def enclose(bits: int) -> flint.arb | tuple[Fraction, Fraction] | None:
        args = [v if type(v) is flint.arb else arb_from_exact(v) for v in values]
        out = fn(*args)
        return below_one(out) if unit_interval else out

    return certify_enclosure(enclose, digits=digits, rounding=rounding, exact=exact, what=what)


def below_one(out: flint.arb) -> flint.arb | tuple[Fraction, Fraction] | None:
    """An enclosure of a value known to be at most 1 (a probability): ``out`` itself when it lies
    at or below 1, else its exact ends with the upper one cut to 1 (None when it lies wholly
    above 1).  Intersecting the ball with [0, 1] instead would re-centre it and round its upper
    end outward past 1 again, so 1 - 1e-54000 could never round up to 1.

    Args:
        out: A ball containing the value.

    Returns:
        The enclosure to give :func:`certify_enclosure`.

    Examples:
        >>> lo, hi = below_one(flint.arb(1, 1e-30))
        >>> hi, 0 < 1 - lo < 1e-29
        (Fraction(1, 1), True)
        >>> below_one(flint.arb(0.5))
        0.500000000000000
    """
    if not out.is_finite() or out <= 1:
        return out
    ends = arb_endpoints(out)  # near 1: a moderate magnitude, exact endpoints are cheap
    if ends is None or ends[0] > 1:
        return None
    return ends[0], min(ends[1], Fraction(1))


def certify_fraction(q: Fraction, *, digits: int, rounding: str, method: str = "exact") -> Certified:
    """An exact rational rounded to ``digits`` significant digits in direction ``rounding``, in
    integer arithmetic (:func:`round_fraction`).

    >>> certify_fraction(Fraction(1, 3), digits=5, rounding="up")
    Certified('0.33334', digits=5, rounding='up')
    """
    check_request(digits, rounding)
    if q == 0:
        return Certified(0, digits=digits, rounding=rounding, method=method)
    m, e = round_fraction(q, digits, rounding)
    return Certified(decimal(m, e, digits), digits=digits, rounding=rounding, method=method)
