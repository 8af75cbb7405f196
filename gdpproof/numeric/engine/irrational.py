"""An irrational argument of the solvers (log(3), 1 - exp(-1000)) as a rational just beside it,
on the side that only overstates the privacy loss: the solvers bisect in exact rationals."""

from __future__ import annotations

from typing import Any

from . import compiler  # noqa: F401  (registers the evaluator of sympy constants rational_enclosure uses)
from ._mp import rational_enclosure
from ...errors import InvalidParameterError, PrecisionError, RoundedArgumentWarning, bad


#: :func:`outward` narrows an irrational argument's enclosure up to this many bits to tell
#: whether it lies inside its domain.
OUTWARD_MAX_BITS = 4096


def _judged(check: Any, name: str, value: Any) -> tuple[Any, Any]:
    """(check(name, value), None), or (None, the InvalidParameterError it raised about ``name``)."""
    try:
        return check(name, value), None
    except InvalidParameterError as exc:
        if exc.argument != name or exc.rule is None:
            raise
        return None, exc


def outward(name: str, value: Any, up: bool, check: Any = None) -> Any:
    """An irrational real constant (log(3)) as a rational within a relative 2^-250 of it, above it
    with ``up`` (else below), with a :class:`~gdpproof.errors.RoundedArgumentWarning`: for the
    solvers, which bisect in rationals, on the side that only overstates the privacy loss.  Any
    other value (a rational, a symbol, a non-real) is returned as it is, for the gates to judge.
    ``check(name, rational)``, when given, validates the rational (and returns what it makes of
    it) before the warning: an error it raises names the value as given (``delta=sqrt(2)``, not
    the rational that stood in for it), and no warning precedes it."""
    if getattr(value, "is_Rational", True) or not getattr(value, "is_number", False) \
            or value.is_real is not True or value.is_infinite:
        return value if check is None else check(name, value)
    import warnings

    lo, hi = rational_enclosure(value)
    rational = hi if up else lo
    if check is not None:
        # both ends of the enclosure are judged (1 + exp(-1000) must be refused whichever stands
        # in for it), the enclosure narrowed while they disagree; no enclosure placing it: refused
        bits = 256
        while True:
            verdicts = [_judged(check, name, end) for end in (lo, hi)]
            failed = [exc for _, exc in verdicts if exc is not None]
            if not failed:
                rational = verdicts[1][0] if up else verdicts[0][0]
                break
            if len(failed) == 2:
                raise bad(name, value, failed[0].rule) from None
            if bits >= OUTWARD_MAX_BITS:
                raise PrecisionError(f"{name}={value} lies within a relative 2^-{bits} of an end of its "
                                     f"domain: whether it {failed[0].rule} is not decided")
            bits *= 4
            lo, hi = rational_enclosure(value, bits)
    warnings.warn(RoundedArgumentWarning(
        f"{name}={value} is irrational: taken as a rational within a relative 2^-250 {'above' if up else 'below'} "
        "it, the side that only overstates the privacy loss; the result is a bound on the exact one, its last "
        "digit possibly one unit off the correctly rounded value"), stacklevel=4)
    return rational
