"""The exception hierarchy of gdpproof.

Every error gdpproof raises on purpose is a :class:`GdpproofError`.  Each one also
subclasses the builtin exception a caller would naturally catch, so ``except ValueError``
keeps working for code that does not know gdpproof.
"""

from __future__ import annotations

__all__ = [
    "GdpproofError",
    "InvalidParameterError",
    "ConvergenceError",
    "PrecisionError",
    "SymbolicError",
    "NotSupportedError",
]


class GdpproofError(Exception):
    """Base class of every error raised by gdpproof on purpose."""


class InvalidParameterError(GdpproofError, ValueError):
    """An argument is outside its domain; the message names argument, value and rule."""


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
