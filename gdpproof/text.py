"""Numbers as text: the one place where gdpproof writes a number for a reader.

Each function has one meaning, and its name says which: :func:`show` (any value as the user gave
it, for an error message; never raises), :func:`fraction_text`, :func:`double_text`,
:func:`decimal_text` and :func:`show_number` (exact values as a reader wrote them),
:func:`given_text`, :func:`answer_text`, :func:`cell_text` and :func:`table_value_text` (a given
or certified value in a statement, an answer or a table), :func:`json_number` (the command
line's JSON), and :func:`terminating_text`, :func:`significant_text`, :func:`percent_text`,
:func:`round_fraction` and :func:`decimal_digits` (exact rationals rounded in a chosen
direction).

Standard library only, imported lazily where it costs start-up time (``--help`` loads this
module through :mod:`gdpproof.errors`); sympy values are accepted without importing sympy.
"""

from __future__ import annotations

import math
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:  # not at run time: the command line's start-up does without typing
    from decimal import Decimal
    from fractions import Fraction
    from typing import Any
del TYPE_CHECKING

__all__ = ["MAX_SHOWN", "show", "fraction_text", "double_text", "decimal_text", "show_number", "given_text",
           "answer_text", "cell_text", "table_value_text", "json_number",
           "terminating_text", "significant_text", "percent_text", "round_fraction", "decimal_digits"]

#: Longest text of one value in a message; a longer exact number is shown in scientific notation.
MAX_SHOWN = 60

#: Longest exact text of a number in a repr or a statement; longer ones are shown approximately.
MAX_PARAMETER_TEXT = 40


def _log10_abs(n: int) -> float:
    """log10 |n| of a nonzero int of any size, in float (its top 64 bits; no int-to-str)."""
    n = abs(n)
    shift = max(0, n.bit_length() - 64)
    return math.log10(n >> shift) + shift * math.log10(2)


def _scientific(sign: int, log10: float) -> str:
    exponent = math.floor(log10)
    mantissa = 10 ** (log10 - exponent)
    if mantissa >= 9.999995:  # the rounded mantissa would print as 10.0000
        mantissa, exponent = 1.0, exponent + 1
    return f"{'-' if sign < 0 else ''}~{mantissa:.5f}e{exponent:+d}"


def fraction_text(num: int, den: int = 1) -> str:
    """The exact rational ``num/den`` for a message, approximate only when it is too long.

    Never converts a huge int to a string (Python refuses beyond 4,300 digits).

    Args:
        num: The numerator.
        den: The denominator, positive.

    Returns:
        ``"num/den"`` (``"num"`` when ``den`` is 1) when it is short, else six digits in
        scientific notation marked approximate (``"~1.23457e+5000"``).

    Examples:
        >>> fraction_text(3, 4), fraction_text(10**5000), fraction_text(1, 10**999999)
        ('3/4', '~1.00000e+5000', '~1.00000e-999999')
    """
    if num == 0:
        return "0"
    if num.bit_length() + den.bit_length() <= 3 * MAX_SHOWN:  # at most ~54 decimal digits in all
        return str(num) if den == 1 else f"{num}/{den}"
    return _scientific(-1 if num < 0 else 1, _log10_abs(num) - _log10_abs(den))


def show(value: Any) -> str:
    """The value as the user wrote it, for an error message, in at most about ``MAX_SHOWN``
    characters.

    Any value is shown without raising: a string or float by its repr, a huge or tiny exact
    number (int, Fraction, Decimal, sympy Rational) in scientific notation, anything else by its
    ``str``, cut to length.

    Args:
        value: Any value.

    Returns:
        Its text for a message.

    Examples:
        >>> show("0.5"), show(0.5), show(10**5000)
        ("'0.5'", '0.5', '~1.00000e+5000')
    """
    try:
        if isinstance(value, float):
            return repr(value)
        if isinstance(value, str):
            text = repr(value)
        elif isinstance(value, bool):
            return str(value)
        elif isinstance(value, int):
            return fraction_text(value)
        elif hasattr(value, "numerator") and hasattr(value, "denominator") and \
                isinstance(value.numerator, int) and isinstance(value.denominator, int):  # Fraction, numpy ints
            return fraction_text(value.numerator, value.denominator)
        elif type(value).__name__ in ("Integer", "Rational", "Half", "One", "Zero", "NegativeOne") and \
                hasattr(value, "p") and hasattr(value, "q"):  # sympy's exact rationals
            return fraction_text(int(value.p), int(value.q))
        elif type(value).__name__ == "Decimal":
            text = str(value) if len(value.as_tuple().digits) <= MAX_SHOWN else f"{value:.6e}"
        else:
            text = str(value)
    except (ValueError, RecursionError, OverflowError, TypeError, ArithmeticError) as exc:
        return f"<a {type(value).__name__} that cannot be shown: {type(exc).__name__}>"
    if len(text) > MAX_SHOWN + 20:
        text = f"{text[:MAX_SHOWN]}... ({len(text):,} characters)"
    return text


