"""The exception hierarchy of gdpproof.

Every error gdpproof raises on purpose is a :class:`GdpproofError`.  Each one also
subclasses the builtin exception a caller would naturally catch, so ``except ValueError``
keeps working for code that does not know gdpproof.
"""

from __future__ import annotations

import math

TYPE_CHECKING = False
if TYPE_CHECKING:  # not at run time: the command line's start-up does without typing
    from collections.abc import Mapping
    from typing import Any

__all__ = [
    "GdpproofError",
    "InvalidParameterError",
    "ConvergenceError",
    "PrecisionError",
    "SymbolicError",
    "NotSupportedError",
    "WidthNotReachedWarning",
    "RoundedArgumentWarning",
]


class GdpproofError(Exception):
    """Base class of every error raised by gdpproof on purpose."""


#: Longest text of one value in a message; a longer exact number is shown in scientific notation.
MAX_SHOWN = 60


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


def short_number(num: int, den: int = 1) -> str:
    """``num/den`` for a message: exact when short, else ``~1.23457e+5000`` (six digits, marked
    approximate).  Never converts a huge int to a string (Python refuses beyond 4,300 digits).

    >>> short_number(3, 4), short_number(10**5000), short_number(1, 10**999999)
    ('3/4', '~1.00000e+5000', '~1.00000e-999999')
    """
    if num == 0:
        return "0"
    if num.bit_length() + den.bit_length() <= 3 * MAX_SHOWN:  # at most ~54 decimal digits in all
        return str(num) if den == 1 else f"{num}/{den}"
    return _scientific(-1 if num < 0 else 1, _log10_abs(num) - _log10_abs(den))


def show(value: Any) -> str:
    """The value as the user wrote it, for error messages, at most about ``MAX_SHOWN`` characters
    (a string or float by its repr; an exact number too long to show in scientific notation).

    Any value is shown without raising: a huge or tiny exact number (int, Fraction, Decimal,
    sympy Rational) in scientific notation, anything else by its ``str``, cut to length.

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
            return short_number(value)
        elif hasattr(value, "numerator") and hasattr(value, "denominator") and \
                isinstance(value.numerator, int) and isinstance(value.denominator, int):  # Fraction, numpy ints
            return short_number(value.numerator, value.denominator)
        elif type(value).__name__ in ("Integer", "Rational", "Half", "One", "Zero", "NegativeOne") and \
                hasattr(value, "p") and hasattr(value, "q"):  # sympy's exact rationals
            return short_number(int(value.p), int(value.q))
        elif type(value).__name__ == "Decimal":
            text = str(value) if len(value.as_tuple().digits) <= MAX_SHOWN else f"{value:.6e}"
        else:
            text = str(value)
    except (ValueError, RecursionError, OverflowError, TypeError, ArithmeticError) as exc:
        return f"<a {type(value).__name__} that cannot be shown: {type(exc).__name__}>"
    if len(text) > MAX_SHOWN + 20:
        text = f"{text[:MAX_SHOWN]}... ({len(text):,} characters)"
    return text


_UNSET: Any = object()


class _Missing:
    """The value of an argument that was not given (its rule then says what it is needed for)."""

    def __repr__(self) -> str:
        return "MISSING"


#: ``InvalidParameterError(argument=..., value=MISSING, rule="is needed ...")`` reads
#: "ARGUMENT is needed ...": an argument that was required and not given.
MISSING: Any = _Missing()


class InvalidParameterError(GdpproofError, ValueError):
    """An argument is outside its domain; the message names argument, value and rule.

    Besides the message, the error carries which argument was at fault, as structured fields,
    so that a front end can name it in its own vocabulary (the command line names its flags):

    - ``argument``: the parameter's name in the library (``"noise_multiplier"``), or None when
      the error concerns no single argument;
    - ``value``: the value as it was given;
    - ``rule``: the rule it breaks (``"must be > 0"``).

    Given ``argument`` and ``rule`` without a message, the message is
    ``"{argument}={value} {rule}"``.

    >>> e = InvalidParameterError(argument="noise_multiplier", value="0", rule="must be > 0")
    >>> str(e)
    "noise_multiplier='0' must be > 0"
    >>> e.named("--sigma")
    "--sigma='0' must be > 0"
    """

    argument: str | None
    value: Any
    rule: str | None

    def __init__(self, message: str | None = None, *, argument: str | None = None, value: Any = None,
                 rule: str | None = None) -> None:
        if message is None:
            message = (str(rule or "") if argument is None else f"{argument} {rule}" if value is MISSING
                       else f"{argument}={show(value)} {rule}")
        super().__init__(message)
        self.argument, self.value, self.rule = argument, value, rule

    def named(self, name: str, value: Any = _UNSET) -> str:
        """The message with the argument called ``name`` (and shown as ``value`` if given).

        Without structured fields (``argument`` or ``rule`` is None) the message is returned
        unchanged.
        """
        if self.argument is None or self.rule is None:
            return str(self)
        if self.value is MISSING and value is _UNSET:
            return f"{name} {self.rule}"
        return f"{name}={show(self.value if value is _UNSET else value)} {self.rule}"

    def renamed(self, names: Mapping[str, str], values: Mapping[str, Any] | None = None) -> str:
        """The message, with the argument renamed through ``names`` when it is one of its keys.

        ``values`` optionally gives, by the same library names, the value as the user typed it
        (a command line's text, where the library received a parsed number).
        """
        if self.argument is None or self.argument not in names:
            return str(self)
        if values is not None and self.argument in values:
            return self.named(names[self.argument], values[self.argument])
        return self.named(names[self.argument])


class ConvergenceError(GdpproofError, ArithmeticError):
    """A solver or iteration did not converge within its limits."""


class PrecisionError(GdpproofError, ArithmeticError):
    """The requested digits could not be certified within the precision limit.

    gdpproof raises this instead of returning a number it cannot vouch for.
    """


class SymbolicError(GdpproofError, ArithmeticError):
    """sympy could not produce a closed form for the requested operation.

    The numeric counterpart of the operation (``*_at`` methods) still works.
    """


class NotSupportedError(GdpproofError, NotImplementedError):
    """The operation is well defined but gdpproof has no exact method for these arguments yet.

    Raised instead of returning an approximation that would look exact (for example the
    composition of different mechanism families before numerical composition exists).
    """


class WidthNotReachedWarning(UserWarning):
    """A bracket was refined as far as it could go without reaching the relative width asked.

    The bracket returned is still proven, only wider; the message gives the width reached and
    the width asked, and the result records it (``target_met``, ``rel_width_reached``).
    """


class RoundedArgumentWarning(UserWarning):
    """An irrational argument (log(3)) that a computation takes as a rational, rounded outward to
    the side that only overstates the privacy loss: the result is then a bound, not the correctly
    rounded value.  The message names the argument and the direction."""


def bad(name: str, value: Any, rule: str) -> InvalidParameterError:
    """The error for argument ``name`` given ``value``, breaking ``rule`` (the one builder of
    argument errors): the message reads ``"{name}={value} {rule}"`` and the three are kept as the
    error's structured fields.

    >>> bad("mu", -1, "must be >= 0")
    InvalidParameterError('mu=-1 must be >= 0')
    """
    return InvalidParameterError(argument=name, value=value, rule=rule)
