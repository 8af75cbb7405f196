"""The exception hierarchy of gdpproof.

Every error gdpproof raises on purpose is a :class:`GdpproofError`.  Each one also
subclasses the builtin exception a caller would naturally catch, so ``except ValueError``
keeps working for code that does not know gdpproof.
"""

from __future__ import annotations

from .text import show

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
    """Base class of every error raised by gdpproof on purpose.

    Examples:
        >>> import gdpproof
        >>> try:
        ...     gdpproof.epsilon_from_delta(1, 2)
        ... except GdpproofError as exc:
        ...     print(type(exc).__name__, exc)
        InvalidParameterError delta=2 must be in [0, 1]
    """


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
    so that a front end can name it in its own vocabulary (the command line names its flags).

    Args:
        message: The message; None builds ``"{argument}={value} {rule}"`` from the fields.
        argument: The parameter's name in the library (``"noise_multiplier"``), or None when the
            error concerns no single argument.
        value: The value as it was given (``MISSING`` for a required argument not given: the
            message then reads ``"{argument} {rule}"``).
        rule: The rule it breaks (``"must be > 0"``).
        mentions: Other arguments the rule names, by their library names (``("dataset_size",)`` in
            ``"must be at most dataset_size=500"``), or, in an error of no single argument, the
            arguments its message names: a front end renames them too (:meth:`renamed`).

    Examples:
        >>> e = InvalidParameterError(argument="noise_multiplier", value="0", rule="must be > 0")
        >>> str(e)
        "noise_multiplier='0' must be > 0"
        >>> e.named("--sigma")
        "--sigma='0' must be > 0"
    """

    argument: str | None
    value: Any
    rule: str | None
    mentions: tuple[str, ...]

    def __init__(self, message: str | None = None, *, argument: str | None = None, value: Any = None,
                 rule: str | None = None, mentions: tuple[str, ...] = ()) -> None:
        if message is None:
            message = (str(rule or "") if argument is None else f"{argument} {rule}" if value is MISSING
                       else f"{argument}={show(value)} {rule}")
        super().__init__(message)
        self.argument, self.value, self.rule, self.mentions = argument, value, rule, tuple(mentions)

    def named(self, name: str, value: Any = _UNSET, rule: str | None = None) -> str:
        """The message with the argument called ``name`` (and shown as ``value``, its rule as
        ``rule``, if given).

        Without structured fields (``argument`` or ``rule`` is None) the message is returned
        unchanged.
        """
        if self.argument is None or self.rule is None:
            return str(self)
        rule = self.rule if rule is None else rule
        if self.value is MISSING and value is _UNSET:
            return f"{name} {rule}"
        return f"{name}={show(self.value if value is _UNSET else value)} {rule}"

    def rule_renamed(self, names: Mapping[str, str]) -> str | None:
        """The rule with the other arguments it mentions renamed through ``names``.

        >>> e = InvalidParameterError(argument="batch_size", value=600, rule="must be at most dataset_size=500",
        ...                           mentions=("dataset_size",))
        >>> e.rule_renamed({"dataset_size": "--dataset-size"})
        'must be at most --dataset-size=500'
        """
        return None if self.rule is None else _with_names(self.rule, self.mentions, names)

    def renamed(self, names: Mapping[str, str], values: Mapping[str, Any] | None = None) -> str:
        """The message, with the argument (and the others its rule mentions) renamed through
        ``names`` when it is one of its keys.

        ``values`` optionally gives, by the same library names, the value as the user typed it
        (a command line's text, where the library received a parsed number).

        >>> e = InvalidParameterError(argument="epochs", value=3, rule="cannot be given with steps=100",
        ...                           mentions=("steps",))
        >>> e.renamed({"epochs": "--epochs", "steps": "--steps"})
        '--epochs=3 cannot be given with --steps=100'
        """
        if self.argument is None:  # an error of no single argument: the ones it mentions
            return _with_names(str(self), self.mentions, names)
        if self.argument not in names:
            return str(self)
        rule = self.rule_renamed(names)
        if values is not None and self.argument in values:
            return self.named(names[self.argument], values[self.argument], rule)
        return self.named(names[self.argument], rule=rule)


def _with_names(text: str, mentions: tuple[str, ...], names: Mapping[str, str]) -> str:
    """``text`` with each argument of ``mentions`` that ``names`` renames written by its new name
    (whole words only: ``steps`` in ``steps/epochs``, not in ``max_steps``)."""
    import re

    for other in mentions:
        if other in names:
            new = names[other]
            text = re.sub(rf"(?<![\w-]){re.escape(other)}(?![\w-])", lambda _: new, text)
    return text


class ConvergenceError(GdpproofError, ArithmeticError):
    """A solver or iteration did not converge within its limits.

    Examples:
        >>> issubclass(ConvergenceError, ArithmeticError) and issubclass(ConvergenceError, GdpproofError)
        True
    """


class PrecisionError(GdpproofError, ArithmeticError):
    """The requested digits could not be certified within the precision limit.

    gdpproof raises this instead of returning a number it cannot vouch for.

    Examples:
        >>> issubclass(PrecisionError, ArithmeticError) and issubclass(PrecisionError, GdpproofError)
        True
    """


class SymbolicError(GdpproofError, ArithmeticError):
    """sympy could not produce a closed form for the requested operation.

    The numeric counterpart of the operation (``*_at`` methods) still works.

    Examples:
        >>> issubclass(SymbolicError, ArithmeticError) and issubclass(SymbolicError, GdpproofError)
        True
    """


class NotSupportedError(GdpproofError, NotImplementedError):
    """The operation is well defined but gdpproof has no exact method for these arguments yet.

    Raised instead of returning an approximation that would look exact (for example the
    composition of different mechanism families before numerical composition exists).

    Examples:
        >>> from gdpproof.mechanisms import DiscreteGaussianMechanism
        >>> try:
        ...     DiscreteGaussianMechanism(1).tradeoff()
        ... except NotSupportedError as exc:
        ...     print(str(exc)[:60])
        DiscreteGaussianMechanism(sigma=1, sensitivity=1): its trade
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


def bad(name: str, value: Any, rule: str, mentions: tuple[str, ...] = ()) -> InvalidParameterError:
    """The error for argument ``name`` given ``value``, breaking ``rule`` (the one builder of
    argument errors): the message reads ``"{name}={value} {rule}"`` and the three are kept as the
    error's structured fields, with ``mentions``, the other arguments the rule names (a front end
    renames them too).

    >>> bad("mu", -1, "must be >= 0")
    InvalidParameterError('mu=-1 must be >= 0')
    """
    return InvalidParameterError(argument=name, value=value, rule=rule, mentions=mentions)


def within(where: str, error: InvalidParameterError,
           kind: type[InvalidParameterError] = InvalidParameterError) -> InvalidParameterError:
    """``error`` (built by :func:`bad`, or raised by a callee) as part of a larger input named
    ``where`` (a spec, a file): the message reads ``"{where}: {error}"``, so ``"{where}:
    {name}={value} {rule}"`` for one argument, the argument, value and rule are kept as fields
    (a front end renames the argument: ``named()`` leaves ``where`` out), and the error is
    raised as ``kind`` (a subclass, such as the mechanism specs' SpecError).

    >>> within("mechanism 'gdp:mu=-1'", bad("mu", "-1", "must be >= 0"))
    InvalidParameterError("mechanism 'gdp:mu=-1': mu='-1' must be >= 0")
    """
    return kind(f"{where}: {error}", argument=error.argument, value=error.value, rule=error.rule,
                mentions=error.mentions)