def double_text(x: Any) -> str:
    """A number as a repr shows it: a rational that is a double as that double's shortest repr
    (2476979795053773/2251799813685248 is the double 1.1), anything else as it prints.

    Args:
        x: A number (a Fraction, a float, a ``p/q`` string or anything with a ``str``).

    Returns:
        Its text.

    Examples:
        >>> from fractions import Fraction
        >>> double_text(Fraction(1.1)), double_text(Fraction(1, 3)), double_text(1e-5)
        ('1.1', '1/3', '1e-05')
    """
    from fractions import Fraction

    try:
        q = x if isinstance(x, Fraction) else Fraction(str(x)) if "/" in str(x) else None
    except (ValueError, ZeroDivisionError):
        q = None
    if q is not None and q.denominator == 1:
        return str(q.numerator)  # an integer as an integer (a Fraction(1) is the 1 the user wrote)
    if q is not None and q.denominator & (q.denominator - 1) == 0:
        f = float(q)
        if Fraction(f) == q:
            return repr(f)
    return repr(x) if isinstance(x, float) else str(x)


def _rational(v: Any) -> Any:
    """A Fraction for an exact rational (int, Fraction, sympy Rational); anything else as it is
    (sympy is never loaded here: a sympy value exists only once it is)."""
    from fractions import Fraction

    if isinstance(v, int) and not isinstance(v, bool):
        return Fraction(v)
    if isinstance(v, Fraction):
        return v
    sympy = sys.modules.get("sympy")
    if sympy is not None and isinstance(v, sympy.Rational):
        return Fraction(int(v.p), int(v.q))
    return v


def decimal_text(v: Any) -> str | None:
    """The exact decimal of a rational whose denominator is 2^a 5^b.

    Args:
        v: An exact rational (a Fraction, an int or a sympy Rational).

    Returns:
        Its exact decimal (``"0.01"``; ``"1E-400"`` in scientific notation outside
        1e-4 .. 1e15), or None when its denominator has another prime factor.

    Examples:
        >>> from fractions import Fraction
        >>> decimal_text(Fraction(1, 100)), decimal_text(Fraction(1, 10**400)), decimal_text(Fraction(1, 3))
        ('0.01', '1E-400', None)
    """
    from decimal import Context

    d = _exact_decimal(_rational(v))
    if d is None:
        return None
    exact = Context(prec=len(d.as_tuple().digits) + 2)  # the default 28 digits would round
    d = exact.normalize(d)
    return format(d, "f") if -4 <= d.adjusted() <= 15 else format(d, "E")


def _exact_decimal(v: Fraction) -> Decimal | None:
    """The rational v as a Decimal m E-k with the least k (exact, not normalised: 100 stays
    ``100``), or None when its denominator has a prime factor other than 2 and 5."""
    from decimal import Decimal

    q, a, b = v.denominator, 0, 0
    while q % 2 == 0:
        q, a = q // 2, a + 1
    while q % 5 == 0:
        q, b = q // 5, b + 1
    if q != 1:
        return None
    k = max(a, b)
    return Decimal(f"{v.numerator * 10**k // v.denominator}E{-k}")


def show_number(v: Any) -> str:
    """A parameter as the user most likely wrote it.

    A double as its repr, an exact rational as its fraction (``10/3``, ``1/100``: not to be
    confused with the double 0.01), a long one as its exact decimal (``1E-400``), and only
    beyond that approximately, marked ``≈``.

    Args:
        v: An exact rational (a Fraction, an int or a sympy Rational), or a sympy expression
            (``sqrt(2)``).

    Returns:
        Its text, at most about 40 characters.

    Examples:
        >>> from fractions import Fraction
        >>> show_number(Fraction(1, 100)), show_number(Fraction(0.5)), show_number(Fraction(1, 10**400))
        ('1/100', '0.5', '1E-400')
    """
    from fractions import Fraction

    v = _rational(v)
    if not isinstance(v, Fraction):
        text = str(v)
        if len(text) <= MAX_PARAMETER_TEXT:
            return text
        import sympy  # a sympy expression: sympy is loaded already

        return f"≈{sympy.N(v, 8)}"
    p, q = v.numerator, v.denominator
    if max(p.bit_length(), q.bit_length()) > 10_000:  # no str() of ints beyond 3000 digits
        return show(v)
    if q != 1 and not (q & (q - 1)) and abs(v) < 2**1023:
        f = float(v)
        if Fraction(f) == v and len(repr(f)) <= MAX_PARAMETER_TEXT:
            return repr(f)
    for text in (str(v), decimal_text(v)):
        if text is not None and len(text) <= MAX_PARAMETER_TEXT:
            return text
    import sympy  # more than 40 characters either way: sympy's 8-digit approximation, as before

    return f"≈{sympy.N(sympy.Rational(p, q), 8)}"


def _floor_log10_int(n: int, d: int) -> int:
    """floor(log10(n/d)) for positive integers, exactly."""
    e = int((n.bit_length() - d.bit_length()) * 0.30102999566398120)
    # the estimate is off by at most one or two; settle it with integer comparisons
    while (n * 10 ** -e < d) if e < 0 else (n < d * 10**e):
        e -= 1
    while (n * 10 ** (-e - 1) >= d) if e + 1 <= 0 else (n >= d * 10 ** (e + 1)):
        e += 1
    return e


def round_fraction(x: Fraction, digits: int, rounding: str) -> tuple[int, int]:
    """Round ``x`` to ``digits`` significant decimal digits, in integer arithmetic only.

    Args:
        x: The exact value.
        digits: How many significant digits, at least 1.
        rounding: ``"up"`` (towards +inf), ``"down"`` (towards -inf) or ``"nearest"`` (ties to
            even).

    Returns:
        ``(m, e)``, the value ``m * 10**e`` with ``|m| < 10**digits``.

    Examples:
        >>> from fractions import Fraction
        >>> round_fraction(Fraction(2, 3), 3, "up"), round_fraction(Fraction(2, 3), 3, "down")
        ((667, -3), (666, -3))
    """
    n, d = x.numerator, x.denominator
    if n == 0:
        return 0, 0
    e = _floor_log10_int(abs(n), d) - digits + 1
    if e >= 0:
        num, den = n, d * 10**e
    else:
        num, den = n * 10**-e, d
    q, r = divmod(num, den)  # floor division: q = floor(x / 10**e)
    if rounding == "up":
        m = q + (r != 0)
    elif rounding == "down":
        m = q
    else:
        twice = 2 * r
        m = q + (twice > den or (twice == den and q % 2 == 1))
    if abs(m) >= 10**digits:  # rounding carried into a new digit: 10**digits * 10**e
        m //= 10
        e += 1
    return m, e


def decimal_digits(m: int, e: int, digits: int) -> Decimal:
    """The decimal ``m * 10**e`` with ``digits`` significant digits, trailing zeros kept (they are
    certified digits too).

    Args:
        m: The significand, as :func:`round_fraction` gives it.
        e: The exponent, of a size a ``Decimal`` holds (about 10^17 at most).
        digits: The number of significant digits to show.

    Returns:
        The exact ``Decimal``.

    Examples:
        >>> decimal_digits(5, -1, 3), decimal_digits(-667, -3, 3)
        (Decimal('0.500'), Decimal('-0.667'))
    """
    from decimal import Decimal

    if m == 0:
        return Decimal(0)
    text = str(abs(m))
    pad = digits - len(text)
    if pad > 0:
        text += "0" * pad
        e -= pad
    # from text: exact (the constructor does not round), and ten times faster than from a tuple
    return Decimal(f"{'-' if m < 0 else ''}{text}E{e}")


def given_text(v: Any) -> str:
    """A given delta or epsilon for a statement: its exact decimal (``1E-5``) or fraction when
    short, else rounded up to 17 digits.

    A larger delta or epsilon only weakens the claim, so the sentence stays true (the double
    1e-5 is 1.0000000000000001E-5).

    Args:
        v: An exact rational (a Fraction, an int or a sympy Rational; anything else is shown by
            its ``str``).

    Returns:
        Its text.

    Examples:
        >>> from fractions import Fraction
        >>> given_text(Fraction(1, 10**5)), given_text(Fraction(1e-5)), given_text(Fraction(1, 3))
        ('1E-5', '1.0000000000000001E-5', '1/3')
    """
    from fractions import Fraction

    v = _rational(v)
    if not isinstance(v, Fraction):
        return str(v)
    for text in (decimal_text(v), str(v)):
        if text is not None and len(text) <= 24:
            return text
    m, e = round_fraction(v, 17, "up")
    d = decimal_digits(m, e, 17)
    return format(d, "E") if not -4 <= d.adjusted() <= 15 else str(d)


def answer_text(v: Any, digits: int | None = None) -> str:
    """A calibrated answer as a reader wants it: an integer, or the exact decimal where there is
    one, with ``digits`` significant digits shown when given (1.0 at two digits, not 1).

    Args:
        v: An int, or an exact number sympy takes as a Rational (a Fraction, a decimal string).
        digits: The significant digits of the answer's grid, or None.

    Returns:
        Its text.

    Examples:
        >>> answer_text(3), answer_text("1", 2), answer_text("0.25"), answer_text("1/3")
        ('3', '1.0', '0.25', '1/3')
    """
    import sympy
    from decimal import Decimal

    if isinstance(v, int):
        return str(v)
    r = sympy.Rational(v)
    text = decimal_text(r)
    if text is None:
        return show_number(r)
    if digits is not None and "E" not in text:
        d = Decimal(text)
        shown = d.quantize(Decimal(1).scaleb(d.adjusted() - digits + 1))
        if shown == d:
            return format(shown, "f")
    return text


def cell_text(value: str, digits: int = 11) -> str:
    """A certified decimal shortened for a table cell, keeping its exponent (3.4e-10, not 3.4).

    Args:
        value: The decimal's text.
        digits: The most significant digits shown.

    Returns:
        ``value`` when it has at most ``digits`` digits, else its scientific notation.

    Examples:
        >>> cell_text("0.1269367375066439458"), cell_text("0.5")
        ('1.2693673751e-1', '0.5')
    """
    from decimal import Decimal

    d = Decimal(value)
    return value if len(d.as_tuple().digits) <= digits else f"{d:.{digits - 1}e}"


def table_value_text(value: Any) -> str:
    """A certified decimal as a reference table stores it: a lower-case exponent without ``+``.

    Args:
        value: A certified decimal (anything whose ``str`` is a decimal).

    Returns:
        Its text.

    Examples:
        >>> from decimal import Decimal
        >>> table_value_text(Decimal("1.5E+3")), table_value_text(Decimal("2.5E-7"))
        ('1.5e3', '2.5e-7')
    """
    s = str(value)
    return s.replace("E+", "e").replace("E", "e")


def json_number(value: Any) -> str:
    """A number as the command line's JSON carries it: the decimal string it prints as (a
    certified value keeps every digit; JSON numbers would pass through a double).

    Args:
        value: A number (a Certified, an int, ...).

    Returns:
        Its ``str``.

    Examples:
        >>> from decimal import Decimal
        >>> json_number(Decimal("0.1269367375066439458008296247577668804151")), json_number(3)
        ('0.1269367375066439458008296247577668804151', '3')
    """
    return str(value)


def terminating_text(x: Any) -> str | None:
    """An exact number as a decimal string: exact when it terminates (and is short), else rounded
    to nearest at 30 significant digits.

    Args:
        x: A Fraction, a Decimal (shown as it is) or None.

    Returns:
        Its text, or None for None.

    Examples:
        >>> from fractions import Fraction
        >>> terminating_text(Fraction(1, 8)), terminating_text(Fraction(1, 3))
        ('0.125', '0.333333333333333333333333333333')
    """
    from decimal import Decimal

    if x is None:
        return None
    if isinstance(x, Decimal):
        return str(x)
    # a short fraction only (a claim of 1e-999999 divided its denominator by 2 a million times)
    if abs(x.numerator).bit_length() + x.denominator.bit_length() <= 200 \
            and len(str(x.numerator)) + len(str(x.denominator)) <= 60:
        exact = _exact_decimal(x)
        if exact is not None:
            return str(exact)
    m, e = round_fraction(x, 30, "nearest")
    return str(Decimal(f"{m}E{e}"))


def significant_text(x: Fraction, rounding: str, digits: int = 6) -> str:
    """An exact rational rounded to ``digits`` significant digits in the direction asked.

    Args:
        x: The exact value.
        rounding: ``"up"``, ``"down"`` or ``"nearest"``.
        digits: Significant digits (trailing zeros kept).

    Returns:
        Its text.

    Examples:
        >>> from fractions import Fraction
        >>> significant_text(Fraction(2, 3), "up"), significant_text(Fraction(2, 3), "down", 3)
        ('0.666667', '0.666')
    """
    m, e = round_fraction(x, digits, rounding)
    return str(decimal_digits(m, e, digits))


def percent_text(x: Fraction | None, rounding: str, digits: int = 2) -> str:
    """100 x with ``digits`` decimals, rounded in the given direction (``"-"`` for None).

    Args:
        x: The exact fraction, or None.
        rounding: ``"down"``, or anything else for up.
        digits: Decimals after the point.

    Returns:
        Its text.

    Examples:
        >>> from fractions import Fraction
        >>> percent_text(Fraction(1, 3), "down"), percent_text(Fraction(1, 3), "up"), percent_text(None, "up")
        ('33.33', '33.34', '-')
    """
    import math

    if x is None:
        return "-"
    scaled = x * 100 * 10**digits
    n = math.floor(scaled) if rounding == "down" else math.ceil(scaled)
    sign = "-" if n < 0 else ""
    n = abs(n)
    return f"{sign}{n // 10**digits}.{n % 10**digits:0{digits}d}"
